"""Honest denominators: an item whose source or target engine cannot run here is ``no_engine``,
excluded from the accuracies and counted beside them, never the translator's failure or a gold
error. Engines are made absent the way parrot detects absence (no Java on PATH or in
$JAVA_HOME; no running server with --no-start), not by faking results."""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

import pytest
from eval_runs import run_eval

from parrot.api.results import read_results
from parrot.eval.cli import main as eval_main
from parrot.eval.runner import engine_absence, grammar_only
from parrot.report.cli import main as report_main
from parrot.servers.cli import main as engines_main

# why Spark cannot run on a machine without Java: Java, or (a `.[dev]` install) pyspark itself
NO_SPARK = "no Java runtime" if importlib.util.find_spec("pyspark") else "pyspark is not installed"

# id, source dialect, target dialect, source SQL, reference translation
ITEMS = [
    ("runs", "sqlite", "duckdb", "SELECT 1 AS x", "SELECT 1 AS x"),
    ("no-target", "sqlite", "spark", "SELECT 2 AS x", "SELECT 2 AS x"),
    ("no-source", "spark", "sqlite", "SELECT 3 AS x", "SELECT 3 AS x"),
    ("grammar-only", "sqlite", "oracle", "SELECT 4 AS x", "SELECT 4 AS x FROM dual"),
]


