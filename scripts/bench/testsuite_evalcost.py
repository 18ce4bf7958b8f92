"""What judging test suites costs in a real eval run: milliseconds per suite database, per pair
and per engine, and its ratio to the item's own fixture executions.

Runs ``python -m parrot eval --model reference --suite`` on a dataset (its stored suites,
``DATASET/suites/``) in a fresh process, then reads the run's results.jsonl: per dialect pair,
the items judged on a suite, the suite databases they judged, Σ each record's suite ``elapsed``
(the source and the translation run on every database, the databases loaded on both engines,
and the tie pools of an order-less LIMIT) and that sum ÷ the databases (target ≤ 40 ms); the
same items' fixture executions (the source's and the translation's ``elapsed`` on the item's
own fixture, loads not included) per item, and the ratio of a suite database's cost to them
(issue 31's target: ≤ 1.5×); and, since ``--model reference`` answers with the references,
every one separated from its source on a suite database (a false separation). The same figures
per engine: once grouped by the source engine and once by the target engine (a record's suite
time holds both engines' work; the run's records do not split it). Where it goes per engine:
the eval runs in a child process of this script that times every round trip to an engine
worker while a suite is judged (loads — sending, creating and verifying a database — and
executions, with the distinct databases loaded and the answers "evicted, send it again").
Beside it the run's wall time and its CPU time (the eval process and the processes it waited
for), with the machine's load.

    python scripts/bench/testsuite_evalcost.py [--dataset starter] [--limit N] [--pairs SRC:TGT,…]
        [--jobs N] [--no-write]

Writes docs/results/testsuite_evalcost_DATASET.md (unless --no-write).
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
from collections import defaultdict
from pathlib import Path
from typing import Any

from resultsfile import ROOT, load_average, write_results

Row = list[float]  # items on a suite, databases, Σ suite s, separated, Σ fixture s
CHILD = "--child"  # this script run as the eval, timing worker round trips into a JSON file


def child(out: str, argv: list[str]) -> int:
    """``parrot`` ``argv`` in this process, with every round trip to an engine worker made
    while a suite is judged timed by engine and call; the counts go to ``out`` (JSON)."""
    from parrot.cli import main as parrot_main
    from parrot.engines import worker
    from parrot.eval.judge import Judge

    calls: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(lambda: [0, 0.0]))
    distinct: dict[str, set[str]] = defaultdict(set)
    judging = [False]
    call, judge_suite = worker._Worker.call, Judge._judge_suite

    def timed_call(self: Any, target: str, method: str, args: Any, timeout: float) -> Any:
        started = time.perf_counter()
        answer = call(self, target, method, args, timeout)
        if judging[0]:
            row = calls[self.group][method]
            row[0] += 1
            row[1] += time.perf_counter() - started
            if method == "load":
                distinct[self.group].add(args[0].content_hash)
            if answer[0] == "unloaded":
                calls[self.group]["evicted"][0] += 1
        return answer

    def timed_suite(self: Any, *args: Any, **kwargs: Any) -> Any:
        judging[0] = True
        try:
            return judge_suite(self, *args, **kwargs)
        finally:
            judging[0] = False

    worker._Worker.call = timed_call  # type: ignore[method-assign]
    Judge._judge_suite = timed_suite  # type: ignore[method-assign]
    code = parrot_main(argv)
    Path(out).write_text(
        json.dumps(
            {
                group: {**{m: row for m, row in by.items()}, "distinct": len(distinct[group])}
                for group, by in calls.items()
            }
        ),
        encoding="utf-8",
    )
    return code


def calls_table(calls: dict[str, dict[str, Any]]) -> str:
    """Per engine: round trips to its worker while suites were judged (the parent's wall:
    pickling, the pipe and the worker's work) — loads (sent, created, verified), the distinct
    databases they were, executions, and the answers "evicted, send it again"."""
    lines = [
        "| engine | loads | distinct databases | ms per load | executions | ms per execution "
        "| evicted and sent again | Σ loads | Σ executions |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for group, by in sorted(calls.items()):
        loads, load_s = by.get("load", [0, 0.0])
        runs, run_s = by.get("execute", [0, 0.0])
        lines.append(
            f"| {group} | {int(loads)} | {by.get('distinct', 0)} | "
            f"{1000 * load_s / loads if loads else 0:.1f} | {int(runs)} | "
            f"{1000 * run_s / runs if runs else 0:.1f} | {int(by.get('evicted', [0])[0])} | "
            f"{load_s:.1f} s | {run_s:.1f} s |"
        )
    return "\n".join(lines) + "\n"


def per_pair(results: Path, separated: list[str]) -> dict[str, Row]:
    """pair -> [items with a suite, databases judged, Σ suite seconds, references separated,
    Σ fixture seconds (the source's and the translation's executions on the item's fixture)]
    of a results file; ``separated`` gets a line per reference that matches its source on the
    fixture but not on a suite database (a false separation: the references are right)."""
    out: dict[str, Row] = defaultdict(lambda: [0, 0, 0.0, 0, 0.0])
    with results.open(encoding="utf-8") as fh:
        for line in fh:
            record = json.loads(line)
            suite = record.get("suite")
            if not suite or not suite.get("databases"):
                continue
            row = out[f"{record['source_dialect']} -> {record['target_dialect']}"]
            row[0] += 1
            row[1] += len(suite["databases"])
            row[2] += float(suite.get("elapsed") or 0.0)
            row[4] += sum(
                float((record.get(side) or {}).get("elapsed") or 0.0) for side in ("gold", "pred")
            )
            if record["verdicts"]["strict"]["match"] and not suite.get("match"):
                row[3] += 1
                failed = next(d for d in suite["databases"] if d.get("match") is False)
                separated.append(
                    f"{record['id']} (seed {failed['seed']}): {failed['reason']}: "
                    f"{' '.join(str(failed.get('detail', '')).split())[:160]}"
                )
    return out


def by_engine(pairs: dict[str, Row], side: int) -> dict[str, Row]:
    """``pairs`` summed by their source (``side`` 0) or target (1) engine."""
    out: dict[str, Row] = defaultdict(lambda: [0, 0, 0.0, 0, 0.0])
    for pair, row in pairs.items():
        total = out[pair.split(" -> ")[side]]
        for i, value in enumerate(row):
            total[i] += value
    return dict(out)


def table(pairs: dict[str, Row], label: str = "pair", total: bool = True) -> str:
    lines = [
        f"| {label} | items on a suite | suite databases | Σ suite time | ms per database | "
        "fixture ms per item | database ÷ fixture | references separated |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    rows = sorted(pairs.items())
    if total:
        rows.append(("all", [sum(r[i] for _, r in rows) for i in range(5)]))
    for pair, (items, dbs, seconds, false, fixture) in rows:
        ms = f"{1000 * seconds / dbs:.1f}" if dbs else "n/a"
        per_item = f"{1000 * fixture / items:.1f}" if items else "n/a"
        ratio = f"{(seconds / dbs) / (fixture / items):.1f}×" if dbs and fixture else "n/a"
        lines.append(
            f"| {pair} | {int(items)} | {int(dbs)} | {seconds:.1f} s | {ms} | "
            f"{per_item} | {ratio} | {int(false)} |"
        )
    return "\n".join(lines) + "\n"


def report(
    command: str,
    pairs: dict[str, Row],
    separated: list[str],
    calls: dict[str, dict[str, Any]] | None,
    run: tuple[float, float, float, float],
) -> str:
    """The results file's body; ``run``: wall and CPU seconds, load at the start and the end."""
    wall, cpu, load_start, load_end = run
    dbs = sum(r[1] for r in pairs.values())
    return (
        f"`{command}` (run directory temporary).\n\n"
        f"Run: wall {wall:.0f} s at load {load_start:.1f}–{load_end:.1f} on {os.cpu_count()} "
        f"cores, CPU {cpu:.0f} s (eval and the processes it waited for); {int(dbs)} suite "
        f"databases judged; the whole run (translation, fixture judging and start-up "
        f"included) ÷ databases: wall {1000 * wall / max(dbs, 1):.0f} ms, CPU "
        f"{1000 * cpu / max(dbs, 1):.0f} ms (an upper bound of the CPU a suite database "
        "costs, independent of the load).\n\n"
        "Σ suite time per record: the source and the translation on every suite database "
        "(each loaded on both engines), engines already warm from the fixture run; wall "
        "time, so it grows with the load. Fixture ms per item: the source's and the "
        "translation's executions on the item's own fixture (loads not included); database "
        "÷ fixture: a suite database's cost over that (issue 31: ≤ 1.5×).\n\n"
        + table(pairs)
        + "\nBy source engine (each row's suite time also holds its target engines' work):"
        "\n\n"
        + table(by_engine(pairs, 0), "source engine", total=False)
        + "\nBy target engine (each row's suite time also holds its source engines' work):"
        "\n\n"
        + table(by_engine(pairs, 1), "target engine", total=False)
        + (
            "\nWhere it goes: round trips to each engine's worker while suites were judged "
            "(the eval process's wall per round trip: pickling, the pipe and the worker's "
            "work; a load sends, creates and verifies one database):\n\n" + calls_table(calls)
            if calls is not None
            else "\nRound trips to the engine workers are counted with --jobs 1 only.\n"
        )
        + "".join(f"\n- separated: {line}" for line in separated)
    )


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--dataset", default="starter")
    p.add_argument("--limit", type=int, default=None, help="only the first N items")
    p.add_argument("--pairs", default=None, help="as parrot eval's --pairs")
    p.add_argument("--jobs", type=int, default=1, help="as parrot eval's --jobs")
    p.add_argument("--no-write", action="store_true", help="print only")
    args = p.parse_args(argv)
    started = load_average()
    with tempfile.TemporaryDirectory(prefix="parrot-evalcost-") as tmp:
        run, counted = Path(tmp) / "run", Path(tmp) / "calls.json"
        eval_args = [
            "eval",
            "--model",
            "reference",
            "--dataset",
            args.dataset,
            "--suite",
            "--quiet",
            "--jobs",
            str(args.jobs),
            "-o",
            str(run),
            *(["--limit", str(args.limit)] if args.limit else []),
            *(["--pairs", args.pairs] if args.pairs else []),
        ]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.monotonic()
        subprocess.run(
            [sys.executable, __file__, CHILD, str(counted), *eval_args],
            check=True,
            cwd=ROOT,
            env=os.environ.copy(),
        )
        wall = time.monotonic() - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        separated: list[str] = []
        pairs = per_pair(run / "results.jsonl", separated)
        calls = json.loads(counted.read_text(encoding="utf-8"))
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    shown = ["parrot", *(a for a in eval_args if a not in ("-o", str(run)))]
    body = report(
        " ".join(shown),
        pairs,
        separated,
        calls if args.jobs == 1 else None,
        (wall, cpu, started[0], load_average()[0]),
    )
    print(body)
    if not args.no_write:
        name = f"testsuite_evalcost_{Path(args.dataset).name}"
        path = write_results(
            name, "Test suites: eval cost per suite database", body, started_load=started
        )
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    if sys.argv[1:2] == [CHILD]:
        raise SystemExit(child(sys.argv[2], sys.argv[3:]))
    raise SystemExit(main())
