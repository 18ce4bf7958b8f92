"""Every shipped item and fixture matches the JSON Schemas in ``parrot/schemas/``."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from eval_runs import run_eval
from schema_validator import SCHEMAS, schema_validator

jsonschema = pytest.importorskip("jsonschema", reason="jsonschema (dev extra) not installed")
referencing = pytest.importorskip("referencing", reason="referencing (jsonschema's) missing")

REPO = Path(__file__).resolve().parents[1]


def test_shipped_items_match_the_item_schema():
    validator = schema_validator("item.schema.json")
    files = sorted(REPO.glob("datasets/*/items.jsonl"))
    assert files
    errors = [
        f"{f.name}:{n}: {e.message}"
        for f in files
        for n, line in enumerate(f.read_text().splitlines(), 1)
        if line.strip()
        for e in validator.iter_errors(json.loads(line))
    ]
    assert errors == []


def test_shipped_fixtures_match_the_fixture_schema():
    validator = schema_validator("fixture.schema.json")
    files = sorted(REPO.glob("datasets/*/fixtures/*.json"))
    assert files
    errors = [
        f"{f}: {e.message}" for f in files for e in validator.iter_errors(json.loads(f.read_text()))
    ]
    assert errors == []


def test_schema_rejects_a_malformed_item():
    validator = schema_validator("item.schema.json")
    assert not validator.is_valid({"id": "x", "source_dialect": "sqlite", "source_sql": "SELECT 1"})
    assert not validator.is_valid(
        {
            "id": "x",
            "source_dialect": "sqlite",
            "target_dialect": "duckdb",
            "source_sql": "SELECT 1",
            "translation_types": ["nope"],
        }
    )


def _curated_line(**record: str) -> dict:
    """The dataset line curation writes for pair ``a`` (SELECT 1, sqlite → duckdb) with
    ``record``'s fields."""
    from parrot.curate.serialise import item_json
    from parrot.curate.stages import Candidate, Record

    ref = Candidate("SELECT 1", "sqlglot", "tool")
    pair = Record(id="a", dialect="sqlite", sql="SELECT 1", target="duckdb", references=(ref,))
    return item_json("main", dataclasses.replace(pair, **record))


def test_curated_items_use_the_shipped_fixture_form():
    line = _curated_line(fixture="spider/concert_singer")
    assert line["fixture"] == {"name": "spider/concert_singer"}
    assert schema_validator("item.schema.json").is_valid(line)


def test_shipped_and_curated_items_share_one_reference_form():
    """``reference_sql`` is a list of strings in every shipped dataset and in curated output, so
    one column type loads any mix of them (e.g. with ``datasets.load_dataset("json", …)``)."""
    from parrot.curate.serialise import item_json
    from parrot.curate.stages import Candidate, Record

    shapes = {
        (f.parent.name, type(json.loads(line)["reference_sql"]).__name__)
        for f in sorted(REPO.glob("datasets/*/items.jsonl"))
        for line in f.read_text().splitlines()
        if line.strip()
    }
    assert shapes == {(name, "list") for name, _ in shapes}
    ref = Candidate("SELECT 1", "sqlglot", "tool")
    line = item_json(
        "main", Record(id="a", dialect="sqlite", sql="SELECT 1", target="duckdb", references=(ref,))
    )
    assert isinstance(line["reference_sql"], list)


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_every_shipped_line_has_the_one_column_set():
    """``load_dataset("json", data_files=[starter, main])`` failed (12 vs 21 columns) where
    ``[main, starter]`` loaded: every line of every dataset now has every column, in order."""
    from parrot.datasets import item_columns

    columns = list(item_columns())
    for f in sorted(REPO.glob("datasets/*/items.jsonl")):
        shapes = {tuple(line) for line in _lines(f)}
        assert shapes == {tuple(columns)}, f


def test_pyarrow_reads_the_datasets_as_one_table_in_either_order():
    pa = pytest.importorskip("pyarrow")
    from pyarrow import json as pa_json

    def read(name: str):
        # one block, one thread: type inference in one pass (threaded blocks inferred an inline
        # fixture's date strings as list<timestamp> in some runs and then failed to convert)
        path = REPO / "datasets" / name / "items.jsonl"
        options = pa_json.ReadOptions(use_threads=False, block_size=path.stat().st_size + 1)
        return pa_json.read_json(path, read_options=options)

    starter, main = read("starter"), read("main")
    assert starter.column_names == main.column_names
    for first, second in ((starter, main), (main, starter)):
        table = pa.concat_tables([first, second], promote_options="default")
        assert table.num_rows == starter.num_rows + main.num_rows
        assert table.column_names == starter.column_names


