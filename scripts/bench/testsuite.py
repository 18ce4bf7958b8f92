"""How good are a dataset's distilled suites?

For every item with a stored suite (``python -m parrot.testsuite build DATASET`` first):

* per dialect pair and per neighbour operator: neighbours killed by the fixture alone and by
  fixture + suite, neighbours an equivalence rule proves equal to the source (left out of the
  denominators, counted apart; see :mod:`parrot.testsuite.neighbours`; those the solver proves
  bounded-equivalent likewise, see :mod:`parrot.testsuite.solver`) and survivors (the counts
  distillation recorded; a suite built without them, ``--no-source-side``, has its source's
  neighbours run here on the fixture and its databases);
* false separations: every reference translation is judged against its source on each suite
  database; a reference that matches on the fixture but not on a suite database is an equivalent
  pair the suite falsely separates (target ≤ 0.5%); each is listed with its reason;
* eval cost: engine time judging the references on the fixture and on the suites;
* ``--build N``: suite build time, rebuilding N suites in memory (nothing written);
* ``--spider N``: the first N Spider dev golds (``corpora/nl/spider_dev.jsonl``) distilled on
  their databases (``corpora/sqlite/spider``) as a third source, when the corpus is present
  (given alone, only Spider runs);
* ``--lofo N [--lofo-from K] [--jobs J]``: only the leave-one-family-out table (see
  :func:`lofo_main`) of the N source queries after the first K, in J processes: per operator
  family, the kill rate of suites distilled aiming at every family (in-sample) beside that of
  suites distilled aiming at every family but that one, with build time per source, suite size
  and false separations of the references on the freshly built suites;
* ``--llm MODEL --llm-limit N``: the first N suites extended by the model's data; neighbours
  killed by the fixture, fixture + suite, fixture + suite + LLM data, and the kills LLM data adds.

Where a target (≥ 95% killed, ≤ 0.5% false separations) is missed, the table says by which
operators, and lists surviving neighbours (``--survivors K`` per operator), marking those whose
source returns no rows on the fixture and every suite database.

    python scripts/bench/testsuite.py [DATASET ...] [--limit N] [--build N] [--spider N]
        [--skip-target DIALECT] [--source DIALECT] [--timeout SECONDS] [--lofo N]
        [--lofo-from K] [--spider-from K] [--jobs J] [--name SUFFIX] [--no-write]
        [--llm MODEL --llm-limit N]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import time
from collections import Counter, defaultdict
from dataclasses import replace
from pathlib import Path
from typing import Any

from parrot.datasets import Item, load_dataset
from parrot.engines.base import DEFAULT_TIMEOUT
from parrot.eval.judge import EMPTY_FIXTURE, Judge
from parrot.servers import stopping_started
from parrot.testsuite.cli import LLM_FLAGS, _groups, _members, parse_timeouts
from parrot.testsuite.distill import distill, neighbour_outcome, order_probes
from parrot.testsuite.neighbours import Neighbour, neighbours
from parrot.testsuite.operators import family_of
from parrot.testsuite.solver import BoundedEquivalent, witness
from parrot.testsuite.store import Suite, load_suite
from parrot.translators.base import Translation, TranslationStatus
from parrot.translators.llm import options as llm_options

KILL_TARGET, FALSE_TARGET = 95.0, 0.5


def _pct(k: int, n: int) -> str:
    return f"{100 * k / n:5.1f}%" if n else "   n/a"


class Tally:
    """Neighbour counts per operator: [non-equivalent, fixture, suite, equivalent, unkillable]
    (unkillable: no data can kill it on the engine that ran it, see
    :func:`parrot.testsuite.distill.order_probes`; left out of the kill rate, counted apart)."""

    def __init__(self) -> None:
        self.ops: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0, 0])
        self.survivors: dict[str, list[str]] = defaultdict(list)
        self.engines: dict[str, Counter[str]] = defaultdict(Counter)  # op -> engine
        self.unkillable: Counter[str] = Counter()  # engine: reason -> count
        self.empty: Counter[str] = Counter()  # op -> survivors whose source returns no rows
        # op -> neighbours the solver proved bounded-equivalent (a sixth count; not in the five)
        self.bounded: Counter[str] = Counter()

    def add_counts(
        self,
        operators: dict[str, list[int]],
        survivors: list[list[str]],
        unkillable: list[list[str]],
        label: str,
        engine: str,
        empty: bool = False,
    ) -> None:
        """``empty``: the source returns no rows on the fixture and every suite database."""
        for op, counts in operators.items():
            row = self.ops[op]
            for i, v in enumerate([*counts, 0, 0, 0, 0, 0][:5]):
                row[i] += v
            if len(counts) > 5 and counts[5]:
                self.bounded[op] += counts[5]
        for op, sql in survivors:
            mark = " [source empty everywhere]" if empty else ""
            self.survivors[op].append(f"{label}{mark}: {' '.join(sql.split())[:160]}")
            self.engines[op][engine] += 1
            self.empty[op] += empty
        for op, _sql, why in unkillable:
            self.unkillable[f"{op} on {engine}: {why.split(' on a ')[0]}"] += 1

    def add(self, suite: Suite, label: str, empty: bool = False) -> None:
        self.add_counts(
            suite.extra.get("operators", {}),
            suite.extra.get("survivors", []),
            suite.extra.get("unkillable", []),
            label,
            suite.source_dialect,
            empty,
        )

    def total(self) -> list[int]:
        return [sum(r[i] for r in self.ops.values()) for i in range(5)]


Counts = tuple[dict[str, list[int]], list[list[str]], list[list[str]]]


def _side_counts(judge: Judge, probe: Item, suite: Suite) -> Counts:
    """The neighbours of ``probe``'s source query, judged against it on its own engine on the
    fixture and the suite's databases, as :meth:`Tally.add_counts` takes them (operators,
    survivors, unkillable). A reference as the probe's source is the target side (what eval
    faces: a near-miss translation); the item itself is the source side of a suite built
    without it (``source_side: false``, Spark's)."""
    fixture = probe.fixture or EMPTY_FIXTURE
    keys = {t.name.lower(): t.primary_key for t in fixture.tables}
    types = {t.name.lower(): {c.name.lower(): c.type for c in t.columns} for t in fixture.tables}
    counted: list[Neighbour] = []
    on_fixture: set[int] = set()
    operators: dict[str, list[int]] = {}
    for n in neighbours(probe.source_sql, probe.source_dialect, keys=keys, types=types):
        if n.equivalent:
            operators.setdefault(n.operator, [0, 0, 0, 0, 0])[3] += 1
            continue
        outcome = neighbour_outcome(judge, probe, fixture, n.sql)
        if outcome == "error":
            continue
        if outcome == "kill":
            on_fixture.add(len(counted))
        counted.append(n)
    alive = set(range(len(counted))) - on_fixture
    dbs = [(d.seed, d.fixture) for d in suite.databases]
    for _, db in dbs:
        if not alive:
            break
        alive -= {i for i in alive if neighbour_outcome(judge, probe, db, counted[i].sql) == "kill"}
    # reversed-insertion probes only classify: databases they add are not in the stored suite
    unkillable = order_probes(judge, probe, counted, set(alive), [(-1, fixture), *dbs], [])
    for i, n in enumerate(counted):
        row = operators.setdefault(n.operator, [0, 0, 0, 0, 0])
        row[0] += 1
        row[1] += i in on_fixture
        row[2] += i not in alive
        row[4] += i in unkillable
    return (
        operators,
        [[counted[i].operator, counted[i].sql] for i in sorted(alive) if i not in unkillable],
        [[counted[i].operator, counted[i].sql, w] for i, w in unkillable.items()],
    )


def _source_empty(judge: Judge, item: Item, suite: Suite) -> bool:
    """Whether a suite with survivors has a source returning no rows on the fixture and on every
    suite database: a neighbour that only filters differently can then never differ."""
    if not suite.extra.get("survivors"):
        return False
    for fixture in (item.fixture or EMPTY_FIXTURE, *(db.fixture for db in suite.databases)):
        execution = judge.gold(item, fixture).execution
        if not execution.ok or execution.result is None or execution.result.rows:
            return False
    return True


def selected(items: tuple[Item, ...], args: argparse.Namespace) -> tuple[Item, ...]:
    """The items ``--source``, ``--skip-target`` and ``--limit`` leave to measure."""
    kept = tuple(
        i
        for i in items
        if i.target_dialect not in args.skip_target
        and (not args.source or i.source_dialect in args.source)
    )
    return kept[: args.limit] if args.limit else kept


def _spider_items(limit: int, skip: int = 0) -> list[Item]:
    """The first ``limit`` Spider dev golds after the first ``skip`` whose database is here."""
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
            if skip > 0:
                skip -= 1
                continue
            try:
                fixture = named_fixture(f"spider/{rec['db_id']}")
            except FixtureError:
                continue
            items.append(
                Item(
                    id=rec["id"],
                    source_dialect="sqlite",
                    target_dialect="sqlite",
                    source_sql=rec["gold_sql"],
                    fixture=fixture,
                )
            )
    return items


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument(
        "datasets", nargs="*", help="default: starter and polyglot, or none when --spider is given"
    )
    p.add_argument("--limit", type=int, default=None, help="items per dataset")
    p.add_argument("--show", type=int, default=20, help="false separations to list")
    p.add_argument("--survivors", type=int, default=3, help="survivors listed per operator")
    p.add_argument("--build", type=int, default=0, help="time rebuilding N suites per dataset")
    p.add_argument("--spider", type=int, default=0, help="distil N Spider dev golds")
    p.add_argument(
        "--spider-from",
        type=int,
        default=0,
        metavar="K",
        help="--spider golds after the first K (those measured, or tuned on, before)",
    )
    p.add_argument(
        "--no-write",
        action="store_true",
        help="print only (default: also docs/results/testsuite_NAMES.md)",
    )
    p.add_argument(
        "--jobs",
        type=int,
        default=1,
        help="worker processes for --lofo (one judge each; servers started here)",
    )
    p.add_argument(
        "--lofo",
        type=int,
        default=0,
        metavar="N",
        help="only the leave-one-family-out table of the first N source queries of "
        "each dataset (and of --spider golds), built in memory; writes "
        "docs/results/testsuite_lofo_NAMES.md",
    )
    p.add_argument(
        "--lofo-from",
        type=int,
        default=0,
        metavar="K",
        help="--lofo: the N source queries after the first K of each dataset",
    )
    p.add_argument(
        "--lofo-shown",
        type=int,
        default=5,
        metavar="K",
        help="--lofo: neighbours alive when their family was left out, listed per family",
    )
    p.add_argument(
        "--name",
        default="",
        metavar="SUFFIX",
        help="--lofo: write docs/results/testsuite_lofo_NAMES_SUFFIX.md (two slices of "
        "--spider do not overwrite each other)",
    )
    p.add_argument(
        "--skip-target",
        action="append",
        default=[],
        metavar="DIALECT",
        help="leave out items into DIALECT (repeatable; e.g. spark, slow here)",
    )
    p.add_argument(
        "--source",
        action="append",
        default=[],
        metavar="DIALECT",
        help="only items from DIALECT (repeatable; as the build's --source)",
    )
    p.add_argument(
        "--timeout",
        action="append",
        default=[],
        metavar="[DIALECT=]SECONDS",
        help=f"per execution (default {DEFAULT_TIMEOUT:g}), or for DIALECT only "
        "(repeatable; as the build's: spark=600)",
    )
    p.add_argument(
        "--no-target-side",
        action="store_true",
        help="skip the neighbours of each reference judged on the target engine",
    )
    p.add_argument(
        "--llm",
        default=None,
        metavar="MODEL",
        help="also extend suites with this model's data (local, PROVIDER/MODEL)",
    )
    p.add_argument("--llm-limit", type=int, default=5, help="suites the model extends")
    p.add_argument("--llm-rounds", type=int, default=1, help="model requests per suite")
    llm_options.add_arguments(
        p,
        only=LLM_FLAGS,
        description=(
            "for --llm MODEL (this bench's defaults: --max-tokens 384, --request-timeout 600)"
        ),
    )
    p.set_defaults(max_tokens=384, request_timeout=600.0)  # the local model is slow
    return p


class _Bench:
    """What the default measurement adds up over the stored suites."""

    def __init__(self) -> None:
        self.ops = Tally()
        self.target_ops = Tally()
        self.by_target: dict[str, Tally] = defaultdict(Tally)
        self.by_pair: dict[str, Tally] = defaultdict(Tally)
        self.refs: dict[str, list[int]] = defaultdict(lambda: [0, 0])  # pair -> [judged, false]
        self.separated: list[str] = []
        self.reasons: Counter[str] = Counter()
        self.seen_suites: set[str] = set()
        self.live: dict[str, Counts] = {}  # suite key -> the source side measured here
        self.cost = {"fixture": 0.0, "suite": 0.0, "dbs": 0}
        self.builds: list[float] = []

    def item(
        self,
        judge: Judge,
        item: Item,
        suite: Suite,
        args: argparse.Namespace,
        llm: _LLMColumn | None,
    ) -> None:
        """One item with a stored suite: its source side's counts, its references' target
        side and false separations, timed."""
        empty = _source_empty(judge, item, suite)
        if suite.extra.get("source_side", True):  # distillation's counts
            counts: Counts = (
                suite.extra.get("operators", {}),
                suite.extra.get("survivors", []),
                suite.extra.get("unkillable", []),
            )
        else:  # built without the source's neighbours: measured here, once a query
            if suite.key not in self.live:
                self.live[suite.key] = _side_counts(judge, item, suite)
            counts = self.live[suite.key]
        # a pair counts each of its items
        self.by_pair[item.pair].add_counts(*counts, item.id, item.source_dialect, empty)
        if llm is not None:
            llm.add(item, suite, judge)
        if suite.key not in self.seen_suites:  # operators: once per source query
            self.seen_suites.add(suite.key)
            self.ops.add_counts(*counts, item.id, item.source_dialect, empty)
        for ref in item.reference_sql:
            if not args.no_target_side:
                probe = replace(item, source_dialect=item.target_dialect, source_sql=ref)
                side = _side_counts(judge, probe, suite)
                self.by_target[item.pair].add_counts(*side, item.id, item.target_dialect)
                self.target_ops.add_counts(*side, item.id, item.target_dialect)
            self.reference(judge, item, suite, Translation(TranslationStatus.OK, sql=ref))

    def reference(self, judge: Judge, item: Item, suite: Suite, translation: Translation) -> None:
        """A reference judged on the fixture and, when it matches there, on the suite."""
        t0 = time.monotonic()
        on_fixture = judge.judge(item, translation)["verdicts"]["strict"]
        self.cost["fixture"] += time.monotonic() - t0
        if not on_fixture["match"]:
            return  # the fixture already separates it: not the suite's doing
        self.refs[item.pair][0] += 1
        t0 = time.monotonic()
        for db in suite.databases:
            self.cost["dbs"] += 1
            verdict = judge.judge(replace(item, fixture=db.fixture), translation)["verdicts"][
                "strict"
            ]
            if not verdict["match"]:
                self.refs[item.pair][1] += 1
                self.reasons[verdict["reason"]] += 1
                self.separated.append(
                    f"{item.id} seed {db.seed}: {verdict['reason']}: {verdict['detail'][:120]}"
                )
                break
        self.cost["suite"] += time.monotonic() - t0

    def dataset(
        self, judge: Judge, name: str, args: argparse.Namespace, llm: _LLMColumn | None
    ) -> None:
        ds = load_dataset(name, count_tokens=False)
        root = Path(ds.path).parent
        items = selected(ds.items, args)
        for item in items:
            suite = load_suite(root, item.source_dialect, item.source_sql, item.fixture)
            if suite is not None:
                self.item(judge, item, suite, args, llm)
        members = _members(items)
        for key, (item, dialects) in list(_groups(items).items())[: args.build]:
            t0 = time.monotonic()
            distill(item, judge, dialects=dialects, references=members[key])
            self.builds.append(time.monotonic() - t0)

    def spider(self, judge: Judge, args: argparse.Namespace) -> None:
        for item in _spider_items(args.spider, args.spider_from):
            t0 = time.monotonic()
            result = distill(item, judge, dialects=("sqlite",))
            self.builds.append(time.monotonic() - t0)
            if result.suite is not None:
                self.seen_suites.add(result.suite.key)
                empty = _source_empty(judge, item, result.suite)
                self.by_pair["spider (sqlite)"].add(result.suite, item.id, empty)
                self.ops.add(result.suite, item.id, empty)

    def print(self, args: argparse.Namespace, llm: _LLMColumn | None) -> None:
        _report(self.ops, self.by_pair, self.refs, args.survivors)
        if not args.no_target_side and args.datasets:  # Spider golds have no references
            _report(self.target_ops, self.by_target, {}, args.survivors, side="target")
        if llm is not None:
            llm.print()
        if self.reasons:
            print(
                "\nfalse separations by reason: "
                + ", ".join(f"{r} {c}" for r, c in self.reasons.most_common())
            )
            for line in self.separated[: args.show]:
                print("  " + line)
        judged = sum(r[0] for r in self.refs.values())
        cost = self.cost
        print(
            f"\n{len(self.seen_suites)} suites; eval cost judging {judged} references: "
            f"fixture {cost['fixture']:.1f}s, suites {cost['suite']:.1f}s ({cost['dbs']} "
            f"databases, {1000 * cost['suite'] / max(cost['dbs'], 1):.0f} ms each)"
        )
        if self.builds:
            print(
                f"suite build time: {len(self.builds)} suites, {sum(self.builds):.0f}s, "
                f"{sum(self.builds) / len(self.builds):.1f}s each "
                f"(max {max(self.builds):.1f}s)"
            )


@stopping_started()  # MariaDB and PostgreSQL, started by the judge, are stopped again
def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if not args.datasets and not args.spider:
        args.datasets = ["starter", "polyglot"]
    if args.lofo:
        return lofo_main(args)
    started = os.getloadavg()
    llm = _LLMColumn(args) if args.llm else None
    # MariaDB and PostgreSQL too: without them their pairs judge nothing
    default, timeouts = parse_timeouts(args.timeout)
    judge = Judge(timeout=default, timeouts=timeouts, start=True)
    bench = _Bench()
    try:
        for name in args.datasets:
            bench.dataset(judge, name, args, llm)
        bench.spider(judge, args)
    finally:
        judge.close()
        if llm is not None:
            llm.close()
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        bench.print(args, llm)
    print(out.getvalue(), end="")
    if not args.no_write:
        from resultsfile import write_results  # scripts/bench/, on the path when run as a script

        names = [Path(d).name for d in args.datasets] + (["spider"] if args.spider else [])
        path = write_results(
            "testsuite_" + "_".join(names),
            "Test suites: kill rates, false separations and eval cost",
            "```\n" + out.getvalue().strip() + "\n```\n",
            started_load=started,
        )
        print(f"wrote {path}")
    return 0


def _kill(row: list[int]) -> tuple[int, int]:
    """(killed, killable) of a tally row: unkillable neighbours leave the denominator."""
    n, _fx, ts, _eq, unk = row
    return ts, n - unk


def _report(
    ops: Tally,
    by_pair: dict[str, Tally],
    refs: dict[str, list[int]],
    show: int,
    side: str = "source",
) -> bool:
    """Print one side's tables; whether a target is missed."""
    what = (
        "neighbours of the source query, on the source engine (distillation's counts)"
        if side == "source"
        else "neighbours of each reference, judged against it on the target engine (what eval "
        "faces)"
    )
    print(f"\n[{side} side] {what}")
    print(
        "per dialect pair: non-equivalent neighbours killed (fixture / fixture + suite, of "
        "the killable), equivalent and unkillable (both excluded), false separations of "
        "references"
    )
    print(
        f"{'pair':24} {'neigh':>6} {'fixture':>8} {'suite':>8} {'equiv':>6} {'unkill':>6} "
        f"{'surv':>5}" + (f" {'refs':>5} {'false':>7}" if side == "source" else "")
    )
    rows = sorted(by_pair.items())
    for pair, tally in [*rows, ("all", None)]:
        if tally is None:
            n, fx, ts, eq, unk = (sum(t.total()[i] for _, t in rows) for i in range(5))
            judged, false = (sum(r[i] for r in refs.values()) for i in range(2))
        else:
            n, fx, ts, eq, unk = tally.total()
            judged, false = refs.get(pair, [0, 0])
        print(
            f"{pair:24} {n:6} {_pct(fx, n):>8} {_pct(ts, n - unk):>8} {eq:6} {unk:6} "
            f"{n - unk - ts:5}"
            + (f" {judged:5} {_pct(false, judged):>7}" if side == "source" else "")
        )
    print(
        f"\nper operator ({'each source query once' if side == 'source' else 'every reference'}"
        "): killed by the fixture / fixture + suite (of the killable), equivalent and "
        "unkillable (excluded), survivors"
    )
    print(
        f"{'operator':22} {'neigh':>6} {'fixture':>8} {'suite':>8} {'equiv':>6} {'unkill':>6} "
        f"{'surv':>5}"
    )
    for op, row in sorted(ops.ops.items(), key=lambda kv: kv[1][2] / max(_kill(kv[1])[1], 1)):
        n, fx, ts, eq, unk = row
        print(
            f"{op:22} {n:6} {_pct(fx, n):>8} {_pct(ts, n - unk):>8} {eq:6} {unk:6} {n - unk - ts:5}"
        )
    if ops.unkillable:
        print("\nunkillable (no data can kill them on that engine; excluded from the kill rate):")
        for why, count in ops.unkillable.most_common():
            print(f"  {count:4}  {why}")
    if ops.bounded:
        print(
            f"\nbounded-equivalent (the solver found no small database separating them; "
            f"excluded, not survivors): {sum(ops.bounded.values())}: "
            + ", ".join(f"{op} {n}" for op, n in ops.bounded.most_common())
        )
    missed = False
    for pair, tally in rows:
        ts, killable = _kill(tally.total())
        judged, false = refs.get(pair, [0, 0])
        weak = sorted(
            ((r[0] - r[4] - r[2], op) for op, r in tally.ops.items() if r[0] - r[4] > r[2]),
            reverse=True,
        )
        empty = sum(tally.empty.values())
        if killable and 100 * ts / killable < KILL_TARGET:
            missed = True
            print(
                f"MISSED kill target ({side} side) on {pair}: {_pct(ts, killable).strip()}; "
                "survivors by operator: "
                + ", ".join(f"{op} {k}" for k, op in weak)
                + (
                    f"; {empty} of them with the source empty on the fixture and every suite "
                    "database"
                    if empty
                    else ""
                )
            )
        if judged and 100 * false / judged > FALSE_TARGET:
            missed = True
            print(f"MISSED false-separation target on {pair}: {_pct(false, judged).strip()}")
    if missed:
        print(f"\nsurvivors by operator and engine ({side} side; the engine that ran them):")
        for op, engines in sorted(ops.engines.items(), key=lambda kv: -sum(kv[1].values())):
            print(f"  {op:20} " + ", ".join(f"{e} {c}" for e, c in engines.most_common()))
    if missed and show:
        print(f"\nsurviving neighbours ({side} side; why each operator misses):")
        for op, lines in sorted(ops.survivors.items()):
            for line in lines[:show]:
                print(f"  {op}: {line}")
    return missed


class _LLMColumn:
    """Neighbours killed by LLM data: the first ``--llm-limit`` suites extended by the model."""

    def __init__(self, args: argparse.Namespace):
        from parrot.testsuite.llm import make_datagen

        self.gen = make_datagen(args.llm, llm_options.from_args(args), rounds=args.llm_rounds)
        self.limit = args.llm_limit
        # key -> neighbours, kills by the fixture, fixture + suite, fixture + suite + LLM data
        self.done: dict[str, tuple[int, int, int, int]] = {}
        self.pairs: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])
        self.ops: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])
        self.rejected: Counter[str] = Counter()
        self.examples: list[str] = []  # a few rejections, with the model's mistake
        self.requests = 0
        self.seconds = 0.0

    def add(self, item: Item, suite: Suite, judge: Judge) -> None:
        from parrot.testsuite.llm import augment

        if suite.key not in self.done:
            if len(self.done) >= self.limit:
                return
            out = augment(
                suite, item, judge, self.gen, dialects=(item.target_dialect,), max_rows=12
            )
            operators = suite.extra.get("operators", {})
            fixture = sum(counts[1] for counts in operators.values())
            self.done[suite.key] = (suite.neighbours, fixture, suite.killed, out.suite.killed)
            self.rejected.update(out.report.rejected)
            self.examples += [
                f"{item.id}: {r.reason}: {r.detail[:100]}" for r in out.report.rejections[:2]
            ]
            self.requests += out.report.requests
            self.seconds += out.report.seconds
            for op, (n, fx, ts, *_) in operators.items():
                row = self.ops[op]
                for i, v in enumerate((n, fx, ts, ts + out.report.operators.get(op, 0))):
                    row[i] += v
        row = self.pairs[item.pair]
        for i, v in enumerate(self.done[suite.key]):
            row[i] += v

    def total(self) -> list[int]:
        return [sum(r[i] for r in self.pairs.values()) for i in range(4)]

    @staticmethod
    def header() -> str:
        return f" {'neigh':>6} {'fixture':>8} {'suite':>8} {'+llm':>8} {'added':>6}"

    @staticmethod
    def cells(row: list[int]) -> str:
        n, fx, ts, plus = row
        return f" {n:6} {_pct(fx, n):>8} {_pct(ts, n):>8} {_pct(plus, n):>8} {plus - ts:6}"

    def summary(self) -> str:
        return (
            f"\nLLM data ({self.gen.label}, {self.gen.prompt.id}): {len(self.done)} suites, "
            f"{self.requests} requests, {self.seconds:.0f}s in the model; rejected: "
            + (", ".join(f"{r} {c}" for r, c in self.rejected.most_common()) or "none")
            + "".join(f"\n  {line}" for line in self.examples[:10])
        )

    def print(self) -> None:
        print(
            "\nLLM data: neighbours of the extended suites killed by the fixture, fixture + "
            "suite, fixture + suite + LLM data, and the kills only LLM data adds"
        )
        print(f"{'pair':24}" + self.header())
        for pair, row in sorted(self.pairs.items()):
            print(f"{pair:24}" + self.cells(row))
        print(f"{'all':24}" + self.cells(self.total()))
        for op, row in sorted(self.ops.items()):
            print(f"{op:24}" + self.cells(row))
        print(self.summary())

    def close(self) -> None:
        self.gen.close()


