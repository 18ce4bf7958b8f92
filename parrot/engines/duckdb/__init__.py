"""DuckDB adapter.

Isolation: every fixture lives in its own in-memory DuckDB database. Each
:meth:`DuckDBEngine.execute` opens a fresh connection to it (``cursor()``: temp objects, prepared
statements, ``USE`` and session settings die with it), runs all statements inside one transaction
and rolls it back — DuckDB's DDL is transactional, so tables, views and macros a translation
creates work within the execution and are gone afterwards, and DROP/DELETE/UPDATE/ALTER/
CREATE OR REPLACE on fixture tables are undone. A database evicted from the adapter's cache is
emptied (its tables dropped; one holding anything else is closed) and filled with the next
fixture: nothing an execution did survives its rollback, so it is as good as a new one.

Refused before anything runs (``ExecStatus.UNSUPPORTED``), by the statement types the
connection's ``extract_statements`` reports (and IMPORT DATABASE by its leading keyword, since
parsing it already reads files): transaction control (BEGIN/COMMIT/ROLLBACK would end the
guarding transaction), ATTACH/DETACH, COPY, EXPORT/IMPORT DATABASE, LOAD/INSTALL/extension
updates, CREATE SECRET, and SET/PRAGMA/CALL texts that touch file, extension, logging or
configuration-lock settings. External access is also disabled engine-side
(``enable_external_access=false``, which cannot be switched back on). Global settings a
translation changes (e.g. ``SET default_null_order``, ``SET GLOBAL TimeZone``) are restored after
every execution, compared as a new cursor sees them.

Timeouts: a watchdog thread calls ``interrupt()`` on the execution's connection at the deadline.

Settings changed from DuckDB's defaults: global ``TimeZone='UTC'`` (TIMESTAMPTZ values print and
convert deterministically) and ``enable_external_access=false`` (safety). Nothing that changes
query semantics (NULL ordering, integer division, ...) is touched.

Type map: integer → INTEGER, bigint → BIGINT, double → DOUBLE, decimal(p,s) → DECIMAL(p,s),
text → VARCHAR, boolean → BOOLEAN, date → DATE, timestamp → TIMESTAMP.

Result values: DECIMAL → Decimal, DATE/TIMESTAMP/TIME → Temporal, TIMESTAMPTZ → Temporal in UTC
(DuckDB's Python conversion of time-zone types needs pytz, so they are converted in SQL: top-level
columns with ``timezone('UTC', ...)``; inside LIST/STRUCT/MAP by a cast to TIMESTAMP, i.e. in the
session TimeZone — UTC unless the SQL itself changes it),
LIST/STRUCT/MAP/ARRAY/UNION → Nested, HUGEINT/UBIGINT → int, INTERVAL → Nested
``{"interval_seconds": ...}`` (DuckDB's Python conversion: a month counts 30 days), UUID → str,
BLOB → bytes, REAL → float (widened, e.g. 0.10000000149011612).
"""

from __future__ import annotations

import contextlib
import dataclasses
import importlib.util
import re
from collections.abc import Sequence
from functools import cache
from typing import TYPE_CHECKING, Any, ClassVar

from parrot import values
from parrot.engines import statements as st
from parrot.engines.base import (
    Capabilities,
    EngineBase,
    ExecStatus,
    Execution,
    Request,
    TypeMap,
    arrow_arrays,
    create_table_sql,
    quote_ident,
    select_all,
)
from parrot.fixtures import Fixture, Table

if TYPE_CHECKING:
    import duckdb

_LOAD_VIEW = "__parrot_load"  # the Arrow table being inserted, registered only during a load
ONE_THREAD_ROWS = 100_000  # fixtures of at most this many rows in all are filled on one thread
SPARE_DATABASES = 4  # databases evicted from the cache kept, emptied, for the next fixtures
# what a spare database still holds once its tables are dropped (executions roll back, so
# nothing; a spare that holds anything is closed instead)
_LEFT_OVER = (
    "SELECT (SELECT count(*) FROM duckdb_tables()) + (SELECT count(*) FROM duckdb_views() "
    "WHERE NOT internal) + (SELECT count(*) FROM duckdb_sequences()) + "
    "(SELECT count(*) FROM duckdb_schemas() WHERE NOT internal)"
)


