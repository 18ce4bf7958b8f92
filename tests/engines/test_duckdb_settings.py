"""DuckDB checks its global settings only after a statement that could change one (issue 31: the
check cost 4× a one-row query on every execution); no translation changes a setting for the next
item, whatever statement kind it hides the change in."""

from __future__ import annotations

import pytest
from engine_fixtures import SHOP

from parrot.engines.duckdb import DuckDBEngine

SETTINGS = "SELECT name, value FROM duckdb_settings() ORDER BY name"

# each a statement kind that can reach the configuration; every one must leave it as it was
CHANGES = [
    "SET threads = 1",
    "SET GLOBAL TimeZone = 'Asia/Tokyo'",
    "SET default_null_order = 'nulls_first'",
    "RESET TimeZone",
    "RESET ALL",
    "PRAGMA threads = 1",
    "PRAGMA enable_object_cache",
    "SET VARIABLE parrot_v = 1",
    "USE memory",
    "CALL pragma_version()",
    "PREPARE parrot_p AS SELECT 1; EXECUTE parrot_p",
    "SELECT 1; SET GLOBAL memory_limit = '1GB'",
    "CREATE MACRO parrot_m() AS 1; SELECT parrot_m()",
]


@pytest.fixture(scope="module")
def engine():
    e = DuckDBEngine()  # in-process: the adapter itself, no worker
    e.load(SHOP)
    yield e
    e.close()


@pytest.mark.parametrize("sql", CHANGES)
def test_no_statement_changes_a_setting_for_the_next_item(engine, sql):
    before = engine.execute(SETTINGS, SHOP)
    assert before.ok and before.result is not None and before.result.rows, before
    engine.execute(sql, SHOP)
    after = engine.execute(SETTINGS, SHOP)
    assert after.ok and after.result == before.result
