"""Execution feedback for translators that ask for it (reflection, ensembles).

Translators never execute SQL: the runner hands them an :class:`EngineFeedback`, which runs a
candidate on the target engine in a process of its own (chdb allows one ClickHouse per process,
and the runner's judge has it) with the run's timeout and sandboxing. In ``errors`` mode only the
target engine's error message comes back; ``results`` mode (curation) also reports a mismatch with
the source query's result.
"""

from __future__ import annotations

import multiprocessing
from concurrent.futures import ProcessPoolExecutor

from parrot.datasets import Item
from parrot.engines import FixtureLoadError
from parrot.engines.worker import die_with_parent
from parrot.eval.judge import EMPTY_FIXTURE, Judge
from parrot.translators.base import Translation
from parrot.translators.llm.options import FEEDBACK_MODES

_JUDGE: Judge | None = None


def _init(timeout: float, max_rows: int, urls: dict[str, str], start: bool) -> None:
    global _JUDGE

    die_with_parent()  # never outlives the run
    _JUDGE = Judge(timeout=timeout, max_rows=max_rows, urls=urls, start=start)


def check_candidate(judge: Judge, item: Item, sql: str, mode: str) -> str | None:
    """None when ``sql`` runs on the target (and, in results mode, matches), else why not."""
    if mode == "results":
        verdict = judge.judge(item, Translation.from_sql(sql))["verdicts"]["strict"]
        return None if verdict["match"] else str(verdict.get("detail") or verdict["reason"])
    engine = judge.engine(item.target_dialect)
    if engine is None:
        return None  # nothing to learn from: the run scores this item as no_engine anyway
    fixture = item.fixture or EMPTY_FIXTURE
    try:
        engine.load(fixture)
    except FixtureLoadError:
        return None  # an engine problem, not the candidate's: the judge reports it
    execution = engine.execute(sql, fixture, timeout=judge.timeout, max_rows=judge.max_rows)
    if execution.ok:
        return None
    return f"{execution.status.value}: {execution.error or ''}".strip().rstrip(":")


def _check(item: Item, sql: str, mode: str) -> str | None:
    assert _JUDGE is not None
    return check_candidate(_JUDGE, item, sql, mode)


class EngineFeedback:
    """The :class:`~parrot.translators.base.Feedback` the runner gives translators."""

    def __init__(self, mode: str, timeout: float, max_rows: int, urls: dict[str, str], start: bool):
        if mode not in FEEDBACK_MODES:
            raise ValueError(f"feedback mode {mode!r}: one of {FEEDBACK_MODES}")
        self.mode = mode
        self._pool = ProcessPoolExecutor(
            1,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=_init,
            initargs=(timeout, max_rows, urls, start),
        )

    def check(self, item: Item, sql: str) -> str | None:
        return self._pool.submit(_check, item, sql, self.mode).result()

    def close(self) -> None:
        self._pool.shutdown(cancel_futures=True)
