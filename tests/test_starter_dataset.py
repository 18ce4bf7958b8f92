"""The starter benchmark is sound: every source runs, every reference matches it strictly, on the
fixture and on every database of the item's test suite (Acc_TS of ``--model reference`` is 100%)."""

from collections import Counter
from pathlib import Path

import pytest
from processes import run_python

from parrot.datasets import load_dataset
from parrot.eval.judge import Judge
from parrot.translators import create_translator

ROOT = Path(__file__).resolve().parent.parent
DATASET = load_dataset("starter")
PAIRS = {
    (s, t)
    for s in ("sqlite", "duckdb", "clickhouse")
    for t in ("sqlite", "duckdb", "clickhouse")
    if s != t
}


# References a suite database once separated from their source (a result engine-defined on
# some data is a false separation): SQLite's bare `id` beside MIN(order_date) took any of the
# orders tied on the first date.
FIXED_ON_SUITES = [
    "starter-first-order-per-customer-duckdb-sqlite",
    "starter-first-order-per-customer-clickhouse-sqlite",
]


@pytest.fixture(scope="module")
def judge():
    j = Judge(timeout=30)
    yield j
    j.close()


@pytest.fixture
def suite_judge(judge):
    """The module's judge, also judging each item's committed suite (its engines are warm)."""
    judge.suite_dir = ROOT / "datasets" / "starter"
    yield judge
    judge.suite_dir = None


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
    proc = run_python(str(ROOT / "scripts" / "build_starter.py"), "--check", timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.parametrize("item", DATASET.items, ids=lambda i: i.id)
def test_source_runs_and_reference_matches_strictly(judge, item):
    record = judge.judge(item, create_translator("reference").translate(item))
    assert record["gold"]["status"] == "ok", record["gold"].get("error")
    assert record["pred"]["status"] == "ok", record["pred"].get("error")
    verdict = record["verdicts"]["strict"]
    assert verdict["match"], verdict
    assert judge.limit_cuts_ties(item) is None


def _suite_failures(judge, item):
    record = judge.judge(item, create_translator("reference").translate(item))
    assert record["verdicts"]["strict"]["match"], record["verdicts"]["strict"]
    if "suite" not in record:
        return None
    return [d for d in record["suite"]["databases"] if not d["match"]]


@pytest.mark.parametrize("item_id", FIXED_ON_SUITES)
def test_fixed_reference_agrees_on_every_suite_database(suite_judge, item_id):
    item = next(i for i in DATASET.items if i.id == item_id)
    assert _suite_failures(suite_judge, item) == []


@pytest.mark.slow
@pytest.mark.parametrize("item", DATASET.items, ids=lambda i: i.id)
def test_every_reference_agrees_on_its_suite(suite_judge, item):
    failures = _suite_failures(suite_judge, item)
    if failures is None:
        pytest.skip("no suite (a multi-statement source)")
    assert failures == []
