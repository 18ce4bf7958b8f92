"""How much of an eval run is spent outside the engines — today's code beside a baseline ref.

The headline is the outside view: process wall ÷ the query executions the run recorded (Σ the
``elapsed`` of results.jsonl's source and translation executions, each gold counted once; with
suites, plus each item's suite time), the figure a user can check from the results alone. Beside
it, the bench's older definition: wall ÷ Σ time inside the engine adapters.

Runs the main job (a translator over a whole dataset through the real runner, judged on the
test suites when the dataset has them, as ``python -m parrot.eval`` does) in a fresh process per
run, alternating the current tree with a baseline git ref checked out in a temporary
``git worktree``, and prints one table: wall time (the whole process, interpreter start and
imports included), Σ engine time (inside the engine adapters' ``__init__``, ``load``,
``execute`` and ``close``, fixture and suite-database loads included, each timed around the
call), their ratio (target ≤ 1.3), the translator's own time, what is left for the harness and
items/s, and the CPU seconds of the run's process tree (the run and the engine workers it
reaped: independent of the load, unlike wall). Every run gets the same fresh
``$PARROT_CACHE``: the first current run starts with no kept grammar cache (a first run
on a new machine) and is shown apart from the later, warm ones.
Engine time includes the round trip to the engine worker processes (``PARROT_ISOLATION=off``
measures the adapters in-process).

    python scripts/bench/eval_overhead.py [--baseline REF] [--rounds 1] [--syntax] [--suites]
        [--dataset starter] [--model sqlglot] [--no-write]

Writes docs/results/eval_overhead.md (unless --no-write).
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
BASELINE = "6ab66d06a598507d433f6a1755563b331725ba53"  # main before the hot-path work (issue 10)
ENGINE_SECONDS: dict[str, float] = defaultdict(float)


def _timed(name: str, method: Any) -> Any:
    @functools.wraps(method)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        try:
            return method(*args, **kwargs)
        finally:
            ENGINE_SECONDS[name] += time.perf_counter() - start

    return wrapper


def recorded(results: Path, items: list[Any]) -> tuple[float, float]:
    """Σ recorded execution seconds in a results file — each distinct gold (source dialect, SQL,
    fixture) once, every translation — and Σ the items' suite seconds."""
    gold_key = {
        i.id: (i.source_dialect, i.source_sql, i.fixture and i.fixture.content_hash) for i in items
    }
    golds: dict[Any, float] = {}
    preds = suites = 0.0
    for line in results.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        if record.get("gold"):
            golds.setdefault(gold_key[record["id"]], record["gold"]["elapsed"])
        if record.get("pred"):
            preds += record["pred"]["elapsed"]
        suites += (record.get("suite") or {}).get("elapsed", 0.0)
    return sum(golds.values()) + preds, suites


def child(dataset_name: str, model: str, syntax: bool, with_suites: bool) -> dict[str, Any]:
    """One measured run in this process (parrot imported from ``$PYTHONPATH``)."""
    from parrot.datasets import load_dataset
    from parrot.engines import ENGINES, engine_class
    from parrot.eval.runner import RunConfig, run, select_items
    from parrot.translators import create_translator

    classes: list[Any] = []
    try:  # engine worker proxies: their time includes the round trip to the worker process
        from parrot.engines.worker import IsolatedEngine, isolation_enabled
    except ImportError:  # a baseline from before the engine workers (or its switch)
        isolated = False
    else:
        isolated = isolation_enabled()
        classes.append(IsolatedEngine)
    if not isolated:  # in-process adapters; else they run in the workers, and importing them
        classes += [engine_class(name) for name in ENGINES]  # here would cost what a run does not
    for cls in classes:  # every embedded engine adapter (servers are not used here)
        if cls.url_schemes is None:
            for method in ("__init__", "load", "execute", "close"):
                setattr(cls, method, _timed("engine", getattr(cls, method)))
    dataset = load_dataset(dataset_name)
    items = select_items(dataset)
    translator = create_translator(model)
    translator.translate = _timed("translator", translator.translate)  # type: ignore[method-assign]
    suites = dataset.path.parent if (dataset.path.parent / "suites").is_dir() else None
    with tempfile.TemporaryDirectory() as tmp:
        run(
            dataset,
            items,
            translator,
            RunConfig(
                output_dir=Path(tmp) / "run",
                syntax=syntax,
                suite_dir=suites if with_suites else None,
            ),
        )
        executions, suite_seconds = recorded(Path(tmp) / "run" / "results.jsonl", items)
    try:  # as `parrot eval` does before it returns: no collection of everything at teardown
        from parrot.eval.runner import freeze_for_exit
    except ImportError:  # a baseline from before it
        pass
    else:
        freeze_for_exit()
    return {
        "items": len(items),
        "engine": ENGINE_SECONDS["engine"],
        "translator": ENGINE_SECONDS["translator"],
        "recorded": executions,
        "suites": suite_seconds,
        "parrot": __import__("parrot").__file__,
    }