# --- leave one family out ------------------------------------------------------------------------

# family -> [neighbours, killed in sample, counted left out, killed left out,
#            left-out survivors the solver proves bounded-equivalent (out of the two before),
#            in-sample neighbours the solver proves bounded-equivalent (not in the first two)]
Row = list[int]


def _family_neighbours(judge: Judge, item: Item, family: str) -> list[Neighbour]:
    """The source's non-equivalent neighbours of ``family`` that run on the fixture."""
    fixture = item.fixture or EMPTY_FIXTURE
    keys = {t.name.lower(): t.primary_key for t in fixture.tables}
    types = {t.name.lower(): {c.name.lower(): c.type for c in t.columns} for t in fixture.tables}
    return [
        n
        for n in neighbours(item.source_sql, item.source_dialect, keys=keys, types=types)
        if not n.equivalent
        and family_of(n.operator) == family
        and neighbour_outcome(judge, item, fixture, n.sql) != "error"
    ]


def _killed(
    judge: Judge, item: Item, found: list[Neighbour], suite: Suite | None
) -> list[Neighbour]:
    """Those of ``found`` the fixture or a database of ``suite`` kills."""
    dbs = [item.fixture or EMPTY_FIXTURE, *(d.fixture for d in suite.databases if suite)]
    return [
        n for n in found if any(neighbour_outcome(judge, item, db, n.sql) == "kill" for db in dbs)
    ]


