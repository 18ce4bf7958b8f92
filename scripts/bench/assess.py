"""Does ``parrot assess --schema`` (no data) reach the verdicts ``--db`` (the real data) reaches?

Takes the Spider dev gold queries (``$PARROT_CORPORA/nl/spider_dev.jsonl``, SQLite) of the chosen
databases, writes each database's queries as one workload file, and assesses each twice into the
target dialect with the sqlglot baseline: with ``--db`` (the Spider database's rows) and with
``--schema`` only (the database's own ``CREATE TABLE`` statements; rows generated; ``--no-distill``
unless ``--distill``). Reports the share of statements on which the two verdicts agree, every
disagreement (statement, both verdicts and reasons, and its kind: see :func:`why`), and the wall
and CPU time of each mode; writes ``docs/results/assess_TARGET.md`` (``assess_TARGET_distill.md``
with ``--distill``). A server target's managed server is started once, before the runs, and
stopped after them (each ``parrot assess`` would otherwise start and stop its own: an
``initdb`` per run); its start is timed apart.

    python scripts/bench/assess.py [--target duckdb] [--db concert_singer --db pets_1 …] [--limit N]
        [--distill]
"""

from __future__ import annotations

import argparse
import json
import math
import re
import resource
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from resultsfile import load_average, publish

from parrot.migrate.named import corpora_root
from parrot.servers import SERVERS, server_for, stopping_started


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


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def why(db_line: dict, schema_line: dict) -> str:
    """The kind of a disagreement, from the two verdicts and the --schema detail."""
    detail = schema_line.get("detail", "")
    if schema_line["verdict"] == "missing":
        return "missing from the --schema run"
    if re.search(r"Conversion Error|invalid input syntax|Could not convert", detail):
        return "generated text that is no number, in a column compared with a number"
    if "on empty tables" in detail:
        return "differs on the empty tables only"
    if schema_line["verdict"] in ("review", "failed") and db_line["verdict"] == "verified":
        return "a generated database separates what the real rows do not"
    if db_line["verdict"] in ("review", "failed") and schema_line["verdict"] == "verified":
        return "the real rows separate what no generated database does"
    return "other"


def assess(args: list[str]) -> tuple[dict[str, dict], float, float]:
    """One ``parrot assess`` run: its lines by id, wall seconds, CPU seconds (all processes)."""
    started, cpu = time.perf_counter(), _children_cpu()
    subprocess.run(
        [sys.executable, "-m", "parrot", "assess", "--quiet", *args],
        check=False,
        stdout=subprocess.DEVNULL,
    )
    out = Path(args[args.index("-o") + 1]) / "assessment.jsonl"
    lines = {}
    for raw in out.read_text(encoding="utf-8").splitlines() if out.is_file() else []:
        line = json.loads(raw)
        lines[line["id"]] = line
    return lines, time.perf_counter() - started, _children_cpu() - cpu


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    if not n:
        return 0.0, 0.0
    p = k / n
    mid = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return mid - half, mid + half


def prepare(work: Path, db: str, queries: list[str]) -> Path:
    """The workload and schema files of one Spider database; returns its SQLite file."""
    sqlite_path = corpora_root() / "sqlite" / "spider" / db / f"{db}.sqlite"
    (work / db / "queries.sql").write_text(";\n".join(queries) + ";\n")
    con = sqlite3.connect(sqlite_path)
    ddl = [
        r[0]
        for r in con.execute(
            "SELECT sql FROM sqlite_master WHERE type = 'table' AND sql IS NOT NULL"
        )
    ]
    con.close()
    (work / db / "schema.sql").write_text(";\n".join(ddl) + ";\n")
    return sqlite_path


def one_target(target: str, work: Path, loads: dict[str, list[str]], distill: bool) -> str:
    """Both modes into ``target`` on every database (a server started once for all runs):
    the results file's body."""
    with stopping_started():
        started = time.perf_counter()
        running = target in SERVERS and server_for(target).state() is not None
        if target in SERVERS:
            server_for(target).start()
        start = time.perf_counter() - started
        body = _runs(target, work, loads, distill)
    if target not in SERVERS:
        return body
    how = "already running" if running else f"started once for all runs in {start:.1f} s wall"
    return body + f"\nThe {target} server: {how} (not in the wall times above).\n"


