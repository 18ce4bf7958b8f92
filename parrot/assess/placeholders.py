"""Placeholders (``$1``, ``?``, ``%s``, ``:name``) filled with values from the column they are
compared with, so that a statement of a query log can be judged like any other.

A placeholder gets a value when it stands on one side of a comparison (``=``, ``<>``, ``<``,
``<=``, ``>``, ``>=``, ``LIKE``), in an ``IN`` list or a ``BETWEEN`` whose other side is a column of
a table the statement reads and the fixture has. The value comes from that column's domain: with
rows (``--db``), the real values — the most frequent one for ``=``/``IN``/``LIKE`` (the ``n``-th
most frequent for the ``n``-th member of an ``IN`` list), the median for ``<``/``>``, the
quartiles for ``BETWEEN``; on empty
tables (``--schema``), the test-suite generator's typical value of the column's type
(:data:`parrot.testsuite.datagen.EDGES`), which the generated databases then hold because the
generator seeds them with the statement's literals. The same named or numbered placeholder gets
the same value everywhere. Anywhere else (``LIMIT $1``, a function argument, a column the
fixture lacks) there is no domain: the statement stays unfilled, with the reason. A placeholder
in ``INSERT ... VALUES`` takes its column's place: a number above every real and generated one,
a text no row holds (a new key must not collide), the typical value otherwise.
"""

from __future__ import annotations

import contextlib
import re
from collections import Counter
from dataclasses import dataclass
from typing import Any

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

from parrot.fixtures import Fixture, Table, storage_text
from parrot.testsuite.datagen import EDGES

FILLED = "placeholders filled with generated values"
_PYFORMAT = re.compile(r"'(?:[^']|'')*'|%s")  # %s outside strings (sqlglot reads only ?)
_NUMBERED = re.compile(r"^\$\d+$")  # $1 where a dialect reads it as a column name
_RANGE = (exp.GT, exp.GTE, exp.LT, exp.LTE, exp.Between)
FRESH = 9000  # an inserted number: this much above every real and generated value
_TYPICAL = {"integer": 1, "double": 2, "text": 1, "date": 2, "timestamp": 2, "boolean": 0}


@dataclass(frozen=True)
class Filled:
    """A statement with its placeholders filled: the SQL and each placeholder's value."""

    sql: str
    values: tuple[tuple[str, str, str], ...]  # (placeholder, value as SQL, table.column)

    def describe(self) -> str:
        return f"{FILLED} (" + ", ".join(f"{p} = {v} from {c}" for p, v, c in self.values) + ")"


def fill(sql: str, dialect: str, fixture: Fixture | None) -> Filled | str:
    """``sql`` with every placeholder filled, or why it cannot be (a sentence)."""
    if fixture is None:
        return "no column domains: give --db or --schema"
    text = _PYFORMAT.sub(lambda m: "?" if m.group(0) == "%s" else m.group(0), sql)
    try:
        tree = sqlglot.parse_one(text, read=dialect)
    except SqlglotError as exc:
        return f"sqlglot cannot parse it to find the placeholders: {str(exc).splitlines()[0]}"
    nodes = [
        n
        for n in tree.find_all(exp.Placeholder, exp.Parameter, exp.Column)
        if not isinstance(n.parent, exp.Parameter)
        and (not isinstance(n, exp.Column) or _NUMBERED.match(n.sql(dialect)))
    ]
    if not nodes:
        return "no placeholder found in sqlglot's tree"
    tables = _tables(tree, fixture)
    chosen: dict[str, tuple[str, str]] = {}
    for position, node in enumerate(nodes, 1):
        label = _label(node, position)
        found = _column(node, tables)
        if found is None:
            return (
                f"no column domain known for {label} (it is not compared with a column "
                "of a table the database has)"
            )
        table, column, rank, quantile = found
        if label not in chosen:  # a named or numbered one used again keeps its value
            chosen[label] = (_value(table, column, rank, quantile), f"{table.name}.{column}")
        literal = chosen[label][0]
        node.replace(sqlglot.parse_one(literal, read=dialect))
    values = tuple((label, lit, col) for label, (lit, col) in chosen.items())
    return Filled(tree.sql(dialect), values)


def _label(node: exp.Expr, position: int) -> str:
    if isinstance(node, exp.Column):  # SQLite's reading of $1: a column so named
        return node.name
    if isinstance(node, exp.Parameter) or node.name.isdigit():
        return f"${node.name}"
    return f":{node.name}" if node.name and node.name != "?" else f"?{position}"


