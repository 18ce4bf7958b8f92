import json
from decimal import Decimal

import pytest
from fixture_json import fixture_json, table_json

from parrot.datasets import DatasetError, Item, load_dataset
from parrot.fixtures import FixtureError, fixture_from_json

GOOD = {
    "id": "a1",
    "source_dialect": "pg",
    "target_dialect": "ch",
    "source_sql": "SELECT 1",
    "reference_sql": "SELECT 1",
    "translation_types": ["keyword"],
}

FIXTURE = fixture_json(
    "tiny",
    table_json(
        "t",
        [[1, "2.50", "2024-02-29 23:59:59.000001"], [2, None, None]],
        id="integer NOT NULL",
        price="decimal(10,2)",
        at="timestamp",
    ),
)


def write(tmp_path, lines, fixtures=None):
    path = tmp_path / "items.jsonl"
    path.write_text("\n".join(x if isinstance(x, str) else json.dumps(x) for x in lines) + "\n")
    for f in fixtures or []:
        (tmp_path / "fixtures").mkdir(exist_ok=True)
        (tmp_path / "fixtures" / f"{f['name']}.json").write_text(json.dumps(f))
    return path


def test_valid_items_load_with_canonical_dialects_and_tokens(tmp_path):
    ds = load_dataset(
        str(write(tmp_path, [GOOD, {**GOOD, "id": "a2", "fixture": "tiny"}], [FIXTURE]))
    )
    assert [i.id for i in ds.items] == ["a1", "a2"]
    first: Item = ds.items[0]
    assert (first.source_dialect, first.target_dialect) == ("postgres", "clickhouse")
    assert first.reference_sql == ("SELECT 1",)
    assert first.tokens == 3  # "SELECT", " ", "1" in cl100k_base
    assert ds.items[1].fixture.table("t").rows[0][1] == Decimal("2.50")
    assert len(ds.sha256) == 64


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("{not json", "invalid JSON"),
        ({**GOOD, "source_dialect": "postgress"}, "unknown dialect 'postgress'"),
        ({**GOOD, "source_sql": "   "}, "item 'a1': $.source_sql: expected a non-blank string"),
        ({k: v for k, v in GOOD.items() if k != "target_dialect"}, "missing required field"),
        ({**GOOD, "translation_types": ["magic"]}, "$.translation_types[0]: expected one of"),
        ({**GOOD, "fixture": "nowhere"}, "fixture 'nowhere' is neither in"),
        ({**GOOD, "reference_sql": ""}, "$.reference_sql: expected a non-blank string"),
        ([1, 2], "$: expected a JSON object, got [1, 2]"),
    ],
)
def test_bad_line_is_reported_with_file_and_line(tmp_path, line, reason):
    path = write(tmp_path, [GOOD, line])
    with pytest.raises(DatasetError) as info:
        load_dataset(str(path))
    assert len(info.value.problems) == 1
    assert info.value.problems[0].startswith(f"{path}:2: ")
    assert reason in info.value.problems[0]


def test_all_problems_reported_and_nothing_half_loaded(tmp_path):
    path = write(tmp_path, [GOOD, GOOD, {**GOOD, "id": "x", "target_dialect": "nope"}])
    with pytest.raises(DatasetError) as info:
        load_dataset(str(path))
    assert [p.split(": ")[0] for p in info.value.problems] == [f"{path}:2", f"{path}:3"]
    assert "duplicate id 'a1' (first on line 1)" in info.value.problems[0]


def test_unknown_dataset_name_lists_the_named_ones():
    with pytest.raises(DatasetError, match="no such dataset"):
        load_dataset("no-such-dataset")


@pytest.mark.parametrize(
    ("mutate", "reason"),
    [
        (lambda f: f["tables"][0]["rows"].append([3, "1.234", None]), "more than 2 decimal places"),
        (lambda f: f["tables"][0]["rows"].append([None, None, None]), "NULL in NOT NULL"),
        (
            lambda f: f["tables"][0]["rows"].append([4, None, "2024-01-01T00:00:00+02:00"]),
            "time zone",
        ),
        (lambda f: f["tables"][0]["columns"][1].update(type="money"), "unknown portable type"),
        (lambda f: f["tables"][0]["rows"].append([5, None]), "expected a list of 3 values"),
        (lambda f: f["tables"][0].update(name="bad.name"), r"table name 'bad.name' contains '\.'"),
        (lambda f: f["tables"][0]["columns"][0].update(name="x" * 64), "longer than 63 bytes"),
        (lambda f: f["tables"][0]["columns"][0].update(name='a"b'), "contains '\"'"),
        (
            lambda f: f["tables"][0]["rows"].append(f["tables"][0]["rows"][0]),
            "duplicate primary key",
        ),
        (lambda f: f["tables"][0].update(primary_key=["price"]), "NULL in primary key"),
        (lambda f: f["tables"][0].update(primary_key=["nope"]), "unknown columns"),
    ],
)
def test_fixture_validation(mutate, reason):
    data = json.loads(json.dumps(FIXTURE))
    mutate(data)
    with pytest.raises(FixtureError, match=reason):
        fixture_from_json(data)


def test_fixture_checksum_is_order_independent_and_content_sensitive():
    a = fixture_from_json(FIXTURE)
    swapped = json.loads(json.dumps(FIXTURE))
    swapped["tables"][0]["rows"].reverse()
    changed = json.loads(json.dumps(FIXTURE))
    changed["tables"][0]["rows"][0][2] = "2024-02-29 23:59:59"  # microsecond dropped
    assert fixture_from_json(swapped).checksums == a.checksums
    assert fixture_from_json(changed).checksums != a.checksums
    assert fixture_from_json(changed).content_hash != a.content_hash


def test_wide_decimals_keep_all_38_digits():
    value = "1234567890123456789012345678901234.5678"
    fx = fixture_from_json(
        {
            "name": "w",
            "tables": [
                {
                    "name": "t",
                    "columns": [{"name": "d", "type": "decimal(38,4)"}],
                    "rows": [[value]],
                }
            ],
        }
    )
    assert str(fx.tables[0].rows[0][0]) == value
    assert fx.checksums["t"]


def test_items_can_use_parrot_named_fixtures(tmp_path):
    ds = load_dataset(str(write(tmp_path, [{**GOOD, "fixture": {"name": "tpch"}}])))
    fixture = ds.items[0].fixture
    assert {t.name for t in fixture.tables} >= {"lineitem", "orders", "customer", "nation"}
