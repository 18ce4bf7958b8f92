"""Trino adapter without a server: URL → client parameters (time limits as session
properties), types, literals, names, the read-only guard, error names and values."""

from __future__ import annotations

import datetime as dt
import math
from decimal import Decimal
from types import SimpleNamespace
from typing import Any

import pytest
from engine_fixtures import ALLTYPES, SHOP
from url_helpers import FakeError, assert_guard, bare_maker, driver, needs, url_parser

from parrot.engines import ExecStatus
from parrot.engines import trino as tr
from parrot.fixtures import Column
from parrot.values import Nested, Temporal, canonical

URL = "trino://alice:pw%40x@trino.example:8443/memory?roles=system:admin"
trino = driver("trino")


url = url_parser(tr.TrinoEngine, URL)
bare = bare_maker(tr.TrinoEngine, url, home="memory")


# --- URL ------------------------------------------------------------------------------------------


def test_url_to_client_parameters() -> None:
    params = tr.TrinoEngine.connect_params(url(), schema="parrot_fx_01", timeout=2.5)
    assert (
        params.items()
        >= {
            "host": "trino.example",
            "port": 8443,
            "user": "alice",
            "catalog": "memory",
            "schema": "parrot_fx_01",
            "http_scheme": "https",
            "timezone": "UTC",
            "verify": True,
            "password": "pw@x",
            "roles": "system:admin",
        }.items()
    )
    assert params["session_properties"] == {
        "query_max_execution_time": "2500ms",
        "query_max_run_time": "2500ms",
    }


def test_url_defaults_and_requirements() -> None:
    params = tr.TrinoEngine.connect_params(url("trino://h/hive?verify=no"))
    assert (params["http_scheme"], params["port"], params["user"], params["verify"]) == (
        "http",
        8080,
        "parrot",
        False,
    )
    assert "password" not in params and "session_properties" not in params
    with pytest.raises(ValueError, match="names a writable catalog"):
        tr.TrinoEngine.connect_params(url("trino://alice:secret@h:8080/"))


@needs("trino")
def test_the_password_becomes_basic_auth(monkeypatch: pytest.MonkeyPatch) -> None:
    engine = tr.TrinoEngine(URL)
    assert "pw@x" not in repr(engine) and "pw%40x" not in repr(engine)
    seen: dict[str, Any] = {}
    monkeypatch.setattr(engine.driver.dbapi, "connect", lambda **kw: seen.update(kw))
    engine._connect(schema="s", timeout=1)
    assert "password" not in seen
    assert isinstance(seen["auth"], engine.driver.auth.BasicAuthentication)


# --- types, literals, names -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "ptype", "expected"),
    [
        (None, "integer", "NULL"),
        (-2147483648, "integer", "CAST('-2147483648' AS INTEGER)"),
        (9223372036854775807, "bigint", "CAST('9223372036854775807' AS BIGINT)"),
        (math.nan, "double", "CAST('NaN' AS DOUBLE)"),
        (-math.inf, "double", "CAST('-Infinity' AS DOUBLE)"),
        (-0.0, "double", "CAST('-0.0' AS DOUBLE)"),
        (1e300, "double", "CAST('1e+300' AS DOUBLE)"),
        (Decimal("-0.50"), "decimal(10,2)", "CAST('-0.50' AS DECIMAL(10,2))"),
        ("it's", "text", "'it''s'"),
        (True, "boolean", "TRUE"),
        (dt.date(1900, 1, 1), "date", "DATE '1900-01-01'"),
        (
            dt.datetime(2024, 1, 5, 10, 0, 0, 500000),
            "timestamp",
            "TIMESTAMP '2024-01-05 10:00:00.500000'",
        ),
    ],
)
def test_literals(value: Any, ptype: str, expected: str) -> None:
    assert tr.literal(value, Column("c", ptype)) == expected


def test_names_are_lower_case_and_quoted() -> None:
    engine = bare()
    assert engine.ident("Order") == '"order"' and tr.TrinoEngine.quote('a"b') == '"a""b"'
    assert engine.qualified("parrot_fx_01", "T") == '"memory"."parrot_fx_01"."t"'
    assert engine.table_ddl("parrot_fx_01", ALLTYPES.tables[0]).startswith(
        'CREATE TABLE "memory"."parrot_fx_01"."t" ("id" INTEGER NOT NULL, "i" INTEGER'
    )
    assert "PRIMARY KEY" not in engine.table_ddl("parrot_fx_01", ALLTYPES.tables[0])
    assert "NOT NULL" not in engine.table_ddl("parrot_fx_01", ALLTYPES.tables[0], False)


