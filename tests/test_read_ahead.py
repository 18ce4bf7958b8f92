"""A local translator's translations (and the SQL facts the judge reads of them) are prepared in
a thread of their own a few items ahead of the judge, so they run while the judge waits on an
engine worker (issue 31); in order, errors raised where they are consumed, and the thread gone
when the consumer stops. Threads and calls, never wall-clock."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest

from parrot import sqlfacts
from parrot.datasets import Item, load_dataset
from parrot.eval import runner
from parrot.eval.runner import read_ahead
from parrot.translators import create_translator
from parrot.translators.base import Translation, TranslationStatus


def _items(n: int) -> list[Item]:
    return load_dataset("starter").items[:n]


def _translations(items: list[Item], seen: list[str]) -> Iterator[tuple[Item, Translation]]:
    for item in items:
        seen.append(threading.current_thread().name)
        yield item, Translation(TranslationStatus.OK, sql=f"SELECT {len(seen)} AS n_read_ahead")


def test_translations_come_in_order_from_their_own_thread() -> None:
    items, seen = _items(12), []
    got = list(read_ahead(_translations(items, seen), depth=3))
    assert [i.id for i, _ in got] == [i.id for i in items]
    assert [t.sql for _, t in got] == [f"SELECT {n} AS n_read_ahead" for n in range(1, 13)]
    assert set(seen) == {"parrot-translate"}
    assert sqlfacts.order_facts.cache_info().currsize  # the judge's facts were read there


def test_the_judges_facts_are_read_ahead(monkeypatch: pytest.MonkeyPatch) -> None:
    readers: list[tuple[str, str]] = []
    monkeypatch.setattr(
        runner,
        "read_facts",
        lambda sql, dialect: readers.append((sql, threading.current_thread().name)),
    )
    items = _items(2)
    list(read_ahead(_translations(items, []), depth=2))
    assert [sql for sql, _ in readers] == [
        items[0].source_sql,
        "SELECT 1 AS n_read_ahead",
        items[1].source_sql,
        "SELECT 2 AS n_read_ahead",
    ]
    assert {name for _, name in readers} == {"parrot-translate"}


def test_an_error_is_raised_where_the_translations_are_consumed() -> None:
    def failing() -> Iterator[tuple[Item, Translation]]:
        yield from _translations(_items(1), [])
        raise RuntimeError("translator broke")

    got = read_ahead(failing())
    next(got)
    with pytest.raises(RuntimeError, match="translator broke"):
        next(got)


def test_the_thread_stops_with_its_consumer() -> None:
    seen: list[str] = []
    got = read_ahead(_translations(_items(40), seen), depth=2)
    next(got)
    got.close()
    assert not [t for t in threading.enumerate() if t.name == "parrot-translate"]
    assert len(seen) <= 5  # one consumed, two queued, one waiting to be queued (+1 in flight)


def test_only_local_translators_are_read_ahead(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert create_translator("sqlglot").read_ahead
    threads: dict[str, set[str]] = {}
    for model in ("sqlglot", "identity"):
        translator = create_translator(model)
        real = translator.translate

        def recording(item: Item, model: str = model, real=real) -> Translation:
            threads.setdefault(model, set()).add(threading.current_thread().name)
            return real(item)

        monkeypatch.setattr(translator, "translate", recording)
        monkeypatch.setattr(type(translator), "read_ahead", model == "sqlglot")
        dataset = load_dataset("starter")
        items = dataset.items[:2]
        runner.run(dataset, items, translator, runner.RunConfig(output_dir=tmp_path / model))
    assert threads == {"sqlglot": {"parrot-translate"}, "identity": {"MainThread"}}


def test_a_fact_that_fails_ahead_is_left_to_the_judge(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(sql: str, dialect: str) -> None:
        raise RecursionError("too deep")

    monkeypatch.setattr(runner, "read_facts", broken)
    items = _items(3)
    assert [i.id for i, _ in read_ahead(_translations(items, []))] == [i.id for i in items]
