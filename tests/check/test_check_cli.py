"""``python -m parrot.check``: verdict lines, summary, exit codes, JSON."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from parrot.check.cli import main


def test_reports_each_failing_statement(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "q.sql"
    f.write_text("SELECT TOP 5 a FROM t;\nSELECT a FROM t LIMIT 5;\n")
    assert main(["--dialect", "tsql", str(f)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(f"{f}:2:23: error: statement 2: near '5'")
    assert out[-1] == "1/2 statements parse as tsql; 1 failed"


def test_all_good_exits_zero_and_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "q.sql"
    f.write_text("SELECT a FROM t; SELECT b FROM u")
    assert main(["-d", "pg", "--json", str(f)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["statements"], data["failed"]) == (2, 0)
    assert [v["ok"] for v in data["files"][0]["verdicts"]] == [True, True]


def test_usage_errors_exit_two(tmp_path: Path) -> None:
    assert main(["-d", "nosuchdialect", str(tmp_path / "x.sql")]) == 2
    assert main(["-d", "sqlite", str(tmp_path / "missing.sql")]) == 2


def test_module_reads_stdin() -> None:
    proc = subprocess.run([sys.executable, "-m", "parrot.check", "--dialect", "sqlite"],
                          input="SELECT * FROM t WHERE", capture_output=True, text=True,
                          timeout=120, check=False)
    assert proc.returncode == 1
    assert proc.stdout.startswith("<stdin>:1:22: error: statement 1: near '<EOF>'")
