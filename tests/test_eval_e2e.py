"""End to end through ``python -m parrot.eval`` on the starter dataset and real engines."""

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from parrot.api.results import read_results
from parrot.eval.cli import main as eval_main
from parrot.report.cli import main as report_main


def run_eval(tmp_path: Path, name: str, *args: str) -> tuple[int, Path]:
    out = tmp_path / name
    code = eval_main(["--quiet", "--output-dir", str(out), *args])
    return code, out


def summary(run_dir: Path) -> dict:
    return json.loads((run_dir / "summary.json").read_text())


SLICE = "72"  # the first 72 starter items cover all six pairs; whole runs are in the slow tier


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """One run per built-in translator on a slice of the starter set, shared by the tests below."""
    base = tmp_path_factory.mktemp("runs")
    dirs = {}
    for model in ("reference", "identity", "sqlglot"):
        code, out = run_eval(base, model, "--model", model, "--limit", SLICE)
        assert code == 0
        dirs[model] = out
    return dirs


def test_reference_scores_100_percent(runs):
    s = summary(runs["reference"])["overall"]
    assert s["gold_error"] == 0
    assert s["items"] == int(SLICE)
    assert s["acc_ex"] == 100.0
    assert s["acc_strict"] == 100.0


@pytest.mark.slow
def test_reference_scores_100_percent_on_the_whole_starter_set(tmp_path):
    code, out = run_eval(tmp_path, "reference", "--model", "reference")
    s = summary(out)["overall"]
    assert code == 0 and s["gold_error"] == 0 and s["items"] >= 240
    assert s["acc_ex"] == 100.0 and s["acc_strict"] == 100.0


def test_identity_is_the_floor_and_sqlglot_lands_between(runs):
    identity = summary(runs["identity"])["overall"]["acc_strict"]
    sqlglot = summary(runs["sqlglot"])
    assert identity < 60.0
    assert identity < sqlglot["overall"]["acc_strict"] < 100.0
    failures = [r for r in read_results(runs["sqlglot"]) if not r["verdicts"]["strict"]["match"]]
    assert failures
    assert all(r["verdicts"]["strict"]["reason"] not in ("match", "empty_match") for r in failures)
    assert set(sqlglot["reasons"]["strict"]) - {"match", "empty_match"}


def test_every_pair_and_breakdown_is_reported(runs):
    s = summary(runs["sqlglot"])
    assert len(s["by_pair"]) == 6
    assert sum(g["items"] for g in s["by_tokens_quartile"].values()) == s["overall"]["items"]
    assert sum(g["items"] for g in s["by_tokens_range"].values()) == s["overall"]["items"]
    assert {"function", "syntax"} <= set(s["by_type"])


