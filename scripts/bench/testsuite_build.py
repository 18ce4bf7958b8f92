"""What building a test suite costs per source query: before/after, by source engine.

Builds the suites of the first ``--per-engine`` source queries of each source dialect of a
dataset (taken in turn, so every engine is measured alike) the way ``python -m parrot.testsuite
build DATASET --force --jobs J`` does (``parrot.testsuite.cli``'s worker function, spawned
worker processes, nothing written), once per mode:

* ``judge-per-suite``: a fresh judge per source query, its engine workers started and stopped
  with it, and every neighbour run on every candidate database (the build before 2026-12-06);
* ``reused``: one judge per build process, replaced after ``JUDGE_SUITES`` suites, every
  neighbour still run on every candidate (so the suites must be identical to the first mode's);
* ``first-kill``: as ``reused``, each neighbour run until a candidate kills it
  (``distill.JUDGE_KILLED`` off: the build now; the cover works on first kills, so the suites
  may keep other databases: the kill counts of every mode are listed to compare).

Per source query: wall seconds in its build process (the load of the machine is in it: stated
beside) and CPU seconds (the build process and its engine workers, independent of the load);
per mode and source engine the median, p90 and max. The suites both modes built are compared
(a fixed seed must build identical suites; the solver's own CPU timings are left out of the
comparison), every difference listed.

    python scripts/bench/testsuite_build.py [--dataset starter] [--per-engine N] [--jobs J]
        [--modes judge-per-suite,reused] [--no-write]

Writes docs/results/testsuite_build_DATASET.md (unless --no-write).
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import resource
import statistics
import time
from collections import defaultdict
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from resultsfile import load_average, write_results

from parrot.datasets import Item, load_dataset
from parrot.testsuite import cli, distill
from parrot.testsuite.store import suite_to_json

MODES = {
    "judge-per-suite": (1, True),
    "reused": (cli.JUDGE_SUITES, True),
    "first-kill": (cli.JUDGE_SUITES, False),
}  # judge kept for N suites, JUDGE_KILLED
_STATE: dict[str, int] = {"built": 0, "every": 1}


def _ticks() -> float:
    """CPU seconds of this process (with its reaped children) and of its live descendants."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    reaped = resource.getrusage(resource.RUSAGE_CHILDREN)
    total = own.ru_utime + own.ru_stime + reaped.ru_utime + reaped.ru_stime
    parents: dict[int, list[int]] = defaultdict(list)
    stats: dict[int, list[str]] = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                fields = Path(f"/proc/{name}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            parents[int(fields[1])].append(int(name))
            stats[int(name)] = fields
    hz = os.sysconf("SC_CLK_TCK")
    todo = list(parents[os.getpid()])
    while todo:
        pid = todo.pop()
        todo += parents[pid]
        f = stats[pid]
        total += sum(int(x) for x in f[11:15]) / hz  # utime stime cutime cstime
    return total


def _init(args: argparse.Namespace, mode: tuple[int, bool]) -> None:
    cli._init(args)
    _STATE["every"] = mode[0]
    distill.JUDGE_KILLED = mode[1]


def _timed(job: tuple[Item, tuple[str, ...], tuple[Item, ...]]) -> dict[str, Any]:
    """One source query's build (:func:`parrot.testsuite.cli._work`): wall, CPU, the suite. The
    judge is closed here, after the CPU is read (its engine workers' CPU goes with them)."""
    wall, cpu = time.monotonic(), _ticks()
    result, _ = cli._work(job)
    cpu = _ticks() - cpu
    _STATE["built"] += 1
    if _STATE["built"] % _STATE["every"] == 0:
        cli._close_shared()
    suite = suite_to_json(result.suite) if result.suite is not None else None
    return {
        "id": job[0].id,
        "engine": job[0].source_dialect,
        "wall": time.monotonic() - wall,
        "cpu": cpu,
        "suite": _comparable(suite),
        "why_none": result.why_none,
    }


def _comparable(suite: dict[str, Any] | None) -> dict[str, Any] | None:
    """``suite`` without the solver's CPU timings (they differ run to run)."""
    for attempt in (suite or {}).get("solver", []):
        attempt.pop("cpu_s", None)
    return suite


def _args(root: Path) -> argparse.Namespace:
    """The flags ``build --force`` runs with at its defaults (the judge closed by the bench)."""
    parsed = cli.build_parser().parse_args(["build", str(root), "--force"])
    args = cli.worker_args(parsed)
    args.root = str(root)
    args.judge_suites = 10**9
    return args


def _run(
    jobs: list[tuple[Item, tuple[str, ...], tuple[Item, ...]]],
    args: argparse.Namespace,
    mode: tuple[int, bool],
    processes: int,
) -> tuple[list[dict[str, Any]], float]:
    started = time.monotonic()
    with ProcessPoolExecutor(
        processes,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=_init,
        initargs=(args, mode),
    ) as pool:
        out = list(pool.map(_timed, jobs))
    return out, time.monotonic() - started


def _jobs(
    dataset: str, per_engine: int
) -> tuple[list[tuple[Item, tuple[str, ...], tuple[Item, ...]]], Path]:
    data = load_dataset(dataset, count_tokens=False)
    members = cli._members(data.items)
    by_engine: dict[str, list[tuple[Item, tuple[str, ...], tuple[Item, ...]]]] = {}
    for key, (item, dialects) in cli._groups(data.items).items():
        by_engine.setdefault(item.source_dialect, []).append((item, dialects, members[key]))
    firsts = [group[:per_engine] for group in by_engine.values()]
    interleaved = [job for row in zip(*firsts, strict=False) for job in row]
    rest = [job for group in firsts for job in group if job not in interleaved]
    return interleaved + rest, Path(data.path).parent


def _stats(values: list[float]) -> str:
    if not values:
        return "n/a | n/a | n/a"
    ordered = sorted(values)
    p90 = ordered[min(len(ordered) - 1, round(0.9 * (len(ordered) - 1)))]
    return f"{statistics.median(ordered):.1f} | {p90:.1f} | {ordered[-1]:.1f}"


def _table(runs: dict[str, list[dict[str, Any]]]) -> str:
    lines = [
        "| mode | source engine | sources | wall s median | p90 | max | CPU s median | p90 | max |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for mode, rows in runs.items():
        engines = sorted({r["engine"] for r in rows})
        for engine in [*engines, "all"]:
            part = [r for r in rows if engine in ("all", r["engine"])]
            lines.append(
                f"| {mode} | {engine} | {len(part)} | "
                f"{_stats([r['wall'] for r in part])} | "
                f"{_stats([r['cpu'] for r in part])} |"
            )
    return "\n".join(lines) + "\n"


def _kills(rows: list[dict[str, Any]]) -> str:
    """What the suites of ``rows`` kill: the source's neighbours, the references', databases."""
    suites = [r["suite"] for r in rows if r["suite"] is not None]
    return (
        f"killed {sum(s['killed'] for s in suites)} of {sum(s['neighbours'] for s in suites)}"
        f" source neighbours, {sum(s.get('target_killed', 0) for s in suites)} of "
        f"{sum(s.get('target_neighbours', 0) for s in suites)} references' neighbours, "
        f"{sum(len(s['databases']) for s in suites)} databases kept"
    )


def _differences(runs: dict[str, list[dict[str, Any]]]) -> list[str]:
    """A line per source whose suite differs between the first mode and another."""
    modes = list(runs)
    out = []
    for other in modes[1:]:
        for a, b in zip(runs[modes[0]], runs[other], strict=True):
            if a["suite"] == b["suite"]:
                continue
            if a["suite"] is None or b["suite"] is None:
                out.append(
                    f"{a['id']}: {modes[0]} {a['why_none'] or 'built'}, "
                    f"{other} {b['why_none'] or 'built'}"
                )
                continue
            keys = sorted(
                k for k in {*a["suite"], *b["suite"]} if a["suite"].get(k) != b["suite"].get(k)
            )
            out.append(f"{a['id']}: {modes[0]} vs {other} differ in {', '.join(keys)}")
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--dataset", default="starter")
    p.add_argument(
        "--per-engine", type=int, default=10, help="source queries per source dialect (default: 10)"
    )
    p.add_argument("--jobs", type=int, default=2, help="build processes (default: 2)")
    p.add_argument(
        "--modes", default=",".join(MODES), help="comma-separated, of: " + ", ".join(MODES)
    )
    p.add_argument("--no-write", action="store_true", help="print only")
    args = p.parse_args(argv)
    started = load_average()
    jobs, root = _jobs(args.dataset, args.per_engine)
    build_args = _args(root)
    started_servers = cli._engines_for([m for job in jobs for m in (job[0], *job[2])], build_args)
    runs: dict[str, list[dict[str, Any]]] = {}
    walls: dict[str, tuple[float, tuple[float, float, float]]] = {}
    try:
        for mode in args.modes.split(","):
            before = load_average()
            runs[mode], wall = _run(jobs, build_args, MODES[mode], args.jobs)
            walls[mode] = (wall, before)
            print(f"{mode}: {len(jobs)} sources in {wall:.0f} s (load {before[0]:.1f})", flush=True)
    finally:
        from parrot.eval.cli import stop_servers

        stop_servers(started_servers)
    body = _body(args, runs, walls, len(jobs))
    print(body)
    if not args.no_write:
        path = write_results(
            f"testsuite_build_{Path(args.dataset).name}",
            "Test suites: build cost per source query",
            body,
            started_load=started,
        )
        print(f"wrote {path}")
    return 0


def _body(
    args: argparse.Namespace,
    runs: dict[str, list[dict[str, Any]]],
    walls: dict[str, tuple[float, tuple[float, float, float]]],
    n: int,
) -> str:
    differences = _differences(runs)
    none = {m: sum(r["suite"] is None for r in rows) for m, rows in runs.items()}
    lines = [
        f"`python -m parrot.testsuite build {args.dataset} --force --jobs {args.jobs}` at "
        f"its defaults on {n} source queries ({args.per_engine} per source dialect, "
        "nothing written), once per mode. Wall: seconds in the build process per source "
        "(grows with the load); CPU: that process and its engine workers (independent "
        "of it).",
        "",
    ]
    for mode, (wall, load) in walls.items():
        lines.append(
            f"- {mode}: {n} sources in {wall:.0f} s wall with {args.jobs} processes "
            f"at load {load[0]:.1f} on {os.cpu_count()} cores ({wall / n:.1f} s per "
            f"source, throughput); no suite: {none[mode]}; Σ CPU "
            f"{sum(r['cpu'] for r in runs[mode]):.0f} s; {_kills(runs[mode])}"
        )
    lines += ["", _table(runs)]
    first = next(iter(runs))
    for mode in list(runs)[1:]:
        differ = sum(f" vs {mode} " in d or f", {mode} " in d for d in differences)
        lines.append(f"Suites {mode} built identical to {first}'s: {n - differ} of {n}.")
    lines += [f"- {d}" for d in differences]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    raise SystemExit(main())
