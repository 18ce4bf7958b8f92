"""Result values come back as canonical parrot values, engine by engine."""

from __future__ import annotations

import math
from decimal import Decimal
from typing import Any

import pytest

from parrot.engines import Engine, ExecStatus
from parrot.fixtures import Fixture
from parrot.values import Nested, Temporal


def one_row(engine: Engine, fixture: Fixture, sql: str) -> tuple[tuple[Any, ...], tuple[str, ...]]:
    ex = engine.execute(sql, fixture)
    assert ex.status is ExecStatus.OK, ex.error
    assert ex.result is not None and len(ex.result.rows) == 1
    return ex.result.rows[0], ex.result.types


# --- the same question asked of every engine (differences declared, ibis style) -------------------

EXPRESSIONS: dict[str, tuple[dict[str, str], Any]] = {
    # name: ({engine: sql} ("*" for all), expected first value)
    "decimal_keeps_scale": (
        {
            "sqlite": "SELECT CAST('1.50' AS DECIMAL(10,2))",
            "duckdb": "SELECT CAST(1.50 AS DECIMAL(10,2))",
            "postgres": "SELECT CAST(1.50 AS DECIMAL(10,2))",
            "clickhouse": "SELECT toDecimal64(1.5, 2)",
            "mysql": "SELECT CAST(1.50 AS DECIMAL(10,2))",
            "spark": "SELECT CAST(1.50 AS DECIMAL(10,2))",
        },
        Decimal("1.50"),
    ),
    "date_is_temporal": (
        {
            "sqlite": "SELECT date('2024-01-05')",
            "duckdb": "SELECT DATE '2024-01-05'",
            "postgres": "SELECT DATE '2024-01-05'",
            "clickhouse": "SELECT toDate32('2024-01-05')",
            "mysql": "SELECT DATE '2024-01-05'",
            "spark": "SELECT DATE '2024-01-05'",
        },
        Temporal("date", "2024-01-05"),
    ),
    "timestamp_keeps_microseconds": (
        {
            "sqlite": "SELECT '2024-01-05 10:00:00.123456'",
            "duckdb": "SELECT TIMESTAMP '2024-01-05 10:00:00.123456'",
            "postgres": "SELECT TIMESTAMP '2024-01-05 10:00:00.123456'",
            "clickhouse": "SELECT toDateTime64('2024-01-05 10:00:00.123456', 6)",
            "mysql": "SELECT TIMESTAMP '2024-01-05 10:00:00.123456'",
            "spark": "SELECT TIMESTAMP '2024-01-05 10:00:00.123456'",
        },
        Temporal("timestamp", "2024-01-05 10:00:00.123456"),
    ),
    "comparison_is_boolean": ({"*": "SELECT 1 = 1"}, True),
    "division_is_true_division": ({"*": "SELECT 7 / 2"}, 3.5),
    "array_is_nested": (
        {
            "sqlite": "SELECT json_array(1, 2)",
            "*": "SELECT [1, 2]",
            "postgres": "SELECT ARRAY[1, 2]",
            "spark": "SELECT array(1, 2)",
        },
        Nested("[1,2]"),
    ),
    "unicode_string": ({"*": "SELECT 'ünï ✓ 🦜'"}, "ünï ✓ 🦜"),
    "null": ({"*": "SELECT NULL"}, None),
}


@pytest.mark.parametrize("name", sorted(EXPRESSIONS))
@pytest.mark.notimpl(
    ["sqlite"],
    raises=AssertionError,
    reason="SQLite has no DECIMAL, DATE, TIMESTAMP, BOOLEAN or array types",
    params={
        "name": [
            "decimal_keeps_scale",
            "date_is_temporal",
            "timestamp_keeps_microseconds",
            "comparison_is_boolean",
            "array_is_nested",
        ]
    },
)
@pytest.mark.notimpl(
    ["clickhouse"],
    raises=AssertionError,
    reason="comparisons return UInt8",
    params={"name": ["comparison_is_boolean"]},
)
@pytest.mark.notimpl(
    ["sqlite", "postgres"],
    raises=AssertionError,
    reason="SQLite and PostgreSQL divide integers: 7/2 = 3",
    params={"name": ["division_is_true_division"]},
)
@pytest.mark.notimpl(
    ["mysql"],
    raises=AssertionError,
    reason="MySQL has no boolean or array types (1 = 1 is 1); 7/2 is Decimal('3.5000')",
    params={"name": ["comparison_is_boolean", "array_is_nested", "division_is_true_division"]},
)
def test_expression(engine_name: str, engine: Engine, shop: Fixture, name: str) -> None:
    sqls, expected = EXPRESSIONS[name]
    row, _ = one_row(engine, shop, sqls.get(engine_name, sqls.get("*", "")))
    value = row[0]
    assert value == expected
    assert type(value) is type(expected)
    if isinstance(expected, Decimal):
        assert str(value) == str(expected)