@pytest.fixture
def no_java(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A machine without Java: an empty PATH and no JAVA_HOME (what Spark's detection reads)."""
    empty = tmp_path / "bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    monkeypatch.delenv("JAVA_HOME", raising=False)


def _dataset(tmp_path: Path, ids: set[str] | None = None) -> Path:
    path = tmp_path / "items.jsonl"
    path.write_text(
        "".join(
            json.dumps(
                {
                    "id": i,
                    "source_dialect": s,
                    "target_dialect": t,
                    "source_sql": sql,
                    "reference_sql": ref,
                    "translation_types": ["keyword"],
                }
            )
            + "\n"
            for i, s, t, sql, ref in ITEMS
            if ids is None or i in ids
        )
    )
    return path


def _eval(tmp_path: Path, *extra: str, ids: set[str] | None = None) -> int:
    return run_eval(
        tmp_path / "run",
        "--dataset",
        str(_dataset(tmp_path, ids)),
        "--model",
        "reference",
        *extra,
    )


def test_a_run_needing_a_missing_engine_refuses_naming_it(
    no_java: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _eval(tmp_path) == 2
    err = capsys.readouterr().err
    assert "2 of 4 items need an engine that cannot run here" in err
    assert f"spark: {NO_SPARK}" in err
    assert "sqlite→spark (1 item)" in err and "spark→sqlite (1 item)" in err
    assert "--allow-missing" in err and "oracle" not in err  # grammar-only: expected
    assert not (tmp_path / "run").exists()  # refused before anything was written


def test_allow_missing_scores_only_the_runnable_items(
    no_java: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _eval(tmp_path, "--allow-missing") == 0
    records = {r["id"]: r for r in read_results(tmp_path / "run")}
    assert set(records["no-target"]["no_engine"]) == {"spark"}
    assert records["no-target"]["verdicts"]["strict"]["reason"] == "no_engine"
    # without its source engine the translation still runs on its target: Acc_EX counts it
    assert records["no-source"]["gold"]["status"] == "no_engine"
    assert records["no-source"]["pred"]["status"] == "ok"
    assert records["no-source"]["verdicts"]["strict"]["reason"] == "no_engine"
    assert records["grammar-only"]["syntax"] == {"ok": True}
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    overall = summary["overall"]
    assert (overall["items"], overall["no_engine"], overall["gold_error"]) == (4, 3, 0)
    assert (overall["evaluated"], overall["acc_strict"]) == (1, 100.0)
    assert (overall["ex_items"], overall["acc_ex"]) == (2, 100.0)
    assert summary["by_pair"]["sqlite→spark"]["no_engine"] == 1
    assert summary["by_pair"]["sqlite→spark"]["acc_strict"] is None
    assert summary["execution_status"] == {"ok": 2}
    assert "warning: no engine here for spark" in capsys.readouterr().err
    page = (tmp_path / "run" / "report.html").read_text()  # Acc_EX over its own denominator
    assert re.search(r'data-key="acc_ex".*?<span class="den">2/2</span>', page, re.S)
    assert report_main([str(tmp_path / "run"), "--format", "csv"]) == 0
    csv = capsys.readouterr().out.splitlines()
    assert csv[0].startswith(
        "Overall,group,items,gold err,no engine,no ref,EX %,EX n,strict %,RES n"
    )
    assert csv[1].startswith("Overall,all,4,0,3,0,100.0,2,100.0,1")


def test_leaderboard_has_the_no_engine_column(
    no_java: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _eval(tmp_path, "--allow-missing") == 0
    capsys.readouterr()
    assert report_main([str(tmp_path / "run"), str(tmp_path / "run"), "--format", "json"]) == 0
    row = json.loads(capsys.readouterr().out)[0]["rows"][0]
    assert (row["items"], row["no engine"], row["strict %"], row["EX %"]) == (
        4,
        3,
        "100.0",
        "100.0",
    )


def test_grammar_only_targets_run_without_allow_missing(tmp_path: Path) -> None:
    assert _eval(tmp_path, ids={"runs", "grammar-only"}) == 0
    overall = json.loads((tmp_path / "run" / "summary.json").read_text())["overall"]
    assert (overall["no_engine"], overall["acc_strict"], overall["acc_syn"]) == (1, 100.0, 100.0)


@pytest.mark.parametrize(
    ("dialect", "env", "start", "absent"),
    [
        ("spark", {}, True, NO_SPARK),
        ("hive", {}, True, NO_SPARK),
        ("mysql", {}, False, "no server running, and --no-start"),
        ("duckdb", {}, True, None),
        ("oracle", {}, True, None),  # grammar-only: no engine expected, never refused
        ("mysql", {"PARROT_MYSQL_URL": "mysql://u@127.0.0.1:1/"}, False, None),  # a given server
    ],
)
def test_engine_absence(
    no_java: None,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    dialect: str,
    env: dict[str, str],
    start: bool,
    absent: str | None,
) -> None:
    monkeypatch.setenv("PARROT_CACHE", str(tmp_path / "cache"))  # no server of ours runs there
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    why = engine_absence(dialect, {}, start)
    assert why is None if absent is None else absent in str(why)


def test_grammar_only_dialects() -> None:
    assert grammar_only("oracle", {}) and grammar_only("bigquery", {})
    assert not grammar_only("oracle", {"oracle": "oracle://u@db:1521/x"})
    assert not grammar_only("spark", {}) and not grammar_only("mysql", {})


def test_engines_status_lists_absent_engines(
    no_java: None, capsys: pytest.CaptureFixture[str]
) -> None:
    assert engines_main(["status"]) == 0  # was UnknownEngineError: Spark is not available
    lines = {line.split()[0]: line for line in capsys.readouterr().out.splitlines()}
    for name in ("spark", "hive", "databricks"):
        assert f"absent: {NO_SPARK}" in lines[name]
    assert "in-process" in lines["sqlite"] and "in-process" in lines["duckdb"]
    assert "by URL" in lines["oracle"] and {"mysql", "postgres"} <= set(lines)


@pytest.mark.parametrize("spec", ["litellm", "file", "ensemble"])
def test_a_translator_spec_without_its_argument_is_one_line(
    spec: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert eval_main(["--model", spec, "--output-dir", str(tmp_path / "run")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"error: translator '{spec}' needs an argument: --model {spec}:")
    assert "Traceback" not in err


def test_a_given_server_that_does_not_answer_is_an_engine_error_not_a_crash(tmp_path: Path) -> None:
    """--engine mysql=URL on a closed port: the adapter's connect fails with a driver error
    (pymysql OperationalError), retried once; the item is engine_error, never no_engine."""
    pytest.importorskip("pymysql")
    path = tmp_path / "items.jsonl"
    path.write_text(
        json.dumps(
            {
                "id": "m",
                "source_dialect": "sqlite",
                "target_dialect": "mysql",
                "source_sql": "SELECT 1 AS x",
                "reference_sql": "SELECT 1 AS x",
            }
        )
        + "\n"
    )
    assert (
        run_eval(
            tmp_path / "run",
            "--dataset",
            str(path),
            "--model",
            "reference",
            "--engine",
            "mysql=mysql://root@127.0.0.1:1/",
        )
        == 0
    )
    record = read_results(tmp_path / "run")[0]
    assert record["pred"]["status"] == "engine_error" and "no_engine" not in record
    assert record["pred"]["error"].startswith("connect: OperationalError")
    assert len(record["engine_errors_retried"]) == 1