def _separations(judge: Judge, members: tuple[Item, ...], suite: Suite) -> tuple[int, list[str]]:
    """(references judged, one line per separated one): references matching on the fixture
    that some database of ``suite`` separates from their source, with the reason."""
    judged, separated = 0, []
    for item in members:
        for ref in item.reference_sql:
            translation = Translation(TranslationStatus.OK, sql=ref)
            if not judge.judge(item, translation)["verdicts"]["strict"]["match"]:
                continue
            judged += 1
            for d in suite.databases:
                strict = judge.judge(replace(item, fixture=d.fixture), translation)["verdicts"][
                    "strict"
                ]
                if not strict["match"]:
                    separated.append(
                        f"{item.id} (seed {d.seed}): {strict['reason']}: "
                        f"{' '.join(str(strict['detail']).split())[:160]}"
                    )
                    break
    return judged, separated


def _bounded(judge: Judge, item: Item, alive: list[Neighbour]) -> list[Neighbour]:
    """Those of ``alive`` (left-out neighbours no suite database kills) that the solver proves
    equal to the source on every small database (:func:`parrot.testsuite.solver.witness`):
    counted apart, as distillation counts its own, never as survivors. A witness it finds
    leaves the neighbour a survivor (the suite, built blind to its family, does not hold it)."""
    fixture = item.fixture or EMPTY_FIXTURE

    def verify(sql: str) -> Any:
        return lambda db: neighbour_outcome(judge, item, db, sql) == "kill"

    return [
        n
        for n in alive
        if isinstance(
            witness(item.source_sql, n.sql, item.source_dialect, fixture, verify(n.sql)),
            BoundedEquivalent,
        )
    ]


