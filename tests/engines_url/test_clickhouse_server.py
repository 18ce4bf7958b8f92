"""ClickHouse server adapter without a server: URL → client parameters, types, names, the
guard (chdb's plus a shared server's), error codes, the streaming cursor (fed with genuine
``CustomSeparatedWithNamesAndTypes`` output that chdb produces), the timeout setting and what
one execution does."""

from __future__ import annotations

import io
from decimal import Decimal
from typing import Any

import chdb
import pytest
from engine_fixtures import SHOP
from url_helpers import FakeError, assert_guard, bare_maker, driver, needs, url_parser

from parrot.engines import ExecStatus
from parrot.engines import clickhouse as ch
from parrot.engines import statements as st
from parrot.engines.clickhouse import server as chs
from parrot.engines.dbapi import (
    fetch_capped,
)
from parrot.fixtures import Column
from parrot.values import Nested, Temporal

URL = "clickhouse://alice:pw%26x@ch.example:8123/"
clickhouse_connect = driver("clickhouse_connect")


url = url_parser(chs.ClickHouseServerEngine, URL)
bare = bare_maker(chs.ClickHouseServerEngine, url, _reader=None)


# --- URL ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            URL,
            {
                "host": "ch.example",
                "port": 8123,
                "username": "alice",
                "password": "pw&x",
                "secure": False,
                "verify": True,
            },
        ),
        (
            "clickhouses://ch.example/",
            {"port": 8443, "secure": True, "username": "default", "password": ""},
        ),
        (
            "clickhouse://u:p@h/?secure=yes&verify=no",
            {"port": 8443, "secure": True, "verify": False},
        ),
    ],
)
def test_url_to_client_parameters(text: str, expected: dict[str, Any]) -> None:
    params = chs.ClickHouseServerEngine.client_params(url(text))
    assert params.items() >= expected.items()
    assert params["autogenerate_session_id"] is False


@needs("clickhouse_connect")
def test_construction_does_not_connect_or_print_secrets() -> None:
    engine = chs.ClickHouseServerEngine(URL)
    assert engine._admin is None and "pw&x" not in repr(engine) and "pw%26x" not in repr(engine)


# --- types and names (chdb's) ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("ptype", "nullable", "expected"),
    [
        ("integer", False, "Int32"),
        ("bigint", True, "Nullable(Int64)"),
        ("double", True, "Nullable(Float64)"),
        ("decimal(38,10)", False, "Decimal(38, 10)"),
        ("text", True, "Nullable(String)"),
        ("boolean", True, "Nullable(Bool)"),
        ("date", True, "Nullable(Date32)"),
        ("timestamp", True, "Nullable(DateTime64(6))"),
    ],
)
def test_every_portable_type(ptype: str, nullable: bool, expected: str) -> None:
    assert ch.clickhouse_type(Column("c", ptype, nullable)) == expected


def test_ddl_quotes_names_with_backticks() -> None:
    assert bare().table_ddl("parrot_fx_01", SHOP.table("items")) == (
        "CREATE TABLE `parrot_fx_01`.`items` (`order_id` Int32, `sku` Nullable(String), "
        "`qty` Nullable(Int64), `gift` Nullable(Bool), `shipped` Nullable(Date32)) "
        "ENGINE = MergeTree ORDER BY tuple()"
    )
    assert bare().container(SHOP) == f"parrot_fx_{SHOP.content_hash}"
    assert bare().scratch_name() == "parrot_sx_abcd1234_1"