class StatementLog:
    """A Trino connection's cursor without result columns (as after DDL or INSERT)."""

    description = None

    def __init__(self) -> None:
        self.log: list[str] = []

    def cursor(self) -> StatementLog:
        return self

    def execute(self, sql: str) -> None:
        self.log.append(sql)

    def fetchall(self) -> list[Any]:
        self.log.append("<fetchall>")  # Trino finishes a statement once its results are read
        return []

    def close(self) -> None:
        pass


def test_fixture_rows_load_as_literal_inserts_read_to_the_end() -> None:
    engine = bare()
    engine._admin = conn = StatementLog()
    engine._insert("parrot_fx_01", SHOP.table("items"))
    assert conn.log == [
        'INSERT INTO "memory"."parrot_fx_01"."items" ("order_id", "sku", "qty", "gift", '
        "\"shipped\") VALUES (CAST('10' AS INTEGER), 'A-1', CAST('2' AS BIGINT), FALSE, "
        "DATE '2024-01-07'), (CAST('10' AS INTEGER), 'B-2', CAST('1' AS BIGINT), TRUE, NULL), "
        "(CAST('12' AS INTEGER), 'A-1', CAST('5' AS BIGINT), FALSE, DATE '2024-02-03')",
        "<fetchall>",
    ]


# --- guard ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT * FROM customers",
        "WITH a AS (SELECT 1 x) SELECT x FROM a",
        "VALUES (1, 'a')",
        "TABLE customers",
        "SHOW TABLES",
        "DESCRIBE customers",
        "EXPLAIN SELECT 1",
        "EXPLAIN ANALYZE SELECT count(*) FROM orders",
        "SET SESSION join_distribution_type = 'BROADCAST'",
        "RESET SESSION join_distribution_type",
        "SELECT 'insert into x', \"update\" FROM t",
        "SELECT * FROM other_catalog.s.t",
    ],
)
def test_guard_allows_reads(sql: str) -> None:
    assert_guard(tr.GUARD.plan([sql]), sql, writes=False)


@pytest.mark.parametrize(
    ("sql", "why"),
    [
        ("CREATE TABLE t AS SELECT 1 x", "read-only"),
        ("CREATE VIEW v AS SELECT 1 x", "read-only"),
        ("INSERT INTO customers VALUES (9, 'x', 'y')", "read-only"),
        ("DELETE FROM customers", "read-only"),
        ("DROP TABLE customers", "read-only"),
        ("ALTER TABLE customers ADD COLUMN x int", "read-only"),
        ("CALL system.flush()", "read-only"),
        ("MERGE INTO t USING s ON t.a = s.a WHEN MATCHED THEN DELETE", "read-only"),
        ("USE memory.other", "read-only"),
        ("START TRANSACTION", "read-only"),
        ("COMMIT", "read-only"),
        ("PREPARE p FROM SELECT 1", "read-only"),
        ("EXECUTE IMMEDIATE 'DROP TABLE t'", "read-only"),
        ("GRANT SELECT ON t TO u", "read-only"),
        ("ANALYZE customers", "read-only"),
        ("EXPLAIN ANALYZE INSERT INTO t VALUES (1)", "EXPLAIN ... INSERT"),
        ("SET ROLE admin", "SET ROLE"),
        ("SET TIME ZONE 'Europe/Paris'", "SET TIME ZONE"),
        ("SET SESSION AUTHORIZATION bob", "SET SESSION AUTHORIZATION"),
        ("SET SESSION query_max_execution_time = '1h'", "reserved"),
        ("RESET SESSION query_max_run_time", "reserved"),
        ("SELECT * FROM TABLE(postgres.system.query(query => 'DELETE FROM x'))", "query()"),
        ("SELECT * FROM parrot_fx_0123.customers", "reserved"),
    ],
)
def test_guard_refuses(sql: str, why: str) -> None:
    assert_guard(tr.GUARD.plan([sql]), sql, refused=why)


# --- errors ---------------------------------------------------------------------------------------


def trino_error(name: str | None, kind: str = "USER_ERROR") -> BaseException:
    if name is None:
        return (
            trino.exceptions.TrinoConnectionError("refused")
            if trino is not None
            else OSError("refused")
        )
    payload = {"errorName": name, "errorType": kind, "message": f"{name} happened"}
    if trino is not None:
        cls = {
            "USER_ERROR": trino.exceptions.TrinoUserError,
            "INTERNAL_ERROR": trino.exceptions.TrinoInternalError,
        }.get(kind, trino.exceptions.TrinoExternalError)
        return cls(payload, "query_1")
    return FakeError(error_name=name, error_type=kind, message=payload["message"])


