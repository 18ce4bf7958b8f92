"""scripts/bench/testsuite_evalcost.py and testsuite_build.py: their tables, from records made
by hand (the benches themselves run real builds and evals)."""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType

import pytest

from tests.script_modules import BENCH, load_bench


def _bench(name: str, monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    monkeypatch.syspath_prepend(str(BENCH))  # the scripts import resultsfile beside them
    return load_bench(name)


def _record(
    source: str, target: str, dbs: int, suite_s: float, fixture_s: float, separated: bool = False
) -> dict[str, object]:
    databases = [
        {
            "index": i,
            "seed": i,
            "match": not (separated and i == 0),
            "reason": "rows_differ" if separated and i == 0 else "ok",
        }
        for i in range(dbs)
    ]
    return {
        "id": f"{source}-{target}-{dbs}",
        "source_dialect": source,
        "target_dialect": target,
        "gold": {"elapsed": fixture_s / 2},
        "pred": {"elapsed": fixture_s / 2},
        "verdicts": {"strict": {"match": True}},
        "suite": {"databases": databases, "elapsed": suite_s, "match": not separated},
    }


def test_evalcost_reports_ms_per_database_per_engine_and_the_ratio_to_the_fixture(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bench = _bench("testsuite_evalcost", monkeypatch)
    results = tmp_path / "results.jsonl"
    records = [
        _record("sqlite", "duckdb", 4, 0.08, 0.010),  # 20 ms a database, 10 ms fixture
        _record("sqlite", "duckdb", 2, 0.04, 0.010),
        _record("duckdb", "sqlite", 5, 0.05, 0.004, separated=True),
        {"id": "no-suite", "source_dialect": "duckdb", "target_dialect": "sqlite"},
    ]
    results.write_text("".join(json.dumps(r) + "\n" for r in records))
    separated: list[str] = []
    pairs = bench.per_pair(results, separated)
    assert pairs["sqlite -> duckdb"] == pytest.approx([2, 6, 0.12, 0, 0.02])
    assert len(separated) == 1 and separated[0].startswith("duckdb-sqlite-5 (seed 0)")
    text = bench.table(pairs)
    assert "| sqlite -> duckdb | 2 | 6 | 0.1 s | 20.0 | 10.0 | 2.0× | 0 |" in text
    assert "| duckdb -> sqlite | 1 | 5 | 0.1 s | 10.0 | 4.0 | 2.5× | 1 |" in text
    assert "| all | 3 | 11 |" in text
    sources = bench.by_engine(pairs, 0)
    targets = bench.by_engine(pairs, 1)
    assert set(sources) == set(targets) == {"sqlite", "duckdb"}
    assert sources["sqlite"] == pytest.approx(targets["duckdb"])
    assert "| all |" not in bench.table(sources, "source engine", total=False)


def test_evalcost_says_where_a_suite_databases_time_goes_per_engine(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The round trips to each engine's worker while suites were judged: loads (and the
    distinct databases they were: more loads than databases is re-creation), executions and
    the answers "evicted, send it again" (issue 31)."""
    bench = _bench("testsuite_evalcost", monkeypatch)
    calls = {
        "clickhouse": {"load": [10, 0.5], "execute": [40, 0.4], "evicted": [2, 0.0], "distinct": 8},
        "sqlite": {"execute": [3, 0.003], "distinct": 0},
    }
    text = bench.calls_table(calls)
    assert "| clickhouse | 10 | 8 | 50.0 | 40 | 10.0 | 2 | 0.5 s | 0.4 s |" in text
    assert "| sqlite | 0 | 0 | 0.0 | 3 | 1.0 | 0 | 0.0 s | 0.0 s |" in text
    pairs = {"sqlite -> duckdb": [1.0, 2.0, 0.02, 0.0, 0.01]}
    body = bench.report("parrot eval", pairs, [], None, (1.0, 1.0, 0.1, 0.2))
    assert "counted with --jobs 1 only" in body
    assert "| clickhouse | 10 |" in bench.report("parrot eval", pairs, [], calls, (1, 1, 0, 0))


def test_build_bench_summarises_per_engine_and_lists_differing_suites(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    bench = _bench("testsuite_build", monkeypatch)
    suite = {"key": "k", "databases": [1], "killed": 3}
    before = [
        {
            "id": f"i{n}",
            "engine": e,
            "wall": float(n),
            "cpu": n / 2,
            "suite": dict(suite),
            "why_none": "",
        }
        for n, e in enumerate(["sqlite", "duckdb", "sqlite"], 1)
    ]
    after = [dict(r, suite=dict(suite)) for r in before]
    after[1]["suite"] = {**suite, "killed": 2}
    after[2]["suite"] = None
    after[2]["why_none"] = "source fails on its fixture"
    differences = bench._differences({"a": before, "b": after})
    assert differences == [
        "i2: a vs b differ in killed",
        "i3: a built, b source fails on its fixture",
    ]
    text = bench._table({"a": before})
    assert "| a | sqlite | 2 | 2.0 | 3.0 | 3.0 | 1.0 | 1.5 | 1.5 |" in text
    assert "| a | all | 3 | 2.0 | 3.0 | 3.0 | 1.0 | 1.5 | 1.5 |" in text
    assert bench._comparable({"solver": [{"label": "killed", "cpu_s": 0.3}]}) == {
        "solver": [{"label": "killed"}]
    }
