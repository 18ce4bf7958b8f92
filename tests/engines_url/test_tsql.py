"""SQL Server adapter without a server: URL → ODBC connection string, driver choice, types,
quoting, batches, the guard, error codes, values, timeouts and the statements of one
execution."""

from __future__ import annotations

import dataclasses
import datetime as dt
import struct
from typing import Any

import pytest
from engine_fixtures import SHOP, SPECIAL_FLOATS, col, make_fixture
from url_helpers import FakeError, assert_guard, bare_maker, driver, url_parser

from parrot.engines import ExecStatus, FixtureLoadError, UnknownEngineError, tsql
from parrot.engines import statements as st
from parrot.values import Temporal, canonical

URL = "mssql://sa:S3cret%3B%7D@sql.example:1433/parrot"
pyodbc = driver("pyodbc")


url = url_parser(tsql.SQLServerEngine, URL)
bare = bare_maker(tsql.SQLServerEngine, url, odbc_driver="ODBC Driver 18 for SQL Server")


# --- URL, ODBC driver -----------------------------------------------------------------------------


def test_connection_string_braces_values() -> None:
    text = tsql.connection_string(url(), "ODBC Driver 18 for SQL Server")
    assert text == (
        "DRIVER={ODBC Driver 18 for SQL Server};SERVER={sql.example,1433};"
        "Encrypt=yes;TrustServerCertificate=yes;DATABASE={parrot};UID={sa};"
        "PWD={S3cret;}}};APP=parrot"
    )


def test_connection_string_options_and_freetds() -> None:
    plain = url("mssql+pyodbc://u:p@h/db?encrypt=no&trust_server_certificate=false")
    assert "Encrypt=no;TrustServerCertificate=no" in tsql.connection_string(plain, "X")
    tds = tsql.connection_string(url("mssql://u:p@h:1533/db"), "FreeTDS")
    assert tds.startswith("DRIVER={FreeTDS};SERVER=h;PORT=1533;TDS_Version=7.4;")


@pytest.mark.parametrize(
    ("installed", "wanted", "chosen"),
    [
        (
            ["FreeTDS", "ODBC Driver 17 for SQL Server", "ODBC Driver 18 for SQL Server"],
            None,
            "ODBC Driver 18 for SQL Server",
        ),
        (["FreeTDS", "SQL Server Native Client 11.0"], None, "SQL Server Native Client 11.0"),
        (["PostgreSQL Unicode", "FreeTDS"], None, "FreeTDS"),
        (["PostgreSQL Unicode"], None, None),
        ([], None, None),
        (["FreeTDS"], "ODBC Driver 18 for SQL Server", None),
        (["FreeTDS"], "FreeTDS", "FreeTDS"),
    ],
)
def test_driver_choice(installed: list[str], wanted: str | None, chosen: str | None) -> None:
    assert tsql.choose_driver(installed, wanted) == chosen


@pytest.mark.skipif(pyodbc is None, reason="pyodbc (or unixODBC) is not installed")
def test_construction_says_which_odbc_driver_is_missing() -> None:
    if not pyodbc.drivers():
        with pytest.raises(UnknownEngineError, match=r"msodbcsql18.*tdsodbc"):
            tsql.SQLServerEngine(URL)
        return
    engine = tsql.SQLServerEngine(URL)
    assert engine.odbc_driver in pyodbc.drivers() and "S3cret" not in repr(engine)
    with pytest.raises(UnknownEngineError, match="wanted 'Nope'"):
        tsql.SQLServerEngine(URL + "?driver=Nope")
    with pytest.raises(ValueError, match="name the database"):
        tsql.SQLServerEngine("mssql://sa:x@h:1433/")


def test_a_missing_pyodbc_names_the_odbc_requirements(monkeypatch: pytest.MonkeyPatch) -> None:
    missing = dataclasses.replace(tsql.SQLServerEngine.driver_spec, module="parrot_no_such_pyodbc")
    monkeypatch.setattr(tsql.SQLServerEngine, "driver_spec", missing)
    with pytest.raises(UnknownEngineError, match=r"parrot-sql\[sqlserver\].*unixODBC.*msodbcsql18"):
        tsql.SQLServerEngine(URL)


# --- types and names ------------------------------------------------------------------------------


