"""The engines' own parsers, used as the reference when measuring the grammars' fidelity.

Each reference answers ``accepts(sql) -> bool``: False only for a *syntax* error (a missing
table or function means the syntax was fine). :func:`available_references` says which can run here.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Callable
from typing import Any

from parrot.dialects.splitter import splitter
from parrot.engines.clickhouse import MultiStatementError, explain_ast
from parrot.servers import server_for
from parrot.servers.base import run_pid

_SQLITE_SYNTAX = ("syntax error", "incomplete input", "unrecognized token")


class Reference:
    """A real parser: ``name`` for reports, ``accepts`` for verdicts, ``close`` when done."""

    name = ""
    in_process = True  # runs inside this process (no server, no JVM): cheap to open

    def accepts(self, sql: str) -> bool:
        raise NotImplementedError

    def close(self) -> None:
        """Release what the reference holds (connections, sessions)."""


class SqliteReference(Reference):
    """SQLite: ``EXPLAIN <stmt>`` on an empty in-memory database."""

    def __init__(self) -> None:
        self.conn = sqlite3.connect(":memory:")
        self.name = f"sqlite {sqlite3.sqlite_version} EXPLAIN"

    def accepts(self, sql: str) -> bool:
        for stmt in splitter("sqlite").split(sql):
            try:
                self.conn.execute("EXPLAIN " + stmt)
            except sqlite3.Warning:
                continue  # an empty statement (only a comment)
            except sqlite3.Error as exc:
                if any(m in str(exc) for m in _SQLITE_SYNTAX):
                    return False
        return True

    def close(self) -> None:
        self.conn.close()


class _LibraryReference(Reference):
    """A parser library called in this process on the whole text: ``parse(sql)`` raises one of
    ``syntax_errors`` on a syntax error (``other_errors``: raised for what parsed, e.g. a
    construct the library does not support)."""

    parse: Callable[[str], object]
    syntax_errors: tuple[type[BaseException], ...] = ()
    other_errors: tuple[type[BaseException], ...] = ()

    def accepts(self, sql: str) -> bool:
        try:
            self.parse(sql)
        except self.syntax_errors:
            return False
        except self.other_errors:
            return True
        return True


class DuckdbReference(_LibraryReference):
    """DuckDB's own parser: ``duckdb.extract_statements``."""

    def __init__(self) -> None:
        import duckdb

        self.parse = duckdb.extract_statements
        self.syntax_errors = (duckdb.ParserException,)
        self.other_errors = (duckdb.Error,)  # e.g. NotImplementedException: parsed
        self.name = f"duckdb {duckdb.__version__} extract_statements"


class PostgresReference(_LibraryReference):
    """PostgreSQL's parser (libpg_query) through ``pglast``."""

    def __init__(self) -> None:
        import pglast

        self.parse = pglast.parser.parse_sql
        self.syntax_errors = (pglast.parser.ParseError,)
        self.name = f"pglast {pglast.__version__} (PostgreSQL parser)"


class ClickhouseReference(Reference):
    """ClickHouse's parser: ``EXPLAIN AST`` through chdb, one statement at a time."""

    def __init__(self) -> None:
        import chdb

        self._chdb = chdb
        version = str(chdb.query("SELECT version()", "CSV")).strip().strip('"')
        self.name = f"clickhouse {version} (chdb) EXPLAIN AST"

    def accepts(self, sql: str) -> bool:
        for stmt in splitter("clickhouse").split(sql):
            try:
                explain_ast(self._chdb, stmt)  # exactly one statement, never run
            except MultiStatementError:
                return False
            except Exception as exc:  # chdb raises RuntimeError with the server's message
                if "Syntax error" in str(exc) or "SYNTAX_ERROR" in str(exc):
                    return False
        return True


class MariadbReference(Reference):
    """MariaDB's parser: ``PREPARE`` on a server parrot manages (error 1064 = syntax error)."""

    in_process = False

    def __init__(self) -> None:
        import pymysql

        server = server_for("mysql")
        self._started = server.state() is None
        self._server = server
        # shared: a run that joins the server meanwhile keeps it past this reference's close
        state = server.share(start=True)
        assert state is not None  # share(start=True) starts it or raises ServerError
        # PREPARE needs a current database (else error 1046) it may write to (else 1044); it
        # only parses and resolves, it executes nothing
        self.conn = pymysql.connect(
            host=state.host,
            port=state.port,
            user="root",
            unix_socket=state.socket or None,
            database="mysql",
            autocommit=True,
        )
        self._pymysql = pymysql
        self.name = f"{state.label} PREPARE"

    def accepts(self, sql: str) -> bool:
        with self.conn.cursor() as cur:
            for stmt in splitter("mysql").split(sql):
                try:
                    cur.execute("PREPARE parrot_check FROM %s", (stmt,))
                except self._pymysql.err.MySQLError as exc:
                    code = exc.args[0] if exc.args else 0
                    if code == 1064:
                        return False
                    if 2000 <= code < 3000:  # client/connection errors say nothing about syntax
                        raise
        return True

    def close(self) -> None:
        self.conn.close()
        if self._started:  # stopped unless another live run uses it meanwhile
            self._server.release(run_pid())


class SparkReference(Reference):
    """Spark SQL's parser (``sessionState.sqlParser.parsePlan``) in a small local session."""

    in_process = False

    def __init__(self) -> None:
        from pyspark.sql import SparkSession

        logging.getLogger("SQLQueryContextLogger").setLevel(logging.CRITICAL)  # expected rejects

        self.spark = (
            SparkSession.builder.master("local[1]")
            .appName("parrot-check-fidelity")
            .config("spark.driver.memory", "1g")
            .config("spark.ui.enabled", "false")
            .getOrCreate()
        )
        self.spark.sparkContext.setLogLevel("OFF")  # rejected statements are expected here
        self._parser = self.spark._jsparkSession.sessionState().sqlParser()
        self.name = f"spark {self.spark.version} parsePlan"

    def accepts(self, sql: str) -> bool:
        for stmt in splitter("spark").split(sql):
            try:
                self._parser.parsePlan(stmt)
            except Exception as exc:  # py4j wraps ParseException
                if "ParseException" in str(exc) or "PARSE_SYNTAX_ERROR" in str(exc):
                    return False
        return True

    def close(self) -> None:
        self.spark.stop()


REFERENCES: dict[str, Callable[[], Reference]] = {
    "sqlite": SqliteReference,
    "duckdb": DuckdbReference,
    "postgres": PostgresReference,
    "clickhouse": ClickhouseReference,
    "mysql": MariadbReference,
    "spark": SparkReference,
}


def open_reference(dialect: str, in_process: bool = False) -> tuple[Reference | None, str]:
    """The reference parser for ``dialect`` and "" — or None and why it cannot run here
    (``in_process``: only a parser that needs no server or JVM)."""
    factory = REFERENCES.get(dialect)
    if in_process and not getattr(factory, "in_process", True):
        return None, "its reference parser needs a server or a JVM"
    if factory is None:
        return None, "no reference parser for this dialect on PyPI or this machine"
    try:
        return factory(), ""
    except Exception as exc:  # missing package, server that cannot start, no Java, …
        reason: Any = exc
        return None, f"reference parser unavailable: {type(reason).__name__}: {reason}"
