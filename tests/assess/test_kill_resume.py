"""``parrot assess`` killed with SIGKILL mid-run, then ``--resume``: no statement lost or judged
twice, the translated tree and the page complete."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

N = 60  # statements: 20 templates of 3


def _workload(tmp_path: Path) -> Path:
    (tmp_path / "q").mkdir()
    for f in range(3):
        (tmp_path / "q" / f"f{f}.sql").write_text(
            "".join(
                f"-- query {f}.{i}\nSELECT k, name FROM t WHERE x > {i + 20 * f} ORDER BY k;\n"
                for i in range(20)
            )
        )
    con = sqlite3.connect(tmp_path / "app.sqlite")
    con.execute("CREATE TABLE t (k INTEGER PRIMARY KEY, name TEXT, x INTEGER)")
    con.executemany("INSERT INTO t VALUES (?, ?, ?)", [(i, f"n{i}", i) for i in range(80)])
    con.commit()
    con.close()
    return tmp_path


def _command(work: Path, *more: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "parrot",
        "assess",
        str(work / "q"),
        "--from",
        "sqlite",
        "--to",
        "duckdb",
        "--db",
        str(work / "app.sqlite"),
        "-o",
        str(work / "out"),
        "--quiet",
        *more,
    ]


def test_killed_then_resumed(tmp_path):
    work = _workload(tmp_path)
    results = work / "out" / "assessment.jsonl"
    proc = subprocess.Popen(
        _command(work), start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline and proc.poll() is None:
            if results.is_file() and results.read_text().count("\n") >= 5:
                break
            time.sleep(0.05)
        assert proc.poll() is None, "the run ended before it could be killed"
    finally:
        os.killpg(proc.pid, signal.SIGKILL)  # the run and its engine workers
        proc.wait()
    before = results.read_text().count("\n")
    assert 5 <= before < N
    assert not (work / "out" / "assessment.html").exists()  # killed before the end
    done = subprocess.run(_command(work, "--resume"), capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr  # every statement verified
    lines = [json.loads(x) for x in results.read_text().splitlines() if x.endswith("}")]
    ids = [x["id"] for x in lines]
    expected = {f"f{f}.sql:{i + 1}" for f in range(3) for i in range(20)}
    assert set(ids) == expected and len(ids) == N  # none lost, none twice
    assert f"{N - before} to judge" in done.stderr
    for f in range(3):
        tree = (work / "out" / "translated" / f"f{f}.sql").read_text()
        assert tree.count("SELECT") == 20 and tree.count("-- query") == 20
    page = (work / "out" / "assessment.html").read_text()
    assert f'id="card-verified"><b>{N}</b>' in page