def test_ddl_quotes_with_brackets_and_sizes_text_keys() -> None:
    # a literal fixture table, kept as written
    # fmt: off
    fixture = make_fixture("reserved", [{
        "name": "order", "primary_key": ["select", "key_"], "rows": [],
        "columns": [col("select", "text", False), col("key_", "text", False),
                    col("from", "boolean")],
    }])
    # fmt: on
    table = fixture.tables[0]
    assert bare().table_ddl("parrot_fx_0123", table) == (
        "CREATE TABLE [parrot_fx_0123].[order] ([select] NVARCHAR(225) NOT NULL, "
        "[key_] NVARCHAR(225) NOT NULL, [from] BIT, PRIMARY KEY ([select], [key_]))"
    )
    assert tsql.SQLServerEngine.quote("a]b") == "[a]]b]"
    assert bare().container(SHOP) == f"parrot_fx_{SHOP.content_hash}"
    assert tsql.SQLServerEngine.runner("parrot_fx_0123") == "parrot_fx_0123_run"


def test_nan_and_infinity_cannot_be_stored() -> None:
    with pytest.raises(FixtureLoadError, match=r"FLOAT holds no NaN or infinity \(f.x\)"):
        bare().check_fixture(SPECIAL_FLOATS)


# --- batches and guard ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT TOP 3 * FROM customers ORDER BY id",
        "CREATE VIEW v AS SELECT id FROM customers",
        "CREATE OR ALTER PROCEDURE p AS BEGIN SET NOCOUNT ON; SELECT 1 END",
        "CREATE FUNCTION dbo.f(@x int) RETURNS int AS BEGIN RETURN @x + 1 END",
        "DECLARE @t TABLE (x int); INSERT INTO @t VALUES (1); SELECT * FROM @t",
        "SELECT * INTO #tmp FROM customers; UPDATE #tmp SET name = 'x'; SELECT * FROM #tmp",
        "EXEC @rc = my_proc 1, 2",
        "EXECUTE my_proc",
        "WAITFOR DELAY '00:00:01'",
        "SELECT [commit], [backup] FROM t OPTION (USE HINT ('DISABLE_OPTIMIZER_ROWGOAL'))",
        "SELECT 1 AS [a]]; COMMIT]",  # one identifier: a]; COMMIT
        "TRUNCATE TABLE orders; DELETE FROM items; DROP TABLE customers",
        "SET DATEFIRST 1; SET ANSI_NULLS ON; SELECT DATEPART(weekday, GETDATE())",
        "SELECT N'it''s -- not a comment', 'ROLLBACK' AS word",
    ],
)
def test_guard_allows(sql: str) -> None:
    assert_guard(tsql.GUARD.plan(st.splitter("tsql").split(sql)), sql)


@pytest.mark.parametrize(
    ("sql", "why"),
    [
        ("COMMIT", "COMMIT"),
        ("SELECT 1; COMMIT TRANSACTION", "COMMIT"),
        ("SELECT [a]]'] FROM t; COMMIT; SELECT 'x'", "COMMIT"),  # ]] is an escaped bracket
        ("ROLLBACK", "ROLLBACK"),
        ("BEGIN TRAN", "BEGIN TRAN"),
        ("BEGIN TRANSACTION t", "BEGIN"),
        ("BEGIN DISTRIBUTED TRANSACTION", "BEGIN DISTRIBUTED"),
        ("SAVE TRAN s", "SAVE TRAN"),
        ("CREATE TRIGGER t ON orders AFTER INSERT AS ROLLBACK", "ROLLBACK"),
        ("EXECUTE AS USER = 'dbo'", "EXECUTE AS"),
        ("REVERT", "REVERT"),
        ("CREATE PROCEDURE p WITH EXECUTE AS OWNER AS SELECT 1", "EXECUTE AS"),
        ("EXEC('DROP TABLE customers')", "dynamic SQL"),
        ("EXEC @sql", "dynamic SQL"),
        ("EXEC @rc = @proc", "dynamic SQL"),
        ("EXEC sp_executesql N'SELECT 1'", "system procedures"),
        ("EXEC master..xp_cmdshell 'dir'", "system procedures"),
        ("EXEC sys.sp_configure 'x', 1", "system procedures"),
        ("USE master", "USE"),
        ("SELECT 1\nGO 5", "GO n"),
        ("BACKUP DATABASE d TO DISK = 'x'", "BACKUP"),
        ("DBCC CHECKDB", "DBCC"),
        ("KILL 52", "KILL"),
        ("SHUTDOWN", "SHUTDOWN"),
        ("GRANT SELECT ON customers TO public", "GRANT"),
        ("DENY SELECT ON t TO u", "DENY"),
        ("BULK INSERT t FROM 'c:\\x.csv'", "BULK"),
        ("SELECT * FROM OPENROWSET(BULK 'c:\\x', SINGLE_CLOB) AS x", "OPENROWSET"),
        ("SELECT * FROM OPENQUERY(srv, 'select 1')", "OPENQUERY"),
        ("CREATE LOGIN x WITH PASSWORD = 'p'", "CREATE LOGIN"),
        ("CREATE USER u", "CREATE USER"),
        ("ALTER DATABASE d SET SINGLE_USER", "ALTER DATABASE"),
        ("CREATE SCHEMA s", "CREATE SCHEMA"),
        ("DROP SCHEMA parrot", "DROP SCHEMA"),
        ("CREATE TRIGGER t ON DATABASE FOR DROP_TABLE AS SELECT 1", "ON DATABASE"),
        ("SET XACT_ABORT ON", "XACT_ABORT"),
        ("SET IMPLICIT_TRANSACTIONS ON", "IMPLICIT"),
        ("SET LOCK_TIMEOUT -1", "LOCK_TIMEOUT"),
        ("SET NOEXEC ON", "NOEXEC"),
        ("SET FMTONLY ON", "FMTONLY"),
        ("SELECT * FROM parrot_fx_0123.orders", "reserved"),
        ("SELECT * FROM sys.fn_get_audit_file('x', default, default)", "fn_get_audit_file"),
    ],
)
def test_guard_refuses(sql: str, why: str) -> None:
    assert_guard(tsql.GUARD.plan(st.splitter("tsql").split(sql)), sql, refused=why)


