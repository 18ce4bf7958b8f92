"""Boundary databases: per source query, candidates that do not depend on the neighbour set.

Random rounds (:func:`parrot.testsuite.datagen.generate`) hold 6 to 12 rows a table with varied
values, so cardinality boundaries are never met: a table with no row or one row, a single group,
a group that holds one value twice, a join that fans out, a nullable column that is NULL on every
row, a filter that keeps every row or none. Each kind of :data:`KINDS` starts from one seeded
friendly round (values mostly from the query's literals, so joins match) and reshapes the tables
the query reads (the fixture's other tables keep their rows); keys stay unique and non-NULL.

* ``duplicates``: every column that is no key holds a few values with counts 5, 4, 3, 2, 1, 1 in
  16 rows, interleaved (:data:`STAIR`): every group holds a value several times (``AVG(x)`` is no
  ``AVG(DISTINCT x)``), no two groups have one size (``ORDER BY COUNT(*)`` has no ties), names
  unique only by observation repeat (``GROUP BY name`` merges keyed rows) and joins on those
  columns fan out; a table without key repeats whole rows;
* ``fanout``: each join group (columns compared with each other) keeps its parents (the key, or
  the first column of the group) and the other columns refer to them as :data:`FANOUT` does: one
  parent with several children, one with one, most with none, a child with no parent (an orphan
  value) and, where the column is nullable, a NULL reference (``JOIN`` is no ``LEFT JOIN``);
* ``twins``: the rows of each table the query reads come in pairs equal on every column but
  the key (names unique by observation included), and references to a key refer to twins
  equally often (:data:`TWINS`): groups by key whose outputs are equal (``SELECT DISTINCT name,
  COUNT(*) ... GROUP BY id`` is not the query without DISTINCT), and a pair of twins whose
  merged group outnumbers the largest single one (``GROUP BY name ORDER BY COUNT(*) DESC LIMIT
  1`` is not ``GROUP BY id ...``);
* ``mirror``: a ``fanout`` round whose first half of each root table's rows but the second (a
  root: a table the query reads that refers to no other one it reads) is copied with fresh
  keys, and with them every row that refers to a copied row, its reference moved to the copy
  (:func:`_mirror`):
  two entities equal in every value and in everything that refers to them, in the same outer
  group (``SUM(DISTINCT total) OVER (PARTITION BY customer_id ...)`` over per-order totals,
  ``AVG(DISTINCT v.total)`` per status, ``COUNT(DISTINCT x)`` over a join are not the queries
  without DISTINCT); only half are copied, so the values' counts differ;
* ``childless``: a ``fanout`` round whose tables that refer to another table the query reads
  (the children of a join) hold no rows while their parents keep theirs: no parent finds a
  partner (``LEFT JOIN … ORDER BY child.x DESC LIMIT 1`` is not the inner join, whose result is
  empty);
* ``strangers``: one row a table the query reads, each column compared with a literal holding the
  first one (as ``on_literal``), and every join reference an orphan (``_fanout`` with every
  reference ``"o"``): no row finds a partner, yet each passes its own filters (``JOIN`` is no
  ``LEFT``/``RIGHT``/``FULL JOIN`` either way round, even under ``GROUP BY … ORDER BY COUNT(*)
  DESC LIMIT 1``, where the other kinds tie: the outer join's only row against none). Kept
  beyond distillation's ``min_dbs`` diverse databases (a suite of a join grows by one);
* ``ordered``: each ORDER BY column that is not joined holds distinct values in an order that is
  neither ascending nor descending nor insertion order (a dropped or reversed ORDER BY, or a
  LIMIT without it, shows);
* ``one_row``: one row a table;
* ``large``: :data:`LARGE` rows a table, drawn as in a random round;
* ``empty``: the tables the query reads hold no rows;
* ``single_group``: every GROUP BY column holds one value (one group);
* ``null_only``: every nullable column that is no key is NULL;
* ``on_literal``: each column the query compares with a literal holds the first one (``=`` and
  ``IN`` true on every row);
* ``off_literal``: those columns hold values that are none of the query's literals nor their ± 1
  (``=`` and ``IN`` false on every row; ranges fall on whichever side the data does).

The order is the order in which distillation keeps them beyond its cover (the strongest on
neighbours nobody aimed at first, measured in ``scripts/bench/testsuite.py --lofo``).

Kinds that would not differ from another for this query (no GROUP BY column, no literal, no
nullable column) are left out. Deterministic under ``seed``.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import Any

from parrot.fixtures import Fixture
from parrot.testsuite.datagen import (
    ColumnInfo,
    QuerySchema,
    _json_value,
    _named,
    _samples,
    _twin,
    _unique_rows,
    folds_text,
    generate,
    infer_schema,
    parse_query,
    volatile,
)

KINDS = (
    "strangers",
    "duplicates",
    "fanout",
    "large",
    "twins",
    "ordered",
    "mirror",
    "childless",
    "one_row",
    "empty",
    "single_group",
    "null_only",
    "on_literal",
    "off_literal",
)
LARGE = 200  # rows a table in the ``large`` kind
# value number per row in ``duplicates``: counts 5, 4, 3, 2, 1, 1 in 16 rows, interleaved (the
# most frequent value is neither first nor last in insertion order)
STAIR: tuple[int, ...] = (1, 0, 2, 1, 0, 3, 1, 2, 0, 1, 4, 2, 0, 1, 3, 5)
# references per row in ``fanout``: parent number (0: several children, 1: one), an orphan ("o")
# and a NULL reference ("n"; a parent where the column is NOT NULL)
FANOUT: tuple[int | str, ...] = (0, "o", 0, 1, "n", 0)
SIZES = {"large": LARGE, "duplicates": len(STAIR)}  # rows a table drawn (others: 8)
# ranks of an ORDER BY column's values per row in ``ordered`` (no monotone run longer than two;
# the extremes in rows 3 and 4, neither first) and value numbers of the other plain columns:
# the extremes' rows repeat values of rows 1 and 2, whose ranks are no extreme among the first
# occurrences (``SELECT DISTINCT a ... ORDER BY b LIMIT 1`` is not the query without DISTINCT
# where the engine keeps a value's first row, as SQLite does); by number of values (6 to 8)
ORDER: dict[int, tuple[int, ...]] = {
    6: (1, 3, 2, 5, 0, 4),
    7: (1, 4, 2, 6, 0, 5, 3),
    8: (1, 5, 3, 7, 0, 4, 2, 6),
}
REPEAT: tuple[int, ...] = (0, 1, 2, 1, 2, 3, 4, 5)
STRANGERS: tuple[int | str, ...] = ("o",)  # references in ``strangers``: orphans only
# references per row in ``twins`` (parents in row order: a row, its twin, the next row, its
# twin, ...): parent 2 three times, the twins 0 and 1 twice each (together more than 2, apart
# fewer), 4 once
TWINS: tuple[int | str, ...] = (2, 0, 1, 2, 0, 1, 2, 4)

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


def _few(rows: list[list[Any]], j: int, info: ColumnInfo, pool: list[Any], most: int) -> list[Any]:
    """Up to ``most`` distinct values for column ``j``: those its rows hold, then the pool's."""
    values = [row[j] for row in rows] + [_json_value(v, info.type) for v in pool]
    return list(dict.fromkeys(v for v in values if v is not None))[:most]


