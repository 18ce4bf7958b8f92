"""Does ``parrot assess --schema`` (no data) reach the verdicts ``--db`` (the real data) reaches?

Takes the Spider dev gold queries (``$PARROT_CORPORA/nl/spider_dev.jsonl``, SQLite) of the chosen
databases, writes each database's queries as one workload file, and assesses each twice into the
target dialect with the sqlglot baseline: with ``--db`` (the Spider database's rows) and with
``--schema`` only (the database's own ``CREATE TABLE`` statements; rows generated). Reports the
share of statements on which the two verdicts agree, every disagreement (statement, both verdicts
and reasons) and the wall time of each mode; writes ``docs/results/assess_TARGET.md``.

    python scripts/bench/assess.py [--target duckdb] [--db concert_singer --db pets_1 …] [--limit N]
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from resultsfile import load_average, write_results

from parrot.migrate.named import corpora_root


def workloads(dbs: list[str], limit: int | None) -> dict[str, list[str]]:
    path = corpora_root() / "nl" / "spider_dev.jsonl"
    if not path.is_file():
        sys.exit(f"no {path}: set PARROT_CORPORA")
    out: dict[str, list[str]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        if not dbs or row["db_id"] in dbs:
            out.setdefault(row["db_id"], []).append(" ".join(row["gold_sql"].split()))
    return {db: qs[:limit] for db, qs in out.items()}


def assess(args: list[str]) -> tuple[dict[str, dict], float]:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "parrot", "assess", "--quiet", *args], check=False,
                   stdout=subprocess.DEVNULL)
    out = Path(args[args.index("-o") + 1]) / "assessment.jsonl"
    lines = {}
    for raw in out.read_text(encoding="utf-8").splitlines() if out.is_file() else []:
        line = json.loads(raw)
        lines[line["id"]] = line
    return lines, time.perf_counter() - started


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--target", default="duckdb")
    p.add_argument("--db", action="append", default=[], help="Spider dev database (default: all)")
    p.add_argument("--limit", type=int, default=None, help="queries per database")
    args = p.parse_args()
    load = load_average()
    work = Path(tempfile.mkdtemp(prefix="assess-bench-"))
    agree, rows, seconds = 0, [], Counter[str]()
    total = 0
    for db, queries in workloads(args.db, args.limit).items():
        sqlite_path = corpora_root() / "sqlite" / "spider" / db / f"{db}.sqlite"
        (work / db).mkdir()
        (work / db / "queries.sql").write_text(";\n".join(queries) + ";\n")
        con = sqlite3.connect(sqlite_path)
        ddl = [r[0] for r in con.execute("SELECT sql FROM sqlite_master WHERE type = 'table' "
                                         "AND sql IS NOT NULL")]
        con.close()
        (work / db / "schema.sql").write_text(";\n".join(ddl) + ";\n")
        common = [str(work / db / "queries.sql"), "--from", "sqlite", "--to", args.target]
        with_db, s1 = assess([*common, "--db", str(sqlite_path), "-o", str(work / db / "db")])
        with_schema, s2 = assess([*common, "--schema", str(work / db / "schema.sql"),
                                  "-o", str(work / db / "schema")])
        seconds["--db"] += s1
        seconds["--schema"] += s2
        for sid, line in with_db.items():
            total += 1
            other = with_schema.get(sid, {"verdict": "missing", "reason": ""})
            same = line["verdict"] == other["verdict"]
            agree += same
            if not same:
                sql = line["source_sql"][:90]
                rows.append(f"| {db} {sid} | {line['verdict']} ({line['reason']}) | "
                            f"{other['verdict']} ({other['reason']}) | `{sql}` |")
        print(f"{db}: {len(with_db)} statements, {s1:.0f} s with --db, {s2:.0f} s with --schema",
              file=sys.stderr)
    body = (f"sqlite → {args.target}, sqlglot, Spider dev gold queries of "
            f"{len(workloads(args.db, args.limit))} databases.\n\n"
            f"| | |\n|---|---|\n| statements | {total} |\n"
            f"| same verdict with --schema as with --db | {agree} "
            f"({100 * agree / total if total else 0:.1f}%) |\n"
            f"| wall time, --db | {seconds['--db']:.0f} s |\n"
            f"| wall time, --schema | {seconds['--schema']:.0f} s |\n\n"
            "Disagreements:\n\n| statement | --db | --schema | source |\n|---|---|---|---|\n"
            + "\n".join(rows) + "\n")
    print(body)
    write_results(f"assess_{args.target}", f"parrot assess: --schema against --db ({args.target})",
                  body, started_load=load)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
