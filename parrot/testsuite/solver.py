"""Solver-built witnesses: a small database on which a source query and a neighbour differ.

After XData (Chandra, Sudarshan et al., VLDB Journal 2015), our own encoding on sqlglot's AST and
z3 (optional: ``pip install 'parrot-sql[solver]'``). Both queries are evaluated over a symbolic
database of ``k`` rows per table the query reads (k = 1 .. ``bound``), each row with a presence
bit and each nullable cell with a NULL bit; z3 is asked for a database on which the two results
differ (as bags; in order where the source orders and the neighbour's ORDER BY is not the
source's, or either has a LIMIT). The encoded fragment (anything else is :class:`Unsupported`,
never a guess):

* SELECT blocks (or a UNION [ALL] of them, without ORDER BY or LIMIT), no CTE, subquery,
  EXCEPT, INTERSECT or window; FROM one or more tables joined by comma, [INNER] JOIN or LEFT JOIN
  with an ON condition (self joins included);
* columns of type integer, bigint, double, decimal (as multiples of 1/4, 1/2 or 1 by scale),
  text (a finite domain: the queries' string literals and a few others) and date (days);
* WHERE / ON / HAVING: AND, OR, NOT, = <> < <= > >=, IS [NOT] NULL, IN (list), BETWEEN, LIKE
  (on text; case-insensitive on SQLite), in SQL's three-valued logic; + - * (no division),
  unary minus, NULLIF, COALESCE, CASE; SQLite's text-versus-integer-literal comparison as text;
* GROUP BY expressions, COUNT(*) / COUNT / SUM / MIN / MAX / AVG (with DISTINCT), COUNT_IF,
  HAVING,
  SELECT DISTINCT, ORDER BY (columns, aliases, positions; NULLs ordered as the dialect does),
  LIMIT n; dialects SQLite, DuckDB and PostgreSQL.

Integers range over [-1000, 1000] widened to the queries' literals, dates over 1970-2100.
Where the comparison is ordered, the encoding only looks at databases on which the ORDER BY keys
of each result are distinct (ties are judged as pools elsewhere), so no witness there is
:class:`Unknown`, not bounded-equivalent. Every witness is checked on the real engine by the
caller's ``verify`` before it is returned: one that does not separate the queries there is an
encoding bug, reported as :class:`Unknown` (``unverified``)."""

from __future__ import annotations

import datetime as dt
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlglot import exp

from parrot.fixtures import Fixture, FixtureError, fixture_from_json, fixture_to_json
from parrot.testsuite.datagen import SchemaError, parse_query

try:  # optional dependency (extra "solver"); everything here degrades to Unsupported without it
    import z3
except ImportError:  # pragma: no cover - exercised where z3-solver is absent
    z3 = None

NEED_Z3 = "solver witnesses need z3-solver: pip install 'parrot-sql[solver]'"
DEFAULT_BOUND = 3  # rows per table tried: 1 .. bound
DEFAULT_TIMEOUT_MS = 2000  # per z3 check
DIALECTS = frozenset({"sqlite", "duckdb", "postgres"})
_INT_RANGE = 1000
_MAX_K = 6  # rows per table tried at most (a LIMIT n raises the bound to n + 1 up to this)
_EPOCH = dt.date(1970, 1, 1)
_DATE_HI = (dt.date(2100, 12, 31) - _EPOCH).days
_NULLS_FIRST = frozenset({"sqlite"})  # ASC puts NULLs first (DuckDB, PostgreSQL: last)


def available() -> bool:
    """Whether z3-solver is importable."""
    return z3 is not None


@dataclass(frozen=True)
class Killed:
    """A database (every fixture table; the queried ones replaced) that separates the queries
    on the engine."""

    fixture: Fixture
    k: int
    seconds: float


@dataclass(frozen=True)
class BoundedEquivalent:
    """No database of at most ``bound`` rows per table separates the queries."""

    bound: int
    seconds: float


@dataclass(frozen=True)
class Unknown:
    reason: str
    seconds: float


@dataclass(frozen=True)
class Unsupported:
    reason: str


Outcome = Killed | BoundedEquivalent | Unknown | Unsupported


class _Unsupported(Exception):
    """A construct outside the fragment."""


@dataclass
class _V:
    """A symbolic SQL value: ``val`` (z3 term) meaningful when ``null`` is false. ``kind``:
    int, real, text (index into the domain), date (days), bool, lit (a string literal)."""

    kind: str
    val: Any
    null: Any
    lit: str = ""


@dataclass
class _Query:
    """The parts of one SELECT the encoder reads."""

    tree: exp.Query
    slots: list[tuple[str, str]]  # (alias, table) in FROM order
    joins: list[tuple[str, exp.Expr | None]]  # per slot after the first: (kind, ON)
    order: list[exp.Ordered]
    limit: int | None
    union: list[_Query] = field(default_factory=list)  # UNION [ALL]'s two SELECTs (or unions)


@dataclass
class _Row:
    """An output row candidate: presence and values, plus ORDER BY keys."""

    present: Any
    values: list[_V]
    # (key, descending, NULLs first)
    keys: list[tuple[_V, bool, bool]] = field(default_factory=list)


