"""Which fixture a worker evicts first (issue 31): seldom-used ones (suite databases, a few
executions in a row) before the item fixtures it keeps reusing, which plain LRU evicted and
sent again whenever a large suite's databases passed (TPC-H: 86,805 rows)."""

from __future__ import annotations

import pytest
from engine_fixtures import col, make_fixture

from parrot.engines import worker as w
from parrot.engines.sqlite import SQLiteEngine
from parrot.fixtures import Fixture


def _numbers(seed: int, rows: int) -> Fixture:
    return make_fixture(
        f"n{seed}",
        [
            {
                "name": "t",
                "columns": [col("v", "integer")],
                "rows": [[seed * 100_000 + i] for i in range(rows)],
            }
        ],
    )


def test_suite_databases_go_before_the_item_fixture_reused_all_run(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(w, "KEPT_ROWS", 100)
    adapter = SQLiteEngine()
    kept = w._Fixtures({"sqlite": adapter})
    item = _numbers(0, rows=60)  # an item fixture: used by many executions
    try:
        kept.add(item)
        adapter.load(item)
        for _ in range(w.PROTECTED_USES):
            kept.get(item.content_hash)
        suite = [_numbers(n, rows=30) for n in range(1, 5)]  # one suite's databases
        for db in suite:
            kept.add(db)
            adapter.load(db)
            kept.get(db.content_hash)  # its one execution: the item fixture is now the LRU
            assert item.content_hash in kept and item.content_hash in adapter._stored
        assert suite[-1].content_hash in kept
        assert suite[0].content_hash not in kept and suite[0].content_hash not in adapter._stored
        big = _numbers(9, rows=101)  # alone over the bound: everything else goes, it stays
        kept.add(big)
        assert len(kept) == 1 and big.content_hash in kept
    finally:
        adapter.close()


def test_without_seldom_used_fixtures_the_least_recently_used_goes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(w, "KEPT_FIXTURES", 2)
    kept = w._Fixtures({})
    a, b, c = (_numbers(n, rows=1) for n in range(3))
    for fixture in (a, b):
        kept.add(fixture)
        for _ in range(w.PROTECTED_USES):
            kept.get(fixture.content_hash)
    kept.add(c)
    assert a.content_hash not in kept and b.content_hash in kept and c.content_hash in kept
