"""Portable fixtures for the engine suite, built in code (no checked-in binaries)."""

from __future__ import annotations

import contextlib
import importlib.util
from collections.abc import Iterator
from typing import Any

import parrot.engines
from parrot.engines import Engine, ExecStatus
from parrot.fixtures import Fixture, fixture_from_json

# Spark under other dialects' session settings: the suite runs Spark itself once and
# test_engine_spark_dialects.py checks what the settings change.
SPARK_VARIANTS = ("hive", "databricks")
# Every registered engine whose adapter module exists; server engines skip when unreachable.
ENGINES = tuple(
    name
    for name, target in parrot.engines.ENGINES.items()
    if importlib.util.find_spec(target.split(":")[0]) is not None and name not in SPARK_VARIANTS
)


@contextlib.contextmanager
def engine_pool() -> Iterator[dict[str, Engine]]:
    """Adapters kept by name while the block runs (a fixture's scope), every one closed after."""
    pool: dict[str, Engine] = {}
    try:
        yield pool
    finally:
        for engine in pool.values():
            engine.close()


def make_fixture(name: str, tables: list[dict[str, Any]]) -> Fixture:
    return fixture_from_json({"name": name, "tables": tables})


def col(name: str, ptype: str, nullable: bool = True) -> dict[str, Any]:
    return {"name": name, "type": ptype, "nullable": nullable}


# literal fixture tables, kept as written (a row a line, or two)
# fmt: off
ALLTYPES_ROWS = [
    [1, 2147483647, 9223372036854775807, 0.1, "1234567.89", "-0.01", "plain", True,
     "2024-01-05", "2024-01-05 10:00:00"],
    [2, -2147483648, -9223372036854775807, -1.5e-300, "-99999999.99", "-12345.0123456789",
     "ünïcødé ✓ 数据 🦜", False, "1900-01-01", "1900-01-01 00:00:00.000001"],
    [3, 0, 0, 1e300, "0.00", "0.0000000001", "", False, "2099-12-31", "2099-12-31 23:59:59.999999"],
    [4, 7, 42, 2.0, "-0.50", "1.5", "trailing  ", True, "2000-02-29", "2024-01-05 10:00:00.5"],
    [5, None, None, None, None, None, None, None, None, None],
    [6, 1, 1, 2.5, "1.00", "-1", "quote ' and \" and \\ and \t tab\nnewline", None,
     "1970-01-01", "1970-01-01 00:00:00"],
]

ALLTYPES = make_fixture("alltypes", [{
    "name": "t",
    "columns": [col("id", "integer", False), col("i", "integer"), col("big", "bigint"),
                col("f", "double"), col("dec", "decimal(10,2)"), col("wide", "decimal(38,10)"),
                col("s", "text"), col("b", "boolean"), col("d", "date"), col("ts", "timestamp")],
    "primary_key": ["id"],
    "rows": ALLTYPES_ROWS,
}])
# fmt: on

SPECIAL_FLOATS = make_fixture(
    "special_floats",
    [
        {
            "name": "f",
            "columns": [col("id", "integer", False), col("x", "double")],
            "rows": [
                [1, "nan"],
                [2, "inf"],
                [3, "-inf"],
                [4, 0.30000000000000004],
                [5, 5e-324],
                [6, -0.0],
            ],
        }
    ],
)

WIDE_DECIMALS = make_fixture(
    "wide_decimals",
    [
        {
            "name": "w",
            "columns": [col("id", "integer", False), col("x", "decimal(38,10)")],
            "rows": [[1, "-123456789012345678.0123456789"], [2, "0.0000000001"]],
        }
    ],
)

SHOP = make_fixture(
    "shop",
    [
        {
            "name": "customers",
            "columns": [col("id", "integer", False), col("name", "text"), col("city", "text")],
            "rows": [
                [1, "Ada", "London"],
                [2, "Grace", None],
                [3, "Linus", "Helsinki"],
                [4, "ada", "london"],
            ],
        },
        {
            "name": "orders",
            "columns": [
                col("id", "integer", False),
                col("customer_id", "integer"),
                col("amount", "decimal(10,2)"),
                col("placed", "timestamp"),
            ],
            "rows": [
                [10, 1, "12.50", "2024-01-05 10:00:00"],
                [11, 1, "-3.25", "2024-01-06 11:30:00.25"],
                [12, 3, "100.00", "2024-02-01 00:00:00"],
                [13, None, None, None],
            ],
        },
        {
            "name": "items",
            "columns": [
                col("order_id", "integer", False),
                col("sku", "text"),
                col("qty", "bigint"),
                col("gift", "boolean"),
                col("shipped", "date"),
            ],
            "rows": [
                [10, "A-1", 2, False, "2024-01-07"],
                [10, "B-2", 1, True, None],
                [12, "A-1", 5, False, "2024-02-03"],
            ],
        },
    ],
)


def run(engine: Engine, sql: str, fixture: Fixture = SHOP, **kw: float) -> tuple:
    """The rows of ``sql`` on ``fixture``; fails the test unless it ran OK."""
    ex = engine.execute(sql, fixture, **kw)  # type: ignore[arg-type]
    assert ex.status is ExecStatus.OK, f"{ex.status}: {ex.error}"
    assert ex.result is not None
    return ex.result.rows