def _duplicates(
    rows: list[list[Any]], infos: list[ColumnInfo], keys: tuple[str, ...], pools: list[list[Any]]
) -> list[list[Any]]:
    width = max(STAIR) + 1
    for j, info in enumerate(infos):
        if info.unique or info.name in keys:
            continue
        few = _few(rows, j, info, pools[j], width)
        for k, row in enumerate(rows):  # each column from its own place: no column copies another
            if few:
                row[j] = few[STAIR[(k + 3 * j) % len(STAIR)] % len(few)]
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
        if _takes_literal(info, pools[j], keys):
            for row in rows:
                row[j] = _json_value(pools[j][0], info.type)
    return _unique_rows(rows, infos, keys, repeat=True)


def _takes_literal(info: ColumnInfo, pool: list[Any], keys: Collection[str]) -> bool:
    """Whether column ``info`` is compared with a literal of the query that the boundary kinds
    may write on its rows: the first of its ``pool`` (the literal it is compared with, then the
    fixture's values). Keys and unique columns keep their own values. ``on_literal``,
    ``ordered``'s text columns and ``fanout``'s first family all ask this one question."""
    return bool(
        info.literals and _named(info) and pool and not info.unique and info.name not in keys
    )


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


def _ordered(
    rows: list[list[Any]], infos: list[ColumnInfo], keys: tuple[str, ...], pools: list[list[Any]]
) -> list[list[Any]]:
    zigzagged = False
    _text_on_literal(rows, infos, keys, pools)
    for j, info in enumerate(infos):
        if not info.ordered or info.group is not None or not rows:
            continue
        ranked = sorted(_few(rows, j, info, pools[j], len(rows)), key=_sort_key)
        if len(ranked) < 3:
            continue
        order = ORDER.get(min(len(ranked), max(ORDER)))
        zigzag = (
            [ranked[r] for r in order]
            if order
            # 2nd, last, 1st, 2nd to last, 3rd, ...: no monotone run longer than two
            else [ranked[1], ranked[-1], ranked[0], *_alternate(ranked[2:-1])]
        )
        zigzagged = zigzagged or order is not None
        for k, row in enumerate(rows):
            row[j] = zigzag[k % len(zigzag)]
    for j, info in enumerate(infos):  # the other plain columns repeat as REPEAT says
        plain = not (info.ordered or info.grouped or info.literals or info.unique)
        repeat = REPEAT[: len(rows)]
        few = _few(rows, j, info, pools[j], max(repeat) + 1) if zigzagged and plain else []
        if info.group is not None or info.name in keys or len(few) <= max(repeat):
            continue
        for k, row in enumerate(rows):
            row[j] = few[repeat[k % len(repeat)]]
    return _unique_rows(rows, infos, keys, repeat=True)


