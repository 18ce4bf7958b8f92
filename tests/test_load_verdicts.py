"""Verdicts do not depend on the machine's load (issue 29): at load ≈ 11 ``--model reference``
scored 99.14% strict on polyglot, 13 Spark items (recursive CTE, calendar) timed out at the
default 10 s. The test runs the pairs into and out of Spark — where those timeouts were, the
part of polyglot this tier can afford (62 items; the 30 pairs are measured by
``scripts/bench/load.py`` into docs/results/load.md) — beside two ``yes > /dev/null``, and
expects every item strictly right and none timed out."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.script_modules import load_bench

PAIRS = "sqlite:spark,spark:sqlite"


def _bench() -> Any:
    """``scripts/bench/load.py``: the test runs what the bench measures."""
    return load_bench("load")


@pytest.mark.slow
@pytest.mark.spark
@pytest.mark.timeout(3600)
def test_reference_is_all_strict_beside_two_cpu_hogs(tmp_path: Path) -> None:
    bench = _bench()
    hogs = bench.start_hogs(2)
    try:
        result = bench.run_polyglot(PAIRS, tmp_path / "run")
    finally:
        bench.stop_hogs(hogs)
    assert result["rc"] == 0, result["stderr"]
    overall = result["overall"]
    # 62 items; the 6 over Spider's databases are skipped where the corpora are absent
    assert overall["evaluated"] == overall["items"] in (56, 62), overall
    assert (overall["strict"], overall["timeout"]) == (overall["items"], 0), overall
