"""Snowflake adapter without an account: URL → connector parameters, types, literals, names,
the guard (read-only vs clone, unqualified write targets), error numbers, values, the statement
timeout and what one execution does."""

from __future__ import annotations

import datetime as dt
import math
from decimal import Decimal
from typing import Any

import pytest
from engine_fixtures import SHOP
from url_helpers import FakeError, assert_guard, bare_maker, driver, needs, url_parser

from parrot.engines import ExecStatus
from parrot.engines import snowflake as sf
from parrot.engines import statements as st
from parrot.fixtures import Column
from parrot.values import Nested, Temporal, canonical

URL = (
    "snowflake://bob:pw%2Fx@myorg-acct.snowflakecomputing.com/PARROT?warehouse=WH&role=R"
    "&authenticator=snowflake_jwt&private_key_file=/k.p8&private_key_password=kp"
)
connector = driver("snowflake.connector")


url = url_parser(sf.SnowflakeEngine, URL)
bare = bare_maker(sf.SnowflakeEngine, url, home="PARROT", _runner_session=None)


# --- URL ------------------------------------------------------------------------------------------


def test_url_to_connector_parameters() -> None:
    params = sf.SnowflakeEngine.connect_params(url())
    assert params == {
        "account": "myorg-acct",
        "user": "bob",
        "password": "pw/x",
        "database": "PARROT",
        "warehouse": "WH",
        "role": "R",
        "authenticator": "snowflake_jwt",
        "private_key_file": "/k.p8",
        "private_key_password": "kp",
        "login_timeout": 30,
        "timezone": "UTC",
        "query_tag": "parrot",
        "autocommit": True,
        "client_session_keep_alive": False,
        "enable_server_session_keep_alive_auto_detection": False,
    }
    assert "pw/x" not in url().redacted() and "kp" not in url().redacted()
    with pytest.raises(ValueError, match="name the database"):
        sf.SnowflakeEngine.connect_params(url("snowflake://bob:pw@acct/"))


@needs("snowflake.connector")
def test_construction_does_not_connect_or_print_secrets() -> None:
    engine = sf.SnowflakeEngine(URL)
    assert engine._admin is None and engine.database == "PARROT"
    assert "pw/x" not in repr(engine) and "pw%2Fx" not in repr(engine)


# --- types, literals, names -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "ptype", "expected"),
    [
        (None, "text", "NULL"),
        ("it's a \\ back\nslash", "text", "'it''s a \\\\ back\nslash'"),
        (math.nan, "double", "'NaN'::FLOAT"),
        (-math.inf, "double", "'-inf'::FLOAT"),
        (0.1, "double", "'0.1'::FLOAT"),
        (Decimal("-12345.0123456789"), "decimal(38,10)", "'-12345.0123456789'::NUMBER(38,10)"),
        (
            dt.datetime(1900, 1, 1, 0, 0, 0, 1),
            "timestamp",
            "'1900-01-01 00:00:00.000001'::TIMESTAMP_NTZ(6)",
        ),
        (dt.date(2000, 2, 29), "date", "'2000-02-29'::DATE"),
        (False, "boolean", "FALSE"),
        (-9223372036854775807, "bigint", "-9223372036854775807"),
    ],
)
def test_literals(value: Any, ptype: str, expected: str) -> None:
    assert sf.literal(value, Column("c", ptype)) == expected


def test_names_are_upper_case_and_quoted() -> None:
    engine = bare()
    assert engine.container(SHOP) == f"PARROT_FX_{SHOP.content_hash.upper()}"
    assert engine.qualified("PARROT_FX_01", "orders") == '"PARROT"."PARROT_FX_01"."ORDERS"'
    assert engine.table_ddl("S", SHOP.table("items")) == (
        'CREATE TABLE "PARROT"."S"."ITEMS" ("ORDER_ID" NUMBER(10,0) NOT NULL, "SKU" VARCHAR, '
        '"QTY" NUMBER(19,0), "GIFT" BOOLEAN, "SHIPPED" DATE)'
    )
    assert engine.scratch_name() == "PARROT_SX_ABCD1234_1"


