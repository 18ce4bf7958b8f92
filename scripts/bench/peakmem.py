"""Peak memory of a whole eval: the process tree's resident memory, sampled, per variant.

Runs ``python -m parrot.eval --model M --dataset D`` once per ``--variant`` (a name and the
environment it sets, e.g. ``spark1g:PARROT_SPARK_MEMORY=1g``; ``base`` sets nothing) and samples
every ``--interval`` seconds the resident set (RSS) of the eval process and all its descendants
(engine workers, the Spark JVM) and of the managed PostgreSQL and MariaDB servers it uses
(started by it or already running) with psutil. Reports
the tree's peak (the largest sum at one sampling instant) as PSS (a shared page counted once, split
among the processes that map it) and as Σ RSS (counted in each), each kind of process's own
peak (main, java, postgres, mariadbd, other: the engine workers and anything else), what the PSS
peak held by process (engine workers by engine), wall and CPU seconds, the strict score, and —
against the first variant — the number of items whose verdict differs
(``scripts/verdict_diff.py``). Variants run one after another in one invocation, so their
figures share the machine's conditions; the load average is recorded before and after each.

    python scripts/bench/peakmem.py [--variant base] [--variant spark1g:PARROT_SPARK_MEMORY=1g]
        [--model reference] [--dataset polyglot] [--pairs P] [--exclude W,…] [--timeout S]
        [--interval 0.2] [--keep DIR] [--no-write]

``--pairs`` and ``--exclude`` (item ids containing a word) measure a part of the dataset when the
machine is too loaded for the whole run (Spark's recursive-CTE items time out under load and each
timeout restarts the JVM).

Writes docs/results/peakmem.md (unless --no-write).
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

import psutil

sys.path.insert(0, str(Path(__file__).resolve().parent))
from resultsfile import load_average, publish

from parrot.engines.worker import WorkerArgs
from parrot.servers import SERVERS, server_for

ROOT = Path(__file__).resolve().parents[2]
GIB = 1024**3
KINDS = ("main", "java", "postgres", "mariadbd", "other")


def _kind(proc: psutil.Process, root: int) -> str:
    """``main``, ``java``, ``postgres``, ``mariadbd``, ``worker:ENGINE`` (a parrot engine
    worker, by the engine its command line names) or ``other``."""
    if proc.pid == root:
        return "main"
    try:
        name, cmd = proc.name(), proc.cmdline()
    except psutil.Error:
        return "other"
    worker = WorkerArgs.of_cmdline(cmd)
    if worker is not None:
        return f"worker:{worker.group}"
    return next((k for k in KINDS[1:4] if name.startswith(k)), "other")


def adopted() -> list[psutil.Process]:
    """The managed servers the eval uses (PostgreSQL, MariaDB), found by the state each records
    under the cache, with their backends: a server detaches from the run that starts it (parent
    1), and one already running is reused by the eval without a word in its log. Either way its
    memory is the run's."""
    found = []
    for name in SERVERS.names():
        state = server_for(name).recorded()
        if state is None:
            continue
        try:
            server = psutil.Process(state.pid)
            found += [server, *server.children(recursive=True)]
        except psutil.Error:
            continue
    return found


def sample_tree(
    root: psutil.Process, peaks: dict[str, Any], extra: list[psutil.Process] | None = None
) -> int:
    """The tree's RSS now (bytes), with ``extra`` processes. Raises ``peaks`` (per kind's RSS,
    ``tree`` and ``tree_pss``) to it, and when the tree's PSS reaches a new peak keeps its make-up
    by kind (``at_peak``: PSS per kind at that instant)."""
    by_kind = dict.fromkeys(KINDS, 0)
    pss_by_kind: dict[str, int] = {}
    try:
        found = [root, *root.children(recursive=True), *(extra or [])]
        procs = list({proc.pid: proc for proc in found}.values())  # a server may be both
    except psutil.Error:
        return 0
    for proc in procs:
        try:
            info = proc.memory_full_info()
        except psutil.Error:
            continue
        kind = _kind(proc, root.pid)
        column = "other" if kind.startswith("worker:") else kind
        by_kind[column] += info.rss
        pss_by_kind[kind] = pss_by_kind.get(kind, 0) + getattr(info, "pss", info.rss)
    total, pss = sum(by_kind.values()), sum(pss_by_kind.values())
    for kind, rss in [*by_kind.items(), ("tree", total)]:
        peaks[kind] = max(peaks.get(kind, 0), rss)
    if pss > peaks.get("tree_pss", 0):
        peaks["tree_pss"], peaks["at_peak"] = pss, pss_by_kind
    return total


