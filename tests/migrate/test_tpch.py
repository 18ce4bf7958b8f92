"""TPC-H generated offline by DuckDB's tpch extension wheel (loading it on every engine is tested
in ``tests/engines/test_engine_named.py``)."""

from __future__ import annotations

from decimal import Decimal

import pytest

from parrot.migrate import named

pytestmark = pytest.mark.skipif(
    not named.tpch_available(), reason="duckdb-extension-tpch is not installed"
)

TABLES = ["region", "nation", "supplier", "customer", "part", "partsupp", "orders", "lineitem"]


def test_tpch_schema() -> None:
    result = named.named_introspection("tpch-sf0.001")
    fx = result.fixture
    assert sorted(t.name for t in fx.tables) == sorted(TABLES)
    lineitem = fx.table("lineitem")
    types = {c.name: c.type for c in lineitem.columns}
    assert types["l_extendedprice"] == "decimal(15,2)" and types["l_shipdate"] == "date"
    assert types["l_orderkey"] == "bigint" and types["l_comment"] == "text"
    assert all(not c.nullable for t in fx.tables for c in t.columns)
    assert lineitem.primary_key == ("l_orderkey", "l_linenumber")
    assert fx.table("partsupp").primary_key == ()  # dbgen repeats its keys below sf 0.01
    assert isinstance(lineitem.rows[0][5], Decimal)
    assert {fk.ref_table for fk in result.foreign_keys["lineitem"]} == {"orders", "partsupp"}
    assert not result.dirty
    assert len(fx.table("region").rows) == 5 and len(fx.table("nation").rows) == 25


def test_tpch_is_deterministic() -> None:
    first = named.named_fixture("tpch-sf0.001")
    named.clear_memo()
    assert (
        named.tpch_introspection(0.001, name="tpch-sf0.001").fixture.content_hash
        == first.content_hash
    )
