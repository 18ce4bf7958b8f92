"""parrot.report.features: the SQL features sqlglot finds in a source, the reliability matrix's
third kind of construct."""

from __future__ import annotations

import pytest
from outcomes import outcome

from parrot.report.features import features
from parrot.report.metrics import summarize

CASES = [
    ("SELECT a, ROW_NUMBER() OVER (ORDER BY a) FROM t", "sqlite", {"window function"}),
    (
        "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 3) "
        "SELECT n FROM r",
        "sqlite",
        {"CTE", "recursive CTE", "set operation"},
    ),
    ("SELECT date('now', '+1 day') FROM t", "sqlite", {"date arithmetic"}),
    ("SELECT DATE_TRUNC('month', ts) + INTERVAL 1 DAY FROM t", "duckdb", {"date arithmetic"}),
    ("SELECT upper(name) || 'x' FROM t", "sqlite", {"string function"}),
    (
        "SELECT k, COUNT(*) FROM t GROUP BY k HAVING COUNT(*) > 1",
        "duckdb",
        {"aggregate", "GROUP BY", "HAVING"},
    ),
    ("SELECT a FROM t ORDER BY a LIMIT 3", "clickhouse", {"ORDER BY … LIMIT"}),
    ("SELECT a FROM t", "sqlite", set()),
    ("SELEC nonsense (", "sqlite", set()),  # unparseable: no features
]


@pytest.mark.parametrize(("sql", "dialect", "expected"), CASES)
def test_features_of_a_source(sql: str, dialect: str, expected: set[str]) -> None:
    assert set(features(sql, dialect)) == expected


def test_the_reliability_matrix_adds_the_sources_features() -> None:
    records = [outcome("w1", False), outcome("w2", True), outcome("p", True)]
    sources = {"w1": CASES[0][0], "w2": CASES[0][0], "p": "SELECT a FROM t"}
    matrix = summarize(records, sources=sources)["reliability"]
    assert matrix["feature: window function"]["sqlite→duckdb"]["evaluated"] == 2
    assert matrix["feature: window function"]["sqlite→duckdb"]["strict"] == 1
    assert "feature: window function" not in summarize(records)["reliability"]  # no sources