def _parts(tree: exp.Expr) -> _Query:
    if type(tree) is exp.Union:
        if any(tree.args.get(k) for k in ("order", "limit", "offset", "with_", "with")):
            raise _Unsupported("ORDER BY, LIMIT or WITH on a UNION")
        branches = [_parts(tree.left), _parts(tree.right)]
        if any(b.order or b.limit is not None for b in branches):
            raise _Unsupported("ORDER BY or LIMIT inside a UNION")
        return _Query(tree, [], [], [], None, union=branches)
    if not isinstance(tree, exp.Select):
        raise _Unsupported(f"{type(tree).__name__} (not a SELECT or UNION)")
    for key in ("with_", "with", "windows", "offset", "qualify", "distribute", "sort",
                "cluster", "into", "laterals", "pivots"):
        if tree.args.get(key):
            raise _Unsupported(key.rstrip("_").upper())
    if any(isinstance(n, exp.Subquery | exp.Window | exp.Exists) or
           (isinstance(n, exp.Select) and n is not tree) for n in tree.walk()):
        raise _Unsupported("subquery or window")
    source = tree.args.get("from_") or tree.args.get("from")
    if source is None:
        raise _Unsupported("no FROM")
    slots = [_slot(source.this)]
    joins: list[tuple[str, exp.Expr | None]] = []
    for j in tree.args.get("joins") or ():
        side, kind = (j.side or "").upper(), (j.kind or "").upper()
        if j.args.get("using") or j.method:
            raise _Unsupported("JOIN USING / NATURAL")
        if side == "LEFT" and kind in ("", "OUTER"):
            joins.append(("left", j.args.get("on")))
        elif not side and kind in ("", "INNER", "CROSS"):
            joins.append(("inner", j.args.get("on")))
        else:
            raise _Unsupported(f"{side} {kind} JOIN".strip())
        slots.append(_slot(j.this))
    limit = None
    if tree.args.get("limit") is not None:
        n = tree.args["limit"].expression
        if not (isinstance(n, exp.Literal) and n.is_int):
            raise _Unsupported("LIMIT that is not an integer literal")
        limit = int(n.this)
    order = list(tree.args["order"].expressions) if tree.args.get("order") else []
    return _Query(tree, slots, joins, order, limit)


def _slot(node: exp.Expr) -> tuple[str, str]:
    if not isinstance(node, exp.Table) or node.args.get("db") or isinstance(node.this, exp.Func):
        raise _Unsupported(f"FROM {type(node).__name__} (not a plain table)")
    return (node.alias_or_name.lower(), node.name.lower())


_COLUMN_KIND = {"integer": "int", "bigint": "int", "double": "real", "date": "date",
                "text": "text"}


def _kind_of(ptype: str) -> str:
    if ptype.startswith("decimal"):
        return "real"
    if ptype not in _COLUMN_KIND:
        raise _Unsupported(f"{ptype} column")
    return _COLUMN_KIND[ptype]


def _step(ptype: str) -> int:
    """Real columns hold multiples of 1/step (exact in binary and in the decimal's scale)."""
    m = re.match(r"decimal\(\d+,(\d+)\)", ptype)
    return min(4, 10 ** int(m[1])) if m else 4 if ptype == "double" else 1


def _literals(trees: Sequence[exp.Expr]) -> tuple[list[str], list[int]]:
    strings: set[str] = set()
    numbers: list[int] = []
    for tree in trees:
        for lit in tree.find_all(exp.Literal):
            if lit.is_string:
                strings.add(lit.this)
            else:
                try:
                    numbers.append(int(float(lit.this)))
                except (ValueError, OverflowError):
                    raise _Unsupported(f"numeric literal {lit.this}") from None
    return sorted(strings), numbers


def _domain(trees: Sequence[exp.Expr]) -> list[str]:
    """The text values a cell may hold: the literals, a string matching each LIKE pattern, and
    three others."""
    strings, _ = _literals(trees)
    out = set(strings) | {"a", "m", "zz"}
    out |= {str(int(lit.this)) for tree in trees for lit in tree.find_all(exp.Literal)
            if lit.is_int}  # SQLite compares text with an integer literal as text
    for tree in trees:
        for like in tree.find_all(exp.Like, exp.ILike):
            pattern = like.expression
            if isinstance(pattern, exp.Literal) and pattern.is_string:
                out.add(pattern.this.replace("%", "").replace("_", "x"))
                out.add(pattern.this.replace("%", "q").replace("_", "y"))
    return sorted(out)


class _Db:
    """The symbolic database: ``k`` rows for every table the queries read."""

    def __init__(self, fixture: Fixture, k: int, domain: list[str], ints: tuple[int, int]):
        self.k, self.domain, self.ints = k, domain, ints
        self.tables = {t.name.lower(): t for t in fixture.tables}
        self.cells: dict[tuple[str, int, str], _V] = {}
        self.present: dict[tuple[str, int], Any] = {}
        self.constraints: list[Any] = []

    def columns(self, table: str) -> list[str]:
        if table not in self.tables:
            raise _Unsupported(f"table {table} not in the fixture")
        return [c.name.lower() for c in self.tables[table].columns]

    def row(self, table: str, i: int) -> Any:
        if (table, i) not in self.present:
            self.present[(table, i)] = z3.Bool(f"p|{table}|{i}")
        return self.present[(table, i)]

    def cell(self, table: str, i: int, column: str) -> _V:
        key = (table, i, column)
        if key in self.cells:
            return self.cells[key]
        col = next(c for c in self.tables[table].columns if c.name.lower() == column)
        kind = _kind_of(col.type)
        name = f"{table}|{i}|{column}"
        raw = z3.Int(name)
        keyed = col.name in self.tables[table].primary_key
        null = z3.Bool("n|" + name) if col.nullable and not keyed else z3.BoolVal(False)
        lo, hi = {"int": self.ints, "real": (self.ints[0] * 4, self.ints[1] * 4),
                  "text": (0, len(self.domain) - 1), "date": (0, _DATE_HI)}[kind]
        self.constraints.append(z3.And(raw >= lo, raw <= hi))
        val = z3.ToReal(raw) / _step(col.type) if kind == "real" else raw
        self.cells[key] = _V(kind, val, null)
        return self.cells[key]

    def keys(self) -> None:
        """Primary keys hold among present rows (where every key column is encoded)."""
        for table, t in self.tables.items():
            pk = [c.lower() for c in t.primary_key]
            if not pk or not all((table, i, c) in self.cells for i in range(self.k) for c in pk):
                continue
            for i in range(self.k):
                for j in range(i + 1, self.k):
                    same = [self.cells[(table, i, c)].val == self.cells[(table, j, c)].val
                            for c in pk]
                    self.constraints.append(z3.Implies(
                        z3.And(self.row(table, i), self.row(table, j)), z3.Not(z3.And(*same))))


