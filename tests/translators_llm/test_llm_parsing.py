"""Answers as real models write them."""

from __future__ import annotations

import pytest

from parrot.translators.llm.parsing import Unparseable, confidence, parse_answer


@pytest.mark.parametrize(
    ("text", "sql", "form"),
    [
        ('{"Answer": "SELECT 1", "Reasoning": "r", "Confidence": 0.8}', "SELECT 1", "json"),
        (
            'Sure!\n```json\n{"Answer": "SELECT a\nFROM t", "Reasoning": "r", "Confidence": '
            '"90"}\n```'
            "\nHope this helps.",
            "SELECT a\nFROM t",
            "json",
        ),
        (
            '{"Answer": "SELECT "a" FROM t WHERE b = \'x\'", "Reasoning": "quoted "a"", '
            '"Confidence": 0.7}',
            "SELECT \"a\" FROM t WHERE b = 'x'",
            "repaired-json",
        ),
        ('{"Answer": "SELECT "a" FROM t"}', 'SELECT "a" FROM t', "repaired-json"),
        (
            "Here is the query:\n```sql\nSELECT 1;\nSELECT 2;\n```\nThis works.",
            "SELECT 1;\nSELECT 2;",
            "sql-block",
        ),
        (
            "SELECT a FROM t\nWHERE b > 1\n\nThis query selects a.",
            "SELECT a FROM t\nWHERE b > 1",
            "bare-sql",
        ),
        (
            '{"Answer": ["CREATE TEMP TABLE x AS SELECT 1 AS a;", "SELECT a FROM x"]}',
            "CREATE TEMP TABLE x AS SELECT 1 AS a;\nSELECT a FROM x",
            "json",
        ),
        (
            '{"Answer": "```sql\\nSELECT 3\\n```", "Reasoning": "x", "Confidence": 0.5}',
            "SELECT 3",
            "json",
        ),
        ('{"sql": "SELECT 4"}', "SELECT 4", "json"),
    ],
)
def test_answers_real_models_send(text: str, sql: str, form: str) -> None:
    answer = parse_answer(text)
    assert (answer.sql, answer.form) == (sql, form)


def test_reasoning_and_confidence_are_kept_and_validated() -> None:
    answer = parse_answer('{"Answer": "SELECT 1", "Reasoning": "why", "Confidence": "85%"}')
    assert answer.reasoning == "why" and answer.confidence == pytest.approx(0.85)
    assert confidence(1.5) == pytest.approx(0.015) and confidence(0.3) == 0.3
    assert confidence(-1) is None and confidence("high") is None and confidence(True) is None
    assert confidence(400) is None


@pytest.mark.parametrize("text", ["I cannot help with that.", "", '{"Reasoning": "no answer"}'])
def test_no_sql_is_unparseable(text: str) -> None:
    with pytest.raises(Unparseable):
        parse_answer(text)


# Replies of the kind SmolLM2-135M gives when it explains instead of translating (issue 10 item 9).
PROSE_REPLIES = [
    '{"Answer": "The query selects the names of all singers who are older than 30.", '
    '"Reasoning": "The query is already valid.", "Confidence": 0.9}',
    '{"Answer": "Select the name and the country of each singer, ordered by age.", '
    '"Reasoning": "", "Confidence": "80"}',
    "With the given tables, we can find the number of concerts in each stadium.\n\n"
    "This will return the result you want.",
    "Show the stadium name and the number of concerts held there.\nThe result is a table.",
    '{"Answer": "This is the same query in the target dialect, "it works" as it is.", '
    '"Reasoning": "no change"}',
]


@pytest.mark.parametrize("text", PROSE_REPLIES)
def test_prose_is_unparseable_not_sql(text: str) -> None:
    with pytest.raises(Unparseable):
        parse_answer(text)


def test_keyword_led_sql_is_still_sql() -> None:
    assert parse_answer('{"Answer": "select a from t"}').sql == "select a from t"
    assert parse_answer("WITH x AS (SELECT 1) SELECT * FROM x").form == "bare-sql"


def test_empty_answer_is_not_mistaken_for_sql() -> None:
    assert parse_answer('{"Answer": "", "Reasoning": "none"}').sql == ""
