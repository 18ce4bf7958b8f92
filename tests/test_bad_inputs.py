"""Bad input gets a one-line error, exit code 2, and no run directory."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from eval_runs import run_eval

ITEM = "starter-revenue-per-customer-2024-sqlite-duckdb"


@pytest.mark.parametrize("value", ["nan", "inf", "1e309", "-inf", "0", "-1", "1e6", "ten"])
def test_a_timeout_that_is_not_a_budget_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], value: str
) -> None:
    out = tmp_path / "run"
    with pytest.raises(SystemExit) as exited:
        run_eval(out, "--model", "identity", "--limit", "1", f"--timeout={value}")
    assert exited.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert "--timeout" in err[-1] and "Traceback" not in "\n".join(err)
    assert not out.exists()


@pytest.mark.parametrize(
    ("sql", "kind"),
    [(["SELECT 1"], "array"), (42, "number"), ({"sql": "SELECT 1"}, "object"), (True, "boolean")],
)
def test_translated_sql_that_is_not_a_string_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], sql: object, kind: str
) -> None:
    preds = tmp_path / "preds.jsonl"
    preds.write_text(json.dumps({"id": ITEM, "translated_sql": sql}) + "\n")
    out = tmp_path / "run"
    code = run_eval(out, "--model", f"file:{preds}", "--limit", "1")
    assert code == 2
    err = " ".join(capsys.readouterr().err.split())
    assert f"{preds}:1: the translated SQL is a JSON {kind}, not a string" in err
    assert not out.exists()
