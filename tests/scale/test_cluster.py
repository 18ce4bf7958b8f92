"""Curation and evaluation through a real Ray cluster (head + 2 workers) give the local results;
a worker node killed mid-run loses nothing and duplicates nothing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from parrot.curate.cli import main as curate
from parrot.eval.cli import main as evaluate
from parrot.migrate.named import corpora_root

if TYPE_CHECKING:
    from parrot.scale.local import LocalCluster

pytestmark = [pytest.mark.cluster, pytest.mark.timeout(900)]

TIMINGS = {"elapsed", "latency"}  # the only fields that differ between two runs of one item
EVAL = ["--model", "sqlglot", "--pairs", "sqlite:duckdb", "--quiet"]


def _stable(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _stable(v) for k, v in value.items() if k not in TIMINGS}
    if isinstance(value, list):
        return [_stable(v) for v in value]
    return value


def _results(run: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (run / "results.jsonl").read_text().splitlines()]


@pytest.mark.skipif(not (corpora_root() / "sqlglot").is_dir(),
                    reason="shared corpora absent: set PARROT_CORPORA or place them at "
                           "../shared/corpora")
def test_curation_on_the_cluster_writes_the_local_items(ray_cluster: LocalCluster,
                                                        tmp_path: Path) -> None:
    args = ["--variant", "simple", "--limit", "40", "--chunk-size", "10", "--quiet"]
    assert curate([*args, "--output-dir", str(tmp_path / "local")]) == 0
    assert curate([*args, "--output-dir", str(tmp_path / "ray"),
                   "--executor", ray_cluster.client]) == 0
    local = (tmp_path / "local" / "items.jsonl").read_bytes()
    assert local and (tmp_path / "ray" / "items.jsonl").read_bytes() == local
    manifest = json.loads((tmp_path / "ray" / "manifest.json").read_text())
    assert manifest["parameters"]["executor"] == f"ray ({ray_cluster.client})"


def test_eval_on_the_cluster_gives_the_local_results(ray_cluster: LocalCluster,
                                                     tmp_path: Path) -> None:
    args = [*EVAL, "--limit", "8"]
    assert evaluate([*args, "--output-dir", str(tmp_path / "local")]) == 0
    assert evaluate([*args, "--output-dir", str(tmp_path / "ray"),
                     "--executor", ray_cluster.client]) == 0
    local = {r["id"]: _stable(r) for r in _results(tmp_path / "local")}
    ray = [_stable(r) for r in _results(tmp_path / "ray")]
    assert len(ray) == len(local) == 8
    assert {r["id"]: r for r in ray} == local


def test_a_worker_killed_mid_run_loses_and_duplicates_nothing(ray_cluster: LocalCluster,
                                                              tmp_path: Path) -> None:
    """Last in this file: it leaves the cluster one worker short."""
    run = tmp_path / "run"
    proc = subprocess.Popen([sys.executable, "-m", "parrot.eval", *EVAL, "--limit", "30",
                             "--output-dir", str(run), "--executor", ray_cluster.client],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONPATH": str(Path.cwd())})
    log = run / "results.jsonl"
    while not (log.exists() and len(log.read_text().splitlines()) >= 3):
        assert proc.poll() is None, proc.communicate()[1][-3000:]
        time.sleep(0.2)
    assert len(log.read_text().splitlines()) < 30, "the run finished before the kill"
    ray_cluster.kill_node(2)
    _, stderr = proc.communicate(timeout=800)
    assert proc.returncode == 0, stderr[-3000:]
    assert "lost with their Ray worker were judged again" in stderr
    ids = [r["id"] for r in _results(run)]
    assert len(ids) == len(set(ids)) == 30
