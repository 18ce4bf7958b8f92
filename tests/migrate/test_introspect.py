"""Reading SQLite, DuckDB and SQLAlchemy sources into fixtures that every engine loads."""

from __future__ import annotations

import sqlite3
from decimal import Decimal
from pathlib import Path

import duckdb
import pytest
from migrate_helpers import make_sqlite

from parrot.connect import create_engine
from parrot.fixtures import fixture_from_json
from parrot.migrate import (
    ForeignKey,
    IdentifierError,
    Introspection,
    IntrospectionError,
    introspect,
    introspect_duckdb,
    introspect_sqlalchemy,
    introspect_sqlite,
    migrate,
)

EMBEDDED = ["sqlite", "duckdb", "clickhouse"]


def _types(result: Introspection, table: str) -> dict[str, str]:
    return {c.name: c.type for c in result.fixture.table(table).columns}


def test_sqlite_types_rows_and_keys(dirty_db: Path) -> None:
    result = introspect_sqlite(dirty_db)
    fx = result.fixture
    assert fx.name == "dirty"
    assert [t.name for t in fx.tables] == ["station", "weather"]  # the view is not a table
    assert _types(result, "station") == {
        "id": "integer",
        "name": "text",
        "lat": "double",
        "opened": "timestamp",
        "is_open": "text",
        "flag": "boolean",
        "price": "decimal(19,4)",
        "ratio": "decimal(2,2)",
        "odd": "text",
        "big": "bigint",
        "anything": "text",
    }
    assert _types(result, "weather") == {
        "day": "text",
        "station_id": "integer",
        "temp": "text",
        "rain": "text",
        "seen": "text",
    }
    station = fx.table("station")
    assert station.primary_key == ("id",)
    assert fx.table("weather").primary_key == ("day", "station_id")
    assert not next(c for c in station.columns if c.name == "name").nullable
    assert result.foreign_keys["weather"] == (ForeignKey(("station_id",), "station", ("id",)),)
    # values are kept exactly: text of numbers, untouched spaces and odd dates
    assert [r[1] for r in station.rows] == ["Alpha ", "Beta", " Gamma"]
    assert [r[6] for r in station.rows] == [Decimal("12.5000"), Decimal("1234.5678"), None]
    assert [r[8] for r in station.rows] == ["30", "29.97", ""]
    assert [r[10] for r in station.rows] == ["7", "x", "2.5"]
    assert [r[2:5] for r in fx.table("weather").rows] == [
        ("65", "0", "2013-08-29"),
        ("", "0.23", "2013-8-30"),
        ("70", "T", None),
        ("58", None, "0000-00-00"),
    ]
    dirty = {(c.table, c.column) for c in result.dirty}
    assert dirty == {
        ("station", "is_open"),
        ("station", "odd"),
        ("weather", "temp"),
        ("weather", "rain"),
        ("weather", "seen"),
    }
    odd = next(c for c in result.dirty if c.column == "odd")
    assert "1 of 3 value(s) do not fit a number" in odd.reason


@pytest.mark.parametrize("engine_name", EMBEDDED)
def test_dirty_fixture_loads_and_verifies(dirty_db: Path, engine_name: str) -> None:
    with create_engine(engine_name) as engine:
        m = migrate(dirty_db, engine)
        assert m.report.verified
        assert m.report.row_counts == {"station": 3, "weather": 4}


def test_json_form_round_trips_with_foreign_keys(dirty_db: Path) -> None:
    result = introspect_sqlite(dirty_db)
    data = result.to_json()
    assert data["tables"][1]["foreign_keys"] == [
        {"columns": ["station_id"], "references": "station", "ref_columns": ["id"]}
    ]
    assert fixture_from_json(data).content_hash == result.fixture.content_hash
    again = Introspection.from_json(data)
    assert again.foreign_keys == result.foreign_keys and again.columns == result.columns


def test_sqlalchemy_path_on_a_sqlite_url_matches_the_direct_reader(dirty_db: Path) -> None:
    direct = introspect_sqlite(dirty_db)
    via = introspect_sqlalchemy(f"sqlite:///{dirty_db}")
    assert via.fixture.content_hash == direct.fixture.content_hash
    assert via.foreign_keys == direct.foreign_keys
    assert introspect(f"sqlite:///{dirty_db}").fixture.content_hash == direct.fixture.content_hash


def test_sqlalchemy_engine_object_and_table_subset(dirty_db: Path) -> None:
    import sqlalchemy as sa

    engine = sa.create_engine(f"sqlite:///{dirty_db}")
    try:
        result = introspect(engine, name="only_station", tables=["station"])
    finally:
        engine.dispose()
    assert [t.name for t in result.fixture.tables] == ["station"]
    assert result.fixture.name == "only_station"