def test_report_rerenders_and_builds_a_leaderboard(runs, capsys):
    assert report_main([str(runs["sqlglot"])]) == 0
    text = capsys.readouterr().out
    assert "By dialect pair" in text and "sqlite→duckdb" in text
    assert "Cross-dialect consistency" in text and "κ with base" in text  # parrot.report.analysis
    assert report_main([str(runs["sqlglot"]), "--no-analysis"]) == 0
    assert "Cross-dialect consistency" not in capsys.readouterr().out
    assert report_main([str(d) for d in runs.values()] + ["--format", "csv"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("Leaderboard — dataset sha256 ") and ",rank,model," in lines[0]
    assert lines[1].split(",")[2] == "reference"  # ranked first


@pytest.mark.slow  # a whole evaluation of its own (tens of seconds)
def test_parrot_submission_scored_by_id_shuffled_copy_identical(runs, tmp_path):
    records = read_results(runs["sqlglot"])
    from parrot.datasets import load_dataset

    items = load_dataset("starter").by_id()
    submission = [
        {
            "id": r["id"],
            "source_dialect": r["source_dialect"],
            "source_sql": items[r["id"]].source_sql,
            "target_dialect": r["target_dialect"],
            "translated_sql": r["translation"].get("sql", ""),
        }
        for r in records
    ]
    ordered = tmp_path / "ordered.json"
    ordered.write_text(json.dumps(submission))
    random.Random(3).shuffle(submission)
    shuffled = tmp_path / "shuffled.json"
    shuffled.write_text(json.dumps(submission))
    code_a, a = run_eval(tmp_path, "a", "--model", f"file:{ordered}")
    code_b, b = run_eval(tmp_path, "b", "--model", f"file:{shuffled}")
    assert code_a == code_b == 0
    assert summary(a)["overall"] == summary(b)["overall"]
    # the predictions file reproduces the run it came from, except items sqlglot did not
    # translate (scored as missing/empty rather than unsupported: same verdicts)
    assert summary(a)["overall"]["strict"] == summary(runs["sqlglot"])["overall"]["strict"]


@pytest.mark.slow  # a whole evaluation of its own (tens of seconds)
def test_sigkill_then_resume_gives_every_item_exactly_once(tmp_path):
    out = tmp_path / "killed"
    cmd = [
        sys.executable,
        "-m",
        "parrot.eval",
        "--model",
        "sqlglot",
        "--quiet",
        "--output-dir",
        str(out),
        "--limit",
        "90",
    ]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    results = out / "results.jsonl"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if results.exists() and len(results.read_bytes().splitlines()) >= 20:
            break
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    done_before = len(read_results(out))
    assert 20 <= done_before < 90
    resumed = subprocess.run([*cmd, "--resume"], capture_output=True, text=True, timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    ids = [r["id"] for r in read_results(out)]
    assert len(ids) == 90 == len(set(ids))
    assert summary(out)["overall"]["items"] == 90


@pytest.mark.slow  # a whole evaluation of its own (tens of seconds)
def test_jobs_give_the_same_numbers(tmp_path):
    code1, one = run_eval(tmp_path, "one", "--model", "sqlglot", "--limit", "40")
    code2, two = run_eval(tmp_path, "two", "--model", "sqlglot", "--limit", "40", "--jobs", "2")
    assert code1 == code2 == 0
    assert summary(one)["overall"] == summary(two)["overall"]
    assert sorted(r["id"] for r in read_results(one)) == sorted(r["id"] for r in read_results(two))


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--model", "sqlglot", "--pairs", "sqlite:postgress"], "unknown dialect 'postgress'"),
        (["--model", "sqlglot", "--pairs", "sqlite"], "expected SOURCE:TARGET"),
        (["--model", "no-such-model"], "unknown model/translator"),
        (["--model", "sqlglot", "--dataset", "no-such-dataset"], "no such dataset"),
        (["--model", "file:/nonexistent/preds.json"], "predictions file not found"),
    ],
)
def test_bad_input_exits_2_with_a_message(tmp_path, capsys, args, message):
    code, _ = run_eval(tmp_path, "x", *args)
    assert code == 2
    assert message in " ".join(capsys.readouterr().err.split())


@pytest.mark.parametrize(
    ("line", "message"),
    [
        (
            '{"id": "a", "source_dialect": "sqlite", "target_dialect": "duckdb", "source_sql": ""}',
            "$.source_sql: expected a non-blank string",
        ),
        (
            '{"id": "a", "source_dialect": "sqlite", "target_dialect": "mssqlx", "source_sql": '
            '"x"}',
            "unknown dialect 'mssqlx'",
        ),
        ('{"id": "a", "source_dialect": "sqlite", ', "invalid JSON"),
    ],
)
def test_malformed_dataset_exits_2_naming_file_and_line(tmp_path, capsys, line, message):
    data = tmp_path / "bad.jsonl"
    good = json.dumps(
        {
            "id": "g",
            "source_dialect": "sqlite",
            "target_dialect": "duckdb",
            "source_sql": "SELECT 1",
        }
    )
    data.write_text(good + "\n" + line + "\n")
    code, _ = run_eval(tmp_path, "x", "--model", "identity", "--dataset", str(data))
    assert code == 2
    err = " ".join(capsys.readouterr().err.split())
    assert f"{data}:2: " in err
    assert message in err


def test_existing_run_dir_needs_resume(tmp_path, capsys):
    code, out = run_eval(tmp_path, "r", "--model", "identity", "--limit", "2")
    assert code == 0
    code = eval_main(["--quiet", "--output-dir", str(out), "--model", "identity", "--limit", "2"])
    assert code == 2
    assert "--resume" in capsys.readouterr().err
    other = eval_main(
        ["--quiet", "--output-dir", str(out), "--model", "sqlglot", "--limit", "2", "--resume"]
    )
    assert other == 2
    assert "translator differs" in " ".join(capsys.readouterr().err.split())


def test_syntax_is_checked_only_where_no_engine_parsed_the_translation_unless_asked(tmp_path):
    from parrot.eval.syntax import ENGINE_PARSED

    args = ("--model", "identity", "--limit", "24")
    code, default = run_eval(tmp_path, "default", *args)
    code_all, every = run_eval(tmp_path, "every", *args, "--syntax")
    assert code == code_all == 0
    records = read_results(default)
    # ran, or failed after the engine parsed it (a runtime error): Acc_SYN already known
    ran = [r for r in records if r["pred"] and r["pred"]["status"] in ENGINE_PARSED]
    assert any(r["pred"]["status"] == "runtime_error" for r in ran)
    assert ran and all(not r["syntax_checked"] and "syntax" not in r for r in ran)
    rejected = [r for r in records if r not in ran]
    assert rejected and all(r["syntax_checked"] for r in rejected)
    assert summary(default)["overall"]["syn_checked"] == len(rejected)
    assert all(r["syntax_checked"] for r in read_results(every))
    assert summary(every)["overall"]["syn_checked"] == len(records)


def test_resume_follows_a_moved_dataset_but_refuses_changed_items(tmp_path, capsys):
    """A run resumed after its dataset moved (same items, another path) was refused: the
    manifest's dataset path was compared with the rest."""
    import shutil

    root = Path(__file__).resolve().parents[1] / "datasets" / "starter"
    first, moved = tmp_path / "a" / "starter", tmp_path / "b" / "starter"
    shutil.copytree(root, first, ignore=shutil.ignore_patterns("suites"))
    args = ("--model", "identity", "--limit", "2")
    code, _ = run_eval(tmp_path, "r", *args, "--dataset", str(first))
    assert code == 0
    first.rename(tmp_path / "a" / "gone")
    shutil.copytree(tmp_path / "a" / "gone", moved)
    code, _ = run_eval(tmp_path, "r", *args, "--dataset", str(moved), "--resume")
    assert code == 0, capsys.readouterr().err
    items = moved / "items.jsonl"
    items.write_text(items.read_text().replace("SELECT", "select", 1))
    code, _ = run_eval(tmp_path, "r", *args, "--dataset", str(moved), "--resume")
    assert code == 2
    assert "dataset differs" in " ".join(capsys.readouterr().err.split())