@pytest.mark.notimpl(["sqlite"], raises=AssertionError, reason="SQLite has no NaN (0/0 is NULL)")
@pytest.mark.notimpl(["mysql"], raises=AssertionError, reason="MySQL has no NaN (0e0/0e0 is NULL)")
def test_nan_is_kept(engine_name: str, engine: Engine, shop: Fixture) -> None:
    sql = {
        "sqlite": "SELECT 0.0 / 0.0",
        "duckdb": "SELECT 'nan'::DOUBLE",
        "postgres": "SELECT 'NaN'::float8",
        "clickhouse": "SELECT nan",
        "mysql": "SELECT 0e0 / 0e0",
        "spark": "SELECT double('NaN')",
    }[engine_name]
    row, _ = one_row(engine, shop, sql)
    assert isinstance(row[0], float) and math.isnan(row[0])


# --- engine-specific conversions ------------------------------------------------------------------


@pytest.mark.parametrize("engine_name", ["sqlite"], indirect=True)
def test_sqlite_values(engine: Engine, shop: Fixture) -> None:
    row, types = one_row(
        engine, shop, "SELECT 1, 2.5, 'x', X'00ff', NULL, 1 = 1, 9223372036854775807"
    )
    assert row == (1, 2.5, "x", b"\x00\xff", None, 1, 9223372036854775807)
    assert type(row[5]) is int
    assert types[:4] == ("INTEGER", "REAL", "TEXT", "BLOB")
    row, _ = one_row(engine, shop, "SELECT amount, placed FROM orders WHERE id = 11")
    assert row == (-3.25, "2024-01-06 11:30:00.25")  # stand-ins, never guessed into dates


@pytest.mark.parametrize("engine_name", ["duckdb"], indirect=True)
def test_duckdb_values(engine: Engine, shop: Fixture) -> None:
    row, types = one_row(
        engine,
        shop,
        """
        SELECT 170141183460469231731687303715884105727::HUGEINT, 18446744073709551615::UBIGINT,
               [1.5::DECIMAL(4,2), NULL], {'a': 1, 'b': [DATE '2024-01-05']}, MAP {'k': 2},
               INTERVAL 1 DAY, TIMESTAMPTZ '2024-01-05 10:00:00+02', TIME '10:00:01.5',
               0.1::REAL, 'ab'::BLOB, '00000000-0000-0000-0000-000000000001'::UUID,
               true, 'x'::VARCHAR""",
    )
    assert row[0] == 170141183460469231731687303715884105727 and type(row[0]) is int
    assert row[1] == 18446744073709551615
    assert row[2] == Nested('["1.50",null]')
    assert row[3] == Nested('{"a":1,"b":["2024-01-05"]}')
    assert row[4] == Nested('{"k":2}')
    assert row[5] == Nested('{"interval_seconds": 86400.0}')
    assert row[6] == Temporal("timestamp", "2024-01-05 08:00:00")  # converted to UTC
    assert row[7] == Temporal("time", "10:00:01.5")
    assert row[8] == 0.10000000149011612
    assert row[9] == b"ab"
    assert row[10] == "00000000-0000-0000-0000-000000000001"
    assert row[11] is True
    assert types[0] == "HUGEINT" and types[6] == "TIMESTAMP WITH TIME ZONE"


@pytest.mark.parametrize("engine_name", ["duckdb"], indirect=True)
def test_duckdb_time_zone_values_outside_select(engine: Engine, shop: Fixture) -> None:
    row, _ = one_row(
        engine,
        shop,
        "CREATE TEMP TABLE z (t TIMESTAMPTZ); INSERT INTO z VALUES "
        "('2024-01-05 10:00:00+02') RETURNING t, [t]",
    )
    assert row == (Temporal("timestamp", "2024-01-05 08:00:00"), Nested('["2024-01-05 08:00:00"]'))


