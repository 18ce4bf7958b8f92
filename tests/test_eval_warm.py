"""An eval run's fixed costs off its critical path (issue 31): engine workers start side by
side when the run begins, the cyclic collector spares the objects that outlive the run, and the
GIL comes back to the judge soon after each engine answer."""

from __future__ import annotations

import gc
import sys
import threading
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

import parrot.engines.worker as w
from parrot.datasets import load_dataset
from parrot.eval import runner
from parrot.eval.judge import Judge
from parrot.eval.runner import GC_THRESHOLD, RunConfig, run, select_items
from parrot.pairs import parse_pairs
from parrot.translators import create_translator

GUARD = 60.0  # seconds a fake start waits for the other before giving up (a hang, not a timing)


def _fake_worker(group: str) -> Any:
    return SimpleNamespace(group=group, process=SimpleNamespace(poll=lambda: None, pid=0))


def test_workers_of_two_groups_start_side_by_side(monkeypatch: pytest.MonkeyPatch) -> None:
    """Group a's start waits until group b's has begun: a pool that holds its lock through a
    start (as it did) never lets b begin, and a's start gives up."""
    b_started = threading.Event()
    seen: dict[str, bool] = {}

    def start(group: str) -> Any:
        if group == "a":
            seen["b began while a was starting"] = b_started.wait(GUARD)
        else:
            b_started.set()
        return _fake_worker(group)

    monkeypatch.setattr(w._Worker, "start", staticmethod(start))
    pool = w._Pool()
    first = threading.Thread(target=pool.get, args=("a",))
    first.start()
    while "a" not in pool._starting:  # a's start is under way
        threading.Event().wait(0.01)
    pool.get("b")
    first.join()
    assert seen == {"b began while a was starting": True}
    assert set(pool.workers) == {"a", "b"}


def test_one_group_starts_once_when_asked_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    starts: list[str] = []
    release = threading.Event()

    def start(group: str) -> Any:
        starts.append(group)
        release.wait(GUARD)
        return _fake_worker(group)

    monkeypatch.setattr(w._Worker, "start", staticmethod(start))
    pool = w._Pool()
    got: list[Any] = []
    threads = [threading.Thread(target=lambda: got.append(pool.get("a"))) for _ in range(3)]
    for thread in threads:
        thread.start()
    while not starts:
        threading.Event().wait(0.01)
    release.set()
    for thread in threads:
        thread.join()
    assert starts == ["a"]
    assert len({id(worker) for worker in got}) == 1


def test_warm_starts_the_embedded_engines_workers_only() -> None:
    """Warming starts each embedded engine's worker (and its adapter) at once; a server
    dialect is left to its first use (no server is started by warming)."""
    judge = Judge(start=False)
    try:
        threads = judge.warm({"sqlite", "duckdb", "postgres"})
        for thread in threads:
            thread.join()
        assert sorted(t.name for t in threads) == ["parrot-warm-duckdb", "parrot-warm-sqlite"]
        assert {"sqlite", "duckdb"} <= set(w.POOL.workers)
        assert "postgres" not in judge._engines  # not even an adapter for it yet
        labels = {d: judge.engine(d).label for d in ("sqlite", "duckdb")}  # type: ignore[union-attr]
        assert all(labels.values())
    finally:
        judge.close()


def test_a_run_warms_its_engines_before_its_first_item(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    warmed: list[set[str]] = []
    original = Judge.warm

    def spy(self: Judge, dialects: Any) -> list[threading.Thread]:
        warmed.append(set(dialects))
        assert not self._gold, "warmed after an item was judged"
        return original(self, dialects)

    monkeypatch.setattr(Judge, "warm", spy)
    dataset = load_dataset("starter")
    items = select_items(dataset, parse_pairs("sqlite:duckdb"), limit=2)
    run(dataset, items, create_translator("sqlglot"), RunConfig(output_dir=tmp_path / "run"))
    assert warmed == [{"sqlite", "duckdb"}]


def test_a_run_spares_the_collector_hands_the_gil_over_often_and_restores_both(
    tmp_path: Path,
) -> None:
    """During a run the objects that existed before it are frozen and collections are rarer,
    and the switch interval is shortened (while a background thread — Acc_SYN, the summary's
    imports — computes, the judge's thread waits for the GIL after each engine answer up to it);
    afterwards the interpreter is as it was (a library call leaves no global change)."""
    during: list[tuple[tuple[int, int, int], int, float]] = []
    before = (gc.get_threshold(), sys.getswitchinterval())
    dataset = load_dataset("starter")
    items = select_items(dataset, parse_pairs("sqlite:duckdb"), limit=1)
    run(
        dataset,
        items,
        create_translator("sqlglot"),
        RunConfig(output_dir=tmp_path / "run"),
        on_result=lambda record: during.append(
            (gc.get_threshold(), gc.get_freeze_count(), sys.getswitchinterval())
        ),
    )
    threshold, frozen, interval = during[0]
    assert threshold == GC_THRESHOLD and frozen > 0
    assert interval == pytest.approx(runner.SWITCH_INTERVAL) and interval < before[1]
    assert (gc.get_threshold(), sys.getswitchinterval()) == before
    assert gc.get_freeze_count() == 0


def test_freeze_for_exit_freezes(monkeypatch: pytest.MonkeyPatch) -> None:
    frozen: list[bool] = []
    monkeypatch.setattr(runner.gc, "freeze", lambda: frozen.append(True))
    runner.freeze_for_exit()
    assert frozen == [True]