def lofo_source(
    judge: Judge,
    item: Item,
    dialects: tuple[str, ...],
    members: tuple[Item, ...],
    families: dict[str, Row],
) -> dict[str, Any]:
    """One source query: the full build (timed; in-sample kills per family, false separations
    of its references), then one build without each family F, on which F's neighbours are
    counted. Adds to ``families``; returns the build's seconds, suite size and separations."""
    t0 = time.monotonic()
    full = distill(item, judge, dialects=dialects, references=members)
    seconds = time.monotonic() - t0
    if full.suite is None:
        return {"seconds": seconds, "why": full.why_none}
    present: set[str] = set()
    for op, (n, _fx, ts, _eq, unk, *proved) in full.operators.items():
        row = families.setdefault(family_of(op), [0] * 6)
        row[0] += n - unk
        row[1] += ts
        row[5] += sum(proved)
        if n - unk:
            present.add(family_of(op))
    alive: list[str] = []  # left-out neighbours that survived: family, operator, SQL
    # no data kills these on the source's engine: left out of the held-out count too, as of the
    # in-sample one (they counted as held-out survivors before)
    unkillable = {entry[1] for entry in full.suite.extra.get("unkillable", [])}
    for family in sorted(present):
        left = distill(item, judge, dialects=dialects, exclude=frozenset({family})).suite
        found = [n for n in _family_neighbours(judge, item, family) if n.sql not in unkillable]
        killed = _killed(judge, item, found, left)
        bounded = _bounded(judge, item, [n for n in found if n not in killed])
        row = families[family]
        row[2] += len(found) - len(bounded)
        row[3] += len(killed)
        row[4] += len(bounded)
        alive += [
            f"{family} {n.operator} {item.id}: {' '.join(n.sql.split())[:200]}"
            for n in found
            if n not in killed and n not in bounded
        ]
    judged, separated = _separations(judge, members, full.suite)
    return {
        "seconds": seconds,
        "dbs": len(full.suite.databases),
        "judged": judged,
        "separated": len(separated),
        "separations": separated,
        "alive": alive,
        "survivors": _in_sample_survivors(item, full.suite),
    }


