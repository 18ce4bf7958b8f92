"""How many neighbours that random rounds leave alive do solver-built witnesses kill?

For each source query (the starter dataset's groups, and ``--spider N`` Spider dev golds from
``--spider-offset``, held out: nothing in the solver was tuned on them), distils a suite in
memory with the current generator (:func:`parrot.testsuite.distill.distill`, no solver), takes
the source-side neighbours it leaves alive, and asks :func:`parrot.testsuite.solver.
extra_candidates` for a witness of each, verified on the source engine. Reports, per source set:
survivors, those in the solver's fragment, killed (verified on the engine), bounded-equivalent,
unknown (timeout, or ties left undecided), unverified (a model the engine rejects: an encoding
bug), and the solver's CPU seconds per neighbour (median, p90), with the reasons outside the
fragment. Writes ``docs/results/solver.md``.

``--stored``: the survivors the datasets' stored suites recorded, grouped by the generator that
built them, instead of distilling again (fast; older generators leave more alive).

    python scripts/bench/solver.py [DATASET ...] [--limit N] [--stored] [--spider N]
        [--spider-offset N] [--bound K] [--timeout-ms MS]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import Counter
from dataclasses import replace
from pathlib import Path

from sqlglot import exp

from parrot.datasets import Item, load_dataset
from parrot.eval.judge import Judge
from parrot.fixtures import Fixture
from parrot.solver.core import parse
from parrot.testsuite.cli import _groups, _members
from parrot.testsuite.distill import Distilled, distill, neighbour_outcome
from parrot.testsuite.solver import DEFAULT_BOUND, DEFAULT_TIMEOUT_MS, DIALECTS, extra_candidates
from parrot.testsuite.store import Suite, load_suite

sys.path.insert(0, str(Path(__file__).resolve().parent))
from resultsfile import load_average, write_results

LABELS = ("killed", "bounded-equivalent", "unknown", "unverified", "unsupported")
# what the widening of 2026-12-06 added to the fragment: a pair using none of these was inside
# (or outside) the fragment before it as it is now
WIDENED = (
    exp.With,
    exp.CTE,
    exp.Subquery,
    exp.Exists,
    exp.Cast,
    exp.Lower,
    exp.Upper,
    exp.Length,
    exp.DPipe,
    exp.Escape,
    exp.Filter,
)


def _new_construct(tree: exp.Expr) -> bool:
    if tree.find(*WIDENED) is not None or any(i.args.get("query") for i in tree.find_all(exp.In)):
        return True
    if any(u.args.get("order") or u.args.get("limit") for u in tree.find_all(exp.Union)):
        return True
    if any((j.kind or "").upper() in ("SEMI", "ANTI") for j in tree.find_all(exp.Join)):
        return True
    return any(
        isinstance(side, exp.Literal)
        and side.is_string  # a numeric string vs a number
        and side.this.strip().lstrip("+-").replace(".", "", 1).isdigit()
        for c in tree.find_all(exp.EQ, exp.NEQ, exp.LT, exp.LTE, exp.GT, exp.GTE)
        for side in (c.this, c.expression)
    )


def widened(source: str, neighbour: str, dialect: str) -> bool:
    """Whether the pair uses a construct only the widened fragment encodes."""
    try:
        trees = [parse(sql, dialect) for sql in (source, neighbour)]
    except Exception:  # unparseable: outside either way
        return False
    return any(_new_construct(t) for t in trees)


class Tally:
    """Outcomes of one source set."""

    def __init__(self) -> None:
        self.sources = 0
        self.skipped: Counter[str] = Counter()  # why a source got no suite / no solver
        self.neighbours = 0  # non-equivalent source-side neighbours counted by distillation
        self.killed_before = 0  # by the fixture and the suite
        self.labels: Counter[str] = Counter()
        self.by_op: dict[str, Counter[str]] = {}
        self.unsupported: Counter[str] = Counter()
        self.unknown: list[str] = []
        self.cpu: list[float] = []
        self.build_cpu: list[float] = []
        self.new: Counter[str] = Counter()  # labels of the pairs only the widening encodes

    def add(
        self,
        item: Item,
        judge: Judge,
        dialects: tuple[str, ...],
        references: tuple[Item, ...],
        args: argparse.Namespace,
        stored: Suite | None = None,
    ) -> None:
        """``stored``: the survivors a stored suite recorded (not distilled again)."""
        t0 = time.process_time()
        result = (
            Distilled(stored)
            if stored is not None
            else distill(item, judge, dialects=dialects, references=references, solver=False)
        )
        if stored is None:
            self.build_cpu.append(time.process_time() - t0)
        if result.suite is None:
            self.skipped[f"no suite: {result.why_none[:60]}"] += 1
            return
        self.sources += 1
        suite = result.suite
        self.neighbours += suite.neighbours
        self.killed_before += suite.killed
        survivors = [(op, sql) for op, sql in suite.extra.get("survivors", [])]

        def verify(db: Fixture, sql: str) -> bool:  # the source runs there; the neighbour differs
            return (
                judge.gold(replace(item, fixture=db)).execution.ok
                and neighbour_outcome(judge, item, db, sql) == "kill"
            )

        attempts = extra_candidates(
            item.source_sql,
            item.source_dialect,
            item.fixture,
            survivors,
            verify,
            bound=args.bound,
            timeout_ms=args.timeout_ms,
        )
        for a in attempts:
            rec = a.to_json()
            self.labels[rec["label"]] += 1
            self.by_op.setdefault(a.operator, Counter())[rec["label"]] += 1
            if rec["label"] == "unsupported":
                self.unsupported[rec["reason"][:70]] += 1
            elif rec["label"] in ("unknown", "unverified"):
                self.unknown.append(
                    f"{item.id} {a.operator}: {rec['reason'][:90]}: {' '.join(a.sql.split())[:120]}"
                )
            if "cpu_s" in rec:
                self.cpu.append(rec["cpu_s"])
            if rec["label"] != "unsupported" and widened(
                item.source_sql, a.sql, item.source_dialect
            ):
                self.new[rec["label"]] += 1
        print(
            f"{item.id}: {len(survivors)} survivors, "
            f"{dict(Counter(a.to_json()['label'] for a in attempts))}",
            file=sys.stderr,
            flush=True,
        )


def _q(values: list[float]) -> str:
    if not values:
        return "–"
    v = sorted(values)
    return f"{statistics.median(v):.3f} / {v[int(0.9 * (len(v) - 1))]:.3f}"


def _table(tallies: dict[str, Tally]) -> str:
    head = (
        "| source set | sources | neighbours | killed before | survivors | in fragment "
        "(before the widening) | killed by solver (by the widening) | bounded-equivalent "
        "(by the widening) | unknown | unverified | unsupported | "
        "solver CPU-s / neighbour, median / p90 | distil CPU-s / source, median |\n"
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|\n"
    )
    rows = []
    for name, t in tallies.items():
        n = sum(t.labels.values())
        inside = n - t.labels["unsupported"]
        rows.append(
            f"| {name} | {t.sources} | {t.neighbours} | {t.killed_before} | {n} | "
            f"{inside} ({inside - sum(t.new.values())}) | {t.labels['killed']} "
            f"({t.new['killed']}) | {t.labels['bounded-equivalent']} "
            f"({t.new['bounded-equivalent']}) | "
            f"{t.labels['unknown']} | {t.labels['unverified']} | "
            f"{t.labels['unsupported']} | {_q(t.cpu)} | "
            f"{statistics.median(t.build_cpu) if t.build_cpu else 0:.2f} |"
        )
    return head + "\n".join(rows) + "\n"


def _details(name: str, t: Tally) -> str:
    out = [f"\n## {name}\n"]
    if t.skipped:
        out.append(
            "Sources skipped: " + "; ".join(f"{k} ({v})" for k, v in t.skipped.most_common()) + "\n"
        )
    if t.neighbours:
        after = t.killed_before + t.labels["killed"]
        denominator = t.neighbours - t.labels["bounded-equivalent"]
        out.append(
            f"Source-side kill rate: {t.killed_before}/{t.neighbours} "
            f"({100 * t.killed_before / t.neighbours:.1f}%) by fixture + suite; "
            f"{after}/{denominator} ({100 * after / max(denominator, 1):.1f}%) with the "
            "solver's witnesses, bounded-equivalent neighbours counted apart.\n"
        )
    out.append("\n| operator | " + " | ".join(LABELS) + " |\n|---|" + "---|" * len(LABELS))
    for op, c in sorted(t.by_op.items()):
        out.append(f"| {op} | " + " | ".join(str(c[x]) for x in LABELS) + " |")
    if t.unsupported:
        out.append("\nOutside the fragment (reason: neighbours):\n")
        out += [f"- {why}: {n}" for why, n in t.unsupported.most_common(12)]
    if t.unknown:
        out.append("\nUnknown / unverified:\n")
        out += [f"- `{line}`" for line in t.unknown[:20]]
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("datasets", nargs="*", default=["starter"], help="default: starter")
    p.add_argument("--limit", type=int, default=None, help="source queries per dataset")
    p.add_argument("--spider", type=int, default=0, help="Spider dev golds (held out)")
    p.add_argument("--spider-offset", type=int, default=0, help="first Spider dev gold taken")
    p.add_argument("--bound", type=int, default=DEFAULT_BOUND, help="rows per table, at most")
    p.add_argument("--timeout-ms", type=int, default=DEFAULT_TIMEOUT_MS, help="per z3 check")
    p.add_argument(
        "--stored",
        action="store_true",
        help="the datasets' survivors as their stored suites recorded them (named "
        "with their generator), not distilled again",
    )
    p.add_argument("--out", default="solver", help="results file name (docs/results/NAME.md)")
    args = p.parse_args(argv)
    load = load_average()
    started = time.monotonic()
    tallies: dict[str, Tally] = {}
    judge = Judge()
    try:
        for name in args.datasets:
            ds = load_dataset(name, count_tokens=False)
            members = _members(ds.items)
            for key, (item, dialects) in list(_groups(ds.items).items())[: args.limit]:
                stored = (
                    load_suite(
                        Path(ds.path).parent, item.source_dialect, item.source_sql, item.fixture
                    )
                    if args.stored
                    else None
                )
                label = (
                    f"{name} (stored {stored.generator})"
                    if stored is not None
                    else f"{name} (stored, none)"
                    if args.stored
                    else name
                )
                t = tallies.setdefault(label, Tally())
                if item.source_dialect not in DIALECTS:
                    t.skipped[f"source dialect {item.source_dialect}"] += 1
                    continue
                if not args.stored or stored is not None:
                    t.add(item, judge, dialects, members[key], args, stored)
        if args.spider:
            from testsuite import _spider_items  # scripts/bench/testsuite.py: one loader

            t = tallies.setdefault(f"spider dev {args.spider_offset}..", Tally())
            spider = _spider_items(args.spider_offset + args.spider)[args.spider_offset :]
            for item in spider:
                t.add(item, judge, ("sqlite",), (), args)
    finally:
        judge.close()
    tallies = {n: t for n, t in tallies.items() if t.sources or t.skipped}
    body = (
        f"Bound {args.bound} rows a table (a LIMIT n raises it to n + 1, at most 6), "
        f"z3 timeout {args.timeout_ms} ms per check; CPU seconds of this process "
        f"(wall {time.monotonic() - started:.0f} s at the load above). See "
        "[the solver page](../test-suites-solver.md) for the fragment. In brackets: the "
        "share that only the widened fragment (CTEs, derived tables, subqueries, CAST, "
        "string functions, LIKE ESCAPE, FILTER, SEMI/ANTI JOIN, an ordered UNION, a numeric "
        "string against a number) encodes; the rest was inside it before.\n\n"
        + _table(tallies)
        + "".join(_details(n, t) for n, t in tallies.items())
    )
    print(body)
    print(json.dumps({n: dict(t.labels) for n, t in tallies.items()}))
    write_results(
        args.out, "Solver-built witnesses for surviving neighbours", body, started_load=load
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
