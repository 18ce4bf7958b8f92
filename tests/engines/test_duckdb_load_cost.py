"""What a DuckDB fixture load and execution cost besides the query (issue 31: a suite database
cost 3.8× its item's fixture executions): the settings snapshot is read once per adapter, a
small fixture is filled on one thread while executions keep DuckDB's default, and the IMPORT
check splits only a text that can hold one."""

from __future__ import annotations

import dataclasses

import duckdb
import pytest
from engine_fixtures import SHOP

from parrot.engines import ExecStatus
from parrot.engines import duckdb as duckdb_adapter
from parrot.engines.duckdb import DuckDBEngine

SETTINGS = "SELECT name, value FROM duckdb_settings() ORDER BY name"


def _copy(name: str):
    return dataclasses.replace(SHOP, name=name)


def test_settings_are_read_once_per_adapter(monkeypatch):
    reads = []
    real = DuckDBEngine._settings

    def counted(con):
        reads.append(con)
        return real(con)

    monkeypatch.setattr(DuckDBEngine, "_settings", staticmethod(counted))
    engine = DuckDBEngine()
    try:
        for name in ("shop_a", "shop_b", "shop_c"):
            engine.load(_copy(name))
        assert len(reads) == 1  # was one read per database
        # the one snapshot is what each database holds: every one restores to it
        for name in ("shop_a", "shop_c"):
            engine.execute("SET GLOBAL TimeZone = 'Asia/Tokyo'", _copy(name))
            after = engine.execute("SELECT current_setting('TimeZone')", _copy(name))
            assert after.ok and after.result is not None
            assert after.result.rows == (("UTC",),)
    finally:
        engine.close()


def test_every_database_has_the_same_settings():
    engine = DuckDBEngine()
    try:
        seen = [engine.execute(SETTINGS, _copy(name)) for name in ("shop_a", "shop_b")]
        assert all(s.ok for s in seen)
        assert seen[0].result == seen[1].result
    finally:
        engine.close()


def test_a_small_fixture_executes_with_duckdbs_default_threads():
    default = duckdb.connect(":memory:")
    try:
        threads = default.execute("SELECT current_setting('threads')").fetchone()
    finally:
        default.close()
    engine = DuckDBEngine()
    try:
        got = engine.execute("SELECT current_setting('threads')", SHOP)
        assert got.ok and got.result is not None
        assert got.result.rows[0][0] == threads[0]  # filled on one thread, executed on all
    finally:
        engine.close()


@pytest.mark.parametrize(
    ("sql", "splits"),
    [
        ("SELECT 1", 0),
        ("SELECT 'a'; SELECT 2", 0),
        ("SELECT 'import'", 1),  # the word is there: split and looked at
    ],
)
def test_the_import_check_splits_only_texts_naming_import(monkeypatch, sql, splits):
    calls = []
    real = duckdb_adapter.st.splitter

    def counted(dialect):
        calls.append(dialect)
        return real(dialect)

    monkeypatch.setattr(duckdb_adapter.st, "splitter", counted)
    engine = DuckDBEngine()
    try:
        engine.load(SHOP)
        assert engine.execute(sql, SHOP).ok
        assert len(calls) == splits
    finally:
        engine.close()


@pytest.mark.parametrize(
    "sql",
    [
        "IMPORT DATABASE '/tmp'",
        "import database '/tmp'",
        "SELECT 1; Import Database '/tmp'",
        "/* x */ IMPORT DATABASE '/tmp'",
        "\u0131mport database '/tmp'",  # dotless i: upper-cases to IMPORT
    ],
)
def test_import_is_still_refused(sql):
    engine = DuckDBEngine()
    try:
        got = engine.execute(sql, SHOP)
        assert got.status is ExecStatus.UNSUPPORTED, got
    finally:
        engine.close()


@pytest.fixture
def small_cache():
    engine = DuckDBEngine()
    engine.keep = 1  # every new fixture evicts the last one
    yield engine
    engine.close()


def _con(engine: DuckDBEngine, fixture):
    return engine.stored(fixture).con


def test_an_evicted_database_is_emptied_for_the_next_fixture(small_cache):
    first = _con(small_cache, _copy("shop_a"))
    small_cache.execute(
        "CREATE TABLE leak AS SELECT 1 AS x; CREATE MACRO m() AS 1", _copy("shop_a")
    )
    small_cache.load(_copy("shop_b"))  # evicts shop_a: kept as a spare
    assert _con(small_cache, _copy("shop_c")) is first  # emptied and filled again: no connect
    tables = small_cache.execute(
        "SELECT table_name FROM duckdb_tables() ORDER BY 1", _copy("shop_c")
    )
    assert tables.ok and tables.result is not None
    assert [r[0] for r in tables.result.rows] == sorted(t.name for t in SHOP.tables)
    macro = small_cache.execute("SELECT m()", _copy("shop_c"))
    assert not macro.ok  # what an execution created was rolled back, never carried over
    refused = small_cache.execute("SET GLOBAL TimeZone = 'Asia/Tokyo'", _copy("shop_c"))
    zone = small_cache.execute("SELECT current_setting('TimeZone')", _copy("shop_c"))
    assert not refused.ok  # still configuration-locked
    assert zone.result is not None and zone.result.rows == (("UTC",),)


def test_a_spare_holding_anything_else_is_closed(small_cache):
    first = _con(small_cache, _copy("shop_a"))
    small_cache.load(_copy("shop_b"))
    first.execute("CREATE VIEW stray AS SELECT 1")  # not a table: the spare is not trusted
    assert _con(small_cache, _copy("shop_c")) is not first
    with pytest.raises(duckdb.Error):
        first.execute("SELECT 1")  # closed


def test_a_database_an_execution_broke_is_never_a_spare(small_cache):
    db = small_cache.stored(_copy("shop_a"))
    small_cache._drop(_copy("shop_a"), db)
    assert small_cache._spare == []
    with pytest.raises(duckdb.Error):
        db.con.execute("SELECT 1")
    assert _con(small_cache, _copy("shop_a")) is not db.con  # reloaded on a new database
