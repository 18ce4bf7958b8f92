"""parrot-main (``datasets/main``) is sound: its items are exactly what ``scripts/build_main.py``
builds from ``concepts/main/``, every item carries a maintainer reference with its note, and the
builder fails loudly, naming the file, on a bad concept or a reference that does not match.

The default tier reads the files only (and loads the dataset, skipping items whose Spider fixture
is absent here); the slow, server-marked test judges every item on the real engines.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from eval_runs import run_eval

from parrot.datasets import ANNOTATION_SOURCES, TRANSLATION_TYPES, load_dataset
from tests.script_modules import SCRIPTS, load_script

ROOT = Path(__file__).resolve().parent.parent
ITEMS = ROOT / "datasets" / "main" / "items.jsonl"
RECORDS = [
    json.loads(line) for line in ITEMS.read_text(encoding="utf-8").splitlines() if line.strip()
]


def _builder():
    return load_script(SCRIPTS / "build_main.py", register=True)


BUILD = _builder()


def test_maintainer_is_an_annotation_source():
    assert "maintainer" in ANNOTATION_SOURCES
    schema = json.loads((ROOT / "parrot" / "schemas" / "item.schema.json").read_text())
    enum = schema["properties"]["annotation_source"]["enum"]
    assert enum == [*ANNOTATION_SOURCES, None]  # null: absent, read as "human"


def test_items_match_the_concept_files():
    concepts, problems = BUILD.load_concepts()
    assert problems == []
    assert BUILD.stale_files(concepts) == [], "run: python scripts/build_main.py"
    assert len(RECORDS) == sum(len(c.targets) for c in concepts)


def test_items_are_well_formed():
    ids = [r["id"] for r in RECORDS]
    assert len(ids) == len(set(ids))
    for r in RECORDS:
        assert r["annotation_source"] == "maintainer" and r["origin"] == "parrot-main"
        assert r["source_dialect"] != r["target_dialect"]
        assert r["note"].strip() and "\n" not in r["note"]
        assert r["translation_types"] and set(r["translation_types"]) <= set(TRANSLATION_TYPES)
        assert isinstance(r["tokens"], int) and r["tokens"] > 0
        assert list(r["fixture"]) == ["name"]  # a named fixture, or one of parrot-main's own
        name = r["fixture"]["name"]
        assert (
            name.partition("/")[0] in {"spider", "text2sql", "tpch"}
            or (ITEMS.parent / "fixtures" / f"{name}.json").is_file()
        ), name
        if r["target_dialect"] in BUILD.GRAMMAR_DIALECTS:
            assert r["verification"] == {
                "method": "grammar-only",
                "grammar": r["target_dialect"],
                "verdict": "unverified-execution",
                "fixture": r["fixture"]["name"],
            }
        else:
            assert r["verification"]["engines"] == [r["source_dialect"], r["target_dialect"]]
        assert r["reference_sql"] and r["reference_sql"][0] != r["source_sql"]


def test_every_translation_type_is_represented():
    types = Counter(t for r in RECORDS for t in r["translation_types"])
    assert set(types) == set(TRANSLATION_TYPES), types


def test_own_fixtures_load_and_are_used():
    from parrot.fixtures import fixture_from_json

    used = {r["fixture"]["name"] for r in RECORDS}
    own = sorted((ITEMS.parent / "fixtures").glob("*.json"))
    assert own
    for path in own:
        fixture = fixture_from_json(json.loads(path.read_text(encoding="utf-8")))
        assert fixture.name == path.stem and fixture.name in used


def test_own_fixtures_are_built_from_their_specs():
    specs = sorted(BUILD.FIXTURES_DIR.glob("*.toml"))
    committed = sorted((ITEMS.parent / "fixtures").glob("*.json"))
    assert [p.stem for p in specs] == [p.stem for p in committed]
    for spec, path in zip(specs, committed, strict=True):
        assert BUILD.render_fixture(BUILD.build_fixture(spec)) == path.read_text(
            encoding="utf-8"
        ), f"{path.name}: run python scripts/build_main.py"


SPEC = """name = "tiny"
seed = 3

[[tables]]
name = "users"
size = 6
primary_key = ["id"]
columns = [
  {name = "id", type = "integer", nullable = false, gen = "seq", start = 10},
  {name = "login", type = "text", gen = "format", format = "{kind}-{i}", lower = true},
  {name = "kind", type = "text", gen = "cycle", values = ["A", "B", {}]},
  {name = "age", type = "integer", gen = "int", min = 1, max = 3},
]

