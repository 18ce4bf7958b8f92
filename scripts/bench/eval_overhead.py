"""How much of an eval run is spent outside the engines?

Runs the sqlglot translator over a whole dataset through the real runner twice, each in a fresh
process and run directory: the default (Acc_SYN only where no engine ran the translation) and
``--syntax`` (Acc_SYN on every translation), and prints side by side: wall time, the time spent
inside engine adapters (start-up, fixture loads, executions and close, each timed around the
call), their ratio (target ≤ 1.3), the translator's own time, what is left for the harness
(comparison, results I/O, AST facts, start-up) and items/s. Engine time includes the round trip
to the engine worker processes; ``PARROT_ISOLATION=off`` measures the adapters in-process.

    python scripts/bench/eval_overhead.py [--dataset starter] [--model sqlglot] [--jobs 1]
"""

from __future__ import annotations

import argparse
import functools
import json
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from parrot.datasets import load_dataset
from parrot.engines import ENGINES, engine_class
from parrot.eval.runner import RunConfig, run, select_items
from parrot.translators import create_translator

ENGINE_SECONDS: dict[str, float] = defaultdict(float)
CALLS: dict[str, int] = defaultdict(int)


def _timed(name: str, method: Any) -> Any:
    @functools.wraps(method)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        try:
            return method(*args, **kwargs)
        finally:
            ENGINE_SECONDS[name] += time.perf_counter() - start
            CALLS[name] += 1

    return wrapper


def instrument() -> None:
    """Wrap every embedded engine adapter's methods with a wall-clock timer (this process), and
    the worker proxies' (their time includes the round trip to the worker process)."""
    from parrot.engines.worker import IsolatedEngine

    classes = [engine_class(name) for name in ENGINES]
    for cls in [*classes, IsolatedEngine]:
        if cls.url_schemes is not None:  # servers: not used by the embedded-engine datasets
            continue
        for method in ("__init__", "load", "execute", "close"):
            setattr(cls, method, _timed(f"{cls.__name__}.{method}", getattr(cls, method)))


def measure(dataset: Any, items: list[Any], model: str, syntax: bool) -> dict[str, float]:
    """One run in a fresh directory: wall, Σ engine and translator seconds."""
    ENGINE_SECONDS.clear()
    CALLS.clear()
    translator = create_translator(model)
    translator.translate = _timed("translator", translator.translate)  # type: ignore[method-assign]
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        run(dataset, items, translator, RunConfig(output_dir=Path(tmp) / "run", syntax=syntax))
        wall = time.perf_counter() - start
    translating = ENGINE_SECONDS.pop("translator", 0.0)
    return {"wall": wall, "engine": sum(ENGINE_SECONDS.values()), "translator": translating}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="starter")
    parser.add_argument("--model", default="sqlglot")
    parser.add_argument("--one", choices=("default", "--syntax"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:  # the child: one measured run (imports included), as JSON on stdout
        start = time.perf_counter()
        instrument()
        dataset = load_dataset(args.dataset)
        result = measure(dataset, select_items(dataset), args.model, args.one == "--syntax")
        result["wall"] = time.perf_counter() - start
        print(json.dumps(result))
        return
    runs = {}
    for mode in ("default", "--syntax"):
        child = subprocess.run([sys.executable, __file__, "--dataset", args.dataset, "--model",
                                args.model, f"--one={mode}"], check=True, capture_output=True,
                               text=True)
        runs[mode] = json.loads(child.stdout.splitlines()[-1])
    dataset = load_dataset(args.dataset)
    items = select_items(dataset)
    print(f"dataset {dataset.name}: {len(items)} items, translator {args.model}, "
          "one process per column\n")
    print(f"{'':<32}{'default':>10}{'--syntax':>10}")
    rows = [("wall time (s)", lambda r: r["wall"]), ("Σ engine time (s)", lambda r: r["engine"]),
            ("wall / engine (target ≤ 1.3)", lambda r: r["wall"] / r["engine"]),
            ("translator time (s)", lambda r: r["translator"]),
            ("harness (wall - both) (s)", lambda r: r["wall"] - r["engine"] - r["translator"]),
            ("items/s", lambda r: len(items) / r["wall"])]
    for label, value in rows:
        print(f"{label:<32}" + "".join(f"{value(r):>10.3f}" for r in runs.values()))


if __name__ == "__main__":
    main()
