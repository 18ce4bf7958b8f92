"""Eval on test suites: per-database verdicts, Acc_TS beside Acc_RES (issue 12, item 5)."""

from __future__ import annotations

import dataclasses
import json
import shutil
from contextlib import closing
from pathlib import Path

import pytest

from parrot.api.results import read_results
from parrot.datasets import Item, load_dataset
from parrot.eval.cli import main
from parrot.eval.judge import Judge
from parrot.fixtures import Fixture, Table
from parrot.report.metrics import summarize
from parrot.testsuite.store import Suite, SuiteDatabase, suite_key, write_suite
from parrot.translators.base import Translation, TranslationStatus

STARTER = Path(__file__).resolve().parents[1] / "datasets" / "starter"
SOURCE = "SELECT id, name FROM customers WHERE id > 0 ORDER BY id"
# (translation, matches on the fixture, matches on the suite)
CASES = [
    ("SELECT id, name FROM customers WHERE id > 0 ORDER BY id", True, True),
    ("SELECT id, name FROM customers WHERE id > 0 AND id < 1000 ORDER BY id", True, False),
    ("SELECT id, name FROM customers WHERE id > 1 ORDER BY id", False, False),
]


def _with_customer(fixture: Fixture, cid: int) -> Fixture:
    """``fixture`` with one more customer (a copy of the first, under a new id)."""
    tables = []
    for t in fixture.tables:
        if t.name == "customers":
            extra = (cid, *t.rows[0][1:])
            t = Table(t.name, t.columns, (*t.rows, extra), t.primary_key)
        tables.append(t)
    return dataclasses.replace(fixture, tables=tuple(tables))


def _starter_item(tmp_path: Path, rid: str, target: str) -> Item:
    """A one-item dataset in ``tmp_path`` on the starter set's fixtures: SOURCE on ``shop``,
    sqlite → ``target``, its own reference."""
    shutil.copytree(STARTER / "fixtures", tmp_path / "fixtures")
    item = {
        "id": rid,
        "source_dialect": "sqlite",
        "target_dialect": target,
        "source_sql": SOURCE,
        "reference_sql": SOURCE,
        "fixture": {"name": "shop"},
    }
    (tmp_path / "items.jsonl").write_text(json.dumps(item) + "\n", encoding="utf-8")
    return load_dataset(str(tmp_path), count_tokens=False).items[0]


def _with_suite(tmp_path: Path, rid: str, target: str, renamed: bool = False) -> Item:
    """:func:`_starter_item` and its suite of two databases, each with one more customer (500,
    5000), named ``ts0-r1``, ``ts0-r2`` as the generator names them if ``renamed``."""
    item = _starter_item(tmp_path, rid, target)
    fixture = item.fixture
    assert fixture is not None
    dbs = []
    for seed, cid in ((1, 500), (2, 5000)):
        db = _with_customer(fixture, cid)
        db = dataclasses.replace(db, name=f"ts0-r{seed}") if renamed else db
        dbs.append(SuiteDatabase(fixture=db, seed=seed, size=1))
    suite = Suite(
        key=suite_key("sqlite", SOURCE, fixture),
        source_dialect="sqlite",
        source_sql=SOURCE,
        fixture_sha256=fixture.content_hash,
        databases=tuple(dbs),
    )
    write_suite(tmp_path, suite)
    return item


@pytest.fixture
def dataset_dir(tmp_path: Path) -> Path:
    """A one-item slice of the starter dataset (sqlite → sqlite on ``shop``) with a suite."""
    _with_suite(tmp_path, "t-customers", "sqlite")
    return tmp_path


@pytest.mark.parametrize(("sql", "fixture_match", "suite_match"), CASES)
def test_suite_verdicts(
    dataset_dir: Path, sql: str, fixture_match: bool, suite_match: bool
) -> None:
    item = load_dataset(str(dataset_dir), count_tokens=False).items[0]
    with closing(Judge(suite_dir=dataset_dir)) as judge:
        record = judge.judge(item, Translation(TranslationStatus.OK, sql=sql))
    assert record["verdicts"]["strict"]["match"] is fixture_match
    suite = record["suite"]
    assert suite["match"] is suite_match
    assert [d["seed"] for d in suite["databases"]] == [1, 2]
    assert record["level"] == {"name": "suite", "databases": 3}  # the fixture and 2 generated
    if fixture_match and not suite_match:  # differs only on generated data: database 1 shows it
        first, second = suite["databases"]
        assert first["match"] is True
        assert second["match"] is False and second["reason"] == "row_count"
        assert suite["first_failure"] == 1
    summary = summarize([record])
    assert summary["overall"]["ts_items"] == 1
    assert summary["overall"]["acc_ts"] == (100.0 if suite_match else 0.0)
    assert summary["suite_cost"]["databases"] == 2


# a translation without SQL to run: it fails Acc_TS and stays in TS n (it used to leave TS n)
NO_SQL = [
    Translation(TranslationStatus.UNSUPPORTED, error="not supported"),
    Translation(TranslationStatus.ERROR, error="translator crashed"),
]