_T, _F = (z3.BoolVal(True), z3.BoolVal(False)) if z3 is not None else (None, None)
Ctx = dict[str, tuple[str, int | None]]  # alias -> (table, row or None: NULL-extended)


@dataclass
class _Group:
    """A group: its first row (``leader``) and every row with its membership."""

    leader: Ctx
    members: list[tuple[Any, Ctx]]
    keys: list[str]  # the GROUP BY expressions' SQL


class _Eval:
    """Evaluates expressions of one query over the symbolic database."""

    def __init__(self, db: _Db, q: _Query, dialect: str):
        self.db, self.q, self.dialect = db, q, dialect
        self.aliases = {e.alias.lower(): e.this for e in q.tree.selects
                        if isinstance(e, exp.Alias)}

    def column(self, node: exp.Column, ctx: Ctx) -> _V:
        name, qual = node.name.lower(), node.table.lower()
        hits = [a for a, (t, _) in ctx.items()
                if (a == qual if qual else True) and name in self.db.columns(t)]
        if len(hits) != 1:
            if not qual and name in self.aliases:
                raise _Unsupported(f"alias {name} used outside ORDER BY")
            raise _Unsupported(f"column {node.sql()} not resolved")
        table, row = ctx[hits[0]]
        if row is None:
            cell = self.db.cell(table, 0, name)
            return _V(cell.kind, cell.val, _T)
        return self.db.cell(table, row, name)

    def value(self, node: exp.Expr, ctx: Ctx | _Group) -> _V:
        if isinstance(node, exp.Paren | exp.Alias):
            return self.value(node.this, ctx)
        if isinstance(node, exp.AggFunc):
            if not isinstance(ctx, _Group):
                raise _Unsupported("aggregate outside SELECT / HAVING / ORDER BY")
            return self.aggregate(node, ctx)
        if isinstance(node, exp.Column):
            if isinstance(ctx, _Group):
                if not self.grouped(node, ctx):
                    raise _Unsupported(f"{node.sql()} neither grouped nor aggregated")
                return self.column(node, ctx.leader)
            return self.column(node, ctx)
        if isinstance(node, exp.Literal):
            return self.literal(node)
        if isinstance(node, exp.Null):
            return _V("null", z3.IntVal(0), _T)
        if isinstance(node, exp.Boolean):
            return _V("bool", z3.BoolVal(bool(node.this)), _F)
        if isinstance(node, exp.Neg):
            v = self.number(node.this, ctx)
            return _V(v.kind, -v.val, v.null)
        if isinstance(node, exp.Add | exp.Sub | exp.Mul):
            return self.arith(node, ctx)
        if isinstance(node, exp.Nullif | exp.Coalesce | exp.Case):
            return self.conditional(node, ctx)
        return self.truth(node, ctx)

    def grouped(self, node: exp.Column, g: _Group) -> bool:
        """Whether a column has one value per group: a GROUP BY key, or a column of a table
        whose primary key the GROUP BY holds (a functional dependency; not on DuckDB, which
        refuses it)."""
        if node.sql().lower() in g.keys or node.name.lower() in g.keys:
            return True
        if self.dialect == "duckdb":
            return False
        alias = node.table.lower() or next(
            (a for a, (t, _) in g.leader.items() if node.name.lower() in self.db.columns(t)), "")
        if alias not in g.leader:
            return False
        pk = [c.lower() for c in self.db.tables[g.leader[alias][0]].primary_key]
        return bool(pk) and all(f"{alias}.{c}" in g.keys or (len(g.leader) == 1 and c in g.keys)
                                for c in pk)

    def number(self, node: exp.Expr, ctx: Ctx | _Group) -> _V:
        v = self.value(node, ctx)
        if v.kind not in ("int", "real"):
            raise _Unsupported(f"arithmetic on {v.kind}: {node.sql()}")
        return v

    def arith(self, node: exp.Binary, ctx: Ctx | _Group) -> _V:
        a, b = self.number(node.this, ctx), self.number(node.expression, ctx)
        kind = "real" if "real" in (a.kind, b.kind) else "int"
        x, y = _as(a, kind), _as(b, kind)
        val = x + y if isinstance(node, exp.Add) else x - y if isinstance(node, exp.Sub) else x * y
        return _V(kind, val, z3.Or(a.null, b.null))

    def conditional(self, node: exp.Expr, ctx: Ctx | _Group) -> _V:
        if isinstance(node, exp.Nullif):
            a = self.value(node.this, ctx)
            same = _truth(_compare("=", a, self.value(node.expression, ctx)))
            return _V(a.kind, a.val, z3.Or(a.null, same))
        if isinstance(node, exp.Coalesce):
            branches = [(None, self.value(e, ctx)) for e in [node.this, *node.expressions]]
            branches = [(z3.Not(v.null), v) for _, v in branches]
            return _choose(branches, _V("null", z3.IntVal(0), _T))
        if node.this is not None:
            raise _Unsupported("CASE x WHEN ... (simple CASE)")
        branches = [(_truth(self.truth(i.this, ctx)), self.value(i.args["true"], ctx))
                    for i in node.args.get("ifs") or ()]
        default = node.args.get("default")
        other = (self.value(default, ctx) if default is not None
                 else _V("null", z3.IntVal(0), _T))
        return _choose(branches, other)

    def literal(self, node: exp.Literal) -> _V:
        if node.is_string:
            return _V("text", z3.IntVal(self.db.domain.index(node.this)), _F, lit=node.this)
        if node.is_int:
            return _V("int", z3.IntVal(int(node.this)), _F, lit=str(int(node.this)))
        return _V("real", z3.RealVal(node.this), _F)

    def truth(self, node: exp.Expr, ctx: Ctx | _Group) -> _V:
        """A boolean in three-valued logic (kind bool)."""
        if isinstance(node, exp.Paren):
            return self.truth(node.this, ctx)
        if isinstance(node, exp.And | exp.Or):
            a, b = self.truth(node.this, ctx), self.truth(node.expression, ctx)
            return _and(a, b) if isinstance(node, exp.And) else _not(_and(_not(a), _not(b)))
        if isinstance(node, exp.Not):
            return _not(self.truth(node.this, ctx))
        if isinstance(node, exp.Is):
            if not isinstance(node.expression, exp.Null):
                raise _Unsupported(f"IS {node.expression.sql()}")
            return _V("bool", self.value(node.this, ctx).null, _F)
        if isinstance(node, exp.Between):
            x = node.this
            return _and(self.truth(exp.GTE(this=x, expression=node.args["low"]), ctx),
                        self.truth(exp.LTE(this=x, expression=node.args["high"]), ctx))
        if isinstance(node, exp.In):
            if node.args.get("query") or node.args.get("unnest") or not node.expressions:
                raise _Unsupported("IN over a subquery")
            out = _V("bool", _F, _F)
            for e in node.expressions:
                out = _not(_and(_not(out), _not(self.truth(exp.EQ(this=node.this,
                                                                   expression=e), ctx))))
            return out
        if isinstance(node, exp.Like):
            return self.like(node, ctx)
        op = _OPS.get(type(node))
        if op is None:
            raise _Unsupported(type(node).__name__)
        a, b = self.affinity(self.value(node.this, ctx), self.value(node.expression, ctx))
        if op not in ("=", "<>"):
            self.ordered(a)
        return _compare(op, a, b)

    def affinity(self, a: _V, b: _V) -> tuple[_V, _V]:
        """SQLite compares a text value with an integer literal as text (the literal takes the
        column's TEXT affinity): ``'5'``."""
        if self.dialect != "sqlite" or {a.kind, b.kind} != {"text", "int"}:
            return a, b
        number = a if a.kind == "int" else b
        if not number.lit or number.lit not in self.db.domain:
            return a, b  # not a literal: compared as numbers are, unsupported below
        text = _V("text", z3.IntVal(self.db.domain.index(number.lit)), _F, lit=number.lit)
        return (text, b) if a is number else (a, text)

    def ordered(self, v: _V | None) -> None:
        """Text is ordered as its domain (code points): SQLite's and DuckDB's default
        collation, not PostgreSQL's locale collation."""
        if v is not None and v.kind == "text" and self.dialect not in ("sqlite", "duckdb"):
            raise _Unsupported(f"text ordered in {self.dialect}'s collation")

    def like(self, node: exp.Like, ctx: Ctx | _Group) -> _V:
        pattern = node.expression
        if node.args.get("escape") or not (isinstance(pattern, exp.Literal) and pattern.is_string):
            raise _Unsupported("LIKE with a non-literal pattern or ESCAPE")
        v = self.value(node.this, ctx)
        if v.kind != "text":
            raise _Unsupported("LIKE on a non-text value")
        regex = "".join(".*" if c == "%" else "." if c == "_" else re.escape(c)
                        for c in pattern.this)
        flags = re.IGNORECASE if self.dialect == "sqlite" else 0
        hits = [i for i, s in enumerate(self.db.domain)
                if re.fullmatch(regex, s, flags | re.DOTALL)]
        return _V("bool", z3.Or(_F, *[v.val == i for i in hits]), v.null)

    def aggregate(self, node: exp.AggFunc, g: _Group) -> _V:
        name = type(node).__name__.upper()
        arg = node.this
        distinct = isinstance(arg, exp.Distinct)
        if distinct:
            if len(arg.expressions) != 1:
                raise _Unsupported("aggregate over several DISTINCT expressions")
            arg = arg.expressions[0]
        if name == "COUNTIF":  # DuckDB's COUNT_IF(condition)
            return _fold("COUNT", [(z3.And(m, _truth(self.truth(arg, c))), _V("int", _T, _F))
                                   for m, c in g.members])
        if name not in ("COUNT", "SUM", "MIN", "MAX", "AVG") or (
                name != "COUNT" and isinstance(arg, exp.Star)):
            raise _Unsupported(f"aggregate {name}")
        if node.args.get("expressions") or (name == "COUNT" and node.expressions):
            raise _Unsupported(f"{name} with several arguments")
        if isinstance(arg, exp.Star):
            return _V("int", z3.Sum([z3.IntVal(0), *[z3.If(m, 1, 0) for m, _ in g.members]]),
                      _F)
        vals = [(m, self.value(arg, c)) for m, c in g.members]
        if name in ("MIN", "MAX") or distinct:
            self.ordered(vals[0][1] if vals else None)
        taken = []  # (counted, value): member, not NULL, first of its value when DISTINCT
        for i, (m, v) in enumerate(vals):
            here = z3.And(m, z3.Not(v.null))
            if distinct:
                here = z3.And(here, *[z3.Not(z3.And(m2, z3.Not(v2.null), _eq(v2, v)))
                                      for m2, v2 in vals[:i]])
            taken.append((here, v))
        return _fold(name, taken)


