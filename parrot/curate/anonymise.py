"""Stage 2, anonymise: three optional levels, deterministic under a seed, by AST rewriting.

* **entity** — table names become ``table_N`` and column names ``column_N``, one mapping per
  database (a named fixture's own schema, else every statement of the same origin), numbered in
  an order shuffled by the seed. A statement on a named fixture then runs on that fixture
  anonymised the same way (fixture name ``anon-s<seed>-<db_id>``, see :func:`resolve_fixture`), so
  the anonymised statement returns the original's rows.
* **field** — in comparisons with a column, numeric literals are perturbed and string literals
  become ``value_N`` placeholders (one per distinct string and origin). Only statements without a
  fixture get it: their test data is generated from the anonymised literals, so filters still
  select rows; on a real database it would change the result (counted, not applied).
* **query** — repeated identical conditions in AND / OR chains are pruned, and ``DISTINCT`` and
  ``ORDER BY`` without ``LIMIT`` inside ``IN (subquery)`` are dropped (they cannot change the
  result).

Aliases (``AS total``, ``T1``) are not renamed: they carry no schema information.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

from parrot.curate.stages import Batch, Drop, Record, Stage
from parrot.fixtures import Column, Fixture, Table
from parrot.migrate.named import named_fixture

LEVELS = ("entity", "field", "query")
ANON_PREFIX = "anon-s"


@dataclass(frozen=True)
class EntityMap:
    """Old name (lower case) → new name, for tables and for columns."""

    tables: dict[str, str]
    columns: dict[str, str]


def entity_map(tables: Iterable[tuple[str, Iterable[str]]], seed: int) -> EntityMap:
    """Number the names of ``tables`` (``(table, columns)`` pairs) in a seed-shuffled order."""
    table_names: list[str] = []
    column_names: list[str] = []
    for table, columns in tables:
        table_names.append(table.lower())
        column_names.extend(c.lower() for c in columns)
    t_order = sorted(set(table_names))
    c_order = sorted(set(column_names))
    rng = random.Random(seed)
    rng.shuffle(t_order)
    rng.shuffle(c_order)
    return EntityMap(
        {n: f"table_{i + 1}" for i, n in enumerate(t_order)},
        {n: f"column_{i + 1}" for i, n in enumerate(c_order)},
    )


def fixture_entity_map(fixture: Fixture, seed: int) -> EntityMap:
    return entity_map(((t.name, t.column_names) for t in fixture.tables), seed)


def anonymise_fixture(fixture: Fixture, mapping: EntityMap, name: str) -> Fixture:
    """``fixture`` with tables and columns renamed by ``mapping`` (rows unchanged)."""
    tables = tuple(
        Table(
            mapping.tables[t.name.lower()],
            tuple(Column(mapping.columns[c.name.lower()], c.type, c.nullable) for c in t.columns),
            t.rows,
            tuple(mapping.columns[k.lower()] for k in t.primary_key),
        )
        for t in fixture.tables
    )
    return Fixture(name=name, tables=tables)


def anonymised_name(seed: int, named: str) -> str:
    return f"{ANON_PREFIX}{seed}-{named.replace('/', '-')}"


def resolve_fixture(name: str) -> Fixture | None:
    """The anonymised named fixture ``anon-s<seed>-spider-<db_id>``, or None for other names."""
    if not name.startswith(ANON_PREFIX):
        return None
    seed_text, _, rest = name[len(ANON_PREFIX) :].partition("-")

    base = named_fixture(rest.replace("-", "/", 1))
    return anonymise_fixture(base, fixture_entity_map(base, int(seed_text)), name)


# --- rewriting ------------------------------------------------------------------------------------


def _aliases(tree: exp.Expr) -> set[str]:
    return {a.alias.lower() for a in tree.find_all(exp.Alias, exp.TableAlias) if a.alias} | {
        a.name.lower() for a in tree.find_all(exp.TableAlias) if a.name
    }


def rewrite_entities(tree: exp.Expr, mapping: EntityMap) -> None:
    """Rename tables and columns of ``tree`` in place (aliases and CTE names stay)."""
    aliases = _aliases(tree)
    ctes = {c.alias_or_name.lower() for c in tree.find_all(exp.CTE)}
    for t in tree.find_all(exp.Table):
        new = mapping.tables.get(t.name.lower())
        if new and t.name.lower() not in ctes and isinstance(t.this, exp.Identifier):
            t.set("this", exp.to_identifier(new))
    for col in tree.find_all(exp.Column):
        qualifier = col.table.lower()
        if qualifier and qualifier not in aliases and qualifier in mapping.tables:
            col.set("table", exp.to_identifier(mapping.tables[qualifier]))
        name = col.name.lower()
        if name in mapping.columns and (qualifier or name not in aliases):
            col.set("this", exp.to_identifier(mapping.columns[name]))


def _compared_literals(tree: exp.Expr) -> Iterable[exp.Literal]:
    """Literals compared with a column (=, <, IN, BETWEEN …), not LIMITs, ordinals or
    function arguments."""
    for node in tree.find_all(
        exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.In, exp.Between
    ):
        if not isinstance(node.this, exp.Column):
            continue
        if isinstance(node, exp.In):
            others = list(node.expressions)
        elif isinstance(node, exp.Between):
            others = [node.args["low"], node.args["high"]]
        else:
            others = [node.expression]
        yield from (o for o in others if isinstance(o, exp.Literal))


def rewrite_fields(tree: exp.Expr, strings: dict[str, str], rng: random.Random) -> None:
    """Perturb numeric literals and replace strings by placeholders (``strings`` is the
    placeholder table shared by one origin)."""
    for lit in list(_compared_literals(tree)):
        if lit.is_string:
            new = strings.setdefault(lit.this, f"value_{len(strings) + 1}")
            lit.replace(exp.Literal.string(new))
        elif lit.is_int:
            lit.replace(exp.Literal.number(int(lit.this) + rng.randint(1, 9)))
        else:
            try:
                value = float(lit.this)
            except ValueError:
                continue
            lit.replace(exp.Literal.number(round(value * rng.uniform(0.8, 1.2), 2)))


def prune_query(tree: exp.Expr) -> int:
    """Remove repeated conditions and redundant snippets in place; returns how many."""
    pruned = 0
    for kind in (exp.And, exp.Or):
        for node in list(tree.find_all(kind)):
            if node.parent is not None and isinstance(node.parent, kind):
                continue  # handle each chain once, from its top
            parts = list(node.flatten())
            unique: list[exp.Expr] = []
            for p in parts:
                if p not in unique:
                    unique.append(p)
            if len(unique) < len(parts):
                pruned += len(parts) - len(unique)
                rebuilt = unique[0]
                for p in unique[1:]:
                    rebuilt = kind(this=rebuilt, expression=p)
                node.replace(rebuilt)
    for in_ in tree.find_all(exp.In):
        query = in_.args.get("query")
        inner = query.this if isinstance(query, exp.Subquery) else query
        if isinstance(inner, exp.Select):
            if inner.args.get("distinct"):
                inner.set("distinct", None)
                pruned += 1
            if inner.args.get("order") and not inner.args.get("limit"):
                inner.set("order", None)
                pruned += 1
    return pruned


class Anonymise(Stage):
    """Apply the chosen levels to every statement (see the module docstring)."""

    name = "anonymise"
    chunked = False  # entity numbering needs every statement of an origin

    def __init__(self, levels: Sequence[str], seed: int = 0):
        unknown = set(levels) - set(LEVELS)
        if unknown:
            raise ValueError(
                f"unknown anonymisation level(s) {sorted(unknown)} (known: {', '.join(LEVELS)})"
            )
        self.levels = tuple(levels)
        self.seed = seed

    def params(self) -> dict[str, Any]:
        return {"levels": list(self.levels), "seed": self.seed}

    def reduce(self, batch: Batch) -> Batch:
        out = Batch([], batch.dropped, batch.notes, batch.routed, batch.details)
        parsed: list[tuple[Record, exp.Expr]] = []
        names: dict[str, dict[str, set[str]]] = {}  # origin -> table -> columns
        for r in batch.records:
            try:
                trees = [t for t in sqlglot.parse(r.sql, read=r.dialect) if t is not None]
            except (SqlglotError, RecursionError, ValueError):
                trees = []
            if len(trees) != 1:
                out.drop(Drop.UNPARSEABLE, "anonymise: not one parseable statement")
                continue
            parsed.append((r, trees[0]))
            if r.fixture is None:
                scope = names.setdefault(r.origin, {})
                for t in trees[0].find_all(exp.Table):
                    scope.setdefault(t.name, set())
                cols = {c.name for c in trees[0].find_all(exp.Column) if c.name}
                scope.setdefault("", set()).update(cols)
        maps = {
            origin: entity_map(((t, c) for t, c in tables.items() if t), self.seed)
            for origin, tables in names.items()
        }
        for origin, tables in names.items():  # columns of unknown tables still get numbers
            extra = sorted(
                c.lower() for c in tables.get("", ()) if c.lower() not in maps[origin].columns
            )
            for c in extra:
                maps[origin].columns[c] = f"column_{len(maps[origin].columns) + 1}"
        strings: dict[str, dict[str, str]] = {}
        for r, tree in parsed:
            fixture = r.fixture
            if "entity" in self.levels:
                if r.fixture:
                    mapping = fixture_entity_map(named_fixture(r.fixture), self.seed)
                    fixture = anonymised_name(self.seed, r.fixture)
                else:
                    mapping = maps[r.origin]
                rewrite_entities(tree, mapping)
            if "field" in self.levels:
                if r.fixture:
                    out.notes["field level not applied (real data)"] += 1
                else:
                    rng = random.Random(f"{self.seed}:{r.id}")
                    rewrite_fields(tree, strings.setdefault(r.origin, {}), rng)
            if "query" in self.levels:
                out.notes["query level: snippets pruned"] += prune_query(tree)
            try:
                sql = tree.sql(dialect=r.dialect)
            except SqlglotError:
                out.drop(Drop.UNPARSEABLE, "anonymise: cannot render")
                continue
            out.records.append(
                replace(
                    r,
                    sql=sql,
                    fixture=fixture,
                    tags=(*r.tags, *(f"anonymised:{lv}" for lv in self.levels)),
                )
            )
        return out