def test_duckdb_file_and_connection(tmp_path: Path) -> None:
    path = tmp_path / "src.duckdb"
    con = duckdb.connect(str(path))
    con.execute(
        "CREATE TABLE a (id INTEGER PRIMARY KEY, amount DECIMAL(10,2) NOT NULL, "
        "seen TIMESTAMP, d DATE, ok BOOLEAN, tags VARCHAR[], tz TIMESTAMPTZ, f FLOAT)"
    )
    con.execute("CREATE TABLE b (a_id INTEGER REFERENCES a(id), note VARCHAR)")
    con.execute(
        "INSERT INTO a VALUES (1, 9.5, '2024-01-05 10:00:00.123456', '2024-01-05', true,"
        " ['x', 'y'], '2024-01-05 10:00:00+00', 0.1), "
        "(2, -0.25, NULL, NULL, NULL, NULL, NULL, NULL)"
    )
    con.execute("INSERT INTO b VALUES (1, 'n'), (NULL, NULL)")
    con.close()
    result = introspect(path)  # told apart from SQLite by its header
    assert _types(result, "a") == {
        "id": "integer",
        "amount": "decimal(10,2)",
        "seen": "timestamp",
        "d": "date",
        "ok": "boolean",
        "tags": "text",
        "tz": "text",
        "f": "double",
    }
    a = result.fixture.table("a")
    assert a.primary_key == ("id",)
    assert a.rows[0][1] == Decimal("9.50") and a.rows[0][5] == "[x, y]"
    assert a.rows[0][7] == pytest.approx(0.1, rel=1e-7)
    assert result.foreign_keys["b"] == (ForeignKey(("a_id",), "a", ("id",)),)
    assert {c.column for c in result.dirty} == {"tags", "tz"}
    with duckdb.connect(str(path), read_only=True) as live:
        assert (
            introspect_duckdb(live, name="src").fixture.content_hash == result.fixture.content_hash
        )
    assert introspect(f"duckdb:///{path}").fixture.content_hash == result.fixture.content_hash


def test_duckdb_blob_columns_are_refused(tmp_path: Path) -> None:
    con = duckdb.connect(":memory:")
    con.execute("CREATE TABLE t (b BLOB)")
    with pytest.raises(IntrospectionError, match="binary"):
        introspect_duckdb(con)


def test_sqlite_connection_source() -> None:
    con = sqlite3.connect(":memory:")
    con.execute("CREATE TABLE t (x INT)")
    con.execute("INSERT INTO t VALUES (1)")
    assert introspect(con, name="mem").fixture.table("t").rows == ((1,),)


def test_sqlite_blobs_are_refused(tmp_path: Path) -> None:
    path = make_sqlite(tmp_path / "b.sqlite", "CREATE TABLE t (b BLOB);", {"t": [(b"\x00",)]})
    with pytest.raises(IntrospectionError, match=r"t\.b: binary"):
        introspect_sqlite(path)


def test_names_that_need_quoting_are_kept_exactly(tmp_path: Path) -> None:
    path = make_sqlite(
        tmp_path / "quoted.sqlite",
        'CREATE TABLE "Odd Table" ("Home Town" TEXT, "18_49" REAL, "%x(y)" INT);',
        {"Odd Table": [("Paris", 1.5, 3)]},
    )
    fx = introspect_sqlite(path).fixture
    assert fx.table("Odd Table").column_names == ("Home Town", "18_49", "%x(y)")
    assert fx.table("Odd Table").rows == (("Paris", 1.5, 3),)


def test_unusable_names_are_all_named(tmp_path: Path) -> None:
    path = make_sqlite(
        tmp_path / "odd.sqlite", 'CREATE TABLE "a.b" ("x;y" TEXT, " pad" REAL, ok INT);', {}
    )
    with pytest.raises(IdentifierError) as err:
        introspect_sqlite(path)
    assert err.value.names == [
        "'a.b' contains '.'",
        "'a.b.x;y' contains ';'",
        "'a.b. pad' has leading or trailing space",
    ]


def test_errors_for_missing_or_foreign_files(tmp_path: Path) -> None:
    with pytest.raises(IntrospectionError, match="no such database file"):
        introspect(tmp_path / "missing.sqlite")
    other = tmp_path / "x.txt"
    other.write_text("hello, not a database")
    with pytest.raises(IntrospectionError, match="neither a SQLite nor a DuckDB"):
        introspect(other)
    empty = make_sqlite(tmp_path / "empty.sqlite", "", {})
    with pytest.raises(IntrospectionError, match="no tables"):
        introspect(empty)
    with pytest.raises(IntrospectionError, match="no table"):
        introspect_sqlite(
            make_sqlite(tmp_path / "t.sqlite", "CREATE TABLE t (x INT);", {}), tables=["nope"]
        )


def test_migrate_by_dialect_name_creates_the_engine(dirty_db: Path) -> None:
    m = migrate(dirty_db, "sqlite", name="renamed")
    try:
        assert m.fixture.name == "renamed" and m.report.verified
        assert m.engine.execute("SELECT count(*) FROM weather", m.fixture).result.rows == ((4,),)
    finally:
        m.engine.close()
