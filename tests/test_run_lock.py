"""One writer per run directory: a second ``--resume`` of a run being written is refused."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from eval_runs import run_eval

from parrot.api.results import RunDirError, read_results
from parrot.eval.runner import LOCK, RunLock

HOLD = (
    "import sys; from pathlib import Path; from parrot.eval.runner import RunLock\n"
    "with RunLock(Path(sys.argv[1])):\n"
    "    print('held', flush=True); sys.stdin.read()\n"
)


def _holder(run_dir: Path) -> subprocess.Popen[str]:
    """Another process holding the run directory's lock until its stdin closes."""
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(run_dir)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
    return proc


def _eval(run_dir: Path, *extra: str) -> int:
    return run_eval(run_dir, "--model", "identity", "--limit", "6", *extra)


def test_a_second_resume_is_refused_naming_the_holder_and_nothing_is_duplicated(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_dir = tmp_path / "run"
    assert _eval(run_dir) == 0
    results = run_dir / "results.jsonl"
    results.write_bytes(b"".join(results.read_bytes().splitlines(keepends=True)[:3]))
    before = results.read_bytes()  # a run stopped after 3 of its 6 items
    capsys.readouterr()
    holder = _holder(run_dir)
    try:
        assert _eval(run_dir, "--resume") == 2
        err = capsys.readouterr().err
        assert f"pid {holder.pid} on " in err and "since 20" in err
        assert len(err.strip().splitlines()) == 1, err
        assert results.read_bytes() == before
    finally:
        holder.communicate("")
    assert _eval(run_dir, "--resume") == 0
    ids = [r["id"] for r in read_results(run_dir)]
    assert len(ids) == 6 == len(set(ids))


def test_the_lock_of_a_dead_process_is_taken_over(tmp_path: Path) -> None:
    tmp_path.mkdir(exist_ok=True)
    holder = _holder(tmp_path)
    os.kill(holder.pid, signal.SIGKILL)
    holder.wait()
    assert f"pid {holder.pid}" in (tmp_path / LOCK).read_text()  # its stale record stays
    with RunLock(tmp_path):
        assert f"pid {os.getpid()} " in (tmp_path / LOCK).read_text()
        with pytest.raises(RunDirError, match=f"pid {os.getpid()} on "), RunLock(tmp_path):
            pass
