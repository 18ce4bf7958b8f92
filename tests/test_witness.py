"""Witness databases: ddmin, 1-minimality on real engines, runnable scripts, ``parrot witness``."""

from __future__ import annotations

import json
import sqlite3
import statistics
from pathlib import Path

import duckdb
import jsonschema
import pytest
import referencing
from eval_runs import run_eval

from parrot.datasets import Item
from parrot.eval.witness import (
    Shrinker,
    _CountingJudge,
    create_statements,
    ddmin,
    subset,
    witness,
)
from parrot.eval.witness_cmd import main as witness_main
from parrot.fixtures import Column, Fixture, Table


@pytest.mark.parametrize(
    ("needed", "size"),
    [({3, 7}, 10), ({0}, 5), ({4}, 5), (set(), 6), ({1, 2, 3}, 8), ({0, 19}, 20)],
)
def test_ddmin_finds_exactly_the_needed_units(needed, size):
    units = [(0, i) for i in range(size)]
    calls = []

    def fails(keep):
        calls.append(len(keep))
        return {i for _, i in keep} >= needed

    assert sorted(i for _, i in ddmin(units, fails)) == sorted(needed)


def test_ddmin_result_is_one_minimal_for_a_non_monotone_test():
    # fails when an odd number of the kept units is marked: no unique answer, but 1-minimal
    marked = {1, 4, 6}

    def fails(keep):
        return len({i for _, i in keep} & marked) % 2 == 1

    kept = ddmin([(0, i) for i in range(8)], fails)
    assert fails(kept)
    assert all(not fails([u for u in kept if u != drop]) for drop in kept)


SHOP = Fixture(
    "shop",
    (
        Table(
            "t",
            (Column("k", "integer"), Column("x", "integer"), Column("label", "text")),
            tuple((i, v, f"row {i}") for i, v in enumerate([5, 3, 5, 8, 1, 3, 9, 2, 5, 7])),
        ),
        Table("other", (Column("id", "integer"),), ((1,), (2,), (3,))),
    ),
)


def _item(sql: str, source: str = "sqlite", target: str = "duckdb") -> Item:
    return Item(id="w1", source_dialect=source, target_dialect=target, source_sql=sql, fixture=SHOP)


def test_count_vs_count_distinct_shrinks_to_one_duplicate_pair():
    item = _item("SELECT COUNT(x) FROM t")
    found = witness(item, "SELECT COUNT(DISTINCT x) FROM t", [("fixture", SHOP)])
    assert found is not None and found.minimal
    assert found.rows == {"t": 2, "other": 0}
    (a, b) = found.fixture.table("t").rows
    assert a[1] == b[1]  # the two rows hold the same value: the duplicate COUNT(DISTINCT) drops
    assert found.verdict.reason.value == "value"
    # 1-minimal, checked independently on the real engines: dropping any row makes them agree
    judge = _CountingJudge(10_000)
    try:
        shrinker = Shrinker(judge, item, "SELECT COUNT(DISTINCT x) FROM t")
        units = [(ti, ri) for ti, t in enumerate(found.fixture.tables) for ri in range(len(t.rows))]
        for drop in units:
            smaller = subset(found.fixture, [u for u in units if u != drop])
            assert shrinker.disagreement(smaller) is None
    finally:
        judge.close()


def test_an_empty_database_is_the_witness_when_it_already_differs():
    # COUNT(*) vs a SUM over no qualifying row: 0 vs NULL, on the fixture and on empty tables
    found = witness(
        _item("SELECT COUNT(*) FROM t WHERE x > 100"),
        "SELECT SUM(1) FROM t WHERE x > 100",
        [("fixture", SHOP)],
    )
    assert found is not None and found.minimal and found.rows == {"t": 0, "other": 0}


def test_agreeing_or_failing_translations_have_no_witness():
    assert (
        witness(_item("SELECT COUNT(x) FROM t"), "SELECT COUNT(x) FROM t", [("fixture", SHOP)])
        is None
    )
    assert (
        witness(_item("SELECT COUNT(x) FROM t"), "SELECT COUNT(nope) FROM t", [("fixture", SHOP)])
        is None
    )


def test_a_spent_budget_still_gives_a_disagreeing_database_marked_not_minimal():
    item = _item("SELECT COUNT(x) FROM t")
    found = witness(item, "SELECT COUNT(DISTINCT x) FROM t", [("fixture", SHOP)], budget=4)
    assert found is not None and not found.minimal
    assert found.executions <= 4 + 4


def test_scripts_rebuild_the_witness_and_reproduce_the_difference():
    item = _item("SELECT x, COUNT(*) AS n FROM t GROUP BY x ORDER BY x")
    sql = "SELECT x, COUNT(DISTINCT k) - 1 AS n FROM t GROUP BY x ORDER BY x"
    found = witness(item, sql, [("fixture", SHOP)])
    assert found is not None and found.minimal
    lite = sqlite3.connect(":memory:")
    for statement in create_statements(found.fixture, "sqlite"):
        lite.execute(statement)
    duck = duckdb.connect()
    for statement in create_statements(found.fixture, "duckdb"):
        duck.execute(statement)
    assert lite.execute(item.source_sql).fetchall() != duck.execute(sql).fetchall()
    assert lite.execute("SELECT COUNT(*) FROM t").fetchone()[0] == found.rows["t"]


