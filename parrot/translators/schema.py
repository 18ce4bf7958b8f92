"""A fixture's schema as the target engine really holds it: ``CREATE TABLE`` in its dialect."""

from __future__ import annotations

import importlib
from collections.abc import Callable

import sqlglot
from sqlglot import exp

from parrot.engines.clickhouse import TABLE_ENGINE
from parrot.fixtures import Column, Fixture

# dialect -> the engine module whose ``<module>_type(column)`` creates the fixture's columns
ENGINE_TYPES = {
    "sqlite": "sqlite",
    "duckdb": "duckdb",
    "clickhouse": "clickhouse",
    "postgres": "postgres",
    "mysql": "mysql",
    "spark": "spark",
    "oracle": "oracle",
    "snowflake": "snowflake",
    "trino": "trino",
    "tsql": "tsql",
}
SAMPLE_CHARS = 40  # longer sample values are cut
NO_KEYS = frozenset({"clickhouse", "spark"})  # their tables declare no primary key


def column_type(dialect: str) -> Callable[[Column], str]:
    """The engine's own column-type function, or portable names for dialects without one."""
    module = ENGINE_TYPES.get(dialect)
    if module is None:
        return lambda c: c.type.upper()
    engine = importlib.import_module(f"parrot.engines.{module}")
    fn: Callable[[Column], str] = getattr(engine, f"{module}_type")
    return fn


def clickhouse_engine() -> str:
    return TABLE_ENGINE


def _ident(name: str, dialect: str) -> str:
    return exp.to_identifier(name, quoted=not name.isidentifier()).sql(dialect)


def target_ddl(fixture: Fixture, dialect: str, sample_rows: int = 0) -> str:
    """``CREATE TABLE`` statements for ``fixture`` with the column types the ``dialect``'s engine
    gives them, identifiers quoted as that dialect quotes them; optionally a few rows per table as
    SQL comments."""
    type_of = column_type(dialect)
    statements = []
    for table in fixture.tables:
        cols = []
        for c in table.columns:
            sql_type = type_of(c)
            null = c.nullable or dialect == "clickhouse" or "NOT NULL" in sql_type.upper()
            cols.append(f"  {_ident(c.name, dialect)} {sql_type}" + ("" if null else " NOT NULL"))
        if table.primary_key and dialect not in NO_KEYS:
            keys = ", ".join(_ident(k, dialect) for k in table.primary_key)
            cols.append(f"  PRIMARY KEY ({keys})")
        suffix = f" ENGINE = {clickhouse_engine()}" if dialect == "clickhouse" else ""
        text = (
            f"CREATE TABLE {_ident(table.name, dialect)} (\n" + ",\n".join(cols) + f"\n){suffix};"
        )
        for row in table.rows[:sample_rows]:
            cells = ", ".join("NULL" if v is None else str(v)[:SAMPLE_CHARS] for v in row)
            text += f"\n-- e.g. ({cells})"
        statements.append(text)
    return "\n".join(statements)


def parses(ddl: str, dialect: str) -> bool:
    """Whether sqlglot reads the DDL in ``dialect`` (a check used by the tests)."""
    try:
        return all(s is not None for s in sqlglot.parse(ddl, read=dialect))
    except sqlglot.errors.ParseError:
        return False