def _tables(tree: exp.Expr, fixture: Fixture) -> dict[str, Table]:
    """The fixture tables the statement reads, by alias and by name (lower case)."""
    known = {t.name.lower(): t for t in fixture.tables}
    out: dict[str, Table] = {}
    for node in tree.find_all(exp.Table):
        table = known.get(node.name.lower())
        if table is not None:
            out.setdefault(node.alias_or_name.lower(), table)
            out.setdefault(node.name.lower(), table)
    return out


def _column(
    node: exp.Expr, tables: dict[str, Table]
) -> tuple[Table, str, int, float | None] | None:
    """The (table, column) ``node`` is compared with, its rank in an IN list, and for a range
    the quantile of the column's values it takes (None for equality)."""
    parent, rank, quantile = node.parent, 0, None
    if isinstance(parent, exp.Tuple) and isinstance(parent.parent, exp.Values):
        return _inserted(node, parent, tables)
    if isinstance(parent, exp.In):
        other, rank = parent.this, parent.expressions.index(node)
    elif isinstance(parent, exp.Between):
        other, quantile = parent.this, 0.25 if parent.args.get("low") is node else 0.75
    elif isinstance(parent, (exp.EQ, exp.NEQ, exp.Like, exp.ILike, *_RANGE)):
        other = parent.expression if parent.this is node else parent.this
        quantile = 0.5 if isinstance(parent, _RANGE) else None
    else:
        return None
    if not isinstance(other, exp.Column) or not other.name:
        return None
    if other.table:
        candidates = [tables[other.table.lower()]] if other.table.lower() in tables else []
    else:
        candidates = list({id(t): t for t in tables.values()}.values())
    owners = [
        (t, c.name) for t in candidates for c in t.columns if c.name.lower() == other.name.lower()
    ]
    if len(owners) != 1:
        return None
    return owners[0][0], owners[0][1], rank, quantile


def _inserted(
    node: exp.Expr, row: exp.Tuple, tables: dict[str, Table]
) -> tuple[Table, str, int, float | None] | None:
    """The column an ``INSERT ... VALUES`` placeholder goes into (rank -1 - the row's index:
    a new value, another in each row)."""
    values = row.parent
    insert = values.parent if values is not None else None
    if values is None or not isinstance(insert, exp.Insert):
        return None
    target = insert.this
    names = [e.name for e in target.expressions] if isinstance(target, exp.Schema) else None
    name = target.this.name if isinstance(target, exp.Schema) else target.name
    table = tables.get(name.lower())
    if table is None:
        return None
    names = names or list(table.column_names)
    position = row.expressions.index(node)
    if position >= len(names):
        return None
    found = next((c for c in table.column_names if c.lower() == names[position].lower()), None)
    rank = -1 - values.expressions.index(row)
    return (table, found, rank, None) if found else None


def _value(table: Table, column: str, rank: int, quantile: float | None) -> str:
    """A value of ``table.column`` as a SQL literal (see the module docstring); a rank below 0:
    one the column does not hold, another for each rank (inserted rows must not repeat a key)."""
    index = table.column_names.index(column)
    ptype = table.columns[index].type
    present = [v for v in (row[index] for row in table.rows) if v is not None]
    kind = "double" if ptype.startswith("decimal") else "integer" if ptype == "bigint" else ptype
    pool = EDGES.get(kind, EDGES["text"])
    value: Any
    if rank < 0 and kind in ("integer", "double"):  # above the real and the generated values
        value = max([*present, *pool], key=float) + FRESH - 1 - rank
    elif rank < 0 and kind == "text":
        value = f"parrot {len(present) - rank}"
    elif rank < 0:
        value = pool[_TYPICAL.get(kind, 1) % len(pool)]
    elif quantile is not None:
        ordered = sorted(present or set(pool), key=lambda v: (type(v).__name__, v))
        value = ordered[min(int(len(ordered) * quantile), len(ordered) - 1)]
    elif present:
        common = sorted(Counter(present).items(), key=lambda kv: (-kv[1], str(kv[0])))
        value = common[min(rank, len(common) - 1)][0]
    else:
        value = pool[(_TYPICAL.get(kind, 1) + rank) % len(pool)]
    with contextlib.suppress(TypeError, ValueError):  # a stand-in the type does not know
        value = storage_text(value, ptype)
    return _literal(value, ptype)


def _literal(value: Any, ptype: str) -> str:
    if ptype == "boolean":
        return "TRUE" if value else "FALSE"
    if ptype in ("integer", "bigint", "double") or ptype.startswith("decimal"):
        return str(value)
    return "'" + str(value).replace("'", "''") + "'"