[[tables]]
name = "visits"
product = ["users.id", "users.id"]
keep = 1.0
exclude = [10]
columns = [
  {name = "a", type = "integer"},
  {name = "b", type = "integer"},
  {name = "at", type = "date", gen = "moment", start = "2020-01-01", end = "2020-01-09", DAY},
]

[[tables]]
name = "notes"
columns = [{name = "who", type = "integer"}, {name = "text", type = "text"}]
rows = [[10, "hi"], [11, {}]]
""".replace("DAY", 'unit = 86400, strftime = "%Y-%m-%d"')  # TOML: an inline table on one line


def test_fixture_specs_generate_each_column_kind(tmp_path):
    from parrot.fixtures import fixture_from_json

    path = tmp_path / "tiny.toml"
    path.write_text(SPEC, encoding="utf-8")
    fx = BUILD.build_fixture(path)
    fixture_from_json(fx)  # a valid fixture
    users, visits, notes = fx["tables"]
    assert [r[0] for r in users["rows"]] == list(range(10, 16))
    assert [r[2] for r in users["rows"]] == ["A", "B", None] * 2
    assert [r[1] for r in users["rows"]][:2] == ["a-1", "b-2"]
    assert {r[3] for r in users["rows"]} <= {1, 2, 3}
    assert len(visits["rows"]) == 5 * 6 and all(r[0] != 10 for r in visits["rows"])
    assert all("2020-01-01" <= r[2] <= "2020-01-09" for r in visits["rows"])
    assert notes["rows"] == [[10, "hi"], [11, None]]
    assert BUILD.build_fixture(path) == fx  # seeded: the same bytes every build


@pytest.mark.parametrize(
    ("edit", "problem"),
    [
        (("start = 10}", "start = 10, step = 0}"), "primary key"),
        (('"B", {}]', '"B", {}], colour = 1'), "unknown key"),
        (('name = "tiny"', 'name = "other"'), "not the file's"),
    ],
)
def test_bad_fixture_spec_is_reported_with_its_file(tmp_path, edit, problem):
    path = tmp_path / "tiny.toml"
    path.write_text(SPEC.replace(*edit), encoding="utf-8")
    with pytest.raises(BUILD.SpecError, match=f"tiny.toml: .*{problem}"):
        BUILD.build_fixture(path)


def test_sources_are_sqlite_spider_family_into_several_targets():
    sqlite = [r for r in RECORDS if r["source_dialect"] == "sqlite"]
    assert sqlite
    targets = Counter(r["target_dialect"] for r in sqlite)
    assert len(targets) >= 4, targets


def test_records_validate_as_items():
    from parrot.datasets import item_from_record

    for r in RECORDS:  # the fixture is checked by name here; loading the databases is slow
        item = item_from_record({k: v for k, v in r.items() if k != "fixture"})
        assert item.annotation_source == "maintainer" and item.extra["note"] == r["note"]


@pytest.mark.slow
def test_dataset_loads_and_skips_without_the_corpus():
    data = load_dataset("main", strict=False)
    assert len(data.items) + len(data.skipped) == len(RECORDS)
    assert all(i.annotation_source == "maintainer" for i in data.items)


def test_sources_are_corpus_queries():
    concepts, _ = BUILD.load_concepts()
    assert BUILD.check_provenance(concepts) == []


def _write(folder: Path, name: str, text: str) -> Path:
    (folder / "sqlite").mkdir(parents=True, exist_ok=True)
    path = folder / "sqlite" / name
    path.write_text(text, encoding="utf-8")
    return path


GOOD = """source = "sqlite"
corpus = "Spider"
fixture = "spider/singer"
types = ["syntax"]
tags = ["string-literal"]
difficulty = "easy"

[sql]
sqlite = \'\'\'SELECT Name FROM singer WHERE Citizenship != "France"\'\'\'
duckdb = \'\'\'SELECT Name FROM singer WHERE Citizenship <> 'France' \'\'\'

