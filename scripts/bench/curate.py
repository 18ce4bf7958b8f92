"""How fast are curation's corpus-scale stages?

Reads every statement of ``<corpora>/parrot/*.jsonl`` (79 k, all dialects), runs standardise →
normalise → cluster → features → coverage on it and prints statements/s per stage; then builds a
1 M-statement corpus (the 79 k replicated with perturbed numeric and string literals, so exact and
normalised deduplication keep the copies) and times the same stages on it, against the target of
15 minutes on 2 cores. The last table says where the time went.

    python scripts/bench/curate.py [--jobs 2] [--size 1000000] [--skip-1m]
"""

from __future__ import annotations

import argparse
import json
import logging
import random
import re
import sys
import time
from collections.abc import Iterator

from parrot.curate.select import Cluster, Coverage, Features, Normalise
from parrot.curate.stages import LocalExecutor, Record, StageCount, run_pipeline
from parrot.curate.standardise import Standardise
from parrot.migrate.named import corpora_root

TARGET_SECONDS = 15 * 60
_NUMBER = re.compile(r"(?<![\w.])(\d+)(?![\w.])")
_STRING = re.compile(r"'([^']*)'")


def load_corpus() -> list[Record]:
    root = corpora_root() / "parrot"
    if not root.is_dir():
        sys.exit(f"no corpus at {root}: set PARROT_CORPORA")
    records = []
    for path in sorted(root.glob("*.jsonl")):
        with path.open(encoding="utf-8") as fh:
            for line in fh:
                row = json.loads(line)
                records.append(Record.of_row(row, row.get("benchmark", path.stem)))
    return records


def perturb(sql: str, rng: random.Random) -> str:
    """``sql`` with its numbers shifted and its string literals suffixed."""
    sql = _NUMBER.sub(lambda m: str(int(m.group(1)) + rng.randint(1, 999)), sql)
    return _STRING.sub(lambda m: f"'{m.group(1)}{rng.randint(0, 99999)}'", sql)


def replicas(records: list[Record], size: int, seed: int = 0) -> Iterator[Record]:
    """``size`` records, one at a time: the first ``size`` of ``records``, then perturbed copies
    of them all (a shorter run's records are a prefix of a longer one's)."""
    rng = random.Random(seed)
    yield from records[:size]
    made = min(size, len(records))
    copy = 0
    while made < size:
        copy += 1
        for r in records:
            if made >= size:
                return
            made += 1
            yield Record(
                id=f"{r.id}@{copy}", dialect=r.dialect, sql=perturb(r.sql, rng), origin=r.origin
            )


def replicate(records: list[Record], size: int, seed: int = 0) -> list[Record]:
    """:func:`replicas` as a list."""
    return list(replicas(records, size, seed))


def run(records: list[Record], jobs: int, chunk: int) -> tuple[list[StageCount], float]:
    stages = [Standardise(), Normalise(), Cluster(), Features(), Coverage()]
    executor = LocalExecutor(jobs)
    start = time.perf_counter()
    try:
        _, funnel, _ = run_pipeline(records, stages, executor, chunk)
    finally:
        executor.close()
    return funnel, time.perf_counter() - start


def report(title: str, funnel: list[StageCount], total: float) -> None:
    print(f"\n{title}: {total:.1f} s wall")
    print(f"{'stage':<12} {'in':>9} {'out':>9} {'seconds':>8} {'stmts/s':>10} {'share':>6}")
    for c in funnel:
        print(
            f"{c.stage:<12} {c.records_in:>9,} {c.records_out:>9,} {c.seconds:>8.1f} "
            f"{c.rate:>10,.0f} {100 * c.seconds / total:>5.1f}%"
        )


def main() -> int:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--chunk-size", type=int, default=2000)
    p.add_argument("--size", type=int, default=1_000_000)
    p.add_argument("--skip-1m", action="store_true")
    args = p.parse_args()
    logging.getLogger("sqlglot").setLevel(logging.ERROR)  # "falling back to Command" noise
    corpus = load_corpus()
    funnel, total = run(corpus, args.jobs, args.chunk_size)
    report(f"{len(corpus):,} statements (shared corpus), jobs={args.jobs}", funnel, total)
    if args.skip_1m:
        return 0
    big = replicate(corpus, args.size)
    funnel, total = run(big, args.jobs, args.chunk_size)
    report(
        f"{len(big):,} statements (replicated, perturbed literals), jobs={args.jobs}", funnel, total
    )
    verdict = "within" if total <= TARGET_SECONDS else "OVER"
    print(f"\n1M-statement time: {total / 60:.1f} min ({verdict} the 15 min target)")
    return 0 if total <= TARGET_SECONDS else 1


if __name__ == "__main__":
    raise SystemExit(main())