# --- guard ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("sql", "writes"),
    [
        ("SELECT * FROM customers", False),
        ("SET max_threads = 1; SELECT 1", False),
        ("SHOW TABLES", False),
        ("EXPLAIN SELECT 1", False),
        ("CREATE VIEW v AS SELECT 1", True),
        ("INSERT INTO orders SELECT * FROM orders", True),
        ("CREATE FUNCTION plus1 AS (x) -> x + 1; SELECT plus1(1); DROP FUNCTION plus1", True),
        ("CREATE TEMPORARY TABLE t (x Int32); INSERT INTO t VALUES (1); SELECT * FROM t", True),
    ],
)
def test_guard_allows(sql: str, writes: bool) -> None:
    assert_guard(chs.plan_script(st.split_statements(sql, st.CLICKHOUSE)), sql, writes=writes)


@pytest.mark.parametrize(
    ("sql", "why"),
    [
        ("CREATE TABLE t ON CLUSTER c (x Int32) ENGINE = Memory", "ON CLUSTER"),
        ("ALTER TABLE orders FREEZE", "FREEZE"),
        ("ALTER TABLE orders FETCH PARTITION tuple() FROM '/zk/x'", "FETCH PARTITION"),
        ("ALTER TABLE orders MOVE PARTITION tuple() TO TABLE default.x", "MOVE PARTITION"),
        ("CREATE OR REPLACE FUNCTION f AS (x) -> x", "CREATE OR REPLACE FUNCTION"),
        ("DROP FUNCTION someone_elses", "only functions the script created"),
        ("SELECT * FROM url('http://h/x', CSV)", "reaches outside"),
        ("SELECT * FROM remote('h', default.t)", "reaches outside"),
        ("INSERT INTO FUNCTION s3('https://b/x') SELECT 1", "reaches outside"),
        ("SET readonly = 0", "reserved"),
        ("SELECT 1 SETTINGS max_execution_time = 0", "reserved"),
        ("SELECT 1 FORMAT JSON", "FORMAT"),
        ("SYSTEM SHUTDOWN", "SYSTEM"),
        ("KILL QUERY ALL", "KILL"),
        ("USE default", "USE"),
        ("CREATE USER u", "CREATE USER"),
        ("GRANT ALL ON *.* TO u", "GRANT"),
        ("SELECT * FROM parrot_fx_0123.orders", "reserved"),
    ],
)
def test_guard_refuses(sql: str, why: str) -> None:
    assert_guard(chs.plan_script(st.split_statements(sql, st.CLICKHOUSE)), sql, refused=why)


# --- errors ---------------------------------------------------------------------------------------


def ch_error(code: int | None, text: str) -> BaseException:
    if clickhouse_connect is not None:
        from clickhouse_connect.driver import exceptions as exc

        if code is None:
            return exc.OperationalError(text)
        return exc.DatabaseError(
            f"HTTPDriver for http://h:8123 received ClickHouse error code {code}\n {text}",
            code=code,
        )
    return FakeError(text, code=code)


@pytest.mark.parametrize(
    ("code", "text", "cancelled", "status"),
    [
        (
            62,
            "Code: 62. DB::Exception: Syntax error: failed at position 1 (SELEC). (SYNTAX_ERROR)",
            False,
            ExecStatus.SYNTAX_ERROR,
        ),
        (
            47,
            "Code: 47. DB::Exception: Missing columns: 'nope'. (UNKNOWN_IDENTIFIER)",
            False,
            ExecStatus.RUNTIME_ERROR,
        ),
        (
            159,
            "Code: 159. DB::Exception: Timeout exceeded: elapsed 1.0 seconds. (TIMEOUT_EXCEEDED)",
            False,
            ExecStatus.TIMEOUT,
        ),
        (
            394,
            "Code: 394. DB::Exception: Query was cancelled. (QUERY_WAS_CANCELLED)",
            True,
            ExecStatus.TIMEOUT,
        ),
        (
            394,
            "Code: 394. DB::Exception: Query was cancelled. (QUERY_WAS_CANCELLED)",
            False,
            ExecStatus.RUNTIME_ERROR,
        ),
        (
            164,
            "Code: 164. DB::Exception: Cannot execute query in readonly mode. (READONLY)",
            False,
            ExecStatus.UNSUPPORTED,
        ),
        (
            497,
            "Code: 497. DB::Exception: parrot_runner: Not enough privileges. (ACCESS_DENIED)",
            False,
            ExecStatus.UNSUPPORTED,
        ),
        (
            516,
            "Code: 516. DB::Exception: default: Authentication failed. (AUTHENTICATION_FAILED)",
            False,
            ExecStatus.ENGINE_ERROR,
        ),
        (
            None,
            "Error HTTPConnectionPool(host='h', port=8123): Max retries exceeded",
            False,
            ExecStatus.ENGINE_ERROR,
        ),
    ],
)
def test_error_classification(
    code: int | None, text: str, cancelled: bool, status: ExecStatus
) -> None:
    exc = chs.server_error(ch_error(code, text))
    assert isinstance(exc, chs.ServerError) is (code is not None)
    assert chs.ERRORS.classify(exc, cancelled=cancelled, driver_errors=(chs.ServerError,)) is status
    if code is not None:
        assert str(exc).startswith(f"Code: {code}.")  # the driver's HTTP preamble is dropped


