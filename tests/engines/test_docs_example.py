"""docs/adding-an-engine.md's worked example is one package plus one registration, and works."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from engine_fixtures import SHOP

import parrot.engines
from parrot.engines import ENGINE_REGISTRY, ExecStatus, engine_class

GUIDE = Path(__file__).parents[2] / "docs" / "adding-an-engine.md"


def test_the_worked_example_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    text = GUIDE.read_text(encoding="utf-8")
    package, registration = re.findall(r"```python\n(.*?)```", text, re.DOTALL)[:2]
    path = re.match(r"# parrot/engines/(\w+)/__init__\.py\n", package)
    assert path is not None, "the example names its package first"
    name, target = re.findall(r'"(\w+)": "([\w.:]+)"', registration)[0]
    assert (name, target.partition(":")[0]) == (path.group(1), f"parrot.engines.{name}")
    (tmp_path / name).mkdir()
    (tmp_path / name / "__init__.py").write_text(package, encoding="utf-8")
    monkeypatch.setattr(parrot.engines, "__path__", [*parrot.engines.__path__, str(tmp_path)])
    monkeypatch.setattr(ENGINE_REGISTRY, "_loaded", ENGINE_REGISTRY.loaded())
    monkeypatch.setitem(ENGINE_REGISTRY.builtin, name, target)  # the one registration
    with engine_class(name)() as engine:
        assert engine.load(SHOP).verified
        ex = engine.execute("SELECT count(*) FROM customers; SELECT 'x'", SHOP)
        assert ex.status is ExecStatus.OK and ex.result is not None, ex
        assert ex.result.rows == (("x",),)
        assert engine.execute("SELEC 1", SHOP).status is ExecStatus.SYNTAX_ERROR
        assert engine.execute("-- nothing", SHOP).status is ExecStatus.SYNTAX_ERROR
        engine.execute("DELETE FROM customers", SHOP)
        assert engine.checksums(SHOP) == dict(SHOP.checksums)  # rolled back
    sys.modules.pop(f"parrot.engines.{name}", None)
