"""A budget for building one template's generated databases.

Generated databases hold a few rows per table, so a source query that takes seconds on one is
not being tested there: it is a query the generator cannot serve (TPC-H Q8's eight-way join on a
boundary candidate's 200-row tables, say). While distillation builds a template's databases it
sees a :class:`BudgetedJudge`: every execution gets ``timeout`` seconds (the judge's one re-run
of a timeout included, so at most ``(1 + TIMEOUT_RERUN) * timeout``), the first time the source
times out ends the building, and so does the ``judged``-th comparison (a count, not seconds: a
verdict must not depend on the machine's load) — the template is then *not assessed: timeout on
generated data* instead of running every candidate to the timeout.

The short timeout is held by the budgeted judge alone: it judges through a view of the judge
(:func:`copy.copy`: the same engines and source results) with timeouts of its own, so the shared
judge's ``timeouts`` are never written — anything else using it meanwhile, or after an
exception, keeps its own budget.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from parrot.datasets import Item
from parrot.engines import ExecStatus
from parrot.eval.judge import Gold, Judge
from parrot.fixtures import Fixture


class GenerationBudget(Exception):
    """Building a template's generated databases ran out of its budget."""


class BudgetedJudge:
    """``judge`` with a per-execution timeout and a total budget (see the module docstring)."""

    def __init__(self, judge: Judge, timeout: float, judged: int):
        self._judge, self._timeout, self._most = judge, timeout, judged
        self._view = judge  # the judge as this budget sees it (active() gives it its timeouts)
        self._used = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self._view, name)

    def _check(self) -> None:
        self._used += 1
        if self._used > self._most:
            raise GenerationBudget(
                f"timeout on generated data: building its databases took over {self._most} "
                "source and neighbour runs"
            )

    def gold(self, item: Item, fixture: Fixture | None = None) -> Gold:
        self._check()
        found = self._view.gold(item, fixture)
        if found.execution.status is ExecStatus.TIMEOUT:
            raise GenerationBudget(
                f"timeout on generated data: the source took over {self._timeout:g} s "
                "on a generated database"
            )
        return found

    def judge(self, item: Item, translation: Any, timeout: float | None = None) -> Any:
        self._check()
        return self._view.judge(item, translation, timeout)

    @contextmanager
    def active(self, dialects: tuple[str, ...]) -> Iterator[BudgetedJudge]:
        """The budget running, each of ``dialects`` under the short timeout: a view of the
        judge sharing its engines and source results, with timeouts of its own."""
        judge = self._judge
        view = copy.copy(judge)
        view.timeouts = dict(judge.timeouts)
        view.timeouts.update(
            {d: min(self._timeout, judge.timeouts.get(d, judge.timeout)) for d in dialects}
        )
        outer, self._view, self._used = self._view, view, 0
        try:
            yield self
        finally:
            self._view = outer