_OPS: dict[type[exp.Expr], str] = {exp.EQ: "=", exp.NEQ: "<>", exp.LT: "<", exp.LTE: "<=",
                                   exp.GT: ">", exp.GTE: ">="}


def _as(v: _V, kind: str) -> Any:
    return z3.ToReal(v.val) if kind == "real" and v.kind == "int" else v.val


def _truth(b: _V) -> Any:
    """Whether a three-valued boolean is TRUE."""
    return z3.And(z3.Not(b.null), b.val)


def _and(a: _V, b: _V) -> _V:
    false = z3.Or(z3.And(z3.Not(a.null), z3.Not(a.val)), z3.And(z3.Not(b.null), z3.Not(b.val)))
    return _V("bool", z3.And(_truth(a), _truth(b)), z3.And(z3.Not(false),
                                                           z3.Or(a.null, b.null)))


def _not(a: _V) -> _V:
    return _V("bool", z3.Not(a.val), a.null)


def _comparable(a: _V, b: _V) -> tuple[Any, Any]:
    """The two values as z3 terms of one sort, or _Unsupported."""
    kinds = {a.kind, b.kind}
    if kinds <= {"int", "real"}:
        kind = "real" if "real" in kinds else "int"
        return _as(a, kind), _as(b, kind)
    if len(kinds) == 1:
        return a.val, b.val
    if kinds == {"date", "text"}:
        lit = a if a.kind == "text" else b
        try:
            days = (dt.date.fromisoformat(lit.lit) - _EPOCH).days
        except ValueError:
            raise _Unsupported(f"date compared with {lit.lit!r}") from None
        day = z3.IntVal(days)
        return (day, b.val) if a is lit else (a.val, day)
    raise _Unsupported(f"{a.kind} compared with {b.kind}")


