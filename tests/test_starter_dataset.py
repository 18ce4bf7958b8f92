"""The starter benchmark is sound: every source runs, every reference matches it strictly."""

import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from parrot.datasets import load_dataset
from parrot.eval.judge import Judge
from parrot.translators import create_translator

ROOT = Path(__file__).resolve().parent.parent
DATASET = load_dataset("starter")
PAIRS = {(s, t) for s in ("sqlite", "duckdb", "clickhouse")
         for t in ("sqlite", "duckdb", "clickhouse") if s != t}


@pytest.fixture(scope="module")
def judge():
    j = Judge(timeout=30)
    yield j
    j.close()


def test_size_and_coverage():
    items = DATASET.items
    assert len(items) >= 240
    per_pair = Counter((i.source_dialect, i.target_dialect) for i in items)
    assert set(per_pair) == PAIRS
    assert min(per_pair.values()) >= 40
    types = Counter(t for i in items for t in i.translation_types)
    assert {"syntax", "keyword", "data_type", "function", "udf", "other"} <= set(types)
    identical = sum(i.source_sql.strip() == i.reference_sql[0].strip() for i in items)
    assert identical <= 0.15 * len(items)
    assert all(i.fixture is not None and i.reference_sql for i in items)


def test_committed_files_match_the_build_script():
    proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "build_starter.py"), "--check"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.parametrize("item", DATASET.items, ids=lambda i: i.id)
def test_source_runs_and_reference_matches_strictly(judge, item):
    record = judge.judge(item, create_translator("reference").translate(item))
    assert record["gold"]["status"] == "ok", record["gold"].get("error")
    assert record["pred"]["status"] == "ok", record["pred"].get("error")
    verdict = record["verdicts"]["strict"]
    assert verdict["match"], verdict
    assert judge.limit_cuts_ties(item) is None
