"""Boundary databases: per source query, candidates that do not depend on the neighbour set.

Random rounds (:func:`parrot.testsuite.datagen.generate`) hold 6 to 12 rows a table with varied
values, so cardinality boundaries are never met: a table with no row or one row, a single group,
a group that holds one value twice, a join that fans out, a nullable column that is NULL on every
row, a filter that keeps every row or none. Each kind of :data:`KINDS` starts from one seeded
friendly round (values mostly from the query's literals, so joins match) and reshapes the tables
the query reads (the fixture's other tables keep their rows); keys stay unique and non-NULL.

* ``empty``: the tables the query reads hold no rows;
* ``one_row``: one row each;
* ``single_group``: every GROUP BY column holds one value (one group);
* ``duplicates``: every column that is no key holds at most two distinct values (duplicates within
  groups, and joins on those columns fan out); a table without key repeats whole rows;
* ``null_only``: every nullable column that is no key is NULL;
* ``on_literal``: each column the query compares with a literal holds the first one (``=`` and
  ``IN`` true on every row);
* ``off_literal``: those columns hold values that are none of the query's literals nor their ± 1
  (``=`` and ``IN`` false on every row; ranges fall on whichever side the data does);
* ``large``: :data:`LARGE` rows a table, drawn as in a random round.

Kinds that would not differ from another for this query (no GROUP BY column, no literal, no
nullable column) are left out. Deterministic under ``seed``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from parrot.fixtures import Fixture
from parrot.testsuite.datagen import (
    ColumnInfo,
    QuerySchema,
    _json_value,
    _named,
    _samples,
    _unique_rows,
    folds_text,
    generate,
    infer_schema,
    parse_query,
    volatile,
)

KINDS = (
    "one_row",
    "duplicates",
    "empty",
    "single_group",
    "null_only",
    "on_literal",
    "off_literal",
    "large",
)
LARGE = 200  # rows a table in the ``large`` kind

Samples = dict[tuple[str, str], list[Any]]
Reshape = Callable[
    [list[list[Any]], list[ColumnInfo], tuple[str, ...], list[list[Any]]], list[list[Any]]
]


def _one_row(
    rows: list[list[Any]], infos: list[ColumnInfo], keys: tuple[str, ...], pools: list[list[Any]]
) -> list[list[Any]]:
    return rows[:1]


def _empty(
    rows: list[list[Any]], infos: list[ColumnInfo], keys: tuple[str, ...], pools: list[list[Any]]
) -> list[list[Any]]:
    return []


def _single_group(
    rows: list[list[Any]], infos: list[ColumnInfo], keys: tuple[str, ...], pools: list[list[Any]]
) -> list[list[Any]]:
    first = next(iter(rows), None)
    for row in rows:
        for j, info in enumerate(infos):
            if info.grouped and first is not None:
                row[j] = first[j]
    return _unique_rows(rows, infos, keys)


def _duplicates(
    rows: list[list[Any]], infos: list[ColumnInfo], keys: tuple[str, ...], pools: list[list[Any]]
) -> list[list[Any]]:
    for j, info in enumerate(infos):
        if info.unique or info.name in keys:
            continue
        two = list(dict.fromkeys(row[j] for row in rows if row[j] is not None))[:2]
        for k, row in enumerate(rows):
            if two:
                row[j] = two[k % len(two)]
    if keys or any(i.unique for i in infos):
        return _unique_rows(rows, infos, keys, repeat=True)
    return [*rows, *(list(r) for r in rows[:3])]  # whole rows twice


def _null_only(
    rows: list[list[Any]], infos: list[ColumnInfo], keys: tuple[str, ...], pools: list[list[Any]]
) -> list[list[Any]]:
    for j, info in enumerate(infos):
        if info.nullable and not info.unique and info.name not in keys:
            for row in rows:
                row[j] = None
    return _unique_rows(rows, infos, keys, repeat=True)


def _on_literal(
    rows: list[list[Any]], infos: list[ColumnInfo], keys: tuple[str, ...], pools: list[list[Any]]
) -> list[list[Any]]:
    for j, info in enumerate(infos):
        if (
            info.literals
            and _named(info)
            and pools[j]
            and not info.unique
            and info.name not in keys
        ):
            for row in rows:
                row[j] = _json_value(pools[j][0], info.type)
    return _unique_rows(rows, infos, keys, repeat=True)


def _off_literal(
    rows: list[list[Any]], infos: list[ColumnInfo], keys: tuple[str, ...], pools: list[list[Any]]
) -> list[list[Any]]:
    for j, info in enumerate(infos):
        named = _named(info)
        if not info.literals or not named or info.unique or info.name in keys:
            continue
        near = set(pools[j][:named])
        others = [v for v in pools[j][named:] if v not in near]
        for k, row in enumerate(rows):
            if others:
                row[j] = _json_value(others[k % len(others)], info.type)
    return _unique_rows(rows, infos, keys, repeat=True)


_RESHAPE: dict[str, Reshape] = {
    "one_row": _one_row,
    "empty": _empty,
    "single_group": _single_group,
    "duplicates": _duplicates,
    "null_only": _null_only,
    "on_literal": _on_literal,
    "off_literal": _off_literal,
}


def _applies(kind: str, schema: QuerySchema) -> bool:
    infos = [i for cols in schema.tables.values() for i in cols.values()]
    if kind == "single_group":
        return any(i.grouped for i in infos)
    if kind in ("on_literal", "off_literal"):
        return any(i.literals and not i.unique for i in infos)
    if kind == "null_only":
        return any(i.nullable and not i.unique for i in infos)
    return True


def boundary_rounds(
    schema: QuerySchema,
    *,
    seed: str,
    name: str,
    base: Fixture | None = None,
    dialects: tuple[str, ...] = (),
) -> list[tuple[str, dict[str, Any]]]:
    """(kind, fixture JSON) for each kind of :data:`KINDS` that applies to ``schema``."""
    if not schema.tables:
        return []
    samples = _samples(schema, base, seed, folds_text(dialects))
    out: list[tuple[str, dict[str, Any]]] = []
    for kind in KINDS:
        if not _applies(kind, schema):
            continue
        size = LARGE if kind == "large" else 8
        data = generate(
            schema,
            rounds=1,
            seed=f"{seed}:{kind}",
            name=name,
            base=base,
            dialects=dialects,
            first_round=0 if kind != "large" else 2,
            max_rows=size,
            size=size,
        )[0]
        reshape = _RESHAPE.get(kind)
        for table in data["tables"]:
            cols = schema.tables.get(table["name"])
            if reshape is None or cols is None:
                continue
            infos = list(cols.values())
            pools = [samples[(table["name"], i.name)] for i in infos]
            table["rows"] = reshape(table["rows"], infos, tuple(table["primary_key"]), pools)
        out.append((kind, {**data, "name": f"{name}-{kind}"}))
    return out


def query_boundary_data(
    sql: str,
    dialect: str,
    *,
    seed: str,
    name: str,
    base: Fixture | None = None,
    dialects: tuple[str, ...] = (),
) -> list[tuple[str, dict[str, Any]]]:
    """:func:`boundary_rounds` for a query (SchemaError as
    :func:`parrot.testsuite.datagen.query_test_data`)."""
    tree = parse_query(sql, dialect)
    if volatile(tree):
        return []
    schema = infer_schema(tree, base)
    return boundary_rounds(schema, seed=seed, name=name, base=base, dialects=(dialect, *dialects))