[notes]
duckdb = "double-quoted literal"
"""


def test_bad_concepts_are_reported_with_their_file(tmp_path):
    _write(tmp_path, "Spider-singer-0001.toml", GOOD)
    _write(
        tmp_path,
        "Spider-singer-0002.toml",
        GOOD.replace('[notes]\nduckdb = "double-quoted literal"\n', "[notes]\n"),
    )
    _write(
        tmp_path,
        "Spider-singer-0003.toml",
        GOOD.replace('types = ["syntax"]', 'types = ["nonsense"]'),
    )
    _write(tmp_path, "Spider-singer-0004.toml", GOOD.replace("duckdb = '''", "teradata = '''"))
    concepts, problems = BUILD.load_concepts(tmp_path)
    assert [c.path.name for c in concepts] == ["Spider-singer-0001.toml"]
    assert len(problems) == 3
    assert "Spider-singer-0002.toml" in problems[0] and "[notes] lacks" in problems[0]
    assert "Spider-singer-0003.toml" in problems[1] and "types" in problems[1]
    assert "Spider-singer-0004.toml" in problems[2] and "no engine" in problems[2]


def test_source_folder_must_match(tmp_path):
    path = _write(
        tmp_path, "Spider-singer-0001.toml", GOOD.replace('source = "sqlite"', 'source = "duckdb"')
    )
    with pytest.raises(BUILD.ConceptError, match=r"Spider-singer-0001\.toml"):
        BUILD.load_concept(path)


@pytest.mark.slow
def test_verify_fails_loudly_on_a_wrong_reference(tmp_path, capsys):
    from parrot.migrate.named import spider_root

    if not (spider_root() / "singer").is_dir():
        pytest.skip(f"no Spider corpus at {spider_root()}")
    right = BUILD.load_concept(_write(tmp_path, "Spider-singer-0001.toml", GOOD))
    wrong = BUILD.load_concept(
        _write(
            tmp_path,
            "Spider-singer-0002.toml",
            GOOD.replace("Citizenship <> 'France'", "Citizenship = 'France'"),
        )
    )
    assert BUILD.verify([right, wrong]) == 1
    out = capsys.readouterr().out
    assert "FAIL" in out and "Spider-singer-0002.toml [duckdb]" in out
    assert "Spider-singer-0001.toml" not in out.split("FAIL", 1)[1].split("\n")[0]


@pytest.mark.slow
@pytest.mark.server
def test_every_reference_matches_on_the_real_engines():
    from parrot.migrate.named import spider_root

    if not spider_root().is_dir():
        pytest.skip(f"no Spider corpus at {spider_root()}")
    concepts, problems = BUILD.load_concepts()
    assert problems == []
    assert (
        BUILD.verify(
            [c for c in concepts], targets=[t for t in BUILD.ENGINE_DIALECTS if t != "spark"]
        )
        == 0
    )


GRAMMAR_ONLY = [r for r in RECORDS if r["target_dialect"] in BUILD.GRAMMAR_DIALECTS]


def test_grammar_only_targets_cover_every_grammar_dialect():
    assert set(BUILD.GRAMMAR_DIALECTS) == {"tsql", "oracle", "snowflake", "bigquery"}
    assert Counter(r["target_dialect"] for r in GRAMMAR_ONLY).keys() == set(BUILD.GRAMMAR_DIALECTS)


@pytest.mark.parametrize("record", GRAMMAR_ONLY, ids=[r["id"] for r in GRAMMAR_ONLY])
def test_grammar_only_references_parse(record):
    from parrot.check import check_sql

    verdicts = check_sql(record["reference_sql"][0], record["target_dialect"])
    assert len(verdicts) == 1 and verdicts[0].ok, verdicts


def test_a_grammar_only_target_becomes_an_unverified_item(tmp_path):
    path = _write(
        tmp_path,
        "Spider-singer-0001.toml",
        GOOD.replace(
            "\n[notes]\n",
            "oracle = '''SELECT Name FROM singer WHERE Citizenship <> 'France' '''"
            '\n\n[notes]\noracle = "double-quoted literal"\n',
        ),
    )
    concept = BUILD.load_concept(path)
    assert concept.targets == ["duckdb", "oracle"]
    duckdb, oracle = BUILD.build_items([concept])
    assert duckdb["verification"]["method"] == "dual-execution"
    assert oracle["verification"] == {
        "method": "grammar-only",
        "verdict": "unverified-execution",
        "grammar": "oracle",
        "fixture": "spider/singer",
    }


def test_verify_fails_naming_the_file_whose_grammar_only_reference_does_not_parse(tmp_path, capsys):
    def concept(name: str, ref: str):
        return BUILD.load_concept(
            _write(
                tmp_path,
                name,
                GOOD.replace("\n[notes]\n", f"tsql = '''{ref}'''\n\n[notes]\ntsql = \"TOP\"\n"),
            )
        )

    good = concept("Spider-singer-0001.toml", "SELECT TOP 1 Name FROM singer")
    bad = concept("Spider-singer-0002.toml", "SELECT Name FROM singer LIMIT 1")
    assert BUILD.verify([good], targets=["tsql"]) == 0
    assert "1 grammar-only references parse" in capsys.readouterr().out
    assert BUILD.verify([good, bad], targets=["tsql"]) == 1
    out = capsys.readouterr().out
    assert "FAIL" in out and "Spider-singer-0002.toml [tsql]: does not parse" in out
    assert "Spider-singer-0001.toml" not in out


@pytest.mark.slow
def test_eval_scores_grammar_only_items_no_engine_with_acc_syn(tmp_path):
    """Real parrot-main items into each grammar-only dialect (and one whose translation does not
    parse) are no_engine, scored by Acc_SYN, never a translator failure or a gold error."""
    from parrot.api.results import read_results
    from parrot.migrate.named import spider_root

    if not spider_root().is_dir():
        pytest.skip(f"no Spider corpus at {spider_root()}")
    picked = [
        next(
            r for r in GRAMMAR_ONLY if r["target_dialect"] == d and r["source_dialect"] == "sqlite"
        )
        for d in BUILD.GRAMMAR_DIALECTS
    ]
    broken = {**picked[0], "id": "broken", "reference_sql": ["SELECT FROM WHERE"]}
    data = tmp_path / "items.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in [*picked, broken]))
    assert run_eval(tmp_path / "run", "--dataset", str(data), "--model", "reference") == 0
    records = {r["id"]: r for r in read_results(tmp_path / "run")}
    for r in records.values():
        assert set(r["no_engine"]) == {r["target_dialect"]}
        assert r["gold"]["status"] == "ok"
        assert r["verdicts"]["strict"]["reason"] == "no_engine"
    assert [records[r["id"]]["syntax"]["ok"] for r in picked] == [True] * 4
    assert records["broken"]["syntax"]["ok"] is False
    overall = json.loads((tmp_path / "run" / "summary.json").read_text())["overall"]
    assert (overall["items"], overall["no_engine"], overall["gold_error"]) == (5, 5, 0)
    assert (overall["evaluated"], overall["ex_items"]) == (0, 0)
    assert (overall["syn_checked"], overall["syn"], overall["acc_syn"]) == (5, 4, 80.0)


SETUP = (
    "setup_ids = [\"Spider:x:1\"]\n\n[setup]\nsqlite = '''CREATE VIEW v AS SELECT 1'''\n"
    "duckdb = '''CREATE MACRO m() AS 1'''\n\n[sql]"
)


@pytest.mark.parametrize(
    ("edit", "problem"),
    [
        (
            lambda t: t.replace("\n[sql]", SETUP.replace('setup_ids = ["Spider:x:1"]\n\n', ""), 1),
            "setup_ids and [setup].sqlite go together",
        ),
        (
            lambda t: t.replace("\n[sql]", SETUP.replace("duckdb", "postgres"), 1),
            "[setup] has dialect(s) ['postgres'] with no [sql] text",
        ),
        (
            lambda t: t.replace(
                "\n[sql]", SETUP.replace("'''CREATE MACRO m() AS 1'''", "''' '''"), 1
            ),
            "[setup] must map dialects to non-empty SQL text",
        ),
        (
            lambda t: t.replace("\n[sql]", SETUP.replace('["Spider:x:1"]', '"Spider:x:1"'), 1),
            "setup_ids must be a list of corpus ids",
        ),
    ],
)
def test_bad_setup_is_reported_with_its_file(tmp_path, edit, problem):
    path = _write(tmp_path, "Spider-singer-0001.toml", edit(GOOD))
    with pytest.raises(BUILD.ConceptError, match=r"Spider-singer-0001\.toml") as err:
        BUILD.load_concept(path)
    assert problem in str(err.value)


def test_setup_runs_before_the_query_in_source_and_reference(tmp_path):
    concept = BUILD.load_concept(
        _write(tmp_path, "Spider-singer-0001.toml", GOOD.replace("\n[sql]", SETUP, 1))
    )
    assert concept.setup_ids == ("Spider:x:1",)
    (item,) = BUILD.build_items([concept])
    assert item["source_sql"].startswith("CREATE VIEW v AS SELECT 1\n\nSELECT Name FROM singer")
    reference = item["reference_sql"]
    reference = reference[0] if isinstance(reference, list) else reference
    assert reference.startswith("CREATE MACRO m() AS 1\n\nSELECT Name FROM singer")
    assert item["setup_ids"] == ["Spider:x:1"]
