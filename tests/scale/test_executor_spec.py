"""``--executor`` specs, and that nothing of Ray loads on the default path."""

from __future__ import annotations

import subprocess
import sys

import pytest

from parrot.curate.cli import main as curate
from parrot.eval.cli import main as evaluate
from parrot.scale import ExecutorSpec, parse_executor, ray_installed

SPECS = [
    ("local", ExecutorSpec("local")),
    ("ray", ExecutorSpec("ray", "auto")),
    ("ray://head.example", ExecutorSpec("ray", "ray://head.example:10001")),
    ("ray://10.0.0.5:20001", ExecutorSpec("ray", "ray://10.0.0.5:20001")),
    ("ray:10.0.0.5:6379", ExecutorSpec("ray", "10.0.0.5:6379")),
]
BAD = ["spark", "ray://", "ray://host:port", "ray:host", ""]


@pytest.mark.parametrize(("text", "spec"), SPECS)
def test_specs(text: str, spec: ExecutorSpec) -> None:
    assert parse_executor(text) == spec


@pytest.mark.parametrize("text", BAD)
def test_bad_specs_are_refused(text: str) -> None:
    with pytest.raises(ValueError, match="--executor"):
        parse_executor(text)


@pytest.mark.skipif(not ray_installed(), reason="ray not installed: pip install -e '.[ray]'")
@pytest.mark.parametrize(("env", "kind"), [("", "local"), ("127.0.0.1:6379", "ray")])
def test_auto_follows_ray_address(monkeypatch: pytest.MonkeyPatch, env: str, kind: str) -> None:
    monkeypatch.setenv("RAY_ADDRESS", env)
    assert parse_executor("auto").kind == kind


def test_default_path_imports_no_ray() -> None:
    code = (
        "import sys, parrot.eval.cli, parrot.curate.cli, parrot.scale; "
        "print(sorted(m for m in sys.modules if m == 'ray' or m.startswith('ray.')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]"


def test_eval_refuses_a_bad_executor(capsys: pytest.CaptureFixture[str]) -> None:
    assert evaluate(["--model", "identity", "--executor", "spark", "--quiet"]) == 2
    assert "bad --executor 'spark'" in capsys.readouterr().err


def test_curate_refuses_a_bad_executor(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        curate(["--executor", "spark"])
    assert exit_.value.code == 2
    assert "bad --executor 'spark'" in capsys.readouterr().err
