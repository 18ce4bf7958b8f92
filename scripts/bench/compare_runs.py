"""Paired comparisons of runs, with their intervals and p-values: ``parrot compare`` on real runs.

Two comparisons (docs/compare.md links the file this writes):

* ``sqlglot`` against ``identity`` on the whole starter set (test suites judged);
* the local model (``--model local``, SmolLM2-135M offline) against ``sqlglot`` on the first
  ``--limit`` starter items.

Each run is made with ``python -m parrot eval`` into ``--runs DIR`` (a run whose ``summary.json``
already exists there is reused, so an interrupted bench resumes where it stopped); then
``python -m parrot compare A B`` prints the tables written here as they are, and
``parrot report A B``
the leaderboard of the pair. CPU seconds of each eval are measured (children's CPU time), beside
the machine's load. Writes ``docs/results/compare_runs.md``.

    python scripts/bench/compare_runs.py [--runs /tmp/parrot-compare-runs] [--limit 24]
                                         [--skip-local]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from resultsfile import load_average, write_results

# (run name, eval arguments)
RUNS = {
    "identity-starter": ["--model", "identity"],
    "sqlglot-starter": ["--model", "sqlglot"],
    "sqlglot-N": ["--model", "sqlglot", "--limit", "{limit}"],
    "local-N": ["--model", "local", "--limit", "{limit}"],
}
PAIRS = (
    ("identity-starter", "sqlglot-starter", "sqlglot against identity on the starter set"),
    (
        "sqlglot-N",
        "local-N",
        "the local model (SmolLM2-135M) against sqlglot on the first {limit} starter items",
    ),
)


def _parrot(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "parrot", *args], capture_output=True, text=True, check=False
    )


def make_run(runs: Path, name: str, limit: int) -> str:
    """Run one eval unless its summary exists; a line of its cost."""
    out = runs / name.replace("N", str(limit))
    if (out / "summary.json").exists():
        return f"- `{out.name}`: reused (made earlier)"
    argv = [a.format(limit=limit) for a in RUNS[name]]
    resume = ["--resume"] if (out / "results.jsonl").exists() else []
    before, wall = os.times(), time.monotonic()
    done = _parrot("eval", *argv, "--output-dir", str(out), "--quiet", *resume)
    after = os.times()
    if done.returncode != 0:
        raise SystemExit(f"eval {name} failed ({done.returncode}):\n{done.stderr[-2000:]}")
    cpu = (after.children_user - before.children_user) + (
        after.children_system - before.children_system
    )
    return (
        f"- `parrot eval {' '.join(argv)}`: {cpu:.0f} CPU s, "
        f"{time.monotonic() - wall:.0f} s wall at load {load_average()[0]:.1f}"
    )


def section(runs: Path, a: str, b: str, title: str) -> str:
    """``parrot compare`` and the two-run leaderboard of one pair, as printed."""
    compared = _parrot("compare", str(runs / a), str(runs / b))
    if compared.returncode not in (0, 1):
        raise SystemExit(f"compare {a} {b} failed:\n{compared.stderr}")
    board = _parrot("report", str(runs / b), str(runs / a), "--no-analysis")
    if board.returncode != 0:
        raise SystemExit(f"report {a} {b} failed:\n{board.stderr}")
    tables = compared.stdout.strip().replace("\n# ", "\n### ").replace("\n## ", "\n### ")
    return (
        f"## {title}\n\n`parrot compare {a} {b}` (A = {a}, B = {b}):\n\n{tables}\n\n"
        f"`parrot report {b} {a} --no-analysis` (the leaderboard part):\n\n"
        f"{_leaderboard(board.stdout)}\n"
    )


def _leaderboard(report: str) -> str:
    """The leaderboard section of ``parrot report A B``'s Markdown (the whole text without one)."""
    lines = report.strip().splitlines()
    first = next((i for i, x in enumerate(lines) if x.startswith("#") and "Leaderboard" in x), None)
    if first is None:
        return report.strip()
    last = next((i for i in range(first + 1, len(lines)) if lines[i].startswith("#")), len(lines))
    return "\n".join(["### " + lines[first].lstrip("# "), *lines[first + 1 : last]]).strip()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--runs",
        type=Path,
        default=Path("/tmp/parrot-compare-runs"),
        help="where the runs are made (or found, to reuse)",
    )
    parser.add_argument(
        "--limit", type=int, default=24, help="items of the local model's comparison"
    )
    parser.add_argument(
        "--skip-local",
        action="store_true",
        help="leave out the local model's comparison (its runs take an hour "
        "on a loaded machine); the file then says so",
    )
    args = parser.parse_args()
    load = load_average()
    args.runs.mkdir(parents=True, exist_ok=True)
    names = [n for n in RUNS if not (args.skip_local and n.endswith("-N"))]
    costs = [make_run(args.runs, name, args.limit) for name in names]
    body = ["Runs (starter set; six pairs of SQLite, DuckDB and ClickHouse/chdb):\n", *costs, ""]
    if args.skip_local:
        body.append("The local model's comparison was left out of this file (`--skip-local`).\n")
    for a, b, title in PAIRS[:1] if args.skip_local else PAIRS:
        a, b = (x.replace("N", str(args.limit)) for x in (a, b))
        body.append(section(args.runs, a, b, title.format(limit=args.limit)))
    text = "\n".join(body)
    print(text)
    path = write_results(
        "compare_runs", "Paired comparisons of runs (parrot compare)", text, started_load=load
    )
    print(f"written: {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
