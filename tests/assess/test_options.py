"""``parrot assess``: the LLM flags of ``parrot eval`` (``--prompt-schema``, once ``--schema``),
placeholders, and the input's comments in the translated tree."""

from __future__ import annotations

from pathlib import Path

import pytest
from assessing import assess, assess_pg_stats, database, results
from eval_runs import echo

from parrot.assess.cli import build_parser as assess_parser
from parrot.assess.run import kind


def _llm_flags(parser) -> set[str]:
    return {
        o
        for g in parser._action_groups
        if g.title == "LLM translators"
        for a in g._group_actions
        for o in a.option_strings
    }


def test_assess_takes_the_llm_flags_of_eval():
    from parrot.eval.cli import build_parser as eval_parser

    assert _llm_flags(assess_parser()) == _llm_flags(eval_parser())
    assert "--prompt-schema" in _llm_flags(assess_parser())


def test_the_old_schema_flag_of_eval_still_works_with_a_warning(capsys):
    from parrot.eval.cli import build_parser as eval_parser

    args = eval_parser().parse_args(["--model", "sqlglot", "--no-schema"])
    assert args.schema is False
    assert "--no-schema is deprecated: use --no-prompt-schema" in capsys.readouterr().err
    assert eval_parser().parse_args(["--model", "sqlglot"]).schema is True


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT * FROM t WHERE k = $1",
        "SELECT * FROM t WHERE k = ?",
        "SELECT * FROM t WHERE k = %s",
        "SELECT * FROM t WHERE k = :key",
    ],
)
def test_placeholders_of_each_style_are_parameters(sql):
    assert kind(sql) == "parameterised"


def test_a_postgres_cast_is_no_placeholder():
    # regression: ':\w+' took '::int' for a ':int' parameter
    assert kind("SELECT k::int FROM t WHERE name = ':x'") == "query"


def _workload(tmp_path: Path) -> Path:
    (tmp_path / "q.sql").write_text(
        "-- monthly report\n/* owner: finance */\nSELECT k, name FROM t WHERE k > 1;\n"
        "SELECT * FROM t WHERE k = :key;\n"
    )
    return database(tmp_path, "k INTEGER PRIMARY KEY, name TEXT", [(1, "a"), (2, "b")])


def test_comments_kept_and_placeholders_filled(tmp_path):
    work = _workload(tmp_path)
    code = assess(work, "q.sql", "sqlite", "--db", str(work / "app.sqlite"))
    assert code == 0
    lines = results(work / "out")
    assert [(x["verdict"], x["reason"]) for x in lines] == [("verified", "match")] * 2
    # the placeholder is compared with t.k: a value of t.k from the database
    assert lines[1]["source_sql"] == "SELECT * FROM t WHERE k = 1"
    assert lines[1]["parameterised_sql"] == "SELECT * FROM t WHERE k = :key"
    assert lines[1]["detail"].startswith(
        "placeholders filled with generated values (:key = 1 from t.k)"
    )
    tree = (work / "out" / "translated" / "q.sql").read_text()
    assert tree.startswith("-- monthly report\n/* owner: finance */\nSELECT")
    assert "-- parrot assess: the input has placeholders: SELECT * FROM t WHERE k = :key" in tree


def test_placeholders_without_a_column_domain_stay_not_assessed(tmp_path):
    work = _workload(tmp_path)
    code = assess_pg_stats(
        work,
        '"SELECT name FROM t WHERE k > $1 AND name <> $2",3\n'
        '"SELECT name FROM t ORDER BY k LIMIT $1",2\n',
    )
    assert code == 1
    first, second = results(work / "out")
    assert first["verdict"] == "verified" and first["kind"] == "query"
    assert first["detail"].startswith("placeholders filled with generated values ($1 = ")
    assert first["judged"] >= 2  # the empty tables and generated ones
    assert (second["verdict"], second["reason"]) == ("not_assessed", "parameters")
    assert "no column domain known for $1" in second["detail"]


def test_an_llm_model_with_eval_flags_and_a_ddl_schema(tmp_path, monkeypatch):
    from parrot.translators.llm.scripted_server import ScriptedServer

    work = _workload(tmp_path)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-parrot-test")
    with ScriptedServer(echo()) as server:
        llm = ["--model", "openai/gpt-4o-mini", "--api-base", server.url, "--no-prompt-schema"]
        llm += [
            "--model-args",
            "temperature=0.3,max_tokens=200",
            "--cache",
            str(work / "cache.sqlite"),
        ]
        code = assess(
            work, "q.sql", "sqlite", *llm, "--schema", str(work / "schema.sql"), "--no-distill"
        )
        bodies = list(server.requests)
    assert code == 0  # the placeholder too: filled with a generated value of t.k
    assert bodies and all(b["temperature"] == 0.3 and b["max_tokens"] == 200 for b in bodies)
    prompt = " ".join(m["content"] for b in bodies for m in b["messages"])
    assert "CREATE TABLE" not in prompt  # --no-prompt-schema
    lines = results(work / "out")
    assert lines[0]["verdict"] == "verified" and lines[0]["judged"] >= 2  # generated data
    assert lines[0]["translation"].startswith("SELECT k, name FROM t")


def test_a_repeated_statement_takes_the_outcome_judged_first(tmp_path):
    work = _workload(tmp_path)
    (work / "q.sql").write_text("SELECT name FROM t WHERE k > 1;\n" * 3)
    code = assess(work, "q.sql", "sqlite", "--db", str(work / "app.sqlite"))
    assert code == 0
    lines = results(work / "out")
    assert [x["verdict"] for x in lines] == ["verified"] * 3
    assert lines[0]["detail"] == ""
    assert [x["detail"] for x in lines[1:]] == ["the same statement as q.sql:1: its outcome"] * 2
