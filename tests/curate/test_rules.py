"""Rewrite rules as data (``--annotator rules``): each rule proven on the engines by its test
pair, applied over sqlglot's output, its candidates labelled ``annotation_source: "rule"``."""

from __future__ import annotations

from pathlib import Path

import pytest

from parrot.curate.annotate import Annotate
from parrot.curate.rules import RulesTranslator, check_rule, load_rules, rewrite
from parrot.curate.stages import Record
from parrot.datasets import ANNOTATION_SOURCES, Item
from parrot.report.metrics import translator_specs
from parrot.translators import create_translator

RULES = load_rules()


def test_the_rules_load_and_name_concrete_pairs() -> None:
    assert len(RULES) >= 9
    assert all(r.source != "*" and r.target != "*" and r.why for r in RULES)
    assert "rule" in ANNOTATION_SOURCES


def test_every_rule_turns_sqlglots_output_into_its_test_target() -> None:
    assert [msg for rule in RULES for msg in check_rule(rule)] == []


@pytest.mark.slow  # engines and servers started (seconds)
@pytest.mark.server
def test_every_rule_is_proven_on_the_engines() -> None:
    """sqlglot's translation of the test source disagrees with it on the engines, the rule
    turns that translation into test_target, and test_target agrees (strict). The judge starts
    the servers it needs (without, PostgreSQL/MariaDB rules failed as if wrong) and this test
    stops those it started."""
    from processes import judge_starting_servers

    with judge_starting_servers(timeout=10.0) as judge:
        problems = [msg for rule in RULES for msg in check_rule(rule, judge)]
    absent = [p for p in problems if "not proven: no engine here" in p]
    assert [p for p in problems if p not in absent] == []
    if absent:
        pytest.skip("; ".join(absent))


def test_the_translator_rewrites_sqlglot_and_abstains_elsewhere() -> None:
    t = create_translator("rules")
    assert isinstance(t, RulesTranslator)
    hit = t.translate(
        Item(
            id="a",
            source_dialect="duckdb",
            target_dialect="clickhouse",
            source_sql="SELECT REGEXP_REPLACE(s, 'a', 'b') FROM t",
        )
    )
    assert hit.ok and hit.sql == "SELECT replaceRegexpOne(s, 'a', 'b') FROM t"
    assert hit.annotation_source == "rule"
    miss = t.translate(
        Item(id="b", source_dialect="sqlite", target_dialect="duckdb", source_sql="SELECT 1")
    )
    assert not miss.ok and miss.error == "no rule applies"  # sqlglot's own candidate suffices


def test_rules_apply_only_to_their_pair() -> None:
    sql = "SELECT * FROM foo WHERE NOT x GLOBAL IN (SELECT 1)"
    assert (
        rewrite(sql, "clickhouse", "duckdb", RULES)[0]
        == "SELECT * FROM foo WHERE NOT x IN (SELECT 1)"
    )
    assert rewrite(sql, "duckdb", "sqlite", RULES) == (sql, [])


def test_the_annotator_labels_its_candidates_rule() -> None:
    r = Record(id="x~clickhouse", dialect="duckdb", target="clickhouse", sql="SELECT SHA256('a')")
    [out] = Annotate(["sqlglot", "rules"]).map([r]).records
    assert [(c.annotator, c.annotation_source) for c in out.candidates] == [
        ("sqlglot", "tool"),
        ("rules", "rule"),
    ]


def test_an_eval_of_the_rules_on_items_they_annotated_is_circular() -> None:
    """``--model rules`` is recognised as the annotator ``rules`` that items record."""
    assert translator_specs(RulesTranslator().params()) == {"rules"}


def test_a_bad_rule_file_is_refused(tmp_path: Path) -> None:
    (tmp_path / "bad.toml").write_text('[[rule]]\nname = "x"\nsource = "sqlite"\n')
    with pytest.raises(ValueError, match="lacks"):
        load_rules(tmp_path)


@pytest.mark.slow  # engines verify the rewritten candidates
def test_yield_turns_queued_pairs_into_rule_items(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    from parrot.curate.cli import main

    entries = [
        {
            "id": f"q{i}~clickhouse",
            "source_dialect": "duckdb",
            "target_dialect": "clickhouse",
            "source_sql": sql,
            "origin": "test",
            "fixture": None,
            "rounds": [],
            "attach": 0,
            "candidates": [],
            "fixed_sql": "",
        }
        for i, sql in enumerate(
            ["SELECT REGEXP_REPLACE('aaa', 'a', 'b') AS r", "SELECT [1, 2][3] AS x"]
        )
    ]
    queue = tmp_path / "review.jsonl"
    queue.write_text("".join(json.dumps(e) + "\n" for e in entries))
    (tmp_path / "manifest.json").write_text(json.dumps({"variant": "simple"}))
    assert main(["rules", "yield", str(queue), "-o", str(tmp_path)]) == 0
    counts = json.loads(capsys.readouterr().out)
    assert (counts["queued"], counts["rewritten"], counts["verified"]) == (2, 1, 1)
    [item] = [json.loads(line) for line in (tmp_path / "items.jsonl").read_text().splitlines()]
    assert item["annotation_source"] == "rule" and item["annotators"] == ["rules"]
    assert [json.loads(line)["id"] for line in queue.read_text().splitlines()] == [
        "q1~clickhouse"
    ]  # the verified pair left the queue
