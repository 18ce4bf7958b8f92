"""Items whose named fixture cannot exist here (no Spider corpus) are skipped with a reason;
``strict`` / ``--strict-dataset`` keeps loading all-or-nothing."""

from __future__ import annotations

import json

import pytest
from eval_runs import run_eval

from parrot.datasets import DatasetError, load_dataset

FIXTURE = {
    "name": "t",
    "tables": [{"name": "t", "columns": [{"name": "x", "type": "integer"}], "rows": [[1]]}],
}


@pytest.fixture
def mixed(tmp_path, monkeypatch):
    empty = tmp_path / "corpora"
    empty.mkdir()
    monkeypatch.setenv("PARROT_CORPORA", str(empty))
    lines = [
        {
            "id": "plain",
            "source_dialect": "sqlite",
            "target_dialect": "duckdb",
            "source_sql": "SELECT x FROM t",
            "fixture": FIXTURE,
        },
        {
            "id": "needs-spider",
            "source_dialect": "sqlite",
            "target_dialect": "duckdb",
            "source_sql": "SELECT 1",
            "fixture": {"name": "spider/concert_singer"},
        },
    ]
    path = tmp_path / "items.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in lines))
    return path


def test_unavailable_fixture_skipped_with_reason(mixed):
    ds = load_dataset(str(mixed), strict=False)
    assert [i.id for i in ds.items] == ["plain"]
    ((item_id, reason),) = ds.skipped
    assert item_id == "needs-spider" and "PARROT_CORPORA" in reason


def test_strict_load_fails_on_unavailable_fixture(mixed):
    with pytest.raises(DatasetError, match="PARROT_CORPORA"):
        load_dataset(str(mixed))


def test_unknown_fixture_name_is_still_an_error(mixed):
    text = mixed.read_text().replace("spider/concert_singer", "no_such_fixture")
    mixed.write_text(text)
    with pytest.raises(DatasetError, match="no_such_fixture"):
        load_dataset(str(mixed), strict=False)


def test_eval_runs_what_it_can_and_reports_the_skip(mixed, tmp_path, capsys):
    sqlglot = ["--model", "sqlglot", "--dataset", str(mixed)]
    assert run_eval(tmp_path / "run", *sqlglot) == 0
    captured = capsys.readouterr()
    out = captured.out + captured.err
    assert "skipped 1 of 2 items" in out and "PARROT_CORPORA" in out
    assert len((tmp_path / "run" / "results.jsonl").read_text().splitlines()) == 1
    assert run_eval(tmp_path / "run2", *sqlglot, "--strict-dataset") == 2
