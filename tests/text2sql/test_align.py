"""``python -m parrot.text2sql align``: every curation stage on real engines (SQLite golds,
DuckDB targets), an LLM annotator on the scripted OpenAI-compatible server, the review queue and
fixes coming back, and ``--model reference`` scoring the aligned golds 100% strict."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pytest
from eval_runs import run_eval
from question_items import question_item

from parrot.api.results import read_results
from parrot.report.analysis import by_annotation_source
from parrot.text2sql.align import Attempt, Outcome, aligned_records, read_log
from parrot.text2sql.build import main as t2s_main
from parrot.translators.llm.scripted_server import Reply, ScriptedServer

DATA = Path(__file__).parent / "data"
REPO = Path(__file__).resolve().parents[2]
QUESTIONS = [json.loads(line) for line in (DATA / "align_questions.jsonl").read_text().splitlines()]


def answer(request: dict[str, Any]) -> Reply:
    """The scripted annotator: each question's ``llm`` answer, ``after_feedback`` once it has
    seen the engine's feedback."""
    users = [m["content"] for m in request["messages"] if m["role"] == "user"]
    asked = max(i for i, text in enumerate(users) if any(q["gold_sql"] in text for q in QUESTIONS))
    q = next(q for q in QUESTIONS if q["gold_sql"] in users[asked])
    sql = q.get("llm", "SELECT 1")
    if asked < len(users) - 1:  # the engine's feedback follows the question
        sql = q.get("after_feedback", sql)
    return Reply(json.dumps({"Answer": sql, "Reasoning": "scripted", "Confidence": 0.5}))


@pytest.fixture
def dataset(tmp_path: Path) -> Path:
    root = tmp_path / "data"
    (root / "fixtures").mkdir(parents=True)
    (root / "fixtures" / "shop.json").write_bytes(
        (REPO / "datasets/starter/fixtures/shop.json").read_bytes()
    )
    lines = []
    for q in QUESTIONS:
        for target in ("sqlite", "duckdb"):
            record = question_item(q["id"], q["gold_sql"], target, f"question {q['id']}")
            if target == "sqlite":
                record["reference_sql"] = [q["gold_sql"]]
            lines.append(json.dumps(record) + "\n")
    (root / "items.jsonl").write_text("".join(lines))
    return root


@pytest.mark.slow  # real engines, an LLM stage, a review round trip and an eval: ~1 min loaded
def test_every_stage_then_review_then_reference(dataset, tmp_path, monkeypatch):
    monkeypatch.setenv("PARROT_CACHE", str(tmp_path / "cache"))
    out = tmp_path / "aligned"
    with ScriptedServer(answer) as server:
        llm = ["--annotator", "openai/annotator", "--api-base", server.url]
        assert (
            t2s_main(["align", str(dataset), "-o", str(out), "--quiet", *llm, "--reflection", "1"])
            == 0
        )
        asked = len(server.requests)
        assert t2s_main(["align", str(dataset), "-o", str(out), "--quiet", *llm]) == 0
        assert len(server.requests) == asked  # resumed: nothing to do
        assert len(read_log(out / "align.jsonl")) == 5
    outcomes = read_log(out / "align.jsonl")
    assert {o.id: o.annotation_source for o in outcomes.values()} == {
        "q1-duckdb": "tool",
        "q2-duckdb": "rule",
        "q3-duckdb": "llm",
        "q4-duckdb": "reflection",
        "q5-duckdb": None,
    }
    review = list(csv.DictReader((out / "review.csv").open(encoding="utf-8")))
    assert [r["id"] for r in review] == ["q5-duckdb"]
    fixes = out / "fixed.csv"
    with fixes.open("w", encoding="utf-8", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(review[0]))
        writer.writeheader()
        writer.writerow({**review[0], "fixed_sql": QUESTIONS[4]["fix"]})  # joined to review.jsonl
    assert t2s_main(["align", str(dataset), "-o", str(out), "--quiet", "--fixes", str(fixes)]) == 0
    assert read_log(out / "align.jsonl")["q5-duckdb"].annotation_source == "human"
    assert not (out / "review.jsonl").exists()
    items = [json.loads(line) for line in (out / "items.jsonl").read_text().splitlines()]
    assert all(r["reference_sql"] for r in items) and len(items) == 10
    assert run_eval(tmp_path / "run", "--model", "reference", "--dataset", str(out)) == 0
    records = read_results(tmp_path / "run")
    assert all(r["verdicts"]["strict"]["match"] for r in records)
    assert by_annotation_source(records) == {
        ("human", "duckdb"): (1, 1),
        ("human", "sqlite"): (5, 5),
        ("llm", "duckdb"): (1, 1),
        ("reflection", "duckdb"): (1, 1),
        ("rule", "duckdb"): (1, 1),
        ("tool", "duckdb"): (1, 1),
    }


@pytest.mark.slow  # real engines, two align runs
def test_a_fix_that_still_disagrees_stays_in_the_queue(dataset, tmp_path, monkeypatch):
    monkeypatch.setenv("PARROT_CACHE", str(tmp_path / "cache"))
    out = tmp_path / "aligned"
    assert (
        t2s_main(
            [
                "align",
                str(dataset),
                "-o",
                str(out),
                "--quiet",
                "--targets",
                "duckdb",
                "--limit",
                "3",
                "--reflection",
                "0",
            ]
        )
        == 0
    )
    entries = [json.loads(line) for line in (out / "review.jsonl").read_text().splitlines()]
    assert [e["id"] for e in entries] == ["q3-duckdb"]
    assert entries[0]["candidates"][0]["stage"] == "tool"
    entries[0]["fixed_sql"] = "SELECT name FROM customers"  # wrong: every customer
    fixes = tmp_path / "fixes.jsonl"
    fixes.write_text(json.dumps(entries[0]) + "\n")
    assert t2s_main(["align", str(dataset), "-o", str(out), "--quiet", "--fixes", str(fixes)]) == 0
    assert read_log(out / "align.jsonl")["q3-duckdb"].gold_sql is None
    assert [json.loads(line)["id"] for line in (out / "review.jsonl").read_text().splitlines()] == [
        "q3-duckdb"
    ]


def test_the_log_keeps_the_last_outcome_of_an_id_and_ignores_a_torn_line(tmp_path):
    lines = [
        Outcome("a", "duckdb", None, None, None, ()),
        Outcome(
            "a",
            "duckdb",
            "SELECT 1",
            "human",
            "review",
            (Attempt("human", "review", "SELECT 1", True, "match"),),
        ),
    ]
    log = tmp_path / "align.jsonl"
    log.write_text("".join(json.dumps(o.to_json()) + "\n" for o in lines) + '{"id": "b", "ta')
    assert read_log(log) == {"a": lines[1]}
    records = aligned_records([{"id": "a", "tags": ["text2sql"]}, {"id": "c"}], read_log(log))
    assert records == [
        {
            "id": "a",
            "tags": ["text2sql", "gold:aligned"],
            "reference_sql": ["SELECT 1"],
            "annotation_source": "human",
            "annotators": ["review"],
        },
        {"id": "c"},
    ]