@cache
def _duckdb() -> Any:
    """duckdb, imported on first use: a main process that only dispatches to engine workers asks
    whether DuckDB runs here (:meth:`DuckDBEngine.available`) without loading it."""
    import duckdb

    return duckdb


@dataclasses.dataclass(frozen=True)
class _Kinds:
    """DuckDB's statement types parrot treats apart."""

    st: Any  # duckdb.StatementType
    refused: dict[Any, str]
    # DML/DDL types whose single "Count"/"Success" column is a status, not rows
    rowless: frozenset[Any]
    # types that cannot change a setting (configuration is locked, and these are no SET/RESET,
    # PRAGMA, CALL, PREPARE/EXECUTE, ...): no settings check after an execution of only these
    inert: frozenset[Any]


@cache
def _kinds() -> _Kinds:
    st_ = _duckdb().StatementType
    refused = {
        st_.TRANSACTION: "transaction control (BEGIN/COMMIT/ROLLBACK)",
        st_.ATTACH: "ATTACH",
        st_.DETACH: "DETACH",
        st_.COPY: "COPY",
        st_.COPY_DATABASE: "COPY FROM DATABASE",
        st_.EXPORT: "EXPORT/IMPORT DATABASE",
        st_.LOAD: "LOAD/INSTALL",
        st_.EXTENSION: "extension statements",
        st_.LOGICAL_PLAN: "logical plans",
        st_.INVALID: "statements DuckDB cannot classify (e.g. UPDATE EXTENSIONS)",
    }
    # the types that change data or objects: status rows only, and no settings changed
    changes = {st_.INSERT, st_.UPDATE, st_.DELETE, st_.CREATE, st_.DROP, st_.ALTER, st_.MERGE_INTO}
    rowless = frozenset(
        changes
        | {
            st_.SET,
            st_.VARIABLE_SET,
            st_.PREPARE,
            st_.CALL,
            st_.VACUUM,
            st_.ANALYZE,
            st_.CREATE_FUNC,
            st_.PRAGMA,
            st_.EXECUTE,
        }
    )
    inert = frozenset(changes | {st_.SELECT, st_.EXPLAIN})
    return _Kinds(st_, refused, rowless, inert)


_PROTECTED_SETTINGS = re.compile(
    r"\b(enable_external_access|lock_configuration|allow_\w+|allowed_\w+|\w*autoinstall\w*|"
    r"\w*autoload\w*|\w*extension\w*|home_directory|temp_directory|secret_directory|"
    r"max_temp_directory_size|enable_profiling|profiling_\w+|profile_output|enable_logging|"
    r"logging_\w+|log_query_path|disabled_filesystems|enable_http\w*|http_\w+|\w*secret\w*|"
    r"checkpoint\w*|wal_\w+|storage_compatibility_version|external_threads|"
    r"enable_progress_bar\w*|progress_bar\w*)\b",
    re.IGNORECASE,
)
_SECRET = re.compile(
    r"^\s*CREATE\s+(OR\s+REPLACE\s+)?((PERSISTENT|TEMPORARY|TEMP)\s+)?SECRET\b", re.IGNORECASE
)
_TZ = re.compile(r"(TIMESTAMP|TIME) WITH TIME ZONE")

duckdb_type = TypeMap.standard()


@dataclasses.dataclass(frozen=True)
class _Database:
    con: duckdb.DuckDBPyConnection
    settings: dict[str, Any]  # global settings right after setup (restored after executions)
    locked: bool = False  # set up and configuration-locked: may be emptied for another fixture


