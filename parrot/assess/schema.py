"""``--schema FILE``: the tables of a DDL script as an empty fixture (no user data needed).

Every ``CREATE TABLE`` of the script (in the source dialect) becomes a fixture table: its columns
with portable types (classified as ``parrot migrate`` classifies declared types), ``NOT NULL``,
and the primary key (column or table constraint). Other statements (indexes, views, grants,
``DROP``, ``INSERT``) are counted and ignored. The test-suite generator then fills these tables
from the schema and each statement's own literals.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

from parrot.engines import statements
from parrot.fixtures import Column, Fixture, FixtureError, Table, parse_type
from parrot.migrate.infer import declared_family
from parrot.textfiles import read_utf8

FALLBACK_DECIMAL = "decimal(38,10)"  # NUMERIC without precision and scale


class SchemaFileError(ValueError):
    """A schema file with no usable CREATE TABLE (the message says why)."""


@dataclass(frozen=True)
class SchemaFile:
    fixture: Fixture
    ignored: int  # statements that are not CREATE TABLE


def portable_type(declared: str) -> str:
    """The portable type of a declared column type (text when nothing fits)."""
    decl = declared_family(declared)
    if decl.expected is not None:
        return parse_type(decl.expected)
    return FALLBACK_DECIMAL if decl.family.value == "numeric" else "text"


def _table(create: exp.Create, dialect: str) -> Table:
    schema = create.this
    if not isinstance(schema, exp.Schema) or not isinstance(schema.this, exp.Table):
        raise SchemaFileError(f"not a column list: {create.sql(dialect)[:80]}")
    columns, key = [], []
    for part in schema.expressions:
        if isinstance(part, exp.ColumnDef):
            kind = part.args.get("kind")
            constraints = [c.args.get("kind") for c in part.args.get("constraints") or []]
            primary = any(isinstance(c, exp.PrimaryKeyColumnConstraint) for c in constraints)
            not_null = primary or any(
                isinstance(c, exp.NotNullColumnConstraint) and not c.args.get("allow_null")
                for c in constraints
            )
            declared = kind.sql(dialect) if kind is not None else ""
            columns.append(Column(part.name, portable_type(declared), nullable=not not_null))
            if primary:
                key.append(part.name)
        elif isinstance(part, exp.PrimaryKey):
            key = [e.name for e in part.expressions]
    if not columns:
        raise SchemaFileError(f"table {schema.this.name}: no columns")
    key_set = {k.lower() for k in key}
    columns = [Column(c.name, c.type, False) if c.name.lower() in key_set else c for c in columns]
    return Table(schema.this.name, tuple(columns), (), tuple(key))


def read_schema(path: str, dialect: str, name: str = "schema") -> SchemaFile:
    """The CREATE TABLEs of the DDL file at ``path`` as an empty fixture called ``name``."""
    try:
        text = read_utf8(Path(path))
    except (OSError, ValueError) as exc:
        raise SchemaFileError(f"--schema {path}: {exc}") from None
    tables: list[Table] = []
    ignored = 0
    for piece in statements.splitter(dialect).split(text):
        if not piece.strip().strip(";").strip():
            continue
        try:
            tree = sqlglot.parse_one(piece, read=dialect)
        except SqlglotError as exc:
            raise SchemaFileError(
                f"--schema {path}: cannot parse {piece.strip()[:60]!r}: {str(exc).splitlines()[0]}"
            ) from None
        if isinstance(tree, exp.Create) and (tree.args.get("kind") or "").upper() == "TABLE":
            tables.append(_table(tree, dialect))
        else:
            ignored += 1
    if not tables:
        raise SchemaFileError(f"--schema {path}: no CREATE TABLE statement")
    try:
        fixture = Fixture(name, tuple(tables))
        _ = fixture.content_hash
    except FixtureError as exc:
        raise SchemaFileError(f"--schema {path}: {exc}") from None
    return SchemaFile(fixture, ignored)