# --- guard ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("sql", "writes"),
    [
        ("SELECT * FROM customers", False),
        ("WITH a AS (SELECT 1) SELECT * FROM a", False),
        ("SHOW TABLES", False),
        ("SET x = 5", False),
        ("SELECT SYSTEM$WAIT(1)", False),
        ("SELECT $$a;b$$, 'it\\'s' // comment ; DROP TABLE x\n", False),
        ("SELECT * FROM other_db.public.t", False),
        ("CREATE TEMPORARY TABLE t AS SELECT * FROM other_db.public.t", True),
        ("CREATE OR REPLACE VIEW v AS SELECT * FROM customers", True),
        ("CREATE FUNCTION f(x NUMBER) RETURNS NUMBER AS 'x + 1'", True),
        ("INSERT INTO customers SELECT * FROM other_db.public.t", True),
        ("INSERT ALL INTO a VALUES (1) INTO b VALUES (2) SELECT 1", True),
        ("UPDATE customers SET name = 'x' FROM other.s.t WHERE 1 = 1", True),
        ("DELETE FROM orders USING other.s.t WHERE 1 = 1", True),
        ("MERGE INTO customers c USING other.s.t s ON c.id = s.id WHEN MATCHED THEN DELETE", True),
        ("TRUNCATE TABLE IF EXISTS orders", True),
        ("ALTER TABLE orders RENAME TO orders2", True),
        ("ALTER SESSION SET WEEK_START = 1", True),
        ("DROP VIEW IF EXISTS v", True),
    ],
)
def test_guard_allows(sql: str, writes: bool) -> None:
    assert_guard(sf.GUARD.plan(st.split_statements(sql, st.SNOWFLAKE)), sql, writes=writes)


@pytest.mark.parametrize(
    ("sql", "why"),
    [
        ("USE SCHEMA other", "USE"),
        ("BEGIN", "BEGIN"),
        ("COMMIT", "COMMIT"),
        ("CALL p()", "CALL"),
        ("EXECUTE IMMEDIATE 'DROP TABLE t'", "EXECUTE"),
        ("DECLARE x INT; BEGIN RETURN 1; END", "DECLARE"),
        ("COPY INTO t FROM @stage", "COPY"),
        ("PUT file:///etc/passwd @~", "PUT"),
        ("GET @~/x file:///tmp", "GET"),
        ("LIST @~", "LIST"),
        ("GRANT ROLE r TO USER u", "GRANT"),
        ("UNDROP TABLE t", "UNDROP"),
        ("CREATE DATABASE d", "CREATE DATABASE"),
        ("CREATE OR REPLACE SCHEMA s", "CREATE SCHEMA"),
        ("DROP SCHEMA s", "DROP SCHEMA"),
        ("CREATE WAREHOUSE w", "CREATE WAREHOUSE"),
        ("CREATE OR REPLACE STAGE st", "CREATE STAGE"),
        ("CREATE PROCEDURE p() RETURNS INT LANGUAGE SQL AS $$ SELECT 1 $$", "CREATE PROCEDURE"),
        ("ALTER USER u SET PASSWORD = 'x'", "ALTER USER"),
        (
            "CREATE FUNCTION f() RETURNS INT LANGUAGE PYTHON RUNTIME_VERSION = '3.11' "
            "HANDLER = 'h' EXTERNAL_ACCESS_INTEGRATIONS = (i) AS $$ $$",
            "EXTERNAL_ACCESS",
        ),
        ("SELECT SYSTEM$CANCEL_ALL_QUERIES(1)", "SYSTEM$"),
        ("SELECT \"a\\\" , SYSTEM$CANCEL_ALL_QUERIES(1), 'x' FROM t", "SYSTEM$"),  # "a\" ends
        ("ALTER SESSION SET STATEMENT_TIMEOUT_IN_SECONDS = 0", "reserved"),
        ("ALTER SESSION SET TIMEZONE = 'Europe/Paris'", "reserved"),
        ("ALTER SESSION UNSET QUERY_TAG", "reserved"),
        ("INSERT INTO other_db.public.t VALUES (1)", "unqualified"),
        ("INSERT ALL INTO a VALUES (1) INTO s.b VALUES (2) SELECT 1", "unqualified"),
        ("UPDATE public.customers SET name = 'x'", "unqualified"),
        ("DELETE FROM s.orders", "unqualified"),
        ("MERGE INTO db.s.t USING x ON 1 = 1 WHEN MATCHED THEN DELETE", "unqualified"),
        ("TRUNCATE TABLE IF EXISTS s.orders", "unqualified"),
        ("CREATE OR REPLACE TABLE db.s.t (x INT)", "unqualified"),
        ("DROP TABLE IF EXISTS s.t", "unqualified"),
        ("ALTER TABLE s.t ADD COLUMN y INT", "unqualified"),
        ("ALTER TABLE t RENAME TO other.s.t", "unqualified"),
        ("ALTER TABLE t SWAP WITH other.s.t", "SWAP WITH"),
        ("SELECT * FROM PARROT_FX_0123.ORDERS", "reserved"),
    ],
)
def test_guard_refuses(sql: str, why: str) -> None:
    assert_guard(sf.GUARD.plan(st.split_statements(sql, st.SNOWFLAKE)), sql, refused=why)


