"""The comparator's paths side by side on one large result: CPU seconds and the ratio of each to the
exact path, in one run.

The gold is ``--rows`` rows of (integer id, float measure, text label); the prediction is the same
rows shuffled (new row and value objects, as an engine would return them). The paths:

* strict, exact — every row pairs by hashing (the exact path);
* strict, float noise — every float is off by a relative 1e-12, so no row pairs by its exact key
  and all go through the tolerance path (target: ≤ 2× the exact path);
* normalized, exact — the same rows under PolySQL's rules;
* multiset, exact — the same rows under UniQL's (numbers rounded to 3 decimals; target: ≤ 2× the
  strict exact path).

Each path must match; the bench fails otherwise. Writes ``docs/results/compare.md``.

    python scripts/bench/compare.py [--rows 1000000] [--seed 7]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from resultsfile import load_average, publish

from parrot.compare import Mode, Reason, compare
from parrot.values import ResultSet

COLUMNS = ("id", "measure", "label")
NOISE = 1e-12  # relative: far inside strict's 1e-9, far outside exact equality


def results(rows: int, seed: int) -> tuple[ResultSet, ResultSet, ResultSet]:
    """The gold, its shuffle, and its shuffle with float noise."""
    rng = random.Random(seed)
    gold = [(i, rng.uniform(-1e4, 1e4), f"label {i % 997}") for i in range(rows)]
    shuffled = list(gold)
    rng.shuffle(shuffled)
    # fresh rows and values, as an engine returns them (a shuffle of the gold's own objects would
    # scatter every pass over the prediction across memory)
    shuffled = [(i, x * 1.0, f"label {i % 997}") for i, x, _ in shuffled]
    noisy = [(i, x * (1 + NOISE), label) for i, x, label in shuffled]
    return (
        ResultSet(COLUMNS, tuple(gold)),
        ResultSet(COLUMNS, tuple(shuffled)),
        ResultSet(COLUMNS, tuple(noisy)),
    )


def timed(gold: ResultSet, pred: ResultSet, mode: Mode) -> float:
    """CPU seconds of one comparison, which must be a match."""
    start = time.process_time()
    verdict = compare(gold, pred, mode=mode)
    seconds = time.process_time() - start
    if verdict.reason is not Reason.MATCH:
        raise SystemExit(f"{mode}: expected a match, got {verdict.reason}: {verdict.detail}")
    return seconds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000, help="rows (default: 1000000)")
    parser.add_argument("--seed", type=int, default=7, help="random seed (default: 7)")
    parser.add_argument(
        "--no-write", action="store_true", help="print only; leave docs/results/compare.md alone"
    )
    args = parser.parse_args()
    if args.rows < 1:
        parser.error("--rows must be at least 1")
    started = load_average()
    gold, shuffled, noisy = results(args.rows, args.seed)
    paths = [
        ("strict, exact", shuffled, Mode.STRICT, None),
        ("strict, float noise (tolerance path)", noisy, Mode.STRICT, 2.0),
        ("normalized, exact", shuffled, Mode.NORMALIZED, None),
        ("multiset, exact", shuffled, Mode.MULTISET, 2.0),
    ]
    seconds = [timed(gold, pred, mode) for _, pred, mode, _ in paths]
    lines = [
        f"{args.rows:,} rows of (integer, float, text), the prediction shuffled; CPU seconds "
        "of one `compare()` each, in one process.\n",
        "| path | CPU s | ÷ strict exact | target |",
        "|---|---|---|---|",
    ]
    for (label, _, _, target), cpu in zip(paths, seconds, strict=True):
        goal = f"≤ {target:g}×" if target else ""
        lines.append(f"| {label} | {cpu:.2f} | {cpu / seconds[0]:.2f}× | {goal} |")
    body = "\n".join(lines)
    publish(
        "compare", "Comparator paths at scale", body, started_load=started, write=not args.no_write
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