def _children_cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def subset(dataset: str, exclude: str, into: Path) -> str:
    """A copy of ``datasets/DATASET`` without the items whose id contains one of the
    comma-separated words of ``exclude`` (its fixtures linked, no suites); its directory."""
    source = ROOT / "datasets" / dataset
    into.mkdir(parents=True, exist_ok=True)
    words = [w for w in exclude.split(",") if w]
    lines = (source / "items.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    kept = [x for x in lines if not any(w in json.loads(x)["id"] for w in words)]
    (into / "items.jsonl").write_text("".join(kept), encoding="utf-8")
    (into / "fixtures").symlink_to(source / "fixtures")
    return str(into)


def run_variant(args: argparse.Namespace, env_set: dict[str, str], out: Path) -> dict[str, Any]:
    """One eval with ``env_set`` added to the environment, sampled until it exits."""
    argv = [
        sys.executable,
        "-m",
        "parrot.eval",
        "--model",
        args.model,
        "--dataset",
        args.items,
        "-o",
        str(out),
        *(["--pairs", args.pairs] if args.pairs else []),
        *(["--timeout", str(args.timeout)] if args.timeout else []),
    ]
    load_before, cpu, started = load_average()[0], _children_cpu(), time.monotonic()
    peaks: dict[str, Any] = {}
    log_path = out.with_suffix(".log")
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(
            argv, cwd=ROOT, env={**os.environ, **env_set}, stdout=log, stderr=subprocess.STDOUT
        )
        root, tick = psutil.Process(proc.pid), 0
        extra: list[psutil.Process] = []
        while proc.poll() is None:
            if tick % 25 == 0:  # a server found (or restarted) every few seconds
                extra = adopted()
            sample_tree(root, peaks, extra)
            tick += 1
            time.sleep(args.interval)
    wall, cpu = time.monotonic() - started, _children_cpu() - cpu
    summary = out / "summary.json"
    overall = json.loads(summary.read_text()).get("overall", {}) if summary.is_file() else {}
    return {
        "rc": proc.returncode,
        "wall": wall,
        "cpu": cpu,
        "peaks": peaks,
        "load": (load_before, load_average()[0]),
        "overall": overall,
    }


def differing(run_a: Path, run_b: Path) -> str:
    """``scripts/verdict_diff.py``'s count of differing verdicts between two runs."""
    done = subprocess.run(
        [
            sys.executable,
            str(ROOT / "scripts" / "verdict_diff.py"),
            str(run_a),
            str(run_b),
            "--show",
            "0",
        ],
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
    )
    line = next((x for x in done.stdout.splitlines() if x.startswith("differing")), "")
    return line.removeprefix("differing verdicts: ") or "?"


def _strict(overall: dict[str, Any]) -> str:
    return f"{overall.get('strict', '?')}/{overall.get('evaluated', '?')}"


def _row(name: str, env_set: dict[str, str], r: dict[str, Any], diff: str) -> str:
    p = r["peaks"]
    env = ", ".join(f"`{k}={v}`" for k, v in env_set.items()) or "–"
    kinds = " | ".join(f"{p.get(k, 0) / GIB:.2f}" for k in KINDS)
    return (
        f"| {name} | {env} | **{p.get('tree_pss', 0) / GIB:.2f}** | {p.get('tree', 0) / GIB:.2f} | "
        f"{kinds} | {r['wall']:.0f} | "
        f"{r['load'][0]:.1f} → {r['load'][1]:.1f} | {r['cpu']:.0f} | {r['rc']} | "
        f"{_strict(r['overall'])} | {diff} |"
    )


def make_up(name: str, r: dict[str, Any]) -> str:
    """What the tree's PSS peak held, by kind of process (engine workers by engine)."""
    parts = sorted(r["peaks"].get("at_peak", {}).items(), key=lambda kv: -kv[1])
    held = ", ".join(f"{kind} {pss / GIB:.2f}" for kind, pss in parts)
    return f"- {name}: {held or 'not sampled'}"


def parse_variant(text: str) -> tuple[str, dict[str, str]]:
    name, _, settings = text.partition(":")
    env = dict(s.split("=", 1) for s in settings.split(",") if s)
    return name, env


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--variant",
        action="append",
        type=parse_variant,
        help="NAME[:ENV=VALUE,...] (repeatable; default: base)",
    )
    ap.add_argument("--model", default="reference")
    ap.add_argument("--dataset", default="polyglot")
    ap.add_argument("--pairs", help="eval's --pairs (default: every pair)")
    ap.add_argument(
        "--timeout",
        type=float,
        help="eval's --timeout (a timed-out Spark execution restarts the JVM)",
    )
    ap.add_argument(
        "--exclude",
        default="",
        help="leave out items whose id contains one of these words (comma-separated)",
    )
    ap.add_argument("--interval", type=float, default=0.2, help="seconds between samples")
    ap.add_argument("--keep", type=Path, help="keep the runs under this directory")
    ap.add_argument("--no-write", action="store_true", help="print only")
    args = ap.parse_args(argv)
    variants = args.variant or [("base", {})]
    started = load_average()
    with tempfile.TemporaryDirectory(prefix="parrot-bench-peakmem-") as tmp:
        base = args.keep or Path(tmp)
        base.mkdir(parents=True, exist_ok=True)
        args.items = (
            subset(args.dataset, args.exclude, Path(tmp) / "dataset")
            if args.exclude
            else args.dataset
        )
        rows = [
            f"| variant | environment | **tree peak GiB (PSS)** | tree peak GiB (Σ RSS) | "
            f"{' | '.join(k + ' GiB' for k in KINDS)} | wall s | load | CPU s | exit | "
            f"strict | verdicts differing from {variants[0][0]} |",
            "|" + "---|" * 15,
        ]
        held = []
        for name, env_set in variants:
            out = base / name
            result = run_variant(args, env_set, out)
            diff = "–" if name == variants[0][0] else differing(base / variants[0][0], out)
            rows.append(_row(name, env_set, result, diff))
            held.append(make_up(name, result))
            print(rows[-1], held[-1], sep="\n", file=sys.stderr)
    pairs = f" --pairs {args.pairs}" if args.pairs else ""
    pairs += f" --timeout {args.timeout:g}" if args.timeout else ""
    pairs += f" (items whose id contains {args.exclude} left out)" if args.exclude else ""
    note = (
        f"\n`python -m parrot.eval --model {args.model} --dataset {args.dataset}{pairs}` "
        "per variant, one after another; memory of the eval process, all its descendants and "
        "the managed servers it uses (PostgreSQL, MariaDB: found by the state they record, "
        "whether the run started them or reused them) sampled every "
        f"{args.interval} s with psutil (a peak between samples can be missed). PSS (the "
        "headline) counts a page shared by several processes (the engine workers' libraries, "
        "copy-on-write pages of forked workers) once, split among them: the memory the tree "
        "holds. Σ RSS counts it in every process that maps it (an upper bound). Per-kind "
        "columns are each kind's own RSS peak (they need not coincide with the tree's). CPU s: "
        "user + system of the whole tree (children's rusage)."
    )
    body = (
        "\n".join(rows)
        + "\n\nWhat the tree's PSS peak held, GiB of PSS by process at that sampling instant "
        + "(engine workers by engine):\n\n"
        + "\n".join(held)
        + "\n"
        + note
    )
    publish(
        "peakmem", "Peak memory of an eval", body, started_load=started, write=not args.no_write
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