# --- errors ---------------------------------------------------------------------------------------


def sf_error(kind: str, errno: int, message: str, sqlstate: str | None = None) -> BaseException:
    if connector is not None:
        return getattr(connector.errors, kind)(
            msg=message, errno=errno, sqlstate=sqlstate, sfqid="01b2-random"
        )
    return FakeError(f"{errno:06d}: {message}", errno=errno, raw_msg=message, sqlstate=sqlstate)


@pytest.mark.parametrize(
    ("kind", "errno", "cancelled", "status"),
    [
        ("ProgrammingError", 1003, False, ExecStatus.SYNTAX_ERROR),
        ("ProgrammingError", 2003, False, ExecStatus.RUNTIME_ERROR),  # object does not exist
        ("ProgrammingError", 904, False, ExecStatus.RUNTIME_ERROR),  # invalid identifier
        ("ProgrammingError", 100051, False, ExecStatus.RUNTIME_ERROR),  # division by zero
        ("OperationalError", 630, False, ExecStatus.TIMEOUT),
        ("ProgrammingError", 604, True, ExecStatus.TIMEOUT),
        ("ProgrammingError", 604, False, ExecStatus.RUNTIME_ERROR),
        ("ProgrammingError", 3001, False, ExecStatus.UNSUPPORTED),
        ("ProgrammingError", 606, False, ExecStatus.ENGINE_ERROR),  # no active warehouse
        ("OperationalError", 250001, False, ExecStatus.ENGINE_ERROR),
        ("DatabaseError", 390114, False, ExecStatus.ENGINE_ERROR),  # session token expired
    ],
)
def test_error_classification(kind: str, errno: int, cancelled: bool, status: ExecStatus) -> None:
    exc = sf_error(kind, errno, "something")
    errors = (connector.Error,) if connector is not None else (FakeError,)
    assert sf.ERRORS.classify(exc, cancelled=cancelled, driver_errors=errors) is status


def test_messages_keep_the_number_and_drop_query_ids() -> None:
    exc = sf_error(
        "ProgrammingError",
        1003,
        "SQL compilation error:\nsyntax error line 1 at position 0 unexpected 'SELEC'.",
        "42000",
    )
    assert bare().message(exc) == (
        "001003: SQL compilation error:\nsyntax error line 1 at position 0 unexpected 'SELEC'."
    )


# --- values ---------------------------------------------------------------------------------------


def test_value_conversion() -> None:
    assert sf.converter("VARIANT")('{\n  "b": 1,\n  "a": [true, null]\n}') == Nested(
        '{"a":[true,null],"b":1}'
    )
    assert sf.converter("ARRAY")("[1, 2]") == Nested("[1,2]")
    assert sf.converter("VARIANT")('"text"') == Nested('"text"')
    tz = dt.timezone(dt.timedelta(hours=-8))
    assert canonical(
        sf.converter("TIMESTAMP_TZ")(dt.datetime(2024, 1, 5, 20, tzinfo=tz))
    ) == Temporal("timestamp", "2024-01-06 04:00:00")
    assert sf.converter("BINARY")(bytearray(b"\x00\x01")) == b"\x00\x01"
    assert canonical(sf.converter("VECTOR")((1.0, 2.5))) == Nested("[1.0,2.5]")
    assert sf.converter("GEOGRAPHY")('{"type": "Point"}') == '{"type": "Point"}'
    description = [
        ("N", 0, None, None, 10, 0, True),
        ("D", 0, None, None, 10, 2, True),
        ("T", 8, None, None, 0, 6, True),
        ("V", 5, None, None, 0, 0, True),
    ]
    result = bare()._result(
        description, [(7, Decimal("1.50"), dt.datetime(2024, 1, 5), '{"k": 1}')]
    )
    assert result.rows == (
        (7, Decimal("1.50"), Temporal("timestamp", "2024-01-05 00:00:00"), Nested('{"k":1}')),
    )
    assert result.types == ("FIXED", "FIXED", "TIMESTAMP_NTZ", "VARIANT")