# --- errors ---------------------------------------------------------------------------------------


def odbc_error(kind: str, sqlstate: str, text: str) -> BaseException:
    message = f"[{sqlstate}] [Microsoft][ODBC Driver 18 for SQL Server][SQL Server]{text}"
    if pyodbc is not None:
        return getattr(pyodbc, kind)(sqlstate, message)
    return FakeError(sqlstate, message)


@pytest.mark.parametrize(
    ("kind", "sqlstate", "text", "cancelled", "status"),
    [
        (
            "ProgrammingError",
            "42000",
            "Incorrect syntax near 'FORM'. (102) (SQLExecDirectW)",
            False,
            ExecStatus.SYNTAX_ERROR,
        ),
        (
            "ProgrammingError",
            "42000",
            "Incorrect syntax near the keyword 'FROM'. (156) (SQLExecDirectW)",
            False,
            ExecStatus.SYNTAX_ERROR,
        ),
        (
            "ProgrammingError",
            "42000",
            "Unclosed quotation mark after the character string 'x'. (105) (SQLExecDirectW)",
            False,
            ExecStatus.SYNTAX_ERROR,
        ),
        (
            "ProgrammingError",
            "42000",
            "'CREATE VIEW' must be the first statement in a query batch. (111) (SQLExecDirectW)",
            False,
            ExecStatus.SYNTAX_ERROR,
        ),
        (
            "ProgrammingError",
            "42S02",
            "Invalid object name 'nope'. (208) (SQLExecDirectW); [42S02] "
            "[Microsoft][ODBC Driver 18 for SQL Server][SQL Server]Statement(s) could not be "
            "prepared. (8180)",
            False,
            ExecStatus.RUNTIME_ERROR,
        ),
        (
            "DataError",
            "22012",
            "Divide by zero error encountered. (8134) (SQLExecDirectW)",
            False,
            ExecStatus.RUNTIME_ERROR,
        ),
        (
            "OperationalError",
            "HYT00",
            "Query timeout expired (0) (SQLExecDirectW)",
            False,
            ExecStatus.TIMEOUT,
        ),
        (
            "Error",
            "HY000",
            "Lock request time out period exceeded. (1222) (SQLExecDirectW)",
            False,
            ExecStatus.TIMEOUT,
        ),
        (
            "OperationalError",
            "HY008",
            "Operation canceled (0) (SQLExecDirectW)",
            True,
            ExecStatus.TIMEOUT,
        ),
        (
            "OperationalError",
            "HY008",
            "Operation canceled (0) (SQLExecDirectW)",
            False,
            ExecStatus.RUNTIME_ERROR,
        ),
        (
            "ProgrammingError",
            "42000",
            "The SELECT permission was denied on the object 'x'. (229) (SQLExecDirectW)",
            False,
            ExecStatus.UNSUPPORTED,
        ),
        (
            "ProgrammingError",
            "42000",
            "CREATE DATABASE permission denied in database 'master'. (262) (SQLExecDirectW)",
            False,
            ExecStatus.UNSUPPORTED,
        ),
        (
            "OperationalError",
            "08S01",
            "Communication link failure (10054) (SQLExecDirectW)",
            False,
            ExecStatus.ENGINE_ERROR,
        ),
        (
            "InterfaceError",
            "28000",
            "Login failed for user 'sa'. (18456) (SQLDriverConnect)",
            False,
            ExecStatus.ENGINE_ERROR,
        ),
    ],
)
def test_error_classification(
    kind: str, sqlstate: str, text: str, cancelled: bool, status: ExecStatus
) -> None:
    exc = odbc_error(kind, sqlstate, text)
    errors = (pyodbc.Error,) if pyodbc is not None else (FakeError,)
    assert tsql.ERRORS.classify(exc, cancelled=cancelled, driver_errors=errors) is status


