"""Read a database into a portable :class:`~parrot.fixtures.Fixture`.

Sources: SQLite files (``sqlite3``, read-only), DuckDB files or connections (``duckdb``), and any
database SQLAlchemy reaches (reflection for the schema, the driver's raw values for the rows, so
no SQLAlchemy type processor reinterprets dirty data). Every reader produces the same neutral
description — tables with declared column types, NOT NULL flags, primary and foreign keys, and rows
of raw driver values — and :func:`build` turns it into a fixture with
:func:`parrot.migrate.infer.infer_column` (the type-inference rule is documented there).

Keys: primary keys are kept on the fixture's tables (no engine enforces them). Foreign keys are
recorded in :class:`Introspection` and in the fixture's JSON form (``"foreign_keys"`` on each
table, which :func:`parrot.fixtures.fixture_from_json` ignores) but not enforced: dirty sources
break them, and a benchmark fixture must load whatever rows the source has.

Table and column names follow the fixture format's rule (:func:`parrot.fixtures.name_problem`: any
name every engine can store quoted); a source with other names raises :class:`IdentifierError`
naming all of them.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from parrot.fixtures import Fixture, fixture_from_json, fixture_to_json, name_problem
from parrot.migrate.infer import IntrospectionError, infer_column

SQLITE_MAGIC = b"SQLite format 3\x00"
DUCKDB_MAGIC = b"DUCK"  # at offset 8 of a DuckDB database file


class IdentifierError(IntrospectionError):
    """Table or column names the portable fixture format does not accept (yet)."""

    def __init__(self, source: str, problems: list[str]):
        self.names = problems
        super().__init__(
            f"{source}: {len(problems)} table/column name(s) the fixture format "
            "cannot hold: " + "; ".join(problems)
        )


def name_problems(tables: Iterable[tuple[str, Iterable[str]]]) -> list[str]:
    """``'name' problem`` for each unusable name among ``(table, columns)`` pairs."""
    out = []
    for table, columns in tables:
        if problem := name_problem(table):
            out.append(f"{table!r} {problem}")
        out += [f"{table + '.' + c!r} {p}" for c in columns if (p := name_problem(c))]
    return out


# --- what every reader produces -------------------------------------------------------------------


@dataclass(frozen=True)
class ForeignKey:
    columns: tuple[str, ...]
    ref_table: str
    ref_columns: tuple[str, ...]  # empty: the referenced table's primary key

    def to_json(self) -> dict[str, Any]:
        return {
            "columns": list(self.columns),
            "references": self.ref_table,
            "ref_columns": list(self.ref_columns),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ForeignKey:
        return cls(tuple(data["columns"]), data["references"], tuple(data.get("ref_columns", ())))


@dataclass(frozen=True)
class RawColumn:
    name: str
    declared: str  # the source's type name
    not_null: bool = False


@dataclass
class RawTable:
    name: str
    columns: list[RawColumn]
    rows: list[tuple[Any, ...]]
    primary_key: tuple[str, ...] = ()
    foreign_keys: list[ForeignKey] = field(default_factory=list)
    notes: dict[str, str] = field(default_factory=dict)  # column -> reader's note


@dataclass(frozen=True)
class ColumnReport:
    """The portable type chosen for one column, and why when it is not the declared one."""

    table: str
    column: str
    declared: str
    type: str
    reason: str = ""
    examples: tuple[str, ...] = ()
    candidate: str = ""  # boolean/date/timestamp the values also fit (applied only by --type)

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "examples": list(self.examples)}

    @property
    def hint(self) -> str:
        """The report line for a candidate type ('' without one)."""
        if not self.candidate:
            return ""
        what = {"boolean": "all 0/1", "date": "all ISO dates", "timestamp": "all ISO timestamps"}[
            self.candidate
        ]
        return (
            f"{self.type} values are {what}: {self.candidate} candidate, kept {self.type} "
            f"(--type {self.table}.{self.column}={self.candidate} to apply)"
        )


@dataclass(frozen=True)
class Introspection:
    """A source database read into a fixture, with what the fixture format cannot carry."""

    fixture: Fixture
    source: str
    foreign_keys: dict[str, tuple[ForeignKey, ...]]
    columns: tuple[ColumnReport, ...]

    @property
    def dirty(self) -> tuple[ColumnReport, ...]:
        """Columns whose portable type is not what their declaration asks for (or altered)."""
        return tuple(c for c in self.columns if c.reason)

    @property
    def candidates(self) -> tuple[ColumnReport, ...]:
        """Columns whose values also fit a boolean, date or timestamp type."""
        return tuple(c for c in self.columns if c.candidate)

    def to_json(self) -> dict[str, Any]:
        """The fixture's JSON form plus ``source``, ``inference`` and per-table foreign keys;
        :func:`parrot.fixtures.fixture_from_json` reads it (and ignores the extras)."""
        data = fixture_to_json(self.fixture)
        for table in data["tables"]:
            table["foreign_keys"] = [
                fk.to_json() for fk in self.foreign_keys.get(table["name"], ())
            ]
        data["source"] = self.source
        data["columns"] = [c.to_json() for c in self.columns]
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Introspection:
        fixture = fixture_from_json(data)
        fks = {
            t["name"]: tuple(ForeignKey.from_json(f) for f in t.get("foreign_keys", ()))
            for t in data["tables"]
        }
        columns = tuple(
            ColumnReport(
                c["table"],
                c["column"],
                c["declared"],
                c["type"],
                c.get("reason", ""),
                tuple(c.get("examples", ())),
                c.get("candidate", ""),
            )
            for c in data.get("columns", ())
        )
        return cls(fixture, str(data.get("source", "")), fks, columns)


def build(
    name: str,
    tables: Sequence[RawTable],
    source: str,
    *,
    blank_as_null: bool = False,
    types: Mapping[str, str] | None = None,
) -> Introspection:
    """Infer portable types for raw tables and validate the result as a fixture; ``types``
    maps ``table.column`` to a forced type (:func:`parrot.migrate.infer.parse_override`)."""
    bad = name_problems((t.name, (c.name for c in t.columns)) for t in tables)
    if bad:
        raise IdentifierError(source, bad)
    if not tables:
        raise IntrospectionError(f"{source}: no tables to read")
    types = dict(types or {})
    unknown = sorted(set(types) - {f"{t.name}.{c.name}" for t in tables for c in t.columns})
    if unknown:
        raise IntrospectionError(f"{source}: --type names no such column: {', '.join(unknown)}")
    json_tables = []
    reports: list[ColumnReport] = []
    for t in tables:
        columns = []
        values_by_column: list[list[Any]] = []
        for i, col in enumerate(t.columns):
            try:
                inferred = infer_column(
                    col.declared,
                    [r[i] for r in t.rows],
                    blank_as_null=blank_as_null,
                    override=types.get(f"{t.name}.{col.name}"),
                )
            except IntrospectionError as exc:
                raise IntrospectionError(f"{source}: {t.name}.{col.name}: {exc}") from None
            nullable = not col.not_null or any(v is None for v in inferred.values)
            columns.append({"name": col.name, "type": inferred.type, "nullable": nullable})
            values_by_column.append(inferred.values)
            reason = "; ".join(r for r in (t.notes.get(col.name, ""), inferred.reason) if r)
            reports.append(
                ColumnReport(
                    t.name,
                    col.name,
                    col.declared,
                    inferred.type,
                    reason,
                    inferred.examples,
                    inferred.candidate,
                )
            )
        rows = [list(r) for r in zip(*values_by_column, strict=True)]
        json_tables.append(
            {"name": t.name, "columns": columns, "primary_key": list(t.primary_key), "rows": rows}
        )
    fixture = fixture_from_json({"name": name, "tables": json_tables})
    return Introspection(
        fixture, source, {t.name: tuple(t.foreign_keys) for t in tables}, tuple(reports)
    )


def _selected(names: Iterable[str], wanted: Sequence[str] | None, source: str) -> list[str]:
    names = list(names)
    if wanted is None:
        return names
    missing = [w for w in wanted if w not in names]
    if missing:
        raise IntrospectionError(f"{source}: no table(s) {missing} (tables: {', '.join(names)})")
    return [n for n in names if n in wanted]


# --- SQLite ---------------------------------------------------------------------------------------


def _q(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def read_sqlite(
    con: sqlite3.Connection, *, tables: Sequence[str] | None = None, source: str = "sqlite"
) -> list[RawTable]:
    """Raw tables of an open SQLite connection (views and ``sqlite_*`` tables are skipped)."""
    names = [
        r[0]
        for r in con.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' "
            "ESCAPE '\\' ORDER BY rowid"
        )
    ]
    out = []
    for name in _selected(names, tables, source):
        info = con.execute(f"PRAGMA table_info({_q(name)})").fetchall()
        columns = [RawColumn(r[1], r[2] or "", bool(r[3])) for r in info]
        pk = tuple(r[1] for r in sorted((r for r in info if r[5]), key=lambda r: r[5]))
        fks: dict[int, list[tuple[str, str | None, str]]] = {}
        for r in con.execute(f"PRAGMA foreign_key_list({_q(name)})"):
            fks.setdefault(r[0], []).append((r[2], r[4], r[3]))  # (ref table, to, from)
        foreign = [
            ForeignKey(
                tuple(p[2] for p in parts),
                parts[0][0],
                tuple(p[1] or "" for p in parts) if all(p[1] for p in parts) else (),
            )
            for _, parts in sorted(fks.items())
        ]
        cols = ", ".join(_q(c.name) for c in columns)
        try:
            rows = con.execute(f"SELECT {cols} FROM {_q(name)}").fetchall()
        except sqlite3.OperationalError as exc:  # e.g. text that is not UTF-8
            raise IntrospectionError(f"{source}: cannot read table {name!r}: {exc}") from None
        out.append(RawTable(name, columns, rows, pk, foreign))
    return out


def introspect_sqlite(
    path: str | Path,
    *,
    name: str | None = None,
    tables: Sequence[str] | None = None,
    blank_as_null: bool = False,
    immutable: bool = False,
    types: Mapping[str, str] | None = None,
) -> Introspection:
    """Read a SQLite database file (opened read-only; ``immutable`` for files nobody writes)."""
    p = Path(path)
    if not p.is_file():
        raise IntrospectionError(f"no SQLite database at {p}")
    mode = "ro&immutable=1" if immutable else "ro"
    con = sqlite3.connect(f"{p.resolve().as_uri()}?mode={mode}", uri=True)
    try:
        raw = read_sqlite(con, tables=tables, source=str(p))
    except sqlite3.DatabaseError as exc:
        raise IntrospectionError(f"{p}: not a readable SQLite database: {exc}") from None
    finally:
        con.close()
    return build(name or p.stem, raw, str(p), blank_as_null=blank_as_null, types=types)


# --- DuckDB ---------------------------------------------------------------------------------------

# DuckDB types whose Python values the inference reads directly; others are read as VARCHAR text
_DUCKDB_NATIVE = re.compile(
    r"^(TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT|UTINYINT|USMALLINT|UINTEGER|UBIGINT|UHUGEINT|"
    r"FLOAT|DOUBLE|DECIMAL\(\d+,\d+\)|VARCHAR|BOOLEAN|DATE|TIMESTAMP|TIMESTAMP_(S|MS|NS))$"
)


def read_duckdb(
    con: Any, *, tables: Sequence[str] | None = None, schema: str = "main", source: str = "duckdb"
) -> list[RawTable]:
    """Raw tables of an open DuckDB connection (base tables of ``schema`` in the current
    database)."""
    names = [
        r[0]
        for r in con.execute(
            "SELECT table_name FROM duckdb_tables() WHERE database_name = current_database() "
            "AND schema_name = ? ORDER BY table_oid",
            [schema],
        ).fetchall()
    ]
    out = []
    for name in _selected(names, tables, source):
        info = con.execute(
            "SELECT column_name, data_type, is_nullable FROM information_schema.columns "
            "WHERE table_catalog = current_database() AND table_schema = ? AND table_name = ? "
            "ORDER BY ordinal_position",
            [schema, name],
        ).fetchall()
        columns = [RawColumn(c, t, n == "NO") for c, t, n in info]
        pk: tuple[str, ...] = ()
        foreign: list[ForeignKey] = []
        for ctype, cols, ref_table, ref_cols in con.execute(
            "SELECT constraint_type, constraint_column_names, referenced_table, "
            "referenced_column_names FROM duckdb_constraints() "
            "WHERE database_name = current_database() AND schema_name = ? "
            "AND table_name = ? ORDER BY constraint_index",
            [schema, name],
        ).fetchall():
            if ctype == "PRIMARY KEY":
                pk = tuple(cols)
            elif ctype == "FOREIGN KEY":
                foreign.append(ForeignKey(tuple(cols), ref_table, tuple(ref_cols or ())))
        selects = []
        notes: dict[str, str] = {}
        for c in columns:
            if _DUCKDB_NATIVE.match(c.declared):
                selects.append(_q(c.name))
            elif "BLOB" in c.declared or c.declared == "BIT":
                raise IntrospectionError(
                    f"{source}: {name}.{c.name} is {c.declared}: binary "
                    "values have no portable type"
                )
            else:
                selects.append(f"CAST({_q(c.name)} AS VARCHAR)")
                notes[c.name] = f"DuckDB type {c.declared} has no portable type: read as text"
        columns = [
            RawColumn(c.name, "TEXT" if c.name in notes else c.declared, c.not_null)
            for c in columns
        ]
        rows = con.execute(f"SELECT {', '.join(selects)} FROM {_q(schema)}.{_q(name)}").fetchall()
        out.append(RawTable(name, columns, rows, pk, foreign, notes))
    return out


def introspect_duckdb(
    source: Any,
    *,
    name: str | None = None,
    tables: Sequence[str] | None = None,
    schema: str = "main",
    blank_as_null: bool = False,
    types: Mapping[str, str] | None = None,
) -> Introspection:
    """Read a DuckDB database: a file path (opened read-only) or an open connection."""
    import duckdb

    if isinstance(source, str | Path):
        p = Path(source)
        if not p.is_file():
            raise IntrospectionError(f"no DuckDB database at {p}")
        con = duckdb.connect(str(p), read_only=True)
        try:
            raw = read_duckdb(con, tables=tables, schema=schema, source=str(p))
        finally:
            con.close()
        return build(name or p.stem, raw, str(p), blank_as_null=blank_as_null, types=types)
    raw = read_duckdb(source, tables=tables, schema=schema, source="duckdb connection")
    return build(
        name or "duckdb", raw, "duckdb connection", blank_as_null=blank_as_null, types=types
    )


# --- SQLAlchemy -----------------------------------------------------------------------------------


def read_sqlalchemy(
    engine: Any,
    *,
    tables: Sequence[str] | None = None,
    schema: str | None = None,
    source: str = "sqlalchemy",
) -> list[RawTable]:
    """Raw tables through SQLAlchemy reflection; rows are the DBAPI driver's own values."""
    import sqlalchemy as sa

    inspector = sa.inspect(engine)
    names = inspector.get_table_names(schema=schema)
    prep = engine.dialect.identifier_preparer
    out = []
    with engine.connect() as conn:
        for name in _selected(names, tables, source):
            columns = []
            for c in inspector.get_columns(name, schema=schema):
                try:
                    declared = c["type"].compile(dialect=engine.dialect)
                except Exception:  # types without a compiler for this dialect
                    declared = (
                        str(c["type"]) if not isinstance(c["type"], sa.types.NullType) else ""
                    )
                columns.append(RawColumn(c["name"], declared, not c.get("nullable", True)))
            pk = tuple(
                inspector.get_pk_constraint(name, schema=schema).get("constrained_columns") or ()
            )
            foreign = [
                ForeignKey(
                    tuple(fk["constrained_columns"]),
                    fk["referred_table"],
                    tuple(fk.get("referred_columns") or ()),
                )
                for fk in inspector.get_foreign_keys(name, schema=schema)
            ]
            target = (
                f"{prep.quote_schema(schema)}.{prep.quote(name)}" if schema else prep.quote(name)
            )
            cols = ", ".join(prep.quote(c.name) for c in columns)
            result = conn.exec_driver_sql(f"SELECT {cols} FROM {target}")
            rows = [tuple(r) for r in result.fetchall()]
            out.append(RawTable(name, columns, rows, pk, foreign))
    return out