@pytest.mark.parametrize("translation", NO_SQL, ids=lambda t: t.status.value)
def test_untranslated_items_count_in_ts_n(dataset_dir: Path, translation: Translation) -> None:
    item = load_dataset(str(dataset_dir), count_tokens=False).items[0]
    with closing(Judge(suite_dir=dataset_dir)) as judge:
        record = judge.judge(item, translation)
    assert record["suite"]["match"] is False and record["suite"]["judged"] == 0
    assert record["level"] == {"name": "fixture", "databases": 1}  # no SQL ran on the suite
    overall = summarize([record])["overall"]
    assert (overall["ts_items"], overall["ts"]) == (1, 0)


def test_cli_suite_switch(dataset_dir: Path, tmp_path: Path) -> None:
    """On by default when the dataset has suites; --no-suite leaves records without one."""
    for flag, expect in (([], True), (["--no-suite"], False)):
        out = tmp_path / f"run{len(flag)}"
        code = main(
            [
                "--model",
                "reference",
                "--dataset",
                str(dataset_dir),
                "--quiet",
                "--output-dir",
                str(out),
                *flag,
            ]
        )
        assert code == 0
        (record,) = read_results(out)
        assert ("suite" in record) is expect
        summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
        assert summary["overall"]["acc_ts"] == (100.0 if expect else None)


# (source, translation, expected substring of the strict verdict's detail or notes)
VERDICT_CASES = [
    ("SELECT id FROM no_such_table", "SELECT 1", "no such table"),  # gold error says why
    ("SELECT id FROM customers ORDER BY id", "SELECT id FROM customers", "no top-level ORDER BY"),
    (
        "SELECT DISTINCT name FROM customers ORDER BY upper(name)",  # keys not computable
        "SELECT DISTINCT name FROM customers ORDER BY upper(name)",
        "could not be computed",
    ),
]


@pytest.mark.parametrize(("source", "sql", "expected"), VERDICT_CASES)
def test_verdict_explains(dataset_dir: Path, source: str, sql: str, expected: str) -> None:
    item = dataclasses.replace(
        load_dataset(str(dataset_dir), count_tokens=False).items[0], source_sql=source
    )
    with closing(Judge()) as judge:
        strict = judge.judge(item, Translation(TranslationStatus.OK, sql=sql))["verdicts"]["strict"]
    assert expected in strict["detail"] + " ".join(strict["notes"])


@pytest.mark.server
def test_database_qualified_names_reach_every_suite_database(tmp_path: Path) -> None:
    """MariaDB: `FROM shop.customers` names the item's fixture *and* each suite database, which
    the generator names otherwise (ts0-r1, ...)."""
    from parrot.servers import stopping_started

    loaded = _with_suite(tmp_path, "t-qualified", "mysql", renamed=True)
    with stopping_started(), closing(Judge(timeout=60, start=True, suite_dir=tmp_path)) as judge:
        sql = "SELECT id, name FROM shop.customers WHERE id > 0 ORDER BY id"
        record = judge.judge(loaded, Translation(TranslationStatus.OK, sql=sql))
    if record["pred"]["status"] == "no_engine":
        pytest.skip(f"no mysql engine here: {record['pred'].get('error')}")
    assert record["verdicts"]["strict"]["match"], record["verdicts"]["strict"]
    assert record["suite"]["match"] and record["suite"]["judged"] == 2, record["suite"]


@pytest.mark.slow  # a whole `parrot eval` run and two reports
def test_differs_only_on_generated_data_end_to_end(dataset_dir: Path, tmp_path: Path) -> None:
    """A translation that differs from its source only on a suite database fails Acc_TS, not
    Acc_RES, and results.jsonl, the summary and the report (md, html) name that database, its
    first differing cell and the reason."""
    from parrot.report.cli import main as report_main

    sql = (
        "SELECT id, CASE WHEN id = 5000 THEN 'x' ELSE name END AS name FROM customers "
        "WHERE id > 0 ORDER BY id"
    )  # customer 5000 exists only in suite database 1
    predictions = tmp_path / "predictions.jsonl"
    predictions.write_text(
        json.dumps({"id": "t-customers", "translated_sql": sql}) + "\n", encoding="utf-8"
    )
    out = tmp_path / "run"
    assert (
        main(
            [
                "--model",
                f"file:{predictions}",
                "--dataset",
                str(dataset_dir),
                "--quiet",
                "--output-dir",
                str(out),
            ]
        )
        == 0
    )
    (record,) = read_results(out)
    assert record["verdicts"]["strict"]["match"] is True
    failed = record["suite"]["databases"][record["suite"]["first_failure"]]
    assert (failed["index"], failed["seed"], failed["reason"]) == (1, 2, "value")
    assert failed["cell"]["column"] == 1 and failed["cell"]["pred"] == "x"
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["overall"]["acc_strict"] == 100.0 and summary["overall"]["acc_ts"] == 0.0
    assert [(f["id"], f["seed"], f["reason"]) for f in summary["suite_only"]] == [
        ("t-customers", 2, "value")
    ]
    md = tmp_path / "report.md"
    assert report_main([str(out), "--format", "md", "-o", str(md)]) == 0
    row = next(
        line
        for line in md.read_text(encoding="utf-8").splitlines()
        if line.startswith("| t-customers |")
    )
    assert "| sqlite→sqlite | 1 | 2 | value |" in row and " vs x |" in row
    html = tmp_path / "report.html"
    assert report_main([str(out), "--format", "html", "-o", str(html)]) == 0
    assert "Passed on the fixture, failed on the suite (1 items)" in html.read_text("utf-8")
