"""Decimals from inexact operations, compared across real engines (strict mode).

Each engine computes averages and quotients at its own scale: SQLite, DuckDB and ClickHouse
return doubles, PostgreSQL a NUMERIC with 16 or more decimals, MariaDB a DECIMAL with
``div_precision_increment`` = 4 more decimals than its operand, Spark a DECIMAL with 6 or more.
The same query on two engines is the same answer (strict match); a translation that loses a
ROUND, or divides integers where the source did not, still fails. The gold side is SQLite.
"""

from __future__ import annotations

import pytest
from engine_fixtures import col, make_fixture

from parrot.compare import Mode, Reason, compare
from parrot.connect import create_engine
from parrot.engines import Engine

# a literal fixture table, kept as written
# fmt: off
NUMBERS = make_fixture("inexact_numbers", [{
    "name": "t",
    "columns": [col("id", "integer", False), col("q", "integer"), col("p", "decimal(10,2)")],
    "primary_key": ["id"],
    "rows": [[1, 1, "10.00"], [2, 2, "19.99"], [3, 4, "0.05"], [4, 2, "7.10"], [5, 3, "1.00"],
             [6, 1, "3.33"]],
}])
# fmt: on

# id, gold SQL (SQLite), translation SQL (every engine), expected match, expected reason,
# engines where the expectation differs: {engine: (match, reason)}
CASES = [
    ("avg-integer", "SELECT AVG(q) FROM t", "SELECT AVG(q) FROM t", True, Reason.MATCH, {}),
    ("avg-decimal", "SELECT AVG(p) FROM t", "SELECT AVG(p) FROM t", True, Reason.MATCH, {}),
    (
        "avg-per-group",
        "SELECT q, AVG(p) FROM t GROUP BY q ORDER BY q",
        "SELECT q, AVG(p) FROM t GROUP BY q ORDER BY q",
        True,
        Reason.MATCH,
        {},
    ),
    (
        "decimal-over-integer",
        "SELECT SUM(p) / 7 FROM t",
        "SELECT SUM(p) / 7 FROM t",
        True,
        Reason.MATCH,
        {"clickhouse": (False, Reason.PRECISION)},
    ),  # ClickHouse keeps the scale 2
    (
        "true-division",
        "SELECT SUM(q) * 1.0 / COUNT(*) FROM t",
        "SELECT SUM(q) * 1.0 / COUNT(*) FROM t",
        True,
        Reason.MATCH,
        {},
    ),
    (
        "lost-round-2",
        "SELECT ROUND(AVG(p), 2) FROM t",
        "SELECT AVG(p) FROM t",
        False,
        Reason.PRECISION,
        {},
    ),
    (
        "integer-division-lost",
        "SELECT SUM(q) * 1.0 / COUNT(*) FROM t",
        "SELECT SUM(q) / COUNT(*) FROM t",
        False,
        Reason.VALUE,
        {
            "duckdb": (True, Reason.MATCH),
            "clickhouse": (True, Reason.MATCH),
            "mysql": (True, Reason.MATCH),
            "spark": (True, Reason.MATCH),
        },
    ),  # `/` is true division there
]


@pytest.fixture(scope="module")
def sqlite() -> Engine:
    engine = create_engine("sqlite")
    engine.load(NUMBERS)
    return engine


@pytest.mark.parametrize(
    ("case_id", "gold_sql", "pred_sql", "match", "reason", "differs"),
    CASES,
    ids=[c[0] for c in CASES],
)
def test_inexact_decimals_compare_at_the_engines_scale(
    engine: Engine,
    engine_name: str,
    sqlite: Engine,
    case_id: str,
    gold_sql: str,
    pred_sql: str,
    match: bool,
    reason: Reason,
    differs: dict[str, tuple[bool, Reason]],
) -> None:
    engine.load(NUMBERS)
    gold = sqlite.execute(gold_sql, NUMBERS)
    pred = engine.execute(pred_sql, NUMBERS, timeout=120)  # a cold Spark on a busy machine
    assert gold.result is not None and pred.result is not None, (gold.error, pred.error)
    verdict = compare(gold.result, pred.result, mode=Mode.STRICT)
    expected = differs.get(engine_name, (match, reason))
    assert (verdict.match, verdict.reason) == expected, (verdict.detail, pred.result.rows)
