"""Materialising portable fixtures: faithful round trips, caching, mismatch detection."""

from __future__ import annotations

import math
from decimal import Decimal
from typing import Any

import pytest
from engine_fixtures import (
    ALLTYPES,
    SHOP,
    SPECIAL_FLOATS,
    WIDE_DECIMALS,
    col,
    make_fixture,
)

from parrot.engines import Engine, ExecStatus, FixtureLoadError, engine_class
from parrot.engines.base import TypeMap
from parrot.fixtures import Fixture, table_checksum
from parrot.values import Temporal, family


def _select_all(engine: Engine, fixture: Fixture, table: str, order: str) -> tuple:
    cols = ", ".join(fixture.table(table).column_names)
    ex = engine.execute(f"SELECT {cols} FROM {table} ORDER BY {order}", fixture)
    assert ex.status is ExecStatus.OK, ex.error
    assert ex.result is not None
    return ex.result.rows


@pytest.mark.parametrize("fixture", [ALLTYPES, SHOP], ids=lambda f: f.name)
@pytest.mark.notimpl(
    ["mysql"],
    raises=AssertionError,
    params={"fixture": [ALLTYPES]},
    reason="DEC is a reserved word in MySQL: the unquoted column is a syntax error",
)
def test_load_verifies_and_round_trips(engine: Engine, fixture: Fixture) -> None:
    report = engine.load(fixture)
    assert report.verified
    assert report.checksums == fixture.checksums
    assert report.row_counts == {t.name: len(t.rows) for t in fixture.tables}
    assert engine.checksums(fixture) == fixture.checksums
    for table in fixture.tables:  # the execute() path returns the same content
        ex = engine.execute(f"SELECT {', '.join(table.column_names)} FROM {table.name}", fixture)
        assert ex.ok, ex.error
        assert ex.result is not None
        assert table_checksum(table, ex.result.rows) == fixture.checksums[table.name]


@pytest.mark.notimpl(
    ["mysql"],
    raises=AssertionError,
    reason="DEC is a reserved word in MySQL (the unquoted column is a syntax "
    "error); BOOLEAN is TINYINT(1): true/false come back as 1/0",
)
def test_values_come_back_canonical(engine_name: str, engine: Engine) -> None:
    rows = _select_all(engine, ALLTYPES, "t", "id")
    assert [r[0] for r in rows] == [1, 2, 3, 4, 5, 6]
    assert all(v is None for v in rows[4][1:])  # NULLs stay NULL (never 0 or '')
    assert rows[1][6] == "ünïcødé ✓ 数据 🦜"
    assert rows[2][6] == ""  # empty string, not NULL
    assert rows[3][6] == "trailing  "  # trailing spaces kept
    assert rows[5][6] == "quote ' and \" and \\ and \t tab\nnewline"
    assert rows[0][2] == 9223372036854775807
    assert rows[1][3] == -1.5e-300
    for row in rows:
        assert all(family(v) in ("null", "boolean", "number", "string", "temporal") for v in row)
    if engine_name == "sqlite":  # SQLite hands back its stand-ins
        assert rows[0][7] == 1 and rows[1][7] == 0
        assert rows[1][8] == "1900-01-01"
        assert rows[1][9] == "1900-01-01 00:00:00.000001"
        assert rows[3][4] == -0.5
    else:
        assert rows[0][7] is True and rows[1][7] is False
        assert rows[1][8] == Temporal("date", "1900-01-01")
        assert rows[2][8] == Temporal("date", "2099-12-31")
        assert rows[1][9] == Temporal("timestamp", "1900-01-01 00:00:00.000001")
        assert rows[2][9] == Temporal("timestamp", "2099-12-31 23:59:59.999999")
        assert rows[3][9] == Temporal("timestamp", "2024-01-05 10:00:00.5")
        assert rows[3][4] == Decimal("-0.50") and str(rows[3][4]) == "-0.50"  # scale kept
        assert rows[1][5] == Decimal("-12345.0123456789")
        assert rows[2][5] == Decimal("0.0000000001")


