"""Every verdict states what it rests on: ``suite`` (the fixture and k generated databases,
tests/test_suite_eval.py), ``fixture`` (one database) or ``not assessed`` (no engine here, or the
source failed) — written by the judge, computed the same way for runs older than the field, and
counted by level in the summary and its tables."""

from __future__ import annotations

from contextlib import closing

import pytest

from parrot.api.records import verdict_level
from parrot.datasets import item_from_record
from parrot.eval.judge import Judge
from parrot.report.metrics import summarize
from parrot.report.render import summary_tables
from parrot.translators import Translation

FIXTURE = {
    "name": "f",
    "tables": [{"name": "t", "columns": [{"name": "a", "type": "integer"}], "rows": [[1], [2]]}],
}
# (source SQL, target dialect, translation, level written, databases)
CASES = [
    ("SELECT a FROM t ORDER BY a", "duckdb", "SELECT a FROM t ORDER BY a", "fixture", 1),
    ("SELECT a FROM t ORDER BY a", "duckdb", "SELECT b FROM t", "fixture", 1),  # a rejection
    ("SELECT a FROM t ORDER BY a", "oracle", "SELECT a FROM t", "not assessed", 0),  # no engine
    ("SELECT nope FROM t", "duckdb", "SELECT a FROM t", "not assessed", 0),  # the source failed
]


@pytest.fixture(scope="module")
def records() -> list[dict]:
    with closing(Judge(timeout=10)) as judge:
        return [
            judge.judge(
                item_from_record(
                    {
                        "id": f"i{n}",
                        "source_dialect": "sqlite",
                        "target_dialect": target,
                        "source_sql": source,
                        "fixture": FIXTURE,
                    }
                ),
                Translation.from_sql(sql),
            )
            for n, (source, target, sql, _, _) in enumerate(CASES)
        ]


def test_the_judge_writes_each_verdicts_level(records) -> None:
    assert [(r["level"]["name"], r["level"]["databases"]) for r in records] == [
        (level, databases) for *_, level, databases in CASES
    ]
    for r in records:  # a run older than the field gets the same level
        assert verdict_level({k: v for k, v in r.items() if k != "level"}) == r["level"]


def test_the_summary_and_its_tables_count_items_by_level(records) -> None:
    old = [{k: v for k, v in r.items() if k != "level"} for r in records]
    for summary in (summarize(records), summarize(old)):
        by_level = summary["by_level"]
        assert list(by_level) == ["fixture", "not assessed"]
        assert (by_level["fixture"]["items"], by_level["fixture"]["strict"]) == (2, 1)
        assert (by_level["not assessed"]["items"], by_level["not assessed"]["evaluated"]) == (2, 0)
        (table,) = [t for t in summary_tables(summary) if t.title.startswith("By verdict level")]
        assert [row[:2] for row in table.rows] == [("fixture", 2), ("not assessed", 2)]