def _compare(op: str, a: _V, b: _V) -> _V:
    if "null" in (a.kind, b.kind):
        return _V("bool", _F, _T)
    x, y = _comparable(a, b)
    if a.kind == "bool" and op not in ("=", "<>"):
        raise _Unsupported("ordering booleans")
    val = {"=": lambda: x == y, "<>": lambda: x != y, "<": lambda: x < y,
           "<=": lambda: x <= y, ">": lambda: x > y, ">=": lambda: x >= y}[op]()
    return _V("bool", val, z3.Or(a.null, b.null))


def _eq(a: _V, b: _V) -> Any:
    """NULL-safe equality (two NULLs are the same value in a result)."""
    if "null" in (a.kind, b.kind):
        return z3.And(a.null, b.null)
    try:
        x, y = _comparable(a, b)
    except _Unsupported:
        return z3.And(a.null, b.null)
    return z3.Or(z3.And(a.null, b.null), z3.And(z3.Not(a.null), z3.Not(b.null), x == y))


def _choose(branches: list[tuple[Any, _V]], other: _V) -> _V:
    """The first branch whose condition holds, else ``other`` (CASE, COALESCE)."""
    kinds = {v.kind for _, v in branches} | {other.kind}
    kinds.discard("null")
    if len(kinds) > 1 and not kinds <= {"int", "real"}:
        raise _Unsupported(f"branches of kinds {sorted(kinds)}")
    kind = "real" if "real" in kinds else kinds.pop() if kinds else "null"
    val, null = (_as(other, kind) if other.kind != "null" else _zero(kind)), other.null
    for cond, v in reversed(branches):
        val = z3.If(cond, _as(v, kind) if v.kind != "null" else _zero(kind), val)
        null = z3.If(cond, v.null, null)
    return _V(kind, val, null)


def _zero(kind: str) -> Any:
    return {"real": z3.RealVal(0), "bool": _F}.get(kind, z3.IntVal(0))


def _fold(name: str, taken: list[tuple[Any, _V]]) -> _V:
    """An aggregate of the values counted (``taken``: (counted, value))."""
    count = z3.Sum([z3.IntVal(0), *[z3.If(c, 1, 0) for c, _ in taken]])
    if name == "COUNT":
        return _V("int", count, _F)
    kinds = {v.kind for _, v in taken} - {"null"} or {"int"}
    if name in ("SUM", "AVG") and not kinds <= {"int", "real"}:
        raise _Unsupported(f"{name} of {sorted(kinds)}")
    kind = "real" if "real" in kinds else kinds.pop()
    none = count == 0
    if name in ("SUM", "AVG"):
        total = z3.Sum([_zero(kind), *[z3.If(c, _as(v, kind), _zero(kind)) for c, v in taken]])
        if name == "SUM":
            return _V(kind, total, none)
        return _V("real", z3.If(none, z3.RealVal(0),
                                       (z3.ToReal(total) if kind == "int" else total)
                                       / z3.ToReal(count)), none)
    cur, empty = _zero(kind), _T
    for c, v in taken:
        x = _as(v, kind)
        better = x < cur if name == "MIN" else x > cur
        take = z3.And(c, z3.Or(empty, better))
        cur, empty = z3.If(take, x, cur), z3.And(empty, z3.Not(c))
    return _V(kind, cur, none)


def _tuples(ev: _Eval) -> list[tuple[Any, Ctx]]:
    """The FROM clause's rows after joins and WHERE: (presence, context)."""
    q, db = ev.q, ev.db
    alias0, table0 = q.slots[0]
    rows: list[tuple[Any, Ctx]] = [(db.row(table0, i), {alias0: (table0, i)})
                                   for i in range(db.k)]
    if len({a for a, _ in q.slots}) != len(q.slots):
        raise _Unsupported("a FROM alias used twice")
    for (alias, table), (kind, on) in zip(q.slots[1:], q.joins, strict=True):
        out: list[tuple[Any, Ctx]] = []
        for p, ctx in rows:
            matches = []
            for j in range(db.k):
                c = {**ctx, alias: (table, j)}
                hit = z3.And(p, db.row(table, j),
                             _truth(ev.truth(on, c)) if on is not None else _T)
                matches.append(hit)
                out.append((hit, c))
            if kind == "left":
                db.columns(table)
                out.append((z3.And(p, z3.Not(z3.Or(*matches))), {**ctx, alias: (table, None)}))
        rows = out
    where = q.tree.args.get("where")
    if where is not None:
        rows = [(z3.And(p, _truth(ev.truth(where.this, c))), c) for p, c in rows]
    return rows


def _grouped(q: _Query) -> bool:
    scopes = [*q.tree.expressions, *(o.this for o in q.order)]
    if q.tree.args.get("having") is not None:
        scopes.append(q.tree.args["having"])
    return bool(q.tree.args.get("group")) or any(s.find(exp.AggFunc) for s in scopes)