@pytest.mark.parametrize("engine_name", ["clickhouse"], indirect=True)
def test_clickhouse_values(engine: Engine, shop: Fixture) -> None:
    row, types = one_row(
        engine,
        shop,
        """
        SELECT true AS b, 1 = 1 AS cmp, toUInt8(1) AS u8, toNullable(toUInt8(0)) AS nu8,
               toInt128('-170141183460469231731687303715884105728') AS i128,
               18446744073709551615 AS u64, toUInt256('1' || repeat('0', 70)) AS u256,
               nan AS n, -inf AS ni, toFloat32(0.1) AS f32, NULL AS nul,
               toLowCardinality('lc') AS lc, toDecimal64(-0.5, 2) AS dec,
               toDecimal256('-1.5', 40) AS d256, toDate('2024-01-05') AS d,
               toDateTime('2024-01-05 10:00:00', 'Asia/Tokyo') AS tk,
               toDateTime64('2024-01-05 10:00:00.000001', 6) AS ts""",
    )
    assert row[0] is True and types[0] == "Bool"
    assert row[1] == 1 and type(row[1]) is int and types[1] == "UInt8"
    assert row[2] == 1 and type(row[2]) is int
    assert row[3] == 0 and type(row[3]) is int and types[3] == "Nullable(UInt8)"
    assert row[4] == -170141183460469231731687303715884105728
    assert row[5] == 18446744073709551615
    assert row[6] == 10**70
    assert math.isnan(row[7]) and row[8] == -math.inf
    assert row[9] == 0.10000000149011612
    assert row[10] is None
    assert row[11] == "lc" and types[11] == "LowCardinality(String)"
    assert row[12] == Decimal("-0.50") and str(row[12]) == "-0.50"
    assert row[13] == Decimal("-1.5") and str(row[13]) == "-1.5" + "0" * 39
    assert row[14] == Temporal("date", "2024-01-05")
    assert row[15] == Temporal("timestamp", "2024-01-05 01:00:00")  # Tokyo wall time → UTC
    assert row[16] == Temporal("timestamp", "2024-01-05 10:00:00.000001")


@pytest.mark.parametrize("engine_name", ["clickhouse"], indirect=True)
def test_clickhouse_nested_values(engine: Engine, shop: Fixture) -> None:
    row, types = one_row(
        engine,
        shop,
        """
        SELECT [1, NULL, 3] AS a, (1, 'x') AS t, CAST((1, 'x'), 'Tuple(id UInt8, s String)') AS nt,
               map('k', [toDecimal32(1.5, 2)]) AS m, [[1, 2], [3]] AS aa,
               [toDateTime64('2024-01-05 10:00:00.5', 6)] AS ats, ['a\\'b', 'c,d]'] AS s,
               INTERVAL 2 MONTH AS iv, CAST('a', 'Enum8(\\'a\\' = 1)') AS e,
               toFixedString('ab', 3) AS fs, toIPv4('1.2.3.4') AS ip,
               '{"a": {"b": 1}}'::JSON AS j""",
    )
    assert row[0] == Nested("[1,null,3]")
    assert row[1] == Nested('[1,"x"]')
    assert row[2] == Nested('{"id":1,"s":"x"}')
    assert row[3] == Nested('{"k":["1.50"]}')
    assert row[4] == Nested("[[1,2],[3]]")
    assert row[5] == Nested('["2024-01-05 10:00:00.5"]')
    assert row[6] == Nested('["a\'b","c,d]"]')
    assert row[7] == Nested('{"interval_seconds": 5184000.0}')
    assert row[8] == "a"
    assert row[9] == "ab\x00"
    assert row[10] == "1.2.3.4"
    assert row[11] == Nested('{"a":{"b":1}}')
    assert types[2] == "Tuple(id UInt8, s String)"


@pytest.mark.parametrize("engine_name", ["clickhouse"], indirect=True)
def test_clickhouse_empty_result_keeps_columns(engine: Engine, shop: Fixture) -> None:
    ex = engine.execute("SELECT id, name FROM customers WHERE 0", shop)
    assert ex.ok and ex.result is not None
    assert ex.result.columns == ("id", "name") and ex.result.rows == ()
    assert ex.result.types == ("Int32", "Nullable(String)")


def test_empty_result_keeps_columns(engine: Engine, shop: Fixture) -> None:
    ex = engine.execute("SELECT id, name FROM customers WHERE 1 = 0", shop)
    assert ex.ok and ex.result is not None
    assert ex.result.columns == ("id", "name") and ex.result.empty