def test_messages_lose_the_odbc_decoration() -> None:
    exc = odbc_error(
        "ProgrammingError", "42S02", "Invalid object name 'parrot_fx_01.t'. (208) (SQLExecDirectW)"
    )
    assert bare().message(exc) == "Invalid object name 'parrot_db.t'. (208)"


# --- values ---------------------------------------------------------------------------------------


def test_datetimeoffset_becomes_utc() -> None:
    raw = struct.pack("<6hI2h", 2024, 1, 5, 10, 0, 1, 500_000_000, 5, 30)
    assert tsql.datetimeoffset_value(raw) == dt.datetime(2024, 1, 5, 4, 30, 1, 500_000)
    raw = struct.pack("<6hI2h", 2024, 1, 5, 23, 0, 0, 0, -2, 0)
    assert canonical(tsql.datetimeoffset_value(raw)) == Temporal("timestamp", "2024-01-06 01:00:00")
    assert tsql.datetimeoffset_value(None) is None


def test_pyodbc_values_canonicalise() -> None:
    from decimal import Decimal

    description = [
        ("b", bool, None, 1, 1, 0, True),
        ("m", Decimal, None, 19, 19, 4, True),
        ("u", str, None, 36, 36, 0, True),
        ("t", dt.datetime, None, 27, 27, 7, True),
        ("d", dt.date, None, 10, 10, 0, True),
    ]
    row = (
        True,
        Decimal("12.5000"),
        "6F9619FF-8B86-D011-B42D-00C04FC964FF",
        dt.datetime(2024, 1, 5, 10, 0, 0, 123456),
        dt.date(2024, 1, 5),
    )
    result = bare()._result(description, [row])
    assert result.rows == (
        (
            True,
            Decimal("12.5000"),
            "6F9619FF-8B86-D011-B42D-00C04FC964FF",
            Temporal("timestamp", "2024-01-05 10:00:00.123456"),
            Temporal("date", "2024-01-05"),
        ),
    )
    assert result.types == ("bool", "Decimal", "str", "datetime", "date")


# --- timeouts and the statements of one execution -------------------------------------------------


class Recorder:
    """A stand-in connection/cursor recording what the adapter asks of it."""

    def __init__(self) -> None:
        self.log: list[str] = []
        self.timeout = 0
        self.description = None
        self.trancount = 1

    def cursor(self) -> Recorder:
        return self

    def execute(self, sql: str, *args: Any) -> Recorder:
        self.log.append(sql)
        return self

    def fetchone(self) -> tuple[int]:
        return (self.trancount,)

    def cancel(self) -> None:
        self.log.append("<cancel>")

    def close(self) -> None:
        self.log.append("<close>")


def test_an_execution_is_a_rolled_back_transaction_as_the_fixtures_user() -> None:
    engine, conn = bare(), Recorder()
    engine._connect = lambda: conn  # type: ignore[method-assign]
    seen: dict[str, Any] = {}

    def run(cur: Any, script: Any, between: Any) -> None:
        seen["timeout"] = conn.timeout
        seen["between"] = between()
        conn.trancount = 0
        seen["ended"] = between()

    engine._run = run  # type: ignore[method-assign,assignment]
    plans = tsql.GUARD.plan(["SELECT 1"])
    assert isinstance(plans, list)
    engine._execute_plans(st.Script(plans, SHOP, st.Deadline(7.5), 10), "parrot_fx_0123")
    assert conn.log[:2] == [
        "SET NOCOUNT ON; SET XACT_ABORT OFF; SET IMPLICIT_TRANSACTIONS OFF; SET LOCK_TIMEOUT "
        + conn.log[0].split("SET LOCK_TIMEOUT ")[1].split(";")[0]
        + "; EXECUTE AS USER = N'parrot_fx_0123_run' WITH NO REVERT",
        "BEGIN TRANSACTION",
    ]
    assert 7000 <= int(conn.log[0].split("SET LOCK_TIMEOUT ")[1].split(";")[0]) <= 7500
    assert seen == {
        "timeout": 8,
        "between": None,
        "ended": "a statement ended parrot's transaction",
    }
    assert conn.log[-2:] == ["IF @@TRANCOUNT > 0 ROLLBACK", "<close>"]
    assert conn.timeout == 0


def test_timeout_statements_and_cancel() -> None:
    cur = Recorder()
    bare()._arm_timeout(cur, 1.25)
    bare()._cancel(cur)
    assert cur.log == ["SET LOCK_TIMEOUT 1250", "<cancel>"]
