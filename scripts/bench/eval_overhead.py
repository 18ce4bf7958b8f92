"""How much of an eval run is spent outside the engines — today's code beside a baseline ref.

Runs the main job (a translator over a whole dataset through the real runner, judged on the
test suites when the dataset has them, as ``python -m parrot.eval`` does) in a fresh process per
run, alternating the current tree with a baseline git ref checked out in a temporary
``git worktree``, and prints one table: wall time (the whole process, interpreter start and
imports included), Σ engine time (inside the engine adapters' ``__init__``, ``load``,
``execute`` and ``close``, fixture and suite-database loads included, each timed around the
call), their ratio (target ≤ 1.3), the translator's own time, what is left for the harness and
items/s. Every run gets the same fresh ``$PARROT_CACHE``: the first current run starts with no
kept grammar cache (a first run on a new machine) and is shown apart from the later, warm ones.
Engine time includes the round trip to the engine worker processes (``PARROT_ISOLATION=off``
measures the adapters in-process).

    python scripts/bench/eval_overhead.py [--baseline REF] [--rounds 1] [--syntax]
        [--dataset starter] [--model sqlglot]
"""

from __future__ import annotations

import argparse
import functools
import json
import os
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


def child(dataset_name: str, model: str, syntax: bool) -> dict[str, Any]:
    """One measured run in this process (parrot imported from ``$PYTHONPATH``)."""
    from parrot.datasets import load_dataset
    from parrot.engines import ENGINES, engine_class
    from parrot.eval.runner import RunConfig, run, select_items
    from parrot.translators import create_translator

    classes = [engine_class(name) for name in ENGINES]
    try:  # engine worker proxies: their time includes the round trip to the worker process
        from parrot.engines.worker import IsolatedEngine

        classes.append(IsolatedEngine)
    except ImportError:  # a baseline from before the engine workers
        pass
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
        run(dataset, items, translator,
            RunConfig(output_dir=Path(tmp) / "run", syntax=syntax, suite_dir=suites))
    return {"items": len(items), "engine": ENGINE_SECONDS["engine"],
            "translator": ENGINE_SECONDS["translator"], "parrot": __import__("parrot").__file__}


def measure(tree: Path, args: argparse.Namespace, syntax: bool, cache: Path) -> dict[str, Any]:
    """One run of ``tree``'s code in a fresh process; wall timed from outside."""
    env = {**os.environ, "PYTHONPATH": str(tree), "PARROT_CACHE": str(cache)}
    command = [sys.executable, __file__, "--child", "--dataset", args.dataset, "--model",
               args.model, *(["--syntax"] if syntax else [])]
    start = time.perf_counter()
    done = subprocess.run(command, cwd=tree, env=env, check=True, capture_output=True, text=True)
    wall = time.perf_counter() - start
    result: dict[str, Any] = json.loads(done.stdout.splitlines()[-1])
    if not result["parrot"].startswith(str(tree)):
        raise SystemExit(f"the run imported parrot from {result['parrot']}, not {tree}")
    return {**result, "wall": wall}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="starter", help="dataset (default: starter)")
    parser.add_argument("--model", default="sqlglot", help="translator (default: sqlglot)")
    parser.add_argument("--baseline", default=BASELINE,
                        help="git ref of today's code to compare with (default: the commit "
                             "before the hot-path work)")
    parser.add_argument("--rounds", type=int, default=1,
                        help="baseline/current pairs after the first current run (default: 1)")
    parser.add_argument("--syntax", action="store_true",
                        help="also measure --syntax (Acc_SYN on every translation)")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.dataset, args.model, args.syntax)))
        return
    modes = [False, True] if args.syntax else [False]
    rows: dict[str, list[dict[str, Any]]] = defaultdict(list)
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp) / "baseline"
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(base),
                        args.baseline], check=True, capture_output=True)
        try:
            for syntax in modes:
                flag = " --syntax" if syntax else ""
                cache = Path(tmp) / f"cache{int(syntax)}"
                rows[f"current{flag}, first run (cold)"].append(
                    measure(ROOT, args, syntax, cache))
                for _ in range(args.rounds):  # alternate: baseline, current
                    rows[f"baseline {args.baseline[:10]}{flag}"].append(
                        measure(base, args, syntax, cache))
                    rows[f"current{flag}, later runs"].append(measure(ROOT, args, syntax, cache))
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(base)],
                           check=True, capture_output=True)
    items = next(iter(rows.values()))[0]["items"]
    print(f"dataset {args.dataset}: {items} items, translator {args.model}, one process per run "
          f"(medians of {args.rounds} where there are several); Σ engine = time inside the "
          "engine adapters, fixture loads included\n")
    header = ("run", "wall s", "Σ engine s", "wall/engine", "translator s", "harness s",
              "items/s")
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for label, runs in rows.items():
        wall = statistics.median(r["wall"] for r in runs)
        engine = statistics.median(r["engine"] for r in runs)
        translating = statistics.median(r["translator"] for r in runs)
        cells = (label, f"{wall:.1f}", f"{engine:.1f}", f"{wall / engine:.2f}",
                 f"{translating:.1f}", f"{wall - engine - translating:.1f}",
                 f"{items / wall:.1f}")
        print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
