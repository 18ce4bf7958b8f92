"""How much of an eval run is spent outside the engines?

Runs the sqlglot translator over a whole dataset through the real runner (fresh run directory,
one process) and prints, side by side from that one run: wall time, the time spent inside engine
adapters (start-up, fixture loads, executions and close, each timed around the call), their ratio
(target ≤ 1.3), the translator's own time, what is left for the harness (comparison, results
I/O, AST facts, start-up) and items/s.

    python scripts/bench/eval_overhead.py [--dataset starter] [--model sqlglot] [--jobs 1]
"""

from __future__ import annotations

import argparse
import functools
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
    """Wrap every embedded engine adapter's methods with a wall-clock timer (this process)."""
    for name in ENGINES:
        cls = engine_class(name)
        if cls.url_schemes is not None:  # servers: not used by the embedded-engine datasets
            continue
        for method in ("__init__", "load", "execute", "close"):
            setattr(cls, method, _timed(f"{name}.{method}", getattr(cls, method)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="starter")
    parser.add_argument("--model", default="sqlglot")
    args = parser.parse_args()
    instrument()
    dataset = load_dataset(args.dataset)
    items = select_items(dataset)
    translator = create_translator(args.model)
    translator.translate = _timed("translator", translator.translate)  # type: ignore[method-assign]
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        run(dataset, items, translator, RunConfig(output_dir=Path(tmp) / "run"))
        wall = time.perf_counter() - start
    translating = ENGINE_SECONDS.pop("translator")
    CALLS.pop("translator")
    engine = sum(ENGINE_SECONDS.values())
    print(f"dataset {dataset.name}: {len(items)} items, translator {args.model}, 1 process\n")
    print(f"{'engine call':<24}{'calls':>8}{'seconds':>10}")
    for key in sorted(ENGINE_SECONDS):
        print(f"{key:<24}{CALLS[key]:>8}{ENGINE_SECONDS[key]:>10.3f}")
    print()
    print(f"{'wall time (s)':<32}{wall:>10.3f}")
    print(f"{'Σ engine time (s)':<32}{engine:>10.3f}")
    print(f"{'wall / engine (target ≤ 1.3)':<32}{wall / engine:>10.3f}")
    print(f"{'translator time (s)':<32}{translating:>10.3f}")
    print(f"{'harness (wall - both) (s)':<32}{wall - engine - translating:>10.3f}")
    print(f"{'items/s':<32}{len(items) / wall:>10.1f}")


if __name__ == "__main__":
    main()
