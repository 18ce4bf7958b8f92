"""Every shipped item and fixture matches the JSON Schemas in ``parrot/schemas/``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

jsonschema = pytest.importorskip("jsonschema", reason="jsonschema (dev extra) not installed")
referencing = pytest.importorskip("referencing", reason="referencing (jsonschema's) missing")

REPO = Path(__file__).resolve().parents[1]
SCHEMAS = REPO / "parrot" / "schemas"


def _validator(name: str):
    schemas = {p.name: json.loads(p.read_text()) for p in SCHEMAS.glob("*.schema.json")}
    registry = referencing.Registry().with_resources(
        (uri, referencing.Resource.from_contents(s))
        for n, s in schemas.items() for uri in (n, s["$id"]))
    return jsonschema.Draft202012Validator(schemas[name], registry=registry)


def test_shipped_items_match_the_item_schema():
    validator = _validator("item.schema.json")
    files = sorted(REPO.glob("datasets/*/items.jsonl"))
    assert files
    errors = [f"{f.name}:{n}: {e.message}" for f in files
              for n, line in enumerate(f.read_text().splitlines(), 1) if line.strip()
              for e in validator.iter_errors(json.loads(line))]
    assert errors == []


def test_shipped_fixtures_match_the_fixture_schema():
    validator = _validator("fixture.schema.json")
    files = sorted(REPO.glob("datasets/*/fixtures/*.json"))
    assert files
    errors = [f"{f}: {e.message}" for f in files
              for e in validator.iter_errors(json.loads(f.read_text()))]
    assert errors == []


def test_schema_rejects_a_malformed_item():
    validator = _validator("item.schema.json")
    assert not validator.is_valid({"id": "x", "source_dialect": "sqlite", "source_sql": "SELECT 1"})
    assert not validator.is_valid({"id": "x", "source_dialect": "sqlite",
                                   "target_dialect": "duckdb", "source_sql": "SELECT 1",
                                   "translation_types": ["nope"]})


def test_curated_items_use_the_shipped_fixture_form():
    from parrot.curate.serialise import item_json
    from parrot.curate.stages import Candidate, Record

    ref = Candidate("SELECT 1", "sqlglot", "tool")
    line = item_json("main", Record(id="a", dialect="sqlite", sql="SELECT 1", target="duckdb",
                                    fixture="spider/concert_singer", references=(ref,)))
    assert line["fixture"] == {"name": "spider/concert_singer"}
    assert _validator("item.schema.json").is_valid(line)


def test_shipped_and_curated_items_share_one_reference_form():
    """``reference_sql`` is a list of strings in every shipped dataset and in curated output, so
    one column type loads any mix of them (e.g. with ``datasets.load_dataset("json", …)``)."""
    from parrot.curate.serialise import item_json
    from parrot.curate.stages import Candidate, Record

    shapes = {(f.parent.name, type(json.loads(line)["reference_sql"]).__name__)
              for f in sorted(REPO.glob("datasets/*/items.jsonl"))
              for line in f.read_text().splitlines() if line.strip()}
    assert shapes == {(name, "list") for name, _ in shapes}
    ref = Candidate("SELECT 1", "sqlglot", "tool")
    line = item_json("main", Record(id="a", dialect="sqlite", sql="SELECT 1", target="duckdb",
                                    references=(ref,)))
    assert isinstance(line["reference_sql"], list)