# --- the streaming cursor, fed with genuine ClickHouse output -------------------------------------


def chdb_output(sql: str) -> bytes:
    conn = chdb.connect(":memory:")
    try:
        conn.query("SET session_timezone = 'UTC', format_custom_escaping_rule = 'Quoted'")
        return bytes(conn.query(sql, ch.OUTPUT_FORMAT).bytes())
    finally:
        conn.close()


class Client:
    """A stand-in for clickhouse-connect's client: records what it is asked, streams bytes."""

    def __init__(self, output: bytes = b"") -> None:
        self.output = output
        self.calls: list[tuple[str, str, dict[str, Any]]] = []
        self.database: str | None = None

    def raw_stream(self, sql: str, settings: dict[str, Any], fmt: str) -> io.BytesIO:
        self.calls.append(("stream", sql, settings))
        assert fmt == ch.OUTPUT_FORMAT
        return io.BytesIO(self.output)

    def command(self, sql: str, settings: dict[str, Any] | None = None) -> None:
        self.calls.append(("command", sql, settings or {}))


def test_the_cursor_streams_typed_rows() -> None:
    data = chdb_output(
        "SELECT number AS n, toDecimal64(number / 4, 2) AS d, "
        "toDateTime64('2024-01-05 10:00:00.5', 6) AS t, [number, NULL] AS a, "
        "'tab\\there' AS s FROM numbers(3)"
    )
    killed: list[str] = []
    cursor = chs.HTTPCursor(Client(data), {"readonly": 2}, "sess-1", killed.append)
    chs.ClickHouseServerEngine._arm_timeout(bare(), cursor, 1.5)
    cursor.run("SELECT ...", query_like=True)
    kind, _, settings = cursor.client.calls[0]
    assert kind == "stream" and settings["readonly"] == 2 and settings["session_id"] == "sess-1"
    assert settings["max_execution_time"] == 1.5 and settings["query_id"] == cursor.query_id
    assert [d[0] for d in cursor.description or []] == ["n", "d", "t", "a", "s"]
    result = bare()._result(cursor.description or [], fetch_capped(cursor, 10))
    assert result.rows[2] == (
        2,
        Decimal("0.50"),
        Temporal("timestamp", "2024-01-05 10:00:00.5"),
        Nested("[2,null]"),
        "tab\there",
    )
    assert result.types[:2] == ("UInt64", "Decimal(18, 2)")


def test_the_cursor_caps_and_cancels() -> None:
    killed: list[str] = []
    cursor = chs.HTTPCursor(
        Client(chdb_output("SELECT number FROM numbers(50)")), {}, "s", killed.append
    )
    cursor.run("SELECT number FROM numbers(50)", query_like=True)
    with pytest.raises(st.Overflow):
        fetch_capped(cursor, 10, chunk=4)
    cursor.cancel()
    assert killed == [cursor.query_id]


