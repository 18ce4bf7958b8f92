"""Verdicts do not depend on the machine's load (issue 29): at load ≈ 11 ``--model reference``
scored 99.14% strict on polyglot, 13 Spark items (recursive CTE, calendar) timed out at the
default 10 s. The test runs the pairs into and out of Spark — where those timeouts were, the
part of polyglot this tier can afford (62 items; the 30 pairs are measured by
``scripts/bench/load.py`` into docs/results/load.md) — beside two ``yes > /dev/null``, and
expects every item strictly right and none timed out."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAIRS = "sqlite:spark,spark:sqlite"


@pytest.mark.slow
@pytest.mark.spark
@pytest.mark.timeout(3600)
def test_reference_is_all_strict_beside_two_cpu_hogs(tmp_path: Path) -> None:
    hogs = [subprocess.Popen(["yes"], stdout=subprocess.DEVNULL) for _ in range(2)]
    try:
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "parrot.eval",
                "--model",
                "reference",
                "--dataset",
                "polyglot",
                "--pairs",
                PAIRS,
                "-o",
                str(tmp_path / "run"),
            ],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=False,
        )
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()
    assert done.returncode == 0, done.stderr[-3000:]
    overall = json.loads((tmp_path / "run" / "summary.json").read_text())["overall"]
    # 62 items; the 6 over Spider's databases are skipped where the corpora are absent
    assert overall["evaluated"] == overall["items"] in (56, 62), overall
    assert (overall["strict"], overall["timeout"]) == (overall["items"], 0), overall
