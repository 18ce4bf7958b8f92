"""Compare two runs' verdicts item by item, keyed by id (never by position).

    python scripts/verdict_diff.py RUN_A RUN_B [--no-suite] [--show N]

A verdict is what parrot decided about an item: the translation's status, the gold's and the
prediction's execution status, the match and reason code of each comparison mode, and (unless
``--no-suite``) the test-suite verdict. Elapsed times, previews and details are not verdicts.
Used to show that a refactoring changed no verdict; exits 1 when any common id differs or the
two runs hold different ids, 0 otherwise.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from parrot.api.results import read_results
from parrot.report.metrics import MODES


def verdict(record: Any, suite: bool = True) -> tuple[Any, ...]:
    """The parts of one results.jsonl record that are decisions, as a comparable tuple."""
    verdicts = record.get("verdicts") or {}
    modes = tuple(
        (m, (verdicts.get(m) or {}).get("match"), (verdicts.get(m) or {}).get("reason"))
        for m in MODES
    )
    statuses = tuple(
        (record.get(side) or {}).get("status") for side in ("translation", "gold", "pred")
    )
    suite_match = (record.get("suite") or {}).get("match") if suite else None
    return (*statuses, modes, suite_match)


def load(run: Path, suite: bool = True) -> dict[str, tuple[Any, ...]]:
    """Every item's verdict in ``run``, by id (damaged lines are reported and skipped)."""
    return {r["id"]: verdict(r, suite) for r in read_results(run, skip_bad=True)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run_a", type=Path)
    parser.add_argument("run_b", type=Path)
    parser.add_argument("--no-suite", action="store_true", help="ignore test-suite verdicts")
    parser.add_argument("--show", type=int, default=20, help="differing ids to print (20)")
    args = parser.parse_args(argv)
    a, b = (load(r, not args.no_suite) for r in (args.run_a, args.run_b))
    common = sorted(a.keys() & b.keys())
    differing = [i for i in common if a[i] != b[i]]
    print(
        f"A {len(a)} ids, B {len(b)} ids, common {len(common)}, only in A "
        f"{len(a.keys() - b.keys())}, only in B {len(b.keys() - a.keys())}"
    )
    print(f"differing verdicts: {len(differing)} of {len(common)}")
    for item_id in differing[: args.show]:
        print(f"  {item_id}\n    A {a[item_id]}\n    B {b[item_id]}")
    return 1 if differing or a.keys() != b.keys() else 0


if __name__ == "__main__":
    sys.exit(main())
