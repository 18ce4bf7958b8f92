"""Reflection on the target engine's errors, and ensembles, on real engines."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pytest
from eval_runs import run_eval, source_of
from llm_items import make_item

from parrot.api.results import read_results
from parrot.datasets import Item
from parrot.translators import create_translator
from parrot.translators.llm.options import LLMOptions
from parrot.translators.llm.scripted_server import Reply, ScriptedServer


def answer(sql: str) -> Reply:
    return Reply(json.dumps({"Answer": sql, "Reasoning": "r", "Confidence": 0.5}))


def feedback_turn(request: dict[str, Any]) -> str | None:
    users = [m["content"] for m in request["messages"] if m["role"] == "user"]
    return users[-1] if "previous answer" in users[-1] else None


def first_try(sql: str) -> Callable[[dict[str, Any]], Reply]:
    """Answer ``sql`` first, the source query (correct here) after any feedback."""

    def respond(request: dict[str, Any]) -> Reply:
        return answer(source_of(request) if feedback_turn(request) else sql)

    return respond


def run(server: ScriptedServer, out: Path, *args: str) -> int:
    served = ["--api-base", server.url, "--no-cache"]
    return run_eval(out, "--pairs", "sqlite:duckdb", "--limit", "2", *served, *args)


def test_the_model_sees_the_engine_error_and_fixes_its_answer(tmp_path: Path) -> None:
    with ScriptedServer(first_try("SELEC broken")) as server:
        assert run(server, tmp_path / "run", "--model", "openai/m", "--reflection", "2") == 0
        follow_ups = [feedback_turn(r) for r in server.requests if feedback_turn(r)]
    assert len(follow_ups) == 2 and all("DuckDB rejected" in f for f in follow_ups)
    assert all("syntax_error" in f and "SELEC" in f for f in follow_ups)
    for record in read_results(tmp_path / "run"):
        t = record["translation"]
        assert (t["rounds"], t["calls"], t["annotation_source"]) == (1, 2, "reflection")
        assert record["pred"]["status"] == "ok"
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert manifest["translator"]["reflection"] == 2
    assert manifest["translator"]["feedback"] == "errors"


def test_errors_mode_never_reveals_the_expected_result(tmp_path: Path) -> None:
    with ScriptedServer(first_try("SELECT 1 AS wrong")) as server:
        assert run(server, tmp_path / "eval", "--model", "openai/m", "--reflection", "2") == 0
        assert server.count == 1 + 2  # the probe; it ran fine: nothing to reflect on
        assert (
            run(
                server,
                tmp_path / "curation",
                "--model",
                "openai/m",
                "--reflection",
                "2",
                "--feedback",
                "results",
            )
            == 0
        )
        follow_ups = [feedback_turn(r) for r in server.requests if feedback_turn(r)]
    assert all(r["translation"]["rounds"] == 0 for r in read_results(tmp_path / "eval"))
    assert len(follow_ups) == 2 and all("differs" in f for f in follow_ups)
    assert all(
        r["translation"]["rounds"] == 1 and r["verdicts"]["strict"]["match"]
        for r in read_results(tmp_path / "curation")
    )
    manifest = json.loads((tmp_path / "curation" / "manifest.json").read_text())
    assert "curation" in manifest["translator"]["feedback"]


@dataclass
class Rejects:
    """A feedback that rejects every candidate, counting the checks."""

    mode: str = "errors"
    checked: list[str] = field(default_factory=list)

    def check(self, item: Item, sql: str) -> str | None:
        self.checked.append(sql)
        return "Parser Error: always wrong"


def test_reflection_stops_after_k_rounds_and_counts_them(
    server: ScriptedServer, options: LLMOptions
) -> None:
    t = create_translator("openai/m", llm=replace(options, reflection=3))
    feedback = Rejects()
    assert t.feedback_mode == "errors"
    t.attach_feedback(feedback)
    result = t.translate(make_item("a"))
    t.close()
    assert (result.rounds, result.calls, server.count, len(feedback.checked)) == (3, 4, 4, 3)
    assert result.tokens_in == sum(
        sum(len(m["content"]) for m in r["messages"]) // 4 for r in server.requests
    )


def test_an_unparseable_reply_gets_a_format_reminder(
    server: ScriptedServer, options: LLMOptions
) -> None:
    server.enqueue(Reply("no idea"))
    t = create_translator("openai/m", llm=replace(options, reflection=1))
    t.attach_feedback(Rejects())
    result = t.translate(make_item("a", "SELECT 9 AS a"))
    t.close()
    assert result.ok and result.sql == "SELECT 9 AS a" and result.rounds == 1
    assert "did not contain the JSON object" in server.requests[-1]["messages"][-1]["content"]


def test_the_ensemble_falls_back_and_records_its_member(
    server: ScriptedServer, options: LLMOptions
) -> None:
    ensemble = create_translator("ensemble:sqlglot,openai/m", llm=options)
    easy = make_item("easy", "SELECT IFNULL(a, 0) FROM t", "sqlite", "clickhouse")
    hard = make_item("hard", "SELECT a FROM t FOR UPDATE", "postgres", "sqlite")
    results = {i.id: t for i, t in ensemble.translate_all([easy, hard])}
    assert (results["easy"].member, results["easy"].annotation_source) == ("sqlglot", "tool")
    assert (results["hard"].member, results["hard"].annotation_source) == ("openai/m", "llm")
    assert results["hard"].sql == "SELECT a FROM t FOR UPDATE" and server.count == 1
    feedback = Rejects()
    ensemble.attach_feedback(feedback)  # the target engine rejects sqlglot's answer
    again = ensemble.translate(easy)
    ensemble.close()
    assert again.member == "openai/m" and len(feedback.checked) == 1 and server.count == 2
    assert [m["name"] for m in ensemble.params()["members"]] == ["sqlglot", "litellm"]


def test_an_ensemble_run_end_to_end(server: ScriptedServer, tmp_path: Path) -> None:
    assert run(server, tmp_path / "run", "--model", "ensemble:identity,openai/m") == 0
    members = {r["translation"]["member"] for r in read_results(tmp_path / "run")}
    assert members <= {"identity", "openai/m"} and "identity" in members


def test_an_ensemble_needs_two_members() -> None:
    with pytest.raises(ValueError, match="two or more"):
        create_translator("ensemble:sqlglot")
