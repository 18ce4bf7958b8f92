"""Verdicts under load: ``--model reference`` on polyglot while CPU-bound processes load the
machine, and the slowest Spider-dev gold queries on SQLite under the same load.

Issue 29 measured 99.14% strict for ``--model reference --dataset polyglot`` at load ≈ 11: 13
Spark items (recursive CTE, calendar) timed out at the default 10 s. A timed-out execution is
now re-run once with 3× its budget before ``timeout`` is recorded; this script checks that the
verdicts no longer depend on the load. ``--hogs N`` starts N ``yes > /dev/null`` beside the run
(stopped at the end). ``--spider-dev`` also runs every Spider-dev gold query on parrot's SQLite
copy of its database (primary keys declared) under the same load and lists the slowest: issue
29's 77 s Spider-dev answer (0.43 s on the original file) is not named in the repository, so the
slowest gold stands in for it.

    python scripts/bench/load.py [--pairs SRC:TGT,...] [--hogs 2] [--spider-dev] [--write]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from resultsfile import load_average, write_results

ROOT = Path(__file__).resolve().parents[2]


def start_hogs(n: int) -> list[subprocess.Popen[bytes]]:
    """``n`` CPU-bound processes (``yes > /dev/null``)."""
    return [subprocess.Popen(["yes"], stdout=subprocess.DEVNULL) for _ in range(n)]


def stop_hogs(hogs: list[subprocess.Popen[bytes]]) -> None:
    for hog in hogs:
        hog.kill()
        hog.wait()


def children_cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def run_polyglot(pairs: str | None, out: Path) -> dict[str, Any]:
    """``parrot eval --model reference --dataset polyglot``: its overall summary, the wall and
    CPU seconds it took and its exit status."""
    argv = [
        sys.executable,
        "-m",
        "parrot.eval",
        "--model",
        "reference",
        "--dataset",
        "polyglot",
        "-o",
        str(out),
        *(["--pairs", pairs] if pairs else []),
    ]
    cpu, started = children_cpu(), time.monotonic()
    done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, check=False)
    wall, cpu = time.monotonic() - started, children_cpu() - cpu
    summary = json.loads((out / "summary.json").read_text()) if done.returncode == 0 else {}
    return {
        "rc": done.returncode,
        "wall": wall,
        "cpu": cpu,
        "overall": summary.get("overall"),
        "execution": summary.get("execution_status", {}),
        "stderr": done.stderr[-2000:],
    }


def spider_dev_golds(slowest: int = 5) -> tuple[list[tuple[str, str, float, str]], int, int]:
    """Every Spider-dev gold on parrot's SQLite: the ``slowest`` (id, database, seconds,
    status), how many were not ``ok`` and how many ran."""
    from parrot.connect import create_engine
    from parrot.migrate.named import named_fixture

    corpora = Path(os.environ.get("PARROT_CORPORA", ROOT.parent / "shared" / "corpora"))
    items = [
        json.loads(line)
        for line in (corpora / "nl" / "spider_dev.jsonl").read_text().splitlines()
        if line.strip()
    ]
    engine = create_engine("sqlite")
    rows: list[tuple[str, str, float, str]] = []
    try:
        for item in items:
            fixture = named_fixture(f"spider/{item['db_id']}")
            engine.load(fixture)
            started = time.monotonic()
            execution = engine.execute(item["gold_sql"], fixture)
            rows.append(
                (item["id"], item["db_id"], time.monotonic() - started, execution.status.value)
            )
    finally:
        engine.close()
    failed = sum(1 for r in rows if r[3] != "ok")
    return sorted(rows, key=lambda r: -r[2])[:slowest], failed, len(rows)


def _polyglot_md(pairs: str | None, result: dict[str, Any], hogs: int) -> str:
    o = result["overall"] or {}
    return (
        f"`parrot eval --model reference --dataset polyglot"
        f"{f' --pairs {pairs}' if pairs else ''}` beside {hogs} × `yes > /dev/null`: "
        f"exit {result['rc']}, strict {o.get('strict')}/{o.get('evaluated')} "
        f"({o.get('acc_strict')}%), wrong {o.get('wrong')}, timeout {o.get('timeout')}, "
        f"execution statuses {json.dumps(result['execution'])}; "
        f"{result['cpu']:.0f} CPU-s, {result['wall']:.0f} s wall.\n"
    )


def _spider_md(
    rows: list[tuple[str, str, float, str]], failed: int, total: int, cpu: float, hogs: int
) -> str:
    lines = [
        f"\nSpider-dev gold queries on parrot's SQLite (keys declared) beside {hogs} × "
        f"`yes > /dev/null`: "
        f"{failed} of {total} not `ok` (default budget 10 s); {cpu:.0f} CPU-s for all. "
        f"The slowest:\n",
        "| id | database | seconds | status |",
        "|---|---|---|---|",
    ]
    lines += [f"| {i} | {db} | {s:.2f} | {st} |" for i, db, s, st in rows]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--pairs", default=None, help="polyglot pairs (default: all 30; 'none': skip polyglot)"
    )
    parser.add_argument("--hogs", type=int, default=2)
    parser.add_argument("--spider-dev", action="store_true")
    parser.add_argument("--write", action="store_true", help="write docs/results/load.md")
    args = parser.parse_args(argv)
    load = load_average()
    hogs = start_hogs(args.hogs)
    try:
        result: dict[str, Any] = {"rc": 0}
        body = ""
        if args.pairs != "none":
            with tempfile.TemporaryDirectory(prefix="parrot-bench-load-") as tmp:
                result = run_polyglot(args.pairs, Path(tmp) / "run")
            body = _polyglot_md(args.pairs, result, args.hogs)
        if args.spider_dev:
            own = resource.getrusage(resource.RUSAGE_SELF)
            cpu = own.ru_utime + own.ru_stime + children_cpu()
            rows, failed, total = spider_dev_golds()
            own = resource.getrusage(resource.RUSAGE_SELF)
            body += _spider_md(
                rows, failed, total, own.ru_utime + own.ru_stime + children_cpu() - cpu, args.hogs
            )
    finally:
        stop_hogs(hogs)
    print(body)
    if result["rc"] != 0:
        print(result["stderr"], file=sys.stderr)
    if args.write:
        print(
            write_results(
                "load", f"Verdicts under load ({args.hogs} CPU hogs)", body, started_load=load
            )
        )
    return 0 if result["rc"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