def _groups(ev: _Eval, rows: list[tuple[Any, Ctx]]) -> list[tuple[Any, _Group]]:
    """One candidate per row, present when the row is the first of its group (or, without
    GROUP BY, one group of every row, always present)."""
    group = ev.q.tree.args.get("group")
    exprs = list(group.expressions) if group else []
    if group and (group.args.get("rollup") or group.args.get("cube")
                  or group.args.get("grouping_sets")):
        raise _Unsupported("ROLLUP / CUBE / GROUPING SETS")
    exprs = [ev.aliases.get(e.name.lower(), e) if isinstance(e, exp.Column) and not e.table
             and e.name.lower() not in _all_columns(ev) else e for e in exprs]
    if any(isinstance(e, exp.Literal) for e in exprs):
        raise _Unsupported("GROUP BY position")
    names = [e.sql().lower() for e in exprs] + [e.name.lower() for e in exprs
                                                  if isinstance(e, exp.Column)]
    if not exprs:
        return [(_T, _Group(rows[0][1] if rows else {}, rows, names))]
    keys = [[ev.value(e, c) for e in exprs] for _, c in rows]
    out = []
    for i, (p, ctx) in enumerate(rows):
        same = [z3.And(*[_eq(a, b) for a, b in zip(keys[j], keys[i], strict=True)])
                for j in range(len(rows))]
        first = z3.And(p, *[z3.Not(z3.And(rows[j][0], same[j])) for j in range(i)])
        members = [(z3.And(rows[j][0], same[j]), rows[j][1]) for j in range(len(rows))]
        out.append((first, _Group(ctx, members, names)))
    return out


def _all_columns(ev: _Eval) -> set[str]:
    return {c for _, t in ev.q.slots for c in ev.db.columns(t)}


def _projection(ev: _Eval, ctx: Ctx | _Group) -> list[_V]:
    out: list[_V] = []
    for e in ev.q.tree.expressions:
        star = isinstance(e, exp.Star) or (isinstance(e, exp.Column)
                                           and isinstance(e.this, exp.Star))
        if not star:
            out.append(ev.value(e, ctx))
            continue
        if isinstance(ctx, _Group):
            raise _Unsupported("* in a grouped query")
        qualifier = e.table if isinstance(e, exp.Column) else ""  # a bare Star has no .table
        for alias, (table, _) in ctx.items():
            if not qualifier or qualifier.lower() == alias:
                out += [ev.column(exp.column(c, table=alias), ctx) for c in ev.db.columns(table)]
    return out


def _order_key(ev: _Eval, o: exp.Ordered, ctx: Ctx | _Group) -> _V:
    node = o.this
    if isinstance(node, exp.Literal) and node.is_int:
        position = int(node.this)
        if not 1 <= position <= len(ev.q.tree.expressions):
            raise _Unsupported(f"ORDER BY {position} out of range")
        return ev.value(ev.q.tree.expressions[position - 1], ctx)
    if isinstance(node, exp.Column) and not node.table and node.name.lower() in ev.aliases:
        return ev.value(ev.aliases[node.name.lower()], ctx)
    return ev.value(node, ctx)


def _result(ev: _Eval) -> list[_Row]:
    """The query's output rows (candidates, each with its presence) and their ORDER BY keys."""
    if ev.q.union:
        both = [r for b in ev.q.union for r in _result(_Eval(ev.db, b, ev.dialect))]
        return _distinct(both) if ev.q.tree.args.get("distinct") else both
    rows = _tuples(ev)
    units: list[tuple[Any, Ctx | _Group]] = list(_groups(ev, rows) if _grouped(ev.q) else rows)
    having = ev.q.tree.args.get("having")
    out: list[_Row] = []
    for p, ctx in units:
        if having is not None:
            p = z3.And(p, _truth(ev.truth(having.this, ctx)))
        keys = []
        for o in ev.q.order:
            key = _order_key(ev, o, ctx)
            ev.ordered(key)
            keys.append((key, bool(o.args.get("desc")), bool(o.args.get("nulls_first"))))
        out.append(_Row(p, _projection(ev, ctx), keys))
    if ev.q.tree.args.get("distinct"):
        if ev.q.tree.args["distinct"].args.get("on"):
            raise _Unsupported("DISTINCT ON")
        out = _distinct(out)
    return out


def _distinct(rows: list[_Row]) -> list[_Row]:
    """Each row present only where no earlier present row equals it."""
    return [_Row(z3.And(r.present, *[z3.Not(z3.And(s.present, _same(s, r)))
                                     for s in rows[:i]]), r.values, r.keys)
            for i, r in enumerate(rows)]


def _same(a: _Row, b: _Row) -> Any:
    if len(a.values) != len(b.values):
        raise _Unsupported("results of different widths")
    return z3.And(_T, *[_eq(x, y) for x, y in zip(a.values, b.values, strict=True)])


def _before(a: _Row, b: _Row) -> Any:
    """Whether ``a`` sorts strictly before ``b`` by the ORDER BY keys."""
    out, tied = _F, _T
    for (x, desc, first), (y, _, _) in zip(a.keys, b.keys, strict=True):
        u, v = _comparable(x, y)
        lt = (u > v) if desc else (u < v)
        nulls = z3.And(x.null, z3.Not(y.null)) if first else z3.And(z3.Not(x.null), y.null)
        strictly = z3.Or(nulls, z3.And(z3.Not(x.null), z3.Not(y.null), lt))
        out = z3.Or(out, z3.And(tied, strictly))
        tied = z3.And(tied, _eq(x, y))
    return out


def _ranked(rows: list[_Row], limit: int | None, constraints: list[Any]) -> list[tuple[Any, Any]]:
    """(kept, position) of each row, with ORDER BY keys distinct among present rows."""
    for i, r in enumerate(rows):
        for s in rows[i + 1:]:
            tie = z3.And(_T, *[_eq(x, y) for (x, _, _), (y, _, _) in zip(r.keys, s.keys,
                                                                          strict=True)])
            constraints.append(z3.Not(z3.And(r.present, s.present, tie)))
    out = []
    for r in rows:
        rank = z3.Sum([z3.IntVal(0), *[z3.If(z3.And(s.present, _before(s, r)), 1, 0)
                                       for s in rows if s is not r]])
        out.append((z3.And(r.present, rank < limit) if limit is not None else r.present, rank))
    return out


