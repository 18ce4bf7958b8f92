"""The typed records match what the judge writes and what the reports count."""

from typing import get_type_hints

import pytest

from parrot.api.records import ExecutionRecord, Outcome, Summary, VerdictRecord
from parrot.datasets import item_from_record
from parrot.eval.judge import Judge
from parrot.report.metrics import score
from parrot.translators import Translation

FIXTURE = {
    "name": "f",
    "tables": [{"name": "t", "columns": [{"name": "a", "type": "integer"}], "rows": [[1], [2]]}],
}


def _keys(record: dict, typed: type) -> tuple[set[str], set[str]]:
    """(keys the record lacks that the type requires, keys the record has that the type lacks)."""
    hints = set(get_type_hints(typed))
    return set(typed.__required_keys__) - set(record), set(record) - hints


@pytest.fixture(scope="module")
def judge():
    j = Judge(timeout=10)
    yield j
    j.close()


@pytest.mark.parametrize(
    ("target", "sql"),
    [
        ("duckdb", "SELECT a FROM t ORDER BY a"),  # runs and matches
        ("duckdb", "SELEC a FROM t"),  # a syntax error: no result, a syntax record
        ("oracle", "SELECT a FROM t"),  # no engine here
    ],
)
def test_the_judge_writes_outcomes(judge, target, sql):
    item = item_from_record(
        {
            "id": "i",
            "source_dialect": "sqlite",
            "target_dialect": target,
            "source_sql": "SELECT a FROM t ORDER BY a",
            "fixture": FIXTURE,
        }
    )
    record = judge.judge(item, Translation.from_sql(sql))
    assert _keys(record, Outcome) == (set(), set())
    for execution in (record["gold"], record["pred"]):
        if execution is not None:
            assert _keys(execution, ExecutionRecord) == (set(), set())
    for verdict in record["verdicts"].values():
        assert _keys(verdict, VerdictRecord) == (set(), set())
    assert _keys(score([record]), Summary) == (set(), set())
