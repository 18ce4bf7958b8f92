"""A suite database's fixture is renamed (as its item's fixture) once per run, not per judged
translation: its content hash and checksums — a JSON dump and a SHA-256 of every row — are then
computed once (issue 31: suite cost per database)."""

from __future__ import annotations

from contextlib import closing
from pathlib import Path

from test_suite_eval import SOURCE, _with_suite

from parrot import fixtures
from parrot.datasets import load_dataset
from parrot.eval.judge import Judge
from parrot.translators.base import Translation, TranslationStatus


def test_suite_fixtures_are_hashed_once_per_run(tmp_path: Path, monkeypatch) -> None:
    _with_suite(tmp_path, "t-customers", "sqlite", renamed=True)
    item = load_dataset(str(tmp_path), count_tokens=False).items[0]
    hashed: list[str] = []
    real = fixtures.fixture_to_json

    def counted(fixture):
        hashed.append(fixture.name)
        return real(fixture)

    monkeypatch.setattr(fixtures, "fixture_to_json", counted)
    with closing(Judge(suite_dir=tmp_path)) as judge:
        first = judge.judge(item, Translation(TranslationStatus.OK, sql=SOURCE))
        before = len(hashed)
        second = judge.judge(item, Translation(TranslationStatus.OK, sql=SOURCE + " "))
    assert first["suite"]["match"] is True and second["suite"]["match"] is True
    assert [d["seed"] for d in second["suite"]["databases"]] == [1, 2]
    assert len(hashed) == before  # was once per suite database on every judged translation


def test_suite_databases_carry_the_items_fixture_name(tmp_path: Path) -> None:
    _with_suite(tmp_path, "t-customers", "sqlite", renamed=True)  # stored as ts0-r1, ts0-r2
    item = load_dataset(str(tmp_path), count_tokens=False).items[0]
    assert item.fixture is not None
    with closing(Judge(suite_dir=tmp_path)) as judge:
        suite = judge._suite(item)
    assert suite is not None
    assert {db.fixture.name for db in suite.databases} == {item.fixture.name}
