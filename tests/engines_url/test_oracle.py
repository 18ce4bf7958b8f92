"""Oracle adapter without a server: URL → oracledb parameters, types, quoting, the read-only
guard, error codes, value conversion, timeout mechanism and the statements of one execution."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from types import SimpleNamespace
from typing import Any

import pytest
from engine_fixtures import SHOP, col, make_fixture
from url_helpers import FakeError, assert_guard, bare_maker, driver, needs, url_parser

from parrot.engines import ExecStatus, FixtureLoadError
from parrot.engines import oracle as ora
from parrot.engines import statements as st
from parrot.fixtures import Column, cell_text
from parrot.values import Nested, Temporal, canonical

URL = "oracle://scott:t1ger%23@db.example:1521/?service_name=FREEPDB1"
oracledb = driver("oracledb")


url = url_parser(ora.OracleEngine, URL)
bare = bare_maker(ora.OracleEngine, url, _major=19)


# --- URL ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (URL, {"service_name": "FREEPDB1", "port": 1521}),
        ("oracle://u:p@h/XEPDB1", {"service_name": "XEPDB1", "port": 1521}),
        ("oracle+oracledb://u:p@h:1522/?sid=XE", {"sid": "XE", "port": 1522}),
        (
            "oracle://u:p@h/?service_name=S&protocol=tcps&wallet_location=/w&wallet_password=wp",
            {"protocol": "tcps", "wallet_location": "/w", "wallet_password": "wp"},
        ),
    ],
)
def test_url_to_connect_params(text: str, expected: dict[str, Any]) -> None:
    params = ora.OracleEngine.connect_params(url(text))
    assert params.items() >= expected.items()
    assert params["tcp_connect_timeout"] > 0


def test_url_needs_a_service_and_a_user() -> None:
    with pytest.raises(ValueError, match="service_name"):
        ora.OracleEngine.connect_params(url("oracle://u:p@h:1521/"))
    with pytest.raises(ValueError, match="names a user"):
        ora.OracleEngine.connect_params(url("oracle://h:1521/?service_name=S"))


@needs("oracledb")
def test_the_password_stays_out_of_repr_and_label() -> None:
    engine = ora.OracleEngine(URL)
    assert ora.OracleEngine.connect_params(engine.url)["password"] == "t1ger#"
    assert "t1ger" not in repr(engine) and "t1ger" not in engine.url.redacted()
    assert (
        engine.message(FakeError("ORA-01017: invalid credential t1ger#"))
        == "ORA-01017: invalid credential ***"
    )


# --- types and names ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("ptype", "v19", "v23"),
    [
        ("integer", "NUMBER(10)", "NUMBER(10)"),
        ("bigint", "NUMBER(19)", "NUMBER(19)"),
        ("double", "BINARY_DOUBLE", "BINARY_DOUBLE"),
        ("decimal(10,2)", "NUMBER(10,2)", None),
        ("decimal(38,10)", "NUMBER(38,10)", None),
        ("text", "VARCHAR2(4000 CHAR)", None),
        ("boolean", "NUMBER(1)", "BOOLEAN"),
        ("date", "DATE", None),
        ("timestamp", "TIMESTAMP(6)", None),
    ],
)
def test_every_portable_type(ptype: str, v19: str, v23: str | None) -> None:
    column = Column("c", ptype)
    assert ora.oracle_type(column, major=19) == v19
    assert ora.oracle_type(column, major=23) == (v23 or v19)


def test_long_texts_and_text_keys() -> None:
    assert ora.oracle_type(Column("c", "text"), max_bytes=4001) == "CLOB"
    assert ora.oracle_type(Column("c", "text"), max_bytes=4000) == "VARCHAR2(4000 CHAR)"
    assert ora.oracle_type(Column("c", "text"), key_chars=500) == "VARCHAR2(500 CHAR)"


def test_ddl_folds_and_quotes_names() -> None:
    # a literal fixture table, kept as written
    # fmt: off
    fixture = make_fixture("reserved", [{
        "name": "Order", "primary_key": ["select", "date"],
        "columns": [col("select", "text", False), col("date", "date", False),
                    col("MixedCase", "boolean"), col("long", "text")],
        "rows": [["a", "2024-01-05", True, "x" * 5000]],
    }])
    # fmt: on
    ddl = bare().table_ddl("PARROT_FX_0123", fixture.tables[0])
    assert ddl == (
        'CREATE TABLE "PARROT_FX_0123"."ORDER" ("SELECT" VARCHAR2(1000 CHAR) NOT NULL, '
        '"DATE" DATE NOT NULL, "MIXEDCASE" NUMBER(1), "LONG" CLOB, '
        'PRIMARY KEY ("SELECT", "DATE"))'
    )
    assert ora.OracleEngine.quote('a"b') == '"a""b"'
    assert bare().container(SHOP) == f"PARROT_FX_{SHOP.content_hash.upper()}"


def test_the_empty_string_cannot_be_stored() -> None:
    fixture = make_fixture(
        "empty", [{"name": "t", "columns": [col("s", "text")], "rows": [["a"], [""]]}]
    )
    with pytest.raises(FixtureLoadError, match="empty string, which Oracle stores as NULL"):
        bare().check_fixture(fixture)


# --- guard ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT * FROM customers",
        "(SELECT id FROM customers) UNION ALL (SELECT 2 FROM dual)",
        "WITH a AS (SELECT 1 x FROM dual) SELECT x FROM a",
        "SELECT q'[it's; DROP TABLE x]' AS s, 'a''b' FROM dual",
        'SELECT update_count, "DELETE" FROM t -- DROP TABLE t',
        "SELECT REPLACE(name, 'a', 'b'), COUNT(*) OVER () FROM customers",
        "SELECT * FROM orders AS OF TIMESTAMP SYSTIMESTAMP",
        "SELECT dbms_random.value FROM dual",
    ],
)
def test_guard_allows_reads(sql: str) -> None:
    assert_guard(ora.GUARD.plan(st.splitter("oracle").split(sql)), sql, writes=False)


@pytest.mark.parametrize(
    ("sql", "why"),
    [
        ("CREATE VIEW v AS SELECT 1 x FROM dual", "read-only"),
        ("CREATE GLOBAL TEMPORARY TABLE t (x NUMBER)", "read-only"),
        ("INSERT INTO customers VALUES (9, 'x', 'y')", "read-only"),
        ("UPDATE customers SET name = 'x'", "read-only"),
        (
            "MERGE INTO customers c USING dual ON (1 = 1) WHEN MATCHED THEN UPDATE SET name = 'x'",
            "read-only",
        ),
        ("DELETE FROM customers", "read-only"),
        ("TRUNCATE TABLE customers", "read-only"),
        ("DROP TABLE customers", "read-only"),
        ("LOCK TABLE customers IN EXCLUSIVE MODE", "read-only"),
        ("SELECT * FROM customers FOR UPDATE", "SELECT ... UPDATE"),
        ("COMMIT", "read-only"),
        ("ALTER SESSION SET CURRENT_SCHEMA = SYS", "read-only"),
        ("EXPLAIN PLAN FOR SELECT 1 FROM dual", "read-only"),
        ("BEGIN DELETE FROM customers; END;", "read-only"),
        ("DECLARE x NUMBER; BEGIN NULL; END;", "read-only"),
        ("CALL p()", "read-only"),
        (
            "WITH FUNCTION f RETURN NUMBER IS BEGIN RETURN 1; END; SELECT f FROM dual",
            "WITH FUNCTION",
        ),
        ("SELECT utl_http.request('http://h') FROM dual", "utl_http"),
        ("SELECT sys.utl_file.fopen('d', 'f', 'r') FROM dual", "utl_file"),
        ("SELECT dbms_xmlgen.getxml('select * from all_users') FROM dual", "dbms_xmlgen"),
        ("SELECT bfilename('D', 'f') FROM dual", "bfilename"),
        ("SELECT q'[x']' , utl_http.request('h') FROM dual", "utl_http"),  # q'' ends at ]'
        ("SELECT * FROM parrot_fx_0123.customers", "reserved"),
    ],
)
def test_guard_refuses(sql: str, why: str) -> None:
    assert_guard(ora.GUARD.plan(st.splitter("oracle").split(sql)), sql, refused=why)


# --- errors ---------------------------------------------------------------------------------------


class _ErrorInfo(SimpleNamespace):
    """What oracledb keeps in ``exc.args[0]`` (its ``_Error``): codes and the message."""

    def __str__(self) -> str:
        return str(self.message)


def oracle_error(message: str, code: int = 0) -> BaseException:
    if oracledb is not None:
        return oracledb.DatabaseError(oracledb._Error(message, code=code))
    full = message.split(":", 1)[0]
    return FakeError(_ErrorInfo(full_code=full, code=code, message=message))


@pytest.mark.parametrize(
    ("message", "code", "cancelled", "status"),
    [
        ("ORA-00900: invalid SQL statement", 900, False, ExecStatus.SYNTAX_ERROR),
        ("ORA-00933: SQL command not properly ended", 933, False, ExecStatus.SYNTAX_ERROR),
        ("ORA-00936: missing expression", 936, False, ExecStatus.SYNTAX_ERROR),
        ("ORA-01756: quoted string not properly terminated", 1756, False, ExecStatus.SYNTAX_ERROR),
        ("ORA-00942: table or view does not exist", 942, False, ExecStatus.RUNTIME_ERROR),
        ('ORA-00904: "NOPE": invalid identifier', 904, False, ExecStatus.RUNTIME_ERROR),
        ("ORA-01476: divisor is equal to zero", 1476, False, ExecStatus.RUNTIME_ERROR),
        ("DPY-4024: call timeout of 1000 ms exceeded", 0, False, ExecStatus.TIMEOUT),
        ("ORA-01013: user requested cancel of current operation", 1013, True, ExecStatus.TIMEOUT),
        (
            "ORA-01013: user requested cancel of current operation",
            1013,
            False,
            ExecStatus.RUNTIME_ERROR,
        ),
        ("ORA-01031: insufficient privileges", 1031, False, ExecStatus.UNSUPPORTED),
        (
            "ORA-01456: may not perform insert/delete/update operation inside a READ ONLY "
            "transaction",
            1456,
            False,
            ExecStatus.UNSUPPORTED,
        ),
        ("ORA-03113: end-of-file on communication channel", 3113, False, ExecStatus.ENGINE_ERROR),
        ("ORA-00600: internal error code", 600, False, ExecStatus.ENGINE_ERROR),
        (
            "DPY-4011: the database or network closed the connection",
            0,
            False,
            ExecStatus.ENGINE_ERROR,
        ),
    ],
)
def test_error_classification(message: str, code: int, cancelled: bool, status: ExecStatus) -> None:
    exc = oracle_error(message, code)
    errors = (oracledb.Error,) if oracledb is not None else (FakeError,)
    assert ora.ERRORS.classify(exc, cancelled=cancelled, driver_errors=errors) is status
    assert (
        ora.ERRORS.classify(OSError("reset"), cancelled=False, driver_errors=errors)
        is ExecStatus.ENGINE_ERROR
    )


def test_messages_drop_help_links_and_name_parrot_schemas_stably() -> None:
    exc = oracle_error(
        'ORA-00942: table or view "PARROT_FX_0123ABC"."T" does not exist'
        "\nHelp: https://docs.oracle.com/error-help/db/ora-00942/",
        942,
    )
    assert bare().message(exc) == 'ORA-00942: table or view "parrot_db"."T" does not exist'


# --- values ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "precision", "scale", "expected"),
    [
        (Decimal("42"), 10, 0, 42),
        (Decimal("-9223372036854775807"), 19, 0, -9223372036854775807),
        (Decimal("12.5"), 10, 2, Decimal("12.50")),
        (Decimal("3"), 0, -127, 3),  # COUNT(*)
        (Decimal("3.5"), 0, -127, Decimal("3.5")),
        (Decimal("1E+2"), 0, -127, 100),
        (Decimal("0.1000"), 126, -127, Decimal("0.1")),  # FLOAT(126)
        (2.5, 0, 0, 2.5),  # BINARY_DOUBLE arrives as float
    ],
)
def test_numbers(value: Any, precision: int, scale: int, expected: Any) -> None:
    got = ora.number_value(value, precision, scale)
    assert got == expected and type(got) is type(expected)
    if isinstance(expected, Decimal):
        assert str(got) == str(expected)


def test_dates_have_a_time_part_and_time_zones_become_utc() -> None:
    date_col = ora.converter("DB_TYPE_DATE")
    assert canonical(date_col(dt.datetime(2024, 1, 5))) == Temporal(
        "timestamp", "2024-01-05 00:00:00"
    )  # an Oracle DATE is a timestamp
    tstz = ora.converter("DB_TYPE_TIMESTAMP_TZ")
    assert tstz("2024-01-05 10:00:00.500000 +05:30") == dt.datetime(2024, 1, 5, 4, 30, 0, 500000)
    assert tstz("2024-01-05 01:00:00.000000 -02:00") == dt.datetime(2024, 1, 5, 3, 0)
    ltz = ora.converter("DB_TYPE_TIMESTAMP_LTZ")
    assert ltz(
        dt.datetime(2024, 1, 5, 10, tzinfo=dt.timezone(dt.timedelta(hours=1)))
    ) == dt.datetime(2024, 1, 5, 9)


def test_intervals_raw_and_rowids() -> None:
    ym = oracledb.IntervalYM(1, 2) if oracledb is not None else SimpleNamespace(years=1, months=2)
    assert ora.converter("DB_TYPE_INTERVAL_YM")(ym) == Nested('{"interval_seconds": 36288000.0}')
    assert canonical(
        ora.converter("DB_TYPE_INTERVAL_DS")(dt.timedelta(days=1, seconds=1))
    ) == Nested('{"interval_seconds": 86401.0}')
    assert ora.converter("DB_TYPE_ROWID")("AAAR3sAAEAAAACXAAA") == "AAAR3sAAEAAAACXAAA"
    assert canonical(ora.converter("DB_TYPE_RAW")(b"\x01\x02")) == b"\x01\x02"


def test_result_conversion_by_description() -> None:
    number = (
        oracledb.DB_TYPE_NUMBER if oracledb is not None else SimpleNamespace(name="DB_TYPE_NUMBER")
    )
    date = oracledb.DB_TYPE_DATE if oracledb is not None else SimpleNamespace(name="DB_TYPE_DATE")
    description = [
        ("N", number, 11, 22, 10, 2, True),
        ("C", number, 40, 22, 0, -127, True),
        ("D", date, 23, 7, 0, 0, True),
    ]
    result = bare()._result(
        description, [(Decimal("1.5"), Decimal("4"), dt.datetime(2024, 1, 5)), (None, None, None)]
    )
    assert result.columns == ("N", "C", "D")
    assert result.rows == (
        (Decimal("1.50"), 4, Temporal("timestamp", "2024-01-05 00:00:00")),
        (None, None, None),
    )
    assert result.types == ("DB_TYPE_NUMBER", "DB_TYPE_NUMBER", "DB_TYPE_DATE")


def test_rows_read_back_as_the_portable_types() -> None:
    columns = (
        Column("d", "date"),
        Column("b", "boolean"),
        Column("i", "bigint"),
        Column("m", "decimal(10,2)"),
    )
    row = ora.stored_row(
        (dt.datetime(2024, 1, 5), Decimal("1"), Decimal("7"), Decimal("100")), columns
    )
    assert row == (dt.date(2024, 1, 5), 1, 7, 100)
    assert [cell_text(v, c.type) for v, c in zip(row, columns, strict=True)] == [
        "2024-01-05",
        "true",
        "7",
        "100.00",
    ]
    assert ora.bind_row((dt.date(2024, 1, 5), True, 7, None), columns, 19) == [
        dt.datetime(2024, 1, 5),
        1,
        7,
        None,
    ]
    assert ora.bind_row((None, True, 7, None), columns, 23)[1] is True


# --- timeouts and the statements of one execution -------------------------------------------------


class Recorder:
    """A stand-in connection/cursor recording what the adapter asks of it."""

    def __init__(self) -> None:
        self.log: list[str] = []
        self.call_timeout = 0
        self.connection = self

    def cursor(self) -> Recorder:
        return self

    def execute(self, sql: str, *args: Any) -> None:
        self.log.append(sql)

    def rollback(self) -> None:
        self.log.append("<rollback>")

    def cancel(self) -> None:
        self.log.append("<cancel>")

    def close(self) -> None:
        self.log.append("<close>")


def test_timeout_is_call_timeout_and_cancel() -> None:
    conn = Recorder()
    bare()._arm_timeout(conn, 2.5)
    assert conn.call_timeout == 2500
    bare()._arm_timeout(conn, 0.0001)
    assert conn.call_timeout == 1
    bare()._cancel(conn)
    assert conn.log == ["<cancel>"]


def test_an_execution_is_a_read_only_transaction_in_the_fixture_schema() -> None:
    engine, conn = bare(), Recorder()
    engine._runner_conn = lambda: conn  # type: ignore[method-assign]
    engine._run = lambda cur, script: (  # type: ignore[method-assign]
        conn.log.append(f"<run {len(script.plans)}>")
    )
    plans = ora.GUARD.plan(["SELECT 1 FROM dual"])
    assert isinstance(plans, list) and isinstance(plans[0], st.Plan)
    engine._execute_plans(st.Script(plans, SHOP, st.Deadline(5), 10), "PARROT_FX_X")
    assert conn.log == [
        "<rollback>",
        'ALTER SESSION SET CURRENT_SCHEMA = "PARROT_FX_X"',
        "SET TRANSACTION READ ONLY",
        "<run 1>",
        "<close>",
        "<rollback>",
    ]
    assert conn.call_timeout == 0
