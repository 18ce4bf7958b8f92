"""scripts/bench: curate.py's replicated corpus (what ``scale.py --write-corpus`` writes) and
``scale.py --compare`` (two eval runs, record by record)."""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType

import pytest

from parrot.curate.stages import Record
from tests.script_modules import load_bench


def _script(name: str) -> ModuleType:
    return load_bench(name)


def _records(n: int) -> list[Record]:
    return [
        Record(id=f"r{i}", dialect="sqlite", sql=f"SELECT {i} FROM t WHERE s = 'x{i}'", origin="t")
        for i in range(n)
    ]


def test_replicate_below_the_corpus_size_keeps_its_first_records() -> None:
    """``--size`` below the corpus size shrinks it (it returned the whole corpus before)."""
    records = _records(10)
    assert _script("curate").replicate(records, 4) == records[:4]


def test_replicate_above_the_corpus_size_appends_perturbed_copies() -> None:
    records = _records(3)
    out = _script("curate").replicate(records, 8)
    assert len(out) == 8 and out[:3] == records
    assert [r.id for r in out[3:]] == ["r0@1", "r1@1", "r2@1", "r0@2", "r1@2"]
    assert all(r.sql != records[int(r.id[1])].sql for r in out[3:])


def _run(path: Path, records: list[dict[str, object]]) -> Path:
    path.mkdir()
    (path / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def test_compare_runs_ignores_timings_and_names_what_differs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    compare = _script("scale").compare_runs
    one: dict[str, object] = {"id": "a", "gold": {"status": "ok", "elapsed": 0.1}, "latency": 1.0}
    two: dict[str, object] = {"id": "b", "gold": {"status": "ok", "elapsed": 0.2}}
    local = _run(tmp_path / "local", [one, two])
    ray = _run(
        tmp_path / "ray",
        [{**two, "gold": {"status": "ok", "elapsed": 9.0}}, {**one, "latency": 5.0}],
    )
    assert compare(local, ray) == 0
    assert "equal per id (timings aside): 2 of 2; differ: 0" in capsys.readouterr().out
    other = _run(tmp_path / "other", [{**one, "gold": {"status": "timeout"}}])
    assert compare(local, other) == 1
    out = capsys.readouterr().out
    assert "0 of 2; differ: 1; in one run only: 1" in out and "  a\n" in out and "  b\n" in out