@pytest.mark.notimpl(
    ["sqlite"],
    raises=FixtureLoadError,
    reason="SQLite stores NaN as NULL and loses the sign of -0.0",
)
@pytest.mark.notimpl(
    ["mysql"], raises=FixtureLoadError, reason="MySQL DOUBLE cannot hold NaN or infinities"
)
def test_special_floats_round_trip(engine_name: str, engine: Engine) -> None:
    assert engine.load(SPECIAL_FLOATS).verified
    rows = _select_all(engine, SPECIAL_FLOATS, "f", "id")
    assert math.isnan(rows[0][1])
    assert rows[1][1] == math.inf and rows[2][1] == -math.inf
    assert rows[3][1] == 0.30000000000000004
    assert rows[4][1] == 5e-324
    assert math.copysign(1.0, rows[5][1]) == -1.0


@pytest.mark.notimpl(
    ["sqlite"],
    raises=FixtureLoadError,
    reason="SQLite DECIMAL has NUMERIC affinity: 15-16 significant digits",
)
def test_wide_decimals_round_trip(engine_name: str, engine: Engine) -> None:
    assert engine.load(WIDE_DECIMALS).verified
    rows = _select_all(engine, WIDE_DECIMALS, "w", "id")
    assert rows[0][1] == Decimal("-123456789012345678.0123456789")


def test_second_load_is_cached(fresh_engine: Engine) -> None:
    first = fresh_engine.load(SHOP)
    second = fresh_engine.load(SHOP)
    assert not first.cached and second.cached
    assert second.checksums == first.checksums and second.verified


def test_in_process_engine_keeps_its_recent_fixtures_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """Regression: DuckDB kept every fixture it ever loaded (a database instance each, with its
    own threads), and a curation run's later loads failed with "can't start new thread"."""
    from parrot.engines.duckdb import DuckDBEngine

    monkeypatch.setattr(DuckDBEngine, "keep", 2)
    fixtures = [
        make_fixture(f"k{i}", [{"name": "t", "columns": [col("v", "integer")], "rows": [[i]]}])
        for i in range(4)
    ]
    with DuckDBEngine() as engine:
        for fx in fixtures[:3]:
            engine.load(fx)
        assert engine.load(fixtures[1]).cached  # used last but one: kept, now the most recent
        engine.load(fixtures[3])
        assert len(engine._stored) == 2  # fixtures 0 and 2 discarded, oldest use first
        assert engine.load(fixtures[1]).cached and engine.load(fixtures[3]).cached
        ex = engine.execute("SELECT v FROM t", fixtures[0])  # rebuilt on use
        assert ex.ok and ex.result is not None and ex.result.rows == ((0,),)


def test_execute_loads_on_demand(fresh_engine: Engine) -> None:
    ex = fresh_engine.execute("SELECT count(*) FROM customers", SHOP)
    assert ex.ok, ex.error
    assert fresh_engine.load(SHOP).cached


# values an engine cannot store faithfully. DuckDB and ClickHouse (26.9: Date32/DateTime64 span
# 0001-01-01 ... 9999-12-31) store every portable value; their check is the corruption test below.
LOSSY = [
    ("sqlite", "double", "nan"),  # becomes NULL
    ("sqlite", "decimal(30,2)", "1234567890123456789.25"),  # becomes a double
]


@pytest.mark.parametrize(("engine_name", "ptype", "value"), LOSSY, indirect=["engine_name"])
def test_unfaithful_load_is_reported(fresh_engine: Engine, ptype: str, value: str) -> None:
    fixture = make_fixture(
        "lossy",
        [
            {
                "name": "x",
                "columns": [col("id", "integer", False), col("v", ptype)],
                "rows": [[1, value], [2, None]],
            }
        ],
    )
    with pytest.raises(FixtureLoadError, match=r"x: checksum .*declared but not stored"):
        fresh_engine.load(fixture)
    with pytest.raises(FixtureLoadError):  # a failed load is not cached
        fresh_engine.load(fixture)


@pytest.mark.parametrize("engine_name", ["duckdb", "clickhouse", "spark"], indirect=True)
def test_value_out_of_type_range_is_a_load_error(fresh_engine: Engine) -> None:
    fixture = make_fixture(
        "overflow", [{"name": "x", "columns": [col("v", "integer")], "rows": [[2**40]]}]
    )
    with pytest.raises(FixtureLoadError):
        fresh_engine.load(fixture)


