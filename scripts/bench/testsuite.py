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

from parrot.datasets import Item, load_dataset
from parrot.eval.judge import Judge
from parrot.testsuite.store import Suite, load_suite
from parrot.translators.base import Translation, TranslationStatus


def _pct(k: int, n: int) -> str:
    return f"{100 * k / n:5.1f}%" if n else "   n/a"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("datasets", nargs="*", default=["starter", "polyglot"])
    p.add_argument("--limit", type=int, default=None, help="items per dataset")
    p.add_argument("--show", type=int, default=20, help="false separations to list")
    p.add_argument("--llm", default=None, metavar="MODEL",
                   help="also extend suites with this model's data (local, PROVIDER/MODEL)")
    p.add_argument("--llm-limit", type=int, default=5, help="suites the model extends")
    p.add_argument("--llm-rounds", type=int, default=1, help="model requests per suite")
    p.add_argument("--llm-max-tokens", type=int, default=384, help="answer length cap")
    args = p.parse_args(argv)
    llm = _LLMColumn(args) if args.llm else None
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
                if llm is not None:
                    llm.add(item, suite, judge)
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
        if llm is not None:
            llm.close()
    print("per dialect pair: neighbours killed (fixture / fixture + suite), false separations")
    print(f"{'pair':24} {'neigh':>6} {'fixture':>8} {'suite':>8} {'refs':>6} {'false':>8}"
          + (llm.header() if llm else ""))
    total = [0, 0, 0, 0, 0]
    for pair, (n, fx, ts, refs, false) in sorted(pairs.items()):
        print(f"{pair:24} {n:6} {_pct(fx, n):>8} {_pct(ts, n):>8} {refs:6} {_pct(false, refs):>8}"
              + (llm.cells(llm.pairs.get(pair)) if llm else ""))
        total = [a + b for a, b in zip(total, (n, fx, ts, refs, false), strict=True)]
    n, fx, ts, refs, false = total
    print(f"{'all':24} {n:6} {_pct(fx, n):>8} {_pct(ts, n):>8} {refs:6} {_pct(false, refs):>8}"
          + (llm.cells(llm.total()) if llm else ""))
    print("\nper operator: neighbours killed (fixture / fixture + suite"
          + ("; LLM columns: llm n, suite, +llm)" if llm else ")"))
    for op, (n, fx, ts) in sorted(ops.items(), key=lambda kv: kv[1][2] / max(kv[1][0], 1)):
        print(f"{op:18} {n:6} {_pct(fx, n):>8} {_pct(ts, n):>8}"
              + (llm.cells(llm.ops.get(op)) if llm else ""))
    if llm is not None:
        print(llm.summary())
    if reasons:
        print("\nfalse separations by reason: "
              + ", ".join(f"{r} {c}" for r, c in reasons.most_common()))
        for line in separated[:args.show]:
            print("  " + line)
    print(f"\n{len(seen_suites)} suites, {time.monotonic() - start:.0f}s", file=sys.stderr)
    return 0


class _LLMColumn:
    """Neighbours killed by LLM data: the first ``--llm-limit`` suites extended by the model."""

    def __init__(self, args: argparse.Namespace):
        from parrot.testsuite.llm import make_datagen
        from parrot.translators.llm.options import LLMOptions

        self.gen = make_datagen(args.llm, LLMOptions(max_tokens=args.llm_max_tokens,
                                                  request_timeout=600.0),
                                rounds=args.llm_rounds)
        self.limit = args.llm_limit
        self.done: dict[str, tuple[int, int, int]] = {}  # key -> neighbours, suite, +llm kills
        self.pairs: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
        self.ops: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
        self.rejected: Counter[str] = Counter()
        self.examples: list[str] = []  # a few rejections, with the model's mistake
        self.requests = 0
        self.seconds = 0.0

    def add(self, item: Item, suite: Suite, judge: Judge) -> None:
        from parrot.testsuite.llm import augment

        if suite.key not in self.done:
            if len(self.done) >= self.limit:
                return
            out = augment(suite, item, judge, self.gen, dialects=(item.target_dialect,),
                          max_rows=12)
            self.done[suite.key] = (suite.neighbours, suite.killed, out.suite.killed)
            self.rejected.update(out.report.rejected)
            self.examples += [f"{item.id}: {r.reason}: {r.detail[:100]}"
                              for r in out.report.rejections[:2]]
            self.requests += out.report.requests
            self.seconds += out.report.seconds
            for op, (n, _fx, ts) in suite.extra.get("operators", {}).items():
                row = self.ops[op]
                row[0] += n
                row[1] += ts
                row[2] += ts + out.report.operators.get(op, 0)
        n, ts, plus = self.done[suite.key]
        row = self.pairs[item.pair]
        row[0] += n
        row[1] += ts
        row[2] += plus

    def total(self) -> list[int]:
        return [sum(r[i] for r in self.pairs.values()) for i in range(3)]

    @staticmethod
    def header() -> str:
        return f" {'llm n':>6} {'suite':>8} {'+llm':>8}"

    @staticmethod
    def cells(row: list[int] | None) -> str:
        n, ts, plus = row or (0, 0, 0)
        return f" {n:6} {_pct(ts, n):>8} {_pct(plus, n):>8}"

    def summary(self) -> str:
        return (f"\nLLM data ({self.gen.label}, {self.gen.prompt.id}): {len(self.done)} suites, "
                f"{self.requests} requests, {self.seconds:.0f}s in the model; rejected: "
                + (", ".join(f"{r} {c}" for r, c in self.rejected.most_common()) or "none")
                + "".join(f"\n  {line}" for line in self.examples[:10]))

    def close(self) -> None:
        self.gen.close()


if __name__ == "__main__":
    raise SystemExit(main())