def _in_sample_survivors(item: Item, suite: Suite) -> list[str]:
    """One line per neighbour the full build leaves alive: family, operator, the solver's
    label for it (and why, where it gave no answer) and its SQL."""
    solved = {a["sql"]: a for a in suite.extra.get("solver", [])}
    out = []
    for op, sql in suite.extra.get("survivors", []):
        attempt = solved.get(sql, {})
        said = attempt.get("label", "not asked")
        if "reason" in attempt:
            said += f" ({attempt['reason'][:80]})"
        out.append(
            f"{family_of(op)} {op} {item.id} [solver: {said}]: {' '.join(sql.split())[:200]}"
        )
    return out


def lofo_table(
    families: dict[str, Row],
    runs: list[dict[str, Any]],
    label: str,
    jobs: int = 1,
    skipped: list[str] | None = None,
    shown_per_family: int = 5,
) -> str:
    """The Markdown of one dataset's leave-one-family-out measurement (``skipped``: a line per
    source query left out, with why; ``shown_per_family``: left-out survivors listed per
    family)."""
    built = [r for r in runs if "dbs" in r]
    seconds = sorted(r["seconds"] for r in runs)
    judged, separated = (sum(r.get(k, 0) for r in built) for k in ("judged", "separated"))
    sizes = sorted(r["dbs"] for r in built)
    lines = [
        f"## {label}",
        "",
        f"{len(runs)} source queries, {len(built)} suites built; build "
        f"{sum(seconds):.0f} s in all, median {seconds[len(seconds) // 2]:.1f} s, max "
        f"{seconds[-1]:.1f} s per source (wall, {jobs} process"
        f"{'es' if jobs > 1 else ''}); median suite size "
        f"{sizes[len(sizes) // 2] if sizes else 0} databases; references separated "
        f"from their source on a suite database: {separated} of {judged} "
        f"({_pct(separated, judged).strip()})",
        "",
        "| family | neighbours | in-sample killed | in-sample bounded-equivalent | "
        "left-out neighbours | killed when left out | left-out bounded-equivalent |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    lines[2:2] = (
        [
            f"{len(skipped)} source queries left out: "
            + "; ".join(skipped[:5])
            + (" …" if len(skipped) > 5 else ""),
            "",
        ]
        if skipped
        else []
    )
    for family, (n, ins, m, out, bounded, proved) in sorted(families.items()):
        lines.append(
            f"| {family} | {n} | {_pct(ins, n).strip()} | {proved} | {m} | "
            f"{_pct(out, m).strip()} | {bounded} |"
        )
    total = [sum(r[i] for r in families.values()) for i in range(6)]
    lines.append(
        f"| all | {total[0]} | {_pct(total[1], total[0]).strip()} | {total[5]} | {total[2]} | "
        f"{_pct(total[3], total[2]).strip()} | {total[4]} |"
    )
    separations = [line for r in built for line in r.get("separations", [])]
    if separations:
        lines += ["", "References separated from their source on a suite database:", ""]
        lines += [f"- {line}" for line in separations]
    survivors = [line for r in built for line in r.get("survivors", [])]
    if survivors:
        lines += ["", f"Neighbours alive after the full build ({len(survivors)}):", ""]
        lines += [f"- `{line}`" for line in survivors]
    alive = [line for r in built for line in r.get("alive", [])]
    if alive:
        lines += [
            "",
            f"Neighbours alive when their family was left out ({len(alive)}; up to "
            f"{shown_per_family} per family):",
            "",
        ]
        shown: Counter[str] = Counter()
        for line in alive:
            family = line.split(" ", 1)[0]
            shown[family] += 1
            if shown[family] <= shown_per_family:
                lines.append(f"- `{line}`")
    return "\n".join(lines) + "\n"


