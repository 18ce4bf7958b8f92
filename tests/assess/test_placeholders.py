"""Placeholders filled from the domain of the column each is compared with."""

from __future__ import annotations

import pytest

from parrot.assess.placeholders import Filled, fill
from parrot.fixtures import Column, Fixture, Table

COLUMNS = (Column("id", "integer", False), Column("name", "text"), Column("age", "integer"))
ROWS = ((1, "a", 30), (2, "b", 40), (3, "b", 50))
DB = Fixture("db", (Table("singer", COLUMNS, ROWS, ("id",)),))
EMPTY = Fixture("db", (Table("singer", COLUMNS, (), ("id",)),))


@pytest.mark.parametrize("dialect", ["sqlite", "duckdb", "postgres", "mysql"])
def test_a_numbered_placeholder_keeps_one_value_in_every_dialect(dialect):
    # regression: sqlglot reads SQLite's $1 as a column named "$1", not a parameter
    got = fill("SELECT name FROM singer WHERE age > $1 OR age = $1", dialect, DB)
    assert isinstance(got, Filled)
    assert got.sql == "SELECT name FROM singer WHERE age > 40 OR age = 40"  # the median
    assert got.describe() == "placeholders filled with generated values ($1 = 40 from singer.age)"


def test_real_values_then_generated_ones():
    sql = "SELECT * FROM singer AS s WHERE s.name = %s AND s.age BETWEEN %s AND %s"
    real, generated = fill(sql, "mysql", DB), fill(sql, "mysql", EMPTY)
    assert isinstance(real, Filled) and isinstance(generated, Filled)
    assert real.sql.endswith("s.name = 'b' AND s.age BETWEEN 30 AND 50")  # most frequent; quartiles
    assert generated.sql.endswith("s.name = 'a' AND s.age BETWEEN 0 AND 7")  # the generator's


@pytest.mark.parametrize(
    "sql,why",
    [
        ("SELECT * FROM singer LIMIT $1", "no column domain known for $1"),
        ("SELECT * FROM singer WHERE nosuch = :x", "no column domain known for :x"),
    ],
)
def test_no_domain_no_values(sql, why):
    assert why in str(fill(sql, "postgres", DB))
    assert "give --db or --schema" in str(fill(sql, "postgres", None))


def test_inserted_values_are_new_keys_and_set_values_come_from_the_column():
    got = fill("INSERT INTO singer (id, name) VALUES ($1, $2), ($3, $4)", "postgres", DB)
    assert isinstance(got, Filled)
    assert got.sql == "INSERT INTO singer (id, name) VALUES (9100, 'parrot 4'), (9101, 'parrot 5')"
    got = fill("UPDATE singer SET age = $1 WHERE id = $2", "postgres", DB)
    assert isinstance(got, Filled) and got.sql == "UPDATE singer SET age = 30 WHERE id = 1"
