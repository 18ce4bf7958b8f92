"""Clustering keys from the one lexer (parrot.dialects.lexer) against the regex normaliser they
replaced (read from git at ``--before``): the 79 k statements of ``<corpora>/parrot`` through
standardise → normalise → cluster → features → coverage with each, in memory; clusters, selected
statements, coverage features, and how many statements' keys differ.

    python scripts/bench/curate_keys.py [--before d72671d] [--jobs 2]
"""

from __future__ import annotations

import argparse
import logging
import subprocess
import time
import types

from curate import load_corpus
from resultsfile import ROOT, load_average, write_results

from parrot.curate import select
from parrot.curate.select import Cluster, Coverage, Features, Normalise
from parrot.curate.stages import LocalExecutor, Record, run_pipeline
from parrot.curate.standardise import Standardise


def previous(commit: str) -> types.ModuleType:
    """``parrot/curate/select.py`` as it was at ``commit``."""
    source = subprocess.run(
        ["git", "show", f"{commit}:parrot/curate/select.py"],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    module = types.ModuleType("select_before")
    exec(compile(source, "select_before.py", "exec"), module.__dict__)  # our own history
    return module


def selection(records: list[Record], jobs: int) -> tuple[list[Record], dict[str, float]]:
    executor = LocalExecutor(jobs)
    start = time.process_time()
    try:
        kept, funnel, _ = run_pipeline(
            records, [Normalise(), Cluster(), Features(), Coverage()], executor, 2000
        )
    finally:
        executor.close()
    return kept, {
        "clusters": funnel[1].notes["clusters"],
        "features": funnel[-1].notes["coverage features"],
        "cpu": time.process_time() - start,
    }


def main() -> int:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--before", default="d72671d")
    p.add_argument("--jobs", type=int, default=2)
    args = p.parse_args()
    logging.getLogger("sqlglot").setLevel(logging.ERROR)
    started = load_average()
    standard, _, _ = run_pipeline(load_corpus(), [Standardise()], LocalExecutor(1))
    old = previous(args.before)
    new_norm = select.normalise
    differ = sum(old.normalise(r.sql) != new_norm(r.sql, r.dialect) for r in standard)
    results = {}
    for name, fn in (
        ("regex (before)", lambda sql, dialect="": old.normalise(sql)),
        ("one lexer (now)", new_norm),
    ):
        select.normalise = fn  # type: ignore[assignment]  # the workers fork after this
        kept, stats = selection(standard, args.jobs)
        results[name] = (kept, stats)
    select.normalise = new_norm
    body = (
        f"{len(standard):,} canonical statements; normalised keys differ for {differ:,}.\n\n"
        "| normaliser | clusters | selected | coverage features | main-process CPU-s |\n"
        "|---|---|---|---|---|\n"
    )
    for name, (kept, stats) in results.items():
        body += (
            f"| {name} | {stats['clusters']:,} | {len(kept):,} | {stats['features']:,} | "
            f"{stats['cpu']:.0f} |\n"
        )
    a, b = ({r.id for r in kept} for kept, _ in results.values())
    body += (
        f"\nSelected by both: {len(a & b):,}; only before: {len(a - b):,}; only now: "
        f"{len(b - a):,}.\n"
    )
    write_results(
        "curate_keys",
        "Clustering keys: the one lexer against the regex",
        body,
        started_load=started,
    )
    print(body)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