class DuckDBEngine(EngineBase[_Database]):
    name: ClassVar[str] = "duckdb"
    dialect: ClassVar[str] = "duckdb"
    capabilities: ClassVar[Capabilities] = Capabilities(
        booleans=True,
        transactional_ddl=True,
        udfs=True,  # CREATE MACRO / CREATE FUNCTION (macros)
        procedures=False,
        decimals=True,
        timestamps_us=True,
    )

    # each fixture is a database instance with its own threads and memory: a curation run that
    # kept its thousands of generated fixtures failed with "can't start new thread" and
    # "Out of Memory Error: Allocation failure" on every later load
    keep: ClassVar[int | None] = 64

    @staticmethod
    def available() -> str | None:
        """Asked without importing duckdb."""
        return None if importlib.util.find_spec("duckdb") else "duckdb is not installed"

    def version(self) -> str:
        return str(_duckdb().__version__)

    # --- fixtures -----------------------------------------------------------------------------

    def __init__(self) -> None:
        super().__init__()
        self._defaults: dict[str, Any] | None = None  # every database's settings once ready
        self._spare: list[duckdb.DuckDBPyConnection] = []  # evicted databases, to be emptied

    def _create(self, fixture: Fixture) -> _Database:
        while self._spare:  # a connect costs more than a small fixture's whole load
            con = self._spare.pop()
            if _emptied(con):
                return _Database(con, {}, locked=True)
            con.close()
        # a small fixture is filled on one thread: waking the database's thread pool for a
        # few rows cost more CPU than the insert (_ready gives executions the default back)
        small = fixture.row_count <= ONE_THREAD_ROWS
        con = _duckdb().connect(":memory:", config={"threads": 1} if small else {})
        try:
            con.execute("SET GLOBAL TimeZone = 'UTC'")  # executions run on cursors: global
            con.execute("SET enable_external_access = false")
        except BaseException:
            con.close()
            raise
        return _Database(con, {})

    def _fill(self, db: _Database, fixture: Fixture) -> None:
        for table in fixture.tables:
            self._create_table(db.con, table)

    def _ready(self, db: _Database, fixture: Fixture) -> _Database:
        if not db.locked:
            db.con.execute("RESET GLOBAL threads")  # executions get DuckDB's default
            db.con.execute("SET lock_configuration = true")  # no SET can change a setting now
        if self._defaults is None:  # the same for every database: created the same way
            self._defaults = self._settings(db.con)
        return _Database(db.con, self._defaults, locked=True)

    def _discard(self, db: _Database) -> None:
        """Keep a set-up database evicted from the cache for the next fixture (emptied then);
        close any other (half-built, broken, or the spares are full)."""
        if db.locked and len(self._spare) < SPARE_DATABASES:
            self._spare.append(db.con)
        else:
            db.con.close()

    def _drop(self, fixture: Fixture, db: _Database) -> None:
        """Close a database an execution broke or could not restore: never a spare."""
        self._stored.pop(fixture.content_hash, None)
        with contextlib.suppress(_duckdb().Error):
            db.con.close()

    def close(self) -> None:
        super().close()
        while self._spare:
            with contextlib.suppress(_duckdb().Error):
                self._spare.pop().close()

    @staticmethod
    def _create_table(con: duckdb.DuckDBPyConnection, table: Table) -> None:
        """Create ``table`` and bulk-insert its rows through an Arrow table of the exact types."""
        import pyarrow as pa

        con.execute(create_table_sql(quote_ident(table.name), table, quote_ident, duckdb_type))
        arrays = arrow_arrays(table)
        con.register(
            _LOAD_VIEW, pa.Table.from_arrays(arrays, names=[f"c{i}" for i in range(len(arrays))])
        )
        try:
            con.execute(f"INSERT INTO {quote_ident(table.name)} SELECT * FROM {_LOAD_VIEW}")
        finally:
            con.unregister(_LOAD_VIEW)

    @staticmethod
    def _read_back(db: _Database, fixture: Fixture) -> dict[str, list[tuple[Any, ...]]]:
        return st.read_tables(
            fixture,
            lambda t: db.con.execute(select_all(t, quote_ident)).fetchall(),
            _duckdb().Error,
        )

    @staticmethod
    def _settings(con: duckdb.DuckDBPyConnection) -> dict[str, Any]:
        """Global settings, as a new cursor sees them (the master's own session values can
        differ from what SET GLOBAL left behind)."""
        with con.cursor() as cur:
            return dict(cur.execute("SELECT name, value FROM duckdb_settings()").fetchall())

    # --- execution ----------------------------------------------------------------------------

    def _execute(self, request: Request) -> Execution:
        fixture, sql, max_rows = request.fixture, request.sql, request.max_rows
        db = self.stored(fixture)
        if "IMPORT" in sql.upper() and any(  # split only a text that can hold one
            st.leading_words(text, 1, st.DUCKDB) == ("IMPORT",)
            for text in st.splitter("duckdb").split(sql)
        ):
            return Execution(ExecStatus.UNSUPPORTED, error="IMPORT DATABASE is not allowed")
        duckdb = _duckdb()
        try:  # the connection's parser: IMPORT/COPY expansion cannot read files through it
            statements = db.con.extract_statements(sql)
        except duckdb.PermissionException as exc:
            return Execution(ExecStatus.UNSUPPORTED, error=st.trim_message(exc))
        except duckdb.Error as exc:
            return Execution(_errors()(exc, False), error=st.trim_message(exc))
        if not statements:
            return Execution(ExecStatus.SYNTAX_ERROR, error=st.NO_STATEMENT)
        refusal = _refusal(statements)
        if refusal:
            return Execution(ExecStatus.UNSUPPORTED, error=refusal)

        deadline = st.Deadline(request.timeout)
        cur = db.con.cursor()
        execution = Execution(ExecStatus.ENGINE_ERROR, error="execution did not finish")
        try:
            try:
                cur.execute("BEGIN TRANSACTION")
            except duckdb.Error as exc:
                return Execution(ExecStatus.ENGINE_ERROR, error=st.trim_message(exc))
            execution = st.run_in_order(
                statements,
                deadline,
                max_rows,
                lambda stmt, _remaining: _run_statement(cur, stmt, max_rows),
                cur.interrupt,
                _errors(),
                str,
            )
            return execution
        finally:
            with contextlib.suppress(duckdb.Error):
                cur.execute("ROLLBACK")
            cur.close()
            if execution.status is ExecStatus.ENGINE_ERROR:  # e.g. a FatalException
                self._drop(fixture, db)  # invalidates the database: reload on next use
            elif any(stmt.type not in _kinds().inert for stmt in statements):
                self._restore_settings(fixture, db)  # a SET, PRAGMA, CALL, EXECUTE, ...

    def _restore_settings(self, fixture: Fixture, db: _Database) -> None:
        """Put back global settings a translation changed; drop the database if that fails."""
        duckdb = _duckdb()
        try:
            current = self._settings(db.con)
            if current == db.settings:
                return
            for name, value in db.settings.items():
                if current.get(name) == value:
                    continue
                if value is None:
                    db.con.execute(f"RESET GLOBAL {quote_ident(name)}")
                else:
                    db.con.execute(
                        f"SET GLOBAL {quote_ident(name)} = "
                        + "'"
                        + str(value).replace("'", "''")
                        + "'"
                    )
            if self._settings(db.con) != db.settings:
                raise RuntimeError("settings differ after restore")
        except (duckdb.Error, RuntimeError):
            self._drop(fixture, db)