def _corrupt(engine: Engine, fixture: Fixture) -> None:
    """Change a stored value behind the adapter's back, through its internal connection."""
    name = type(engine).name
    if name == "sqlite":
        engine.stored(fixture).execute(  # type: ignore[attr-defined]
            "UPDATE customers SET name = 'Eve' WHERE id = 1"
        )
    elif name == "duckdb":
        engine.stored(fixture).con.execute(  # type: ignore[attr-defined]
            "UPDATE customers SET name = 'Eve' WHERE id = 1"
        )
    elif name == "postgres":
        # one materialisation per server, shared by all instances: change it only inside an
        # open transaction of this adapter's admin connection (rolled back when it closes)
        admin = engine._admin_conn()  # type: ignore[attr-defined]
        schema = engine.schema(fixture)  # type: ignore[attr-defined]
        admin.execute("BEGIN")
        admin.execute(f"UPDATE \"{schema}\".customers SET name = 'Eve' WHERE id = 1")
    elif name == "mysql":
        db = engine.stored(fixture).database  # type: ignore[attr-defined]
        engine._admin_sql(  # type: ignore[attr-defined]
            f"UPDATE `{db}`.customers SET name = 'Eve' WHERE id = 1"
        )
    elif name == "spark":  # stored DataFrames are immutable: replace the stored one
        frames = engine.stored(fixture).frames  # type: ignore[attr-defined]
        frames["customers"] = frames["customers"].selectExpr(
            "id", "CASE WHEN id = 1 THEN 'Eve' ELSE name END AS name", "city"
        )
    else:
        db = engine.stored(fixture).database  # type: ignore[attr-defined]
        engine._admin.query(  # type: ignore[attr-defined]
            f"ALTER TABLE `{db}`.customers UPDATE name = 'Eve' WHERE id = 1 "
            "SETTINGS mutations_sync = 1"
        )


def test_direct_corruption_changes_checksums(fresh_engine: Engine) -> None:
    fresh_engine.load(SHOP)
    assert fresh_engine.checksums(SHOP) == SHOP.checksums
    _corrupt(fresh_engine, SHOP)
    after = fresh_engine.checksums(SHOP)
    assert after["customers"] != SHOP.checksums["customers"]
    assert after["orders"] == SHOP.checksums["orders"]


@pytest.mark.notimpl(
    ["mysql"],
    raises=AssertionError,
    reason="one database per fixture per server, shared by all instances "
    "(a changed one is dropped and reloaded when an instance closes)",
)
def test_instances_do_not_share_fixtures(engine_name: str, servers: Any) -> None:
    cls = engine_class(engine_name)
    url = () if cls.url_schemes is None else (servers.url(cls.dialect),)  # skips with no server
    a, b = cls(*url), cls(*url)
    try:
        a.load(SHOP)
        b.load(SHOP)
        _corrupt(a, SHOP)
        assert b.checksums(SHOP) == SHOP.checksums
        a.close()
        assert b.execute("SELECT count(*) FROM orders", SHOP).ok
    finally:
        a.close()
        b.close()


def test_label_and_version(engine_name: str, engine: Engine) -> None:
    assert engine.version()
    assert engine.label.startswith(engine_name)
    if engine_name == "clickhouse":
        assert engine.label.startswith("clickhouse (chdb ")
        assert ", ClickHouse " in engine.label


def test_capabilities_are_declared(engine_name: str) -> None:
    caps = engine_class(engine_name).capabilities
    assert caps.decimals == (engine_name != "sqlite")
    assert caps.transactional_ddl == (engine_name not in ("clickhouse", "mysql", "spark"))
    assert caps.booleans == (engine_name in ("duckdb", "postgres", "spark"))


def test_standard_type_map_overrides_only_portable_types() -> None:
    names = TypeMap.standard(text="TEXT").names
    assert names["text"] == "TEXT" and names["integer"] == "INTEGER"
    with pytest.raises(ValueError, match="not portable column types"):
        TypeMap.standard(txt="TEXT")