_WORKER: dict[str, Any] = {}  # a --jobs worker's judge and timeouts


def _lofo_init(timeout: list[str]) -> None:
    from parrot.engines.worker import die_with_parent

    die_with_parent()  # an interrupted bench takes its workers with it
    _WORKER["timeout"] = timeout


def _lofo_work(
    job: tuple[Item, tuple[str, ...], tuple[Item, ...]],
) -> tuple[dict[str, Row], dict[str, Any]]:
    """One source query's :func:`lofo_source` in a ``--jobs`` worker (one judge per worker; the
    managed servers were started by the parent)."""
    if "judge" not in _WORKER:
        default, timeouts = parse_timeouts(_WORKER.get("timeout", []))
        _WORKER["judge"] = Judge(timeout=default, timeouts=timeouts)
    families: dict[str, Row] = {}
    item, dialects, members = job
    return families, lofo_source(_WORKER["judge"], item, dialects, members, families)


def _lofo_runs(
    judge: Judge,
    jobs: list[tuple[Item, tuple[str, ...], tuple[Item, ...]]],
    args: argparse.Namespace,
    families: dict[str, Row],
) -> list[dict[str, Any]]:
    """:func:`lofo_source` of every job, in ``--jobs`` spawned worker processes when more than
    one; adds to ``families``."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    if args.jobs <= 1:
        return [
            lofo_source(judge, item, dialects, members, families)
            for item, dialects, members in jobs
        ]
    runs = []
    with ProcessPoolExecutor(
        args.jobs,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=_lofo_init,
        initargs=(args.timeout,),
    ) as pool:
        for part, run in pool.map(_lofo_work, jobs):
            for family, row in part.items():
                total = families.setdefault(family, [0] * 6)
                for i, v in enumerate(row):
                    total[i] += v
            runs.append(run)
    return runs


def _lofo_jobs(
    judge: Judge, items: tuple[Item, ...], args: argparse.Namespace
) -> tuple[list[tuple[Item, tuple[str, ...], tuple[Item, ...]]], list[str]]:
    """``--lofo`` source queries of ``items`` after the first ``--lofo-from`` (with their
    dialects and references), and a line per source left out: a source in a ``--skip-target``
    dialect (Spark: a JVM per worker per engine) is not measured. Starts the servers the jobs
    need (workers do not)."""
    members = _members(items)
    jobs, skipped = [], []
    first = args.lofo_from
    for key, (item, dialects) in list(_groups(items).items())[first : first + args.lofo]:
        if item.source_dialect in args.skip_target:
            skipped.append(f"{item.id}: source in {item.source_dialect} (--skip-target)")
            continue
        jobs.append((item, dialects, members[key]))
    for dialect in sorted(
        {m.target_dialect for job in jobs for m in job[2]} | {job[0].source_dialect for job in jobs}
    ):
        judge.engine(dialect)  # starts MariaDB / PostgreSQL here, once, for every worker
    return jobs, skipped


def lofo_main(args: argparse.Namespace) -> int:
    """``--lofo N``: the leave-one-family-out table of the first N source queries of each
    dataset (and of ``--spider`` golds), written to docs/results/testsuite_lofo_NAMES.md (the
    datasets' names, and ``spider``). ``--jobs N``: sources measured in N processes."""
    from resultsfile import load_average, write_results

    started = load_average()
    default, timeouts = parse_timeouts(args.timeout)
    judge = Judge(timeout=default, timeouts=timeouts, start=True)
    parts: list[str] = []
    try:
        for name in args.datasets:
            ds = load_dataset(name, count_tokens=False)
            jobs, skipped = _lofo_jobs(judge, selected(ds.items, args), args)
            families: dict[str, Row] = {}
            runs = _lofo_runs(judge, jobs, args, families)
            parts.append(lofo_table(families, runs, ds.name, args.jobs, skipped, args.lofo_shown))
            print(parts[-1])
        if args.spider:
            families = {}
            runs = _lofo_runs(
                judge,
                [(item, ("sqlite",), ()) for item in _spider_items(args.spider, args.spider_from)],
                args,
                families,
            )
            parts.append(lofo_table(families, runs, "Spider dev", args.jobs, [], args.lofo_shown))
            print(parts[-1])
    finally:
        judge.close()
    intro = (
        "Per operator family (parrot/testsuite/operators.py): non-equivalent neighbours of "
        "each source query killed by the fixture or its suite when distillation aimed at "
        "every family (in-sample), and when it aimed at every family but that one (a suite "
        "built blind to the family; its neighbours then counted on the fixture and that "
        "suite). Unkillable order-only neighbours are left out of the in-sample count.\n\n"
    )
    if args.no_write:
        return 0
    names = [Path(d).name for d in args.datasets] + (["spider"] if args.spider else [])
    names += [args.name] if args.name else []
    path = write_results(
        "testsuite_lofo_" + "_".join(names),
        "Test suites: leave-one-family-out kill rates",
        intro + "\n".join(parts),
        started_load=started,
    )
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
