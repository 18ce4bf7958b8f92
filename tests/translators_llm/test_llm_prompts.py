"""Prompt templates, and the dialect facts and worked examples they carry, checked on engines."""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import pytest
from llm_items import make_item

from parrot.connect import create_engine
from parrot.datasets import load_dataset
from parrot.engines import Engine
from parrot.eval.judge import EMPTY_FIXTURE
from parrot.translators.llm.prompts import (
    PromptError,
    available_templates,
    build_messages,
    choose_examples,
    examples,
    feedback_message,
    hints,
    load_template,
)


@pytest.fixture(scope="module")
def engines() -> Iterator[dict[str, Engine]]:
    made: dict[str, Engine] = {}
    yield made
    for engine in made.values():
        engine.close()


def first_row(engines: dict[str, Engine], dialect: str, sql: str) -> tuple[Any, ...]:
    if dialect not in engines:
        engines[dialect] = create_engine(dialect)
    engine = engines[dialect]
    engine.load(EMPTY_FIXTURE)
    execution = engine.execute(sql, EMPTY_FIXTURE)
    assert execution.ok, f"{dialect}: {sql}: {execution.error}"
    assert execution.result is not None and len(execution.result.rows) == 1
    return tuple(execution.result.rows[0])


def same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isinf(a):
        return a == b
    return bool(a == b)


@pytest.mark.parametrize("dialect", sorted(hints()))
def test_every_dialect_hint_holds_on_its_engine(engines: dict[str, Engine], dialect: str) -> None:
    for hint in hints()[dialect]:
        row = first_row(engines, dialect, hint.check)
        assert len(row) == len(hint.expect) and all(map(same, row, hint.expect)), (hint, row)


@pytest.mark.parametrize(
    "example", examples(), ids=lambda e: f"{e.source_dialect}-{e.target_dialect}"
)
def test_every_worked_example_gives_the_source_result(
    engines: dict[str, Engine], example: Any
) -> None:
    assert first_row(engines, example.source_dialect, example.source) == first_row(
        engines, example.target_dialect, example.answer
    )


def test_messages_carry_the_task_hints_examples_schema_and_source() -> None:
    item = load_dataset("starter").items[0]
    template = load_template("parrot-v1")
    messages = build_messages(item, template, shots=2)
    assert [m["role"] for m in messages] == [
        "system",
        "user",
        "assistant",
        "user",
        "assistant",
        "user",
    ]
    system, last = messages[0]["content"], messages[-1]["content"]
    assert "SQLite" in system and '"Answer"' in system and '"Confidence"' in system
    assert item.source_sql.strip() in last and "CREATE TABLE customers" in last
    assert hints()[item.target_dialect][0].fact in last
    bare = build_messages(item, template, use_hints=False, use_schema=False)
    assert len(bare) == 2 and "CREATE TABLE" not in bare[-1]["content"]
    assert "Facts about" not in bare[-1]["content"]


def test_examples_of_the_items_pair_come_first() -> None:
    chosen = choose_examples(make_item("a", src="duckdb", tgt="clickhouse"), 2)
    assert (chosen[0].source_dialect, chosen[0].target_dialect) == ("duckdb", "clickhouse")
    assert chosen[1].target_dialect == "clickhouse"


def test_templates_are_versioned_and_unknown_ones_refused() -> None:
    template = load_template("parrot-v1")
    assert (template.id, len(template.sha256)) == ("parrot-v1", 16)
    assert "parrot-v1" in available_templates()
    with pytest.raises(PromptError, match="parrot-v1"):
        load_template("parrot-v9")
    follow_up = feedback_message(template, make_item("a"), "errors", "no such function: foo")
    assert "no such function: foo" in follow_up and "DuckDB" in follow_up
