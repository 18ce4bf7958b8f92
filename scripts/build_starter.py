#!/usr/bin/env python3
"""Build PARROT's starter benchmark: hand-written SQLite / DuckDB / ClickHouse triples.

The benchmark lives in this file as data:

* ``FIXTURES`` — five small portable databases (shop, hr, events, texts, metrics) whose rows were
  chosen to separate right translations from plausible wrong ones (NULLs, duplicates, ties, mixed
  case, stray spaces, empty strings, zero divisors, month/leap-day/year boundaries, microseconds,
  negative numbers, two-place decimals);
* ``CONCEPTS`` — one query idea each, written by hand three times (``sqlite``, ``duckdb``,
  ``clickhouse``) so that all three return the same result on the concept's fixture.

Every concept expands into the six directed pairs between the three dialects: the source is the
concept's SQL in the source dialect, the reference is its SQL in the target dialect.

The same file builds a second dataset, **polyglot** (``datasets/polyglot/``): starter concepts
that also carry ``postgres``, ``mysql`` and ``spark`` SQL, plus ``POLYGLOT_ONLY`` concepts over
the named fixtures (``tpch``, ``spider/<db_id>``), each expanded into the 30 directed pairs
between the six dialects (ids ``polyglot-<concept>-<source>-<target>``). The starter fixtures are
written to both datasets' ``fixtures/`` folders.

Usage::

    python scripts/build_starter.py            # (re)write datasets/starter/** and polyglot/**
    python scripts/build_starter.py --check    # exit 1 if the committed files are stale
    python scripts/build_starter.py --verify   # run every triple on sqlite3, duckdb and chdb
    python scripts/build_starter.py --verify-polyglot   # judge every polyglot item for real

Output is deterministic (byte-identical on rerun).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import textwrap
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "datasets" / "starter"
DIALECTS = ("sqlite", "duckdb", "clickhouse")
PAIRS = tuple((s, t) for s in DIALECTS for t in DIALECTS if s != t)
ORIGIN = "parrot-starter"

# The polyglot dataset: concepts written for all six dialects, expanded into the 30 pairs.
POLYGLOT_OUT = ROOT / "datasets" / "polyglot"
POLYGLOT_DIALECTS = ("sqlite", "duckdb", "clickhouse", "postgres", "mysql", "spark")
POLYGLOT_PAIRS = tuple((s, t) for s in POLYGLOT_DIALECTS for t in POLYGLOT_DIALECTS if s != t)
POLYGLOT_ORIGIN = "parrot-polyglot"
EXTRA_DIALECTS = POLYGLOT_DIALECTS[len(DIALECTS):]  # optional on a starter concept

# ------------------------------------------------------------------------------------------------
# Fixtures (portable JSON, see parrot/fixtures.py). Columns: (name, portable type, nullable).
# ------------------------------------------------------------------------------------------------

NN = False  # readability: a NOT NULL column
N = True


def _table(name: str, columns: list[tuple[str, str, bool]], rows: list[list[Any]],
           primary_key: tuple[str, ...] = ("id",)) -> dict[str, Any]:
    return {"name": name,
            "columns": [{"name": c, "type": t, "nullable": n} for c, t, n in columns],
            "primary_key": list(primary_key),
            "rows": rows}


def shop_fixture() -> dict[str, Any]:
    """Customers, products, orders and order lines of a small web shop."""
    customers = _table("customers", [
        ("id", "integer", NN), ("name", "text", NN), ("email", "text", N), ("city", "text", N),
        ("country", "text", NN), ("signup_date", "date", NN), ("is_vip", "boolean", NN),
        ("referred_by", "integer", N),
    ], [
        [1, "Alice Martin", "alice@example.com", "Paris", "FR", "2023-01-15", True, None],
        [2, "bob stone", "BOB@Example.com", "Lyon", "FR", "2023-02-28", False, 1],
        [3, "Chloé Dubois", None, "paris", "FR", "2023-03-01", False, 1],
        [4, "David Kim", "david.kim@example.org", None, "US", "2024-02-29", True, None],
        [5, "Eve Adams", "eve@example.com", "New York", "US", "2023-12-31", False, 4],
        [6, " Frank Ortiz", "frank@example.net", "Austin ", "US", "2024-01-01", False, None],
        [7, "alice martin", "alice.m@example.com", "Berlin", "DE", "2023-06-30", False, 2],
        [8, "Grace Lee", "", "Berlin", "DE", "2024-03-31", True, None],
        [9, "Hiro Tanaka", "hiro@example.jp", "Tokyo", "JP", "2022-12-31", False, 5],
        [10, "Ines Costa", None, "", "PT", "2024-06-15", False, None],
        [11, "Jack O'Neil", "jack@example.com", "Dublin", "IE", "2024-02-01", False, 8],
    ])
    products = _table("products", [
        ("id", "integer", NN), ("name", "text", NN), ("category", "text", N),
        ("price", "decimal(10,2)", NN), ("cost", "decimal(10,2)", N), ("stock", "integer", N),
        ("discontinued", "boolean", NN),
    ], [
        [1, "Espresso Machine", "Kitchen", "249.99", "180.00", 12, False],
        [2, "Coffee Grinder", "Kitchen", "89.50", "60.25", 0, False],
        [3, "Mug", "Kitchen", "9.99", "2.50", 250, False],
        [4, "Desk Lamp", "Office", "34.00", None, 40, False],
        [5, "Notebook", "Office", "4.25", "1.10", None, False],
        [6, "Fountain Pen", "office", "59.90", "22.00", 15, True],
        [7, "Yoga Mat", "Sports", "25.00", "12.00", 30, False],
        [8, "Water Bottle", "Sports", "25.00", "5.75", 80, False],
        [9, "Gift Card", None, "50.00", "50.00", None, False],
        [10, "Headphones", "Electronics", "129.00", "95.00", 8, True],
        [11, "USB Cable", "Electronics", "9.99", "1.20", 300, False],
        [12, "Phone Case", "Electronics", "15.49", "3.10", 0, False],
    ])
    orders = _table("orders", [
        ("id", "integer", NN), ("customer_id", "integer", NN), ("order_date", "date", NN),
        ("status", "text", NN), ("shipped_at", "timestamp", N), ("discount", "decimal(10,2)", N),
        ("channel", "text", N),
    ], [
        [101, 1, "2023-01-31", "delivered", "2023-02-01 09:15:00", None, "web"],
        [102, 2, "2023-02-28", "delivered", "2023-03-01 00:00:00", "5.00", "web"],
        [103, 1, "2023-03-15", "cancelled", None, None, "phone"],
        [104, 3, "2023-06-30", "delivered", "2023-07-03 14:30:15.25", "0.00", "web"],
        [105, 5, "2023-12-31", "shipped", "2024-01-02 08:00:00", "10.00", "store"],
        [106, 4, "2024-01-01", "delivered", "2024-01-01 23:59:59.999999", None, "web"],
        [107, 2, "2024-02-29", "Delivered", "2024-03-01 10:00:00", "2.50", None],
        [108, 7, "2024-02-29", "pending", None, None, "web"],
        [109, 9, "2023-12-31", "delivered", "2024-01-03 12:00:00", None, "phone"],
        [110, 1, "2024-03-31", "shipped", "2024-04-01 07:45:30.5", "15.00", "web"],
        [111, 5, "2024-04-15", "delivered", "2024-04-16 16:20:00", None, "store"],
        [112, 8, "2024-05-01", "cancelled", None, "0.00", "web"],
        [113, 4, "2024-05-01", "delivered", "2024-05-03 11:11:11.111111", "20.00", "phone"],
        [114, 6, "2024-06-30", "shipped", "2024-07-01 06:00:00", None, "web"],
        [115, 9, "2024-07-04", "pending", None, None, None],
        [116, 11, "2024-12-31", "delivered", "2025-01-02 09:00:00", "5.00", "web"],
        [117, 2, "2024-12-31", "shipped", "2025-01-01 00:00:00.000001", None, "store"],
        [118, 3, "2024-02-01", "delivered", "2024-02-05 13:00:00", None, "web"],
    ])
    order_items = _table("order_items", [
        ("order_id", "integer", NN), ("line_no", "integer", NN), ("product_id", "integer", NN),
        ("quantity", "integer", NN), ("unit_price", "decimal(10,2)", NN),
    ], [
        [101, 1, 1, 1, "249.99"], [101, 2, 3, 2, "9.99"],
        [102, 1, 2, 1, "89.50"], [102, 2, 3, 4, "9.50"],
        [103, 1, 10, 1, "129.00"],
        [104, 1, 5, 10, "4.25"], [104, 2, 6, 1, "59.90"], [104, 3, 5, 5, "4.00"],
        [105, 1, 7, 2, "25.00"], [105, 2, 8, 1, "25.00"],
        [106, 1, 11, 3, "9.99"], [106, 2, 4, 1, "34.00"],
        [107, 1, 3, 6, "9.99"],
        [108, 1, 9, 1, "50.00"],
        [109, 1, 1, 1, "239.99"], [109, 2, 2, 1, "89.50"],
        [110, 1, 10, 1, "119.00"], [110, 2, 11, 2, "9.99"], [110, 3, 3, 1, "9.99"],
        [111, 1, 7, 1, "25.00"],
        [112, 1, 6, 2, "59.90"],
        [113, 1, 4, 2, "34.00"], [113, 2, 5, 12, "4.25"],
        [114, 1, 8, 4, "25.00"],
        [115, 1, 9, 2, "50.00"],
        [116, 1, 2, 1, "89.50"], [116, 2, 3, 2, "9.99"],
        [117, 1, 11, 1, "9.99"],
        [118, 1, 5, 3, "4.25"], [118, 2, 5, 3, "4.25"],
    ], primary_key=("order_id", "line_no"))
    return {"name": "shop", "tables": [customers, products, orders, order_items]}


def hr_fixture() -> dict[str, Any]:
    """Departments and employees with a four-level manager hierarchy."""
    departments = _table("departments", [
        ("id", "integer", NN), ("name", "text", NN), ("budget", "decimal(12,2)", N),
        ("location", "text", N),
    ], [
        [10, "Engineering", "500000.00", "Building A"],
        [20, "Sales", "250000.00", "Building B"],
        [30, "Marketing", None, "Building B"],
        [40, "Support", "120000.50", None],
        [50, "Research", "0.00", "Lab"],
    ])
    employees = _table("employees", [
        ("id", "integer", NN), ("first_name", "text", NN), ("last_name", "text", NN),
        ("email", "text", N), ("dept_id", "integer", N), ("manager_id", "integer", N),
        ("hire_date", "date", NN), ("salary", "decimal(10,2)", NN),
        ("commission_pct", "double", N), ("title", "text", NN), ("active", "boolean", NN),
        ("birth_date", "date", N),
    ], [
        [1, "Ada", "Lovelace", "ada@corp.io", 10, None, "2015-03-01", "185000.00", None,
         "CEO", True, "1975-12-10"],
        [2, "Grace", "Hopper", "grace@corp.io", 10, 1, "2016-07-15", "150000.00", None,
         "VP Engineering", True, "1980-02-29"],
        [3, "Alan", "Turing", "alan@corp.io", 10, 2, "2018-01-31", "120000.00", None,
         "Engineer", True, "1985-06-23"],
        [4, "Edsger", "Dijkstra", None, 10, 2, "2019-11-30", "120000.00", None,
         "Engineer", True, "1988-05-11"],
        [5, "Barbara", "Liskov", "barbara@corp.io", 10, 3, "2021-02-28", "95000.00", None,
         "Junior Engineer", True, "1995-11-07"],
        [6, "Linus", "Torvalds", "linus@corp.io", 20, 1, "2017-04-01", "140000.00", 0.10,
         "VP Sales", True, "1979-12-28"],
        [7, "Margaret", "Hamilton", "MARGARET@corp.io", 20, 6, "2019-12-31", "90000.00", 0.15,
         "Account Exec", True, "1990-08-17"],
        [8, "Ken", "Thompson", "ken@corp.io", 20, 6, "2020-01-01", "90000.00", 0.15,
         "Account Exec", False, "1991-02-04"],
        [9, "Dennis", "Ritchie", "dennis@corp.io", 20, 6, "2022-06-15", "72000.50", 0.05,
         "Sales Rep", True, None],
        [10, "Frances", "Allen", "frances@corp.io", 30, 1, "2018-08-20", "110000.00", None,
         "Marketing Lead", True, "1984-01-01"],
        [11, "John", "McCarthy", "", 30, 10, "2023-03-01", "65000.00", 0.02,
         "Analyst", True, "1999-12-31"],
        [12, "Radia", "Perlman", None, 40, 1, "2020-02-29", "80000.00", None,
         "Support Lead", True, "1986-12-18"],
        [13, "Tim", "Berners-Lee", "tim@corp.io", 40, 12, "2024-01-02", "52000.00", None,
         "Support Agent", True, "2000-01-01"],
        [14, "Guido", "van Rossum", "guido@corp.io", None, 1, "2023-10-01", "99000.00", None,
         "Advisor", True, "1976-01-31"],
        [15, "Donald", "Knuth", "don@corp.io", 40, 12, "2024-02-29", "52000.00", 0.0,
         "Support Agent", False, "1998-01-10"],
        [16, "Bjarne", "stroustrup", "bjarne@corp.io", 10, 3, "2022-09-12", "101000.00", None,
         "Engineer", True, "1990-12-30"],
    ])
    return {"name": "hr", "tables": [departments, employees]}


def events_fixture() -> dict[str, Any]:
    """App users and a click stream with microsecond timestamps across day/month/year ends."""
    app_users = _table("app_users", [
        ("id", "integer", NN), ("username", "text", NN), ("country", "text", N),
        ("plan", "text", N), ("created_at", "timestamp", NN),
    ], [
        [1, "alice", "FR", "pro", "2023-11-30 08:00:00"],
        [2, "Alice", "US", "free", "2023-12-31 23:59:59.999999"],
        [3, "bob", None, "free", "2024-01-01 00:00:00"],
        [4, "carol", "DE", None, "2024-02-29 12:30:45.5"],
        [5, "dave", "FR", "pro", "2024-03-10 02:30:00"],
        [6, "erin", "US", "enterprise", "2024-03-31 23:00:00"],
    ])
    events = _table("events", [
        ("id", "integer", NN), ("user_id", "integer", N), ("event_type", "text", NN),
        ("event_ts", "timestamp", NN), ("duration_ms", "integer", N), ("revenue", "double", N),
        ("page", "text", N), ("payload", "text", N),
    ], [
        [1, 1, "login", "2024-01-01 00:00:00", None, None, "/home",
         '{"device":"mobile","ok":true}'],
        [2, 1, "view", "2024-01-01 00:00:05.123456", 1200, None, "/products",
         '{"device":"mobile","items":3}'],
        [3, 1, "purchase", "2024-01-01 00:01:10.5", 3400, 19.99, "/checkout",
         '{"device":"mobile","items":1,"coupon":"NEW10"}'],
        [4, 2, "login", "2023-12-31 23:59:59.999999", None, None, "/home",
         '{"device":"desktop"}'],
        [5, 2, "view", "2024-01-01 00:00:00.000001", 800, None, "/products", None],
        [6, 2, "view", "2024-01-01 00:00:00.000001", 650, None, "/products/42", None],
        [7, 3, "login", "2024-02-28 23:59:59", None, None, "/home", '{"device":"tablet"}'],
        [8, 3, "view", "2024-02-29 00:00:00", 1500, None, "/products", "{}"],
        [9, 3, "purchase", "2024-02-29 10:15:30.25", 5100, 120.0, "/checkout",
         '{"device":"tablet","items":4}'],
        [10, 3, "purchase", "2024-02-29 10:15:30.25", 5100, 120.0, "/checkout",
         '{"device":"tablet","items":4}'],
        [11, 4, "login", "2024-03-01 08:00:00", None, None, "/home", None],
        [12, 4, "view", "2024-03-01 08:00:10", 0, None, "/Products", None],
        [13, 4, "error", "2024-03-01 08:00:11.75", None, None, "/checkout",
         '{"code":500,"device":"desktop"}'],
        [14, 4, "purchase", "2024-03-01 08:05:00", 4200, -15.5, "/checkout",
         '{"refund":true}'],
        [15, 5, "login", "2024-03-31 23:59:59.5", None, None, "/home", None],
        [16, 5, "view", "2024-04-01 00:00:00.5", 2200, None, "/products", None],
        [17, 5, "purchase", "2024-04-01 00:10:00", 2900, 45.5, "/checkout",
         '{"device":"mobile","items":2}'],
        [18, None, "view", "2024-04-01 12:00:00", 300, None, "/home", None],
        [19, None, "view", "2024-04-01 12:00:00", 300, None, "/home", None],
        [20, 1, "logout", "2024-01-01 00:05:00", None, None, None, None],
        [21, 5, "error", "2024-04-01 00:10:00.000001", None, None, "/checkout", '{"code":402}'],
        [22, 1, "view", "2024-06-30 18:45:00", 950, None, "/products/7", None],
        [23, 1, "purchase", "2024-06-30 18:47:12.00025", 3100, 0.0, "/checkout",
         '{"items":1,"coupon":"FREE"}'],
        [24, 2, "purchase", "2024-12-31 23:59:59.999999", 6000, 250.75, "/checkout",
         '{"device":"desktop","items":5}'],
    ])
    return {"name": "events", "tables": [app_users, events]}


def texts_fixture() -> dict[str, Any]:
    """Contacts with messy text: stray spaces, mixed case, '' vs NULL, accents, LIKE wildcards."""
    contacts = _table("contacts", [
        ("id", "integer", NN), ("full_name", "text", N), ("email", "text", N),
        ("phone", "text", N), ("code", "text", N), ("tags", "text", N), ("note", "text", N),
    ], [
        [1, "Anna Schmidt", "anna.schmidt@mail.de", "+49 30 1234567", "42", "vip,berlin",
         "Prefers email"],
        [2, "  Ben  Carter ", "ben@mail.com", "(555) 010-2000", " 7", "new", ""],
        [3, "carla diaz", "CARLA@MAIL.COM", None, "abc", "", None],
        [4, "DMITRI IVANOV", None, "+7-495-555-0101", "", "vip", "Call after 5pm"],
        [5, "", "", "555 0100", "3.5", None, "empty name"],
        [6, None, "ghost@mail.com", None, None, "lead,cold", None],
        [7, "Émile Zola", "emile@mail.fr", "01 23 45 67 89", "007", "author,paris,vip",
         "50% discount_code"],
        [8, "O'Brien, Pat", "pat.obrien@mail.ie", "+353 1 555 0199", "1000", "vip",
         "Comma, in name"],
        [9, "anna schmidt", "anna2@mail.de", "+49 30 7654321", "-12", "berlin", "Duplicate?"],
        [10, "Li Wei", "li.wei@mail.cn", "138 0013 8000", "12345", "lead", "Tab\tinside"],
    ])
    return {"name": "texts", "tables": [contacts]}


def metrics_fixture() -> dict[str, Any]:
    """Sensor readings: negative operands, zero and NULL divisors, rounding ties."""
    readings = _table("readings", [
        ("id", "integer", NN), ("sensor", "text", NN), ("a", "integer", NN), ("b", "integer", N),
        ("x", "double", N), ("amount", "decimal(10,2)", N), ("reading_date", "date", NN),
    ], [
        [1, "alpha", 7, 2, 1.5, "10.00", "2024-01-01"],
        [2, "alpha", -7, 2, -2.25, "-3.35", "2024-01-02"],
        [3, "alpha", 7, -2, 0.1, "0.05", "2024-01-03"],
        [4, "beta", 10, 0, 3.0, "99.99", "2024-01-01"],
        [5, "beta", 0, 5, 0.0, "0.00", "2024-01-02"],
        [6, "beta", 15, None, None, None, "2024-01-03"],
        [7, "gamma", 1, 3, 2.675, "2.68", "2024-02-29"],
        [8, "gamma", 2, 3, -0.5, "-0.50", "2024-03-01"],
        [9, "gamma", 100, 7, 1000000.0, "12345.67", "2024-03-01"],
        [10, "delta", -1, 4, None, "1.25", "1999-12-31"],
        [11, "delta", 9, 4, 7.25, "7.25", "2000-01-01"],
    ])
    return {"name": "metrics", "tables": [readings]}


FIXTURES: dict[str, dict[str, Any]] = {
    f["name"]: f
    for f in (shop_fixture(), hr_fixture(), events_fixture(), texts_fixture(), metrics_fixture())
}

FIXTURE_NOTES = {
    "shop": "11 customers (mixed-case duplicate name, leading/trailing spaces, '' vs NULL email "
            "and city, a customer without orders, a leap-day signup), 12 products (NULL category "
            "and cost, price ties, 'Office' vs 'office', a never-ordered product), 18 orders "
            "(month/year ends, 2024-02-29, mixed-case status, NULL channel, microsecond "
            "ship timestamps), 30 order lines (a product twice in one order, identical lines)",
    "hr": "5 departments (NULL and zero budget, one without staff) and 16 employees in a "
          "four-level hierarchy (salary ties, NULL department, NULL commission, inactive staff, "
          "leap-day birth and hire dates, lower-case surname)",
    "events": "6 app users and 24 events (identical timestamps, exact duplicate events, "
              "anonymous events, timestamps at 23:59:59.999999 and .000001, JSON payloads with "
              "missing keys, a negative and a zero revenue)",
    "texts": "10 contacts (leading/double/trailing spaces, upper/lower/mixed case, accents, "
             "'' vs NULL, numeric-looking codes such as ' 7', '3.5', '007', '-12', comma "
             "separated tags, a literal '%' and '_' and a tab in notes)",
    "metrics": "11 readings (negative and zero divisors, NULL operands, exact binary rounding "
               "ties such as -2.25 and 7.25, 2.675, two-place decimals such as -3.35 and 0.05, "
               "1999-12-31 and 2024-02-29)",
}


# ------------------------------------------------------------------------------------------------
# Concepts: one idea, three hand-written dialect versions that must return the same result.
# ------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Concept:
    id: str
    description: str
    types: tuple[str, ...]  # PARROT translation types this concept exercises
    tags: tuple[str, ...]
    difficulty: str  # easy / medium / hard
    fixture: str
    sql: dict[str, str]  # dialect -> SQL text (statements separated by ';', last one returns)
    ordered: bool  # the queries have a top-level ORDER BY (checked against sqlglot's AST)
    order_key: tuple[int, ...] | None = None  # result columns of the sort key when it has ties
    expect_empty: bool = False


CONCEPTS: list[Concept] = []

TAGS = frozenset({
    # relational shape
    "join", "anti-join", "semi-join", "subquery", "cte", "recursive", "window", "grouping",
    "string-agg", "rollup", "set-op", "case", "ordering", "ordering-ties", "limit",
    # value domains
    "datetime", "timestamp", "boundary", "string", "pattern", "json", "array", "numeric",
    "integer-division", "rounding", "cast", "null", "boolean",
    # dialect mechanics
    "udf-like", "multi-statement",
})


def _sql(text: str) -> str:
    return textwrap.dedent(text).strip()


def concept(id: str, description: str, *, types: str, tags: str, difficulty: str, fixture: str,
            sqlite: str, duckdb: str, clickhouse: str, postgres: str | None = None,
            mysql: str | None = None, spark: str | None = None, ordered: bool = True,
            order_key: tuple[int, ...] | None = None, expect_empty: bool = False) -> None:
    """Register a starter concept; ``types`` and ``tags`` are space-separated words.

    A concept that also carries ``postgres``, ``mysql`` and ``spark`` SQL joins the polyglot
    dataset too (all three or none: see :func:`check_concepts`).
    """
    sql = {"sqlite": _sql(sqlite), "duckdb": _sql(duckdb), "clickhouse": _sql(clickhouse)}
    for dialect, text in (("postgres", postgres), ("mysql", mysql), ("spark", spark)):
        if text is not None:
            sql[dialect] = _sql(text)
    CONCEPTS.append(Concept(
        id=id, description=description, types=tuple(types.split()), tags=tuple(tags.split()),
        difficulty=difficulty, fixture=fixture, sql=sql,
        ordered=ordered, order_key=order_key, expect_empty=expect_empty))


# --- joins and subqueries -----------------------------------------------------------------------

concept(
    "revenue-per-customer-2024",
    "Orders and revenue per customer for non-cancelled orders placed in 2024.",
    types="function keyword", tags="join grouping datetime numeric", difficulty="medium",
    fixture="shop",
    sqlite="""
        SELECT c.id, c.name, COUNT(DISTINCT o.id) AS order_count,
               ROUND(SUM(oi.quantity * oi.unit_price), 2) AS revenue
        FROM customers AS c
        JOIN orders AS o ON o.customer_id = c.id
        JOIN order_items AS oi ON oi.order_id = o.id
        WHERE strftime('%Y', o.order_date) = '2024' AND o.status <> 'cancelled'
        GROUP BY c.id, c.name
        ORDER BY revenue DESC, c.id
    """,
    duckdb="""
        SELECT c.id, c.name, count(DISTINCT o.id) AS order_count,
               sum(oi.quantity * oi.unit_price) AS revenue
        FROM customers c
        JOIN orders o ON o.customer_id = c.id
        JOIN order_items oi ON oi.order_id = o.id
        WHERE year(o.order_date) = 2024 AND o.status <> 'cancelled'
        GROUP BY ALL
        ORDER BY revenue DESC, c.id
    """,
    clickhouse="""
        SELECT c.id, c.name, uniqExact(o.id) AS order_count,
               sum(oi.quantity * oi.unit_price) AS revenue
        FROM customers AS c
        INNER JOIN orders AS o ON o.customer_id = c.id
        INNER JOIN order_items AS oi ON oi.order_id = o.id
        WHERE toYear(o.order_date) = 2024 AND o.status != 'cancelled'
        GROUP BY c.id, c.name
        ORDER BY revenue DESC, c.id ASC
    """)

concept(
    "customers-without-active-orders",
    "Customers with no order other than cancelled ones (anti-join).",
    types="syntax keyword", tags="join anti-join subquery", difficulty="easy", fixture="shop",
    sqlite="""
        SELECT c.id, c.name
        FROM customers AS c
        WHERE NOT EXISTS (
            SELECT 1 FROM orders AS o
            WHERE o.customer_id = c.id AND o.status <> 'cancelled'
        )
        ORDER BY c.id
    """,
    duckdb="""
        SELECT c.id, c.name
        FROM customers c
        ANTI JOIN orders o ON o.customer_id = c.id AND o.status <> 'cancelled'
        ORDER BY c.id
    """,
    clickhouse="""
        SELECT c.id, c.name
        FROM customers AS c
        LEFT ANTI JOIN (SELECT customer_id FROM orders WHERE status != 'cancelled') AS o
            ON o.customer_id = c.id
        ORDER BY c.id ASC
    """)

concept(
    "kitchen-buyers-semi-join",
    "Customers who bought at least one product of the 'Kitchen' category (semi-join).",
    types="syntax keyword", tags="join semi-join subquery", difficulty="easy", fixture="shop",
    sqlite="""
        SELECT c.id, c.name
        FROM customers AS c
        WHERE c.id IN (
            SELECT o.customer_id
            FROM orders AS o
            JOIN order_items AS oi ON oi.order_id = o.id
            JOIN products AS p ON p.id = oi.product_id
            WHERE p.category = 'Kitchen'
        )
        ORDER BY c.id
    """,
    duckdb="""
        SELECT c.id, c.name
        FROM customers c
        SEMI JOIN (
            SELECT o.customer_id
            FROM orders o
            JOIN order_items oi ON oi.order_id = o.id
            JOIN products p ON p.id = oi.product_id
            WHERE p.category = 'Kitchen'
        ) k ON k.customer_id = c.id
        ORDER BY c.id
    """,
    clickhouse="""
        SELECT c.id, c.name
        FROM customers AS c
        LEFT SEMI JOIN (
            SELECT o.customer_id
            FROM orders AS o
            INNER JOIN order_items AS oi ON oi.order_id = o.id
            INNER JOIN products AS p ON p.id = oi.product_id
            WHERE p.category = 'Kitchen'
        ) AS k ON k.customer_id = c.id
        ORDER BY c.id ASC
    """)

concept(
    "product-sales-including-unsold",
    "Order lines and units sold per product, unsold products included with zeros.",
    types="function other", tags="join null grouping", difficulty="medium",
    fixture="shop",
    sqlite="""
        SELECT p.id, p.name, COUNT(oi.order_id) AS order_lines,
               IFNULL(SUM(oi.quantity), 0) AS units
        FROM products AS p
        LEFT JOIN order_items AS oi ON oi.product_id = p.id
        GROUP BY p.id, p.name
        ORDER BY units DESC, p.id
    """,
    duckdb="""
        SELECT p.id, p.name, count(oi.order_id) AS order_lines,
               coalesce(sum(oi.quantity), 0) AS units
        FROM products p
        LEFT JOIN order_items oi ON oi.product_id = p.id
        GROUP BY p.id, p.name
        ORDER BY units DESC, p.id
    """,
    clickhouse="""
        SELECT p.id, p.name, count(oi.order_id) AS order_lines,
               ifNull(sum(oi.quantity), 0) AS units
        FROM products AS p
        LEFT JOIN order_items AS oi ON oi.product_id = p.id
        GROUP BY p.id, p.name
        ORDER BY units DESC, p.id ASC
        SETTINGS join_use_nulls = 1
    """)

concept(
    "employee-with-manager-name",
    "Every employee's full name next to their manager's (NULL for the CEO).",
    types="function other", tags="join string null", difficulty="easy", fixture="hr",
    sqlite="""
        SELECT e.id,
               e.first_name || ' ' || e.last_name AS employee,
               m.first_name || ' ' || m.last_name AS manager
        FROM employees AS e
        LEFT JOIN employees AS m ON m.id = e.manager_id
        ORDER BY e.id
    """,
    duckdb="""
        SELECT e.id,
               concat(e.first_name, ' ', e.last_name) AS employee,
               m.first_name || ' ' || m.last_name AS manager
        FROM employees e
        LEFT JOIN employees m ON m.id = e.manager_id
        ORDER BY e.id
    """,
    clickhouse="""
        SELECT e.id,
               concat(e.first_name, ' ', e.last_name) AS employee,
               concat(m.first_name, ' ', m.last_name) AS manager
        FROM employees AS e
        LEFT JOIN employees AS m ON m.id = e.manager_id
        ORDER BY e.id ASC
        SETTINGS join_use_nulls = 1
    """)

concept(
    "above-department-average",
    "Employees paid more than their department's average, with the whole percent above it.",
    types="syntax keyword data_type", tags="subquery window join cast", difficulty="medium",
    fixture="hr",
    sqlite="""
        SELECT id, first_name, dept_id, salary,
               CAST(100 * (salary - dept_avg) / dept_avg AS INTEGER) AS pct_above_avg
        FROM (
            SELECT e.id, e.first_name, e.dept_id, e.salary,
                   (SELECT AVG(x.salary) FROM employees AS x WHERE x.dept_id = e.dept_id)
                       AS dept_avg
            FROM employees AS e
        )
        WHERE salary > dept_avg
        ORDER BY dept_id, salary DESC, id
    """,
    duckdb="""
        SELECT id, first_name, dept_id, salary,
               CAST(trunc(100 * (salary - avg(salary) OVER w) / avg(salary) OVER w) AS INTEGER)
                   AS pct_above_avg
        FROM employees
        WHERE dept_id IS NOT NULL
        WINDOW w AS (PARTITION BY dept_id)
        QUALIFY salary > avg(salary) OVER w
        ORDER BY dept_id, salary DESC, id
    """,
    clickhouse="""
        SELECT e.id, e.first_name, e.dept_id, e.salary,
               toInt32(100 * (toFloat64(e.salary) - a.dept_avg) / a.dept_avg) AS pct_above_avg
        FROM employees AS e
        INNER JOIN (
            SELECT dept_id, avg(salary) AS dept_avg
            FROM employees
            WHERE dept_id IS NOT NULL
            GROUP BY dept_id
        ) AS a ON a.dept_id = e.dept_id
        WHERE e.salary > a.dept_avg
        ORDER BY e.dept_id ASC, e.salary DESC, e.id ASC
    """)

concept(
    "never-referred-anyone",
    "Customers who never referred another customer (NOT IN over a column holding NULLs).",
    types="other syntax", tags="subquery anti-join null", difficulty="hard", fixture="shop",
    sqlite="""
        SELECT id, name
        FROM customers
        WHERE id NOT IN (SELECT referred_by FROM customers WHERE referred_by IS NOT NULL)
        ORDER BY id
    """,
    duckdb="""
        SELECT c.id, c.name
        FROM customers c
        ANTI JOIN customers r ON r.referred_by = c.id
        ORDER BY c.id
    """,
    clickhouse="""
        SELECT id, name
        FROM customers
        WHERE id NOT IN (SELECT referred_by FROM customers)
        ORDER BY id ASC
    """)

# --- CTEs ---------------------------------------------------------------------------------------

concept(
    "management-chain-recursive",
    "Depth and 'Ada > Grace > Alan' style management path of every employee (recursive CTE).",
    types="syntax function", tags="cte recursive string array", difficulty="hard", fixture="hr",
    sqlite="""
        WITH RECURSIVE chain(id, depth, path) AS (
            SELECT id, 0, first_name FROM employees WHERE manager_id IS NULL
            UNION ALL
            SELECT e.id, chain.depth + 1, chain.path || ' > ' || e.first_name
            FROM employees AS e
            JOIN chain ON e.manager_id = chain.id
        )
        SELECT id, depth, path FROM chain ORDER BY id
    """,
    duckdb="""
        WITH RECURSIVE chain(id, depth, names) AS (
            SELECT id, 0, [first_name] FROM employees WHERE manager_id IS NULL
            UNION ALL
            SELECT e.id, c.depth + 1, list_append(c.names, e.first_name)
            FROM employees e
            JOIN chain c ON e.manager_id = c.id
        )
        SELECT id, depth, array_to_string(names, ' > ') AS path FROM chain ORDER BY id
    """,
    clickhouse="""
        WITH RECURSIVE chain AS (
            SELECT id, 0 AS depth, [first_name] AS names
            FROM employees WHERE manager_id IS NULL
            UNION ALL
            SELECT e.id, chain.depth + 1, arrayPushBack(chain.names, e.first_name)
            FROM employees AS e
            INNER JOIN chain ON e.manager_id = chain.id
        )
        SELECT id, depth, arrayStringConcat(names, ' > ') AS path FROM chain ORDER BY id ASC
    """,
    postgres="""
        WITH RECURSIVE chain(id, depth, path) AS (
            SELECT id, 0, first_name FROM employees WHERE manager_id IS NULL
            UNION ALL
            SELECT e.id, c.depth + 1, c.path || ' > ' || e.first_name
            FROM employees e
            JOIN chain c ON e.manager_id = c.id
        )
        SELECT id, depth, path FROM chain ORDER BY id
    """,
    mysql="""
        WITH RECURSIVE chain (id, depth, path) AS (
            SELECT id, 0, CAST(first_name AS CHAR(200))
            FROM employees WHERE manager_id IS NULL
            UNION ALL
            SELECT e.id, c.depth + 1, CONCAT(c.path, ' > ', e.first_name)
            FROM employees AS e
            JOIN chain AS c ON e.manager_id = c.id
        )
        SELECT id, depth, path FROM chain ORDER BY id
    """,
    spark="""
        WITH RECURSIVE chain(id, depth, path) AS (
            SELECT id, 0, first_name FROM employees WHERE manager_id IS NULL
            UNION ALL
            SELECT e.id, c.depth + 1, concat(c.path, ' > ', e.first_name)
            FROM employees e
            JOIN chain c ON e.manager_id = c.id
        )
        SELECT id, depth, path FROM chain ORDER BY id
    """)

concept(
    "calendar-days-with-order-counts",
    "Orders placed on each calendar day around New Year 2024, days without orders included.",
    types="function syntax", tags="cte recursive datetime join", difficulty="hard",
    fixture="shop",
    sqlite="""
        WITH RECURSIVE days(day) AS (
            SELECT '2023-12-29'
            UNION ALL
            SELECT date(day, '+1 day') FROM days WHERE day < '2024-01-02'
        )
        SELECT days.day, COUNT(o.id) AS orders_placed
        FROM days
        LEFT JOIN orders AS o ON o.order_date = days.day
        GROUP BY days.day
        ORDER BY days.day
    """,
    duckdb="""
        SELECT CAST(d.day AS DATE) AS day, count(o.id) AS orders_placed
        FROM range(DATE '2023-12-29', DATE '2024-01-03', INTERVAL 1 DAY) AS d(day)
        LEFT JOIN orders o ON o.order_date = CAST(d.day AS DATE)
        GROUP BY 1
        ORDER BY 1
    """,
    clickhouse="""
        SELECT d.day, ifNull(o.n, 0) AS orders_placed
        FROM (SELECT toDate32('2023-12-29') + number AS day FROM numbers(5)) AS d
        LEFT JOIN (SELECT order_date, count() AS n FROM orders GROUP BY order_date) AS o
            ON o.order_date = d.day
        ORDER BY d.day ASC
    """,
    postgres="""
        SELECT CAST(g.day AS DATE) AS day, count(o.id) AS orders_placed
        FROM generate_series(DATE '2023-12-29', DATE '2024-01-02', INTERVAL '1 day')
            AS g(day)
        LEFT JOIN orders o ON o.order_date = CAST(g.day AS DATE)
        GROUP BY 1
        ORDER BY 1
    """,
    mysql="""
        WITH RECURSIVE days (day) AS (
            SELECT DATE '2023-12-29'
            UNION ALL
            SELECT day + INTERVAL 1 DAY FROM days WHERE day < DATE '2024-01-02'
        )
        SELECT days.day, COUNT(o.id) AS orders_placed
        FROM days
        LEFT JOIN orders AS o ON o.order_date = days.day
        GROUP BY days.day
        ORDER BY days.day
    """,
    spark="""
        SELECT d.day, count(o.id) AS orders_placed
        FROM (SELECT explode(sequence(DATE '2023-12-29', DATE '2024-01-02',
                                      INTERVAL 1 DAY)) AS day) d
        LEFT JOIN orders o ON o.order_date = d.day
        GROUP BY d.day
        ORDER BY d.day
    """)

concept(
    "order-value-temp-view",
    "Average order value per status through a helper view created first (multi-statement).",
    types="syntax udf", tags="udf-like multi-statement cte grouping", difficulty="medium",
    fixture="shop",
    sqlite="""
        CREATE TEMP VIEW IF NOT EXISTS starter_order_value AS
            SELECT order_id, SUM(quantity * unit_price) AS order_value
            FROM order_items GROUP BY order_id;
        SELECT o.status, COUNT(*) AS orders_n, ROUND(AVG(v.order_value), 2) AS avg_value
        FROM orders AS o
        JOIN starter_order_value AS v ON v.order_id = o.id
        GROUP BY o.status
        ORDER BY o.status
    """,
    duckdb="""
        CREATE OR REPLACE TEMP VIEW starter_order_value AS
            SELECT order_id, sum(quantity * unit_price) AS order_value
            FROM order_items GROUP BY order_id;
        SELECT o.status, count(*) AS orders_n, round(avg(v.order_value), 2) AS avg_value
        FROM orders o
        JOIN starter_order_value v ON v.order_id = o.id
        GROUP BY o.status
        ORDER BY o.status
    """,
    clickhouse="""
        WITH order_value AS (
            SELECT order_id, sum(quantity * unit_price) AS total
            FROM order_items GROUP BY order_id
        )
        SELECT o.status, count() AS orders_n, round(avg(v.total), 2) AS avg_value
        FROM orders AS o
        INNER JOIN order_value AS v ON v.order_id = o.id
        GROUP BY o.status
        ORDER BY o.status ASC
    """)

# --- window functions ---------------------------------------------------------------------------

concept(
    "top-two-earners-per-department",
    "The two best-paid employees of every department (salary ties broken by id).",
    types="keyword syntax", tags="window ordering", difficulty="medium", fixture="hr",
    sqlite="""
        SELECT dept_id, id, first_name, salary
        FROM (
            SELECT dept_id, id, first_name, salary,
                   ROW_NUMBER() OVER (PARTITION BY dept_id ORDER BY salary DESC, id) AS rn
            FROM employees
            WHERE dept_id IS NOT NULL
        )
        WHERE rn <= 2
        ORDER BY dept_id, salary DESC, id
    """,
    duckdb="""
        SELECT dept_id, id, first_name, salary
        FROM employees
        WHERE dept_id IS NOT NULL
        QUALIFY row_number() OVER (PARTITION BY dept_id ORDER BY salary DESC, id) <= 2
        ORDER BY dept_id, salary DESC, id
    """,
    clickhouse="""
        SELECT dept_id, id, first_name, salary
        FROM employees
        WHERE dept_id IS NOT NULL
        ORDER BY dept_id ASC, salary DESC, id ASC
        LIMIT 2 BY dept_id
    """)

concept(
    "salary-rank-with-ties",
    "RANK and DENSE_RANK of salaries per department, ordered by department (NULL first) and rank.",
    types="function other", tags="window ordering-ties null", difficulty="medium",
    fixture="hr", order_key=(1, 3),
    sqlite="""
        SELECT id, dept_id, salary,
               RANK() OVER (PARTITION BY dept_id ORDER BY salary DESC) AS salary_rank,
               DENSE_RANK() OVER (PARTITION BY dept_id ORDER BY salary DESC) AS salary_dense_rank
        FROM employees
        ORDER BY dept_id, salary_rank
    """,
    duckdb="""
        SELECT id, dept_id, salary,
               rank() OVER w AS salary_rank,
               dense_rank() OVER w AS salary_dense_rank
        FROM employees
        WINDOW w AS (PARTITION BY dept_id ORDER BY salary DESC)
        ORDER BY dept_id NULLS FIRST, salary_rank
    """,
    clickhouse="""
        SELECT id, dept_id, salary,
               rank() OVER (PARTITION BY dept_id ORDER BY salary DESC) AS salary_rank,
               dense_rank() OVER (PARTITION BY dept_id ORDER BY salary DESC) AS salary_dense_rank
        FROM employees
        ORDER BY dept_id ASC NULLS FIRST, salary_rank ASC
    """,
    postgres="""
        SELECT id, dept_id, salary,
               rank() OVER w AS salary_rank,
               dense_rank() OVER w AS salary_dense_rank
        FROM employees
        WINDOW w AS (PARTITION BY dept_id ORDER BY salary DESC)
        ORDER BY dept_id NULLS FIRST, salary_rank
    """,
    mysql="""
        SELECT id, dept_id, salary,
               RANK() OVER w AS salary_rank,
               DENSE_RANK() OVER w AS salary_dense_rank
        FROM employees
        WINDOW w AS (PARTITION BY dept_id ORDER BY salary DESC)
        ORDER BY dept_id, salary_rank
    """,
    spark="""
        SELECT id, dept_id, salary,
               rank() OVER (PARTITION BY dept_id ORDER BY salary DESC) AS salary_rank,
               dense_rank() OVER (PARTITION BY dept_id ORDER BY salary DESC)
                   AS salary_dense_rank
        FROM employees
        ORDER BY dept_id ASC NULLS FIRST, salary_rank ASC
    """)

concept(
    "running-total-per-customer",
    "Each order's value and the customer's running total in date order.",
    types="syntax function", tags="window cte numeric", difficulty="medium", fixture="shop",
    sqlite="""
        WITH order_totals AS (
            SELECT o.customer_id, o.id, o.order_date, SUM(oi.quantity * oi.unit_price) AS total
            FROM orders AS o
            JOIN order_items AS oi ON oi.order_id = o.id
            GROUP BY o.customer_id, o.id, o.order_date
        )
        SELECT customer_id, id, order_date, ROUND(total, 2) AS total,
               ROUND(SUM(total) OVER (PARTITION BY customer_id ORDER BY order_date, id
                                      ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW), 2)
                   AS running_total
        FROM order_totals
        ORDER BY customer_id, order_date, id
    """,
    duckdb="""
        WITH order_totals AS (
            SELECT o.customer_id, o.id, o.order_date, sum(oi.quantity * oi.unit_price) AS total
            FROM orders o
            JOIN order_items oi ON oi.order_id = o.id
            GROUP BY ALL
        )
        SELECT customer_id, id, order_date, total,
               sum(total) OVER (PARTITION BY customer_id ORDER BY order_date, id
                                ROWS UNBOUNDED PRECEDING) AS running_total
        FROM order_totals
        ORDER BY customer_id, order_date, id
    """,
    clickhouse="""
        SELECT o.customer_id, o.id, o.order_date, sum(oi.quantity * oi.unit_price) AS total,
               sum(total) OVER (PARTITION BY o.customer_id ORDER BY o.order_date ASC, o.id ASC
                                ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS running_total
        FROM orders AS o
        INNER JOIN order_items AS oi ON oi.order_id = o.id
        GROUP BY o.customer_id, o.id, o.order_date
        ORDER BY o.customer_id ASC, o.order_date ASC, o.id ASC
    """)

concept(
    "days-since-previous-order",
    "Days between each order and the same customer's previous order (NULL for the first).",
    types="function other", tags="window datetime null", difficulty="hard", fixture="shop",
    sqlite="""
        SELECT customer_id, id, order_date,
               CAST(julianday(order_date)
                    - julianday(LAG(order_date) OVER (PARTITION BY customer_id
                                                      ORDER BY order_date, id)) AS INTEGER)
                   AS days_since_prev
        FROM orders
        ORDER BY customer_id, order_date, id
    """,
    duckdb="""
        SELECT customer_id, id, order_date,
               order_date - lag(order_date) OVER (PARTITION BY customer_id
                                                  ORDER BY order_date, id) AS days_since_prev
        FROM orders
        ORDER BY customer_id, order_date, id
    """,
    clickhouse="""
        SELECT customer_id, id, order_date,
               dateDiff('day',
                        lagInFrame(toNullable(order_date)) OVER (
                            PARTITION BY customer_id ORDER BY order_date ASC, id ASC
                            ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW),
                        order_date) AS days_since_prev
        FROM orders
        ORDER BY customer_id ASC, order_date ASC, id ASC
    """,
    postgres="""
        SELECT customer_id, id, order_date,
               order_date - lag(order_date) OVER (PARTITION BY customer_id
                                                  ORDER BY order_date, id) AS days_since_prev
        FROM orders
        ORDER BY customer_id, order_date, id
    """,
    mysql="""
        SELECT customer_id, id, order_date,
               DATEDIFF(order_date, LAG(order_date) OVER (PARTITION BY customer_id
                                                          ORDER BY order_date, id))
                   AS days_since_prev
        FROM orders
        ORDER BY customer_id, order_date, id
    """,
    spark="""
        SELECT customer_id, id, order_date,
               datediff(order_date, lag(order_date) OVER (PARTITION BY customer_id
                                                          ORDER BY order_date, id))
                   AS days_since_prev
        FROM orders
        ORDER BY customer_id, order_date, id
    """)

concept(
    "two-day-moving-average",
    "Per sensor, the average of all readings of the same and the previous calendar day.",
    types="syntax function", tags="window datetime numeric null rounding",
    difficulty="hard", fixture="metrics",
    sqlite="""
        SELECT sensor, id, reading_date, x,
               ROUND(AVG(x) OVER (PARTITION BY sensor ORDER BY julianday(reading_date)
                                  RANGE BETWEEN 1 PRECEDING AND CURRENT ROW), 3) AS avg_two_days
        FROM readings
        ORDER BY sensor, reading_date, id
    """,
    duckdb="""
        SELECT sensor, id, reading_date, x,
               round(avg(x) OVER (PARTITION BY sensor ORDER BY reading_date
                                  RANGE BETWEEN INTERVAL 1 DAY PRECEDING AND CURRENT ROW), 3)
                   AS avg_two_days
        FROM readings
        ORDER BY sensor, reading_date, id
    """,
    clickhouse="""
        SELECT sensor, id, reading_date, x,
               round(avg(x) OVER (PARTITION BY sensor ORDER BY reading_date ASC
                                  RANGE BETWEEN 1 PRECEDING AND CURRENT ROW), 3) AS avg_two_days
        FROM readings
        ORDER BY sensor ASC, reading_date ASC, id ASC
    """)

concept(
    "first-and-last-event-per-user",
    "Per user (anonymous events grouped under NULL, last), the first and last event type.",
    types="function syntax", tags="window grouping null ordering", difficulty="medium",
    fixture="events",
    sqlite="""
        SELECT DISTINCT user_id,
               FIRST_VALUE(event_type) OVER w AS first_event,
               LAST_VALUE(event_type) OVER w AS last_event,
               COUNT(*) OVER (PARTITION BY user_id) AS events_n
        FROM events
        WINDOW w AS (PARTITION BY user_id ORDER BY event_ts, id
                     ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)
        ORDER BY user_id NULLS LAST
    """,
    duckdb="""
        SELECT user_id,
               arg_min(event_type, event_ts) AS first_event,
               arg_max(event_type, event_ts) AS last_event,
               count(*) AS events_n
        FROM events
        GROUP BY user_id
        ORDER BY user_id
    """,
    clickhouse="""
        SELECT user_id,
               argMin(event_type, (event_ts, id)) AS first_event,
               argMax(event_type, (event_ts, id)) AS last_event,
               count() AS events_n
        FROM events
        GROUP BY user_id
        ORDER BY user_id ASC
    """)

concept(
    "sessionize-user-events",
    "Session number per user event: a new session starts after more than 30 minutes idle.",
    types="function syntax", tags="window datetime cte", difficulty="hard", fixture="events",
    sqlite="""
        WITH marked AS (
            SELECT user_id, id, event_ts,
                   CASE WHEN LAG(event_ts) OVER w IS NULL
                          OR (julianday(event_ts) - julianday(LAG(event_ts) OVER w)) * 86400 > 1800
                        THEN 1 ELSE 0 END AS new_session
            FROM events
            WHERE user_id IS NOT NULL
            WINDOW w AS (PARTITION BY user_id ORDER BY event_ts, id)
        )
        SELECT user_id, id,
               SUM(new_session) OVER (PARTITION BY user_id ORDER BY event_ts, id
                                      ROWS UNBOUNDED PRECEDING) AS session_no
        FROM marked
        ORDER BY user_id, event_ts, id
    """,
    duckdb="""
        WITH marked AS (
            SELECT user_id, id, event_ts,
                   CASE WHEN lag(event_ts) OVER w IS NULL
                          OR event_ts - lag(event_ts) OVER w > INTERVAL 30 MINUTE
                        THEN 1 ELSE 0 END AS new_session
            FROM events
            WHERE user_id IS NOT NULL
            WINDOW w AS (PARTITION BY user_id ORDER BY event_ts, id)
        )
        SELECT user_id, id,
               sum(new_session) OVER (PARTITION BY user_id ORDER BY event_ts, id
                                      ROWS UNBOUNDED PRECEDING) AS session_no
        FROM marked
        ORDER BY user_id, event_ts, id
    """,
    clickhouse="""
        WITH marked AS (
            SELECT user_id, id, event_ts,
                   if(isNull(prev_ts) OR dateDiff('second', prev_ts, event_ts) > 1800, 1, 0)
                       AS new_session
            FROM (
                SELECT user_id, id, event_ts,
                       lagInFrame(toNullable(event_ts)) OVER (
                           PARTITION BY user_id ORDER BY event_ts ASC, id ASC
                           ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS prev_ts
                FROM events
                WHERE user_id IS NOT NULL
            )
        )
        SELECT user_id, id,
               sum(new_session) OVER (PARTITION BY user_id ORDER BY event_ts ASC, id ASC
                                      ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
                   AS session_no
        FROM marked
        ORDER BY user_id ASC, event_ts ASC, id ASC
    """)

concept(
    "channel-changes-null-safe",
    "Orders whose sales channel differs from the customer's previous order, NULL included.",
    types="keyword other", tags="window null cte", difficulty="hard",
    fixture="shop",
    sqlite="""
        WITH seq AS (
            SELECT customer_id, id, channel,
                   LAG(channel) OVER (PARTITION BY customer_id ORDER BY order_date, id)
                       AS prev_channel,
                   ROW_NUMBER() OVER (PARTITION BY customer_id ORDER BY order_date, id) AS n
            FROM orders
        )
        SELECT customer_id, id, prev_channel, channel
        FROM seq
        WHERE n > 1 AND channel IS NOT prev_channel
        ORDER BY customer_id, id
    """,
    duckdb="""
        WITH seq AS (
            SELECT customer_id, id, channel,
                   lag(channel) OVER w AS prev_channel,
                   row_number() OVER w AS n
            FROM orders
            WINDOW w AS (PARTITION BY customer_id ORDER BY order_date, id)
        )
        SELECT customer_id, id, prev_channel, channel
        FROM seq
        WHERE n > 1 AND channel IS DISTINCT FROM prev_channel
        ORDER BY customer_id, id
    """,
    clickhouse="""
        SELECT customer_id, id, prev_channel, channel
        FROM (
            SELECT customer_id, id, channel,
                   lagInFrame(channel) OVER w AS prev_channel,
                   row_number() OVER w AS n
            FROM orders
            WINDOW w AS (PARTITION BY customer_id ORDER BY order_date ASC, id ASC
                         ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
        )
        WHERE n > 1 AND isDistinctFrom(channel, prev_channel)
        ORDER BY customer_id ASC, id ASC
    """)

concept(
    "quarterly-revenue-growth",
    "Revenue per calendar quarter and its change against the previous quarter in percent.",
    types="function", tags="window datetime numeric cte", difficulty="hard", fixture="shop",
    sqlite="""
        WITH q AS (
            SELECT strftime('%Y', o.order_date) || '-Q'
                       || ((CAST(strftime('%m', o.order_date) AS INTEGER) + 2) / 3) AS quarter,
                   SUM(oi.quantity * oi.unit_price) AS revenue
            FROM orders AS o
            JOIN order_items AS oi ON oi.order_id = o.id
            WHERE o.status <> 'cancelled'
            GROUP BY quarter
        )
        SELECT quarter, ROUND(revenue, 2) AS revenue,
               ROUND(100.0 * (revenue - LAG(revenue) OVER (ORDER BY quarter))
                     / LAG(revenue) OVER (ORDER BY quarter), 1) AS pct_change
        FROM q
        ORDER BY quarter
    """,
    duckdb="""
        WITH q AS (
            SELECT year(o.order_date) || '-Q' || quarter(o.order_date) AS quarter,
                   sum(oi.quantity * oi.unit_price) AS revenue
            FROM orders o
            JOIN order_items oi ON oi.order_id = o.id
            WHERE o.status <> 'cancelled'
            GROUP BY 1
        )
        SELECT quarter, revenue,
               round(100 * (revenue - lag(revenue) OVER (ORDER BY quarter))
                     / lag(revenue) OVER (ORDER BY quarter), 1) AS pct_change
        FROM q
        ORDER BY quarter
    """,
    clickhouse="""
        SELECT quarter, revenue,
               round(100 * toFloat64(revenue - prev) / toFloat64(prev), 1) AS pct_change
        FROM (
            SELECT quarter, revenue,
                   lagInFrame(toNullable(revenue)) OVER (ORDER BY quarter ASC
                       ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS prev
            FROM (
                SELECT concat(toString(toYear(o.order_date)), '-Q',
                              toString(toQuarter(o.order_date))) AS quarter,
                       sum(oi.quantity * oi.unit_price) AS revenue
                FROM orders AS o
                INNER JOIN order_items AS oi ON oi.order_id = o.id
                WHERE o.status != 'cancelled'
                GROUP BY quarter
            )
        )
        ORDER BY quarter ASC
    """)

# --- date and time ------------------------------------------------------------------------------

concept(
    "monthly-revenue-2024",
    "Orders and revenue per month of 2024 (non-cancelled), keyed by the month's first day.",
    types="function", tags="datetime grouping", difficulty="medium", fixture="shop",
    sqlite="""
        SELECT date(o.order_date, 'start of month') AS month_start,
               COUNT(DISTINCT o.id) AS order_count,
               ROUND(SUM(oi.quantity * oi.unit_price), 2) AS revenue
        FROM orders AS o
        JOIN order_items AS oi ON oi.order_id = o.id
        WHERE o.order_date >= '2024-01-01' AND o.order_date < '2025-01-01'
          AND o.status <> 'cancelled'
        GROUP BY month_start
        ORDER BY month_start
    """,
    duckdb="""
        SELECT CAST(date_trunc('month', o.order_date) AS DATE) AS month_start,
               count(DISTINCT o.id) AS order_count,
               sum(oi.quantity * oi.unit_price) AS revenue
        FROM orders o
        JOIN order_items oi ON oi.order_id = o.id
        WHERE o.order_date BETWEEN DATE '2024-01-01' AND DATE '2024-12-31'
          AND o.status <> 'cancelled'
        GROUP BY 1
        ORDER BY 1
    """,
    clickhouse="""
        SELECT toStartOfMonth(o.order_date) AS month_start,
               uniqExact(o.id) AS order_count,
               sum(oi.quantity * oi.unit_price) AS revenue
        FROM orders AS o
        INNER JOIN order_items AS oi ON oi.order_id = o.id
        WHERE toYear(o.order_date) = 2024 AND o.status != 'cancelled'
        GROUP BY month_start
        ORDER BY month_start ASC
    """,
    postgres="""
        SELECT CAST(date_trunc('month', o.order_date) AS DATE) AS month_start,
               count(DISTINCT o.id) AS order_count,
               sum(oi.quantity * oi.unit_price) AS revenue
        FROM orders o
        JOIN order_items oi ON oi.order_id = o.id
        WHERE o.order_date >= DATE '2024-01-01' AND o.order_date < DATE '2025-01-01'
          AND o.status <> 'cancelled'
        GROUP BY 1
        ORDER BY 1
    """,
    mysql="""
        SELECT CAST(DATE_FORMAT(o.order_date, '%Y-%m-01') AS DATE) AS month_start,
               COUNT(DISTINCT o.id) AS order_count,
               SUM(oi.quantity * oi.unit_price) AS revenue
        FROM orders AS o
        JOIN order_items AS oi ON oi.order_id = o.id
        WHERE YEAR(o.order_date) = 2024 AND o.status <> 'cancelled'
        GROUP BY month_start
        ORDER BY month_start
    """,
    spark="""
        SELECT trunc(o.order_date, 'MM') AS month_start,
               count(DISTINCT o.id) AS order_count,
               sum(oi.quantity * oi.unit_price) AS revenue
        FROM orders o
        JOIN order_items oi ON oi.order_id = o.id
        WHERE year(o.order_date) = 2024 AND o.status <> 'cancelled'
        GROUP BY trunc(o.order_date, 'MM')
        ORDER BY month_start
    """)

concept(
    "order-date-parts",
    "Year, month, quarter, day of year and weekday (Sunday = 0) of every order date.",
    types="function data_type", tags="datetime cast", difficulty="medium",
    fixture="shop",
    sqlite="""
        SELECT id,
               CAST(strftime('%Y', order_date) AS INTEGER) AS yr,
               CAST(strftime('%m', order_date) AS INTEGER) AS mon,
               (CAST(strftime('%m', order_date) AS INTEGER) + 2) / 3 AS qtr,
               CAST(strftime('%j', order_date) AS INTEGER) AS day_of_year,
               CAST(strftime('%w', order_date) AS INTEGER) AS weekday_sun0
        FROM orders
        ORDER BY id
    """,
    duckdb="""
        SELECT id, year(order_date) AS yr, month(order_date) AS mon, quarter(order_date) AS qtr,
               dayofyear(order_date) AS day_of_year, dayofweek(order_date) AS weekday_sun0
        FROM orders
        ORDER BY id
    """,
    clickhouse="""
        SELECT id, toYear(order_date) AS yr, toMonth(order_date) AS mon,
               toQuarter(order_date) AS qtr, toDayOfYear(order_date) AS day_of_year,
               toDayOfWeek(order_date) % 7 AS weekday_sun0
        FROM orders
        ORDER BY id ASC
    """,
    postgres="""
        SELECT id,
               CAST(EXTRACT(YEAR FROM order_date) AS INTEGER) AS yr,
               CAST(EXTRACT(MONTH FROM order_date) AS INTEGER) AS mon,
               CAST(EXTRACT(QUARTER FROM order_date) AS INTEGER) AS qtr,
               CAST(EXTRACT(DOY FROM order_date) AS INTEGER) AS day_of_year,
               CAST(EXTRACT(DOW FROM order_date) AS INTEGER) AS weekday_sun0
        FROM orders
        ORDER BY id
    """,
    mysql="""
        SELECT id, YEAR(order_date) AS yr, MONTH(order_date) AS mon,
               QUARTER(order_date) AS qtr, DAYOFYEAR(order_date) AS day_of_year,
               DAYOFWEEK(order_date) - 1 AS weekday_sun0
        FROM orders
        ORDER BY id
    """,
    spark="""
        SELECT id, year(order_date) AS yr, month(order_date) AS mon,
               quarter(order_date) AS qtr, dayofyear(order_date) AS day_of_year,
               dayofweek(order_date) - 1 AS weekday_sun0
        FROM orders
        ORDER BY id
    """)

concept(
    "due-dates-month-arithmetic",
    "One calendar month after each order (clamped to the month's last day) and 30 days after.",
    types="function", tags="datetime boundary", difficulty="hard",
    fixture="shop",
    sqlite="""
        SELECT id, order_date,
               MIN(date(order_date, '+1 month'),
                   date(order_date, 'start of month', '+2 months', '-1 day')) AS due_next_month,
               date(order_date, '+30 days') AS due_in_30_days
        FROM orders
        ORDER BY id
    """,
    duckdb="""
        SELECT id, order_date,
               CAST(order_date + INTERVAL 1 MONTH AS DATE) AS due_next_month,
               order_date + 30 AS due_in_30_days
        FROM orders
        ORDER BY id
    """,
    clickhouse="""
        SELECT id, order_date,
               addMonths(order_date, 1) AS due_next_month,
               addDays(order_date, 30) AS due_in_30_days
        FROM orders
        ORDER BY id ASC
    """,
    postgres="""
        SELECT id, order_date,
               CAST(order_date + INTERVAL '1 month' AS DATE) AS due_next_month,
               order_date + 30 AS due_in_30_days
        FROM orders
        ORDER BY id
    """,
    mysql="""
        SELECT id, order_date,
               DATE_ADD(order_date, INTERVAL 1 MONTH) AS due_next_month,
               DATE_ADD(order_date, INTERVAL 30 DAY) AS due_in_30_days
        FROM orders
        ORDER BY id
    """,
    spark="""
        SELECT id, order_date,
               add_months(order_date, 1) AS due_next_month,
               date_add(order_date, 30) AS due_in_30_days
        FROM orders
        ORDER BY id
    """)

concept(
    "shipping-lead-time-days",
    "Calendar day of shipping and whole days from order to shipping (NULL when not shipped).",
    types="function data_type", tags="datetime timestamp cast null", difficulty="medium",
    fixture="shop",
    sqlite="""
        SELECT id, order_date, date(shipped_at) AS ship_day,
               CAST(julianday(date(shipped_at)) - julianday(order_date) AS INTEGER)
                   AS days_to_ship
        FROM orders
        ORDER BY id
    """,
    duckdb="""
        SELECT id, order_date, shipped_at::DATE AS ship_day,
               date_diff('day', order_date, shipped_at::DATE) AS days_to_ship
        FROM orders
        ORDER BY id
    """,
    clickhouse="""
        SELECT id, order_date, toDate(shipped_at) AS ship_day,
               dateDiff('day', order_date, toDate(shipped_at)) AS days_to_ship
        FROM orders
        ORDER BY id ASC
    """,
    postgres="""
        SELECT id, order_date, CAST(shipped_at AS DATE) AS ship_day,
               CAST(shipped_at AS DATE) - order_date AS days_to_ship
        FROM orders
        ORDER BY id
    """,
    mysql="""
        SELECT id, order_date, CAST(shipped_at AS DATE) AS ship_day,
               DATEDIFF(shipped_at, order_date) AS days_to_ship
        FROM orders
        ORDER BY id
    """,
    spark="""
        SELECT id, order_date, to_date(shipped_at) AS ship_day,
               datediff(to_date(shipped_at), order_date) AS days_to_ship
        FROM orders
        ORDER BY id
    """)

concept(
    "event-timestamps-to-microseconds",
    "Every event timestamp as text with six fractional digits, plus its microsecond part.",
    types="function data_type", tags="datetime timestamp string", difficulty="hard",
    fixture="events",
    sqlite="""
        SELECT id,
               substr(event_ts, 1, 19) || '.' || substr(substr(event_ts, 21) || '000000', 1, 6)
                   AS ts_text,
               CAST(substr(substr(event_ts, 21) || '000000', 1, 6) AS INTEGER) AS micros
        FROM events
        ORDER BY id
    """,
    duckdb="""
        SELECT id, strftime(event_ts, '%Y-%m-%d %H:%M:%S.%f') AS ts_text,
               microsecond(event_ts) % 1000000 AS micros
        FROM events
        ORDER BY id
    """,
    clickhouse="""
        SELECT id, formatDateTime(event_ts, '%Y-%m-%d %H:%i:%S.%f') AS ts_text,
               toUnixTimestamp64Micro(event_ts) % 1000000 AS micros
        FROM events
        ORDER BY id ASC
    """,
    postgres="""
        SELECT id, to_char(event_ts, 'YYYY-MM-DD HH24:MI:SS.US') AS ts_text,
               CAST(EXTRACT(MICROSECONDS FROM event_ts) AS INTEGER) % 1000000 AS micros
        FROM events
        ORDER BY id
    """,
    mysql="""
        SELECT id, DATE_FORMAT(event_ts, '%Y-%m-%d %H:%i:%s.%f') AS ts_text,
               MICROSECOND(event_ts) AS micros
        FROM events
        ORDER BY id
    """,
    spark="""
        SELECT id, date_format(event_ts, 'yyyy-MM-dd HH:mm:ss.SSSSSS') AS ts_text,
               CAST(date_format(event_ts, 'SSSSSS') AS INT) AS micros
        FROM events
        ORDER BY id
    """)

concept(
    "events-per-hour",
    "Events and distinct known users per hour, keyed by the start of the hour.",
    types="function", tags="datetime timestamp grouping null", difficulty="medium",
    fixture="events",
    sqlite="""
        SELECT strftime('%Y-%m-%d %H:00:00', event_ts) AS hour_start,
               COUNT(*) AS events_n, COUNT(DISTINCT user_id) AS users_n
        FROM events
        GROUP BY hour_start
        ORDER BY hour_start
    """,
    duckdb="""
        SELECT date_trunc('hour', event_ts) AS hour_start,
               count(*) AS events_n, count(DISTINCT user_id) AS users_n
        FROM events
        GROUP BY hour_start
        ORDER BY hour_start
    """,
    clickhouse="""
        SELECT toStartOfHour(event_ts) AS hour_start,
               count() AS events_n, uniqExact(user_id) AS users_n
        FROM events
        GROUP BY hour_start
        ORDER BY hour_start ASC
    """)

concept(
    "signup-date-formatting",
    "Signup dates as DD/MM/YYYY and as abbreviated month name plus year.",
    types="function", tags="datetime string", difficulty="easy", fixture="shop",
    sqlite="""
        SELECT id,
               strftime('%d/%m/%Y', signup_date) AS signup_eu,
               substr('JanFebMarAprMayJunJulAugSepOctNovDec',
                      3 * CAST(strftime('%m', signup_date) AS INTEGER) - 2, 3)
                   || ' ' || strftime('%Y', signup_date) AS signup_month
        FROM customers
        ORDER BY id
    """,
    duckdb="""
        SELECT id, strftime(signup_date, '%d/%m/%Y') AS signup_eu,
               strftime(signup_date, '%b %Y') AS signup_month
        FROM customers
        ORDER BY id
    """,
    clickhouse="""
        SELECT id, formatDateTime(signup_date, '%d/%m/%Y') AS signup_eu,
               formatDateTime(signup_date, '%b %Y') AS signup_month
        FROM customers
        ORDER BY id ASC
    """,
    postgres="""
        SELECT id, to_char(signup_date, 'DD/MM/YYYY') AS signup_eu,
               to_char(signup_date, 'Mon YYYY') AS signup_month
        FROM customers
        ORDER BY id
    """,
    mysql="""
        SELECT id, DATE_FORMAT(signup_date, '%d/%m/%Y') AS signup_eu,
               DATE_FORMAT(signup_date, '%b %Y') AS signup_month
        FROM customers
        ORDER BY id
    """,
    spark="""
        SELECT id, date_format(signup_date, 'dd/MM/yyyy') AS signup_eu,
               date_format(signup_date, 'MMM yyyy') AS signup_month
        FROM customers
        ORDER BY id
    """)

concept(
    "events-on-new-years-day",
    "Events that happened on 2024-01-01 (a whole calendar day of microsecond timestamps).",
    types="data_type function", tags="datetime timestamp boundary", difficulty="medium",
    fixture="events",
    sqlite="""
        SELECT id, event_type, event_ts
        FROM events
        WHERE event_ts >= '2024-01-01' AND event_ts < '2024-01-02'
        ORDER BY event_ts, id
    """,
    duckdb="""
        SELECT id, event_type, event_ts
        FROM events
        WHERE event_ts >= TIMESTAMP '2024-01-01 00:00:00'
          AND event_ts < TIMESTAMP '2024-01-02 00:00:00'
        ORDER BY event_ts, id
    """,
    clickhouse="""
        SELECT id, event_type, event_ts
        FROM events
        WHERE toDate(event_ts) = toDate('2024-01-01')
        ORDER BY event_ts ASC, id ASC
    """)

concept(
    "orders-by-weekday",
    "Number of orders per weekday, with the weekday's English name, Sunday first.",
    types="function", tags="datetime grouping string case", difficulty="medium", fixture="shop",
    sqlite="""
        SELECT CAST(strftime('%w', order_date) AS INTEGER) AS dow,
               CASE strftime('%w', order_date)
                   WHEN '0' THEN 'Sunday' WHEN '1' THEN 'Monday' WHEN '2' THEN 'Tuesday'
                   WHEN '3' THEN 'Wednesday' WHEN '4' THEN 'Thursday' WHEN '5' THEN 'Friday'
                   ELSE 'Saturday' END AS day_name,
               COUNT(*) AS orders_n
        FROM orders
        GROUP BY dow, day_name
        ORDER BY dow
    """,
    duckdb="""
        SELECT dayofweek(order_date) AS dow, dayname(order_date) AS day_name,
               count(*) AS orders_n
        FROM orders
        GROUP BY ALL
        ORDER BY dow
    """,
    clickhouse="""
        SELECT toDayOfWeek(order_date, 2) AS dow, dateName('weekday', order_date) AS day_name,
               count() AS orders_n
        FROM orders
        GROUP BY dow, day_name
        ORDER BY dow ASC
    """)

concept(
    "age-on-leap-year-date",
    "Employees' age in completed years on 2024-02-28 (a 29 February birthday is not yet due).",
    types="function", tags="datetime boundary null", difficulty="hard",
    fixture="hr",
    sqlite="""
        SELECT id, birth_date,
               2024 - CAST(strftime('%Y', birth_date) AS INTEGER)
                   - (strftime('%m-%d', birth_date) > '02-28') AS age_years
        FROM employees
        ORDER BY id
    """,
    duckdb="""
        SELECT id, birth_date, date_sub('year', birth_date, DATE '2024-02-28') AS age_years
        FROM employees
        ORDER BY id
    """,
    clickhouse="""
        SELECT id, birth_date, age('year', birth_date, toDate32('2024-02-28')) AS age_years
        FROM employees
        ORDER BY id ASC
    """,
    postgres="""
        SELECT id, birth_date,
               CAST(EXTRACT(YEAR FROM age(DATE '2024-02-28', birth_date)) AS INTEGER)
                   AS age_years
        FROM employees
        ORDER BY id
    """,
    mysql="""
        SELECT id, birth_date, TIMESTAMPDIFF(YEAR, birth_date, DATE '2024-02-28') AS age_years
        FROM employees
        ORDER BY id
    """,
    spark="""
        SELECT id, birth_date,
               CAST(floor(months_between(DATE '2024-02-28', birth_date) / 12) AS INT)
                   AS age_years
        FROM employees
        ORDER BY id
    """)

concept(
    "tenure-in-month-boundaries",
    "Calendar-month boundaries crossed between hire date and 2024-12-31, per employee.",
    types="function", tags="datetime", difficulty="medium", fixture="hr",
    sqlite="""
        SELECT id, hire_date,
               (2024 - CAST(strftime('%Y', hire_date) AS INTEGER)) * 12
                   + 12 - CAST(strftime('%m', hire_date) AS INTEGER) AS months_employed
        FROM employees
        ORDER BY hire_date, id
    """,
    duckdb="""
        SELECT id, hire_date, date_diff('month', hire_date, DATE '2024-12-31') AS months_employed
        FROM employees
        ORDER BY hire_date, id
    """,
    clickhouse="""
        SELECT id, hire_date,
               dateDiff('month', hire_date, toDate32('2024-12-31')) AS months_employed
        FROM employees
        ORDER BY hire_date ASC, id ASC
    """)

concept(
    "latest-activity-date",
    "Per order, the later of the order date and the shipping day (shipping day may be NULL).",
    types="function other", tags="datetime null", difficulty="medium", fixture="shop",
    sqlite="""
        SELECT id, MAX(order_date, COALESCE(date(shipped_at), order_date)) AS last_activity
        FROM orders
        ORDER BY id
    """,
    duckdb="""
        SELECT id, greatest(order_date, CAST(shipped_at AS DATE)) AS last_activity
        FROM orders
        ORDER BY id
    """,
    clickhouse="""
        SELECT id, greatest(order_date, toDate32(shipped_at)) AS last_activity
        FROM orders
        ORDER BY id ASC
    """)

# --- strings ------------------------------------------------------------------------------------

concept(
    "email-local-part-and-domain",
    "Split e-mail addresses into local part and lower-cased domain (addresses with '@' only).",
    types="function", tags="string", difficulty="easy", fixture="shop",
    sqlite="""
        SELECT id,
               substr(email, 1, instr(email, '@') - 1) AS local_part,
               lower(substr(email, instr(email, '@') + 1)) AS domain
        FROM customers
        WHERE instr(email, '@') > 0
        ORDER BY id
    """,
    duckdb="""
        SELECT id, split_part(email, '@', 1) AS local_part,
               lower(split_part(email, '@', 2)) AS domain
        FROM customers
        WHERE contains(email, '@')
        ORDER BY id
    """,
    clickhouse="""
        SELECT id,
               substring(email, 1, position(email, '@') - 1) AS local_part,
               lower(substring(email, position(email, '@') + 1)) AS domain
        FROM customers
        WHERE position(email, '@') > 0
        ORDER BY id ASC
    """,
    postgres="""
        SELECT id, split_part(email, '@', 1) AS local_part,
               lower(split_part(email, '@', 2)) AS domain
        FROM customers
        WHERE strpos(email, '@') > 0
        ORDER BY id
    """,
    mysql="""
        SELECT id, SUBSTRING_INDEX(email, '@', 1) AS local_part,
               LOWER(SUBSTRING_INDEX(email, '@', -1)) AS domain
        FROM customers
        WHERE LOCATE('@', email) > 0
        ORDER BY id
    """,
    spark="""
        SELECT id, substring_index(email, '@', 1) AS local_part,
               lower(substring_index(email, '@', -1)) AS domain
        FROM customers
        WHERE instr(email, '@') > 0
        ORDER BY id
    """)

concept(
    "contact-name-cleanup",
    "Trimmed names with double spaces collapsed, their upper-cased initial and character length.",
    types="function", tags="string", difficulty="medium", fixture="texts",
    sqlite="""
        SELECT id,
               replace(trim(full_name), '  ', ' ') AS clean_name,
               upper(substr(trim(full_name), 1, 1)) AS initial,
               length(replace(trim(full_name), '  ', ' ')) AS name_length
        FROM contacts
        WHERE full_name IS NOT NULL
        ORDER BY id
    """,
    duckdb="""
        SELECT id,
               replace(trim(full_name), '  ', ' ') AS clean_name,
               upper(left(trim(full_name), 1)) AS initial,
               length(replace(trim(full_name), '  ', ' ')) AS name_length
        FROM contacts
        WHERE full_name IS NOT NULL
        ORDER BY id
    """,
    clickhouse="""
        SELECT id,
               replaceAll(trimBoth(full_name), '  ', ' ') AS clean_name,
               upperUTF8(substringUTF8(trimBoth(full_name), 1, 1)) AS initial,
               lengthUTF8(replaceAll(trimBoth(full_name), '  ', ' ')) AS name_length
        FROM contacts
        WHERE full_name IS NOT NULL
        ORDER BY id ASC
    """,
    postgres="""
        SELECT id,
               replace(trim(full_name), '  ', ' ') AS clean_name,
               upper(left(trim(full_name), 1)) AS initial,
               char_length(replace(trim(full_name), '  ', ' ')) AS name_length
        FROM contacts
        WHERE full_name IS NOT NULL
        ORDER BY id
    """,
    mysql="""
        SELECT id,
               REPLACE(TRIM(full_name), '  ', ' ') AS clean_name,
               UPPER(LEFT(TRIM(full_name), 1)) AS initial,
               CHAR_LENGTH(REPLACE(TRIM(full_name), '  ', ' ')) AS name_length
        FROM contacts
        WHERE full_name IS NOT NULL
        ORDER BY id
    """,
    spark="""
        SELECT id,
               replace(trim(full_name), '  ', ' ') AS clean_name,
               upper(left(trim(full_name), 1)) AS initial,
               char_length(replace(trim(full_name), '  ', ' ')) AS name_length
        FROM contacts
        WHERE full_name IS NOT NULL
        ORDER BY id
    """)

concept(
    "case-insensitive-customer-search",
    "Customers whose name contains 'alice' or whose city is 'paris', ignoring case.",
    types="keyword other", tags="string case pattern", difficulty="easy", fixture="shop",
    sqlite="""
        SELECT id, name, city
        FROM customers
        WHERE name LIKE '%alice%' OR city LIKE 'paris'
        ORDER BY id
    """,
    duckdb="""
        SELECT id, name, city
        FROM customers
        WHERE name ILIKE '%alice%' OR city ILIKE 'paris'
        ORDER BY id
    """,
    clickhouse="""
        SELECT id, name, city
        FROM customers
        WHERE lower(name) LIKE '%alice%' OR lower(city) = 'paris'
        ORDER BY id ASC
    """)

concept(
    "glob-product-names",
    "Products whose name starts with an upper-case D to M and contains a space (case-sensitive).",
    types="keyword function", tags="string pattern", difficulty="medium", fixture="shop",
    sqlite="""
        SELECT id, name
        FROM products
        WHERE name GLOB '[D-M]* *'
        ORDER BY name
    """,
    duckdb="""
        SELECT id, name
        FROM products
        WHERE regexp_matches(name, '^[D-M].* ')
        ORDER BY name
    """,
    clickhouse="""
        SELECT id, name
        FROM products
        WHERE match(name, '^[D-M].* ')
        ORDER BY name ASC
    """)

concept(
    "padded-order-codes",
    "Order codes zero-padded to six digits ('ORD-000101') and statuses right-padded with dots.",
    types="function data_type", tags="string cast", difficulty="medium",
    fixture="shop",
    sqlite="""
        SELECT id,
               'ORD-' || substr('000000' || id, -6, 6) AS order_code,
               substr(status || '..........', 1, 10) AS status_padded
        FROM orders
        ORDER BY id
    """,
    duckdb="""
        SELECT id,
               'ORD-' || lpad(CAST(id AS VARCHAR), 6, '0') AS order_code,
               rpad(status, 10, '.') AS status_padded
        FROM orders
        ORDER BY id
    """,
    clickhouse="""
        SELECT id,
               concat('ORD-', leftPad(toString(id), 6, '0')) AS order_code,
               rightPad(status, 10, '.') AS status_padded
        FROM orders
        ORDER BY id ASC
    """,
    postgres="""
        SELECT id,
               'ORD-' || lpad(CAST(id AS TEXT), 6, '0') AS order_code,
               rpad(status, 10, '.') AS status_padded
        FROM orders
        ORDER BY id
    """,
    mysql="""
        SELECT id,
               CONCAT('ORD-', LPAD(id, 6, '0')) AS order_code,
               RPAD(status, 10, '.') AS status_padded
        FROM orders
        ORDER BY id
    """,
    spark="""
        SELECT id,
               concat('ORD-', lpad(CAST(id AS STRING), 6, '0')) AS order_code,
               rpad(status, 10, '.') AS status_padded
        FROM orders
        ORDER BY id
    """)

concept(
    "department-member-list",
    "Per department: headcount and members' first names, alphabetically, comma separated.",
    types="function syntax", tags="grouping string-agg ordering window", difficulty="hard",
    fixture="hr",
    sqlite="""
        SELECT DISTINCT d.name AS department,
               COUNT(*) OVER (PARTITION BY d.id) AS headcount,
               group_concat(e.first_name, ', ') OVER (
                   PARTITION BY d.id ORDER BY e.first_name
                   ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS members
        FROM departments AS d
        JOIN employees AS e ON e.dept_id = d.id
        ORDER BY department
    """,
    duckdb="""
        SELECT d.name AS department, count(*) AS headcount,
               string_agg(e.first_name, ', ' ORDER BY e.first_name) AS members
        FROM departments d
        JOIN employees e ON e.dept_id = d.id
        GROUP BY d.name
        ORDER BY department
    """,
    clickhouse="""
        SELECT d.name AS department, count() AS headcount,
               arrayStringConcat(arraySort(groupArray(e.first_name)), ', ') AS members
        FROM departments AS d
        INNER JOIN employees AS e ON e.dept_id = d.id
        GROUP BY d.name
        ORDER BY department ASC
    """,
    postgres="""
        SELECT d.name AS department, count(*) AS headcount,
               string_agg(e.first_name, ', ' ORDER BY e.first_name) AS members
        FROM departments d
        JOIN employees e ON e.dept_id = d.id
        GROUP BY d.name
        ORDER BY department
    """,
    mysql="""
        SELECT d.name AS department, COUNT(*) AS headcount,
               GROUP_CONCAT(e.first_name ORDER BY e.first_name SEPARATOR ', ') AS members
        FROM departments AS d
        JOIN employees AS e ON e.dept_id = d.id
        GROUP BY d.name
        ORDER BY department
    """,
    spark="""
        SELECT d.name AS department, count(*) AS headcount,
               array_join(array_sort(collect_list(e.first_name)), ', ') AS members
        FROM departments d
        JOIN employees e ON e.dept_id = d.id
        GROUP BY d.name
        ORDER BY department
    """)

concept(
    "phone-digits-only",
    "Phone numbers reduced to their digits, with the digit count (NULL phones stay NULL).",
    types="function", tags="string pattern null", difficulty="medium", fixture="texts",
    sqlite="""
        SELECT id,
               replace(replace(replace(replace(replace(phone, ' ', ''), '-', ''), '(', ''),
                               ')', ''), '+', '') AS digits,
               length(replace(replace(replace(replace(replace(phone, ' ', ''), '-', ''),
                                              '(', ''), ')', ''), '+', '')) AS digit_count
        FROM contacts
        ORDER BY id
    """,
    duckdb="""
        SELECT id, regexp_replace(phone, '[^0-9]', '', 'g') AS digits,
               length(regexp_replace(phone, '[^0-9]', '', 'g')) AS digit_count
        FROM contacts
        ORDER BY id
    """,
    clickhouse="""
        SELECT id, replaceRegexpAll(phone, '[^0-9]', '') AS digits,
               length(replaceRegexpAll(phone, '[^0-9]', '')) AS digit_count
        FROM contacts
        ORDER BY id ASC
    """)

concept(
    "mailing-label-with-optional-city",
    "'Name, City (CC)' labels; the city part is left out when the city is NULL or blank.",
    types="function other", tags="string null", difficulty="medium", fixture="shop",
    sqlite="""
        SELECT id,
               name || COALESCE(', ' || NULLIF(TRIM(city), ''), '') || ' (' || country || ')'
                   AS label
        FROM customers
        ORDER BY id
    """,
    duckdb="""
        SELECT id,
               concat_ws(', ', name, NULLIF(trim(city), '')) || ' (' || country || ')' AS label
        FROM customers
        ORDER BY id
    """,
    clickhouse="""
        SELECT id,
               concat(name, ifNull(concat(', ', nullIf(trimBoth(city), '')), ''),
                      ' (', country, ')') AS label
        FROM customers
        ORDER BY id ASC
    """)

concept(
    "tag-counts-from-csv-column",
    "How many contacts carry each tag of the comma-separated 'tags' column.",
    types="function syntax", tags="string cte recursive array", difficulty="hard",
    fixture="texts",
    sqlite="""
        WITH RECURSIVE split(id, tag, rest) AS (
            SELECT id, '', tags || ',' FROM contacts WHERE tags IS NOT NULL
            UNION ALL
            SELECT id, substr(rest, 1, instr(rest, ',') - 1), substr(rest, instr(rest, ',') + 1)
            FROM split
            WHERE rest <> ''
        )
        SELECT tag, COUNT(*) AS contacts_n
        FROM split
        WHERE tag <> ''
        GROUP BY tag
        ORDER BY contacts_n DESC, tag
    """,
    duckdb="""
        SELECT tag, count(*) AS contacts_n
        FROM (SELECT unnest(string_split(tags, ',')) AS tag FROM contacts)
        WHERE tag <> ''
        GROUP BY tag
        ORDER BY contacts_n DESC, tag
    """,
    clickhouse="""
        SELECT tag, count() AS contacts_n
        FROM contacts
        ARRAY JOIN splitByChar(',', assumeNotNull(tags)) AS tag
        WHERE tags IS NOT NULL AND tag != ''
        GROUP BY tag
        ORDER BY contacts_n DESC, tag ASC
    """)

concept(
    "notes-with-literal-wildcards",
    "Contacts whose note contains a literal '%' or '_' character (not LIKE wildcards).",
    types="keyword function", tags="string pattern", difficulty="medium",
    fixture="texts",
    sqlite="""
        SELECT id, note
        FROM contacts
        WHERE note LIKE '%!%%' ESCAPE '!' OR note LIKE '%!_%' ESCAPE '!'
        ORDER BY id
    """,
    duckdb="""
        SELECT id, note
        FROM contacts
        WHERE contains(note, '%') OR contains(note, '_')
        ORDER BY id
    """,
    clickhouse="""
        SELECT id, note
        FROM contacts
        WHERE position(note, '%') > 0 OR position(note, '_') > 0
        ORDER BY id ASC
    """)

concept(
    "stock-histogram-bars",
    "Total stock per category with a text bar of one '#' per full 50 units.",
    types="function", tags="string grouping integer-division", difficulty="easy",
    fixture="shop",
    sqlite="""
        SELECT category, SUM(stock) AS total_stock,
               substr('####################', 1, SUM(stock) / 50) AS bar
        FROM products
        WHERE category IS NOT NULL
        GROUP BY category
        ORDER BY category
    """,
    duckdb="""
        SELECT category, sum(stock) AS total_stock,
               repeat('#', CAST(sum(stock) // 50 AS INTEGER)) AS bar
        FROM products
        WHERE category IS NOT NULL
        GROUP BY category
        ORDER BY category
    """,
    clickhouse="""
        SELECT category, sum(stock) AS total_stock,
               repeat('#', toUInt64(intDiv(sum(stock), 50))) AS bar
        FROM products
        WHERE category IS NOT NULL
        GROUP BY category
        ORDER BY category ASC
    """)

concept(
    "event-payload-json-fields",
    "Device and item count from each event's JSON payload (NULL when a key is missing).",
    types="function data_type", tags="json string null", difficulty="medium", fixture="events",
    sqlite="""
        SELECT id,
               json_extract(payload, '$.device') AS device,
               json_extract(payload, '$.items') AS items
        FROM events
        WHERE payload IS NOT NULL
        ORDER BY id
    """,
    duckdb="""
        SELECT id,
               payload ->> '$.device' AS device,
               CAST(json_extract(payload, '$.items') AS INTEGER) AS items
        FROM events
        WHERE payload IS NOT NULL
        ORDER BY id
    """,
    clickhouse="""
        SELECT id,
               JSONExtract(payload, 'device', 'Nullable(String)') AS device,
               JSONExtract(payload, 'items', 'Nullable(Int64)') AS items
        FROM events
        WHERE payload IS NOT NULL
        ORDER BY id ASC
    """)

# --- numbers ------------------------------------------------------------------------------------

concept(
    "integer-quotient-and-ratio",
    "Integer quotient, remainder and 4-place real ratio of a / b (NULL when b is 0 or NULL).",
    types="function other", tags="numeric integer-division null", difficulty="medium",
    fixture="metrics",
    sqlite="""
        SELECT id, a, b,
               a / NULLIF(b, 0) AS quotient,
               a % NULLIF(b, 0) AS remainder,
               ROUND(CAST(a AS REAL) / NULLIF(b, 0), 4) AS ratio
        FROM readings
        ORDER BY id
    """,
    duckdb="""
        SELECT id, a, b,
               a // NULLIF(b, 0) AS quotient,
               a % NULLIF(b, 0) AS remainder,
               round(a / NULLIF(b, 0), 4) AS ratio
        FROM readings
        ORDER BY id
    """,
    clickhouse="""
        SELECT id, a, b,
               intDiv(a, nullIf(b, 0)) AS quotient,
               modulo(a, nullIf(b, 0)) AS remainder,
               round(a / nullIf(b, 0), 4) AS ratio
        FROM readings
        ORDER BY id ASC
    """,
    postgres="""
        SELECT id, a, b,
               a / NULLIF(b, 0) AS quotient,
               a % NULLIF(b, 0) AS remainder,
               round(CAST(a AS NUMERIC) / NULLIF(b, 0), 4) AS ratio
        FROM readings
        ORDER BY id
    """,
    mysql="""
        SELECT id, a, b,
               a DIV NULLIF(b, 0) AS quotient,
               MOD(a, NULLIF(b, 0)) AS remainder,
               ROUND(a / NULLIF(b, 0), 4) AS ratio
        FROM readings
        ORDER BY id
    """,
    spark="""
        SELECT id, a, b,
               a div NULLIF(b, 0) AS quotient,
               a % NULLIF(b, 0) AS remainder,
               round(a / NULLIF(b, 0), 4) AS ratio
        FROM readings
        ORDER BY id
    """)

concept(
    "category-share-of-units",
    "Units sold per product category and their share of all units in percent (1 place).",
    types="other function", tags="numeric integer-division subquery grouping null rounding",
    difficulty="medium", fixture="shop",
    sqlite="""
        SELECT p.category, SUM(oi.quantity) AS units,
               ROUND(100.0 * SUM(oi.quantity) / (SELECT SUM(quantity) FROM order_items), 1)
                   AS pct_units
        FROM order_items AS oi
        JOIN products AS p ON p.id = oi.product_id
        GROUP BY p.category
        ORDER BY units DESC, p.category
    """,
    duckdb="""
        SELECT p.category, sum(oi.quantity) AS units,
               round(100 * sum(oi.quantity) / sum(sum(oi.quantity)) OVER (), 1) AS pct_units
        FROM order_items oi
        JOIN products p ON p.id = oi.product_id
        GROUP BY p.category
        ORDER BY units DESC, p.category NULLS FIRST
    """,
    clickhouse="""
        SELECT p.category, sum(oi.quantity) AS units,
               round(100 * units / (SELECT sum(quantity) FROM order_items), 1) AS pct_units
        FROM order_items AS oi
        INNER JOIN products AS p ON p.id = oi.product_id
        GROUP BY p.category
        ORDER BY units DESC, p.category ASC NULLS FIRST
    """)

concept(
    "round-half-away-from-zero",
    "Amounts and doubles rounded to one place and to integers, halves away from zero.",
    types="function other", tags="numeric rounding", difficulty="hard",
    fixture="metrics",
    sqlite="""
        SELECT id, amount, ROUND(amount, 1) AS amount_1dp, x,
               ROUND(x, 1) AS x_1dp, ROUND(x) AS x_0dp
        FROM readings
        ORDER BY id
    """,
    duckdb="""
        SELECT id, amount, round(amount, 1) AS amount_1dp, x,
               round(x, 1) AS x_1dp, round(x) AS x_0dp
        FROM readings
        ORDER BY id
    """,
    clickhouse="""
        SELECT id, amount, round(amount, 1) AS amount_1dp, x,
               round(toDecimal64(x, 6), 1) AS x_1dp, round(toDecimal64(x, 6), 0) AS x_0dp
        FROM readings
        ORDER BY id ASC
    """,
    postgres="""
        SELECT id, amount, round(amount, 1) AS amount_1dp, x,
               round(CAST(x AS NUMERIC), 1) AS x_1dp, round(CAST(x AS NUMERIC)) AS x_0dp
        FROM readings
        ORDER BY id
    """,
    mysql="""
        SELECT id, amount, ROUND(amount, 1) AS amount_1dp, x,
               ROUND(CAST(x AS DECIMAL(20, 6)), 1) AS x_1dp,
               ROUND(CAST(x AS DECIMAL(20, 6))) AS x_0dp
        FROM readings
        ORDER BY id
    """,
    spark="""
        SELECT id, amount, round(amount, 1) AS amount_1dp, x,
               round(x, 1) AS x_1dp, round(x) AS x_0dp
        FROM readings
        ORDER BY id
    """)

concept(
    "integer-part-of-measurements",
    "Integer part (truncation toward zero) of doubles and decimals.",
    types="data_type function", tags="cast numeric", difficulty="medium",
    fixture="metrics",
    sqlite="""
        SELECT id, x, CAST(x AS INTEGER) AS x_int, amount, CAST(amount AS INTEGER) AS amount_int
        FROM readings
        ORDER BY id
    """,
    duckdb="""
        SELECT id, x, CAST(trunc(x) AS BIGINT) AS x_int,
               amount, CAST(trunc(amount) AS BIGINT) AS amount_int
        FROM readings
        ORDER BY id
    """,
    clickhouse="""
        SELECT id, x, toInt64(x) AS x_int, amount, toInt64(amount) AS amount_int
        FROM readings
        ORDER BY id ASC
    """)

concept(
    "strict-integer-codes",
    "Parse text codes as integers only when they are an optional '-' followed by digits.",
    types="data_type function", tags="cast string null", difficulty="medium",
    fixture="texts",
    sqlite="""
        SELECT id, code,
               CASE
                   WHEN code GLOB '[0-9]*' AND code NOT GLOB '*[^0-9]*' THEN CAST(code AS INTEGER)
                   WHEN code GLOB '-[0-9]*' AND substr(code, 2) NOT GLOB '*[^0-9]*'
                       THEN CAST(code AS INTEGER)
               END AS code_int
        FROM contacts
        ORDER BY id
    """,
    duckdb="""
        SELECT id, code,
               CASE WHEN regexp_full_match(code, '-?[0-9]+') THEN CAST(code AS BIGINT) END
                   AS code_int
        FROM contacts
        ORDER BY id
    """,
    clickhouse="""
        SELECT id, code, if(match(code, '^-?[0-9]+$'), toInt64OrNull(code), NULL) AS code_int
        FROM contacts
        ORDER BY id ASC
    """,
    postgres="""
        SELECT id, code,
               CASE WHEN code ~ '^-?[0-9]+$' THEN CAST(code AS BIGINT) END AS code_int
        FROM contacts
        ORDER BY id
    """,
    mysql="""
        SELECT id, code,
               CASE WHEN code REGEXP '^-?[0-9]+$' THEN CAST(code AS SIGNED) END AS code_int
        FROM contacts
        ORDER BY id
    """,
    spark="""
        SELECT id, code,
               CASE WHEN code RLIKE '^-?[0-9]+$' THEN CAST(code AS BIGINT) END AS code_int
        FROM contacts
        ORDER BY id
    """)

concept(
    "gross-prices-with-macro",
    "Prices and margins with 20 % VAT rounded to cents, via a reusable function where possible.",
    types="udf function", tags="udf-like numeric multi-statement null rounding",
    difficulty="medium",
    fixture="shop",
    sqlite="""
        SELECT id, name, ROUND(price * 1.2, 2) AS gross_price,
               ROUND((price - cost) * 1.2, 2) AS gross_margin
        FROM products
        ORDER BY id
    """,
    duckdb="""
        CREATE OR REPLACE TEMP MACRO starter_gross(net) AS round(net * 1.2, 2);
        SELECT id, name, starter_gross(price) AS gross_price,
               starter_gross(price - cost) AS gross_margin
        FROM products
        ORDER BY id
    """,
    clickhouse="""
        CREATE OR REPLACE FUNCTION starter_gross AS (net) -> round(net * 1.2, 2);
        SELECT id, name, starter_gross(price) AS gross_price,
               starter_gross(price - cost) AS gross_margin
        FROM products
        ORDER BY id ASC
    """)

concept(
    "price-labels-two-decimals",
    "Price labels with exactly two decimals ('$34.00'), most expensive first (ties unbroken).",
    types="data_type function", tags="cast string numeric ordering-ties", difficulty="medium",
    fixture="shop", order_key=(2,),
    sqlite="""
        SELECT id, name, price, '$' || printf('%.2f', price) AS label
        FROM products
        ORDER BY price DESC
    """,
    duckdb="""
        SELECT id, name, price, '$' || CAST(price AS VARCHAR) AS label
        FROM products
        ORDER BY price DESC
    """,
    clickhouse="""
        SELECT id, name, price, concat('$', toDecimalString(price, 2)) AS label
        FROM products
        ORDER BY price DESC
    """)

# --- NULL handling ------------------------------------------------------------------------------

concept(
    "contact-defaults-for-missing",
    "E-mail and city with defaults when missing, treating '' and blank like NULL.",
    types="function", tags="null string", difficulty="easy", fixture="shop",
    sqlite="""
        SELECT id,
               IFNULL(NULLIF(email, ''), 'no email') AS email,
               IFNULL(NULLIF(TRIM(city), ''), 'unknown') AS city
        FROM customers
        ORDER BY id
    """,
    duckdb="""
        SELECT id,
               coalesce(nullif(email, ''), 'no email') AS email,
               coalesce(nullif(trim(city), ''), 'unknown') AS city
        FROM customers
        ORDER BY id
    """,
    clickhouse="""
        SELECT id,
               ifNull(nullIf(email, ''), 'no email') AS email_or_default,
               ifNull(nullIf(trimBoth(city), ''), 'unknown') AS city_or_default
        FROM customers
        ORDER BY id ASC
    """)

concept(
    "nulls-in-product-aggregates",
    "COUNT(*) vs COUNT(column), distinct categories, and averages with and without NULLs.",
    types="function other", tags="null grouping numeric integer-division", difficulty="medium",
    fixture="shop", ordered=False,
    sqlite="""
        SELECT COUNT(*) AS products, COUNT(category) AS with_category,
               COUNT(DISTINCT category) AS categories, COUNT(cost) AS with_cost,
               ROUND(AVG(cost), 2) AS avg_cost, SUM(stock) AS total_stock,
               AVG(stock) AS avg_known_stock,
               ROUND(TOTAL(stock) / COUNT(*), 2) AS avg_stock_all
        FROM products
    """,
    duckdb="""
        SELECT count(*) AS products, count(category) AS with_category,
               count(DISTINCT category) AS categories, count(cost) AS with_cost,
               round(avg(cost), 2) AS avg_cost, sum(stock) AS total_stock,
               avg(stock) AS avg_known_stock,
               round(sum(stock) / count(*), 2) AS avg_stock_all
        FROM products
    """,
    clickhouse="""
        SELECT count() AS products, count(category) AS with_category,
               uniqExact(category) AS categories, count(cost) AS with_cost,
               round(avg(cost), 2) AS avg_cost, sum(stock) AS total_stock,
               avg(stock) AS avg_known_stock,
               round(sum(stock) / count(), 2) AS avg_stock_all
        FROM products
    """)

concept(
    "commission-nulls-first",
    "Employees by commission ascending with unknown commissions first, then by id.",
    types="keyword other", tags="null ordering", difficulty="medium", fixture="hr",
    sqlite="""
        SELECT id, first_name, commission_pct
        FROM employees
        ORDER BY commission_pct, id
    """,
    duckdb="""
        SELECT id, first_name, commission_pct
        FROM employees
        ORDER BY commission_pct NULLS FIRST, id
    """,
    clickhouse="""
        SELECT id, first_name, commission_pct
        FROM employees
        ORDER BY commission_pct ASC NULLS FIRST, id ASC
    """,
    postgres="""
        SELECT id, first_name, commission_pct
        FROM employees
        ORDER BY commission_pct NULLS FIRST, id
    """,
    mysql="""
        SELECT id, first_name, commission_pct
        FROM employees
        ORDER BY commission_pct ASC, id ASC
    """,
    spark="""
        SELECT id, first_name, commission_pct
        FROM employees
        ORDER BY commission_pct ASC NULLS FIRST, id ASC
    """)

concept(
    "budget-per-active-head",
    "Department budget per active employee, unknown values (no budget, no staff) last.",
    types="other keyword function", tags="null ordering numeric join boolean",
    difficulty="medium", fixture="hr",
    sqlite="""
        SELECT d.id, d.name, COUNT(e.id) AS headcount,
               ROUND(CAST(d.budget AS REAL) / NULLIF(COUNT(e.id), 0), 2) AS budget_per_head
        FROM departments AS d
        LEFT JOIN employees AS e ON e.dept_id = d.id AND e.active
        GROUP BY d.id, d.name
        ORDER BY budget_per_head IS NULL, budget_per_head, d.id
    """,
    duckdb="""
        SELECT d.id, d.name, count(e.id) AS headcount,
               round(d.budget / NULLIF(count(e.id), 0), 2) AS budget_per_head
        FROM departments d
        LEFT JOIN employees e ON e.dept_id = d.id AND e.active
        GROUP BY d.id, d.name, d.budget
        ORDER BY budget_per_head, d.id
    """,
    clickhouse="""
        SELECT d.id, d.name, count(e.id) AS headcount,
               round(toFloat64(any(d.budget)) / nullIf(count(e.id), 0), 2) AS budget_per_head
        FROM departments AS d
        LEFT JOIN (SELECT id, dept_id FROM employees WHERE active) AS e ON e.dept_id = d.id
        GROUP BY d.id, d.name
        ORDER BY budget_per_head ASC NULLS LAST, d.id ASC
        SETTINGS join_use_nulls = 1
    """)

# --- grouping -----------------------------------------------------------------------------------

concept(
    "order-status-pivot-by-country",
    "Per customer country: all orders, delivered (any case) and cancelled ones, discounts given.",
    types="function syntax", tags="grouping case null", difficulty="medium",
    fixture="shop",
    sqlite="""
        SELECT c.country,
               COUNT(*) AS orders_total,
               SUM(CASE WHEN lower(o.status) = 'delivered' THEN 1 ELSE 0 END) AS delivered,
               SUM(CASE WHEN o.status = 'cancelled' THEN 1 ELSE 0 END) AS cancelled,
               TOTAL(CASE WHEN o.discount > 0 THEN o.discount END) AS discounts
        FROM orders AS o
        JOIN customers AS c ON c.id = o.customer_id
        GROUP BY c.country
        ORDER BY c.country
    """,
    duckdb="""
        SELECT c.country,
               count(*) AS orders_total,
               count_if(lower(o.status) = 'delivered') AS delivered,
               count_if(o.status = 'cancelled') AS cancelled,
               coalesce(sum(o.discount) FILTER (WHERE o.discount > 0), 0) AS discounts
        FROM orders o
        JOIN customers c ON c.id = o.customer_id
        GROUP BY c.country
        ORDER BY c.country
    """,
    clickhouse="""
        SELECT c.country,
               count() AS orders_total,
               countIf(lower(o.status) = 'delivered') AS delivered,
               countIf(o.status = 'cancelled') AS cancelled,
               ifNull(sumIf(o.discount, o.discount > 0), 0) AS discounts
        FROM orders AS o
        INNER JOIN customers AS c ON c.id = o.customer_id
        GROUP BY c.country
        ORDER BY c.country ASC
    """,
    postgres="""
        SELECT c.country,
               count(*) AS orders_total,
               count(*) FILTER (WHERE lower(o.status) = 'delivered') AS delivered,
               count(*) FILTER (WHERE o.status = 'cancelled') AS cancelled,
               coalesce(sum(o.discount) FILTER (WHERE o.discount > 0), 0) AS discounts
        FROM orders o
        JOIN customers c ON c.id = o.customer_id
        GROUP BY c.country
        ORDER BY c.country
    """,
    mysql="""
        SELECT c.country,
               COUNT(*) AS orders_total,
               COUNT(CASE WHEN o.status = 'delivered' THEN 1 END) AS delivered,
               SUM(o.status COLLATE utf8mb4_bin = 'cancelled') AS cancelled,
               COALESCE(SUM(CASE WHEN o.discount > 0 THEN o.discount END), 0) AS discounts
        FROM orders AS o
        JOIN customers AS c ON c.id = o.customer_id
        GROUP BY c.country
        ORDER BY c.country
    """,
    spark="""
        SELECT c.country,
               count(*) AS orders_total,
               count_if(lower(o.status) = 'delivered') AS delivered,
               sum(CASE WHEN o.status = 'cancelled' THEN 1 ELSE 0 END) AS cancelled,
               coalesce(sum(o.discount) FILTER (WHERE o.discount > 0), 0) AS discounts
        FROM orders o
        JOIN customers c ON c.id = o.customer_id
        GROUP BY c.country
        ORDER BY c.country
    """)

concept(
    "repeat-customers-having",
    "Customers with at least two non-cancelled orders worth 100 or more in total.",
    types="syntax", tags="grouping join", difficulty="easy", fixture="shop",
    sqlite="""
        SELECT o.customer_id, COUNT(DISTINCT o.id) AS order_count,
               ROUND(SUM(oi.quantity * oi.unit_price), 2) AS revenue
        FROM orders AS o
        JOIN order_items AS oi ON oi.order_id = o.id
        WHERE o.status <> 'cancelled'
        GROUP BY o.customer_id
        HAVING COUNT(DISTINCT o.id) >= 2 AND SUM(oi.quantity * oi.unit_price) >= 100
        ORDER BY o.customer_id
    """,
    duckdb="""
        SELECT o.customer_id, count(DISTINCT o.id) AS order_count,
               sum(oi.quantity * oi.unit_price) AS revenue
        FROM orders o
        JOIN order_items oi ON oi.order_id = o.id
        WHERE o.status <> 'cancelled'
        GROUP BY o.customer_id
        HAVING order_count >= 2 AND revenue >= 100
        ORDER BY o.customer_id
    """,
    clickhouse="""
        SELECT o.customer_id, uniqExact(o.id) AS order_count,
               sum(oi.quantity * oi.unit_price) AS revenue
        FROM orders AS o
        INNER JOIN order_items AS oi ON oi.order_id = o.id
        WHERE o.status != 'cancelled'
        GROUP BY o.customer_id
        HAVING order_count >= 2 AND revenue >= 100
        ORDER BY o.customer_id ASC
    """)

concept(
    "revenue-rollup-country-channel",
    "Revenue per country and channel with country subtotals and a grand total (ROLLUP).",
    types="syntax keyword", tags="grouping rollup null set-op", difficulty="hard",
    fixture="shop",
    sqlite="""
        WITH sales AS (
            SELECT c.country, COALESCE(o.channel, 'unknown') AS channel,
                   oi.quantity * oi.unit_price AS amount
            FROM orders AS o
            JOIN customers AS c ON c.id = o.customer_id
            JOIN order_items AS oi ON oi.order_id = o.id
            WHERE o.status <> 'cancelled'
        )
        SELECT country, channel, ROUND(SUM(amount), 2) AS revenue
        FROM sales GROUP BY country, channel
        UNION ALL
        SELECT country, NULL, ROUND(SUM(amount), 2) FROM sales GROUP BY country
        UNION ALL
        SELECT NULL, NULL, ROUND(SUM(amount), 2) FROM sales
        ORDER BY country NULLS LAST, channel NULLS LAST
    """,
    duckdb="""
        SELECT c.country, coalesce(o.channel, 'unknown') AS channel,
               sum(oi.quantity * oi.unit_price) AS revenue
        FROM orders o
        JOIN customers c ON c.id = o.customer_id
        JOIN order_items oi ON oi.order_id = o.id
        WHERE o.status <> 'cancelled'
        GROUP BY ROLLUP (c.country, coalesce(o.channel, 'unknown'))
        ORDER BY c.country, channel
    """,
    clickhouse="""
        SELECT c.country AS country, ifNull(o.channel, 'unknown') AS sales_channel,
               sum(oi.quantity * oi.unit_price) AS revenue
        FROM orders AS o
        INNER JOIN customers AS c ON c.id = o.customer_id
        INNER JOIN order_items AS oi ON oi.order_id = o.id
        WHERE o.status != 'cancelled'
        GROUP BY ROLLUP(country, sales_channel)
        ORDER BY country ASC NULLS LAST, sales_channel ASC NULLS LAST
        SETTINGS group_by_use_nulls = 1
    """,
    postgres="""
        SELECT c.country, coalesce(o.channel, 'unknown') AS channel,
               sum(oi.quantity * oi.unit_price) AS revenue
        FROM orders o
        JOIN customers c ON c.id = o.customer_id
        JOIN order_items oi ON oi.order_id = o.id
        WHERE o.status <> 'cancelled'
        GROUP BY ROLLUP (c.country, coalesce(o.channel, 'unknown'))
        ORDER BY 1, 2
    """,
    mysql="""
        SELECT country, channel, revenue
        FROM (
            SELECT c.country, COALESCE(o.channel, 'unknown') AS channel,
                   SUM(oi.quantity * oi.unit_price) AS revenue
            FROM orders AS o
            JOIN customers AS c ON c.id = o.customer_id
            JOIN order_items AS oi ON oi.order_id = o.id
            WHERE o.status <> 'cancelled'
            GROUP BY c.country, COALESCE(o.channel, 'unknown') WITH ROLLUP
        ) AS r
        ORDER BY country IS NULL, country, channel IS NULL, channel
    """,
    spark="""
        SELECT c.country AS country, coalesce(o.channel, 'unknown') AS channel,
               sum(oi.quantity * oi.unit_price) AS revenue
        FROM orders o
        JOIN customers c ON c.id = o.customer_id
        JOIN order_items oi ON oi.order_id = o.id
        WHERE o.status <> 'cancelled'
        GROUP BY ROLLUP (c.country, coalesce(o.channel, 'unknown'))
        ORDER BY country ASC NULLS LAST, channel ASC NULLS LAST
    """)

concept(
    "most-stocked-product-per-category",
    "The product with the most units in stock in each category (NULL stock ignored).",
    types="function other", tags="grouping null", difficulty="medium", fixture="shop",
    sqlite="""
        SELECT category, name, MAX(stock) AS max_stock
        FROM products
        WHERE category IS NOT NULL
        GROUP BY category
        ORDER BY category
    """,
    duckdb="""
        SELECT category, arg_max(name, stock) AS name, max(stock) AS max_stock
        FROM products
        WHERE category IS NOT NULL
        GROUP BY category
        ORDER BY category
    """,
    clickhouse="""
        SELECT category, argMax(name, stock) AS top_product, max(stock) AS max_stock
        FROM products
        WHERE category IS NOT NULL
        GROUP BY category
        ORDER BY category ASC
    """)

concept(
    "median-price-per-category",
    "Median list price per product category (the mean of the two middle values when even).",
    types="function", tags="grouping window numeric", difficulty="hard", fixture="shop",
    sqlite="""
        WITH ranked AS (
            SELECT category, price,
                   ROW_NUMBER() OVER (PARTITION BY category ORDER BY price) AS rn,
                   COUNT(*) OVER (PARTITION BY category) AS cnt
            FROM products
            WHERE category IS NOT NULL
        )
        SELECT category, AVG(price) AS median_price
        FROM ranked
        WHERE rn IN ((cnt + 1) / 2, (cnt + 2) / 2)
        GROUP BY category
        ORDER BY category
    """,
    duckdb="""
        SELECT category, median(CAST(price AS DOUBLE)) AS median_price
        FROM products
        WHERE category IS NOT NULL
        GROUP BY category
        ORDER BY category
    """,
    clickhouse="""
        SELECT category, quantileExactInclusive(0.5)(toFloat64(price)) AS median_price
        FROM products
        WHERE category IS NOT NULL
        GROUP BY category
        ORDER BY category ASC
    """)

concept(
    "first-order-per-customer",
    "Each customer's first order (id and date).",
    types="keyword function", tags="grouping ordering", difficulty="medium",
    fixture="shop",
    sqlite="""
        SELECT customer_id, id AS first_order_id, MIN(order_date) AS first_order_date
        FROM orders
        GROUP BY customer_id
        ORDER BY customer_id
    """,
    duckdb="""
        SELECT DISTINCT ON (customer_id)
               customer_id, id AS first_order_id, order_date AS first_order_date
        FROM orders
        ORDER BY customer_id, order_date, id
    """,
    clickhouse="""
        SELECT customer_id, argMin(id, (order_date, id)) AS first_order_id,
               min(order_date) AS first_order_date
        FROM orders
        GROUP BY customer_id
        ORDER BY customer_id ASC
    """)

concept(
    "order-line-stats-with-lambdas",
    "Per order: lines, lines with quantity of at least 2, and the largest line value.",
    types="udf function", tags="udf-like array grouping", difficulty="hard",
    fixture="shop",
    sqlite="""
        SELECT order_id, COUNT(*) AS lines, SUM(quantity >= 2) AS bulk_lines,
               ROUND(MAX(quantity * unit_price), 2) AS max_line_value
        FROM order_items
        GROUP BY order_id
        ORDER BY order_id
    """,
    duckdb="""
        SELECT order_id, count(*) AS lines,
               length(list_filter(list(quantity), q -> q >= 2)) AS bulk_lines,
               list_max(list_transform(list(struct_pack(q := quantity, p := unit_price)),
                                       l -> l.q * l.p)) AS max_line_value
        FROM order_items
        GROUP BY order_id
        ORDER BY order_id
    """,
    clickhouse="""
        SELECT order_id, count() AS lines,
               arrayCount(q -> q >= 2, groupArray(quantity)) AS bulk_lines,
               arrayMax(arrayMap((q, p) -> q * p, groupArray(quantity), groupArray(unit_price)))
                   AS max_line_value
        FROM order_items
        GROUP BY order_id
        ORDER BY order_id ASC
    """)

concept(
    "orders-of-one-customer-table-macro",
    "Orders of customer 2 through a parameterised table function where the dialect has one.",
    types="udf syntax", tags="udf-like multi-statement", difficulty="hard",
    fixture="shop",
    sqlite="""
        SELECT id, order_date, status
        FROM orders
        WHERE customer_id = 2
        ORDER BY order_date, id
    """,
    duckdb="""
        CREATE OR REPLACE TEMP MACRO starter_orders_of(cust) AS TABLE
            SELECT id, order_date, status FROM orders WHERE customer_id = cust;
        SELECT * FROM starter_orders_of(2) ORDER BY order_date, id
    """,
    clickhouse="""
        WITH 2 AS cust
        SELECT id, order_date, status
        FROM orders
        WHERE customer_id = cust
        ORDER BY order_date ASC, id ASC
    """)

# --- set operations -----------------------------------------------------------------------------

concept(
    "restock-candidates-union",
    "Products that are out of stock or were never ordered, each listed once.",
    types="keyword syntax", tags="set-op anti-join", difficulty="easy", fixture="shop",
    sqlite="""
        SELECT id, name FROM products WHERE stock = 0
        UNION
        SELECT id, name FROM products WHERE id NOT IN (SELECT product_id FROM order_items)
        ORDER BY id
    """,
    duckdb="""
        SELECT id, name FROM products WHERE stock = 0
        UNION
        SELECT p.id, p.name FROM products p ANTI JOIN order_items oi ON oi.product_id = p.id
        ORDER BY id
    """,
    clickhouse="""
        SELECT id, name
        FROM (
            SELECT id, name FROM products WHERE stock = 0
            UNION DISTINCT
            SELECT id, name FROM products WHERE id NOT IN (SELECT product_id FROM order_items)
        )
        ORDER BY id ASC
    """)

concept(
    "activity-by-year-union-all",
    "Signups and orders per calendar year, counted from one UNION ALL of both event kinds.",
    types="function keyword data_type", tags="set-op datetime grouping cast",
    difficulty="medium", fixture="shop",
    sqlite="""
        SELECT yr, kind, COUNT(*) AS events_n
        FROM (
            SELECT CAST(strftime('%Y', signup_date) AS INTEGER) AS yr, 'signup' AS kind
            FROM customers
            UNION ALL
            SELECT CAST(strftime('%Y', order_date) AS INTEGER), 'order' FROM orders
        )
        GROUP BY yr, kind
        ORDER BY yr, kind
    """,
    duckdb="""
        SELECT yr, kind, count(*) AS events_n
        FROM (
            SELECT year(signup_date) AS yr, 'signup' AS kind FROM customers
            UNION ALL
            SELECT year(order_date), 'order' FROM orders
        )
        GROUP BY ALL
        ORDER BY yr, kind
    """,
    clickhouse="""
        SELECT yr, kind, count() AS events_n
        FROM (
            SELECT toYear(signup_date) AS yr, 'signup' AS kind FROM customers
            UNION ALL
            SELECT toYear(order_date) AS yr, 'order' AS kind FROM orders
        )
        GROUP BY yr, kind
        ORDER BY yr ASC, kind ASC
    """)

concept(
    "products-ordered-both-years",
    "Products ordered both in 2023 and in 2024 (INTERSECT, duplicates removed).",
    types="keyword function", tags="set-op datetime", difficulty="medium",
    fixture="shop",
    sqlite="""
        SELECT oi.product_id
        FROM order_items AS oi JOIN orders AS o ON o.id = oi.order_id
        WHERE o.order_date < '2024-01-01'
        INTERSECT
        SELECT oi.product_id
        FROM order_items AS oi JOIN orders AS o ON o.id = oi.order_id
        WHERE o.order_date >= '2024-01-01'
        ORDER BY product_id
    """,
    duckdb="""
        SELECT oi.product_id
        FROM order_items oi JOIN orders o ON o.id = oi.order_id
        WHERE year(o.order_date) = 2023
        INTERSECT
        SELECT oi.product_id
        FROM order_items oi JOIN orders o ON o.id = oi.order_id
        WHERE year(o.order_date) = 2024
        ORDER BY product_id
    """,
    clickhouse="""
        SELECT product_id
        FROM (
            SELECT oi.product_id
            FROM order_items AS oi INNER JOIN orders AS o ON o.id = oi.order_id
            WHERE toYear(o.order_date) = 2023
            INTERSECT DISTINCT
            SELECT oi.product_id
            FROM order_items AS oi INNER JOIN orders AS o ON o.id = oi.order_id
            WHERE toYear(o.order_date) = 2024
        )
        ORDER BY product_id ASC
    """,
    postgres="""
        SELECT oi.product_id
        FROM order_items oi JOIN orders o ON o.id = oi.order_id
        WHERE EXTRACT(YEAR FROM o.order_date) = 2023
        INTERSECT
        SELECT oi.product_id
        FROM order_items oi JOIN orders o ON o.id = oi.order_id
        WHERE EXTRACT(YEAR FROM o.order_date) = 2024
        ORDER BY product_id
    """,
    mysql="""
        SELECT oi.product_id
        FROM order_items AS oi JOIN orders AS o ON o.id = oi.order_id
        WHERE YEAR(o.order_date) = 2023
        INTERSECT
        SELECT oi.product_id
        FROM order_items AS oi JOIN orders AS o ON o.id = oi.order_id
        WHERE YEAR(o.order_date) = 2024
        ORDER BY product_id
    """,
    spark="""
        SELECT oi.product_id
        FROM order_items oi JOIN orders o ON o.id = oi.order_id
        WHERE year(o.order_date) = 2023
        INTERSECT
        SELECT oi.product_id
        FROM order_items oi JOIN orders o ON o.id = oi.order_id
        WHERE year(o.order_date) = 2024
        ORDER BY product_id
    """)

concept(
    "countries-without-deliveries",
    "Customer countries with no delivered order (status in any letter case), once each.",
    types="keyword function", tags="set-op case string", difficulty="medium",
    fixture="shop",
    sqlite="""
        SELECT country FROM customers
        EXCEPT
        SELECT c.country
        FROM customers AS c JOIN orders AS o ON o.customer_id = c.id
        WHERE lower(o.status) = 'delivered'
        ORDER BY country
    """,
    duckdb="""
        SELECT country FROM customers
        EXCEPT
        SELECT c.country
        FROM customers c JOIN orders o ON o.customer_id = c.id
        WHERE o.status ILIKE 'delivered'
        ORDER BY country
    """,
    clickhouse="""
        SELECT country
        FROM (
            SELECT country FROM customers
            EXCEPT DISTINCT
            SELECT c.country
            FROM customers AS c INNER JOIN orders AS o ON o.customer_id = c.id
            WHERE lower(o.status) = 'delivered'
        )
        ORDER BY country ASC
    """,
    postgres="""
        SELECT country FROM customers
        EXCEPT
        SELECT c.country
        FROM customers c JOIN orders o ON o.customer_id = c.id
        WHERE upper(o.status) = 'DELIVERED'
        ORDER BY country
    """,
    mysql="""
        SELECT country FROM customers
        EXCEPT
        SELECT c.country
        FROM customers AS c JOIN orders AS o ON o.customer_id = c.id
        WHERE o.status = 'delivered'
        ORDER BY country
    """,
    spark="""
        SELECT country FROM customers
        EXCEPT
        SELECT c.country
        FROM customers c JOIN orders o ON o.customer_id = c.id
        WHERE lower(o.status) = 'delivered'
        ORDER BY country
    """)

# --- CASE, booleans, keywords -------------------------------------------------------------------

concept(
    "price-bands",
    "Products per price band with the band's cheapest and dearest price.",
    types="syntax function", tags="case grouping", difficulty="easy", fixture="shop",
    sqlite="""
        SELECT CASE WHEN price < 10 THEN 'budget'
                    WHEN price < 50 THEN 'standard'
                    WHEN price < 150 THEN 'premium'
                    ELSE 'luxury' END AS band,
               COUNT(*) AS products_n, MIN(price) AS min_price, MAX(price) AS max_price
        FROM products
        GROUP BY band
        ORDER BY min_price
    """,
    duckdb="""
        SELECT CASE WHEN price < 10 THEN 'budget'
                    WHEN price < 50 THEN 'standard'
                    WHEN price < 150 THEN 'premium'
                    ELSE 'luxury' END AS band,
               count(*) AS products_n, min(price) AS min_price, max(price) AS max_price
        FROM products
        GROUP BY ALL
        ORDER BY min_price
    """,
    clickhouse="""
        SELECT multiIf(price < 10, 'budget', price < 50, 'standard', price < 150, 'premium',
                       'luxury') AS band,
               count() AS products_n, min(price) AS min_price, max(price) AS max_price
        FROM products
        GROUP BY band
        ORDER BY min_price ASC
    """)

concept(
    "vip-flags-by-country",
    "Per country: customers, VIPs, whether any VIP exists, and customers who joined in 2024.",
    types="data_type function", tags="boolean grouping datetime", difficulty="easy",
    fixture="shop",
    sqlite="""
        SELECT country, COUNT(*) AS customers_n, SUM(is_vip) AS vips, MAX(is_vip) AS has_vip,
               SUM(signup_date >= '2024-01-01') AS joined_2024
        FROM customers
        GROUP BY country
        ORDER BY country
    """,
    duckdb="""
        SELECT country, count(*) AS customers_n, count_if(is_vip) AS vips,
               bool_or(is_vip) AS has_vip,
               count_if(signup_date >= DATE '2024-01-01') AS joined_2024
        FROM customers
        GROUP BY country
        ORDER BY country
    """,
    clickhouse="""
        SELECT country, count() AS customers_n, countIf(is_vip) AS vips,
               max(is_vip) AS has_vip, countIf(signup_date >= '2024-01-01') AS joined_2024
        FROM customers
        GROUP BY country
        ORDER BY country ASC
    """,
    postgres="""
        SELECT country, count(*) AS customers_n,
               count(*) FILTER (WHERE is_vip) AS vips,
               bool_or(is_vip) AS has_vip,
               count(*) FILTER (WHERE signup_date >= DATE '2024-01-01') AS joined_2024
        FROM customers
        GROUP BY country
        ORDER BY country
    """,
    mysql="""
        SELECT country, COUNT(*) AS customers_n, SUM(is_vip = TRUE) AS vips,
               MAX(is_vip) AS has_vip, SUM(YEAR(signup_date) >= 2024) AS joined_2024
        FROM customers
        GROUP BY country
        ORDER BY country
    """,
    spark="""
        SELECT country, count(*) AS customers_n, count_if(is_vip) AS vips,
               bool_or(is_vip) AS has_vip,
               count_if(signup_date >= DATE '2024-01-01') AS joined_2024
        FROM customers
        GROUP BY country
        ORDER BY country
    """)

concept(
    "category-flag-counts",
    "Per category (NULL first): expensive, low-stock (unknown is not low) and discontinued "
    "products, and whether all are active.",
    types="data_type function other", tags="boolean grouping null ordering",
    difficulty="medium", fixture="shop",
    sqlite="""
        SELECT category, COUNT(*) AS products_n, SUM(price > 50) AS expensive,
               SUM(IFNULL(stock < 20, 0)) AS low_stock, SUM(discontinued) AS discontinued_n,
               MIN(NOT discontinued) AS all_active
        FROM products
        GROUP BY category
        ORDER BY category
    """,
    duckdb="""
        SELECT category, count(*) AS products_n, count_if(price > 50) AS expensive,
               count(*) FILTER (WHERE stock < 20) AS low_stock,
               count_if(discontinued) AS discontinued_n,
               bool_and(NOT discontinued) AS all_active
        FROM products
        GROUP BY category
        ORDER BY category NULLS FIRST
    """,
    clickhouse="""
        SELECT category, count() AS products_n, countIf(price > 50) AS expensive,
               countIf(stock < 20) AS low_stock, countIf(discontinued) AS discontinued_n,
               min(NOT discontinued) AS all_active
        FROM products
        GROUP BY category
        ORDER BY category ASC NULLS FIRST
    """)

concept(
    "price-list-page-two",
    "Second page of five products, most expensive first, price ties broken by name.",
    types="keyword", tags="ordering limit", difficulty="easy", fixture="shop",
    sqlite="""
        SELECT id, name, price
        FROM products
        ORDER BY price DESC, name
        LIMIT 5 OFFSET 5
    """,
    duckdb="""
        SELECT id, name, price
        FROM products
        ORDER BY price DESC, name ASC
        OFFSET 5 LIMIT 5
    """,
    clickhouse="""
        SELECT id, name, price
        FROM products
        ORDER BY price DESC, name ASC
        LIMIT 5, 5
    """,
    postgres="""
        SELECT id, name, price
        FROM products
        ORDER BY price DESC, name
        OFFSET 5 ROWS FETCH NEXT 5 ROWS ONLY
    """,
    mysql="""
        SELECT id, name, price
        FROM products
        ORDER BY price DESC, name
        LIMIT 5, 5
    """,
    spark="""
        SELECT id, name, price
        FROM products
        ORDER BY price DESC, name ASC
        LIMIT 5 OFFSET 5
    """)

concept(
    "top-three-products-by-units",
    "The three best-selling products by units, with their whole-number share of all units.",
    types="keyword function other", tags="ordering limit join grouping integer-division",
    difficulty="medium", fixture="shop",
    sqlite="""
        SELECT p.name, SUM(oi.quantity) AS units,
               SUM(oi.quantity) * 100 / (SELECT SUM(quantity) FROM order_items) AS pct_of_units
        FROM order_items AS oi
        JOIN products AS p ON p.id = oi.product_id
        GROUP BY p.id, p.name
        ORDER BY units DESC
        LIMIT 3
    """,
    duckdb="""
        SELECT p.name, sum(oi.quantity) AS units,
               sum(oi.quantity) * 100 // (SELECT sum(quantity) FROM order_items) AS pct_of_units
        FROM order_items oi
        JOIN products p ON p.id = oi.product_id
        GROUP BY p.id, p.name
        ORDER BY units DESC
        LIMIT 3
    """,
    clickhouse="""
        SELECT p.name, sum(oi.quantity) AS units,
               intDiv(units * 100, (SELECT sum(quantity) FROM order_items)) AS pct_of_units
        FROM order_items AS oi
        INNER JOIN products AS p ON p.id = oi.product_id
        GROUP BY p.id, p.name
        ORDER BY units DESC
        LIMIT 3
    """)

# --- more UDF-like rewrites ---------------------------------------------------------------------

concept(
    "customers-per-email-domain-function",
    "Customers per lower-cased e-mail domain, the domain computed by a named helper function.",
    types="udf function", tags="udf-like string grouping multi-statement",
    difficulty="medium", fixture="shop",
    sqlite="""
        SELECT lower(substr(email, instr(email, '@') + 1)) AS domain, COUNT(*) AS customers_n
        FROM customers
        WHERE instr(email, '@') > 0
        GROUP BY domain
        ORDER BY customers_n DESC, domain
    """,
    duckdb="""
        CREATE OR REPLACE TEMP MACRO starter_email_domain(e) AS lower(split_part(e, '@', 2));
        SELECT starter_email_domain(email) AS domain, count(*) AS customers_n
        FROM customers
        WHERE contains(email, '@')
        GROUP BY domain
        ORDER BY customers_n DESC, domain
    """,
    clickhouse="""
        WITH e -> lower(substring(e, position(e, '@') + 1)) AS email_domain
        SELECT email_domain(email) AS domain, count() AS customers_n
        FROM customers
        WHERE position(email, '@') > 0
        GROUP BY domain
        ORDER BY customers_n DESC, domain ASC
    """)

concept(
    "customer-loyalty-tier-function",
    "Lifetime spend of every customer with orders and a loyalty tier from a helper function.",
    types="udf syntax function", tags="udf-like case grouping join multi-statement",
    difficulty="medium",
    fixture="shop",
    sqlite="""
        SELECT o.customer_id, ROUND(SUM(oi.quantity * oi.unit_price), 2) AS spend,
               CASE WHEN SUM(oi.quantity * oi.unit_price) >= 300 THEN 'gold'
                    WHEN SUM(oi.quantity * oi.unit_price) >= 100 THEN 'silver'
                    ELSE 'bronze' END AS tier
        FROM orders AS o
        JOIN order_items AS oi ON oi.order_id = o.id
        GROUP BY o.customer_id
        ORDER BY o.customer_id
    """,
    duckdb="""
        CREATE OR REPLACE TEMP MACRO starter_tier(total) AS
            CASE WHEN total >= 300 THEN 'gold' WHEN total >= 100 THEN 'silver' ELSE 'bronze' END;
        SELECT o.customer_id, sum(oi.quantity * oi.unit_price) AS spend,
               starter_tier(sum(oi.quantity * oi.unit_price)) AS tier
        FROM orders o
        JOIN order_items oi ON oi.order_id = o.id
        GROUP BY o.customer_id
        ORDER BY o.customer_id
    """,
    clickhouse="""
        CREATE OR REPLACE FUNCTION starter_tier AS (total) ->
            multiIf(total >= 300, 'gold', total >= 100, 'silver', 'bronze');
        SELECT o.customer_id, sum(oi.quantity * oi.unit_price) AS spend,
               starter_tier(spend) AS tier
        FROM orders AS o
        INNER JOIN order_items AS oi ON oi.order_id = o.id
        GROUP BY o.customer_id
        ORDER BY o.customer_id ASC
    """)

# === end of starter concepts ===

# ------------------------------------------------------------------------------------------------
# Polyglot-only concepts: six dialects, over the named fixtures (tpch, spider/<db_id>)
# ------------------------------------------------------------------------------------------------

POLYGLOT_ONLY: list[Concept] = []


def polyglot_concept(id: str, description: str, *, types: str, tags: str, difficulty: str,
                     fixture: str, sqlite: str, duckdb: str, clickhouse: str, postgres: str,
                     mysql: str, spark: str, ordered: bool = True,
                     order_key: tuple[int, ...] | None = None) -> None:
    """Register a concept of the polyglot dataset only (not part of starter)."""
    POLYGLOT_ONLY.append(Concept(
        id=id, description=description, types=tuple(types.split()), tags=tuple(tags.split()),
        difficulty=difficulty, fixture=fixture,
        sql={d: _sql(t) for d, t in (("sqlite", sqlite), ("duckdb", duckdb),
                                     ("clickhouse", clickhouse), ("postgres", postgres),
                                     ("mysql", mysql), ("spark", spark))},
        ordered=ordered, order_key=order_key))

# --- TPC-H (named fixture `tpch`, scale factor 0.01) ---------------------------------------------

polyglot_concept(
    "tpch-late-deliveries-by-ship-mode",
    "Line items shipped in 1995 per ship mode: how many arrived after the commit date, and that "
    "share in whole percent (integer division).",
    types="function keyword", tags="datetime grouping integer-division numeric",
    difficulty="medium", fixture="tpch",
    sqlite="""
        SELECT l_shipmode,
               COUNT(*) AS lines_n,
               SUM(CASE WHEN l_receiptdate > l_commitdate THEN 1 ELSE 0 END) AS late_n,
               100 * SUM(CASE WHEN l_receiptdate > l_commitdate THEN 1 ELSE 0 END) / COUNT(*)
                   AS late_pct
        FROM lineitem
        WHERE l_shipdate BETWEEN '1995-01-01' AND '1995-12-31'
        GROUP BY l_shipmode
        ORDER BY l_shipmode
    """,
    duckdb="""
        SELECT l_shipmode, count(*) AS lines_n,
               count_if(l_receiptdate > l_commitdate) AS late_n,
               100 * count_if(l_receiptdate > l_commitdate) // count(*) AS late_pct
        FROM lineitem
        WHERE year(l_shipdate) = 1995
        GROUP BY l_shipmode
        ORDER BY l_shipmode
    """,
    clickhouse="""
        SELECT l_shipmode, count() AS lines_n,
               countIf(l_receiptdate > l_commitdate) AS late_n,
               intDiv(100 * late_n, lines_n) AS late_pct
        FROM lineitem
        WHERE toYear(l_shipdate) = 1995
        GROUP BY l_shipmode
        ORDER BY l_shipmode ASC
    """,
    postgres="""
        SELECT l_shipmode, count(*) AS lines_n,
               count(*) FILTER (WHERE l_receiptdate > l_commitdate) AS late_n,
               100 * count(*) FILTER (WHERE l_receiptdate > l_commitdate) / count(*) AS late_pct
        FROM lineitem
        WHERE l_shipdate >= DATE '1995-01-01' AND l_shipdate < DATE '1996-01-01'
        GROUP BY l_shipmode
        ORDER BY l_shipmode
    """,
    mysql="""
        SELECT l_shipmode, COUNT(*) AS lines_n,
               SUM(l_receiptdate > l_commitdate) AS late_n,
               100 * SUM(l_receiptdate > l_commitdate) DIV COUNT(*) AS late_pct
        FROM lineitem
        WHERE YEAR(l_shipdate) = 1995
        GROUP BY l_shipmode
        ORDER BY l_shipmode
    """,
    spark="""
        SELECT l_shipmode, count(*) AS lines_n,
               count_if(l_receiptdate > l_commitdate) AS late_n,
               100 * count_if(l_receiptdate > l_commitdate) div count(*) AS late_pct
        FROM lineitem
        WHERE year(l_shipdate) = 1995
        GROUP BY l_shipmode
        ORDER BY l_shipmode
    """)

polyglot_concept(
    "tpch-top-nations-net-revenue-1996",
    "The five customer nations with the most net revenue (extended price less discount) on "
    "orders placed in 1996, with their order counts.",
    types="keyword function", tags="join grouping limit datetime numeric",
    difficulty="medium", fixture="tpch",
    sqlite="""
        SELECT n.n_name AS nation, COUNT(DISTINCT o.o_orderkey) AS orders_n,
               SUM(l.l_extendedprice * (1 - l.l_discount)) AS net_revenue
        FROM nation AS n
        JOIN customer AS c ON c.c_nationkey = n.n_nationkey
        JOIN orders AS o ON o.o_custkey = c.c_custkey
        JOIN lineitem AS l ON l.l_orderkey = o.o_orderkey
        WHERE o.o_orderdate >= '1996-01-01' AND o.o_orderdate < '1997-01-01'
        GROUP BY n.n_name
        ORDER BY net_revenue DESC
        LIMIT 5
    """,
    duckdb="""
        SELECT n.n_name AS nation, count(DISTINCT o.o_orderkey) AS orders_n,
               sum(l.l_extendedprice * (1 - l.l_discount)) AS net_revenue
        FROM nation n
        JOIN customer c ON c.c_nationkey = n.n_nationkey
        JOIN orders o ON o.o_custkey = c.c_custkey
        JOIN lineitem l ON l.l_orderkey = o.o_orderkey
        WHERE year(o.o_orderdate) = 1996
        GROUP BY ALL
        ORDER BY net_revenue DESC
        LIMIT 5
    """,
    clickhouse="""
        SELECT n.n_name AS nation, uniqExact(o.o_orderkey) AS orders_n,
               sum(l.l_extendedprice * (1 - l.l_discount)) AS net_revenue
        FROM nation AS n
        INNER JOIN customer AS c ON c.c_nationkey = n.n_nationkey
        INNER JOIN orders AS o ON o.o_custkey = c.c_custkey
        INNER JOIN lineitem AS l ON l.l_orderkey = o.o_orderkey
        WHERE toYear(o.o_orderdate) = 1996
        GROUP BY n.n_name
        ORDER BY net_revenue DESC
        LIMIT 5
    """,
    postgres="""
        SELECT n.n_name AS nation, count(DISTINCT o.o_orderkey) AS orders_n,
               sum(l.l_extendedprice * (1 - l.l_discount)) AS net_revenue
        FROM nation n
        JOIN customer c ON c.c_nationkey = n.n_nationkey
        JOIN orders o ON o.o_custkey = c.c_custkey
        JOIN lineitem l ON l.l_orderkey = o.o_orderkey
        WHERE EXTRACT(YEAR FROM o.o_orderdate) = 1996
        GROUP BY n.n_name
        ORDER BY net_revenue DESC
        FETCH FIRST 5 ROWS ONLY
    """,
    mysql="""
        SELECT n.n_name AS nation, COUNT(DISTINCT o.o_orderkey) AS orders_n,
               SUM(l.l_extendedprice * (1 - l.l_discount)) AS net_revenue
        FROM nation AS n
        JOIN customer AS c ON c.c_nationkey = n.n_nationkey
        JOIN orders AS o ON o.o_custkey = c.c_custkey
        JOIN lineitem AS l ON l.l_orderkey = o.o_orderkey
        WHERE o.o_orderdate BETWEEN '1996-01-01' AND '1996-12-31'
        GROUP BY n.n_name
        ORDER BY net_revenue DESC
        LIMIT 5
    """,
    spark="""
        SELECT n.n_name AS nation, count(DISTINCT o.o_orderkey) AS orders_n,
               sum(l.l_extendedprice * (1 - l.l_discount)) AS net_revenue
        FROM nation n
        JOIN customer c ON c.c_nationkey = n.n_nationkey
        JOIN orders o ON o.o_custkey = c.c_custkey
        JOIN lineitem l ON l.l_orderkey = o.o_orderkey
        WHERE year(o.o_orderdate) = 1996
        GROUP BY n.n_name
        ORDER BY net_revenue DESC
        LIMIT 5
    """)

polyglot_concept(
    "tpch-urgent-orders-by-month-1997",
    "Per month of 1997, keyed by its first day: orders, urgent or high-priority ones, and the "
    "largest order total.",
    types="function", tags="datetime grouping case", difficulty="medium", fixture="tpch",
    sqlite="""
        SELECT date(o_orderdate, 'start of month') AS month_start,
               COUNT(*) AS orders_n,
               SUM(o_orderpriority IN ('1-URGENT', '2-HIGH')) AS urgent_n,
               MAX(o_totalprice) AS max_total
        FROM orders
        WHERE strftime('%Y', o_orderdate) = '1997'
        GROUP BY month_start
        ORDER BY month_start
    """,
    duckdb="""
        SELECT CAST(date_trunc('month', o_orderdate) AS DATE) AS month_start,
               count(*) AS orders_n,
               count_if(o_orderpriority IN ('1-URGENT', '2-HIGH')) AS urgent_n,
               max(o_totalprice) AS max_total
        FROM orders
        WHERE year(o_orderdate) = 1997
        GROUP BY 1
        ORDER BY 1
    """,
    clickhouse="""
        SELECT toStartOfMonth(o_orderdate) AS month_start,
               count() AS orders_n,
               countIf(o_orderpriority IN ('1-URGENT', '2-HIGH')) AS urgent_n,
               max(o_totalprice) AS max_total
        FROM orders
        WHERE toYear(o_orderdate) = 1997
        GROUP BY month_start
        ORDER BY month_start ASC
    """,
    postgres="""
        SELECT CAST(date_trunc('month', o_orderdate) AS DATE) AS month_start,
               count(*) AS orders_n,
               count(*) FILTER (WHERE left(o_orderpriority, 1) IN ('1', '2')) AS urgent_n,
               max(o_totalprice) AS max_total
        FROM orders
        WHERE o_orderdate >= DATE '1997-01-01' AND o_orderdate < DATE '1998-01-01'
        GROUP BY 1
        ORDER BY 1
    """,
    mysql="""
        SELECT DATE_SUB(o_orderdate, INTERVAL DAYOFMONTH(o_orderdate) - 1 DAY) AS month_start,
               COUNT(*) AS orders_n,
               SUM(o_orderpriority IN ('1-URGENT', '2-HIGH')) AS urgent_n,
               MAX(o_totalprice) AS max_total
        FROM orders
        WHERE YEAR(o_orderdate) = 1997
        GROUP BY month_start
        ORDER BY month_start
    """,
    spark="""
        SELECT trunc(o_orderdate, 'month') AS month_start,
               count(*) AS orders_n,
               count_if(o_orderpriority IN ('1-URGENT', '2-HIGH')) AS urgent_n,
               max(o_totalprice) AS max_total
        FROM orders
        WHERE year(o_orderdate) = 1997
        GROUP BY trunc(o_orderdate, 'month')
        ORDER BY month_start
    """)

# --- Spider databases (named fixtures `spider/<db_id>`; the queries are this project's own) ---

polyglot_concept(
    "world-most-populous-country-per-continent",
    "Per continent: inhabited countries and the most populous one with its population "
    "(mixed-case column names; an arg-max).",
    types="function syntax", tags="grouping subquery", difficulty="hard",
    fixture="spider/world_1",
    sqlite="""
        SELECT Continent, COUNT(*) AS countries_n, Name AS top_country,
               MAX(Population) AS top_population
        FROM country
        WHERE Population > 0
        GROUP BY Continent
        ORDER BY Continent
    """,
    duckdb="""
        SELECT Continent, count(*) AS countries_n, arg_max(Name, Population) AS top_country,
               max(Population) AS top_population
        FROM country
        WHERE Population > 0
        GROUP BY Continent
        ORDER BY Continent
    """,
    clickhouse="""
        SELECT Continent, count() AS countries_n, argMax(Name, Population) AS top_country,
               max(Population) AS top_population
        FROM country
        WHERE Population > 0
        GROUP BY Continent
        ORDER BY Continent ASC
    """,
    postgres="""
        SELECT Continent, count(*) AS countries_n,
               (array_agg(Name ORDER BY Population DESC))[1] AS top_country,
               max(Population) AS top_population
        FROM country
        WHERE Population > 0
        GROUP BY Continent
        ORDER BY Continent
    """,
    mysql="""
        SELECT Continent, countries_n, Name AS top_country, Population AS top_population
        FROM (
            SELECT Continent, Name, Population,
                   COUNT(*) OVER (PARTITION BY Continent) AS countries_n,
                   ROW_NUMBER() OVER (PARTITION BY Continent ORDER BY Population DESC) AS rn
            FROM country
            WHERE Population > 0
        ) AS ranked
        WHERE rn = 1
        ORDER BY Continent
    """,
    spark="""
        SELECT Continent, count(*) AS countries_n, max_by(Name, Population) AS top_country,
               max(Population) AS top_population
        FROM country
        WHERE Population > 0
        GROUP BY Continent
        ORDER BY Continent
    """)

polyglot_concept(
    "world-widely-official-languages",
    "Languages official in at least three countries: how many, and the country codes in "
    "alphabetical order, comma separated.",
    types="function syntax", tags="grouping string-agg ordering", difficulty="hard",
    fixture="spider/world_1", order_key=(1,),
    sqlite="""
        SELECT Language, COUNT(*) AS countries_n,
               (SELECT group_concat(CountryCode, ',')
                FROM (SELECT x.CountryCode FROM countrylanguage AS x
                      WHERE x.Language = l.Language AND x.IsOfficial = 'T'
                      ORDER BY x.CountryCode)) AS country_codes
        FROM countrylanguage AS l
        WHERE IsOfficial = 'T'
        GROUP BY Language
        HAVING COUNT(*) >= 3
        ORDER BY countries_n DESC
    """,
    duckdb="""
        SELECT Language, count(*) AS countries_n,
               string_agg(CountryCode, ',' ORDER BY CountryCode) AS country_codes
        FROM countrylanguage
        WHERE IsOfficial = 'T'
        GROUP BY Language
        HAVING count(*) >= 3
        ORDER BY countries_n DESC
    """,
    clickhouse="""
        SELECT Language, count() AS countries_n,
               arrayStringConcat(arraySort(groupArray(CountryCode)), ',') AS country_codes
        FROM countrylanguage
        WHERE IsOfficial = 'T'
        GROUP BY Language
        HAVING countries_n >= 3
        ORDER BY countries_n DESC
    """,
    postgres="""
        SELECT Language, count(*) AS countries_n,
               string_agg(CountryCode, ',' ORDER BY CountryCode) AS country_codes
        FROM countrylanguage
        WHERE IsOfficial = 'T'
        GROUP BY Language
        HAVING count(*) >= 3
        ORDER BY countries_n DESC
    """,
    mysql="""
        SELECT Language, COUNT(*) AS countries_n,
               GROUP_CONCAT(CountryCode ORDER BY CountryCode SEPARATOR ',') AS country_codes
        FROM countrylanguage
        WHERE IsOfficial = 'T'
        GROUP BY Language
        HAVING COUNT(*) >= 3
        ORDER BY countries_n DESC
    """,
    spark="""
        SELECT `Language`, count(*) AS countries_n,
               array_join(array_sort(collect_list(CountryCode)), ',') AS country_codes
        FROM countrylanguage
        WHERE IsOfficial = 'T'
        GROUP BY `Language`
        HAVING count(*) >= 3
        ORDER BY countries_n DESC
    """)

polyglot_concept(
    "cars-known-mpg-per-cylinder-count",
    "Per cylinder count: cars, cars with a known MPG, their average MPG and the highest known "
    "horsepower (numbers stored as text, unknowns as the string 'null').",
    types="data_type function", tags="cast null grouping numeric", difficulty="hard",
    fixture="spider/car_1",
    sqlite="""
        SELECT Cylinders, COUNT(*) AS cars_n,
               SUM(MPG <> 'null') AS mpg_known,
               AVG(CASE WHEN MPG <> 'null' THEN CAST(MPG AS REAL) END) AS avg_mpg,
               MAX(CASE WHEN Horsepower <> 'null' THEN CAST(Horsepower AS INTEGER) END)
                   AS max_horsepower
        FROM cars_data
        GROUP BY Cylinders
        ORDER BY Cylinders
    """,
    duckdb="""
        SELECT Cylinders, count(*) AS cars_n,
               count(TRY_CAST(MPG AS DOUBLE)) AS mpg_known,
               avg(TRY_CAST(MPG AS DOUBLE)) AS avg_mpg,
               max(TRY_CAST(Horsepower AS INTEGER)) AS max_horsepower
        FROM cars_data
        GROUP BY Cylinders
        ORDER BY Cylinders
    """,
    clickhouse="""
        SELECT Cylinders, count() AS cars_n,
               count(toFloat64OrNull(MPG)) AS mpg_known,
               avg(toFloat64OrNull(MPG)) AS avg_mpg,
               max(toInt32OrNull(Horsepower)) AS max_horsepower
        FROM cars_data
        GROUP BY Cylinders
        ORDER BY Cylinders ASC
    """,
    postgres="""
        SELECT Cylinders, count(*) AS cars_n,
               count(NULLIF(MPG, 'null')) AS mpg_known,
               avg(CAST(NULLIF(MPG, 'null') AS DOUBLE PRECISION)) AS avg_mpg,
               max(CAST(NULLIF(Horsepower, 'null') AS INTEGER)) AS max_horsepower
        FROM cars_data
        GROUP BY Cylinders
        ORDER BY Cylinders
    """,
    mysql="""
        SELECT Cylinders, COUNT(*) AS cars_n,
               COUNT(NULLIF(MPG, 'null')) AS mpg_known,
               AVG(CAST(NULLIF(MPG, 'null') AS DOUBLE)) AS avg_mpg,
               MAX(CAST(NULLIF(Horsepower, 'null') AS SIGNED)) AS max_horsepower
        FROM cars_data
        GROUP BY Cylinders
        ORDER BY Cylinders
    """,
    spark="""
        SELECT Cylinders, count(*) AS cars_n,
               count(try_cast(MPG AS DOUBLE)) AS mpg_known,
               avg(try_cast(MPG AS DOUBLE)) AS avg_mpg,
               max(try_cast(Horsepower AS INT)) AS max_horsepower
        FROM cars_data
        GROUP BY Cylinders
        ORDER BY Cylinders
    """)

# === end of concepts ===

# ------------------------------------------------------------------------------------------------
# Building the dataset files
# ------------------------------------------------------------------------------------------------


def split_statements(sql: str) -> list[str]:
    """Split on ';' outside quotes and comments (enough for the SQL in this file)."""
    parts, buf, quote = [], [], None
    for ch in sql:
        if quote:
            buf.append(ch)
            if ch == quote:
                quote = None
        elif ch in ("'", '"', "`"):
            quote = ch
            buf.append(ch)
        elif ch == ";":
            parts.append("".join(buf).strip())
            buf = []
        else:
            buf.append(ch)
    parts.append("".join(buf).strip())
    return [p for p in parts if p]


def sqlglot_order(sql: str, dialect: str) -> bool | None:
    """Whether the last statement has a top-level ORDER BY per sqlglot (None: unparseable)."""
    import sqlglot
    from sqlglot import exp

    try:
        statements = [s for s in sqlglot.parse(sql, read=dialect) if s is not None]
    except Exception:
        return None
    if not statements:
        return None
    last = statements[-1]
    if not isinstance(last, exp.Query):
        return None
    return last.args.get("order") is not None


def build_items() -> list[dict[str, Any]]:
    items = []
    for c in CONCEPTS:
        for src, tgt in PAIRS:
            record: dict[str, Any] = {
                "id": f"starter-{c.id}-{src}-{tgt}",
                "source_dialect": src,
                "target_dialect": tgt,
                "source_sql": c.sql[src],
                "reference_sql": c.sql[tgt],
                "fixture": {"name": c.fixture},
                "translation_types": list(c.types),
                "origin": ORIGIN,
                "annotation_source": "human",
                "difficulty": c.difficulty,
                "tags": list(c.tags),
                "concept": c.id,
            }
            # The loader derives order sensitivity from the source's AST; state it only where
            # sqlglot cannot see it (unparseable source) or would see it wrongly.
            if sqlglot_order(c.sql[src], src) != c.ordered:
                record["order_sensitive"] = c.ordered
            items.append(record)
    return items


def polyglot_concepts() -> list[Concept]:
    """Starter concepts written for all six dialects, then the polyglot-only ones."""
    return [c for c in CONCEPTS if set(POLYGLOT_DIALECTS) <= set(c.sql)] + POLYGLOT_ONLY


def polyglot_record(c: Concept, src: str, tgt: str) -> dict[str, Any]:
    record: dict[str, Any] = {
        "id": f"polyglot-{c.id}-{src}-{tgt}",
        "source_dialect": src,
        "target_dialect": tgt,
        "source_sql": c.sql[src],
        "reference_sql": c.sql[tgt],
        "fixture": {"name": c.fixture},
        "translation_types": list(c.types),
        "origin": POLYGLOT_ORIGIN,
        "annotation_source": "human",
        "difficulty": c.difficulty,
        "tags": list(c.tags),
        "concept": c.id,
    }
    if sqlglot_order(c.sql[src], src) != c.ordered:
        record["order_sensitive"] = c.ordered
    return record


def build_polyglot_items() -> list[dict[str, Any]]:
    return [polyglot_record(c, src, tgt)
            for c in polyglot_concepts() for src, tgt in POLYGLOT_PAIRS]


def _fixture_json(raw: dict[str, Any]) -> str:
    """Validate a fixture through parrot.fixtures and render it with one row per line."""
    from parrot.fixtures import fixture_from_json, fixture_to_json

    data = fixture_to_json(fixture_from_json(raw))
    out = ["{", f'  "name": {json.dumps(data["name"])},', '  "tables": [']
    for ti, t in enumerate(data["tables"]):
        out.append("    {")
        out.append(f'      "name": {json.dumps(t["name"])},')
        out.append('      "columns": [')
        cols = [json.dumps(c, ensure_ascii=False) for c in t["columns"]]
        out.extend(f"        {c}{',' if i < len(cols) - 1 else ''}" for i, c in enumerate(cols))
        out.append("      ],")
        out.append(f'      "primary_key": {json.dumps(t["primary_key"])},')
        out.append('      "rows": [')
        rows = [json.dumps(r, ensure_ascii=False) for r in t["rows"]]
        out.extend(f"        {r}{',' if i < len(rows) - 1 else ''}" for i, r in enumerate(rows))
        out.append("      ]")
        out.append("    }" + ("," if ti < len(data["tables"]) - 1 else ""))
    out.append("  ]")
    out.append("}")
    return "\n".join(out) + "\n"


DIVERGENCES = (
    "Integer division: SQLite `7/2` is 3, DuckDB and ClickHouse give 3.5 (`//`, `intDiv`); "
    "SQLite may store a DECIMAL such as 25.00 as the integer 25.",
    "NULL order: SQLite sorts NULLs first in ascending order, DuckDB and ClickHouse last.",
    "`LIKE` is case-insensitive in SQLite (ASCII), case-sensitive elsewhere (`ILIKE`, "
    "`lower(...) LIKE`).",
    "ClickHouse: a bare `UNION` is an error, `EXCEPT` / `INTERSECT` default to ALL, an "
    "ORDER BY after a set operation binds to its last SELECT only, LEFT JOIN fills unmatched "
    "non-Nullable columns with 0/'' unless `join_use_nulls = 1`, ROLLUP keys are '' unless "
    "`group_by_use_nulls = 1`, `NOT IN` ignores NULLs, `lagInFrame` yields 0 (not NULL) on "
    "non-Nullable input, `round` on floats is half-to-even, `length`/`substring`/`upper` work "
    "on bytes (`lengthUTF8`, ...), `toString` of a Decimal drops trailing zeros.",
    "DuckDB: `date_trunc` and `DATE + INTERVAL` return TIMESTAMP, `CAST(x AS INTEGER)` rounds "
    "(SQLite and ClickHouse truncate), `median` of a DECIMAL is a DECIMAL of the same scale, "
    "`count_if` over all-NULL input is NULL, `concat` skips NULLs, `greatest` ignores NULLs "
    "(SQLite's `max(a, b)` returns NULL), `date_diff('year')` counts boundaries.",
    "SQLite: no `lpad`/`repeat`/`concat` (3.40), `strftime` returns text ('2024', not 2024) "
    "and only milliseconds (`%f`), `date(d, '+1 month')` overflows 31 January into March, "
    "`group_concat` has no ORDER BY (3.40), bare columns with MIN/MAX take that row's values.",
)


def identical_share(items: list[dict[str, Any]]) -> float:
    same = sum(1 for i in items if i["source_sql"] == i["reference_sql"])
    return same / len(items) if items else 0.0


def render_readme(items: list[dict[str, Any]]) -> str:
    pairs = Counter(f'{i["source_dialect"]} → {i["target_dialect"]}' for i in items)
    types = Counter(t for c in CONCEPTS for t in c.types)
    tags = Counter(t for c in CONCEPTS for t in c.tags)
    diffs = Counter(c.difficulty for c in CONCEPTS)
    fixtures = Counter(c.fixture for c in CONCEPTS)
    same = sum(1 for i in items if i["source_sql"] == i["reference_sql"])
    lines = [
        "# starter — PARROT's hand-written starter benchmark",
        "",
        "<!-- Generated by scripts/build_starter.py; edit the script, not this file. -->",
        "",
        f"{len(CONCEPTS)} query **concepts**, each written by hand three times — for SQLite, "
        "DuckDB and ClickHouse — so that the three versions return the same result on the "
        "concept's fixture. Every concept expands into the six directed pairs between the three "
        f"dialects, giving **{len(items)} items** (`starter-<concept>-<source>-<target>`): the "
        "source is the concept's SQL in the source dialect and `reference_sql` is its SQL in the "
        "target dialect. All three engines run in-process (sqlite3, duckdb, chdb), so every "
        "item is scored by dual execution (Acc_EX and strict Acc_RES).",
        "",
        "Items carry `origin: parrot-starter`, `annotation_source: human`, the concept's "
        "`translation_types`, `tags` and `difficulty`, the named `fixture`, and an extra "
        "`concept` field grouping the six items of one concept. `order_sensitive` is written "
        "only where sqlglot cannot read the source's top-level ORDER BY itself.",
        "",
        "## Counts",
        "",
        "| pair | items |", "|---|---:|",
        *[f"| {p} | {n} |" for p, n in sorted(pairs.items())],
        "",
        f"Items whose source text equals the reference text: {same} of {len(items)} "
        f"({100 * same / len(items):.1f} %). Literal identity understates portability: some "
        "SQLite sources also run unchanged on DuckDB or ClickHouse with the same result, and "
        "recognising when no rewrite is needed is part of the task.",
        "",
        "| translation type | concepts | items |", "|---|---:|---:|",
        *[f"| {t} | {n} | {6 * n} |" for t, n in sorted(types.items())],
        "",
        "No concept is typed `procedure`: none of the three engines has stored procedures.",
        "",
        "| difficulty | concepts |", "|---|---:|",
        *[f"| {d} | {diffs[d]} |" for d in ("easy", "medium", "hard")],
        "",
        "| tag | concepts |", "|---|---:|",
        *[f"| {t} | {n} |" for t, n in sorted(tags.items(), key=lambda kv: (-kv[1], kv[0]))],
        "",
        "## Fixtures",
        "",
        "Fixtures are authored as data in `scripts/build_starter.py` and written to "
        "`fixtures/<name>.json` (portable types, see `parrot/fixtures.py`). They are small "
        "(tens of rows) and built to *separate* a faithful translation from plausible wrong "
        "ones: a translation that drops `NULLS FIRST`, keeps SQLite's integer division, uses "
        "`LIKE` for SQLite's case-insensitive `LIKE`, forgets ClickHouse's `EXCEPT DISTINCT` or "
        "`join_use_nulls`, rounds half-to-even, or cuts microseconds returns a different result.",
        "",
        "| fixture | concepts | contents |", "|---|---:|---|",
        *[f"| {name} | {fixtures[name]} | {FIXTURE_NOTES[name]} |" for name in FIXTURES],
        "",
        "## Concepts",
        "",
        "| concept | fixture | difficulty | types | description |", "|---|---|---|---|---|",
        *[f"| `{c.id}` | {c.fixture} | {c.difficulty} | {', '.join(c.types)} | "
          f"{c.description} |" for c in CONCEPTS],
        "",
        "## Divergences the items exercise",
        "",
        *[f"- {t}" for t in DIVERGENCES],
        "",
        "## Rules the SQL follows",
        "",
        "- Results agree strictly: same column count, values (numbers by value, strings "
        "exactly, dates as ISO text), multiplicity, and order wherever the query orders at top "
        "level. Dates come back as dates (SQLite: `YYYY-MM-DD` text), never as midnight "
        "timestamps.",
        "- A `LIMIT` only follows an `ORDER BY` that is unique over the result; window "
        "functions that number rows order by a unique key. Ties in a plain `ORDER BY` are "
        "allowed (the comparator treats tied rows as a multiset).",
        "- NULL placement is explicit wherever it matters (SQLite sorts NULLs first in "
        "ascending order, DuckDB and ClickHouse last).",
        "- Divisions are guarded with `NULLIF(…, 0)`; SQLite divisions of stored decimals cast "
        "to REAL or use `TOTAL()` first (a decimal such as 25.00 may be stored as the integer "
        "25).",
        "- Multi-statement items create a temporary view, macro or function first; the result "
        "is the last statement's. Object names start with `starter_`.",
        "",
        "## Rebuild and check",
        "",
        "```",
        "python scripts/build_starter.py            # rewrite items.jsonl, fixtures/, README.md",
        "python scripts/build_starter.py --check    # exit 1 if the committed files are stale",
        "python scripts/build_starter.py --verify   # run every triple on sqlite3, duckdb, chdb",
        "```",
        "",
        "`--verify` loads each fixture into in-memory SQLite (decimals declared both as "
        "DECIMAL and as REAL), DuckDB (INTEGER and BIGINT) and chdb (Int32 and Int64, "
        "`Nullable(...)` for nullable columns, `Decimal(p,s)`, `Date32`, `DateTime64(6)`, "
        "`Bool`; also with `join_use_nulls = 1`), each in three row orders, and checks that all "
        "versions of a concept return the same rows (in the same order when ordered), that no "
        "result is empty unless the concept says so, that no `LIMIT` cuts a tie, and that "
        "sqlglot sees the same top-level ORDER BY as the concept declares.",
        "",
    ]
    return "\n".join(lines)


POLYGLOT_LABELS = {"sqlite": "SQLite", "duckdb": "DuckDB", "clickhouse": "ClickHouse",
                   "postgres": "PostgreSQL", "mysql": "MySQL", "spark": "Spark"}

NAMED_FIXTURE_NOTES = {
    "tpch": "TPC-H at scale factor 0.01 (8 tables, 86,805 rows), generated offline by DuckDB's "
            "dbgen from the `duckdb-extension-tpch` wheel",
    "spider/world_1": "Spider's `world_1` database (239 countries, 4,079 cities, 984 country "
                      "languages; mixed-case column names such as `CountryCode`)",
    "spider/car_1": "Spider's `car_1` database (406 cars; MPG and horsepower stored as text "
                    "with the string 'null' for unknown values)",
}

POLYGLOT_DIVERGENCES = (
    "PostgreSQL: `7/2` is 3 (integer division), NULLs sort last ascending and first "
    "descending, `round(double precision, n)` does not exist and `round(double)` rounds half to "
    "even (cast to NUMERIC first), `date - date` is an integer, `date + interval` a timestamp, "
    "unquoted identifiers fold to lower case (the adapter creates fixture tables under "
    "lower-cased names), `string_agg(... ORDER BY ...)`, `FILTER (WHERE ...)`, "
    "`OFFSET ... FETCH NEXT ... ROWS ONLY`, `to_char` patterns (`US` for microseconds).",
    "MySQL (MariaDB 10.11 serves the dialect here): `7/2` is the DECIMAL 3.5000 (`DIV` for the "
    "integer quotient), NULLs sort first ascending and there is no `NULLS FIRST/LAST`, string "
    "comparison, `GROUP BY`, `DISTINCT` and set operations use utf8mb4_general_ci (case- and "
    "accent-insensitive, trailing spaces ignored; `COLLATE utf8mb4_bin` for an exact match), "
    "`||` is logical OR (use `CONCAT`), `LENGTH` counts bytes (`CHAR_LENGTH`), comparisons "
    "return 0/1, `GROUP_CONCAT(... ORDER BY ... SEPARATOR ...)`, `LIMIT offset, count`, "
    "`DATE_FORMAT` patterns (`%f` for microseconds), `TIMESTAMPDIFF`, `SUBSTRING_INDEX`, a "
    "recursive CTE's column types come from its anchor member.",
    "Spark SQL (Spark 4, ANSI mode on): a bad cast or a division by zero is an error "
    "(`try_cast`, `NULLIF`), `7/2` is 3.5 and `div` the integer quotient, NULLs sort first "
    "ascending, `round` is half-up on doubles, `add_months` and `months_between` follow "
    "end-of-month rules, Java-style `date_format` patterns (`SSSSSS`, `MMM`), "
    "`collect_list` has no order (`array_sort` it), `max_by`, `count_if`, "
    "`sequence`+`explode` for series, timestamps are TIMESTAMP_NTZ here.",
    "SQLite, DuckDB and ClickHouse differ as described in datasets/starter/README.md (SQLite's "
    "integer division, case-insensitive LIKE and bare columns next to MAX; ClickHouse's "
    "set-operation defaults, byte-based string functions and non-Nullable defaults; DuckDB's "
    "TIMESTAMP-returning date arithmetic).",
)


def _pair_matrix(items: list[dict[str, Any]]) -> list[str]:
    pairs = Counter((i["source_dialect"], i["target_dialect"]) for i in items)
    head = "| source ↓ target → | " + " | ".join(POLYGLOT_LABELS[d] for d in POLYGLOT_DIALECTS)
    rows = [head + " |", "|---|" + "---:|" * len(POLYGLOT_DIALECTS)]
    for s in POLYGLOT_DIALECTS:
        cells = ["—" if s == t else str(pairs[(s, t)]) for t in POLYGLOT_DIALECTS]
        rows.append(f"| {POLYGLOT_LABELS[s]} | " + " | ".join(cells) + " |")
    totals = Counter(i["target_dialect"] for i in items)
    rows.append("| **into the target** | "
                + " | ".join(f"**{totals[t]}**" for t in POLYGLOT_DIALECTS) + " |")
    return rows


def render_polyglot_readme(items: list[dict[str, Any]]) -> str:
    concepts = polyglot_concepts()
    from_starter = [c for c in concepts if c in CONCEPTS]
    named = [c for c in concepts if c.fixture not in FIXTURES]
    n_pairs = len(POLYGLOT_PAIRS)
    types = Counter(t for c in concepts for t in c.types)
    tags = Counter(t for c in concepts for t in c.tags)
    diffs = Counter(c.difficulty for c in concepts)
    fixtures = Counter(c.fixture for c in concepts)
    same = sum(1 for i in items if i["source_sql"] == i["reference_sql"])
    per_pair = Counter((i["source_dialect"], i["target_dialect"]) for i in items)
    lines = [
        "# polyglot — PARROT's six-dialect benchmark",
        "",
        "<!-- Generated by scripts/build_starter.py; edit the script, not this file. -->",
        "",
        f"{len(concepts)} query **concepts**, each written by hand six times — for SQLite, "
        "DuckDB, ClickHouse, PostgreSQL, MySQL and Spark SQL — so that the six versions return "
        "the same result on the concept's fixture. Every concept expands into the "
        f"{n_pairs} directed pairs between the six dialects, giving **{len(items)} items** "
        "(`polyglot-<concept>-<source>-<target>`): the source is the concept's SQL in the "
        "source dialect and `reference_sql` is its SQL in the target dialect.",
        "",
        f"{len(from_starter)} concepts are starter concepts that gained PostgreSQL, MySQL and "
        "Spark versions (their SQLite, DuckDB and ClickHouse text is the starter's, so the "
        f"`starter` items of these concepts are a subset of the pairs here); {len(named)} are "
        "written for polyglot only, over the named fixtures `tpch` and `spider/<db_id>`. All "
        "SQL is this project's own (the Spider and TPC-H queries too: only their data is "
        "reused).",
        "",
        "Items carry `origin: parrot-polyglot`, `annotation_source: human`, the concept's "
        "`translation_types`, `tags` and `difficulty`, the named `fixture`, and an extra "
        f"`concept` field grouping the {n_pairs} items of one concept. `order_sensitive` is "
        "written only where sqlglot cannot read the source's top-level ORDER BY itself.",
        "",
        "The `mysql` dialect is served by **MariaDB 10.11** on these machines (Debian has no "
        "MySQL): the MySQL SQL here is written for and verified on MariaDB, and avoids what the "
        "two disagree on.",
        "",
        "## Counts",
        "",
        f"Items per directed pair (every pair has {min(per_pair.values())}; the pairs PARROT "
        "emphasises — into PostgreSQL, MySQL and DuckDB — are covered by every concept):",
        "",
        *_pair_matrix(items),
        "",
        f"Items whose source text equals the reference text: {same} of {len(items)} "
        f"({100 * same / len(items):.1f} %).",
        "",
        "| translation type | concepts | items |", "|---|---:|---:|",
        *[f"| {t} | {n} | {n_pairs * n} |" for t, n in sorted(types.items())],
        "",
        "| difficulty | concepts |", "|---|---:|",
        *[f"| {d} | {diffs[d]} |" for d in ("easy", "medium", "hard")],
        "",
        "| tag | concepts |", "|---|---:|",
        *[f"| {t} | {n} |" for t, n in sorted(tags.items(), key=lambda kv: (-kv[1], kv[0]))],
        "",
        "## Fixtures",
        "",
        "The five small fixtures are the starter's (authored in `scripts/build_starter.py`, "
        "written to `fixtures/<name>.json` here too, byte-identical to "
        "`datasets/starter/fixtures/`). The named fixtures are not stored here: the loader "
        "resolves them through `parrot.migrate.named` (TPC-H needs the `duckdb-extension-tpch` "
        "wheel, Spider databases need the corpus under `$PARROT_CORPORA`). Where one cannot be "
        "resolved the dataset does not load.",
        "",
        "| fixture | concepts | contents |", "|---|---:|---|",
        *[f"| {name} | {fixtures[name]} | {FIXTURE_NOTES[name]} |"
          for name in FIXTURES if fixtures[name]],
        *[f"| {name} | {fixtures[name]} | {NAMED_FIXTURE_NOTES.get(name, 'named fixture')} |"
          for name in sorted({c.fixture for c in named})],
        "",
        "## Concepts",
        "",
        "| concept | fixture | difficulty | types | description |", "|---|---|---|---|---|",
        *[f"| `{c.id}` | {c.fixture} | {c.difficulty} | {', '.join(c.types)} | "
          f"{c.description} |" for c in concepts],
        "",
        "## Divergences the items exercise",
        "",
        *[f"- {t}" for t in POLYGLOT_DIVERGENCES],
        "",
        "## Rules the SQL follows",
        "",
        "- The starter's rules (strict agreement, no LIMIT cutting a tie, explicit NULL "
        "placement, guarded divisions) hold for all six dialects.",
        "- Text that MariaDB compares, groups or sorts is free of case/accent/trailing-space "
        "variants on the fixture, or compared with `COLLATE utf8mb4_bin` in the MySQL version, "
        "or the case-insensitive match is the concept's meaning ('delivered' in any letter "
        "case); the MySQL SQL does not rely on `ONLY_FULL_GROUP_BY` being off.",
        "- Results never depend on Spark's non-ANSI legacy behaviour or on a session time zone "
        "(all engines run in UTC; fixture timestamps have no time zone).",
        "- Numbers compare by value (MariaDB's `7/2` = 3.5000 equals 3.5, SQLite's float sum "
        "of decimals equals the exact decimal sum within 1e-9); a value is rounded only where "
        "no engine's floating-point or decimal arithmetic can land on the other side of a "
        "half (sums and averages over TPC-H and Spider data are left unrounded).",
        "",
        "## Rebuild and check",
        "",
        "```",
        "python scripts/build_starter.py                    # rewrite starter and polyglot",
        "python scripts/build_starter.py --check            # exit 1 if either is stale",
        "python scripts/build_starter.py --verify-polyglot  # judge every item on real engines",
        "python -m parrot.eval --model reference --dataset polyglot --output-dir /tmp/poly-ref",
        "```",
        "",
        "`--verify-polyglot` runs every item's source on its engine and its reference on the "
        "target engine through `parrot.eval.judge.Judge` (starting the managed PostgreSQL and "
        "MariaDB servers, and a local Spark session), and requires a strict match and no LIMIT "
        "cutting a tie.",
        "",
    ]
    return "\n".join(lines)


def render_polyglot_files() -> dict[Path, str]:
    items = build_polyglot_items()
    files: dict[Path, str] = {
        POLYGLOT_OUT / "items.jsonl": "".join(json.dumps(i, ensure_ascii=False) + "\n"
                                              for i in items),
        POLYGLOT_OUT / "README.md": render_polyglot_readme(items),
    }
    used = {c.fixture for c in polyglot_concepts()}
    for name, raw in FIXTURES.items():
        if name in used:
            files[POLYGLOT_OUT / "fixtures" / f"{name}.json"] = _fixture_json(raw)
    return files


def render_files() -> dict[Path, str]:
    items = build_items()
    files: dict[Path, str] = {
        OUT / "items.jsonl": "".join(json.dumps(i, ensure_ascii=False) + "\n" for i in items),
        OUT / "README.md": render_readme(items),
    }
    for name, raw in FIXTURES.items():
        files[OUT / "fixtures" / f"{name}.json"] = _fixture_json(raw)
    return files | render_polyglot_files()


def check_concepts() -> list[str]:
    """Static checks on the authored data (no engine needed)."""
    from parrot.datasets import TRANSLATION_TYPES

    problems = []
    seen = set()
    for c in CONCEPTS:
        if c.id in seen:
            problems.append(f"{c.id}: duplicate concept id")
        seen.add(c.id)
        if not re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", c.id):
            problems.append(f"{c.id}: id is not a lower-case slug")
        if c.fixture not in FIXTURES:
            problems.append(f"{c.id}: unknown fixture {c.fixture!r}")
        if c.difficulty not in ("easy", "medium", "hard"):
            problems.append(f"{c.id}: difficulty {c.difficulty!r}")
        bad = [t for t in c.types if t not in TRANSLATION_TYPES]
        if bad or not c.types:
            problems.append(f"{c.id}: translation types {c.types}")
        unknown = [t for t in c.tags if t not in TAGS]
        if unknown or not c.tags:
            problems.append(f"{c.id}: tags {unknown or c.tags} (known: {sorted(TAGS)})")
        if c.order_key is not None and not c.ordered:
            problems.append(f"{c.id}: order_key without ORDER BY")
        extra = set(c.sql) - set(DIALECTS)
        if not set(DIALECTS) <= set(c.sql) or extra not in (set(), set(EXTRA_DIALECTS)):
            problems.append(f"{c.id}: needs {DIALECTS}, plus all of {EXTRA_DIALECTS} or none")
    if sum(c.expect_empty for c in CONCEPTS) > 2:
        problems.append("more than two concepts expect an empty result")
    return problems + check_polyglot_concepts(seen)


def check_polyglot_concepts(starter_ids: set[str]) -> list[str]:
    """Static checks on the polyglot-only concepts (ids must not clash with starter's)."""
    from parrot.datasets import TRANSLATION_TYPES

    problems = []
    seen = set(starter_ids)
    for c in POLYGLOT_ONLY:
        if c.id in seen:
            problems.append(f"{c.id}: duplicate concept id")
        seen.add(c.id)
        if not re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", c.id):
            problems.append(f"{c.id}: id is not a lower-case slug")
        if c.fixture not in FIXTURES and not re.fullmatch(r"tpch|spider/[A-Za-z0-9_]+",
                                                          c.fixture):
            problems.append(f"{c.id}: fixture {c.fixture!r} is neither authored here nor named")
        if c.difficulty not in ("easy", "medium", "hard"):
            problems.append(f"{c.id}: difficulty {c.difficulty!r}")
        if not c.types or any(t not in TRANSLATION_TYPES for t in c.types):
            problems.append(f"{c.id}: translation types {c.types}")
        if not c.tags or any(t not in TAGS for t in c.tags):
            problems.append(f"{c.id}: tags {c.tags} (known: {sorted(TAGS)})")
        if c.order_key is not None and not c.ordered:
            problems.append(f"{c.id}: order_key without ORDER BY")
        if set(c.sql) != set(POLYGLOT_DIALECTS):
            problems.append(f"{c.id}: needs exactly {POLYGLOT_DIALECTS}")
    return problems


# ------------------------------------------------------------------------------------------------
# Verification on real engines (a simple stand-in for parrot's adapters and comparator)
# ------------------------------------------------------------------------------------------------

def _canon_number(v: Any) -> tuple[str, str]:
    import math

    x = float(v)
    if math.isnan(x):
        return ("n", "nan")
    if math.isinf(x):
        return ("n", "inf" if x > 0 else "-inf")
    if isinstance(v, int) and not isinstance(v, bool) and abs(v) < 10**15:
        return ("n", str(v))
    f = float(format(x, ".10g"))
    if f.is_integer() and abs(f) < 1e15:
        return ("n", str(int(f)))
    return ("n", repr(f))


def canon(v: Any) -> Any:
    """Canonical form of one value: numbers by value (~1e-10 relative), temporals as ISO text."""
    import datetime as dt
    from decimal import Decimal

    from parrot.values import temporal

    if v is None:
        return None
    if isinstance(v, bool):
        return ("n", "1" if v else "0")
    if isinstance(v, int | float | Decimal):
        return _canon_number(v)
    if isinstance(v, str):
        return ("s", v)
    if isinstance(v, dt.date | dt.datetime | dt.time):
        return ("s", temporal(v).iso)
    if isinstance(v, bytes | bytearray | memoryview):
        return ("b", bytes(v).hex())
    return ("j", json.dumps(v, default=str, sort_keys=True))


def _row_key(row: tuple[Any, ...]) -> str:
    return json.dumps(row)


class Runner:
    """Fixture loading and query execution on sqlite3, duckdb and chdb, in several variants."""

    ORDERS = ("as-is", "reversed", "shuffled")

    def __init__(self) -> None:
        from chdb import session as chs

        self.ch = chs.Session()
        self.ch.query("SET session_timezone = 'UTC'")
        self._sqlite: dict[tuple[str, int], Any] = {}
        self._duck: dict[tuple[str, int], Any] = {}
        self._chdb: set[tuple[str, int]] = set()

    # -- helpers --
    @staticmethod
    def _fixture(name: str):
        from parrot.fixtures import fixture_from_json

        return fixture_from_json(FIXTURES[name])

    @staticmethod
    def _rows(table, variant: int) -> list[tuple[Any, ...]]:
        import random

        rows = list(table.rows)
        order = Runner.ORDERS[variant % 3]
        if order == "reversed":
            rows.reverse()
        elif order == "shuffled":
            random.Random(f"{table.name}-{variant}").shuffle(rows)
        return rows

    # -- SQLite: variants 0-2 declare decimals DECIMAL(p,s) (NUMERIC affinity), 3-5 REAL --
    def sqlite(self, name: str, variant: int):
        import sqlite3

        from parrot.values import temporal

        key = (name, variant)
        if key in self._sqlite:
            return self._sqlite[key]
        con = sqlite3.connect(":memory:")
        fixture = self._fixture(name)
        for t in fixture.tables:
            defs = []
            for c in t.columns:
                if c.type.startswith("decimal"):
                    st = c.type.upper() if variant < 3 else "REAL"
                else:
                    st = {"integer": "INTEGER", "bigint": "INTEGER", "double": "REAL",
                          "text": "TEXT", "boolean": "INTEGER", "date": "TEXT",
                          "timestamp": "TEXT"}[c.type]
                defs.append(f'"{c.name}" {st}' + ("" if c.nullable else " NOT NULL"))
            con.execute(f'CREATE TABLE "{t.name}" ({", ".join(defs)})')

            def conv(v, ptype):
                if v is None:
                    return None
                if ptype.startswith("decimal"):
                    return float(v)
                if ptype == "boolean":
                    return int(v)
                if ptype in ("date", "timestamp"):
                    return temporal(v).iso
                return v

            rows = [tuple(conv(v, c.type) for v, c in zip(r, t.columns, strict=True))
                    for r in self._rows(t, variant)]
            marks = ", ".join("?" * len(t.columns))
            con.executemany(f'INSERT INTO "{t.name}" VALUES ({marks})', rows)
        self._check_load("sqlite", fixture, lambda q: con.execute(q).fetchall())
        self._sqlite[key] = con
        return con

    # -- DuckDB: even variants INTEGER, odd variants BIGINT for portable 'integer' --
    def duck(self, name: str, variant: int):
        import duckdb

        key = (name, variant)
        if key in self._duck:
            return self._duck[key]
        con = duckdb.connect(":memory:")
        fixture = self._fixture(name)
        for t in fixture.tables:
            defs = []
            for c in t.columns:
                st = {"integer": "INTEGER" if variant % 2 == 0 else "BIGINT", "bigint": "BIGINT",
                      "double": "DOUBLE", "text": "VARCHAR", "boolean": "BOOLEAN",
                      "date": "DATE", "timestamp": "TIMESTAMP"}.get(c.type, c.type.upper())
                defs.append(f'"{c.name}" {st}' + ("" if c.nullable else " NOT NULL"))
            con.execute(f'CREATE TABLE "{t.name}" ({", ".join(defs)})')
            marks = ", ".join("?" * len(t.columns))
            rows = self._rows(t, variant)
            if rows:
                con.executemany(f'INSERT INTO "{t.name}" VALUES ({marks})', rows)
        self._check_load("duckdb", fixture, lambda q: con.execute(q).fetchall())
        self._duck[key] = con
        return con

    # -- ClickHouse (chdb): variant 0 Int32, 1 Int64, 2 Int64 + join_use_nulls = 1 --
    @staticmethod
    def _ch_literal(v: Any, ptype: str) -> str:
        import math

        from parrot.values import temporal

        if v is None:
            return "NULL"
        if ptype == "boolean":
            return "true" if v else "false"
        if ptype in ("integer", "bigint"):
            return str(v)
        if ptype == "double":
            if math.isnan(v):
                return "nan"
            if math.isinf(v):
                return "inf" if v > 0 else "-inf"
            return repr(v)
        if ptype.startswith("decimal"):
            return str(v)
        if ptype in ("date", "timestamp"):
            return "'" + temporal(v).iso + "'"
        return "'" + str(v).replace("\\", "\\\\").replace("'", "\\'") + "'"

    def _ch_db(self, name: str, variant: int) -> str:
        db = f"starter_{name}_v{variant}"
        if (name, variant) in self._chdb:
            return db
        fixture = self._fixture(name)
        self.ch.query(f"DROP DATABASE IF EXISTS {db}")
        self.ch.query(f"CREATE DATABASE {db}")
        for t in fixture.tables:
            defs = []
            for c in t.columns:
                m = re.match(r"decimal\((\d+),(\d+)\)", c.type)
                st = (f"Decimal({m[1]}, {m[2]})" if m else
                      {"integer": "Int32" if variant == 0 else "Int64", "bigint": "Int64",
                       "double": "Float64", "text": "String", "boolean": "Bool",
                       "date": "Date32", "timestamp": "DateTime64(6)"}[c.type])
                defs.append(f"`{c.name}` " + (f"Nullable({st})" if c.nullable else st))
            self.ch.query(f"CREATE TABLE {db}.`{t.name}` ({', '.join(defs)}) "
                          "ENGINE = MergeTree ORDER BY tuple()")
            rows = self._rows(t, variant)
            if rows:
                values = ", ".join(
                    "(" + ", ".join(self._ch_literal(v, c.type)
                                    for v, c in zip(r, t.columns, strict=True)) + ")"
                    for r in rows)
                self.ch.query(f"INSERT INTO {db}.`{t.name}` VALUES {values}")
        self._chdb.add((name, variant))
        self.ch.query(f"USE {db}")
        self._check_load("clickhouse", fixture, lambda q: self._ch_rows(q))
        return db

    def _ch_rows(self, sql: str) -> list[tuple[Any, ...]]:
        from decimal import Decimal

        text = self.ch.query(sql, "JSONCompact").bytes().decode()
        if not text.strip():
            return []
        data = json.loads(text, parse_float=Decimal)
        types = [m["type"] for m in data["meta"]]
        out = []
        for row in data["data"]:
            out.append(tuple(self._ch_value(v, t) for v, t in zip(row, types, strict=True)))
        return out

    @staticmethod
    def _ch_value(v: Any, ctype: str) -> Any:
        import datetime as dt
        from decimal import Decimal

        t = ctype
        while True:
            m = re.fullmatch(r"(?:Nullable|LowCardinality)\((.*)\)", t)
            if not m:
                break
            t = m[1]
        if v is None:
            return None
        if re.fullmatch(r"U?Int\d+", t):
            return int(v)
        if t.startswith("Float") or t.startswith("BFloat"):
            return float(v)
        if t.startswith("Decimal"):
            return Decimal(str(v))
        if t == "Bool":
            return bool(v)
        if t in ("Date", "Date32"):
            return dt.date.fromisoformat(v)
        if t.startswith("DateTime"):
            return dt.datetime.fromisoformat(v)
        if t.startswith(("Array", "Tuple", "Map")):
            return json.dumps(v, default=str)
        return v

    def _check_load(self, engine: str, fixture, fetch) -> None:
        from parrot.fixtures import table_checksum

        for t in fixture.tables:
            cols = ", ".join(f'"{c.name}"' if engine != "clickhouse" else f"`{c.name}`"
                             for c in t.columns)
            got = table_checksum(t, fetch(f"SELECT {cols} FROM {t.name}"))
            if got != fixture.checksums[t.name]:
                raise RuntimeError(f"{engine}: fixture {fixture.name}.{t.name} loaded lossily")

    # -- execution --
    def run(self, dialect: str, sql: str, fixture: str, variant: int) -> list[tuple[Any, ...]]:
        statements = split_statements(sql)
        if dialect == "sqlite":
            con = self.sqlite(fixture, variant)
            rows: list[tuple[Any, ...]] = []
            for s in statements:
                rows = con.execute(s).fetchall()
            return rows
        if dialect == "duckdb":
            con = self.duck(fixture, variant)
            rows = []
            for s in statements:
                rel = con.execute(s)
                try:
                    rows = rel.fetchall()
                except Exception:
                    rows = []
            return rows
        db = self._ch_db(fixture, variant)
        self.ch.query(f"USE {db}")
        self.ch.query(f"SET join_use_nulls = {1 if variant == 2 else 0}")
        try:
            rows = []
            for s in statements:
                rows = self._ch_rows(s)
            return rows
        finally:
            self.ch.query("SET join_use_nulls = 0")

    def variants(self, dialect: str) -> range:
        return range(6) if dialect == "sqlite" else range(3)


def _groups(rows: list[tuple[Any, ...]], key: tuple[int, ...] | None) -> list[list[str]]:
    """Consecutive rows with equal sort keys, each as a sorted list (ties may permute)."""
    out: list[list[str]] = []
    last: Any = object()
    for r in rows:
        k = r if key is None else tuple(r[i] for i in key)
        if out and k == last:
            out[-1].append(_row_key(r))
        else:
            out.append([_row_key(r)])
        last = k
    return [sorted(g) for g in out]


def same_result(a: list[tuple[Any, ...]], b: list[tuple[Any, ...]], ordered: bool,
                key: tuple[int, ...] | None) -> bool:
    if len(a) != len(b) or (a and len(a[0]) != len(b[0])):
        return False
    if not ordered:
        return Counter(map(_row_key, a)) == Counter(map(_row_key, b))
    return _groups(a, key) == _groups(b, key)


def limit_tie_problem(runner: Runner, c: Concept) -> str | None:
    """If the DuckDB version ends in ORDER BY ... LIMIT, check the rows around the cut differ."""
    import sqlglot
    from sqlglot import exp

    statements = split_statements(c.sql["duckdb"])
    last = sqlglot.parse_one(statements[-1], read="duckdb")
    if not isinstance(last, exp.Select) or not (last.args.get("limit") or last.args.get("offset")):
        return None
    if not last.args.get("order"):
        return "LIMIT without ORDER BY"
    limit = last.args.get("limit")
    offset = last.args.get("offset")
    n = int(limit.expression.name) if limit else None
    off = int(offset.expression.name) if offset else 0
    projections = last.expressions
    aliases = {p.alias: p.this for p in projections if isinstance(p, exp.Alias)}
    keys = []
    for o in last.args["order"].expressions:
        e = o.this
        if isinstance(e, exp.Literal) and e.is_int:
            e = projections[int(e.name) - 1]
            e = e.this if isinstance(e, exp.Alias) else e
        elif isinstance(e, exp.Column) and not e.table and e.name in aliases:
            e = aliases[e.name]
        keys.append(e.copy())
    probe = last.copy()
    probe.set("limit", None)
    probe.set("offset", None)
    probe.set("expressions", [k.as_(f"k{i}") for i, k in enumerate(keys)])
    probe.set("order", exp.Order(expressions=[
        exp.Ordered(this=exp.column(f"k{i}"), desc=o.args.get("desc"),
                    nulls_first=o.args.get("nulls_first"))
        for i, o in enumerate(last.args["order"].expressions)]))
    con = runner.duck(c.fixture, 0)
    for s in statements[:-1]:
        con.execute(s)
    full = [tuple(map(canon, r)) for r in con.execute(probe.sql("duckdb")).fetchall()]
    cuts = [off] + ([off + n] if n is not None else [])
    for cut in cuts:
        if 0 < cut < len(full) and full[cut - 1] == full[cut]:
            return f"LIMIT/OFFSET cuts a tie at row {cut}: {full[cut]}"
    return None


def verify(only: list[str] | None = None, show: bool = False) -> int:
    import time

    runner = Runner()
    failures = 0
    started = time.time()
    empties = 0
    concepts = [c for c in CONCEPTS if not only or c.id in only]
    for c in concepts:
        problems = []
        results: dict[str, list[tuple[Any, ...]]] = {}
        for d in DIALECTS:
            seen = sqlglot_order(c.sql[d], d)
            if seen is not None and seen != c.ordered:
                problems.append(f"{d}: sqlglot sees top-level ORDER BY={seen}, "
                                f"concept says {c.ordered}")
            for v in runner.variants(d):
                try:
                    raw = runner.run(d, c.sql[d], c.fixture, v)
                except Exception as exc:
                    problems.append(f"{d} v{v}: {type(exc).__name__}: {str(exc)[:300]}")
                    break
                rows = [tuple(canon(x) for x in r) for r in raw]
                if d not in results:
                    results[d] = rows
                elif not same_result(results[d], rows, c.ordered, c.order_key):
                    problems.append(f"{d}: variant {v} differs from variant 0 (nondeterministic "
                                    "or load-dependent)")
        base = results.get("sqlite")
        for d in ("duckdb", "clickhouse"):
            if base is not None and d in results and not same_result(base, results[d],
                                                                     c.ordered, c.order_key):
                problems.append(f"sqlite and {d} disagree")
        if base is not None:
            if not base and not c.expect_empty:
                problems.append("empty result")
            if base and c.expect_empty:
                problems.append("expected an empty result")
            empties += not base
        try:
            tie = limit_tie_problem(runner, c)
        except Exception as exc:
            tie = f"limit check failed: {exc}"
        if tie:
            problems.append(tie)
        status = "ok  " if not problems else "FAIL"
        n = len(base) if base is not None else "?"
        print(f"{status} {c.id} ({c.fixture}, {n} rows)")
        for p in problems:
            print(f"       {p}")
        if problems or show:
            for d in DIALECTS:
                if d in results:
                    shown = [tuple(x[1] if x else None for x in r) for r in results[d]]
                    print(f"       {d:10} {shown[:40]}")
        failures += bool(problems)
    print(f"\n{len(concepts) - failures}/{len(concepts)} concepts agree on all engines and "
          f"variants; {empties} with an empty result; {time.time() - started:.1f}s")
    return 1 if failures else 0


def verify_polyglot(only: list[str] | None = None) -> int:
    """Judge every polyglot item on real engines: source and reference must match strictly."""
    import time

    from parrot.datasets import parse_items
    from parrot.eval.judge import Judge
    from parrot.translators.base import Translation

    files = render_polyglot_files()
    stale = [p for p, text in files.items()
             if not p.is_file() or p.read_text(encoding="utf-8") != text]
    if stale:
        print("datasets/polyglot is stale: run python scripts/build_starter.py first",
              file=sys.stderr)
        return 1
    path = POLYGLOT_OUT / "items.jsonl"
    items = [i for i in parse_items(path.read_text(encoding="utf-8").splitlines(), path)
             if not only or i.extra.get("concept") in only]
    from parrot.servers import SERVERS, server_for

    started = time.time()
    idle = [d for d in SERVERS if server_for(d).state() is None]  # stopped again afterwards
    judge = Judge(timeout=60, start=True)
    verified: Counter[tuple[str, str]] = Counter()
    missing: dict[str, str] = {}
    failures = 0
    tie_checked: set[tuple[str, str]] = set()
    try:
        for item in items:
            record = judge.judge(item, Translation.from_sql(item.reference_sql[0]))
            gold, pred = record["gold"], record["pred"] or {}
            no_engine = [(d, e.get("error", "")) for d, e in
                         ((item.source_dialect, gold), (item.target_dialect, pred))
                         if e.get("status") == "no_engine"]
            if no_engine:
                missing.update(no_engine)
                continue
            verdict = record["verdicts"]["strict"]
            problem = None
            if gold["status"] != "ok":
                problem = f"source failed: {gold.get('error')}"
            elif pred.get("status") != "ok":
                problem = f"reference failed: {pred.get('error')}"
            elif not verdict["match"]:
                problem = f"{verdict['reason']}: {verdict.get('detail')}"
            key = (str(item.extra.get("concept")), item.source_dialect)
            if problem is None and key not in tie_checked:
                tie_checked.add(key)
                problem = judge.limit_cuts_ties(item)
            if problem:
                failures += 1
                print(f"FAIL {item.id}: {problem}"[:600])
            else:
                verified[(item.source_dialect, item.target_dialect)] += 1
    finally:
        judge.close()
        for dialect in idle:
            if server_for(dialect).state() is not None:
                server_for(dialect).stop()
    print(f"\n{sum(verified.values())}/{len(items)} items verified strictly in "
          f"{time.time() - started:.0f}s; {failures} failed")
    for s in POLYGLOT_DIALECTS:
        print(f"  {s:10} → " + "  ".join(f"{t}:{verified[(s, t)]}" for t in POLYGLOT_DIALECTS
                                         if t != s))
    for dialect, error in sorted(missing.items()):
        print(f"not verified — no {dialect} engine: {error}")
    return 1 if failures or missing else 0


# ------------------------------------------------------------------------------------------------

def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true",
                      help="exit 1 if the committed files differ from what would be written")
    mode.add_argument("--verify", action="store_true",
                      help="run every concept on sqlite3, duckdb and chdb and compare results")
    mode.add_argument("--verify-polyglot", action="store_true",
                      help="judge every polyglot item on real engines (starts the managed "
                           "PostgreSQL and MariaDB servers and a Spark session)")
    ap.add_argument("--only", nargs="*",
                    help="with --verify/--verify-polyglot: only these concept ids")
    ap.add_argument("--show", action="store_true", help="with --verify: print every result")
    args = ap.parse_args(argv)

    problems = check_concepts()
    if problems:
        print("\n".join(problems), file=sys.stderr)
        return 1
    if args.verify:
        return verify(args.only, args.show)
    if args.verify_polyglot:
        return verify_polyglot(args.only)
    files = render_files()
    if args.check:
        stale = [p for p, text in files.items()
                 if not p.is_file() or p.read_text(encoding="utf-8") != text]
        extra = sorted((set((OUT / "fixtures").glob("*.json"))
                        | set((POLYGLOT_OUT / "fixtures").glob("*.json"))) - set(files))
        for p in stale:
            print(f"stale: {p.relative_to(ROOT)}", file=sys.stderr)
        for p in extra:
            print(f"unexpected: {p.relative_to(ROOT)}", file=sys.stderr)
        if stale or extra:
            print("run: python scripts/build_starter.py", file=sys.stderr)
            return 1
        print(f"datasets/starter is up to date ({len(CONCEPTS)} concepts, "
              f"{len(CONCEPTS) * len(PAIRS)} items)")
        print(f"datasets/polyglot is up to date ({len(polyglot_concepts())} concepts, "
              f"{len(polyglot_concepts()) * len(POLYGLOT_PAIRS)} items)")
        return 0
    for path, text in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
    items = build_items()
    print(f"wrote {OUT.relative_to(ROOT)}: {len(CONCEPTS)} concepts, {len(items)} items, "
          f"{len(FIXTURES)} fixtures; identical source/reference text in "
          f"{100 * identical_share(items):.1f}% of items")
    poly = build_polyglot_items()
    print(f"wrote {POLYGLOT_OUT.relative_to(ROOT)}: {len(polyglot_concepts())} concepts, "
          f"{len(poly)} items; identical source/reference text in "
          f"{100 * identical_share(poly):.1f}% of items")
    return 0


if __name__ == "__main__":
    sys.exit(main())