def _bag_differs(a: list[_Row], b: list[_Row]) -> Any:
    def count(rows: list[_Row], r: _Row) -> Any:
        return z3.Sum([z3.IntVal(0), *[z3.If(z3.And(s.present, _same(s, r)), 1, 0)
                                       for s in rows]])
    return z3.Or(_F, *[z3.And(r.present, count(a, r) != count(b, r)) for r in [*a, *b]])


def _list_differs(a: list[_Row], b: list[_Row], ka: list[tuple[Any, Any]],
                  kb: list[tuple[Any, Any]]) -> Any:
    size = [z3.Sum([z3.IntVal(0), *[z3.If(k, 1, 0) for k, _ in ks]]) for ks in (ka, kb)]
    clash = [z3.And(ki, kj, ri == rj, z3.Not(_same(x, y)))
             for x, (ki, ri) in zip(a, ka, strict=True) for y, (kj, rj) in zip(b, kb, strict=True)]
    return z3.Or(size[0] != size[1], *clash)


def _mode(a: _Query, b: _Query) -> str:
    """How the results are compared: 'bag', or 'ordered' (ORDER BY keys kept distinct)."""
    if not a.order:
        if a.limit is not None or b.limit is not None:
            raise _Unsupported("LIMIT without ORDER BY (judged as a pick)")
        return "bag"
    if not b.order:
        raise _Unsupported("the neighbour drops the ORDER BY (an order-only difference)")
    outputs = {e.sql().lower() for e in a.tree.expressions} | {
        e.alias.lower() for e in a.tree.expressions if isinstance(e, exp.Alias)}
    same = [o.sql().lower() for o in a.order] == [o.sql().lower() for o in b.order]
    shown = all((isinstance(o.this, exp.Literal) and o.this.is_int)
                or o.this.sql().lower() in outputs for o in a.order)
    if same and shown and a.limit is None and b.limit is None:
        return "bag"  # equal bags sort into equal lists up to ties, which compare as pools
    return "ordered"


def _differs(a: _Query, b: _Query, db: _Db, dialect: str, mode: str) -> Any:
    ra, rb = _result(_Eval(db, a, dialect)), _result(_Eval(db, b, dialect))
    if ra and rb:
        _same(ra[0], rb[0])
    if mode == "bag":
        return _bag_differs(ra, rb)
    return _list_differs(ra, rb, _ranked(ra, a.limit, db.constraints),
                         _ranked(rb, b.limit, db.constraints))


def _decode(db: _Db, model: Any, fixture: Fixture) -> Fixture:
    """The model as a fixture: the queried tables hold the present rows, the others keep the
    fixture's rows; columns the queries do not read hold distinct filler values."""
    data = fixture_to_json(fixture)
    queried = {t for t, _ in db.present}
    for table in data["tables"]:
        name = table["name"].lower()
        if name not in queried:
            continue
        rows: list[list[Any]] = []
        for i in range(db.k):
            if not z3.is_true(model.eval(db.row(name, i), model_completion=True)):
                continue
            rows.append([_cell(db, model, name, i, c["name"].lower(), c["type"], len(rows))
                         for c in table["columns"]])
        table["rows"] = rows
    return fixture_from_json(data)


def _cell(db: _Db, model: Any, table: str, i: int, column: str, ptype: str, n: int) -> Any:
    v = db.cells.get((table, i, column))
    if v is None:  # not read by either query: a distinct filler
        filler = {"integer": n + 1, "bigint": n + 1, "double": float(n + 1), "boolean": False,
                  "text": f"v{n + 1}", "date": (dt.date(2000, 1, 1) + dt.timedelta(n)).isoformat(),
                  "timestamp": f"2000-01-01 00:00:{n % 60:02d}"}
        return filler.get(ptype, n + 1)
    if z3.is_true(model.eval(v.null, model_completion=True)):
        return None
    val = model.eval(v.val, model_completion=True)
    if v.kind == "real":
        frac = val.as_fraction()
        x = frac.numerator / frac.denominator
        return x if ptype == "double" else str(x)
    number = val.as_long()
    if v.kind == "text":
        return db.domain[number]
    if v.kind == "date":
        return (_EPOCH + dt.timedelta(number)).isoformat()
    return number


def witness(source_sql: str, neighbour_sql: str, dialect: str, fixture: Fixture,
            verify: Callable[[Fixture], bool], *, bound: int = DEFAULT_BOUND,
            timeout_ms: int = DEFAULT_TIMEOUT_MS) -> Outcome:
    """A database on which ``neighbour_sql`` differs from ``source_sql`` (both in ``dialect``,
    over ``fixture``'s schema), tried with 1 .. ``bound`` rows per queried table (a LIMIT n
    raises the bound to n + 1, at most ``_MAX_K``).

    ``verify(db)``: whether the source runs on ``db`` on the engine and the neighbour's result
    differs from it there (the caller judges them); a model it rejects is reported as Unknown
    (``unverified``)."""
    if z3 is None:
        return Unsupported(NEED_Z3)
    if dialect not in DIALECTS:
        return Unsupported(f"dialect {dialect}")
    start = time.process_time()
    try:
        a, b = (parse_query(sql, dialect) for sql in (source_sql, neighbour_sql))
        qa, qb = _parts(a), _parts(b)
        mode = _mode(qa, qb)
        domain = _domain((a, b))
        numbers = _literals((a, b))[1]
        ints = (min([-_INT_RANGE, *(n - 2 for n in numbers)]),
                max([_INT_RANGE, *(n + 2 for n in numbers)]))
        limits = [q.limit for q in (qa, qb) if q.limit is not None]
        bound = max([bound, *(min(_MAX_K, n + 1) for n in limits)])  # room past the LIMIT
        for k in range(1, bound + 1):
            db = _Db(fixture, k, domain, ints)
            differs = _differs(qa, qb, db, dialect, mode)
            db.keys()
            solver = z3.Solver()
            solver.set("timeout", timeout_ms)
            solver.add(*db.constraints, differs)
            verdict = solver.check()
            if verdict == z3.unknown:
                return Unknown(f"z3: {solver.reason_unknown()} at k={k}",
                               time.process_time() - start)
            if verdict == z3.sat:
                return _checked(_decode(db, solver.model(), fixture), k, verify, start)
    except (_Unsupported, SchemaError) as exc:
        return Unsupported(str(exc))
    except (FixtureError, z3.Z3Exception, LookupError, TypeError, ValueError) as exc:
        # a model the fixture refuses, or a construct the encoder misreads: no answer, counted
        return Unknown(f"encoder: {type(exc).__name__}: {str(exc)[:120]}",
                       time.process_time() - start)
    seconds = time.process_time() - start
    if mode == "ordered":
        return Unknown(f"no witness up to {bound} rows a table among databases without ORDER "
                       "BY ties", seconds)
    return BoundedEquivalent(bound, seconds)