def measure(
    tree: Path, args: argparse.Namespace, syntax: bool, cache: Path, with_suites: bool = False
) -> dict[str, Any]:
    """One run of ``tree``'s code in a fresh process; wall timed from outside."""
    env = {**os.environ, "PYTHONPATH": str(tree), "PARROT_CACHE": str(cache)}
    command = [
        sys.executable,
        __file__,
        "--child",
        "--dataset",
        args.dataset,
        "--model",
        args.model,
        *(["--syntax"] if syntax else []),
        *(["--suites"] if with_suites else []),
    ]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, cwd=tree, env=env, check=False, capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)  # the run and the workers it reaped
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    if done.returncode != 0:
        raise SystemExit(
            f"a measured run of {tree} failed (exit {done.returncode}):\n{done.stderr[-3000:]}"
        )
    result: dict[str, Any] = json.loads(done.stdout.splitlines()[-1])
    if not result["parrot"].startswith(str(tree)):
        raise SystemExit(f"the run imported parrot from {result['parrot']}, not {tree}")
    return {**result, "wall": wall, "cpu": cpu}


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="starter", help="dataset (default: starter)")
    parser.add_argument("--model", default="sqlglot", help="translator (default: sqlglot)")
    parser.add_argument(
        "--baseline",
        default=BASELINE,
        help="git ref of today's code to compare with (default: the commit "
        "before the hot-path work)",
    )
    parser.add_argument(
        "--rounds",
        type=int,
        default=1,
        help="baseline/current pairs after the first current run (default: 1)",
    )
    parser.add_argument(
        "--syntax", action="store_true", help="also measure --syntax (Acc_SYN on every translation)"
    )
    parser.add_argument(
        "--suites",
        action="store_true",
        help="also measure with the dataset's test suites judged (Acc_TS)",
    )
    parser.add_argument(
        "--no-write",
        action="store_true",
        help="print only; leave docs/results/eval_overhead.md alone",
    )
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    return args


def measure_all(args: argparse.Namespace) -> dict[str, list[dict[str, Any]]]:
    """Every run, by row label: per mode a first (cold) current run, then baseline/current pairs."""
    modes = [
        (syntax, suites)
        for syntax in ([False, True] if args.syntax else [False])
        for suites in ([False, True] if args.suites else [False])
    ]
    rows: dict[str, list[dict[str, Any]]] = defaultdict(list)
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp) / "baseline"
        subprocess.run(
            ["git", "-C", str(ROOT), "worktree", "add", "--detach", str(base), args.baseline],
            check=True,
            capture_output=True,
        )
        try:
            for syntax, suites in modes:
                flag = (" --syntax" if syntax else "") + (", suites" if suites else "")
                cache = Path(tmp) / f"cache{int(syntax)}{int(suites)}"
                rows[f"current{flag}, first run (cold)"].append(
                    measure(ROOT, args, syntax, cache, suites)
                )
                for _ in range(args.rounds):  # alternate: baseline, current
                    rows[f"baseline {args.baseline[:10]}{flag}"].append(
                        measure(base, args, syntax, cache, suites)
                    )
                    rows[f"current{flag}, later runs"].append(
                        measure(ROOT, args, syntax, cache, suites)
                    )
        finally:
            subprocess.run(
                ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(base)],
                check=True,
                capture_output=True,
            )
    return rows


def table(args: argparse.Namespace, rows: dict[str, list[dict[str, Any]]]) -> str:
    """The Markdown table: the outside view first, then the adapters' view."""
    items = next(iter(rows.values()))[0]["items"]
    lines = [
        f"dataset {args.dataset}: {items} items, translator {args.model}, one process per "
        f"run (medians of {args.rounds} where there are several). Σ recorded = the "
        "results' execution `elapsed` (each gold once; with suites, plus suite time); "
        "Σ engine = time inside the engine adapters, fixture loads included.\n",
        "| run | wall s | CPU s | Σ recorded s | **wall/recorded** | Σ engine s | "
        "wall/engine | translator s | items/s |",
        "|" + "---|" * 9,
    ]
    for label, runs in rows.items():

        def median(key: str, runs: list[dict[str, Any]] = runs) -> float:
            return statistics.median(r.get(key, 0.0) for r in runs)

        wall, engine = median("wall"), median("engine")
        executions = median("recorded") + (median("suites") if "suites" in label else 0.0)
        outside = f"**{wall / executions:.2f}**" if executions else "n/a (baseline)"
        lines.append(
            "| "
            + " | ".join(
                (
                    label,
                    f"{wall:.1f}",
                    f"{median('cpu'):.1f}",
                    f"{executions:.1f}" if executions else "n/a",
                    outside,
                    f"{engine:.1f}",
                    f"{wall / engine:.2f}",
                    f"{median('translator'):.1f}",
                    f"{items / wall:.1f}",
                )
            )
            + " |"
        )
    return "\n".join(lines)


def main() -> None:
    args = arguments()
    if args.child:
        print(json.dumps(child(args.dataset, args.model, args.syntax, args.suites)))
        return
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from resultsfile import load_average, publish

    started = load_average()
    body = table(args, measure_all(args))
    publish("eval_overhead", "Eval overhead", body, started_load=started, write=not args.no_write)


if __name__ == "__main__":
    main()
