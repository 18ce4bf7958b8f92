"""Which fixture a worker evicts first (issue 31): seldom-used ones (suite databases, a few
executions in a row) before the item fixtures it keeps reusing, which plain LRU evicted and
sent again whenever a large suite's databases passed (TPC-H: 86,805 rows)."""

from __future__ import annotations

import pickle

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


def test_a_runs_small_suite_databases_stay_in_the_worker() -> None:
    """starter sends each worker 368 fixtures, its suite databases about 83 rows each; the
    worker kept 64, so a database two suites share was evicted between them and sent, created
    and verified again, 33 times per engine a run (issue 31). It keeps 256 small ones now;
    Spark, a frame per fixture in its heap, still keeps 64."""
    kept = w._Fixtures({}, "sqlite")
    databases = [_numbers(n, rows=80) for n in range(250)]
    for db in databases:
        kept.add(db)
        for _ in range(3):  # a source and two translations: seldom used, evicted first
            kept.get(db.content_hash)
    assert all(db.content_hash in kept for db in databases)
    spark = w._Fixtures({}, "spark")
    for db in databases[:70]:
        spark.add(db)
    assert len(spark) == w.GROUP_KEPT_FIXTURES["spark"] == 64


def test_a_suite_database_crosses_to_its_worker_once_per_run(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Through a real isolated SQLite worker: 100 small databases, then the first again; each
    is sent (and so created and verified) once, with its declared checksums already computed
    (in parrot's process once, not in every engine's worker)."""
    from parrot.connect import create_engine

    sent: list[Fixture] = []
    real = w.IsolatedEngine._call

    def counted(self: w.IsolatedEngine, method: str, *args: object, **kw: float) -> object:
        if method == "load":
            fixture = args[0]
            assert isinstance(fixture, Fixture)
            sent.append(pickle.loads(pickle.dumps(fixture)))  # what the worker unpickles
        return real(self, method, *args, **kw)

    monkeypatch.setattr(w.IsolatedEngine, "_call", counted)
    engine = create_engine("sqlite")
    databases = [_numbers(n, rows=3) for n in range(100)]
    try:
        for db in [*databases, databases[0]]:
            run = engine.execute("SELECT min(v) FROM t", db)
            assert run.ok and run.result is not None
            assert run.result.rows == ((db.tables[0].rows[0][0],),)
    finally:
        engine.close()
    assert len(sent) == len(databases)  # was 101: the first was evicted at 64 and sent again
    assert all("checksums" in vars(fixture) for fixture in sent)