def _checked(db: Fixture, k: int, verify: Callable[[Fixture], bool], start: float) -> Outcome:
    separated = verify(db)
    seconds = time.process_time() - start
    if not separated:
        return Unknown(f"unverified: the k={k} model does not separate the queries on the "
                       "engine", seconds)
    return Killed(db, k, seconds)


def label(outcome: Outcome) -> str:
    """The outcome's label in suites and bench output: killed, bounded-equivalent, unknown,
    unverified, unsupported."""
    if isinstance(outcome, Unknown):
        return "unverified" if outcome.reason.startswith("unverified") else "unknown"
    return {Killed: "killed", BoundedEquivalent: "bounded-equivalent",
            Unsupported: "unsupported"}[type(outcome)]


@dataclass(frozen=True)
class Attempt:
    """The solver's outcome for one surviving neighbour (``operator``, ``sql``)."""

    operator: str
    sql: str
    outcome: Outcome
    reused: bool = False  # killed by the witness of an earlier neighbour (no solver call)

    def to_json(self) -> dict[str, Any]:
        """The record distillation keeps in ``extra["solver"]``: ``label`` (see :func:`label`)
        and ``k`` (killed), ``bound`` (bounded-equivalent) or ``reason``, and ``cpu_s``."""
        out: dict[str, Any] = {"operator": self.operator, "sql": self.sql,
                               "label": label(self.outcome)}
        o = self.outcome
        if isinstance(o, Killed):
            out["k"] = o.k
        elif isinstance(o, BoundedEquivalent):
            out["bound"] = o.bound
        else:
            out["reason"] = o.reason
        if self.reused:
            out["reused"] = True
        elif not isinstance(o, Unsupported):
            out["cpu_s"] = round(o.seconds, 4)
        return out


def extra_candidates(source_sql: str, dialect: str, fixture: Fixture,
                     survivors: Sequence[tuple[str, str]],
                     verify: Callable[[Fixture, str], bool], *, bound: int = DEFAULT_BOUND,
                     timeout_ms: int = DEFAULT_TIMEOUT_MS) -> list[Attempt]:
    """One :class:`Attempt` per surviving neighbour ((operator, sql), in order): the killed
    ones carry a candidate database (:class:`Killed`) distillation can add, checked by
    ``verify(db, neighbour_sql)`` (the neighbour differs from the source there on the engine).
    A neighbour an earlier witness already separates (by ``verify``) reuses that database."""
    out: list[Attempt] = []
    found: list[Killed] = []
    for operator, sql in survivors:
        reused = next((w for w in found if verify(w.fixture, sql)), None)
        if reused is not None:
            out.append(Attempt(operator, sql, reused, reused=True))
            continue
        outcome = witness(source_sql, sql, dialect, fixture, _bind(verify, sql), bound=bound,
                          timeout_ms=timeout_ms)
        if isinstance(outcome, Killed):
            found.append(outcome)
        out.append(Attempt(operator, sql, outcome))
    return out


def _bind(verify: Callable[[Fixture, str], bool], sql: str) -> Callable[[Fixture], bool]:
    return lambda db: verify(db, sql)


def solve_survivors(source_sql: str, dialect: str, fixture: Fixture,
                    alive: Sequence[tuple[int, str, str]],
                    verify: Callable[[Fixture, str], bool], fair: Callable[[Fixture], bool],
                    usable: list[tuple[int, Fixture]], kills: list[set[int]]
                    ) -> tuple[list[Attempt], dict[int, int]]:
    """Distillation's hook: witnesses for the neighbours it leaves alive ((index, operator, sql)).
    Each witness database that ``fair`` accepts (every reference agrees with the source there)
    joins ``usable`` (numbered -1, -2, ...: no seed made it) with the
    indices it kills in ``kills``; one ``fair`` rejects leaves its neighbour alive (relabelled
    unknown). Returns the attempts and the bounded-equivalent neighbours, index -> bound."""
    attempts = extra_candidates(source_sql, dialect, fixture, [(op, sql) for _, op, sql in alive],
                                verify)
    bounded: dict[int, int] = {}
    added: dict[str, int] = {}  # witness content hash -> its index in usable (None: unfair)
    for n, ((i, _, _), a) in enumerate(zip(alive, attempts, strict=True)):
        o = a.outcome
        if isinstance(o, BoundedEquivalent):
            bounded[i] = o.bound
        if not isinstance(o, Killed):
            continue
        key = o.fixture.content_hash
        if key not in added:
            added[key] = -1
            if fair(o.fixture):
                usable.append((-1 - sum(v >= 0 for v in added.values()), o.fixture))
                kills.append(set())
                added[key] = len(usable) - 1
        if added[key] < 0:
            attempts[n] = Attempt(a.operator, a.sql, Unknown(
                "a reference translation disagrees with the source on the witness", o.seconds))
            continue
        kills[added[key]].add(i)
    return attempts, bounded
