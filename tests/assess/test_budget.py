"""The budget for building generated databases: a source that times out on one, or a building
that takes too many runs, ends it (not assessed) instead of running every candidate out."""

from __future__ import annotations

from contextlib import closing

import pytest

from parrot.assess.budget import BudgetedJudge, GenerationBudget
from parrot.datasets import Item
from parrot.eval.judge import Judge

SLOW = (
    "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 100000000) "
    "SELECT COUNT(*) FROM c"
)


def _item(sql: str) -> Item:
    return Item(id="q", source_dialect="sqlite", target_dialect="duckdb", source_sql=sql)


def test_a_source_timeout_ends_the_building_and_the_timeout_is_restored():
    with closing(Judge(timeout=10.0)) as judge:
        budgeted = BudgetedJudge(judge, 0.2, 100)
        with budgeted.active(("sqlite", "duckdb")), pytest.raises(GenerationBudget) as raised:
            budgeted.gold(_item(SLOW))
        assert "timeout on generated data" in str(raised.value)
        assert judge.timeouts == {}  # the short timeout was for the building only


def test_the_building_stops_after_its_runs():
    with closing(Judge()) as judge:
        budgeted = BudgetedJudge(judge, 2.0, 2)
        with budgeted.active(("sqlite",)):
            assert budgeted.gold(_item("SELECT 1")).execution.ok
            assert budgeted.gold(_item("SELECT 2")).execution.ok
            with pytest.raises(GenerationBudget, match="over 2 source and neighbour runs"):
                budgeted.gold(_item("SELECT 3"))
        with budgeted.active(("sqlite",)):  # a new template: a new budget
            assert budgeted.gold(_item("SELECT 4")).execution.ok
