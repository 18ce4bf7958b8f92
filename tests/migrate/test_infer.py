"""The type-inference rule: declared type proposes, every value must fit, text is the fallback."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest

from parrot.migrate.infer import (
    Family,
    IntrospectionError,
    declared_family,
    exact_text,
    infer_column,
)


@pytest.mark.parametrize(
    ("declared", "family"),
    [
        ("INTEGER", Family.INTEGER),
        ("INT", Family.INTEGER),
        ("int(11)", Family.INTEGER),
        ("BIGINT", Family.BIGINT),
        ("BIGINT(20)", Family.BIGINT),
        ("HUGEINT", Family.BIGINT),
        ("VARCHAR(255)", Family.TEXT),
        ("CHARACTER VARCHAR(3)", Family.TEXT),
        ("VARCHAR2(20)", Family.TEXT),
        ("TEXT", Family.TEXT),
        ("UUID", Family.TEXT),
        ("REAL", Family.DOUBLE),
        ("FLOAT(10,2)", Family.DOUBLE),
        ("DOUBLE", Family.DOUBLE),
        ("DECIMAL(19,4)", Family.DECIMAL),
        ("NUMBER(10)", Family.DECIMAL),
        ("NUMERIC(5, 0)", Family.DECIMAL),
        ("NUMERIC", Family.NUMERIC),
        ("DECIMAL", Family.NUMERIC),
        ("DECIMAL(60,2)", Family.NUMERIC),
        ("BOOL", Family.BOOLEAN),
        ("BOOLEAN", Family.BOOLEAN),
        ("BIT", Family.INTEGER),
        ("DATE", Family.DATE),
        ("DATETIME", Family.TIMESTAMP),
        ("TIMESTAMP", Family.TIMESTAMP),
        ("TIME", Family.TEXT),
        ("", Family.ANY),
        ("BLOB", Family.ANY),
        ("NULL", Family.ANY),
        ("GEOMETRY", Family.ANY),
    ],
)
def test_declared_family(declared: str, family: Family) -> None:
    assert declared_family(declared).family is family


def test_decimal_declaration_keeps_precision_and_scale() -> None:
    d = declared_family("NUMBER(10)")
    assert (d.precision, d.scale, d.expected) == (10, 0, "decimal(10,0)")


def test_clean_columns_get_the_declared_type() -> None:
    assert infer_column("INT", [1, None, -5]).type == "integer"
    assert infer_column("BIGINT", [1]).type == "bigint"
    assert infer_column("REAL", [1.5, None]).values == [1.5, None]
    assert infer_column("TEXT", ["a", None]).type == "text"
    assert infer_column("DATE", ["2020-01-31"]).values == ["2020-01-31"]
    got = infer_column("DATETIME", ["2020-01-31 10:00:00", "2020-01-31 10:00:00.25"])
    assert (got.type, got.reason) == ("timestamp", "")
    assert infer_column("BOOLEAN", [1, 0, None]).values == [True, False, None]


def test_empty_column_takes_the_declared_type() -> None:
    assert infer_column("DATE", []).type == "date"
    assert infer_column("DECIMAL(8,2)", [None]).type == "decimal(8,2)"
    assert infer_column("", [None]).type == "text"


def test_integers_widen_without_a_misfit() -> None:
    got = infer_column("INT", [1, 2**40])
    assert (got.type, got.reason) == ("bigint", "")
    assert infer_column("INT", [2**70]).type == "decimal(38,0)"


def test_blank_strings_in_an_integer_column_make_it_text_with_exact_values() -> None:
    got = infer_column("INTEGER", [65, "", None, 70])
    assert got.type == "text"
    assert got.values == ["65", "", None, "70"]
    assert "1 of 3 value(s) do not fit integer" in got.reason and "''" in got.examples


def test_blank_as_null_is_opt_in_and_reported() -> None:
    got = infer_column("INTEGER", [65, "", None], blank_as_null=True)
    assert (got.type, got.values, got.blanks_as_null) == ("integer", [65, None, None], 1)
    assert "1 empty string(s) read as NULL" in got.reason
    assert infer_column("TEXT", ["", "a"], blank_as_null=True).values == ["", "a"]


def test_floats_among_integers_make_a_double_column() -> None:
    got = infer_column("INT", [1, 0.946])
    assert (got.type, got.values) == ("double", [1.0, 0.946])
    assert got.reason


def test_mixed_numbers_and_words_keep_exact_text() -> None:
    got = infer_column("INTEGER", [0, 0.23, "T", 3])
    assert got.values == ["0", "0.23", "T", "3"]


def test_decimal_columns_of_doubles_use_the_shortest_repr() -> None:
    got = infer_column("DECIMAL(19,4)", [12.5, 1234.5678, 3, None])
    assert got.type == "decimal(19,4)"
    assert got.values == ["12.5000", "1234.5678", "3.0000", None]
    assert infer_column("DECIMAL(2,2)", [0, 0.35, 0.1]).type == "decimal(2,2)"


def test_decimal_misfits_fall_back_to_integer_then_double() -> None:
    assert infer_column("DECIMAL(19,4)", [0.30000000000000004]).type == "double"
    assert infer_column("DECIMAL(4,0)", [12345]).type == "integer"
    assert infer_column("DECIMAL(3,1)", [123.4]).type == "double"  # 3 integer digits > 2


def test_bare_numeric_uses_the_values() -> None:
    assert infer_column("NUMERIC", [30, 29]).type == "integer"
    assert infer_column("NUMERIC", [30, 29.97]).type == "double"
    assert infer_column("NUMERIC", [Decimal("1.25"), Decimal("10.5")]).type == "decimal(4,2)"
    assert infer_column("NUMERIC", [30, ""]).type == "text"


def test_boolean_text_flags_stay_text() -> None:
    got = infer_column("BOOL", ["T", "F"])
    assert (got.type, got.values) == ("text", ["T", "F"])
    assert infer_column("BOOL", [0, 2]).type == "integer"
    assert infer_column("", [True, False]).type == "boolean"


@pytest.mark.parametrize(
    "value", ["1978-2-23", "0000-00-00", "04/12/2005 09:30", "28-AUG-2011", "20180317"]
)
def test_dates_that_do_not_print_back_identically_are_text(value: str) -> None:
    got = infer_column("DATE", ["2020-01-01", value])
    assert got.type == "text" and got.values == ["2020-01-01", value]


@pytest.mark.parametrize(
    "value",
    ["2018-03-17T07:13:53", "2018-03-17 07:13:53.000", "2018-03-17 07:13:53+00:00", "2018-03-17"],
)
def test_timestamps_must_round_trip_exactly(value: str) -> None:
    assert infer_column("DATETIME", ["2018-03-17 07:13:53", value]).type == "text"


def test_date_only_datetime_column_is_a_date() -> None:
    assert infer_column("DATETIME", ["2018-03-17", "2019-01-02"]).type == "date"


def test_python_temporal_values() -> None:
    ts = dt.datetime(2020, 1, 2, 3, 4, 5, 600000)
    assert infer_column("TIMESTAMP", [ts]).values == ["2020-01-02 03:04:05.6"]
    assert infer_column("", [dt.date(2020, 1, 2)]).values == ["2020-01-02"]
    aware = dt.datetime(2020, 1, 2, tzinfo=dt.UTC)
    assert infer_column("TIMESTAMP", [aware]).type == "text"


def test_undeclared_columns_follow_python_types() -> None:
    assert infer_column("", [1, 2]).type == "integer"
    assert infer_column("", [1, 2.5]).type == "double"
    assert infer_column("", [7, "x", 2.5]).values == ["7", "x", "2.5"]
    assert infer_column("", ["2020-01-01"]).type == "text"  # strings are never parsed


def test_text_columns_render_non_text_values() -> None:
    got = infer_column("VARCHAR(10)", ["a", 5])
    assert got.values == ["a", "5"] and "exact text" in got.reason


def test_binary_values_are_refused() -> None:
    with pytest.raises(IntrospectionError, match="binary"):
        infer_column("BLOB", [b"\x00\x01"])


def test_exact_text() -> None:
    assert exact_text(0.1 + 0.2) == "0.30000000000000004"
    assert exact_text(Decimal("1E+2")) == "100"
    assert exact_text(dt.time(10, 30)) == "10:30:00"
    assert exact_text(True) == "true"
