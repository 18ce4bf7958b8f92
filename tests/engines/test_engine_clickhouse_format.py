"""ClickHouse adapter internals: type names, Quoted output, typed conversion, statement guard."""

from __future__ import annotations

import datetime as dt
import math
from decimal import Decimal

import pytest

from parrot.engines.clickhouse import (
    GUARD,
    CHType,
    _Bare,
    _Pairs,
    canonical_rows,
    converter,
    created_function,
    parse_literal,
    parse_output,
    parse_type,
)
from parrot.values import Nested, Temporal


def test_parse_type() -> None:
    assert parse_type("UInt8") == CHType("UInt8")
    t = parse_type("Map(String, Array(Nullable(Decimal(10, 2))))")
    assert t.name == "Map" and t.arg_types()[1].arg_types()[0].arg_types()[0].arg_texts() == [
        "10",
        "2",
    ]
    named = parse_type("Tuple(a UInt8, `b c` Nullable(String))")
    assert named.fields == ("a", "b c")
    assert parse_type("Tuple(UInt8, String)").fields == ()
    assert parse_type("DateTime64(6, 'Asia/Tokyo')").arg_texts() == ["6", "'Asia/Tokyo'"]
    assert parse_type("Enum8('a' = 1, 'b' = 2)").arg_texts() == ["'a' = 1", "'b' = 2"]
    assert parse_type("JSON(max_dynamic_paths=10)").name == "JSON"  # odd args: no crash
    assert parse_type("").name == ""


@pytest.mark.parametrize(
    ("text", "value"),
    [
        (b"123", "123"),
        (b"-1.5e-300", "-1.5e-300"),
        (b"nan", "nan"),
        (b"NULL", None),
        (b"'a\\'b\\\\c\\n\\t\\0'", "a'b\\c\n\t\0"),
        (b"'\\xe2\\x9c\\x93'", "✓"),
        (b"'\xc3\xbc'", "ü"),
        (b"[1,NULL,'x,]']", ["1", None, "x,]"]),
        (b"(1,'a')", ("1", "a")),
        (b"{'k':[1],'l':[]}", [("k", ["1"]), ("l", [])]),
        (b"[[1,2],[]]", [["1", "2"], []]),
    ],
)
def test_parse_literal(text: bytes, value: object) -> None:
    parsed, end = parse_literal(text)
    assert parsed == value and end == len(text)


def test_parse_output() -> None:
    data = b"'a'\t'b\\tc'\n'Nullable(Int32)'\t'String'\n1\t'x\\ty'\nNULL\t''\n"
    names, types, rows = parse_output(data)
    assert names == ["a", "b\tc"] and types == ["Nullable(Int32)", "String"]
    assert canonical_rows(types, rows) == ((1, "x\ty"), (None, ""))
    with pytest.raises(ValueError):
        parse_output(b"'a'\n")


B = _Bare  # an unquoted literal in the output; quoted strings arrive as plain str


@pytest.mark.parametrize(
    ("type_name", "raw", "expected"),
    [
        (
            "Int128",
            B("-170141183460469231731687303715884105728"),
            -170141183460469231731687303715884105728,
        ),
        ("UInt64", B("18446744073709551615"), 18446744073709551615),
        ("Float32", B("0.1"), 0.10000000149011612),
        ("Float64", B("-inf"), -math.inf),
        ("Decimal(38, 4)", B("-0.5"), Decimal("-0.5000")),
        ("Decimal32(2)", B("3"), Decimal("3.00")),
        ("Bool", B("true"), True),
        ("UInt8", B("1"), 1),
        ("Date32", "1900-01-01", dt.date(1900, 1, 1)),
        (
            "DateTime64(9)",
            "2024-01-05 10:00:00.123456789",
            dt.datetime(2024, 1, 5, 10, 0, 0, 123456),
        ),
        ("DateTime('America/New_York')", "2024-07-01 08:00:00", dt.datetime(2024, 7, 1, 12)),
        ("Nullable(LowCardinality(String))", None, None),
        ("IntervalWeek", B("2"), dt.timedelta(days=14)),
        ("Time", "10:00:01", dt.time(10, 0, 1)),
        ("Time", "-100:00:00", "-100:00:00"),
        ("Nothing", None, None),
        ("Variant(String, UInt64)", B("7"), 7),
        ("Variant(String, UInt64)", "7", "7"),
    ],
)
def test_converter(type_name: str, raw: object, expected: object) -> None:
    value = converter(parse_type(type_name))(raw)
    assert value == expected and type(value) is type(expected)


