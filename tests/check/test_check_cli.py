"""``python -m parrot.check``: verdict lines, summary, exit codes, JSON."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from processes import run_python

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
    proc = run_python(
        "-m", "parrot.check", "--dialect", "sqlite", input="SELECT * FROM t WHERE", timeout=120
    )
    assert proc.returncode == 1
    assert proc.stdout.startswith("<stdin>:1:22: error: statement 1: near '<EOF>'")


RUN = """
import sys
from parrot.check import dfacache
dfacache.SEED_DIR = dfacache.SEED_DIR / "absent"  # as if parrot shipped no seed
if sys.argv[1] == "check":
    from parrot.check.cli import main
    sys.exit(main(sys.argv[2:]))
from parrot.check.parsers import checker
print(dfacache.state_count(checker(sys.argv[2])._parser_cls))  # states loaded at start
"""


def test_a_second_check_process_starts_from_the_dfa_the_first_kept(tmp_path: Path) -> None:
    f = tmp_path / "q.sql"
    f.write_text("SELECT a, COUNT(*) FROM t WHERE b > 1 GROUP BY a; SELECT FROM WHERE;")
    env = {**os.environ, "PARROT_CACHE": str(tmp_path / "cache")}

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return run_python("-c", RUN, *args, env=env, timeout=300)

    assert run("loaded", "sqlite").stdout.strip() == "0"  # nothing kept yet
    checked = run("check", "-d", "sqlite", str(f))
    assert checked.returncode == 1 and "1/2 statements parse as sqlite" in checked.stdout
    assert list((tmp_path / "cache" / "dfa").glob("SqliteParser-*.marshal"))
    assert int(run("loaded", "sqlite").stdout) > 0