def _text_on_literal(
    rows: list[list[Any]], infos: list[ColumnInfo], keys: tuple[str, ...], pools: list[list[Any]]
) -> None:
    """Each text column compared with a literal (not ordered, joined nor a key) holds the first
    one on every row, as in ``on_literal``: its filter passes everywhere (``ordered``)."""
    for j, info in enumerate(infos):
        shaped = info.ordered or info.group is not None  # ``ordered`` and ``fanout`` set these
        if not shaped and info.type == "text" and _takes_literal(info, pools[j], keys):
            for row in rows:
                row[j] = _json_value(pools[j][0], info.type)


def _sort_key(value: Any) -> tuple[int, Any]:
    return (0, value) if isinstance(value, int | float) else (1, str(value))


def _alternate(values: list[Any]) -> list[Any]:
    out: list[Any] = []
    while values:
        out.append(values.pop(-1 if len(out) % 2 else 0))
    return out


_RESHAPE: dict[str, Reshape] = {
    "ordered": _ordered,
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
    if kind == "fanout":
        return any(i.group is not None for i in infos)
    if kind in ("childless", "strangers"):
        return bool(_children(schema))
    if kind == "ordered":
        return any(i.ordered and i.group is None for i in infos)
    if kind in ("twins", "mirror"):  # a table with a key: its twins differ by it
        return any(schema.primary_keys.values()) or any(i.unique for i in infos)
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
        size = SIZES.get(kind, 8)
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
            repeat=kind in SIZES or None,  # many rows: names unique by observation repeat
        )[0]
        reshape = _RESHAPE.get(kind)
        for table in data["tables"]:
            cols = schema.tables.get(table["name"])
            if reshape is None or cols is None:
                continue
            infos = list(cols.values())
            pools = [samples[(table["name"], i.name)] for i in infos]
            table["rows"] = reshape(table["rows"], infos, tuple(table["primary_key"]), pools)
        if kind == "twins":
            _twins(data["tables"], schema, samples)
        if kind in ("fanout", "duplicates", "twins", "mirror"):  # childless: below
            pattern = {"fanout": FANOUT, "mirror": FANOUT, "twins": TWINS}.get(kind, STAIR)
            _fanout(data["tables"], schema, pattern)
        if kind == "fanout":
            _first_family_on_literal(data["tables"], schema, samples)
        if kind == "mirror":
            _mirror(data["tables"], schema, samples)
        if kind == "strangers":
            _strangers(data["tables"], schema, samples)
        if kind == "childless":
            _fanout(data["tables"], schema, FANOUT)
            for table in data["tables"]:
                if table["name"] in _children(schema):
                    table["rows"] = []
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