def _emptied(con: duckdb.DuckDBPyConnection) -> bool:
    """Drop a spare database's tables; False when that fails or anything else is left."""
    try:
        tables = con.execute("SELECT schema_name, table_name FROM duckdb_tables()").fetchall()
        for schema, table in tables:
            con.execute(f"DROP TABLE {quote_ident(schema)}.{quote_ident(table)}")
        left = con.execute(_LEFT_OVER).fetchone()
    except _duckdb().Error:
        return False
    return left is not None and left[0] == 0


def _statement_text(stmt: Any) -> str:
    try:
        return str(stmt.query)
    except Exception:  # DuckDB cannot always slice the text of expanded statements (PIVOT)
        return ""


def _refusal(statements: Sequence[Any]) -> str | None:
    kinds = _kinds()
    ST = kinds.st
    for stmt in statements:
        if stmt.type in kinds.refused:
            return f"{kinds.refused[stmt.type]} is not allowed"
        text = _statement_text(stmt)
        if stmt.type == ST.CREATE and _SECRET.match(text):
            return "CREATE SECRET is not allowed"
        if stmt.type in (ST.SET, ST.PRAGMA, ST.CALL) and (m := _PROTECTED_SETTINGS.search(text)):
            return (
                f"{stmt.type.name} touching {m.group(0)!r} is not allowed (files, "
                "extensions, logging, checkpoints and configuration locks are off limits)"
            )
    return None