# --- timeouts and what one execution does ---------------------------------------------------------


class Recorder:
    def __init__(self, log: list[str]) -> None:
        self.log = log

    def cursor(self) -> Recorder:
        return self

    def execute(self, sql: str, *args: Any) -> None:
        self.log.append(f"runner: {sql}")

    def close(self) -> None:
        self.log.append("runner: <close>")


def _engine_with_log() -> tuple[sf.SnowflakeEngine, list[str]]:
    engine, log = bare(), []
    engine._admin_rows = lambda sql: log.append(f"admin: {sql}") or []  # type: ignore
    engine._runner = Recorder(log)
    engine._runner_session = "4242"
    return engine, log


def test_statement_timeout_and_cancel() -> None:
    engine, log = _engine_with_log()
    assert engine.timeout_sql(2.2) == "ALTER SESSION SET STATEMENT_TIMEOUT_IN_SECONDS = 3"
    assert engine.timeout_sql(0.001) == "ALTER SESSION SET STATEMENT_TIMEOUT_IN_SECONDS = 1"
    engine._arm_timeout(Recorder(log), 5)
    engine._cancel(None)
    assert log == [
        "runner: ALTER SESSION SET STATEMENT_TIMEOUT_IN_SECONDS = 5",
        "admin: SELECT SYSTEM$CANCEL_ALL_QUERIES(4242)",
    ]


def test_fixture_rows_load_as_literal_inserts() -> None:
    engine, log = _engine_with_log()
    engine._insert("PARROT_FX_01", SHOP.table("items"))
    assert log == [
        'admin: INSERT INTO "PARROT"."PARROT_FX_01"."ITEMS" ("ORDER_ID", "SKU", "QTY", '
        "\"GIFT\", \"SHIPPED\") VALUES (10, 'A-1', 2, FALSE, '2024-01-07'::DATE), "
        "(10, 'B-2', 1, TRUE, NULL), (12, 'A-1', 5, FALSE, '2024-02-03'::DATE)"
    ]


def test_read_only_scripts_run_on_the_fixture_schema() -> None:
    engine, log = _engine_with_log()
    engine._run = lambda cur, script: log.append("<run>")  # type: ignore
    plans = sf.GUARD.plan(["SELECT 1"])
    assert isinstance(plans, list)
    engine._execute_plans(st.Script(plans, SHOP, st.Deadline(5), 10), "PARROT_FX_01")
    assert log == ['runner: USE SCHEMA "PARROT"."PARROT_FX_01"', "<run>", "runner: <close>"]
    assert engine._runner is not None  # kept for the next execution


def test_writing_scripts_run_on_a_clone_that_is_dropped() -> None:
    engine, log = _engine_with_log()
    engine._run = lambda cur, script: log.append("<run>")  # type: ignore
    plans = sf.GUARD.plan(["CREATE TEMP TABLE t AS SELECT 1 x", "SELECT * FROM t"])
    assert isinstance(plans, list)
    engine._execute_plans(st.Script(plans, SHOP, st.Deadline(5), 10), "PARROT_FX_01")
    assert log == [
        'admin: CREATE TRANSIENT SCHEMA "PARROT"."PARROT_SX_ABCD1234_1" CLONE '
        '"PARROT"."PARROT_FX_01"',
        'runner: USE SCHEMA "PARROT"."PARROT_SX_ABCD1234_1"',
        "<run>",
        "runner: <close>",
        "runner: <close>",  # the session ends: its temporary tables go with it
        'admin: DROP SCHEMA IF EXISTS "PARROT"."PARROT_SX_ABCD1234_1" CASCADE',
    ]
    assert engine._runner is None
