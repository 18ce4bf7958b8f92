"""How fast is parrot's grammar-only checker, next to sqlglot, on real queries?

For each dialect: up to N real queries (the fidelity corpora: shared corpora + datasets), then in
one run and one process, CPU-time: the first parse (cold: module import + the ANTLR prediction
cache), warm queries/s of ``parrot.check`` (best of --repeat passes), warm queries/s of
``sqlglot.parse`` on the same queries, and the ratios — to sqlglot and to the community-grammar
route (grammars-v4 through the Python ANTLR runtime, measured by this project before it wrote
its own grammars: ``COMMUNITY_QPS``). Community ANTLR grammars are not
installed on this machine, so they are quoted, not re-run.

    python scripts/bench/syntax.py [--dialects sqlite,postgres] [-n 1000] [--repeat 2]
"""

from __future__ import annotations

import argparse
import random
import sys
import time

import sqlglot

from parrot.check import check_sql
from parrot.check.fidelity import DIALECTS, real_queries
from parrot.dialects import resolve

# warm q/s of the grammars-v4 community grammars through the Python ANTLR runtime (measured by
# this project, 2026-11, before writing its own grammars; not re-run here)
COMMUNITY_QPS = {"mysql": 1.2, "oracle": 1.7, "tsql": 4.1, "postgres": 12.6, "clickhouse": 13.3,
                 "sqlite": 56.0}


def _cpu(fn, items) -> tuple[float, int]:
    start = time.process_time()
    ok = sum(1 for q in items if fn(q))
    return time.process_time() - start, ok


def _ours(dialect: str):
    return lambda q: all(v.ok for v in check_sql(q, dialect))


def _sqlglot(dialect: str):
    def parse(q: str) -> bool:
        try:
            sqlglot.parse(q, read=dialect)
            return True
        except sqlglot.errors.SqlglotError:
            return False
    return parse


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dialects", default=",".join(DIALECTS))
    ap.add_argument("-n", type=int, default=1000, help="queries per dialect (default 1000)")
    ap.add_argument("--repeat", type=int, default=2, help="warm passes; the best counts")
    args = ap.parse_args(argv)
    print("community ANTLR grammars: not installed here; their q/s are quoted from "
          "this project's 2026-11 measurement (same kind of queries, Python ANTLR runtime)",
          file=sys.stderr)
    head = ("| dialect | queries | first parse (CPU s) | first pass q/s | parrot.check q/s | "
            "accepted | sqlglot q/s | parrot/sqlglot | community q/s | parrot/community |")
    rows = [head, "|" + "---|" * 10]
    for name in args.dialects.split(","):
        d = resolve(name)
        queries = [q.sql for q in real_queries(d, per_source=args.n)]
        if len(queries) > args.n:
            queries = random.Random(0).sample(queries, args.n)
        if not queries:
            continue
        start = time.process_time()
        check_sql(queries[0], d)  # imports the generated parser, first prediction-cache fill
        first = time.process_time() - start
        cold, _ = _cpu(_ours(d), queries)
        sec, ok = min(_cpu(_ours(d), queries) for _ in range(args.repeat))
        theirs = min(_cpu(_sqlglot(d), queries)[0] for _ in range(args.repeat))
        qps, sg = len(queries) / sec, len(queries) / theirs
        community = COMMUNITY_QPS.get(d)
        rows.append(f"| {d} | {len(queries)} | {first:.2f} | {len(queries) / cold:,.0f} | "
                    f"{qps:,.0f} | {ok} | {sg:,.0f} | "
                    f"{qps / sg:.2f}× | {community if community else '–'} | "
                    f"{f'{qps / community:,.0f}×' if community else '–'} |")
        print(rows[-1], file=sys.stderr)
    print("\n".join(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
