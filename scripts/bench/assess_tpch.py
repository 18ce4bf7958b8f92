"""The 22 TPC-H queries assessed from the schema alone: ``parrot assess --schema``, no data.

Writes the TPC-H queries (as DuckDB's ``tpch`` extension ships them, from the PyPI wheel; they
are standard SQL that PostgreSQL runs) into a workload file, the TPC-H schema (from parrot's
``tpch`` fixture: its tables' columns and primary keys, no rows) into a DDL file, and runs
``parrot assess queries.sql --from SOURCE --to TARGET --schema schema.sql`` with the sqlglot
baseline. Prints and writes ``docs/results/assess_tpch_SOURCE_TARGET.md``: every query's verdict,
reason, databases judged and witness size, and the wall time.

    python scripts/bench/assess_tpch.py [--source postgres] [--target duckdb] [--queries 1-22]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from resultsfile import load_average, publish

from parrot.eval.witness import create_statements
from parrot.migrate.named import load_tpch_extension, named_fixture


def tpch_queries() -> list[str]:
    import duckdb

    con = duckdb.connect()
    load_tpch_extension(con)
    rows = con.execute("SELECT query_nr, query FROM tpch_queries() ORDER BY query_nr").fetchall()
    return [" ".join(q.split()).rstrip(";") for _, q in rows]


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _cell(text: str) -> str:
    return " ".join(text.split())[:160].replace("|", "\\|")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--source", default="postgres")
    p.add_argument("--target", default="duckdb")
    p.add_argument("--queries", default="1-22", help="a range of query numbers, e.g. 1-5")
    p.add_argument("--generated-timeout", type=float, default=2.0)
    p.add_argument(
        "--distill",
        action="store_true",
        help="distilled databases (default: parrot assess --no-distill)",
    )
    args = p.parse_args()
    first, _, last = args.queries.partition("-")
    numbers = range(int(first), int(last or first) + 1)
    load = load_average()
    work = Path(tempfile.mkdtemp(prefix="assess-tpch-"))
    queries = tpch_queries()
    (work / "tpch.sql").write_text("".join(f"{queries[n - 1]};\n" for n in numbers))
    empty = named_fixture("tpch")
    empty = dataclasses.replace(
        empty, tables=tuple(dataclasses.replace(t, rows=()) for t in empty.tables)
    )
    (work / "schema.sql").write_text(";\n".join(create_statements(empty, args.source)) + ";\n")
    started, cpu = time.perf_counter(), _children_cpu()
    subprocess.run(
        [
            sys.executable,
            "-m",
            "parrot",
            "assess",
            str(work / "tpch.sql"),
            "--quiet",
            "--from",
            args.source,
            "--to",
            args.target,
            "--schema",
            str(work / "schema.sql"),
            "-o",
            str(work / "out"),
            "--generated-timeout",
            str(args.generated_timeout),
            *([] if args.distill else ["--no-distill"]),
        ],
        check=False,
    )
    seconds, cpu = time.perf_counter() - started, _children_cpu() - cpu
    lines = [json.loads(x) for x in (work / "out" / "assessment.jsonl").read_text().splitlines()]
    rows = [
        f"| Q{numbers[line['index'] - 1]} | {line['verdict']} | {line['reason']} | "
        f"{line['judged']}/{line['databases']} | "
        f"{(line['witness'] or {}).get('size', '')} | "
        f"{'' if line['verdict'] == 'verified' else _cell(line['detail'])} |"
        for line in lines
    ]
    body = (
        f"{args.source} → {args.target}, sqlglot, TPC-H queries {args.queries} from the "
        f"schema alone (no rows): {seconds:.0f} s wall.\n\n"
        f"Generated databases ({'distilled' if args.distill else '--no-distill'}): at most "
        f"{args.generated_timeout:g} s per execution while they are built (parrot assess "
        "--generated-timeout); CPU "
        f"{cpu:.0f} s (assess and its engine workers).\n\n"
        "| query | verdict | reason | databases judged | witness rows | why |\n"
        "|---|---|---|---|---|---|\n" + "\n".join(rows) + "\n"
    )
    publish(
        f"assess_tpch_{args.source}_{args.target}",
        f"TPC-H from the schema alone ({args.source} → {args.target})",
        body,
        started_load=load,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
