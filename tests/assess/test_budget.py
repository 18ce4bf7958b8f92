"""The budget for building generated databases: a source that times out on one, or a building
that takes too many runs, ends it (not assessed) instead of running every candidate out."""

from __future__ import annotations

from contextlib import closing
from typing import Any

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


def test_the_short_timeout_is_the_budgets_alone_and_the_judge_is_left_alone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Before: ``active()`` wrote the short timeout into the judge's shared ``timeouts`` and
    restored them afterwards, so anything using the judge meanwhile ran under the building's
    budget (and a nested budget restored the wrong dict). Now the budget judges through a view
    with timeouts of its own: the judge's are the same during and after, while a budgeted
    execution still gets the short timeout."""
    with closing(Judge(timeout=10.0, timeouts={"duckdb": 7.0})) as judge:
        before = dict(judge.timeouts)
        budgets: list[float] = []
        real = Judge._run_once

        def spy(self: Judge, dialect: str, sql: str, fixture: Any, timeout: float) -> Any:
            budgets.append(timeout)
            return real(self, dialect, sql, fixture, timeout)

        monkeypatch.setattr(Judge, "_run_once", spy)
        budgeted = BudgetedJudge(judge, 0.5, 100)
        with budgeted.active(("sqlite", "duckdb")):
            assert judge.timeouts == before
            assert judge._timeout("sqlite") == 10.0 and judge._timeout("duckdb") == 7.0
            assert budgeted.timeouts == {"sqlite": 0.5, "duckdb": 0.5}
            assert budgeted.gold(_item("SELECT 1")).execution.ok
            assert budgets == [0.5]
            assert judge.gold(_item("SELECT 2")).execution.ok  # the judge's own, meanwhile
            assert budgets == [0.5, 10.0]
            with BudgetedJudge(judge, 0.2, 100).active(("sqlite",)) as inner:
                assert inner.gold(_item("SELECT 3")).execution.ok
            assert budgets[-1] == 0.2 and judge.timeouts == before
            assert budgeted.gold(_item("SELECT 4")).execution.ok
            assert budgets[-1] == 0.5
        assert judge.timeouts == before
