"""The eval's main process loads only what the run uses (issue 31): engines run in their workers,
so chdb and duckdb stay out of it, and grammars load only for translations no engine parsed."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from processes import run_python

HEAVY = ("chdb", "duckdb", "antlr4", "parrot.check.parsers")

# runs ``python -m parrot.eval ARGS`` in this interpreter, then prints the heavy modules it loaded
PROBE = """
import json, runpy, sys
sys.argv = ["parrot.eval", *sys.argv[1:]]
try:
    runpy.run_module("parrot.eval", run_name="__main__")
except SystemExit as exc:
    code = exc.code
print(json.dumps({"code": code, "loaded": [m for m in HEAVY if m in sys.modules]}))
""".replace("HEAVY", repr(HEAVY))


def probe(tmp_path: Path, *args: str) -> tuple[list[str], list[dict]]:
    """The heavy modules an eval run's main process loaded, and its results records."""
    out = tmp_path / "run"
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    probe = ["-c", PROBE, "--quiet", "--output-dir", str(out), "--limit", "5", *args]
    done = run_python(*probe, env=env, timeout=600)
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["code"] in (0, None), done.stderr[-2000:]
    records = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    return report["loaded"], records


@pytest.mark.parametrize("model", ["sqlglot", "reference"])
def test_the_main_process_never_imports_the_embedded_engines(tmp_path, model):
    loaded, records = probe(tmp_path, "--model", model)
    targets = {r["target_dialect"] for r in records} | {r["source_dialect"] for r in records}
    assert {"duckdb", "clickhouse"} <= targets  # both engines ran, in their workers
    assert "chdb" not in loaded and "duckdb" not in loaded, loaded
    if not any(r["syntax_checked"] for r in records):  # nothing needed Acc_SYN: no grammar
        assert "antlr4" not in loaded and "parrot.check.parsers" not in loaded, loaded


def test_no_grammar_after_the_engine_parsed_the_text(tmp_path):
    loaded, records = probe(tmp_path, "--model", "reference")
    assert all(r["pred"]["status"] == "ok" for r in records)
    assert not any(r["syntax_checked"] for r in records)
    assert "parrot.check.parsers" not in loaded and "antlr4" not in loaded, loaded


def test_a_runtime_error_is_not_grammar_checked(tmp_path):
    _, records = probe(tmp_path, "--model", "sqlglot")
    statuses = {r["pred"]["status"]: r["syntax_checked"] for r in records if r["pred"]}
    assert statuses.get("runtime_error") is False  # the engine parsed it: Acc_SYN known
    assert statuses.get("syntax_error") is True  # the engine's parser rejected it: checked
