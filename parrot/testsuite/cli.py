"""``python -m parrot.testsuite build DATASET``: distil a suite for every source query of a
dataset and write it to ``DATASET/suites/`` (content-keyed; existing keys are kept unless
``--force``)."""

from __future__ import annotations

import argparse
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from parrot.datasets import Item, load_dataset
from parrot.testsuite.distill import DEFAULT_CANDIDATES, DEFAULT_MAX_DBS, Distilled, distill
from parrot.testsuite.store import from_corpus, suite_key, suite_path, write_suite


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m parrot.testsuite",
                                description="Build distilled test suites for a dataset.")
    sub = p.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build", help="build the suites of DATASET (a name or a path)")
    b.add_argument("dataset")
    b.add_argument("--max-dbs", type=int, default=DEFAULT_MAX_DBS,
                   help=f"databases kept per suite (default {DEFAULT_MAX_DBS})")
    b.add_argument("--candidates", type=int, default=DEFAULT_CANDIDATES,
                   help=f"candidate databases generated per query (default {DEFAULT_CANDIDATES})")
    b.add_argument("--seed", type=int, default=0)
    b.add_argument("--max-rows", type=int, default=12, help="rows per generated table")
    b.add_argument("--limit", type=int, default=None, help="build at most N suites")
    b.add_argument("--source", action="append", default=None, metavar="DIALECT",
                   help="only source queries in DIALECT (repeatable)")
    b.add_argument("--jobs", type=int, default=1, help="worker processes")
    b.add_argument("--force", action="store_true", help="rebuild suites that exist")
    return p


def _groups(items: tuple[Item, ...]) -> dict[str, tuple[Item, tuple[str, ...]]]:
    """One representative item per suite key, with every dialect the key's items run on."""
    out: dict[str, tuple[Item, tuple[str, ...]]] = {}
    for item in items:
        key = suite_key(item.source_dialect, item.source_sql, item.fixture)
        first, dialects = out.get(key, (item, (item.source_dialect,)))
        if item.target_dialect not in dialects:
            dialects = (*dialects, item.target_dialect)
        out[key] = (first, dialects)
    return out


_ARGS: argparse.Namespace | None = None


def _work(job: tuple[Item, tuple[str, ...]]) -> Distilled:
    from parrot.eval.judge import Judge

    assert _ARGS is not None
    judge = Judge()
    try:
        item, dialects = job
        return distill(item, judge, dialects=dialects, max_dbs=_ARGS.max_dbs,
                       candidates=_ARGS.candidates, seed=_ARGS.seed, max_rows=_ARGS.max_rows)
    finally:
        judge.close()


def _init(args: argparse.Namespace) -> None:
    global _ARGS
    _ARGS = args


def build(args: argparse.Namespace) -> int:
    dataset = load_dataset(args.dataset, count_tokens=False)
    root = Path(dataset.path).parent
    groups = _groups(dataset.items)
    todo = [(k, g) for k, g in groups.items()
            if (args.force or not suite_path(root, k, from_corpus(g[0].fixture)).is_file())
            and (not args.source or g[0].source_dialect in args.source)]
    if args.limit is not None:
        todo = todo[:args.limit]
    print(f"{dataset.name}: {len(dataset.items)} items, {len(groups)} source queries, "
          f"building {len(todo)}", file=sys.stderr)
    start = time.monotonic()
    built = neighbours = killed = fixture_kills = 0
    skipped: dict[str, int] = {}
    _init(args)
    jobs = [g for _, g in todo]
    results = (map(_work, jobs) if args.jobs <= 1 else
               ProcessPoolExecutor(args.jobs, initializer=_init, initargs=(args,))
               .map(_work, jobs))
    for n, ((_key, (item, _)), result) in enumerate(zip(todo, results, strict=True), 1):
        if result.suite is None:
            reason = result.why_none.split(":")[0][:60]
            skipped[reason] = skipped.get(reason, 0) + 1
        else:
            write_suite(root, result.suite, from_corpus(item.fixture))
            built += 1
            neighbours += result.suite.neighbours
            killed += result.suite.killed
            fixture_kills += int(result.suite.extra.get("killed_by_fixture", 0))
        if n % 10 == 0 or n == len(todo):
            print(f"  {n}/{len(todo)} ({item.id})", file=sys.stderr)
    elapsed = time.monotonic() - start

    def pct(k: int) -> str:
        return f"{100 * k / neighbours:.1f}%" if neighbours else "n/a"
    print(f"suites built: {built}; neighbours: {neighbours}; killed by fixture: "
          f"{pct(fixture_kills)}; by fixture + suite: {pct(killed)}; time: {elapsed:.0f}s")
    for reason, count in sorted(skipped.items()):
        print(f"  no suite ({count}): {reason}")
    return 0


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    return build(args)
