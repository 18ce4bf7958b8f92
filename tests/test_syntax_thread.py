"""Acc_SYN grammar checks run in a thread beside the engine work (issue 31): the records a
``--jobs 1`` run writes are the ones :meth:`Judge.judge` makes, in the same order and key order."""

from __future__ import annotations

import threading
from contextlib import closing
from typing import Any

import pytest

from parrot.datasets import item_from_record
from parrot.eval import runner
from parrot.eval.judge import Judge
from parrot.translators import Translation

FIXTURE = {
    "name": "t",
    "tables": [{"name": "t", "columns": [{"name": "a", "type": "integer"}], "rows": [[1], [2]]}],
}
CASES = [
    ("ok", "SELECT a FROM t ORDER BY a"),
    ("bad1", "SELECT a FROM t WHERE"),
    ("runtime", "SELECT nope FROM t"),
    ("bad2", "SELEC a FROM t"),
    ("ok2", "SELECT count(*) FROM t"),
]


def _items() -> list[tuple[Any, Translation]]:
    return [
        (
            item_from_record(
                {
                    "id": i,
                    "source_dialect": "sqlite",
                    "target_dialect": "sqlite",
                    "source_sql": "SELECT a FROM t ORDER BY a",
                    "fixture": FIXTURE,
                }
            ),
            Translation.from_sql(sql),
        )
        for i, sql in CASES
    ]


@pytest.mark.parametrize("backlog", [0, 1, 64])
def test_records_match_the_judge_s_own(monkeypatch: pytest.MonkeyPatch, backlog: int) -> None:
    monkeypatch.setattr(runner, "SYNTAX_BACKLOG", backlog)
    with closing(Judge(timeout=10)) as judge:
        expected = [judge.judge(item, translation) for item, translation in _items()]
        got = list(runner._judged_here(judge, iter(_items())))
    assert [r["id"] for r in got] == [i for i, _ in CASES]
    for mine, theirs in zip(got, expected, strict=True):
        theirs = {**theirs, "translation": {**theirs["translation"], "latency": None}}
        mine = {**mine, "translation": {**mine["translation"], "latency": None}}
        for record in (mine, theirs):  # execution time differs between two runs
            for key in ("gold", "pred"):
                if record.get(key):
                    record[key] = {**record[key], "elapsed": 0}
        assert mine == theirs and list(mine) == list(theirs)
    checked = {r["id"]: r["syntax_checked"] for r in got}
    assert checked == {"ok": False, "bad1": True, "runtime": False, "bad2": True, "ok2": False}
    assert all("syntax" in r for r in got if r["syntax_checked"])


def test_checks_run_off_the_judging_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[str] = []
    real = Judge.judge_later

    def spy(self: Judge, item: Any, translation: Translation) -> Any:
        record, check = real(self, item, translation)
        if check is None:
            return record, None

        def traced() -> Any:
            seen.append(threading.current_thread().name)
            return check()

        return record, traced

    monkeypatch.setattr(Judge, "judge_later", spy)
    with closing(Judge(timeout=10)) as judge:
        records = list(runner._judged_here(judge, iter(_items())))
    assert len(records) == len(CASES) and len(seen) == 2
    assert all(name.startswith("parrot-syntax") for name in seen)