def test_built_lines_have_the_one_column_set():
    """Curation and text-to-SQL builds write the same columns as the shipped datasets."""
    from parrot.datasets import item_columns, item_line
    from parrot.text2sql.build import item_record

    curated = _curated_line()
    question = {"id": 7, "gold_sql": "SELECT 1", "question": "one?", "db_id": "shop"}
    built = item_line(item_record(question, "duckdb", "spider_dev"))
    for line in (curated, built):
        assert tuple(line) == item_columns()
        assert schema_validator("item.schema.json").is_valid(line)


INLINE = {
    "id": "x",
    "source_dialect": "sqlite",
    "target_dialect": "duckdb",
    "source_sql": "SELECT a FROM t",
    "fixture": {
        "name": "f",
        "tables": [{"name": "t", "rows": [[1]], "columns": [{"name": "a", "type": "integer"}]}],
    },
}
BAD_FIXTURE = {**INLINE, "fixture": {"name": "f", "tables": []}}  # only fixture.schema rejects it


def test_a_plain_validator_resolves_the_fixture_ref_offline():
    """The item schema's ``$ref`` to fixture.schema.json was unresolvable without a registry
    (``Unresolvable: fixture.schema.json``): the fixture schema is embedded under its ``$id``."""
    schema = json.loads((SCHEMAS / "item.schema.json").read_text())
    validator = jsonschema.Draft202012Validator(schema)  # no registry, no network
    assert validator.is_valid(INLINE)
    assert not validator.is_valid(BAD_FIXTURE)


def test_a_registry_of_the_ids_alone_resolves_every_ref():
    """With ``referencing``: the schemas under their ``$id`` s, and a registry that refuses to
    fetch anything (so nothing is resolved over the network)."""

    def offline(uri: str):
        raise referencing.exceptions.NoSuchResource(ref=uri)

    schemas = [json.loads(p.read_text()) for p in sorted(SCHEMAS.glob("*.schema.json"))]
    registry = referencing.Registry(retrieve=offline).with_resources(
        (s["$id"], referencing.Resource.from_contents(s)) for s in schemas
    )
    item = next(s for s in schemas if s["$id"].endswith("/item.schema.json"))
    validator = jsonschema.Draft202012Validator(item, registry=registry)
    assert validator.is_valid(INLINE) and not validator.is_valid(BAD_FIXTURE)


def test_the_embedded_fixture_schema_is_the_fixture_schema_file():
    item = json.loads((SCHEMAS / "item.schema.json").read_text())
    fixture = json.loads((SCHEMAS / "fixture.schema.json").read_text())
    assert item["$defs"]["fixture"] == fixture, (
        "copy parrot/schemas/fixture.schema.json into item.schema.json's $defs.fixture"
    )


def test_results_schema_names_every_field_of_the_records():
    """results.schema.json and summary.schema.json say what parrot.api.records types: the same
    fields, the same required ones (mypy checks the writers against the types)."""
    from parrot.api.records import Outcome, Summary

    results = json.loads((SCHEMAS / "results.schema.json").read_text())
    assert set(results["properties"]) == set(Outcome.__annotations__)
    assert set(results["required"]) == set(Outcome.__required_keys__)
    summary = json.loads((SCHEMAS / "summary.schema.json").read_text())
    assert set(summary["$defs"]["score"]["properties"]) == set(Summary.__annotations__)
    from parrot.api.records import LevelRecord, WitnessLine, WitnessRecord

    witness = json.loads((SCHEMAS / "witness.schema.json").read_text())
    assert set(witness["properties"]) == set(WitnessLine.__annotations__)
    assert set(witness["required"]) == set(WitnessLine.__required_keys__)
    assert set(witness["$defs"]["witness"]["properties"]) == set(WitnessRecord.__annotations__)
    assert set(results["properties"]["level"]["properties"]) == set(LevelRecord.__annotations__)


def test_a_real_run_matches_the_results_and_summary_schemas(tmp_path):

    run = tmp_path / "run"
    assert run_eval(run, "--model", "sqlglot", "--limit", "12") == 0
    results = schema_validator("results.schema.json")
    lines = _lines(run / "results.jsonl")
    assert len(lines) == 12
    errors = [
        f"{r['id']}: {e.json_path}: {e.message}" for r in lines for e in results.iter_errors(r)
    ]
    assert errors == []
    summary = json.loads((run / "summary.json").read_text())
    assert [e.message for e in schema_validator("summary.schema.json").iter_errors(summary)] == []
    assert not results.is_valid({**lines[0], "unknown_field": 1})  # a new field needs the schema
