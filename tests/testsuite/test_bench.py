"""scripts/bench/testsuite.py: the target side (neighbours of each reference, on the target)."""

from __future__ import annotations

import argparse
import importlib.util
import json
from pathlib import Path
from types import ModuleType

from parrot.datasets import Item, load_dataset
from parrot.eval.judge import Judge
from parrot.testsuite.cli import main
from parrot.testsuite.store import load_suite
from tests.testsuite.test_build import _dataset, _engines_or_skip

BENCH = Path(__file__).resolve().parents[2] / "scripts" / "bench" / "testsuite.py"


def _bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_testsuite", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_target_side_counts_neighbours_of_the_reference_on_the_target(tmp_path: Path) -> None:
    """The bench judges neighbours of each reference against it on the target engine, on the
    fixture and the suite (what eval faces), per pair and operator; a dropped ORDER BY over
    SQLite's sorted GROUP BY is unkillable there and left out of the kill rate."""
    _engines_or_skip()
    root = _dataset(tmp_path)
    item_json = {"id": "g", "source_dialect": "duckdb", "target_dialect": "sqlite",
                 "source_sql": "SELECT grp, count(*) FROM t WHERE v > 3 GROUP BY grp ORDER BY grp",
                 "reference_sql": "SELECT grp, COUNT(*) FROM t WHERE v > 3 GROUP BY grp "
                                  "ORDER BY grp", "fixture": {"name": "tiny"}}
    (root / "items.jsonl").write_text(json.dumps(item_json) + "\n")
    assert main(["build", str(root), "--candidates", "6"]) == 0
    item = load_dataset(str(root), count_tokens=False).items[0]
    suite = load_suite(root, item.source_dialect, item.source_sql, item.fixture)
    assert suite is not None
    bench = _bench()
    pair, ops = bench.Tally(), bench.Tally()
    judge = Judge()
    try:
        bench._target_side(judge, item, item.reference_sql[0], suite, pair, ops)
    finally:
        judge.close()
    n, fixture, killed, _equiv, unkillable = pair.total()
    assert n > 0 and fixture <= killed <= n - unkillable
    assert pair.ops["drop_order"][4] == 1  # SQLite's GROUP BY returns its groups sorted
    assert any(k.startswith("drop_order on sqlite") for k in pair.unkillable)
    assert ops.total() == pair.total()


def test_source_and_skip_target_select_the_items_measured() -> None:
    """``--source`` keeps only items from those dialects (a per-source rebuild's), before
    ``--skip-target`` and ``--limit``."""
    items = tuple(Item(id=f"{s}-{t}", source_dialect=s, target_dialect=t, source_sql="SELECT 1")
                  for s in ("mysql", "sqlite") for t in ("duckdb", "spark"))
    args = argparse.Namespace(source=["mysql"], skip_target=["spark"], limit=None)
    assert [i.id for i in _bench().selected(items, args)] == ["mysql-duckdb"]
    args = argparse.Namespace(source=[], skip_target=[], limit=3)
    assert [i.id for i in _bench().selected(items, args)] == ["mysql-duckdb", "mysql-spark",
                                                               "sqlite-duckdb"]
