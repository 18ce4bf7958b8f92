"""The named-fixture catalogue on a small corpus built here: names, errors, the disk cache."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest
from migrate_helpers import DIRTY_ROWS, DIRTY_SCRIPT, make_sqlite

from parrot.fixtures import FixtureError
from parrot.migrate import named


@pytest.fixture
def corpus(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "corpora"
    for db_id in ("shop", "zoo"):
        folder = root / "sqlite" / "spider" / db_id
        folder.mkdir(parents=True)
        make_sqlite(folder / f"{db_id}.sqlite", DIRTY_SCRIPT, DIRTY_ROWS)
    odd = root / "sqlite" / "spider" / "odd"
    odd.mkdir()
    make_sqlite(odd / "odd.sqlite", 'CREATE TABLE people ("home.town" TEXT);', {})
    (root / "sqlite" / "spider" / "notes.json").write_text("{}")  # not a database folder
    (root / "sqlite" / "text2sql-data").mkdir()
    make_sqlite(root / "sqlite" / "text2sql-data" / "geo.sqlite", DIRTY_SCRIPT, DIRTY_ROWS)
    monkeypatch.setenv("PARROT_CORPORA", str(root))
    named.clear_memo()
    return root


def test_available_and_unavailable_names(corpus: Path) -> None:
    names = named.available_named()
    assert [n for n in names if n.startswith("spider/")] == ["spider/shop", "spider/zoo"]
    assert ("tpch" in names) == named.tpch_available()
    assert "'people.home.town' contains '.'" in named.unavailable_named()["spider/odd"]


def test_named_fixture_resolves_and_is_memoised(corpus: Path) -> None:
    fx = named.named_fixture("spider/shop")
    assert fx.name == "spider/shop"
    assert [t.name for t in fx.tables] == ["station", "weather"]
    assert named.named_fixture("spider/shop") is fx
    result = named.named_introspection("spider/shop")
    assert result.foreign_keys["weather"][0].ref_table == "station"
    assert result.dirty


def test_text2sql_databases_have_upper_case_table_names(corpus: Path) -> None:
    """GeoQuery's SQL writes ``FROM CITY``: it ran on a MySQL that ignored table-name case."""
    assert "text2sql/geo" in named.available_named()
    result = named.named_introspection("text2sql/geo")
    spider = named.named_introspection("spider/shop")
    assert [t.name for t in result.fixture.tables] == ["STATION", "WEATHER"]
    assert [c.name for c in result.fixture.tables[0].columns] == [
        c.name for c in spider.fixture.tables[0].columns
    ]  # columns as the file has them
    assert result.foreign_keys["WEATHER"][0].ref_table == "STATION"
    assert {c.table for c in result.columns} == {"STATION", "WEATHER"}
    with pytest.raises(FixtureError, match="unknown named fixture 'text2sql/nope'"):
        named.named_fixture("text2sql/nope")


def test_disk_cache_is_written_read_and_repaired(corpus: Path) -> None:
    first = named.named_fixture("spider/zoo")
    files = list(named.fixtures_cache_dir().glob("spider_zoo-*.json.gz"))
    assert len(files) == 1
    named.clear_memo()
    again = named.named_fixture("spider/zoo")
    assert again is not first and again.content_hash == first.content_hash
    files[0].write_bytes(gzip.compress(b'{"name": "spider/zoo", "tables": []}'))  # corrupt
    named.clear_memo()
    assert named.named_fixture("spider/zoo").content_hash == first.content_hash
    assert named.named_fixture("spider/zoo", refresh=True).content_hash == first.content_hash


def test_a_changed_source_misses_the_cache(corpus: Path) -> None:
    before = named.named_fixture("spider/shop")
    path = named.spider_path("shop")
    make_sqlite(path, "", {"weather": [("9/2/2013", 1, 1, 1, None)]})
    after = named.named_fixture("spider/shop")
    assert len(after.table("weather").rows) == len(before.table("weather").rows) + 1


def test_unknown_names_list_available_ones(corpus: Path) -> None:
    with pytest.raises(FixtureError, match=r"unknown named fixture 'spider/nope'.*spider/shop"):
        named.named_fixture("spider/nope")
    with pytest.raises(FixtureError, match="unknown named fixture 'whatever'"):
        named.named_fixture("whatever")
    with pytest.raises(FixtureError, match="the fixture format cannot hold"):
        named.named_fixture("spider/odd")
    with pytest.raises(FixtureError, match="scale factor"):
        named.named_fixture("tpch-sf100")


def test_without_corpora_there_are_no_spider_names(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PARROT_CORPORA", str(tmp_path / "absent"))
    assert not [n for n in named.available_named() if n.startswith("spider/")]
    with pytest.raises(FixtureError, match=r"no Spider corpus at .*PARROT_CORPORA"):
        named.named_fixture("spider/concert_singer")


def test_default_corpora_root_is_beside_the_repository(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PARROT_CORPORA", raising=False)
    repo = Path(named.__file__).resolve().parents[2]
    assert named.corpora_root() == repo.parent / "shared" / "corpora"


def test_a_wheel_install_has_no_corpora_folder_inside_its_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Installed from a wheel, parrot's code lives in site-packages: the default was
    ``<venv>/lib/python3.X/shared/corpora``, a folder inside the virtual environment."""
    venv = tmp_path / "venv"
    site = venv / "lib" / "python3.13" / "site-packages"
    monkeypatch.setattr(named, "__file__", str(site / "parrot" / "migrate" / "named.py"))
    monkeypatch.delenv("PARROT_CORPORA", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    assert named.corpora_root() == tmp_path / "data" / "parrot" / "corpora"
    monkeypatch.delenv("XDG_DATA_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    root = named.corpora_root()
    assert root == tmp_path / "home" / ".local" / "share" / "parrot" / "corpora"
    assert venv not in root.parents
    monkeypatch.setenv("PARROT_CORPORA", str(tmp_path / "mine"))
    assert named.corpora_root() == tmp_path / "mine"