def test_parrot_witness_on_a_real_run(tmp_path, capsys):
    """eval with a predictions file that drops a DISTINCT, then ``parrot witness`` on it."""
    from parrot.datasets import load_dataset

    item = next(
        i
        for i in load_dataset("starter").items
        if i.id == "starter-revenue-per-customer-2024-sqlite-duckdb"
    )

    def run_model(model: str, out: Path) -> int:
        return run_eval(
            out, "--model", model, "--pairs", "sqlite:duckdb", "--limit", "1", "--no-suite"
        )

    base = tmp_path / "base"
    assert run_model("reference", base) == 0
    reference = json.loads((base / "results.jsonl").read_text().splitlines()[0])
    assert reference["id"] == item.id
    wrong = reference["translation"]["sql"].replace("count(DISTINCT o.id)", "count(o.id)")
    assert wrong != reference["translation"]["sql"]
    preds = tmp_path / "preds.json"
    preds.write_text(json.dumps([{"id": item.id, "translated_sql": wrong}]))
    run = tmp_path / "run"
    run_model(f"file:{preds}", run)
    capsys.readouterr()
    out = tmp_path / "w"
    assert witness_main([str(run), item.id, "-o", str(out), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["minimal"] and data["origin"] == "fixture"
    assert 0 < data["size"] < sum(data["rows_before"].values())
    assert sorted(p.name for p in out.iterdir()) == ["witness.duckdb.sql", "witness.sqlite.sql"]
    assert wrong.strip().rstrip(";") in (out / "witness.duckdb.sql").read_text()
    # every rejected item of the run, appended by id; a second pass adds nothing
    assert witness_main([str(run), "--all"]) == 0
    assert witness_main([str(run), "--all"]) == 0
    lines = [json.loads(x) for x in (run / "witnesses.jsonl").read_text().splitlines()]
    assert [x["id"] for x in lines] == [item.id]
    assert lines[0]["witness"]["size"] == data["size"]


def test_parrot_witness_usage_errors_exit_2(tmp_path, capsys):
    assert witness_main([str(tmp_path), "x"]) == 2
    assert "no results.jsonl" in capsys.readouterr().err
    assert witness_main([str(tmp_path)]) == 2
    assert "ITEM_ID or --all" in capsys.readouterr().err
    assert witness_main([str(tmp_path), "x", "--budget", "0"]) == 2


def test_witness_is_registered_with_the_umbrella_cli():
    from parrot.cli import COMMANDS

    assert COMMANDS["witness"][0] == "parrot.eval.witness_cmd"


def test_the_witness_record_is_json(tmp_path: Path):
    found = witness(
        _item("SELECT COUNT(x) FROM t"), "SELECT COUNT(DISTINCT x) FROM t", [("fixture", SHOP)]
    )
    assert found is not None
    data = json.loads(json.dumps(found.to_json()))
    assert data["size"] == 2 and data["tables"]["t"][0][1] == data["tables"]["t"][1][1]


def test_eval_with_witness_records_them_and_the_report_shows_them(tmp_path):
    """``parrot eval --witness``: witnesses.jsonl beside results.jsonl, inlined in report.html."""
    import base64
    import gzip
    import re

    run = tmp_path / "run"
    code = run_eval(
        run,
        "--model",
        "sqlglot",
        "--pairs",
        "sqlite:clickhouse",
        "--limit",
        "12",
        "--no-suite",
        "--witness",
    )
    assert code == 0
    lines = [json.loads(x) for x in (run / "witnesses.jsonl").read_text().splitlines()]
    found = {x["id"]: x["witness"] for x in lines if x["witness"]}
    assert found, "sqlglot's sqlite→clickhouse slice has value mismatches with witnesses"
    page = (run / "report.html").read_text()
    packed = re.search(r'id="parrot-data">([^<]*)</script>', page)
    assert packed is not None
    items = json.loads(gzip.decompress(base64.b64decode(packed.group(1))))["items"]
    shown = {i["id"]: i["witness"] for i in items if i.get("witness")}
    assert shown == found
    for one in shown.values():
        assert set(one["columns"]) == set(one["tables"])
    # the witness is part of the run's results: typed lines, counted in summary.json and the
    # report's tables
    schemas = Path(__file__).resolve().parents[1] / "parrot" / "schemas"
    loaded = {p.name: json.loads(p.read_text()) for p in schemas.glob("*.schema.json")}
    registry = referencing.Registry().with_resources(
        (uri, referencing.Resource.from_contents(x))
        for n, x in loaded.items()
        for uri in (n, x["$id"])
    )
    validator = jsonschema.Draft202012Validator(loaded["witness.schema.json"], registry=registry)
    assert [e.message for x in lines for e in validator.iter_errors(x)] == []
    counts = json.loads((run / "summary.json").read_text())["witnesses"]
    assert (counts["shrunk"], counts["with_witness"]) == (len(lines), len(found))
    assert counts["median_size"] == statistics.median(w["size"] for w in found.values())
    assert counts["minimal"] == sum(w["minimal"] for w in found.values())
    summary_schema = jsonschema.Draft202012Validator(loaded["summary.schema.json"])
    assert list(summary_schema.iter_errors(json.loads((run / "summary.json").read_text()))) == []
    assert "Witnesses (parrot witness" in page  # report.html's table reads witnesses.jsonl
