"""The engine check the solver tests hand to ``witness``: a model counts as a witness only if
the source runs on it and the neighbour's result differs there (judged on the real engine)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from parrot.datasets import Item
from parrot.eval.judge import Judge
from parrot.fixtures import Fixture
from parrot.testsuite.distill import neighbour_outcome


def engine_check(
    judge: Judge, fixture: Fixture, dialect: str, source: str, neighbour: str
) -> Callable[[Fixture], bool]:
    """Whether a database separates ``neighbour`` from ``source`` on ``dialect``'s engine."""
    item = Item(
        id="sv", source_dialect=dialect, target_dialect=dialect, source_sql=source, fixture=fixture
    )

    def check(db: Fixture) -> bool:
        return (
            judge.gold(replace(item, fixture=db)).execution.ok
            and neighbour_outcome(judge, item, db, neighbour) == "kill"
        )

    return check