def _run_statement(
    cur: duckdb.DuckDBPyConnection, stmt: Any, max_rows: int
) -> tuple[values.ResultSet, bool] | None:
    """Run one statement; its (capped) result and whether it overflowed, or None if rowless."""
    kinds = _kinds()
    if stmt.type == kinds.st.SELECT:
        rel = cur.sql(stmt)
        if rel is None:
            return None
        types = [str(t) for t in rel.types]
        if any(_TZ.search(t) for t in types):
            rel = rel.project(
                ", ".join(
                    _utc_projection(i, t, name)
                    for i, (t, name) in enumerate(zip(types, rel.columns, strict=True))
                )
            )
        rows = rel.fetchmany(max_rows + 1)
        return _result_set(rel.columns, types, rows, max_rows), len(rows) > max_rows
    cur.execute(stmt)
    desc = cur.description
    if desc is None or (
        stmt.type in kinds.rowless and len(desc) == 1 and desc[0][0] in ("Count", "Success")
    ):
        return None
    names = [d[0] for d in desc]
    types = [str(d[1]) for d in desc]
    if any(_TZ.search(t) for t in types):
        rows = _fetch_arrow(cur, max_rows + 1)
    else:
        rows = cur.fetchmany(max_rows + 1)
    return _result_set(names, types, rows, max_rows), len(rows) > max_rows


def _utc_projection(index: int, type_name: str, name: str) -> str:
    ref = f"#{index + 1}"
    if type_name == "TIMESTAMP WITH TIME ZONE":
        expr = f"timezone('UTC', {ref})"
    elif _TZ.search(type_name):
        expr = f"CAST({ref} AS {_TZ.sub(lambda m: m.group(1), type_name)})"
    else:
        expr = ref
    return f"{expr} AS {quote_ident(name)}"


def _fetch_arrow(cur: duckdb.DuckDBPyConnection, limit: int) -> list[tuple[Any, ...]]:
    """Rows of a result with time-zone types (Python conversion of those needs pytz)."""
    rows: list[tuple[Any, ...]] = []
    for batch in cur.to_arrow_reader(min(limit, 10_000)):
        columns = [col.to_pylist() for col in batch.columns]
        rows.extend(zip(*columns, strict=True))
        if len(rows) >= limit:
            break
    return rows[:limit]


def _result_set(
    names: Sequence[str], types: Sequence[str], rows: list[tuple[Any, ...]], max_rows: int
) -> values.ResultSet:
    canon = tuple(tuple(values.canonical(v) for v in row) for row in rows[:max_rows])
    return values.ResultSet(tuple(names), canon, tuple(types))


@cache
def _driver_errors() -> tuple[type[BaseException], ...]:
    return (_duckdb().Error, ValueError, OverflowError, TypeError)


def _error_code(exc: BaseException) -> str | None:
    """A failure's class name, or "interrupt" when it says it was interrupted."""
    if not isinstance(exc, _driver_errors()):
        return None
    duckdb = _duckdb()
    if (
        not isinstance(exc, duckdb.InterruptException | duckdb.ParserException)
        and "interrupt" in str(exc).lower()
    ):
        return "interrupt"
    return type(exc).__name__


@cache
def _errors() -> st.ErrorTable:
    return st.ErrorTable(
        _error_code,
        timeout=frozenset({"InterruptException"}),
        cancelled=frozenset({"interrupt"}),
        syntax=frozenset({"ParserException"}),
        lost=frozenset({"FatalException", "InternalException"}),
        uncoded_cancel=False,
        driver_errors=_driver_errors(),
    )


__all__ = ["DuckDBEngine", "duckdb_type"]
