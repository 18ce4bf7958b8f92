"""What does ``parrot eval --prove`` add to a run?

Runs ``parrot eval --model MODEL --dataset DATASET --pairs PAIRS`` twice into temporary
directories, without and with ``--prove``, and reports: the items judged right (the ones the
solver is asked about), its answers (bounded-equivalent, counterexample, unknown, unverified,
unsupported with the constructs named), the items whose level became bounded-equivalent, the
counterexamples (each with its witness's size and the differing reason), and the cost: the
solver's CPU seconds per item (median, p90, total, from the records) and the whole run's CPU
seconds (this process and its engine workers) with and without ``--prove``. Writes
``docs/results/prove.md``.

    python scripts/bench/prove.py [--model sqlglot] [--dataset starter]
        [--pairs sqlite:duckdb,...] [--limit N]
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from parrot.eval.cli import main as eval_main

sys.path.insert(0, str(Path(__file__).resolve().parent))
from resultsfile import load_average, write_results

THREE = ("sqlite", "duckdb", "postgres")
DEFAULT_PAIRS = ",".join(f"{s}:{t}" for s in THREE for t in THREE)


def _cpu() -> float:
    """CPU seconds of this process and its finished children (engine workers, servers)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def _run(
    args: argparse.Namespace, out: Path, prove: bool
) -> tuple[list[dict[str, Any]], float, float]:
    argv = [
        "--quiet",
        "--model",
        args.model,
        "--dataset",
        args.dataset,
        "--pairs",
        args.pairs,
        "--output-dir",
        str(out),
        *(["--prove"] if prove else []),
        *(["--limit", str(args.limit)] if args.limit else []),
    ]
    cpu, wall = _cpu(), time.monotonic()
    if eval_main(argv) != 0:
        raise SystemExit(f"parrot eval {' '.join(argv)} failed")
    records = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    return records, _cpu() - cpu, time.monotonic() - wall


def _q(values: list[float]) -> str:
    if not values:
        return "–"
    v = sorted(values)
    return f"{statistics.median(v):.3f} / {v[int(0.9 * (len(v) - 1))]:.3f} / {sum(v):.1f}"


def _body(
    args: argparse.Namespace,
    plain: tuple[list[dict[str, Any]], float, float],
    proved: tuple[list[dict[str, Any]], float, float],
) -> str:
    records, cpu, wall = proved
    right = [r for r in records if r["verdicts"]["strict"]["match"]]
    asked = [r for r in records if "prove" in r]
    labels = Counter(r["prove"]["label"] for r in asked)
    levels = Counter(r["level"]["name"] for r in records)
    plain_levels = Counter(r["level"]["name"] for r in plain[0])
    ts = [r for r in records if r.get("suite")]
    out = [
        f"`parrot eval --model {args.model} --dataset {args.dataset} --pairs {args.pairs}`"
        f"{f' --limit {args.limit}' if args.limit else ''}, with and without `--prove` "
        "(bound 3 rows a table, z3 timeout 2000 ms per check).\n",
        "| items | judged right (asked) | bounded-equivalent | counterexample | unknown | "
        "unverified | unsupported | solver CPU-s / asked item, median / p90 / total | run "
        "CPU-s without / with --prove | wall s without / with |",
        "|---|---|---|---|---|---|---|---|---|---|",
        f"| {len(records)} | {len(right)} ({len(asked)}) | {labels['bounded-equivalent']} | "
        f"{labels['counterexample']} | {labels['unknown']} | {labels['unverified']} | "
        f"{labels['unsupported']} | {_q([r['prove'].get('cpu_s', 0.0) for r in asked])} | "
        f"{plain[1]:.0f} / {cpu:.0f} | {plain[2]:.0f} / {wall:.0f} |\n",
        "Levels without --prove: "
        + ", ".join(f"{k} {v}" for k, v in plain_levels.items())
        + "; with: "
        + ", ".join(f"{k} {v}" for k, v in levels.items())
        + ". Acc_TS items: "
        f"{len(ts)}, right {sum(1 for r in ts if r['suite']['match'])} with --prove, "
        f"{sum(1 for r in plain[0] if r.get('suite') and r['suite']['match'])} without.\n",
    ]
    for r in asked:
        if r["prove"]["label"] == "counterexample":
            w = r["prove"]["witness"]
            out.append(
                f"- counterexample `{r['id']}`: {w['size']} row(s), {w['reason']}: "
                f"{w['detail'][:120]}"
            )
    reasons = Counter(
        r["prove"].get("reason", "")[:60]
        for r in asked
        if r["prove"]["label"] in ("unsupported", "unknown", "unverified")
    )
    out.append("\nWhy not proved (reason: items):\n")
    out += [f"- {why or '(none)'}: {n}" for why, n in reasons.most_common(15)]
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model", default="sqlglot")
    p.add_argument("--dataset", default="starter")
    p.add_argument(
        "--pairs", default=DEFAULT_PAIRS, help="default: the pairs of SQLite, DuckDB and PostgreSQL"
    )
    p.add_argument("--limit", type=int, default=None)
    p.add_argument("--out", default="prove", help="results file name (docs/results/NAME.md)")
    args = p.parse_args(argv)
    load = load_average()
    with tempfile.TemporaryDirectory() as tmp:
        plain = _run(args, Path(tmp) / "plain", prove=False)
        proved = _run(args, Path(tmp) / "prove", prove=True)
    body = _body(args, plain, proved)
    print(body)
    write_results(
        args.out,
        "eval --prove: bounded-equivalent levels and solver counterexamples",
        body,
        started_load=load,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
