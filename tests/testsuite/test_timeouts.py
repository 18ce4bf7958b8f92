"""Neighbours that never end: a budget tied to the source's time, and dead after one timeout."""

from __future__ import annotations

from contextlib import closing
from typing import Any

import pytest
from fixture_json import fixture_json, table_json
from local_only import engines_or_skip

from parrot.datasets import Item
from parrot.eval.judge import TIMEOUT_RERUN, Judge
from parrot.fixtures import fixture_from_json
from parrot.testsuite import distill as distill_module
from parrot.testsuite.distill import (
    NEIGHBOUR_FLOOR,
    NEIGHBOUR_TIMES,
    _suite,
    _Trial,
    _try_candidates,
    neighbour_budget,
    neighbour_verdict,
)
from parrot.testsuite.neighbours import Neighbour


def _fixture(name: str, rows: list[list[Any]]) -> Any:
    return fixture_from_json(fixture_json(name, table_json("t", rows, id="integer NOT NULL")))


# A recursive CTE whose stop condition is gone: it ends on an empty t, never on any other.
RUNAWAY = (
    "WITH RECURSIVE r(n) AS (SELECT id FROM t UNION ALL SELECT n + 1 FROM r) SELECT COUNT(*) FROM r"
)
EMPTY = _fixture("empty", [])
SOURCE = Item(
    id="runaway",
    source_dialect="sqlite",
    target_dialect="sqlite",
    source_sql="SELECT COUNT(*) FROM t WHERE id < 0",
    fixture=EMPTY,
)


def test_the_neighbour_budget_follows_the_source_within_floor_and_timeout() -> None:
    with closing(Judge(timeout=10.0, timeouts={"spark": 600.0})) as judge:
        assert neighbour_budget(judge, "sqlite", 0.001) == NEIGHBOUR_FLOOR
        assert neighbour_budget(judge, "sqlite", 0.2) == pytest.approx(NEIGHBOUR_TIMES * 0.2)
        assert neighbour_budget(judge, "sqlite", 5.0) == 10.0
        assert neighbour_budget(judge, "spark", 5.0) == NEIGHBOUR_TIMES * 5.0


def test_a_neighbour_gets_its_budget_per_call_and_the_judge_is_left_alone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Before: the budget was set by writing it into ``judge.timeouts`` for the source's dialect
    around the neighbour's judging (and restoring it after), so anything using the judge
    meanwhile — another thread, a nested call — ran under the neighbour's budget. Now the budget
    is passed down with the call: the judge's timeouts are the same during and after, and the
    neighbour that never ends is still stopped at its budget (and the judge's one re-run at
    TIMEOUT_RERUN times it), not at the judge's 10 s."""
    engines_or_skip("sqlite")
    one = _fixture("one", [[1]])
    with closing(Judge(timeout=10.0, timeouts={"duckdb": 7.0})) as judge:
        before = dict(judge.timeouts)
        seen: list[tuple[str, float, dict[str, float]]] = []
        real = judge._run_once

        def spy(dialect: str, sql: str, fixture: Any, timeout: Any = None) -> Any:
            budget = judge.timeouts.get(dialect, judge.timeout) if timeout is None else timeout
            seen.append((sql, budget, dict(judge.timeouts)))
            return real(dialect, sql, fixture, budget)

        monkeypatch.setattr(judge, "_run_once", spy)
        assert neighbour_verdict(judge, SOURCE, one, RUNAWAY) == "timeout"
        assert judge.timeouts == before
    assert all(timeouts == before for _, _, timeouts in seen), seen
    assert [t for sql, t, _ in seen if sql == RUNAWAY] == [
        NEIGHBOUR_FLOOR,
        NEIGHBOUR_FLOOR * TIMEOUT_RERUN,
    ]
    assert [t for sql, t, _ in seen if sql == SOURCE.source_sql] == [10.0]  # the judge's own


def test_a_neighbour_that_times_out_on_a_candidate_is_dead_for_the_rest(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Before: a neighbour that ran on the fixture but never ends on a candidate database was
    run on every later candidate, a full timeout (and the judge's re-run) each time, and counted
    as a survivor. Now it is tried once, marked timed out, and not counted."""
    engines_or_skip("sqlite")
    dbs = [(r, _fixture(f"c{r}", [[1], [2], [3 + r]])) for r in range(3)]
    with closing(Judge(timeout=0.2)) as judge:
        assert neighbour_verdict(judge, SOURCE, EMPTY, RUNAWAY) == "same"  # ends on the fixture
        runs: list[str] = []
        real = judge.judge

        def spy(item: Item, translation: Any, timeout: float | None = None) -> Any:
            if translation.sql == RUNAWAY:
                runs.append(item.fixture.name if item.fixture else "")
            return real(item, translation, timeout)

        monkeypatch.setattr(judge, "judge", spy)
        trial = _Trial(SOURCE, [Neighbour("drop_clause", RUNAWAY)], set(), [], [])
        trial.todo = {0}
        _try_candidates(judge, trial, dbs, len(dbs), set())
        assert runs == ["c0"], "the timed-out neighbour ran on later candidates"
        assert trial.dead == {0} and trial.todo == set()
        assert trial.timed_out == [("sqlite", "drop_clause", RUNAWAY, "r0")]
        suite = _suite(SOURCE, trial, [0], set(), {}, {}, {}, seed=0, source_side=True).suite
    assert suite is not None
    assert suite.neighbours == 0 and suite.killed == 0  # not counted: neither killed nor alive
    assert suite.extra["survivors"] == [] and suite.extra["operators"] == {}
    assert suite.extra["timed_out"] == [["sqlite", "drop_clause", RUNAWAY, "r0"]]


def test_a_timeout_is_its_own_verdict_and_never_a_kill() -> None:
    """A neighbour that times out is 'timeout' (distillation: not counted), 'error' for the
    callers that only tell kills from the rest (neighbour_outcome), never 'kill'."""
    engines_or_skip("sqlite")
    one = _fixture("one", [[1]])
    with closing(Judge(timeout=0.2)) as judge:
        assert neighbour_verdict(judge, SOURCE, one, RUNAWAY) == "timeout"
        assert distill_module.neighbour_outcome(judge, SOURCE, one, RUNAWAY) == "error"
