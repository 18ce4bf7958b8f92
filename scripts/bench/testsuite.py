"""How good are a dataset's distilled suites?

For every item with a stored suite (``python -m parrot.testsuite build DATASET`` first):

* per dialect pair and per neighbour operator: neighbours killed by the fixture alone and by
  fixture + suite, neighbours an equivalence rule proves equal to the source (left out of the
  denominators, counted apart; see :mod:`parrot.testsuite.neighbours`) and survivors (the counts
  distillation recorded);
* false separations: every reference translation is judged against its source on each suite
  database; a reference that matches on the fixture but not on a suite database is an equivalent
  pair the suite falsely separates (target ≤ 0.5%); each is listed with its reason;
* eval cost: engine time judging the references on the fixture and on the suites;
* ``--build N``: suite build time, rebuilding N suites in memory (nothing written);
* ``--spider N``: the first N Spider dev golds (``corpora/nl/spider_dev.jsonl``) distilled on
  their databases (``corpora/sqlite/spider``) as a third source, when the corpus is present.

Where a target (≥ 95% killed, ≤ 0.5% false separations) is missed, the table says by which
operators, and lists surviving neighbours (``--survivors K`` per operator).

    python scripts/bench/testsuite.py [DATASET ...] [--limit N] [--build N] [--spider N]
        [--skip-target DIALECT]
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter, defaultdict
from dataclasses import replace
from pathlib import Path

from parrot.datasets import Item, load_dataset
from parrot.eval.judge import Judge
from parrot.testsuite.cli import _groups
from parrot.testsuite.distill import distill
from parrot.testsuite.store import Suite, load_suite
from parrot.translators.base import Translation, TranslationStatus

KILL_TARGET, FALSE_TARGET = 95.0, 0.5


def _pct(k: int, n: int) -> str:
    return f"{100 * k / n:5.1f}%" if n else "   n/a"


class Tally:
    """Neighbour counts per operator: [non-equivalent, fixture, suite, equivalent]."""

    def __init__(self) -> None:
        self.ops: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])
        self.survivors: dict[str, list[str]] = defaultdict(list)
        self.engines: dict[str, Counter[str]] = defaultdict(Counter)  # op -> source engine

    def add(self, suite: Suite, label: str) -> None:
        for op, counts in suite.extra.get("operators", {}).items():
            row = self.ops[op]
            for i, v in enumerate([*counts, 0, 0, 0, 0][:4]):
                row[i] += v
        for op, sql in suite.extra.get("survivors", []):
            self.survivors[op].append(f"{label}: {' '.join(sql.split())[:160]}")
            self.engines[op][suite.source_dialect] += 1

    def total(self) -> list[int]:
        return [sum(r[i] for r in self.ops.values()) for i in range(4)]


def _spider_items(limit: int) -> list[Item]:
    from parrot.fixtures import FixtureError
    from parrot.migrate.named import corpora_root, named_fixture, spider_root

    path = corpora_root() / "nl" / "spider_dev.jsonl"
    if not path.is_file() or not spider_root().is_dir():
        print(f"no Spider corpus at {path.parent.parent}: --spider skipped")
        return []
    items: list[Item] = []
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            if len(items) >= limit:
                break
            rec = json.loads(line)
            try:
                fixture = named_fixture(f"spider/{rec['db_id']}")
            except FixtureError:
                continue
            items.append(Item(id=rec["id"], source_dialect="sqlite", target_dialect="sqlite",
                              source_sql=rec["gold_sql"], fixture=fixture))
    return items


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("datasets", nargs="*", default=["starter", "polyglot"])
    p.add_argument("--limit", type=int, default=None, help="items per dataset")
    p.add_argument("--show", type=int, default=20, help="false separations to list")
    p.add_argument("--survivors", type=int, default=3, help="survivors listed per operator")
    p.add_argument("--build", type=int, default=0, help="time rebuilding N suites per dataset")
    p.add_argument("--spider", type=int, default=0, help="distil N Spider dev golds")
    p.add_argument("--skip-target", action="append", default=[], metavar="DIALECT",
                   help="leave out items into DIALECT (repeatable; e.g. spark, slow here)")
    p.add_argument("--llm", default=None, metavar="MODEL",
                   help="also extend suites with this model's data (local, PROVIDER/MODEL)")
    p.add_argument("--llm-limit", type=int, default=5, help="suites the model extends")
    p.add_argument("--llm-rounds", type=int, default=1, help="model requests per suite")
    p.add_argument("--llm-max-tokens", type=int, default=384, help="answer length cap")
    args = p.parse_args(argv)
    llm = _LLMColumn(args) if args.llm else None
    idle = _idle_servers()
    judge = Judge(start=True)  # MariaDB and PostgreSQL too: without them their pairs judge nothing
    ops = Tally()
    by_pair: dict[str, Tally] = defaultdict(Tally)
    refs: dict[str, list[int]] = defaultdict(lambda: [0, 0])  # pair -> [judged, false]
    separated: list[str] = []
    reasons: Counter[str] = Counter()
    seen_suites: set[str] = set()
    cost = {"fixture": 0.0, "suite": 0.0, "dbs": 0}
    builds: list[float] = []
    try:
        for name in args.datasets:
            ds = load_dataset(name, count_tokens=False)
            root = Path(ds.path).parent
            items = tuple(i for i in ds.items if i.target_dialect not in args.skip_target)
            items = items[:args.limit] if args.limit else items
            for item in items:
                suite = load_suite(root, item.source_dialect, item.source_sql, item.fixture)
                if suite is None:
                    continue
                by_pair[item.pair].add(suite, item.id)  # a pair counts each of its items
                if llm is not None:
                    llm.add(item, suite, judge)
                if suite.key not in seen_suites:  # operators: once per source query
                    seen_suites.add(suite.key)
                    ops.add(suite, item.id)
                for ref in item.reference_sql:
                    translation = Translation(TranslationStatus.OK, sql=ref)
                    t0 = time.monotonic()
                    on_fixture = judge.judge(item, translation)["verdicts"]["strict"]
                    cost["fixture"] += time.monotonic() - t0
                    if not on_fixture["match"]:
                        continue  # the fixture already separates it: not the suite's doing
                    refs[item.pair][0] += 1
                    t0 = time.monotonic()
                    for db in suite.databases:
                        cost["dbs"] += 1
                        verdict = judge.judge(replace(item, fixture=db.fixture),
                                              translation)["verdicts"]["strict"]
                        if not verdict["match"]:
                            refs[item.pair][1] += 1
                            reasons[verdict["reason"]] += 1
                            separated.append(f"{item.id} seed {db.seed}: {verdict['reason']}: "
                                             f"{verdict['detail'][:120]}")
                            break
                    cost["suite"] += time.monotonic() - t0
            for item, dialects in list(_groups(items).values())[:args.build]:
                t0 = time.monotonic()
                distill(item, judge, dialects=dialects)
                builds.append(time.monotonic() - t0)
        for item in _spider_items(args.spider):
            t0 = time.monotonic()
            result = distill(item, judge, dialects=("sqlite",))
            builds.append(time.monotonic() - t0)
            if result.suite is not None:
                by_pair["spider (sqlite)"].add(result.suite, item.id)
                ops.add(result.suite, item.id)
    finally:
        judge.close()
        if llm is not None:
            llm.close()
        _stop_started(idle)
    _report(ops, by_pair, refs, args.survivors)
    if llm is not None:
        print("\nLLM data: neighbours of the extended suites killed by the suite / suite + LLM")
        print(f"{'pair':24}" + llm.header())
        for pair, row in sorted(llm.pairs.items()):
            print(f"{pair:24}" + llm.cells(row))
        print(f"{'all':24}" + llm.cells(llm.total()))
        for op, row in sorted(llm.ops.items()):
            print(f"{op:24}" + llm.cells(row))
        print(llm.summary())
    if reasons:
        print("\nfalse separations by reason: "
              + ", ".join(f"{r} {c}" for r, c in reasons.most_common()))
        for line in separated[:args.show]:
            print("  " + line)
    judged = sum(r[0] for r in refs.values())
    print(f"\n{len(seen_suites)} suites; eval cost judging {judged} references: fixture "
          f"{cost['fixture']:.1f}s, suites {cost['suite']:.1f}s ({cost['dbs']} databases, "
          f"{1000 * cost['suite'] / max(cost['dbs'], 1):.0f} ms each)")
    if builds:
        print(f"suite build time: {len(builds)} suites, {sum(builds):.0f}s, "
              f"{sum(builds) / len(builds):.1f}s each (max {max(builds):.1f}s)")
    return 0


def _idle_servers() -> list[str]:
    """The managed servers not running now (the bench stops those it starts)."""
    from parrot.servers import server_for

    return [d for d in ("mysql", "postgres") if server_for(d).state() is None]


def _stop_started(idle: list[str]) -> None:
    from parrot.servers import server_for

    for dialect in idle:
        if server_for(dialect).state() is not None:
            server_for(dialect).stop()


def _report(ops: Tally, by_pair: dict[str, Tally], refs: dict[str, list[int]],
            show: int) -> None:
    print("per dialect pair: non-equivalent neighbours killed (fixture / fixture + suite), "
          "equivalent (excluded), false separations of references")
    print(f"{'pair':24} {'neigh':>6} {'fixture':>8} {'suite':>8} {'equiv':>6} {'surv':>5} "
          f"{'refs':>5} {'false':>7}")
    rows = sorted(by_pair.items())
    for pair, tally in [*rows, ("all", None)]:
        if tally is None:
            n, fx, ts, eq = (sum(t.total()[i] for _, t in rows) for i in range(4))
            judged, false = (sum(r[i] for r in refs.values()) for i in range(2))
        else:
            n, fx, ts, eq = tally.total()
            judged, false = refs.get(pair, [0, 0])
        print(f"{pair:24} {n:6} {_pct(fx, n):>8} {_pct(ts, n):>8} {eq:6} {n - ts:5} "
              f"{judged:5} {_pct(false, judged):>7}")
    print("\nper operator (each source query once): killed by the fixture / fixture + suite, "
          "equivalent (excluded), survivors")
    print(f"{'operator':22} {'neigh':>6} {'fixture':>8} {'suite':>8} {'equiv':>6} {'surv':>5}")
    for op, (n, fx, ts, eq) in sorted(ops.ops.items(), key=lambda kv: kv[1][2] / max(kv[1][0], 1)):
        print(f"{op:22} {n:6} {_pct(fx, n):>8} {_pct(ts, n):>8} {eq:6} {n - ts:5}")
    missed = False
    for pair, tally in rows:
        n, _, ts, _ = tally.total()
        judged, false = refs.get(pair, [0, 0])
        weak = sorted(((r[0] - r[2], op) for op, r in tally.ops.items() if r[0] > r[2]),
                      reverse=True)
        if n and 100 * ts / n < KILL_TARGET:
            missed = True
            print(f"MISSED kill target on {pair}: {_pct(ts, n).strip()}; survivors by operator: "
                  + ", ".join(f"{op} {k}" for k, op in weak))
        if judged and 100 * false / judged > FALSE_TARGET:
            missed = True
            print(f"MISSED false-separation target on {pair}: {_pct(false, judged).strip()}")
    if missed:
        print("\nsurvivors by operator and source engine (the engine that ran them):")
        for op, engines in sorted(ops.engines.items(), key=lambda kv: -sum(kv[1].values())):
            print(f"  {op:20} " + ", ".join(f"{e} {c}" for e, c in engines.most_common()))
    if missed and show:
        print("\nsurviving neighbours (why each operator misses):")
        for op, lines in sorted(ops.survivors.items()):
            for line in lines[:show]:
                print(f"  {op}: {line}")


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
            for op, (n, _fx, ts, *_) in suite.extra.get("operators", {}).items():
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
