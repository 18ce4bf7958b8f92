"""How good are a dataset's distilled suites?

For every item with a stored suite (``python -m parrot.testsuite build DATASET`` first):

* per dialect pair (source dialect of the suite) and per neighbour operator: neighbours killed by
  the fixture alone and by fixture + suite (the counts distillation recorded);
* false separations: every reference translation is judged against its source on each suite
  database; a reference that matches on the fixture but not on a suite database is an equivalent
  pair the suite falsely separates (target ≤ 0.5%); each is listed with its reason.

    python scripts/bench/testsuite.py [DATASET ...] [--limit N] [--show 20]

Suite build time is what ``python -m parrot.testsuite build`` prints in its summary.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter, defaultdict
from dataclasses import replace
from pathlib import Path

from parrot.datasets import load_dataset
from parrot.eval.judge import Judge
from parrot.testsuite.store import load_suite
from parrot.translators.base import Translation, TranslationStatus


def _pct(k: int, n: int) -> str:
    return f"{100 * k / n:5.1f}%" if n else "   n/a"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("datasets", nargs="*", default=["starter", "polyglot"])
    p.add_argument("--limit", type=int, default=None, help="items per dataset")
    p.add_argument("--show", type=int, default=20, help="false separations to list")
    args = p.parse_args(argv)
    judge = Judge()
    ops: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    pairs: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0, 0])  # n, fx, ts, refs, false
    separated: list[str] = []
    reasons: Counter[str] = Counter()
    seen_suites: set[str] = set()
    start = time.monotonic()
    try:
        for name in args.datasets:
            ds = load_dataset(name, count_tokens=False)
            root = Path(ds.path).parent
            items = ds.items[:args.limit] if args.limit else ds.items
            for item in items:
                suite = load_suite(root, item.source_dialect, item.source_sql, item.fixture)
                if suite is None:
                    continue
                row = pairs[item.pair]  # a pair counts the neighbours of each of its items
                row[0] += suite.neighbours
                row[1] += int(suite.extra.get("killed_by_fixture", 0))
                row[2] += suite.killed
                if suite.key not in seen_suites:  # operators: once per source query
                    seen_suites.add(suite.key)
                    for op, (n, fx, ts) in suite.extra.get("operators", {}).items():
                        ops[op][0] += n
                        ops[op][1] += fx
                        ops[op][2] += ts
                for ref in item.reference_sql:
                    translation = Translation(TranslationStatus.OK, sql=ref)
                    on_fixture = judge.judge(item, translation)["verdicts"]["strict"]
                    if not on_fixture["match"]:
                        continue  # the fixture already separates it: not the suite's doing
                    row[3] += 1
                    for db in suite.databases:
                        verdict = judge.judge(replace(item, fixture=db.fixture),
                                              translation)["verdicts"]["strict"]
                        if not verdict["match"]:
                            row[4] += 1
                            reasons[verdict["reason"]] += 1
                            separated.append(f"{item.id} seed {db.seed}: {verdict['reason']}: "
                                             f"{verdict['detail'][:120]}")
                            break
    finally:
        judge.close()
    print("per dialect pair: neighbours killed (fixture / fixture + suite), false separations")
    print(f"{'pair':24} {'neigh':>6} {'fixture':>8} {'suite':>8} {'refs':>6} {'false':>8}")
    total = [0, 0, 0, 0, 0]
    for pair, (n, fx, ts, refs, false) in sorted(pairs.items()):
        print(f"{pair:24} {n:6} {_pct(fx, n):>8} {_pct(ts, n):>8} {refs:6} {_pct(false, refs):>8}")
        total = [a + b for a, b in zip(total, (n, fx, ts, refs, false), strict=True)]
    n, fx, ts, refs, false = total
    print(f"{'all':24} {n:6} {_pct(fx, n):>8} {_pct(ts, n):>8} {refs:6} {_pct(false, refs):>8}")
    print("\nper operator: neighbours killed (fixture / fixture + suite)")
    for op, (n, fx, ts) in sorted(ops.items(), key=lambda kv: kv[1][2] / max(kv[1][0], 1)):
        print(f"{op:18} {n:6} {_pct(fx, n):>8} {_pct(ts, n):>8}")
    if reasons:
        print("\nfalse separations by reason: "
              + ", ".join(f"{r} {c}" for r, c in reasons.most_common()))
        for line in separated[:args.show]:
            print("  " + line)
    print(f"\n{len(seen_suites)} suites, {time.monotonic() - start:.0f}s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
