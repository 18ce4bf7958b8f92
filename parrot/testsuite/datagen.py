"""Query-aware test data: small fixtures built to make a query's result say something, and to
separate it from plausible wrong translations.

:func:`infer_schema` reads the query's AST: the tables it reads, the columns it uses (resolved
through aliases; an unqualified column goes to the table of its own SELECT that has it), a type
for each column from how it is used (compared with a number, a date-like string or a string;
inside arithmetic, string or date functions; used as a condition; else from its name), the
literals it is compared with, and which columns are joined to each other. With a ``base`` fixture
(a real database) tables, columns and types come from it instead, and its rows seed the values.

:func:`generate` writes ``rounds`` fixtures, deterministic under ``seed``. Round 0 is friendly:
values mostly from the query's literals, so filters select rows and joins match. Later rounds are
adversarial: NULLs, duplicated rows, ties, empty strings, mixed case and trailing spaces, zero
(divisors), negative numbers and boundary dates (leap day, year end).

Constraints and domains come from the base fixture: date and timestamp columns stay within the span
of their real values (or take the dates the query compares them with ± 1 day), primary keys stay
unique, columns unique only by observation (names, e-mails) stay unique except in the twins of
every fourth round (a generator may duplicate what no constraint declares unique), whole rows are
duplicated only in tables without a key or observed-unique column (keys and observed-unique columns
not joined are dealt distinct values, so no row is lost; every fourth round from round 1 the
observed-unique ones share two values: two keyed rows with one name), NOT NULL columns get no NULLs
(nor do primary-key columns, which Spider declares nullable), a column compared with its own
unfiltered average (``age >= (SELECT AVG(age) ...)``) has a row exactly at the average every third
round from round 2, every sixth round from round 5 one row of each table no key of another refers
to has twins up to a COUNT literal the query compares (``HAVING COUNT(*) > 10``: 10 or 11 copies),
a text column with real values draws only from them and the query's literals (no synthetic 'abc' in
a phone or JSON column), numeric columns whose real values are all non-negative get no
negatives, and integer columns of epoch seconds (every real value between 1980 and 2100) stay
within a year of their real span. ``dialects`` names every engine of the item: text values that
only differ by case or trailing spaces are kept only when none of them folds those together
(:mod:`parrot.dialects`). Join groups match the fixture's columns in any case (Spider's
``t1.stuid`` is ``StuID``), and a text column joined to an integer one (Spider's
``concert.Stadium_ID``) draws the integers as text, so that the join matches.

Boundaries: a numeric literal compared with a column gives the column the literal and ± 1
(integer and decimal/double columns alike); a literal compared with an expression computed from
columns (``SUM(q * p) >= 300``, ``ROUND(x, 2) > 5``) gives those columns the literal too; and
every integer literal the query compares (as seconds, minutes and days) and every INTERVAL give
date and timestamp columns values that far from a real one (dates: that many days and ± 1 day;
timestamps: ± 1 second only, see :func:`_shifted`), while twins of such tables are moved by one
of those distances from their row (a session gap of 1799 or 1801 s).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import random
import re
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

from parrot.dialects import DIALECTS
from parrot.dialects.splitter import splitter
from parrot.fixtures import (
    Fixture,
    Table,
    decimal_scale,
    fixture_to_json,
    name_problem,
    storage_text,
)
from parrot.testsuite.operators import ARITHMETIC

_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_TIMESTAMP = re.compile(r"^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?$")
_TEXT_FUNCS = (
    exp.Upper,
    exp.Lower,
    exp.Length,
    exp.Substring,
    exp.Trim,
    exp.Concat,
    exp.DPipe,
    exp.Initcap,
    exp.Left,
    exp.Right,
    exp.StrPosition,
    exp.Like,
    exp.ILike,
    exp.RegexpLike,
    exp.GroupConcat,
)
_NUM_FUNCS = (
    *ARITHMETIC,
    exp.Sum,
    exp.Avg,
    exp.Round,
    exp.Abs,
    exp.Floor,
    exp.Ceil,
    exp.Sqrt,
    exp.Pow,
    exp.Ln,
    exp.Stddev,
    exp.Variance,
    exp.Neg,
)
_COMPARE = (exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.NullSafeEQ, exp.Is)
_VOLATILE = (
    exp.Rand,
    exp.CurrentDate,
    exp.CurrentTimestamp,
    exp.CurrentTime,
    exp.Uuid,
    exp.CurrentDatetime,
)
_VOLATILE_NAMES = frozenset(
    {
        "NOW",
        "RANDOM",
        "RAND",
        "UUID",
        "NEWID",
        "SYSDATE",
        "GETDATE",
        "RANDOMBLOB",
        "GEN_RANDOM_UUID",
        "RANDCANONICAL",
    }
)
_TEXT_NAMES = re.compile(
    r"name|title|desc|city|country|email|type|code|status|address|text|"
    r"comment|label|street|state|gender|sex|nationality|color|role|model",
    re.IGNORECASE,
)
_DATE_NAMES = re.compile(r"date|_at$|time|year_month|day$", re.IGNORECASE)

EDGES: dict[str, list[Any]] = {
    "integer": [0, 1, 2, 3, 5, 7, -1, -4, 10, 100],
    "double": [0.0, 0.5, 1.25, -2.5, 3.0, 100.0, 2.71828, 0.333],
    "text": ["", "a", "A", "b", "abc", "abc ", " Zeta", "x"],
    "date": ["2024-02-29", "2023-12-31", "2024-01-01", "2000-01-01", "2024-03-01"],
    "timestamp": [
        "2024-02-29 12:00:00",
        "2023-12-31 23:59:59",
        "2024-01-01 00:00:00",
        "2024-01-01 08:30:00.5",
    ],
    "boolean": [True, False],
}
JOIN_POOL: dict[str, list[Any]] = {"integer": [1, 2, 3, 4, 5, 6], "text": ["a", "b", "c", "d"]}
UNIQUE_JOIN_POOL = list(range(1, 11))  # a key joined to: more values than referencing columns


class SchemaError(ValueError):
    """A query whose tables and columns cannot be turned into a fixture."""


@dataclass
class ColumnInfo:
    name: str
    type: str = ""  # portable type; empty until evidence or the default decides
    literals: list[Any] = field(default_factory=list)
    group: int | None = None  # join group: columns compared with each other share values
    digits: bool = False  # a text column joined to an integer one: draws the integers as text
    nullable: bool = True
    unique: bool = False  # the single-column primary key of the base fixture
    observed_unique: bool = False  # unique in the base fixture's rows only (not declared)
    non_negative: bool = False  # numeric, and every real value is >= 0
    enumeration: tuple[Any, ...] = ()  # the few distinct real values of a text column
    span: tuple[str, str] | None = None  # date/timestamp: the real values' first and last
    query_dates: list[Any] = field(default_factory=list)  # dates the query names elsewhere
    offsets: list[int] = field(default_factory=list)  # seconds the query compares differences with
    mean_boundary: bool = False  # compared with (SELECT AVG(itself) FROM its table)
    grouped: bool = False  # a GROUP BY key (or inside one)
    ordered: bool = False  # an ORDER BY key (or inside one)
    epoch: tuple[int, int] | None = None  # integer epoch seconds: the real values' span


@dataclass
class QuerySchema:
    """The tables a query reads, with the columns it uses, in first-use order."""

    tables: dict[str, dict[str, ColumnInfo]] = field(default_factory=dict)
    primary_keys: dict[str, tuple[str, ...]] = field(default_factory=dict)
    counts: list[int] = field(default_factory=list)  # literals COUNT(...) is compared with

    def column(self, table: str, name: str) -> ColumnInfo:
        cols = self.tables[table]
        for key, info in cols.items():
            if key.lower() == name.lower():
                return info
        cols[name] = ColumnInfo(name)
        return cols[name]


def parse_query(sql: str, dialect: str) -> exp.Expr:
    """The query's AST, or SchemaError when it is not a single query: the dialect's splitter
    (the engines') counts the statements, sqlglot parses the one there is."""
    statements = splitter(dialect).split(sql)
    if len(statements) != 1:
        raise SchemaError("not a single query")
    try:
        trees = [
            t
            for t in sqlglot.parse(statements[0], read=dialect)
            if t is not None and not isinstance(t, exp.Semicolon)
        ]
    except (SqlglotError, RecursionError, ValueError) as exc:
        raise SchemaError(f"unparseable: {str(exc).splitlines()[0][:200]}") from None
    if len(trees) != 1 or not isinstance(trees[0], exp.Query):
        raise SchemaError("not a single query")
    return trees[0]


def volatile(tree: exp.Expr) -> bool:
    """Whether the query calls a function whose value changes between runs."""
    for node in tree.walk():
        if isinstance(node, _VOLATILE):
            return True
        if isinstance(node, exp.Anonymous) and node.name.upper() in _VOLATILE_NAMES:
            return True
    return False


_ORDER_DEPENDENT = (
    exp.FirstValue,
    exp.LastValue,
    exp.NthValue,
    exp.RowNumber,
    exp.Lag,
    exp.Lead,
    exp.Ntile,
)


def order_dependent_window(tree: exp.Expr) -> bool:
    """Whether the query has a window function whose value depends on the order of rows inside
    its partition (``NTH_VALUE(x, 2) OVER (PARTITION BY k)``) with no ORDER BY to fix it: any
    engine, and any run, may answer otherwise. A named window (``OVER w``) is not judged."""
    return any(
        isinstance(w.this, _ORDER_DEPENDENT) and not w.args.get("order") and not w.args.get("alias")
        for w in tree.find_all(exp.Window)
    )


def _literal_value(node: exp.Expr) -> Any:
    """The Python value of a (possibly negated) literal, else None."""
    negative = False
    if isinstance(node, exp.Neg):
        node, negative = node.this, True
    if not isinstance(node, exp.Literal):
        return None
    if node.is_string:
        return None if negative else node.this
    text = node.this
    try:
        value: Any = int(text) if re.fullmatch(r"\d+", text) else float(text)
    except ValueError:
        return None
    return -value if negative else value


def _type_of_value(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "double"
    if _DATE.match(value):
        return "date"
    if _TIMESTAMP.match(value):
        return "timestamp"
    return "text"


def _like_values(pattern: str) -> list[str]:
    """Strings matching a LIKE pattern (and one that almost does)."""
    base = pattern.replace("_", "x")
    return [base.replace("%", ""), base.replace("%", "z"), base.replace("%", "").upper()]


class _Groups:
    """Union-find over (table, column) pairs compared with each other; column names are
    case-insensitive (a query's ``t1.stuid`` is the fixture's ``StuID``)."""

    def __init__(self) -> None:
        self.parent: dict[tuple[str, str], tuple[str, str]] = {}

    def __contains__(self, x: tuple[str, str]) -> bool:
        return (x[0], x[1].lower()) in self.parent

    def find(self, x: tuple[str, str]) -> tuple[str, str]:
        x = (x[0], x[1].lower())
        self.parent.setdefault(x, x)
        while self.parent[x] != x:
            self.parent[x] = self.parent[self.parent[x]]
            x = self.parent[x]
        return x

    def union(self, a: tuple[str, str], b: tuple[str, str]) -> None:
        self.parent[self.find(a)] = self.find(b)


def _scope_tables(select: exp.Expr | None, alias_of: dict[str, str]) -> list[str]:
    """Tables read directly by one SELECT (its FROM and JOINs, not subqueries)."""
    if not isinstance(select, exp.Select):
        return []
    nodes: list[exp.Expr] = []
    source = select.args.get("from") or select.args.get("from_")
    if isinstance(source, exp.From):
        nodes.append(source.this)
    nodes.extend(j.this for j in select.args.get("joins") or [])
    return [
        alias_of[n.alias_or_name.lower()]
        for n in nodes
        if isinstance(n, exp.Table) and n.alias_or_name.lower() in alias_of
    ]


def infer_schema(tree: exp.Expr, base: Fixture | None = None) -> QuerySchema:
    """Tables and columns ``tree`` reads, with types, literals and join groups."""
    if base is not None:
        tree = _quoted_strings(tree, base)
    ctes = {c.alias_or_name.lower() for c in tree.find_all(exp.CTE)}
    derived = {s.alias_or_name.lower() for s in tree.find_all(exp.Subquery) if s.alias}
    base_tables = {t.name.lower(): t for t in base.tables} if base is not None else {}
    schema, alias_of = _tables_read(tree, base, base_tables, ctes)
    if not schema.tables:
        return schema
    lambdas = {p.name.lower() for lam in tree.find_all(exp.Lambda) for p in lam.expressions}
    groups = _Groups()
    resolved: dict[int, tuple[str, str]] = {}
    for col in tree.find_all(exp.Column):
        if isinstance(col.this, exp.Star) or not col.name or col.name.lower() in lambdas:
            continue
        table = _owner(col, schema, alias_of, ctes | derived, base_tables)
        if table is None:
            continue
        info = schema.column(table, col.name)
        if problem := name_problem(info.name):
            raise SchemaError(f"column name {info.name!r} {problem}")
        resolved[id(col)] = (table, info.name)
        _evidence(col, info)
        info.grouped = info.grouped or col.find_ancestor(exp.Group) is not None
        info.ordered = info.ordered or col.find_ancestor(exp.Order) is not None
    through = _derived_columns(tree, resolved)
    for node in tree.find_all(exp.EQ, exp.NullSafeEQ):
        left, right = (_resolve(side, resolved, through) for side in (node.this, node.expression))
        if left and right:
            groups.union(left, right)
    for member in tree.find_all(exp.In):  # c.id IN (SELECT o.customer_id ...)
        query = member.args.get("query")
        inner = query.this if isinstance(query, exp.Subquery) else query
        left = _resolve(member.this, resolved, through)
        if left and isinstance(inner, exp.Select) and len(inner.expressions) == 1:
            right = _resolve(inner.expressions[0].unalias(), resolved, through)
            if right:
                groups.union(left, right)
    _finish(schema, groups, base_tables)
    for table, name in _mean_boundaries(tree, resolved):
        schema.column(table, name).mean_boundary = True
    schema.counts = _count_literals(tree)
    _attach_dates(tree, schema)
    return schema


def _tables_read(
    tree: exp.Expr, base: Fixture | None, base_tables: dict[str, Table], ctes: set[str]
) -> tuple[QuerySchema, dict[str, str]]:
    """The tables ``tree`` reads (fixture spelling when there is a fixture), and each alias's
    table."""
    schema = QuerySchema()
    alias_of: dict[str, str] = {}
    for t in tree.find_all(exp.Table):
        if not isinstance(t.this, exp.Identifier) or t.name.lower() in ctes:
            continue
        if (t.args.get("db") or t.args.get("catalog")) and (
            base is None or t.name.lower() not in base_tables
        ):
            raise SchemaError(f"qualified table name {t.sql()!r}")
        name = t.name
        if base is not None and name.lower() == "dual" and name.lower() not in base_tables:
            continue  # MySQL's and Oracle's one-row FROM dual reads no table
        if base is not None:
            if name.lower() not in base_tables:
                raise SchemaError(f"table {name!r} is not in fixture {base.name!r}")
            name = base_tables[name.lower()].name
        existing = next((k for k in schema.tables if k.lower() == name.lower()), None)
        if existing is None:
            if problem := name_problem(name):
                raise SchemaError(f"table name {name!r} {problem}")
            schema.tables[name] = {}
            existing = name
        alias_of[t.alias_or_name.lower()] = existing
        alias_of.setdefault(name.lower(), existing)
    return schema, alias_of


def _attach_dates(tree: exp.Expr, schema: QuerySchema) -> None:
    """Date and timestamp columns without literals of their own get the query's date
    literals; every one gets the query's offsets (calendars, spans)."""
    dates = list(
        dict.fromkeys(
            lit.this
            for lit in tree.find_all(exp.Literal)
            if lit.is_string and (_DATE.match(lit.this) or _TIMESTAMP.match(lit.this))
        )
    )
    offsets = _offsets(tree)
    for cols in schema.tables.values():
        for info in cols.values():
            if info.type in ("date", "timestamp") and not info.literals:
                info.query_dates.extend(dates)
            if info.type in ("date", "timestamp"):
                info.offsets = offsets


def _quoted_strings(tree: exp.Expr, base: Fixture) -> exp.Expr:
    """``tree`` with each unqualified double-quoted name that is no column of ``base`` nor an
    alias of the query read as the string it is in SQLite and MySQL (Spider's ``WHERE
    SourceAirport = "APG"``), so that its value reaches the generated data."""
    names = {c.name.lower() for t in base.tables for c in t.columns}
    names |= {a.alias.lower() for a in tree.find_all(exp.Alias, exp.TableAlias, exp.CTE) if a.alias}

    def literal(node: exp.Expr) -> exp.Expr:
        quoted = (
            isinstance(node, exp.Column)
            and isinstance(node.this, exp.Identifier)
            and node.this.quoted
            and not node.table
        )
        if quoted and node.name.lower() not in names:
            return exp.Literal.string(node.name)
        return node

    return tree.transform(literal)


MAX_COUNT = 50  # the largest COUNT literal a group is grown to
EPOCH_LOW, EPOCH_HIGH = 315_532_800, 4_102_444_800  # 1980 .. 2100 in epoch seconds
YEAR = 366 * 86400


def _count_literals(tree: exp.Expr) -> list[int]:
    """Integer literals from 2 to :data:`MAX_COUNT` that a COUNT is compared with (``HAVING
    COUNT(*) > 10``, ``BETWEEN 0 AND 2``): a group of that many rows, or one more, is where
    ``> 10`` and ``> 9`` differ, and random tables of 12 rows rarely hold one."""
    out: set[int] = set()
    for node in tree.find_all(*_COMPARE, exp.Between):
        if not isinstance(node.this, exp.Count) and not isinstance(node.expression, exp.Count):
            continue
        others = (
            [node.args["low"], node.args["high"]]
            if isinstance(node, exp.Between)
            else [node.expression, node.this]
        )
        out.update(
            v for v in map(_literal_value, others) if isinstance(v, int) and 2 <= v <= MAX_COUNT
        )
    return sorted(out)


def _mean_boundaries(tree: exp.Expr, resolved: dict[int, tuple[str, str]]) -> set[tuple[str, str]]:
    """Columns compared with the unfiltered average of themselves (``age >= (SELECT AVG(age)
    FROM singer)``): a row exactly at the average tells ``>=`` from ``>``."""
    out: set[tuple[str, str]] = set()
    for node in tree.find_all(*_COMPARE):
        for col, other in ((node.this, node.expression), (node.expression, node.this)):
            inner = other.this if isinstance(other, exp.Subquery) else None
            if (
                not isinstance(col, exp.Column)
                or id(col) not in resolved
                or not isinstance(inner, exp.Select)
                or inner.args.get("where")
                or len(inner.expressions) != 1
            ):
                continue
            avg = inner.expressions[0].unalias()
            if (
                isinstance(avg, exp.Avg)
                and isinstance(avg.this, exp.Column)
                and resolved.get(id(avg.this)) == resolved[id(col)]
            ):
                out.add(resolved[id(col)])
    return out


def _derived_columns(
    tree: exp.Expr, resolved: dict[int, tuple[str, str]]
) -> dict[tuple[str, str], tuple[str, str]]:
    """(derived table or CTE alias, output column) -> the base column it projects unchanged, so
    that ``k.customer_id = c.id`` over ``(SELECT o.customer_id ...) k`` joins ``c.id`` with
    ``orders.customer_id``."""
    out: dict[tuple[str, str], tuple[str, str]] = {}
    for node in [*tree.find_all(exp.Subquery), *tree.find_all(exp.CTE)]:
        body = node.this
        if not node.alias or not isinstance(body, exp.Select):
            continue
        for e in body.expressions:
            inner = e.unalias()
            if isinstance(inner, exp.Column) and id(inner) in resolved:
                out.setdefault((node.alias.lower(), e.alias_or_name.lower()), resolved[id(inner)])
    return out


def _resolve(
    node: exp.Expr | None,
    resolved: dict[int, tuple[str, str]],
    through: dict[tuple[str, str], tuple[str, str]],
) -> tuple[str, str] | None:
    """The base column a comparison side names, directly or through a derived table."""
    if not isinstance(node, exp.Column):
        return None
    return resolved.get(id(node)) or through.get((node.table.lower(), node.name.lower()))


_UNIT_SECONDS = {"SECOND": 1, "MINUTE": 60, "HOUR": 3600, "DAY": 86400, "WEEK": 604800}


def _offsets(tree: exp.Expr) -> list[int]:
    """Time differences (seconds) the query may compare: each integer literal compared with
    something as seconds, minutes and days, and each INTERVAL literal — so that generated
    times can lie exactly that far apart (a session gap, an age in days)."""
    out: set[int] = set()
    for interval in tree.find_all(exp.Interval):
        unit = interval.args.get("unit")
        value = _literal_value(interval.this) if interval.this is not None else None
        if isinstance(value, str) and value.strip().isdigit():
            value = int(value)
        name = unit.name.upper().rstrip("S") if unit is not None else ""
        if isinstance(value, int) and name in _UNIT_SECONDS:
            out.add(value * _UNIT_SECONDS[name])
    for node in tree.find_all(*_COMPARE):
        for side in (node.this, node.expression):
            value = _literal_value(side) if isinstance(side, exp.Expr) else None
            if isinstance(value, int) and not isinstance(value, bool) and 0 < value <= 100000:
                out.update({value, value * 60, value * 86400})
    return sorted(out)


def _owner(
    col: exp.Column,
    schema: QuerySchema,
    alias_of: dict[str, str],
    other: set[str],
    base_tables: dict[str, Any],
) -> str | None:
    """The table a column belongs to, or None when it names something else (an alias of an
    output column, a CTE's or subquery's column, a struct field)."""
    qualifier = col.table.lower()
    if qualifier:
        return alias_of.get(qualifier) if qualifier not in other or qualifier in alias_of else None
    select = col.find_ancestor(exp.Select)
    scope = _scope_tables(select, alias_of)
    if isinstance(select, exp.Select):
        aliases = {e.alias.lower() for e in select.expressions if isinstance(e, exp.Alias)}
        in_projection = any(col is e or col in e.find_all(exp.Column) for e in select.expressions)
        if col.name.lower() in aliases and not in_projection:
            return None  # ORDER BY / HAVING naming an output column
    if not scope:
        return None if select is not None and select.args.get("from") else next(iter(schema.tables))
    if base_tables:  # a real schema: the first table of the scope that has the column
        return next(
            (
                table
                for table in scope
                if any(
                    c.name.lower() == col.name.lower() for c in base_tables[table.lower()].columns
                )
            ),
            None,
        )
    for table in scope:  # a column the query already placed
        if any(k.lower() == col.name.lower() for k in schema.tables[table]):
            return table
    return scope[0]


_DERIVING = (
    exp.Add,
    exp.Sub,
    exp.Mul,
    exp.Sum,
    exp.Min,
    exp.Max,
    exp.Round,
    exp.Cast,
    exp.Paren,
    exp.Coalesce,
)


_DIVIDING = (exp.Div, exp.IntDiv, exp.Mod)


def _derived_literals(col: exp.Column) -> list[Any]:
    """Numeric literals compared with an expression that computes from ``col`` through
    arithmetic, SUM/MIN/MAX, ROUND or CAST (``SUM(q * p) >= 300``): the column may then take the
    literal itself, so that one row lands the expression on the boundary. An integer divisor of
    such an expression (``SUM(stock) / 50``) counts the same way: quotients change there."""
    node: exp.Expr = col
    divisors: list[Any] = []  # SUM(stock) / 50: a sum of 49, 50 or 51 moves the quotient
    while isinstance(node.parent, (*_DERIVING, *_DIVIDING)):
        if isinstance(node.parent, _DIVIDING) and node.parent.this is node:
            value = _literal_value(node.parent.expression)
            if isinstance(value, int) and not isinstance(value, bool) and value > 1:
                divisors.append(value)
        node = node.parent
    if divisors:
        return divisors
    parent = node.parent
    if node is col or not isinstance(parent, (*_COMPARE, exp.Between)):
        return []
    others = (
        [parent.args["low"], parent.args["high"]]
        if isinstance(parent, exp.Between)
        else [parent.expression if parent.this is node else parent.this]
    )
    return [v for v in map(_literal_value, others) if isinstance(v, int | float)]


def _evidence(col: exp.Column, info: ColumnInfo) -> None:
    """Learn a type and literals from the expression around one column reference."""
    parent = col.parent
    while isinstance(parent, exp.Paren):
        parent = parent.parent
    info.literals.extend(v for v in _derived_literals(col) if v not in info.literals)
    found: str | None = None
    if isinstance(parent, (*_COMPARE, exp.In, exp.Between)):
        others: list[exp.Expr] = []
        if isinstance(parent, exp.In):
            others = list(parent.expressions)
        elif isinstance(parent, exp.Between):
            others = [parent.args["low"], parent.args["high"]]
        else:
            others = [parent.expression if parent.this is col else parent.this]
        for other in others:
            value = _literal_value(other)
            if value is not None:
                info.literals.append(value)
                found = found or _type_of_value(value)
    elif isinstance(parent, exp.Like | exp.ILike) and parent.this is col:
        pattern = _literal_value(parent.expression)
        if isinstance(pattern, str):
            info.literals.extend(_like_values(pattern))
        found = "text"
    elif isinstance(parent, _TEXT_FUNCS):
        found = "text"
    elif isinstance(parent, _NUM_FUNCS):
        found = "integer"
    elif parent is not None and type(parent).__module__.endswith("temporal"):
        found = "timestamp" if "Time" in type(parent).__name__ else "date"
    elif isinstance(parent, exp.Where | exp.And | exp.Or | exp.Not | exp.Having):
        found = "boolean"
    if found and (not info.type or (info.type == "integer" and found == "double")):
        info.type = found


def _finish(schema: QuerySchema, groups: _Groups, base_tables: dict[str, Any]) -> None:
    """Default types, join groups, and at least one column per table."""
    roots: dict[tuple[str, str], int] = {}
    for table, cols in schema.tables.items():
        if base_tables:  # the whole real table, in its column order
            used = {k.lower(): v for k, v in cols.items()}
            cols.clear()
            real = base_tables[table.lower()]
            schema.primary_keys[table] = real.primary_key
            for i, c in enumerate(real.columns):
                info = used.get(c.name.lower(), ColumnInfo(c.name))
                info.name, info.type = c.name, c.type
                info.nullable = c.nullable and c.name not in real.primary_key  # Spider's keys
                _domain(info, [row[i] for row in real.rows], real.primary_key)
                cols[c.name] = info
        if not cols:
            cols["id"] = ColumnInfo("id", "integer")
        for info in cols.values():
            if not info.type:
                info.type = (
                    "text"
                    if _TEXT_NAMES.search(info.name)
                    else "date"
                    if _DATE_NAMES.search(info.name)
                    else "integer"
                )
            if (table, info.name) in groups:
                root = groups.find((table, info.name))
                info.group = roots.setdefault(root, len(roots))
    numeric = {
        i.group
        for cols in schema.tables.values()
        for i in cols.values()
        if i.group is not None and i.type in ("integer", "bigint")
    }
    for cols in schema.tables.values():  # Spider's concert.Stadium_ID (text) = stadium's integer
        for info in cols.values():
            info.digits = info.type == "text" and info.group in numeric


def _domain(info: ColumnInfo, values: list[Any], primary_key: tuple[str, ...]) -> None:
    """Learn uniqueness, sign and enumeration of one column from its real values."""
    present = [v for v in values if v is not None]
    info.unique = primary_key == (info.name,)
    info.observed_unique = not info.unique and (
        len(present) >= 2
        and len(present) == len(values)
        and len(set(present)) == len(present)
        and info.type in ("integer", "bigint", "text")
    )
    numeric = info.type in ("integer", "bigint", "double") or info.type.startswith("decimal")
    if numeric and present:
        info.non_negative = all(float(v) >= 0 for v in present)
    if (
        info.type in ("integer", "bigint")
        and present
        and all(EPOCH_LOW <= int(v) <= EPOCH_HIGH for v in present)
    ):
        info.epoch = (min(map(int, present)), max(map(int, present)))
    if info.type in ("date", "timestamp") and len(present) >= 2:
        texts = sorted(str(storage_text(v, info.type)) for v in present)
        info.span = (texts[0], texts[-1])
    distinct = set(present)
    if info.type == "text" and 0 < len(distinct) <= 8 and len(present) >= 2 * len(distinct):
        info.enumeration = tuple(sorted(distinct))


def folds_text(dialects: tuple[str, ...]) -> bool:
    """Whether some dialect's default collation folds case or trailing spaces."""
    for key in dialects:
        d = DIALECTS.get(key)
        if d is not None and (d.case_sensitive_strings is False or d.pad_space):
            return True
    return False


def _fold_distinct(values: list[Any]) -> list[Any]:
    """``values`` without those equal to an earlier one under case and trailing-space folding."""
    seen: set[str] = set()
    out = []
    for v in values:
        key = v.rstrip(" ").lower() if isinstance(v, str) else v
        if key in seen:
            continue
        seen.add(key)
        out.append(v)
    return out


# --- generation -----------------------------------------------------------------------------------


def _pool(info: ColumnInfo, sample: list[Any], edges: bool = True) -> list[Any]:
    kind = (
        "double"
        if info.type.startswith("decimal")
        else "integer"
        if info.type == "bigint"
        else info.type
    )
    values: list[Any] = []
    for lit in [*info.literals, *([] if not edges else info.query_dates)]:
        value = _coerce_literal(lit, kind)
        if value is not None:
            values.append(value)
            if kind in ("integer", "double") and isinstance(value, int | float):
                values.extend([value - 1, value + 1])
            elif kind == "text" and _number(lit):  # Spider's text year >= 2014: '2013'
                values.extend([str(lit - 1), str(lit + 1)])
            elif kind == "date" and _valid(value, dt.date.fromisoformat):
                day = dt.date.fromisoformat(value)
                values.extend(str(day + dt.timedelta(days=d)) for d in (-1, 1))
    if info.offsets and sample and kind in ("date", "timestamp"):
        values.extend(_shifted(sample[0], kind, info.offsets))
    values.extend(sample)
    if edges and not (kind == "text" and sample):  # real text keeps its format (JSON, names)
        values.extend(EDGES.get(kind, EDGES["text"]))
    return values


def _shifted(base: Any, kind: str, offsets: list[int]) -> list[str]:
    """``base`` (a date or timestamp text) moved by each offset and ± 1 of its unit: dates by the
    days themselves and ± 1 day, timestamps by ± 1 second only — a distance of exactly N
    seconds is where engines measuring it in floating-point days (SQLite's JULIANDAY) and in
    integer seconds disagree, which would separate equivalent queries."""
    out: list[str] = []
    try:
        if kind == "date":
            day = dt.date.fromisoformat(str(base))
            whole = {s // 86400 for s in offsets if s % 86400 == 0 and s <= 3660 * 86400}
            for days in sorted(whole):
                out.extend(str(day + dt.timedelta(days=d)) for d in (days - 1, days, days + 1))
        else:
            t = dt.datetime.fromisoformat(str(base))
            for secs in offsets:
                if secs <= 400 * 86400:
                    out.extend(str(t + dt.timedelta(seconds=d)) for d in (secs - 1, secs + 1))
    except (ValueError, OverflowError):
        return []
    return out


def _named(info: ColumnInfo) -> int:
    """How many values at the head of the column's pool come from the query's literals."""
    if info.type == "text":  # a string literal is one value, a number has its neighbours
        return sum(3 if _number(v) else 1 for v in info.literals)
    return 3 * (len(info.literals) + len(info.query_dates))  # a date's days around it too


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _coerce_literal(value: Any, kind: str) -> Any:
    if (
        isinstance(value, str)
        and kind in ("integer", "double")
        and re.fullmatch(r"-?\d+(\.\d+)?", value.strip())
    ):
        value = float(value) if "." in value else int(value)  # Population = "80000"
    if kind == "integer":
        return value if isinstance(value, int) and not isinstance(value, bool) else None
    if kind == "double":
        return float(value) if isinstance(value, int | float) else None
    if kind == "text":
        return value if isinstance(value, str) else str(value)
    if kind == "date":
        return value if isinstance(value, str) and _DATE.match(value) else None
    if kind == "timestamp":
        if isinstance(value, str) and _TIMESTAMP.match(value):
            return value.replace("T", " ")
        if isinstance(value, str) and _DATE.match(value):
            return value + " 00:00:00"
    return None


def _json_value(value: Any, ptype: str) -> Any:
    """``value`` in the JSON form a fixture column of ``ptype`` takes."""
    if value is None:
        return None
    if ptype.startswith("decimal"):
        scale = decimal_scale(ptype) or 0
        return str(Decimal(str(value)).quantize(Decimal(1).scaleb(-scale)))
    if ptype in ("integer", "bigint"):
        return int(value)
    if ptype == "double":
        return float(value)
    if ptype in ("date", "timestamp") and not isinstance(value, str):
        return storage_text(value, ptype)
    return value


def generate(
    schema: QuerySchema,
    *,
    rounds: int,
    seed: str,
    name: str,
    base: Fixture | None = None,
    dialects: tuple[str, ...] = (),
    first_round: int = 0,
    max_rows: int = 12,
    size: int | None = None,
    repeat: bool | None = None,
) -> list[dict[str, Any]]:
    """Fixtures (JSON form) for ``schema``, rounds ``first_round`` .. ``first_round + rounds -
    1``, at most ``max_rows`` rows per table (``size``: that many rows drawn per table); see the
    module docstring. ``repeat``: whether columns unique only by observation may repeat
    (default: every fourth round from round 1; a table of many rows needs it, or it keeps only
    as many rows as the column has real values)."""
    samples = _samples(schema, base, seed, folds_text(dialects))
    out = []
    for r in range(first_round, first_round + rounds):
        rng = random.Random(f"{seed}:{r}")
        tables = []
        for table, cols in schema.tables.items():
            infos = list(cols.values())
            n = size or min(max_rows - 2 * (r % 2), 8 if r == 0 else rng.randint(6, 12))
            rows = [
                [
                    _json_value(_value(info, samples[(table, info.name)], rng, r), info.type)
                    for info in infos
                ]
                for _ in range(n)
            ]
            _deal_keys(rows, infos, rng)
            repeats = r % 4 == 1 if repeat is None else repeat
            for j, info in enumerate(infos):
                if (info.unique or info.observed_unique) and info.group is None:
                    _deal_unique(
                        rows,
                        j,
                        info,
                        samples[(table, info.name)],
                        rng,
                        repeats and info.observed_unique,
                    )
            keys = schema.primary_keys.get(table, ())
            rows = _unique_rows(rows, infos, keys, repeats)
            _add_duplicates(rows, infos, keys, samples, table, r, max_rows, rng)
            if r % 3 == 2:
                for j, info in enumerate(infos):
                    if info.mean_boundary:
                        _at_mean(rows, j, info, rng)
            if (
                schema.counts
                and r % 6 == 5
                and rows
                and not any(i.unique and i.group is not None for i in infos)
            ):
                _grow_group(rows, infos, keys, samples, table, schema.counts, rng)
            tables.append(
                {
                    "name": table,
                    "columns": [
                        {"name": i.name, "type": i.type, "nullable": i.nullable} for i in infos
                    ],
                    "primary_key": list(keys),
                    "rows": rows,
                }
            )
        out.append({"name": f"{name}-r{r}", "tables": _every_table(tables, base)})
    return out


def _add_duplicates(
    rows: list[list[Any]],
    infos: list[ColumnInfo],
    keys: tuple[str, ...],
    samples: dict[tuple[str, str], Any],
    table: str,
    r: int,
    max_rows: int,
    rng: random.Random,
) -> None:
    """Round ``r`` > 0: whole-row duplicates in a table without keys, else (odd rounds) twins
    — rows equal but for their key — for ties and non-key duplicates."""
    if r > 0 and rows and not any(i.unique or i.observed_unique for i in infos) and not keys:
        for _ in range(rng.randint(1, 2)):  # duplicate rows
            rows.insert(rng.randrange(len(rows) + 1), list(rng.choice(rows)))
    elif r > 0 and rows and r % 2 == 1:  # twins: ties and non-key duplicates
        for _ in range(rng.randint(1, 3)):
            twin = _twin(
                rng.choice(rows),
                rows,
                infos,
                keys,
                samples,
                table,
                keep_observed=r % 4 == 3,
                rng=rng,
            )
            if twin is not None and len(rows) < max_rows:
                rows.insert(rng.randrange(len(rows) + 1), twin)


def _every_table(tables: list[dict[str, Any]], base: Fixture | None) -> list[dict[str, Any]]:
    """``tables`` (generated) and every other table of ``base`` with its own rows, in the base's
    order: a correct answer that reads a table the source does not (a text-to-SQL join) finds it
    on every suite database."""
    if base is None:
        return tables
    made = {t["name"].lower(): t for t in tables}
    kept = [
        made.pop(t.name.lower(), None) or fixture_to_json(Fixture(base.name, (t,)))["tables"][0]
        for t in base.tables
    ]
    return [*kept, *made.values()]


def _deal_keys(rows: list[list[Any]], infos: list[ColumnInfo], rng: random.Random) -> None:
    """Give each single-column integer key (declared or observed unique) of a join group
    distinct values, dealt in shuffled order: every row survives deduplication (drawing with
    replacement lost about a third of them, and with them the matches of the joins), and rows
    are inserted out of key order, so that an engine returning rows in insertion order (DuckDB,
    ClickHouse) shows a dropped ORDER BY."""
    for j, info in enumerate(infos):
        if (
            not (info.unique or info.observed_unique)
            or info.group is None
            or info.type not in ("integer", "bigint")
        ):
            continue
        values = rng.sample(range(1, max(len(UNIQUE_JOIN_POOL), len(rows)) + 1), len(rows))
        for row, value in zip(rows, values, strict=True):
            row[j] = value


def _deal_unique(
    rows: list[list[Any]],
    j: int,
    info: ColumnInfo,
    pool: list[Any],
    rng: random.Random,
    repeat: bool,
) -> None:
    """Give column ``j`` (a key or unique by observation, not joined) a distinct value in each
    row that drew one, the query's literals first: drawn with replacement, deduplication lost
    rows. With ``repeat`` the rows share two values instead, so that grouping by a name merges
    keyed rows and DISTINCT over it collapses them (``GROUP BY name`` for ``GROUP BY
    stadium_id``)."""
    named = _named(info)
    rest = pool[named:]
    rng.shuffle(rest)
    values = [_json_value(v, info.type) for v in dict.fromkeys([*pool[:named], *rest])]
    present = [row for row in rows if row[j] is not None]
    ints = [v for v in values if isinstance(v, int) and not isinstance(v, bool)]
    for k, row in enumerate(present):
        if repeat and len(present) > 12 and values:  # a large round: every value, in turn
            row[j] = values[k % len(values)]
        elif repeat:
            row[j] = rng.choice(values[:2])
        elif k < len(values):
            row[j] = values[k]
        elif ints:  # more rows than the pool has values (a large round): fresh integers
            row[j] = max(ints) + 1 + k - len(values)


def _at_mean(rows: list[list[Any]], j: int, info: ColumnInfo, rng: random.Random) -> None:
    """Make one row's integer value in column ``j`` the average of the column: another row's
    value is raised until the others' sum divides evenly. A key stays unique."""
    present = [row for row in rows if isinstance(row[j], int | float)]
    if (
        info.type not in ("integer", "bigint", "double")
        or len(present) < 3
        or any(float(row[j]) != int(row[j]) for row in present)
    ):
        return
    target, *others = rng.sample(present, len(present))
    values = [int(row[j]) for row in others]
    unique = info.unique  # observed-unique columns repeat in some rounds anyway
    for i, step in ((i, step) for step in range(3) for i in range(len(others))):
        raised = [*values]
        raised[i] += -sum(values) % len(values) + step * len(values)
        mean = sum(raised) // len(raised)
        if not unique or len({*raised, mean}) == len(raised) + 1:
            for row, value in zip(others, raised, strict=True):
                row[j] = _json_value(value, info.type)
            target[j] = _json_value(mean, info.type)
            return


def _grow_group(
    rows: list[list[Any]],
    infos: list[ColumnInfo],
    keys: tuple[str, ...],
    samples: dict[tuple[str, str], list[Any]],
    table: str,
    counts: list[int],
    rng: random.Random,
) -> None:
    """Add twins of one row (fresh keys, every other value kept: its join references and
    names) until it has a COUNT literal's number of copies or one more. Only for tables no
    other table's key refers to, so that a group of the query counts those rows."""
    row = rng.choice(rows)
    target = rng.choice(counts) + rng.choice((0, 1))
    plain = not keys and not any(i.unique or i.observed_unique for i in infos)
    for _ in range(target - 1):
        twin = (
            list(row)
            if plain
            else _twin(row, rows, infos, keys, samples, table, keep_observed=True)
        )
        if twin is None:
            return
        rows.insert(rng.randrange(len(rows) + 1), twin)


def _twin(
    row: list[Any],
    rows: list[list[Any]],
    infos: list[ColumnInfo],
    keys: tuple[str, ...],
    samples: dict[tuple[str, str], list[Any]],
    table: str,
    keep_observed: bool = False,
    rng: random.Random | None = None,
) -> list[Any] | None:
    """A copy of ``row`` with fresh values in its key columns and (unless ``keep_observed``) in
    its observed-unique ones, so it ties with ``row`` on every other column; None when a fresh
    value cannot be found. With ``rng``, a date or timestamp column the query measures
    differences of (:attr:`ColumnInfo.offsets`) is moved by one of them, or ± 1 of its unit:
    the twin then lies exactly on (or next to) the boundary from ``row``."""
    twin = list(row)
    for j, info in enumerate(infos):
        if (
            rng is not None
            and info.offsets
            and row[j] is not None
            and info.type in ("date", "timestamp")
        ):
            moved = _shifted(row[j], info.type, [rng.choice(info.offsets)])
            if moved:
                twin[j] = _json_value(rng.choice(moved), info.type)
    names = [i.name for i in infos]
    fresh_cols = [
        j for j, i in enumerate(infos) if i.unique or (i.observed_unique and not keep_observed)
    ]
    key_index = [names.index(k) for k in keys if k in names]
    if key_index and not any(j in fresh_cols for j in key_index):
        fresh_cols.append(key_index[-1])  # a composite key: a new last part is enough
    for j in fresh_cols:
        used = {r[j] for r in rows}
        if infos[j].type in ("integer", "bigint"):
            ints = [v for v in used if isinstance(v, int)]
            spare = (
                [v for v in UNIQUE_JOIN_POOL if v not in used] if infos[j].group is not None else []
            )
            # a joined key stays in the range its references are drawn from, so the twin joins
            twin[j] = (
                (rng.choice(spare) if rng is not None else spare[0])
                if spare
                else max(ints, default=0) + 1
            )
            continue
        options = [
            v for v in samples[(table, infos[j].name)] if _json_value(v, infos[j].type) not in used
        ]
        if not options:
            return None
        twin[j] = _json_value(options[0], infos[j].type)
    return twin


def _unique_rows(
    rows: list[list[Any]], infos: list[ColumnInfo], keys: tuple[str, ...], repeat: bool = False
) -> list[list[Any]]:
    """``rows`` without those repeating a unique column's value or the primary key (or with a
    NULL in the key); with ``repeat``, columns unique only by observation and not joined may
    repeat."""
    names = [i.name for i in infos]
    key_index = [names.index(k) for k in keys if k in names]
    unique_index = [
        j
        for j, i in enumerate(infos)
        if i.unique or (i.observed_unique and not (repeat and i.group is None))
    ]
    seen_keys: set[tuple[Any, ...]] = set()
    seen: dict[int, set[Any]] = {j: set() for j in unique_index}
    out = []
    for row in rows:
        key = tuple(row[j] for j in key_index)
        if key_index and (None in key or key in seen_keys):
            continue
        if any(row[j] is not None and row[j] in seen[j] for j in unique_index):
            continue
        seen_keys.add(key)
        for j in unique_index:
            seen[j].add(row[j])
        out.append(row)
    return out


def _value(info: ColumnInfo, pool: list[Any], rng: random.Random, round_: int) -> Any:
    if round_ > 0 and info.nullable and rng.random() < 0.2:
        return None
    if info.group is not None and info.type in JOIN_POOL:
        join_pool = (
            UNIQUE_JOIN_POOL
            if (info.unique or info.observed_unique) and info.type == "integer"
            else [str(v) for v in JOIN_POOL["integer"]]
            if info.digits
            else JOIN_POOL[info.type]
        )
        values = [
            v
            for v in join_pool + pool[: len(info.literals) * 3]
            if v is not None and _fits(v, info.type)
        ]
        return rng.choice(values)
    named = _named(info)
    if named and rng.random() < (0.6 if round_ == 0 else 0.35):
        return rng.choice(pool[:named])  # filters select
    return rng.choice(pool)


def _samples(
    schema: QuerySchema, base: Fixture | None, seed: str, fold: bool = False
) -> dict[tuple[str, str], list[Any]]:
    """Per column, the value pool: literals, a sample of the base fixture's values, edges."""
    out = {}
    rng = random.Random(seed)
    for table, cols in schema.tables.items():
        real = base.table(table) if base is not None else None
        for info in cols.values():
            sample: list[Any] = []
            if real is not None:
                index = real.column_names.index(info.name)
                distinct = list(
                    dict.fromkeys(row[index] for row in real.rows if row[index] is not None)
                )
                size = 12 if info.observed_unique else 6  # names: enough for every row
                sample = rng.sample(distinct, min(size, len(distinct)))
                sample = [storage_text(v, info.type) for v in sample]
            pool = [v for v in _pool(info, sample) if _fits(v, info.type)]
            if info.non_negative:
                pool = [v for v in pool if float(v) >= 0]
            if info.epoch:  # epoch seconds stay epoch seconds (a year around the real span)
                first, last = info.epoch
                named = set(_pool(info, [], edges=False))
                pool = [v for v in pool if v in named or first - YEAR <= v <= last + YEAR]
            if info.span:  # dates stay in the real span unless the query names them
                named = set(_pool(info, sample[:1], edges=False))
                low, high = info.span
                pool = [v for v in pool if v in named or low <= v <= high]
            if info.enumeration:
                allowed = set(info.enumeration) | set(_pool(info, [], edges=False))
                pool = [v for v in pool if v in allowed] or list(info.enumeration)
            if fold:
                pool = _fold_distinct(pool)
            out[(table, info.name)] = pool
    return out


def _fits(value: Any, ptype: str) -> bool:
    """Whether ``value`` can be stored in a column of ``ptype`` (decimals: within precision)."""
    if ptype.startswith("decimal"):
        try:
            d = Decimal(str(value))
        except ArithmeticError:
            return False
        return d.is_finite() and abs(d) < Decimal(10) ** 15
    if ptype in ("integer", "bigint"):
        return isinstance(value, int) and not isinstance(value, bool) and abs(value) < 2**31
    if ptype == "date":
        return isinstance(value, str) and _valid(value, dt.date.fromisoformat)
    if ptype == "timestamp":
        return isinstance(value, str) and _valid(value, dt.datetime.fromisoformat)
    if ptype == "boolean":
        return isinstance(value, bool)
    if ptype == "double":
        return isinstance(value, int | float) and not isinstance(value, bool)
    return isinstance(value, str)


def _valid(text: str, parse: Any) -> bool:
    try:
        parse(text)
    except ValueError:
        return False
    return True


def fixture_name(key: str) -> str:
    """A short stable fixture name for a record."""
    return "gen-" + hashlib.sha256(key.encode()).hexdigest()[:12]


def query_test_data(
    sql: str,
    dialect: str,
    *,
    rounds: int,
    seed: str,
    name: str,
    base: Fixture | None = None,
    dialects: tuple[str, ...] = (),
    first_round: int = 0,
    max_rows: int = 12,
) -> list[dict[str, Any]]:
    """Infer the query's schema and generate ``rounds`` fixtures (see :func:`generate`)."""
    tree = parse_query(sql, dialect)
    if volatile(tree):
        raise SchemaError("volatile function (result changes between runs)")
    schema = infer_schema(tree, base)
    if not schema.tables:
        return []
    return generate(
        schema,
        rounds=rounds,
        seed=seed,
        name=name,
        base=base,
        dialects=(dialect, *dialects),
        first_round=first_round,
        max_rows=max_rows,
    )
