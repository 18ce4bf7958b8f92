"""Streaming curation at PARROT's scale: 1 M, 3 M and 10 M statements through standardise →
normalise → cluster → coverage selection (:mod:`parrot.curate.stream`), against the target of
15 minutes and 4 GiB of peak process-tree RSS on 2 cores.

The corpus is ``<corpora>/parrot/*.jsonl`` replicated with perturbed literals, as
``scripts/bench/curate.py`` makes it (its first N records for any N), written once to a JSONL file
under ``$PARROT_CACHE/curate_bench/`` (the time to write it is not curation's). Each size runs in a
fresh process; a thread samples the RSS of that process and its workers every 0.2 s. ``--compare``
also runs the in-memory pipeline on the first size and compares the selected records (id, cluster,
rank, in order) and the funnels.

    python scripts/bench/curate_stream.py [--sizes 1000000,3000000,10000000] [--jobs 2] [--compare]
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import resource
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import psutil
from curate import load_corpus, replicas
from resultsfile import load_average, write_results

from parrot.cachedir import cache_dir
from parrot.curate.select import Cluster, Coverage, Features, Normalise
from parrot.curate.stages import LocalExecutor, Record, run_pipeline
from parrot.curate.standardise import Standardise
from parrot.curate.stream import StreamSettings, file_ranges, run_stream

TARGET_SECONDS = 15 * 60
TARGET_RSS = 4 << 30
GIB = float(1 << 30)


def corpus_file(size: int) -> tuple[Path, int]:
    """The replicated corpus as JSONL (at least ``size`` lines) and the byte length of its first
    ``size`` lines; written once, and extended when a larger size asks for more (its first lines
    are the same for any size: the missing ones are appended, the rest not rewritten)."""
    folder = cache_dir() / "curate_bench"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "replicated.jsonl"
    have = length = 0
    if path.exists():
        with path.open("rb") as fh:
            for line in fh:
                if not line.endswith(b"\n"):
                    break  # a file cut short keeps its complete lines
                have += 1
                length += len(line)
                if have == size:
                    return path, length
    with path.open("r+b" if path.exists() else "wb") as fh:
        fh.truncate(length)
        fh.seek(length)
        for n, r in enumerate(replicas(load_corpus(), size)):
            if n >= have:  # the earlier ones are made only to advance the perturbation's RNG
                row = {"id": r.id, "dialect": r.dialect, "sql": r.sql, "origin": r.origin}
                fh.write((json.dumps(row) + "\n").encode("utf-8"))
        return path, fh.tell()


class TreeSampler(threading.Thread):
    """Peak RSS of this process plus its children, sampled every ``interval`` seconds."""

    def __init__(self, interval: float = 0.2):
        super().__init__(daemon=True)
        self.interval = interval
        self.peak = 0
        self.peak_main = 0
        self._halt = threading.Event()

    def run(self) -> None:
        me = psutil.Process()
        while not self._halt.is_set():
            try:
                main = me.memory_info().rss
                rss = main + sum(c.memory_info().rss for c in me.children(recursive=True))
            except psutil.Error:
                continue
            self.peak = max(self.peak, rss)
            self.peak_main = max(self.peak_main, main)
            self._halt.wait(self.interval)

    def stop(self) -> None:
        self._halt.set()
        self.join()


def cpu_seconds() -> float:
    """CPU seconds of this process and its reaped children (the workers, once shut down)."""
    own, kids = (
        resource.getrusage(resource.RUSAGE_SELF),
        resource.getrusage(resource.RUSAGE_CHILDREN),
    )
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def one(size: int, jobs: int, mode: str) -> dict[str, Any]:
    """One run in this process: ``mode`` stream (the file's first ``size`` lines) or memory."""
    logging.getLogger("sqlglot").setLevel(logging.ERROR)
    path, length = corpus_file(size)
    sampler = TreeSampler()
    cpu0, load0 = cpu_seconds(), os.getloadavg()[0]
    sampler.start()
    start = time.perf_counter()
    if mode == "stream":
        ranges = [r for r in file_ranges([path]) if r[1] < length]
        ranges[-1] = (ranges[-1][0], ranges[-1][1], length)
        result = run_stream(
            ranges, StreamSettings(jobs=jobs), progress=_progress(), total=len(ranges)
        )
        kept, funnel, stats = result.kept, result.funnel, result.stats
    else:
        records = [
            Record(**{k: v for k, v in json.loads(line).items()}) for line in _lines(path, size)
        ]
        executor = LocalExecutor(jobs)
        try:
            stages = [Standardise(), Normalise(), Cluster(), Features(), Coverage()]
            kept, funnel, _ = run_pipeline(records, stages, executor, 2000)
        finally:
            executor.close()
        stats = {}
    wall = time.perf_counter() - start
    sampler.stop()
    return {
        "size": size,
        "mode": mode,
        "jobs": jobs,
        "normaliser": "lexer",
        "wall": wall,
        "cpu": cpu_seconds() - cpu0,
        "peak_tree": sampler.peak,
        "peak_main": sampler.peak_main,
        "load_start": load0,
        "load_end": os.getloadavg()[0],
        "stats": stats,
        "funnel": [c.to_json() for c in funnel],
        "kept": [[r.id, r.cluster, r.rank] for r in kept],
    }


def _lines(path: Path, size: int) -> list[str]:
    with path.open(encoding="utf-8") as fh:
        return [next(fh) for _ in range(size)]


def _progress() -> Any:
    """A progress line on stderr every 10% of a phase (long runs are otherwise silent)."""
    shown: dict[str, int] = {}

    def show(stage: str, done: int, total: int) -> None:
        tenth = 10 * done // max(1, total)
        if shown.get(stage, -1) < tenth:
            shown[stage] = tenth
            print(
                f"  {stage}: {done:,}/{total:,} ({time.strftime('%H:%M:%S')}, "
                f"load {os.getloadavg()[0]:.1f})",
                file=sys.stderr,
                flush=True,
            )

    return show


def spawn(size: int, jobs: int, mode: str) -> dict[str, Any]:
    out = subprocess.run(
        [sys.executable, __file__, "--one", str(size), "--jobs", str(jobs), "--mode", mode],
        check=True,
        stdout=subprocess.PIPE,
        text=True,
    )
    return json.loads(out.stdout)


def remembered(size: int, jobs: int) -> dict[str, Any]:
    """The in-memory pipeline's run at ``size`` (kept under the cache: 2 minutes and 4 GiB at
    low load, far more on a loaded machine)."""
    path = cache_dir() / "curate_bench" / f"memory_{size}_{jobs}.json"
    if not path.exists():
        path.write_text(json.dumps(spawn(size, jobs, "memory")))
    return json.loads(path.read_text())


def row(r: dict[str, Any]) -> str:
    """One table line; a figure a run did not record (``None``) shows as ``—``."""
    tree = r.get("peak_tree")
    verdict = "yes" if r["wall"] <= TARGET_SECONDS and tree and tree <= TARGET_RSS else "no"
    kept = r["funnel"][-1]["out"]
    label = r["mode"] + (f" ({r['normaliser']} keys)" if r.get("normaliser") else "")
    return (
        f"| {label} | {r['size']:,} | {r['wall'] / 60:.1f} | {r['cpu']:.0f} | "
        f"{r['size'] / r['wall']:,.0f} | {r['peak_main'] / GIB:.2f} | "
        f"{'—' if tree is None else f'{tree / GIB:.2f}'} | "
        f"{_num(r.get('load_start'))}–{_num(r.get('load_end'))} | {kept:,} | {verdict} |"
    )


def _num(x: float | None) -> str:
    return "—" if x is None else f"{x:.1f}"


def compare(stream: dict[str, Any], memory: dict[str, Any]) -> str:
    a, b = stream["kept"], memory["kept"]
    same = a == b
    ids_a, ids_b = {x[0] for x in a}, {x[0] for x in b}
    lines = [f"\nIn-memory run: {memory['note']}\n"] if memory.get("note") else []
    lines += [
        f"\nSelected records at {stream['size']:,}: streaming {len(a):,}, in-memory "
        f"{len(b):,}; identical (id, cluster, rank, order): **{'yes' if same else 'no'}**"
        f" ({len(ids_a - ids_b)} only streamed, {len(ids_b - ids_a)} only in memory).\n"
    ]
    for s_stage, m_stage in (
        (stream["funnel"][0], memory["funnel"][0]),
        (stream["funnel"][-1], memory["funnel"][-1]),
    ):
        lines.append(
            f"- {s_stage['stage']}: streaming dropped {s_stage['dropped']}, in-memory "
            f"{m_stage['dropped']}"
        )
    return "\n".join(lines) + "\n"


def main() -> int:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--sizes", default="1000000,3000000,10000000")
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument(
        "--compare",
        action="store_true",
        help="also run the in-memory pipeline on the first size, compare selections",
    )
    p.add_argument(
        "--render",
        nargs="+",
        metavar="JSON",
        help="write the results file from saved runs (the JSON --one prints; a run "
        "with mode memory is the comparison) instead of running",
    )
    p.add_argument("--one", type=int, help=argparse.SUPPRESS)
    p.add_argument("--mode", default="stream", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.one:
        json.dump(one(args.one, args.jobs, args.mode), sys.stdout)
        return 0
    if args.render:
        saved = [json.loads(Path(f).read_text()) for f in args.render]
        memory = next((r for r in saved if r["mode"] == "memory"), None)
        return render([r for r in saved if r["mode"] == "stream"], memory, None)
    sizes = [int(s) for s in args.sizes.split(",")]
    corpus_file(max(sizes))  # written once, before any timing
    started = load_average()
    runs = []
    for size in sizes:
        runs.append(spawn(size, args.jobs, "stream"))
        print(row(runs[-1]), flush=True)
    return render(runs, remembered(sizes[0], args.jobs) if args.compare else None, started)


def render(
    runs: list[dict[str, Any]],
    memory: dict[str, Any] | None,
    started: tuple[float, float, float] | None,
) -> int:
    """Write ``docs/results/curate_stream.md`` from the runs (and the in-memory one)."""
    body = (
        "| pipeline | statements | wall min | CPU-s | stmts/s | main GiB | tree GiB | load "
        "| selected | within 15 min, 4 GiB |\n|---|---|---|---|---|---|---|---|---|---|\n"
    )
    body += "\n".join(row(r) for r in runs) + "\n"
    if memory is not None:
        body += row(memory) + "\n" + compare(runs[0], memory)
    body += (
        "\nFunnels (streaming):\n\n"
        + "\n".join(
            f"- {r['size']:,}: "
            + "; ".join(
                f"{c['stage']} {c['in']:,}→{c['out']:,} {c['seconds']:.0f} s" for c in r["funnel"]
            )
            + f"; stats {r['stats']}"
            + (f" ({r['note']})" if r.get("note") else "")
            for r in runs
        )
        + "\n"
    )
    write_results(
        "curate_stream", "Streaming curation at 1–10 M statements", body, started_load=started
    )
    print(body)
    return (
        0 if all(r["wall"] <= TARGET_SECONDS and r["peak_tree"] <= TARGET_RSS for r in runs) else 1
    )


if __name__ == "__main__":
    raise SystemExit(main())