def _fanout(
    tables: list[dict[str, Any]], schema: QuerySchema, pattern: tuple[int | str, ...]
) -> None:
    """Reshape the references of each join group in ``tables`` as ``pattern`` says (parent
    numbers, "o" an orphan, "n" NULL; :data:`FANOUT`, or :data:`STAIR`: parents referred to 5,
    4, 3, 2, 1 and 1 times): the
    group's parents are its key columns' values (or, without a key in the group, its first
    column's, left as they are); every other column of the group refers to them."""
    by_name = {t["name"]: t for t in tables}
    columns = [
        (by_name[table], j, info)
        for table, cols in schema.tables.items()
        if table in by_name
        for j, info in enumerate(cols.values())
        if info.group is not None
    ]
    declared = {info.group for _, _, info in columns if info.unique}
    parent_of = {
        id(info): info.unique or (info.observed_unique and info.group not in declared)
        for _, _, info in columns
    }  # keys; else columns unique by observation
    parents: dict[int, list[Any]] = {}
    for table, j, info in columns:
        if parent_of[id(info)]:
            parents.setdefault(info.group or 0, []).extend(
                row[j] for row in table["rows"] if row[j] is not None
            )
    referring: dict[str, int] = {}  # table -> its columns reshaped so far
    for table, j, info in columns:
        group = info.group or 0
        if parent_of[id(info)]:
            continue
        if group not in parents:  # no key in the group: this column holds the parents
            parents[group] = [row[j] for row in table["rows"] if row[j] is not None]
            continue
        shift = 2 * referring.get(table["name"], 0)  # orphans of one table in different rows
        referring[table["name"]] = referring.get(table["name"], 0) + 1
        _refer(table, j, info, parents[group], pattern, shift)


def _refer(
    table: dict[str, Any],
    j: int,
    info: ColumnInfo,
    parents: list[Any],
    pattern: tuple[int | str, ...],
    shift: int,
) -> None:
    """Column ``j`` of ``table`` refers to ``parents`` as ``pattern`` says (from its
    ``shift``-th entry)."""
    distinct = list(dict.fromkeys(v for v in (_as(p, info) for p in parents) if v is not None))
    if not distinct:
        return
    orphan = _orphan(distinct, info)
    for k, row in enumerate(table["rows"]):
        ref = pattern[(k + shift) % len(pattern)]
        if ref == "n" and info.nullable:
            row[j] = None
        elif ref == "o" or (isinstance(ref, int) and ref >= len(distinct)):
            row[j] = orphan if orphan is not None else distinct[-1]
        else:
            row[j] = distinct[(ref if isinstance(ref, int) else 1) % len(distinct)]
    keys = tuple(table["primary_key"])
    infos = [ColumnInfo(c["name"], c["type"]) for c in table["columns"]]
    table["rows"] = _unique_rows(table["rows"], infos, keys, repeat=True)