def test_an_exception_in_the_middle_of_a_stream_is_the_servers() -> None:
    data = (
        chdb_output("SELECT number FROM numbers(2)")
        + b"Code: 395. DB::Exception: Value passed to 'throwIf' function is non-zero. "
        b"(FUNCTION_THROW_IF_VALUE_IS_NON_ZERO) (version 25.3.1.1)\n"
    )
    cursor = chs.HTTPCursor(Client(data), {}, "s", lambda q: None)
    cursor.run("SELECT ...", query_like=True)
    with pytest.raises(chs.ServerError) as err:
        fetch_capped(cursor, 10)
    assert err.value.code == 395


def test_statements_without_rows_are_commands() -> None:
    cursor = chs.HTTPCursor(Client(), {"x": 1}, "s", lambda q: None)
    cursor.run("CREATE VIEW v AS SELECT 1", query_like=False)
    assert cursor.description is None and cursor.client.calls[0][0] == "command"


# --- what one execution does ----------------------------------------------------------------------


def _engine_with_log() -> tuple[chs.ClickHouseServerEngine, list[str]]:
    engine, log = bare(), []

    def command(sql: str, **settings: Any) -> None:
        log.append(sql)

    engine._command = command  # type: ignore[method-assign]
    engine._rows = lambda sql: ([], [])  # type: ignore[method-assign]
    engine._run = lambda cursor, script: (  # type: ignore[method-assign]
        log.append(
            f"<run as {cursor.client.name} in {cursor.client.database} "
            f"readonly={cursor.settings.get('readonly')}>"
        )
    )
    return engine, log


class Named(Client):
    def __init__(self, name: str) -> None:
        super().__init__()
        self.name = name


def test_read_only_scripts_run_readonly_on_the_fixture() -> None:
    engine, log = _engine_with_log()
    engine._reader = Named("admin")
    plans = chs.plan_script(["SELECT 1"])
    assert isinstance(plans, list)
    engine._execute_plans(st.Script(plans, SHOP, st.Deadline(5), 10), "parrot_fx_01")
    assert log == ["<run as admin in parrot_fx_01 readonly=2>"]


def test_writing_scripts_need_the_restricted_user() -> None:
    engine, log = _engine_with_log()
    engine.sandboxed, engine.sandbox_error = False, "Not enough privileges (ACCESS_DENIED)"
    plans = chs.plan_script(["CREATE VIEW v AS SELECT 1"])
    assert isinstance(plans, list)
    ex = engine._execute_plans(st.Script(plans, SHOP, st.Deadline(5), 10), "parrot_fx_01")
    assert ex.status is ExecStatus.UNSUPPORTED and "ACCESS_DENIED" in (ex.error or "")
    assert log == []


def test_writing_scripts_run_on_a_scratch_clone_as_the_runner() -> None:
    engine, log = _engine_with_log()
    engine._runner = Named("parrot_runner")
    plans = chs.plan_script(["CREATE FUNCTION plus1 AS (x) -> x + 1", "SELECT plus1(1)"])
    assert isinstance(plans, list)
    engine._execute_plans(st.Script(plans, SHOP, st.Deadline(5), 10), "parrot_fx_01")
    scratch = "`parrot_sx_abcd1234_1`"
    assert log == [f"CREATE DATABASE {scratch}"] + [
        f"CREATE TABLE {scratch}.`{t.name}` CLONE AS `parrot_fx_01`.`{t.name}`" for t in SHOP.tables
    ] + [
        f"GRANT ALL ON {scratch}.* TO parrot_runner",
        "<run as parrot_runner in parrot_sx_abcd1234_1 readonly=None>",
        f"DROP DATABASE IF EXISTS {scratch} SYNC",
        f"REVOKE ALL ON {scratch}.* FROM parrot_runner",
        "DROP FUNCTION IF EXISTS `plus1`",
    ]