def introspect_sqlalchemy(
    url_or_engine: Any,
    *,
    name: str | None = None,
    tables: Sequence[str] | None = None,
    schema: str | None = None,
    blank_as_null: bool = False,
    types: Mapping[str, str] | None = None,
) -> Introspection:
    """Read any database SQLAlchemy reaches, by URL or ``sqlalchemy.Engine``."""
    import sqlalchemy as sa

    own = isinstance(url_or_engine, str)
    engine = sa.create_engine(url_or_engine) if own else url_or_engine
    label = engine.url.render_as_string(hide_password=True)
    try:
        raw = read_sqlalchemy(engine, tables=tables, schema=schema, source=label)
    except sa.exc.SQLAlchemyError as exc:
        raise IntrospectionError(f"{label}: {exc}") from None
    finally:
        if own:
            engine.dispose()
    default = engine.url.database or "fixture"
    return build(name or Path(default).stem, raw, label, blank_as_null=blank_as_null, types=types)


# --- any source -----------------------------------------------------------------------------------


def introspect(
    source: Any,
    *,
    name: str | None = None,
    tables: Sequence[str] | None = None,
    blank_as_null: bool = False,
    types: Mapping[str, str] | None = None,
) -> Introspection:
    """Read ``source`` into a fixture.

    ``source`` is a SQLite or DuckDB file (told apart by their file headers), a ``duckdb:///path``
    URL, any other SQLAlchemy URL (``sqlite:///x.db``, ``postgresql://...``), an open
    ``sqlite3``/``duckdb`` connection or a ``sqlalchemy.Engine``.
    """
    opts: dict[str, Any] = {
        "name": name,
        "tables": tables,
        "blank_as_null": blank_as_null,
        "types": types,
    }
    if isinstance(source, sqlite3.Connection):
        raw = read_sqlite(source, tables=tables, source="sqlite connection")
        return build(
            name or "sqlite", raw, "sqlite connection", blank_as_null=blank_as_null, types=types
        )
    if type(source).__module__.startswith(("duckdb", "_duckdb")):
        return introspect_duckdb(source, **opts)
    if isinstance(source, str) and "://" in source:
        if source.startswith("duckdb:///"):
            return introspect_duckdb(source[len("duckdb:///") :], **opts)
        return introspect_sqlalchemy(source, **opts)
    if isinstance(source, str | Path):
        p = Path(source)
        if not p.is_file():
            raise IntrospectionError(f"{p}: no such database file (or give a URL)")
        with p.open("rb") as fh:
            head = fh.read(16)
        if head.startswith(SQLITE_MAGIC) or not head:  # SQLite calls an empty file empty
            return introspect_sqlite(p, **opts)
        if head[8:12] == DUCKDB_MAGIC:
            return introspect_duckdb(p, **opts)
        raise IntrospectionError(f"{p}: neither a SQLite nor a DuckDB database file")
    if type(source).__module__.startswith("sqlalchemy"):
        return introspect_sqlalchemy(source, **opts)
    raise IntrospectionError(f"cannot introspect a {type(source).__name__}")


__all__ = [
    "ColumnReport",
    "ForeignKey",
    "IdentifierError",
    "Introspection",
    "RawColumn",
    "RawTable",
    "build",
    "introspect",
    "introspect_duckdb",
    "introspect_sqlalchemy",
    "introspect_sqlite",
    "read_duckdb",
    "read_sqlalchemy",
    "read_sqlite",
]