def _runs(target: str, work: Path, loads: dict[str, list[str]], distill: bool) -> str:
    agree, total, rows = 0, 0, []
    kinds: Counter[str] = Counter()
    verdicts: Counter[tuple[str, str]] = Counter()
    clock: Counter[str] = Counter()
    for db in loads:
        sqlite_path = work / db / "db.sqlite"
        common = [str(work / db / "queries.sql"), "--from", "sqlite", "--to", target]
        with_db, w1, c1 = assess(
            [*common, "--db", str(sqlite_path), "-o", str(work / db / f"db-{target}")]
        )
        with_schema, w2, c2 = assess(
            [
                *common,
                "--schema",
                str(work / db / "schema.sql"),
                *([] if distill else ["--no-distill"]),
                "-o",
                str(work / db / f"schema-{target}"),
            ]
        )
        clock.update({"db wall": w1, "db cpu": c1, "schema wall": w2, "schema cpu": c2})
        for sid, line in with_db.items():
            total += 1
            other = with_schema.get(sid, {"verdict": "missing", "reason": "", "detail": ""})
            verdicts[(line["verdict"], other["verdict"])] += 1
            if line["verdict"] == other["verdict"]:
                agree += 1
                continue
            kinds[why(line, other)] += 1
            rows.append(
                f"| {db} {sid} | {line['verdict']} ({line['reason']}) | "
                f"{other['verdict']} ({other['reason']}) | {why(line, other)} | "
                f"`{line['source_sql'][:90]}` |"
            )
        print(
            f"{target} {db}: {len(with_db)} statements, {w1:.0f} s with --db, {w2:.0f} s "
            f"with --schema",
            file=sys.stderr,
        )
    low, high = wilson(agree, total)
    return (
        f"sqlite → {target}, sqlglot, Spider dev gold queries of {len(loads)} databases; "
        f"--schema {'distilled' if distill else 'with --no-distill'}.\n\n"
        f"| | |\n|---|---|\n| statements | {total} |\n"
        f"| same verdict with --schema as with --db | {agree} "
        f"({100 * agree / total if total else 0:.1f}%, 95% interval "
        f"{100 * low:.1f}–{100 * high:.1f}%) |\n"
        f"| --db: wall / CPU (all processes) | {clock['db wall']:.0f} s / "
        f"{clock['db cpu']:.0f} s |\n"
        f"| --schema: wall / CPU (all processes) | {clock['schema wall']:.0f} s / "
        f"{clock['schema cpu']:.0f} s |\n\n"
        "Verdicts (--db → --schema):\n\n| --db | --schema | statements |\n|---|---|---|\n"
        + "".join(f"| {a} | {b} | {n} |\n" for (a, b), n in sorted(verdicts.items()))
        + "\nDisagreements by kind:\n\n| kind | statements |\n|---|---|\n"
        + "".join(f"| {k} | {n} |\n" for k, n in kinds.most_common())
        + "\nEvery disagreement:\n\n| statement | --db | --schema | kind | source |\n"
        "|---|---|---|---|---|\n" + "\n".join(rows) + "\n"
    )


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--target", action="append", default=[], help="default: duckdb, postgres")
    p.add_argument("--db", action="append", default=[], help="Spider dev database (default: all)")
    p.add_argument("--limit", type=int, default=None, help="queries per database")
    p.add_argument("--distill", action="store_true", help="distilled --schema databases")
    args = p.parse_args()
    work = Path(tempfile.mkdtemp(prefix="assess-bench-"))
    loads = workloads(args.db, args.limit)
    for db, queries in loads.items():
        (work / db).mkdir()
        shutil.copy(prepare(work, db, queries), work / db / "db.sqlite")
    for target in args.target or ["duckdb", "postgres"]:
        load = load_average()
        body = one_target(target, work, loads, args.distill)
        mode = "_distill" if args.distill else ""
        publish(
            f"assess_{target}{mode}",
            f"parrot assess: --schema{' distilled' if args.distill else ''} against "
            f"--db ({target})",
            body,
            started_load=load,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