def _orphan(parents: list[Any], info: ColumnInfo) -> Any:
    """A value of ``info``'s type that is none of ``parents`` (None when none is found)."""
    numbers = [
        int(p) for p in parents if isinstance(p, int) or (isinstance(p, str) and p.isdigit())
    ]
    if numbers:
        value = max(numbers) + 1
        return str(value) if info.digits or info.type == "text" else value
    if info.type == "text":
        return next(v for v in ("zz", "zzz", "zzzz", "zzzzz") if v not in parents)
    return None


def _as(value: Any, info: ColumnInfo) -> Any:
    """A parent's ``value`` in the JSON form of the referring column (None: it has none; a
    text column joined to an integer one holds the integers as text)."""
    if info.type == "text":
        return str(value)
    if info.type in ("integer", "bigint") and isinstance(value, str):
        return int(value) if value.strip().lstrip("-").isdigit() else None
    return _json_value(value, info.type)


def _twins(tables: list[dict[str, Any]], schema: QuerySchema, samples: Samples) -> None:
    """Each table ``schema`` reads: its first rows, each followed by a twin (a fresh key, every
    other value kept; :func:`parrot.testsuite.datagen._twin`), as many rows as before."""
    for table in tables:
        cols = schema.tables.get(table["name"])
        if cols is None or not table["rows"]:
            continue
        infos, keys = list(cols.values()), tuple(table["primary_key"])
        rows: list[list[Any]] = []
        for row in table["rows"][: max(1, len(table["rows"]) // 2)]:
            twin = _twin(
                row,
                [*table["rows"], *rows],
                infos,
                keys,
                samples,
                table["name"],
                keep_observed=True,
            )
            rows += [row] if twin is None else [row, twin]
        table["rows"] = rows


def _roles(schema: QuerySchema) -> tuple[Callable[[ColumnInfo], bool], dict[int, set[str]]]:
    """Which join columns hold parents (a key, or unique by observation in a group without a
    declared key, as :func:`_fanout` tells them), and the tables holding each group's parents."""
    declared = {i.group for cols in schema.tables.values() for i in cols.values() if i.unique}

    def parent(info: ColumnInfo) -> bool:
        return info.unique or (info.observed_unique and info.group not in declared)

    parent_tables: dict[int, set[str]] = {}
    for name, cols in schema.tables.items():
        for info in cols.values():
            if info.group is not None and parent(info):
                parent_tables.setdefault(info.group, set()).add(name)
    return parent, parent_tables


def _children(schema: QuerySchema) -> set[str]:
    """The tables ``schema`` reads that refer to another one it reads (a join's children)."""
    parent, parent_tables = _roles(schema)
    return {
        name
        for name, cols in schema.tables.items()
        for info in cols.values()
        if info.group is not None
        and not parent(info)
        and parent_tables.get(info.group, set()) - {name}
    }


def _strangers(tables: list[dict[str, Any]], schema: QuerySchema, samples: Samples) -> None:
    """Each table ``schema`` reads: its first row, on the query's literals (:func:`_on_literal`),
    its join references orphans (:data:`KINDS` ``strangers``)."""
    for table in tables:
        cols = schema.tables.get(table["name"])
        if cols is None:
            continue
        infos = list(cols.values())
        pools = [samples[(table["name"], i.name)] for i in infos]
        keys = tuple(table["primary_key"])
        table["rows"] = _on_literal(table["rows"][:1], infos, keys, pools)
    _fanout(tables, schema, STRANGERS)


def _first_family_on_literal(
    tables: list[dict[str, Any]], schema: QuerySchema, samples: Samples
) -> None:
    """The rows holding or referring to each join group's first parent (the one with several
    children in ``fanout``) hold the query's first literal in each column compared with one
    (as :func:`_on_literal`): the join fans out among rows that pass the filters (``SELECT
    DISTINCT parent.x ... JOIN child ... WHERE child.y = 'v'`` is not the query without
    DISTINCT); the other rows keep their values."""
    parent, _ = _roles(schema)
    by_name = {t["name"]: t for t in tables if t["name"] in schema.tables}
    first: dict[int, str] = {}
    for name, t in by_name.items():
        for j, info in enumerate(schema.tables[name].values()):
            if info.group is not None and parent(info) and info.group not in first:
                value = next((r[j] for r in t["rows"] if r[j] is not None), None)
                if value is not None:
                    first[info.group] = str(value)
    for name, t in by_name.items():
        infos = list(schema.tables[name].values())
        keys = set(t["primary_key"])
        joined = [(j, i.group) for j, i in enumerate(infos) if i.group in first]
        for row in t["rows"]:
            if not any(row[j] is not None and str(row[j]) == first[g] for j, g in joined):
                continue
            for j, info in enumerate(infos):
                pool = samples[(name, info.name)]
                if info.group is None and _takes_literal(info, pool, keys):
                    row[j] = _json_value(pool[0], info.type)


def _mirror(tables: list[dict[str, Any]], schema: QuerySchema, samples: Samples) -> None:
    """Copy, with fresh keys, the first half of the rows but the second of each root table
    ``schema`` reads (one that refers to no other table read) and every row that refers to a
    copied row, its reference moved to the copy: parents before their children, so a copy's
    children are copies of the original's children (:data:`KINDS` ``mirror``)."""
    read = [t for t in tables if t["name"] in schema.tables and t["rows"]]
    infos = {t["name"]: list(schema.tables[t["name"]].values()) for t in read}
    parent, parent_tables = _roles(schema)
    moved: dict[int, dict[Any, Any]] = {}  # join group -> parent value -> its copy's
    done: set[str] = set()
    for _ in range(len(read)):
        for t in read:
            name = t["name"]
            refs = [
                (j, i.group)
                for j, i in enumerate(infos[name])
                if i.group is not None
                and not parent(i)
                and parent_tables.get(i.group, set()) - {name}
            ]
            waits = {p for _, g in refs for p in parent_tables[g]} & set(infos) - {name}
            if name in done or waits - done:
                continue
            done.add(name)
            rows = t["rows"]
            chosen = (
                [r for r in rows if any(r[j] in moved.get(g, {}) for j, g in refs)]
                if refs
                else [r for k, r in enumerate(rows[: max(1, len(rows) // 2)]) if k != 1]
            )  # a root's row 1 (FANOUT's parent of one child) keeps no copy: counts differ
            parents = [j for j, i in enumerate(infos[name]) if i.group is not None and parent(i)]
            t["rows"] = rows + _copies(t, chosen, infos[name], (refs, parents), moved, samples)


def _copies(
    table: dict[str, Any],
    chosen: list[list[Any]],
    infos: list[ColumnInfo],
    links: tuple[list[tuple[int, int]], list[int]],
    moved: dict[int, dict[Any, Any]],
    samples: Samples,
) -> list[list[Any]]:
    """:func:`_mirror`'s copies of ``chosen`` rows of ``table``: fresh keys, references moved
    (``links``: the reference columns with their join group, and the parent columns)."""
    refs, parents = links
    keys = tuple(table["primary_key"])
    out: list[list[Any]] = []
    for row in chosen:
        twin = _twin(
            row, [*table["rows"], *out], infos, keys, samples, table["name"], keep_observed=True
        )
        if twin is None:
            continue
        for j, g in refs:
            twin[j] = moved.get(g, {}).get(row[j], row[j])
        for j in parents:
            moved.setdefault(infos[j].group or 0, {})[row[j]] = twin[j]
        out.append(twin)
    return out
