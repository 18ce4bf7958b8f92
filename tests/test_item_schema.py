"""Items are validated by the shipped item schema at load time (parrot.api.schemas): one message
per kind of schema error, naming the item, the JSON path and what the schema expected there."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from parrot.api import schemas
from parrot.datasets import DatasetError, ItemSchemaError, item_from_record, load_dataset

GOOD = {
    "id": "a1",
    "source_dialect": "sqlite",
    "target_dialect": "duckdb",
    "source_sql": "SELECT 1",
}


@pytest.mark.parametrize(
    ("change", "message"),
    [
        # required: every missing field in one message
        (
            {"target_dialect": None, "source_sql": None},
            "item 'a1': $: missing required fields 'target_dialect', 'source_sql'",
        ),
        # type, and a oneOf none of whose branches takes the value's type
        ({"tokens": "3"}, "item 'a1': $.tokens: expected an integer or null, got \"3\""),
        (
            {"reference_sql": 3},
            "item 'a1': $.reference_sql: expected a string, a list or null, got 3",
        ),
        # pattern (text with more than white space), inside a oneOf branch and a list
        ({"source_sql": "  "}, "item 'a1': $.source_sql: expected a non-blank string, got \"  \""),
        (
            {"reference_sql": ["SELECT 1", ""]},
            "item 'a1': $.reference_sql[1]: expected a non-blank string, got \"\"",
        ),
        # enum, with and without null among the choices
        (
            {"translation_types": ["keyword", "magic"]},
            "item 'a1': $.translation_types[1]: expected one of syntax, keyword, data_type, "
            "function, "
            'procedure, udf, other, got "magic"',
        ),
        (
            {"annotation_source": "robot"},
            "item 'a1': $.annotation_source: expected one of tool, llm, reflection, rule, human, "
            'maintainer (or null), got "robot"',
        ),
        # minimum
        ({"tolerance": -0.5}, "item 'a1': $.tolerance: expected a number >= 0, got -0.5"),
        # an inline fixture: minItems inside the fixture schema; a named one: additionalProperties
        (
            {"fixture": {"name": "f", "tables": []}},
            "item 'a1': $.fixture.tables: expected at least 1 item(s), got []",
        ),
        (
            {"fixture": {"name": "f", "note": "x"}},
            "item 'a1': $.fixture: unexpected field(s) 'note'",
        ),
    ],
)
def test_each_kind_of_schema_error_has_its_message(change: dict[str, Any], message: str) -> None:
    record = {k: v for k, v in {**GOOD, **change}.items() if v is not None}
    with pytest.raises(ItemSchemaError) as err:
        item_from_record(record)
    assert str(err.value) == message


def test_a_line_that_is_no_object_and_an_unusable_id_are_said_without_an_item() -> None:
    with pytest.raises(ItemSchemaError, match=r"^\$: expected a JSON object, got \[1, 2\]$"):
        item_from_record([1, 2])
    with pytest.raises(ItemSchemaError, match=r"^\$\.id: expected a string, got true$"):
        item_from_record({**GOOD, "id": True})


def test_every_error_of_an_item_is_listed_in_path_order() -> None:
    with pytest.raises(ItemSchemaError) as err:
        item_from_record({**GOOD, "tokens": -1, "order_sensitive": "yes"})
    assert err.value.problems == [
        '$.order_sensitive: expected a boolean or null, got "yes"',
        "$.tokens: expected a number >= 0, got -1",
    ]


def test_the_loader_shorthands_are_normalised_before_validation() -> None:
    """An integer id, a bare-string fixture name, bare-string types and tags: the loader took
    them before the schema did, and still does (the schema itself has the long forms)."""
    assert schemas.problems("item.schema.json", {**GOOD, "id": 7}) == [
        "$.id: expected a string, got 7"
    ]
    item = item_from_record({**GOOD, "id": 7, "translation_types": "keyword", "tags": "x"})
    assert (item.id, item.translation_types, item.tags) == ("7", ("keyword",), ("x",))
    with pytest.raises(ValueError, match=r"fixture reference .* cannot be resolved"):
        item_from_record({**GOOD, "fixture": "shop"})  # a name, normalised, needs a store


def test_the_dataset_error_names_file_line_and_item(tmp_path: Path) -> None:
    path = tmp_path / "items.jsonl"
    path.write_text(json.dumps(GOOD) + "\n" + json.dumps({**GOOD, "id": "b", "tokens": 1.5}) + "\n")
    with pytest.raises(DatasetError) as err:
        load_dataset(str(path))
    assert err.value.problems == [
        f"{path}:2: item 'b': $.tokens: expected an integer or null, got 1.5"
    ]