@pytest.mark.parametrize(
    ("name", "kind", "cancelled", "status"),
    [
        ("SYNTAX_ERROR", "USER_ERROR", False, ExecStatus.SYNTAX_ERROR),
        ("COLUMN_NOT_FOUND", "USER_ERROR", False, ExecStatus.RUNTIME_ERROR),
        ("DIVISION_BY_ZERO", "USER_ERROR", False, ExecStatus.RUNTIME_ERROR),
        ("EXCEEDED_TIME_LIMIT", "INSUFFICIENT_RESOURCES", False, ExecStatus.TIMEOUT),
        ("USER_CANCELED", "USER_ERROR", True, ExecStatus.TIMEOUT),
        ("USER_CANCELED", "USER_ERROR", False, ExecStatus.RUNTIME_ERROR),
        ("PERMISSION_DENIED", "USER_ERROR", False, ExecStatus.UNSUPPORTED),
        ("NO_NODES_AVAILABLE", "INTERNAL_ERROR", False, ExecStatus.ENGINE_ERROR),
        ("GENERIC_INTERNAL_ERROR", "INTERNAL_ERROR", False, ExecStatus.RUNTIME_ERROR),
        (None, "", False, ExecStatus.ENGINE_ERROR),
    ],
)
def test_error_classification(
    name: str | None, kind: str, cancelled: bool, status: ExecStatus
) -> None:
    exc = trino_error(name, kind)
    errors = (
        (trino.exceptions.TrinoQueryError, trino.exceptions.TrinoDataError)
        if trino is not None
        else (FakeError,)
    )
    assert tr.ERRORS.classify(exc, cancelled=cancelled, driver_errors=errors) is status


def test_messages_name_the_error() -> None:
    assert bare().message(trino_error("SYNTAX_ERROR")) == "SYNTAX_ERROR: SYNTAX_ERROR happened"


# --- values ---------------------------------------------------------------------------------------


def test_value_conversion() -> None:
    months = SimpleNamespace(years=1, months=-2)
    assert tr.converter("interval year to month")(months) == Nested(
        '{"interval_seconds": 25920000.0}'
    )
    assert canonical(tr.converter("interval day to second")(dt.timedelta(hours=1))) == Nested(
        '{"interval_seconds": 3600.0}'
    )
    tz = dt.timezone(dt.timedelta(hours=2))
    assert canonical(tr.converter("time(3) with time zone")(dt.time(1, 30, tzinfo=tz))) == Temporal(
        "time", "23:30:00"
    )
    aware = dt.datetime(2024, 1, 5, 10, tzinfo=tz)
    assert canonical(tr.converter("timestamp(6) with time zone")(aware)) == Temporal(
        "timestamp", "2024-01-05 08:00:00"
    )
    assert tr.converter("json")('{"a": [1, true]}') == Nested('{"a":[1,true]}')
    import uuid

    assert tr.converter("uuid")(uuid.UUID(int=1)) == "00000000-0000-0000-0000-000000000001"
    assert canonical(tr.converter("array(integer)")([1, None])) == Nested("[1,null]")
    assert canonical(tr.converter("map(varchar, double)")({"k": 1.5})) == Nested('{"k":1.5}')


def test_rows_become_objects_when_every_field_is_named() -> None:
    if trino is not None:
        named = trino.types.NamedRowTuple([1, "x"], ["a", "b"], ["integer", "varchar"])
        anonymous = trino.types.NamedRowTuple([1, "x"], [None, None], ["integer", "varchar"])
    else:

        class Row(tuple):  # type: ignore[type-arg]
            _names: list[str | None]

        named, anonymous = Row((1, "x")), Row((1, "x"))
        named._names, anonymous._names = ["a", "b"], [None, None]
    row = tr.converter("row(a integer, b varchar)")
    assert canonical(row(named)) == Nested('{"a":1,"b":"x"}')
    assert canonical(row(anonymous)) == Nested('[1,"x"]')


# --- timeouts -------------------------------------------------------------------------------------


def test_time_limits_are_session_properties_and_cancel_is_the_clients() -> None:
    limits = tr.TrinoEngine.connect_params(url(), timeout=0.0001)["session_properties"]
    assert limits == {"query_max_execution_time": "1ms", "query_max_run_time": "1ms"}
    cancelled: list[bool] = []
    bare()._arm_timeout(None, 3.0)  # nothing per statement
    bare()._cancel(SimpleNamespace(cancel=lambda: cancelled.append(True)))
    assert cancelled == [True]