def test_canonical_nested_rows() -> None:
    types = [
        "Array(Nullable(Decimal(9, 2)))",
        "Map(String, Tuple(a Date32, b Float64))",
        "Tuple(UInt8, String)",
        "Float64",
    ]
    raw = [[[B("1.5"), None], _Pairs([("k", ("2024-01-05", B("nan")))]), (B("1"), "x"), B("nan")]]
    row = canonical_rows(types, raw)[0]
    assert row[0] == Nested('["1.50",null]')
    assert row[1] == Nested('{"k":{"a":"2024-01-05","b":"NaN"}}')
    assert row[2] == Nested('[1,"x"]')
    assert isinstance(row[3], float) and math.isnan(row[3])
    assert canonical_rows(["Date"], [["2024-01-05"]]) == ((Temporal("date", "2024-01-05"),),)


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT url FROM t",
        "SELECT format('{}', 1)",
        "SELECT URLHierarchy('http://a/b')",
        "SELECT name AS format FROM t",
        "SELECT 'file(' AS s",
        "SELECT `file` FROM t",
        "SELECT s3 FROM t",
        "WITH x AS (SELECT 1) SELECT * FROM x",
        "SELECT hiveHash('a')",
        "SELECT * FROM merge(currentDatabase(), '^cust')",
    ],
)
def test_guard_allows_ordinary_queries(sql: str) -> None:
    assert not isinstance(GUARD.check(sql), str)


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT * FROM file('x')",
        "SELECT * FROM FILE ('x')",
        "SELECT * FROM `file`('x')",
        "SELECT * FROM s3Cluster('c', 'u')",
        "SELECT * FROM remoteSecure('h', t)",
        "SELECT * FROM icebergS3('u')",
        "SELECT * FROM mysql('h', 'd', 't', 'u', 'p')",
        "CREATE TABLE x (a Int8) ENGINE = URL('http://h/', CSV)",
        "SELECT 1 INTO OUTFILE 'f'",
        "INSERT INTO t FROM INFILE 'f'",
        "SET log_comment = 'x'",
        "SET output_format_json_quote_decimals = 1",
        "SELECT 1 SETTINGS `readonly` = 0",
        "SELECT * FROM merge('parrot_x', '.*')",
        "SET ROLE ALL",
        "SET DEFAULT ROLE NONE TO default",
        "CREATE USER u",
        "DROP ROLE r",
        "CREATE DICTIONARY d (a UInt8) PRIMARY KEY a SOURCE(NULL()) LAYOUT(FLAT()) LIFETIME(0)",
        "SELECT 1 FORMAT Vertical",
        "EXECUTE AS u SELECT 1",
    ],
)
def test_guard_refuses(sql: str) -> None:
    assert isinstance(GUARD.check(sql), str)


def test_plan_classifies_reads_and_writes() -> None:
    read = GUARD.check("(SELECT 1)")
    assert not isinstance(read, str) and not read.writes
    for sql in ("SET max_threads = 1", "SHOW TABLES", "DESCRIBE t", "EXPLAIN SELECT 1", "EXISTS t"):
        plan = GUARD.check(sql)
        assert not isinstance(plan, str) and not plan.writes
    for sql in (
        "CREATE VIEW v AS SELECT 1",
        "INSERT INTO t VALUES (1)",
        "DROP TABLE t",
        "ALTER TABLE t DELETE WHERE 1",
        "TRUNCATE t",
        "OPTIMIZE TABLE t",
    ):
        plan = GUARD.check(sql)
        assert not isinstance(plan, str) and plan.writes
    udf = GUARD.check("CREATE OR REPLACE FUNCTION IF NOT EXISTS twice AS (x) -> x * 2")
    assert not isinstance(udf, str) and created_function(udf) == "twice"
