"""The project's scripts (``scripts/*.py``, ``scripts/bench/*.py``) as modules, for the tests
that run what a script does: one way to load them."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = ROOT / "scripts"
BENCH = SCRIPTS / "bench"


def load_script(path: Path, name: str | None = None, register: bool = False) -> ModuleType:
    """The script at ``path`` executed as a fresh module named ``name`` (default: its file
    name). ``register`` puts it in ``sys.modules`` first, for a script whose dataclasses or
    pickles look their module up by name."""
    spec = importlib.util.spec_from_file_location(name or path.stem, path)
    assert spec is not None and spec.loader is not None, path
    module = importlib.util.module_from_spec(spec)
    if register:
        sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def load_bench(name: str) -> ModuleType:
    """``scripts/bench/<name>.py``, as the module ``bench_<name>``."""
    return load_script(BENCH / f"{name}.py", f"bench_{name}")
