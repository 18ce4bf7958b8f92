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
  unary minus, NULLIF, COALESCE, CASE; SQLite's text-versus-integer-literal comparison as text,
  and its integer-column = text-column comparison (the text takes NUMERIC affinity);
* GROUP BY expressions, COUNT(*) / COUNT / SUM / MIN / MAX / AVG (with DISTINCT), COUNT_IF,
  HAVING,
  SELECT DISTINCT, ORDER BY (columns, aliases, positions; NULLs ordered as the dialect does),
  LIMIT n; dialects SQLite (its double-quoted strings: :func:`parts.sqlite_strings`), DuckDB
  and PostgreSQL.

Integers range over [-1000, 1000] widened to the queries' literals, dates over 1970-2100.
Where both queries end in ``ORDER BY … LIMIT 1``, their first rows are compared as eval's tie
pools judge them (ties searched: a proof holds). Where the comparison is otherwise ordered, the
encoding only looks at databases on which the ORDER BY keys of each result are distinct (ties
are judged as pools elsewhere), so no witness there is :class:`Unknown`, not
bounded-equivalent. Every witness is checked on the real engine by the
caller's ``verify`` before it is returned: one that does not separate the queries there is an
encoding bug, reported as :class:`Unknown` (``unverified``)."""

from __future__ import annotations

import datetime as dt
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sqlglot import exp

from parrot.fixtures import Fixture, FixtureError, fixture_from_json, fixture_to_json
from parrot.solver import DEFAULT_BOUND, DEFAULT_TIMEOUT_MS, DIALECTS, NEED_Z3
from parrot.solver.functions import closed_domain, text_function
from parrot.solver.logic import (
    _EPOCH,
    _F,
    _T,
    _V,
    _and,
    _as,
    _choose,
    _comparable,
    _compare,
    _eq,
    _fold,
    _not,
    _truth,
    _Unsupported,
    z3,
)
from parrot.solver.parts import (
    _domain,
    _escape_of,
    _like_tokens,
    _literals,
    _parts,
    _Query,
    parse,
    sqlite_strings,
)

_INT_RANGE = 1000
_MAX_K = 6  # rows per table tried at most (a LIMIT n raises the bound to n + 1 up to this)
# row combinations one FROM clause may have (k ** tables): past it the encoding (grouping is
# quadratic in them) would take minutes before z3 starts, so the query is left out at that k
_MAX_TUPLES = 100
_DATE_HI = (dt.date(2100, 12, 31) - _EPOCH).days


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


@dataclass
class _Row:
    """An output row candidate: presence and values, plus ORDER BY keys."""

    present: Any
    values: list[_V]
    # (key, descending, NULLs first)
    keys: list[tuple[_V, bool, bool]] = field(default_factory=list)


_COLUMN_KIND = {"integer": "int", "bigint": "int", "double": "real", "date": "date", "text": "text"}


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


class _TooLarge(_Unsupported):
    """The encoding at this k is too large (not the construct: smaller k were searched)."""


class _NeedNumbers(Exception):
    """A comparison needs numeric strings in the text domain: search again with them."""


# a canonical integer spelled as text, which SQLite's NUMERIC affinity turns into that integer
_NUMERIC = re.compile(r"-?(0|[1-9][0-9]{0,8})")
# text SQLite would also read as a number (spaces, signs, zeros, decimals, exponents)
_NUMBER_LIKE = re.compile(r"\s*[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?\s*")
# the numeric strings added to the domain when an integer column meets a text column
_NUMBERS = [str(n) for n in range(-1, _MAX_K + 2)]


def _numeric_strings(domain: list[str]) -> dict[int, int]:
    """Index -> integer of the domain's canonical integer strings. A string SQLite would read
    as a number in some other spelling (``' 1'``, ``'1.0'``, ``'01'``) is outside the
    fragment: its conversion is not encoded."""
    out = {}
    for i, s in enumerate(domain):
        if _NUMERIC.fullmatch(s):
            out[i] = int(s)
        elif _NUMBER_LIKE.fullmatch(s):
            raise _Unsupported(f"text {s!r} compared with an integer column")
    return out


class _Db:
    """The symbolic database: ``k`` rows for every table the queries read."""

    def __init__(self, fixture: Fixture, k: int, domain: list[str], ints: tuple[int, int]):
        self.k, self.domain, self.ints = k, domain, ints
        self.tables = {t.name.lower(): t for t in fixture.tables}
        self.cells: dict[tuple[str, int, str], _V] = {}
        self.present: dict[tuple[str, int], Any] = {}
        self.constraints: list[Any] = []
        # derived relations (CTEs, derived tables), keyed "name#n": (column names, rows)
        self.derived: dict[str, tuple[list[str], list[_Row]]] = {}
        # the constraints restrict the databases searched beyond the schema (ties excluded
        # under a nested LIMIT, scalar subqueries of one row): no bounded-equivalence claim
        self.restricted = False
        # the domain holds the numeric strings an integer column may equal (SQLite)
        self.numeric = set(_NUMBERS) <= set(domain)

    def derive(self, name: str, names: list[str], rows: list[_Row]) -> str:
        """Registers a derived relation; its key, used as a table name."""
        key = f"{name}#{len(self.derived)}"
        if rows and any(len(r.values) != len(names) for r in rows):
            raise _Unsupported(f"{name}: column list of another width")
        self.derived[key] = (names, rows)
        return key

    def size(self, table: str) -> int:
        return len(self.derived[table][1]) if table in self.derived else self.k

    def columns(self, table: str) -> list[str]:
        if table in self.derived:
            return self.derived[table][0]
        if table not in self.tables:
            raise _Unsupported(f"table {table} not in the fixture")
        return [c.name.lower() for c in self.tables[table].columns]

    def row(self, table: str, i: int) -> Any:
        if table in self.derived:
            return self.derived[table][1][i].present
        if (table, i) not in self.present:
            self.present[(table, i)] = z3.Bool(f"p|{table}|{i}")
        return self.present[(table, i)]

    def cell(self, table: str, i: int, column: str) -> _V:
        if table in self.derived:
            names, rows = self.derived[table]
            return rows[i].values[names.index(column)]
        key = (table, i, column)
        if key in self.cells:
            return self.cells[key]
        col = next(c for c in self.tables[table].columns if c.name.lower() == column)
        kind = _kind_of(col.type)
        name = f"{table}|{i}|{column}"
        raw = z3.Int(name)
        keyed = col.name in self.tables[table].primary_key
        null = z3.Bool("n|" + name) if col.nullable and not keyed else z3.BoolVal(False)
        lo, hi = {
            "int": self.ints,
            "real": (self.ints[0] * 4, self.ints[1] * 4),
            "text": (0, len(self.domain) - 1),
            "date": (0, _DATE_HI),
        }[kind]
        self.constraints.append(z3.And(raw >= lo, raw <= hi))
        val = z3.ToReal(raw) / _step(col.type) if kind == "real" else raw
        self.cells[key] = _V(kind, val, null, column=kind)
        return self.cells[key]

    def keys(self) -> None:
        """Primary keys hold among present rows (where every key column is encoded)."""
        for table, t in self.tables.items():
            pk = [c.lower() for c in t.primary_key]
            if not pk or not all((table, i, c) in self.cells for i in range(self.k) for c in pk):
                continue
            for i in range(self.k):
                for j in range(i + 1, self.k):
                    same = [
                        self.cells[(table, i, c)].val == self.cells[(table, j, c)].val for c in pk
                    ]
                    self.constraints.append(
                        z3.Implies(
                            z3.And(self.row(table, i), self.row(table, j)), z3.Not(z3.And(*same))
                        )
                    )


Ctx = dict[str, tuple[str, int | None]]  # alias -> (table, row or None: NULL-extended)


@dataclass
class _Group:
    """A group: its first row (``leader``) and every row with its membership."""

    leader: Ctx
    members: list[tuple[Any, Ctx]]
    keys: list[str]  # the GROUP BY expressions' SQL


class _Eval:
    """Evaluates expressions of one query over the symbolic database."""

    def __init__(
        self,
        db: _Db,
        q: _Query,
        dialect: str,
        scope: dict[str, str] | None = None,
        outer: Ctx | None = None,
    ):
        self.db, self.q, self.dialect = db, q, dialect
        self.aliases = {e.alias.lower(): e.this for e in q.tree.selects if isinstance(e, exp.Alias)}
        self.outer = outer  # the enclosing queries' row, for a correlated subquery
        self.scope = dict(scope or {})  # CTE name -> its derived relation's key
        for name, cq, names in q.ctes:  # each CTE sees the ones before it
            self.scope[name] = self.derive(name, cq, names)
        self._sources: list[tuple[str, str]] | None = None
        self.branches: list[_Eval] = []  # a UNION's branches, once evaluated

    def derive(self, name: str, q: _Query, names: list[str] | None) -> str:
        """A CTE's or derived table's rows, inlined as a relation of the database."""
        ev = _Eval(self.db, q, self.dialect, self.scope, self.outer)
        rows = _relation(ev)
        return self.db.derive(name, names or _names(ev), rows)

    def sources(self) -> list[tuple[str, str]]:
        """(alias, table) of the FROM clause, CTEs and derived tables as their relations."""
        if self._sources is None:
            self._sources = [
                (
                    alias,
                    self.derive(alias, src, None)
                    if isinstance(src, _Query)
                    else self.scope.get(src, src),
                )
                for alias, src in self.q.slots
            ]
        return self._sources

    def sub(self, node: exp.Expr, ctx: Ctx | _Group) -> list[_Row]:
        """A subquery's rows, evaluated in the row ``ctx`` (correlated references)."""
        here = ctx.leader if isinstance(ctx, _Group) else ctx
        ev = _Eval(self.db, _parts(node), self.dialect, self.scope, {**(self.outer or {}), **here})
        rows = _relation(ev)
        if rows and len(rows[0].values) != 1:
            raise _Unsupported("subquery of several columns")
        return rows

    def column(self, node: exp.Column, ctx: Ctx) -> _V:
        name, qual = node.name.lower(), node.table.lower()
        hits = [
            a
            for a, (t, _) in ctx.items()
            if (a == qual if qual else True) and name in self.db.columns(t)
        ]
        if not hits and self.outer and ctx is not self.outer:
            return self.column(node, self.outer)
        if len(hits) != 1:
            if not qual and name in self.aliases:
                raise _Unsupported(f"alias {name} used outside ORDER BY")
            raise _Unsupported(f"column {node.sql()} not resolved")
        table, row = ctx[hits[0]]
        if row is None and not self.db.size(table):
            return _V("null", z3.IntVal(0), _T)
        if row is None:
            cell = self.db.cell(table, 0, name)
            return _V(cell.kind, cell.val, _T)
        return self.db.cell(table, row, name)

    def value(self, node: exp.Expr, ctx: Ctx | _Group) -> _V:
        if isinstance(node, exp.Paren | exp.Alias):
            return self.value(node.this, ctx)
        if isinstance(node, exp.AggFunc | exp.Filter):
            if not isinstance(ctx, _Group):
                raise _Unsupported("aggregate outside SELECT / HAVING / ORDER BY")
            if isinstance(node, exp.Filter):  # AGG(...) FILTER (WHERE c): the rows where c
                members = [
                    (z3.And(m, _truth(self.truth(node.expression.this, c))), c)
                    for m, c in ctx.members
                ]
                return self.aggregate(node.this, _Group(ctx.leader, members, ctx.keys))
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
        if isinstance(node, exp.Subquery):
            return self.scalar(node, ctx)
        if isinstance(node, exp.Cast | exp.Lower | exp.Upper | exp.Length | exp.DPipe):
            return text_function(self, node, ctx)
        return self.truth(node, ctx)

    def scalar(self, node: exp.Subquery, ctx: Ctx | _Group) -> _V:
        """A scalar subquery: its one row's value, NULL without rows. Databases on which it
        yields several rows (an error on PostgreSQL and DuckDB) are left out, a restriction."""
        rows = self.sub(node.this, ctx)
        q = _parts(node.this)
        if not (
            not q.union
            and _grouped(q)
            and not q.tree.args.get("group")
            and not q.tree.args.get("having")
        ):  # an aggregate: always one row
            self.db.restricted = True
            self.db.constraints.append(
                z3.Sum([z3.IntVal(0), *[z3.If(r.present, 1, 0) for r in rows]]) <= 1
            )
        return _choose([(r.present, r.values[0]) for r in rows], _V("null", z3.IntVal(0), _T))

    def grouped(self, node: exp.Column, g: _Group) -> bool:
        """Whether a column has one value per group: a GROUP BY key, or a column of a table
        whose primary key the GROUP BY holds (a functional dependency; not on DuckDB, which
        refuses it)."""
        if node.sql().lower() in g.keys or node.name.lower() in g.keys:
            return True
        if self.dialect == "duckdb":
            return False
        alias = node.table.lower() or next(
            (a for a, (t, _) in g.leader.items() if node.name.lower() in self.db.columns(t)), ""
        )
        if alias not in g.leader or g.leader[alias][0] not in self.db.tables:
            return False
        pk = [c.lower() for c in self.db.tables[g.leader[alias][0]].primary_key]
        return bool(pk) and all(
            f"{alias}.{c}" in g.keys or (len(g.leader) == 1 and c in g.keys) for c in pk
        )

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
        branches = [
            (_truth(self.truth(i.this, ctx)), self.value(i.args["true"], ctx))
            for i in node.args.get("ifs") or ()
        ]
        default = node.args.get("default")
        other = self.value(default, ctx) if default is not None else _V("null", z3.IntVal(0), _T)
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
            return _and(
                self.truth(exp.GTE(this=x, expression=node.args["low"]), ctx),
                self.truth(exp.LTE(this=x, expression=node.args["high"]), ctx),
            )
        if isinstance(node, exp.Exists):
            return _V("bool", z3.Or(_F, *[r.present for r in self.sub(node.this, ctx)]), _F)
        if isinstance(node, exp.In) and node.args.get("query") is not None:
            x, out = self.value(node.this, ctx), _V("bool", _F, _F)
            for r in self.sub(node.args["query"], ctx):  # x = v for a present row v
                hit = _compare("=", *self.affinity(x, r.values[0]))
                hit = _V("bool", z3.And(r.present, hit.val), z3.And(r.present, hit.null))
                out = _not(_and(_not(out), _not(hit)))
            return out
        if isinstance(node, exp.In):
            if node.args.get("unnest") or not node.expressions:
                raise _Unsupported("IN over UNNEST")
            out = _V("bool", _F, _F)
            for e in node.expressions:
                out = _not(
                    _and(_not(out), _not(self.truth(exp.EQ(this=node.this, expression=e), ctx)))
                )
            return out
        if isinstance(node, exp.Like):
            return self.like(node, ctx)
        if isinstance(node, exp.Escape) and isinstance(node.this, exp.Like):
            return self.like(node.this, ctx)  # the ESCAPE character is read there
        op = _OPS.get(type(node))
        if op is None:
            raise _Unsupported(type(node).__name__)
        x, y = self.value(node.this, ctx), self.value(node.expression, ctx)
        mixed = self.column_affinity(op, x, y)
        if mixed is not None:
            return mixed
        a, b = self.affinity(x, y, (node.this, node.expression))
        if op not in ("=", "<>"):
            self.ordered(a)
        return _compare(op, a, b)

    def affinity(
        self, a: _V, b: _V, nodes: tuple[exp.Expr, exp.Expr] | None = None
    ) -> tuple[_V, _V]:
        """A string literal compared with a number: SQLite gives it a numeric column's
        affinity (``int_col = '5'`` compares 5; with an expression, no conversion), DuckDB and
        PostgreSQL cast it to the number's type. SQLite compares a text value with an integer
        literal as text (the literal takes the column's TEXT affinity): ``'5'``."""
        numeric = self.numeric_literal(a, b, nodes)
        if numeric is not None:
            return numeric
        if self.dialect != "sqlite" or {a.kind, b.kind} != {"text", "int"}:
            return a, b
        number = a if a.kind == "int" else b
        if not number.lit or number.lit not in self.db.domain:
            return a, b  # not a literal: compared as numbers are, unsupported below
        text = _V("text", z3.IntVal(self.db.domain.index(number.lit)), _F, lit=number.lit)
        return (text, b) if a is number else (a, text)

    def column_affinity(self, op: str, a: _V, b: _V) -> _V | None:
        """SQLite's ``int_column = text_column``: the text operand takes the integer
        column's NUMERIC affinity, so a text cell spelling an integer (``'7'``) equals it and
        any other text is unequal; None for any other comparison. The text domain must hold
        such strings (:func:`_numeric_strings`; :class:`_NeedNumbers` asks for them)."""
        if self.dialect != "sqlite" or {a.column, b.column} != {"int", "text"}:
            return None
        if {a.kind, b.kind} != {"int", "text"}:
            return None
        if op not in ("=", "<>"):
            raise _Unsupported("an integer column ordered against a text column")
        if not self.db.numeric:
            raise _NeedNumbers
        text, number = (a, b) if a.kind == "text" else (b, a)
        hit = z3.Or(
            _F,
            *[
                z3.And(text.val == i, number.val == n)
                for i, n in _numeric_strings(self.db.domain).items()
            ],
        )
        return _V("bool", hit if op == "=" else z3.Not(hit), z3.Or(a.null, b.null))

    def numeric_literal(
        self, a: _V, b: _V, nodes: tuple[exp.Expr, exp.Expr] | None
    ) -> tuple[_V, _V] | None:
        """(a, b) with a numeric string literal as the number it converts to, or None."""
        if (
            nodes is None
            or not {a.kind, b.kind} & {"int", "real"}
            or "text" not in (a.kind, b.kind)
        ):
            return None
        text, number = (a, b) if a.kind == "text" else (b, a)
        text_node, number_node = nodes if text is a else nodes[::-1]
        if not (isinstance(text_node, exp.Literal) and text_node.is_string):
            return None
        if self.dialect == "sqlite" and not isinstance(number_node, exp.Column):
            return None  # no affinity on either side: a number is less than any text
        lit = text.lit.strip() if self.dialect != "sqlite" else text.lit
        if number.kind == "int" and re.fullmatch(r"[+-]?\d+", lit):
            value = _V("int", z3.IntVal(int(lit)), _F)
        elif re.fullmatch(r"[+-]?(\d+\.?\d*|\.\d+)", lit):
            value = _V("real", z3.RealVal(lit.lstrip("+")), _F)
        else:
            return None
        return (value, b) if text is a else (a, value)

    def ordered(self, v: _V | None) -> None:
        """Text is ordered as its domain (code points): SQLite's and DuckDB's default
        collation, not PostgreSQL's locale collation."""
        if v is not None and v.kind == "text" and self.dialect not in ("sqlite", "duckdb"):
            raise _Unsupported(f"text ordered in {self.dialect}'s collation")

    def like(self, node: exp.Like, ctx: Ctx | _Group) -> _V:
        pattern = node.expression
        if node.args.get("escape") or not (isinstance(pattern, exp.Literal) and pattern.is_string):
            raise _Unsupported("LIKE with a non-literal pattern")
        v = self.value(node.this, ctx)
        if v.kind != "text":
            raise _Unsupported("LIKE on a non-text value")
        regex = "".join(
            ".*" if t == "%" else "." if t == "_" else re.escape(t[1])
            for t in _like_tokens(pattern.this, _escape_of(node))
        )
        flags = re.IGNORECASE if self.dialect == "sqlite" else 0
        hits = [
            i for i, s in enumerate(self.db.domain) if re.fullmatch(regex, s, flags | re.DOTALL)
        ]
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
            return _fold(
                "COUNT",
                [(z3.And(m, _truth(self.truth(arg, c))), _V("int", _T, _F)) for m, c in g.members],
            )
        if name not in ("COUNT", "SUM", "MIN", "MAX", "AVG") or (
            name != "COUNT" and isinstance(arg, exp.Star)
        ):
            raise _Unsupported(f"aggregate {name}")
        if node.args.get("expressions") or (name == "COUNT" and node.expressions):
            raise _Unsupported(f"{name} with several arguments")
        if isinstance(arg, exp.Star):
            return _V("int", z3.Sum([z3.IntVal(0), *[z3.If(m, 1, 0) for m, _ in g.members]]), _F)
        vals = [(m, self.value(arg, c)) for m, c in g.members]
        if name in ("MIN", "MAX") or distinct:
            self.ordered(vals[0][1] if vals else None)
        taken = []  # (counted, value): member, not NULL, first of its value when DISTINCT
        for i, (m, v) in enumerate(vals):
            here = z3.And(m, z3.Not(v.null))
            if distinct:
                here = z3.And(
                    here, *[z3.Not(z3.And(m2, z3.Not(v2.null), _eq(v2, v))) for m2, v2 in vals[:i]]
                )
            taken.append((here, v))
        return _fold(name, taken)


_OPS: dict[type[exp.Expr], str] = {
    exp.EQ: "=",
    exp.NEQ: "<>",
    exp.LT: "<",
    exp.LTE: "<=",
    exp.GT: ">",
    exp.GTE: ">=",
}


def _tuples(ev: _Eval) -> list[tuple[Any, Ctx]]:
    """The FROM clause's rows after joins and WHERE: (presence, context)."""
    q, db = ev.q, ev.db
    sources = ev.sources()
    alias0, table0 = sources[0]
    rows: list[tuple[Any, Ctx]] = [
        (db.row(table0, i), {alias0: (table0, i)}) for i in range(db.size(table0))
    ]
    if len({a for a, _ in sources}) != len(sources):
        raise _Unsupported("a FROM alias used twice")
    for (alias, table), (kind, on) in zip(sources[1:], q.joins, strict=True):
        if len(rows) * max(db.size(table), 1) > _MAX_TUPLES:
            raise _TooLarge(f"more than {_MAX_TUPLES} row combinations at k={db.k}")
        out: list[tuple[Any, Ctx]] = []
        for p, ctx in rows:
            matches = []
            for j in range(db.size(table)):
                c = {**ctx, alias: (table, j)}
                hit = z3.And(p, db.row(table, j), _truth(ev.truth(on, c)) if on is not None else _T)
                matches.append(hit)
                if kind in ("inner", "left"):
                    out.append((hit, c))
            if kind in ("semi", "anti"):  # the left row, where some / no right row matches
                some = z3.Or(_F, *matches)
                out.append((z3.And(p, some if kind == "semi" else z3.Not(some)), ctx))
            if kind == "left":
                db.columns(table)
                out.append((z3.And(p, z3.Not(z3.Or(_F, *matches))), {**ctx, alias: (table, None)}))
        rows = out
    where = q.tree.args.get("where")
    if where is not None:
        rows = [(z3.And(p, _truth(ev.truth(where.this, c))), c) for p, c in rows]
    return rows


def _grouped(q: _Query) -> bool:
    scopes = [*q.tree.expressions, *(o.this for o in q.order)]
    if q.tree.args.get("having") is not None:
        scopes.append(q.tree.args["having"])
    return bool(q.tree.args.get("group")) or any(_aggregates(s) for s in scopes)


def _aggregates(node: exp.Expr) -> bool:
    """Whether an aggregate is in ``node``'s own scope (not inside a subquery)."""
    if isinstance(node, exp.AggFunc):
        return True
    if isinstance(node, exp.Subquery | exp.Select | exp.Exists):
        return False
    return any(_aggregates(c) for c in node.iter_expressions())


def _groups(ev: _Eval, rows: list[tuple[Any, Ctx]]) -> list[tuple[Any, _Group]]:
    """One candidate per row, present when the row is the first of its group (or, without
    GROUP BY, one group of every row, always present)."""
    group = ev.q.tree.args.get("group")
    exprs = list(group.expressions) if group else []
    if group and (
        group.args.get("rollup") or group.args.get("cube") or group.args.get("grouping_sets")
    ):
        raise _Unsupported("ROLLUP / CUBE / GROUPING SETS")
    exprs = [
        ev.aliases.get(e.name.lower(), e)
        if isinstance(e, exp.Column) and not e.table and e.name.lower() not in _all_columns(ev)
        else e
        for e in exprs
    ]
    if any(isinstance(e, exp.Literal) for e in exprs):
        raise _Unsupported("GROUP BY position")
    names = [e.sql().lower() for e in exprs] + [
        e.name.lower() for e in exprs if isinstance(e, exp.Column)
    ]
    if not exprs:
        return [(_T, _Group(rows[0][1] if rows else {}, rows, names))]
    keys = [[ev.value(e, c) for e in exprs] for _, c in rows]
    out = []
    for i, (p, ctx) in enumerate(rows):
        same = [
            z3.And(*[_eq(a, b) for a, b in zip(keys[j], keys[i], strict=True)])
            for j in range(len(rows))
        ]
        first = z3.And(p, *[z3.Not(z3.And(rows[j][0], same[j])) for j in range(i)])
        members = [(z3.And(rows[j][0], same[j]), rows[j][1]) for j in range(len(rows))]
        out.append((first, _Group(ctx, members, names)))
    return out


def _all_columns(ev: _Eval) -> set[str]:
    return {c for _, t in ev.sources() for c in ev.db.columns(t)}


def _projection(ev: _Eval, ctx: Ctx | _Group) -> list[_V]:
    out: list[_V] = []
    for e in ev.q.tree.expressions:
        star = isinstance(e, exp.Star) or (
            isinstance(e, exp.Column) and isinstance(e.this, exp.Star)
        )
        if not star:
            out.append(ev.value(e, ctx))
            continue
        if isinstance(ctx, _Group):
            raise _Unsupported("* in a grouped query")
        qual = e.table.lower() if isinstance(e, exp.Column) else ""
        for alias, (table, _) in ctx.items():
            if not qual or qual == alias:
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
        ev.branches = [_Eval(ev.db, b, ev.dialect, ev.scope, ev.outer) for b in ev.q.union]
        both = [r for b in ev.branches for r in _result(b)]
        both = _distinct(both) if ev.q.tree.args.get("distinct") else both
        return _union_keys(ev, both) if ev.q.order else both
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


def _union_keys(ev: _Eval, rows: list[_Row]) -> list[_Row]:
    """A UNION's ORDER BY keys: output columns, by position or by the first branch's names."""
    names = _names(ev)
    keys: list[tuple[int, bool, bool]] = []
    for o in ev.q.order:
        node = o.this
        if isinstance(node, exp.Literal) and node.is_int and 1 <= int(node.this) <= len(names):
            index = int(node.this) - 1
        elif (
            isinstance(node, exp.Column) and not node.table and names.count(node.name.lower()) == 1
        ):
            index = names.index(node.name.lower())
        else:
            raise _Unsupported(f"UNION ordered by {node.sql()}")
        keys.append((index, bool(o.args.get("desc")), bool(o.args.get("nulls_first"))))
    out = [
        _Row(r.present, r.values, [(r.values[i], desc, first) for i, desc, first in keys])
        for r in rows
    ]
    for r in out[:1]:
        for key, _, _ in r.keys:
            ev.ordered(key)
    return out


def _relation(ev: _Eval) -> list[_Row]:
    """A nested query's rows as a relation: its ORDER BY matters only under a LIMIT, which
    keeps the first n (databases with ties there left out: a restriction)."""
    rows = _result(ev)
    if ev.q.limit is None:
        return rows
    if not ev.q.order:
        raise _Unsupported("LIMIT without ORDER BY in a subquery")
    ev.db.restricted = True
    kept = _ranked(rows, ev.q.limit, ev.db.constraints)
    return [_Row(k, r.values) for r, (k, _) in zip(rows, kept, strict=True)]


def _names(ev: _Eval) -> list[str]:
    """A nested query's column names (after :func:`_result`): aliases and column names;
    an unnamed expression gets a name nothing can refer to."""
    if ev.branches:
        return _names(ev.branches[0])
    out: list[str] = []
    for i, e in enumerate(ev.q.tree.expressions):
        if isinstance(e, exp.Star) or (isinstance(e, exp.Column) and isinstance(e.this, exp.Star)):
            qual = e.table.lower() if isinstance(e, exp.Column) else ""
            kinds = ["", *(kind for kind, _ in ev.q.joins)]  # SEMI / ANTI show no columns
            out += [
                c
                for (alias, table), kind in zip(ev.sources(), kinds, strict=True)
                if (not qual or qual == alias) and kind not in ("semi", "anti")
                for c in ev.db.columns(table)
            ]
        else:
            out.append(
                e.alias_or_name.lower() if isinstance(e, exp.Alias | exp.Column) else f"?{i}"
            )
    return out


def _distinct(rows: list[_Row]) -> list[_Row]:
    """Each row present only where no earlier present row equals it."""
    return [
        _Row(
            z3.And(r.present, *[z3.Not(z3.And(s.present, _same(s, r))) for s in rows[:i]]),
            r.values,
            r.keys,
        )
        for i, r in enumerate(rows)
    ]


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
        for s in rows[i + 1 :]:
            tie = z3.And(
                _T, *[_eq(x, y) for (x, _, _), (y, _, _) in zip(r.keys, s.keys, strict=True)]
            )
            constraints.append(z3.Not(z3.And(r.present, s.present, tie)))
    out = []
    for r in rows:
        rank = z3.Sum(
            [
                z3.IntVal(0),
                *[z3.If(z3.And(s.present, _before(s, r)), 1, 0) for s in rows if s is not r],
            ]
        )
        out.append((z3.And(r.present, rank < limit) if limit is not None else r.present, rank))
    return out


def _bag_differs(a: list[_Row], b: list[_Row]) -> Any:
    def count(rows: list[_Row], r: _Row) -> Any:
        return z3.Sum([z3.IntVal(0), *[z3.If(z3.And(s.present, _same(s, r)), 1, 0) for s in rows]])

    return z3.Or(_F, *[z3.And(r.present, count(a, r) != count(b, r)) for r in [*a, *b]])


def _list_differs(
    a: list[_Row], b: list[_Row], ka: list[tuple[Any, Any]], kb: list[tuple[Any, Any]]
) -> Any:
    size = [z3.Sum([z3.IntVal(0), *[z3.If(k, 1, 0) for k, _ in ks]]) for ks in (ka, kb)]
    clash = [
        z3.And(ki, kj, ri == rj, z3.Not(_same(x, y)))
        for x, (ki, ri) in zip(a, ka, strict=True)
        for y, (kj, rj) in zip(b, kb, strict=True)
    ]
    return z3.Or(size[0] != size[1], *clash)


def _mode(a: _Query, b: _Query) -> str:
    """How the results are compared: 'bag', 'top' (both ``LIMIT 1``: the first rows, ties
    included) or 'ordered' (ORDER BY keys kept distinct)."""
    if not a.order:
        if a.limit is not None or b.limit is not None:
            raise _Unsupported("LIMIT without ORDER BY (judged as a pick)")
        return "bag"
    if not b.order:
        raise _Unsupported("the neighbour drops the ORDER BY (an order-only difference)")
    outputs = {e.sql().lower() for e in a.tree.selects} | {
        e.alias.lower() for e in a.tree.selects if isinstance(e, exp.Alias)
    }
    same = [o.sql().lower() for o in a.order] == [o.sql().lower() for o in b.order]
    shown = all(
        (isinstance(o.this, exp.Literal) and o.this.is_int) or o.this.sql().lower() in outputs
        for o in a.order
    )
    if same and shown and a.limit is None and b.limit is None:
        return "bag"  # equal bags sort into equal lists up to ties, which compare as pools
    if a.limit == 1 and b.limit == 1 and _keys_shown(a) and _keys_shown(b):
        return "top"  # one row each: any of the tied first rows, as the judge's pools
    return "ordered"


def _keys_shown(q: _Query) -> bool:
    """Whether a DISTINCT query orders by its output columns only (then duplicates tie; a
    key outside them is read from an arbitrary duplicate). True without DISTINCT."""
    if q.union or not q.tree.args.get("distinct"):
        return True
    outputs = {e.sql().lower() for e in q.tree.selects} | {
        e.alias.lower() for e in q.tree.selects if isinstance(e, exp.Alias)
    }
    return all(
        (isinstance(o.this, exp.Literal) and o.this.is_int) or o.this.sql().lower() in outputs
        for o in q.order
    )


def _top(rows: list[_Row]) -> list[Any]:
    """Whether each row is among the first by the ORDER BY keys (no present row before it;
    tied rows are all first)."""
    return [
        z3.And(r.present, *[z3.Not(z3.And(s.present, _before(s, r))) for s in rows if s is not r])
        for r in rows
    ]


def _top_differs(a: list[_Row], b: list[_Row]) -> Any:
    """Two ``ORDER BY … LIMIT 1`` queries, judged as eval judges a LIMIT that cuts ties (any
    tied row is a right pick, and each row the other query may pick must be one): one result
    is empty and the other not, or a first row of ``b`` is no first row of ``a``."""
    ta, tb = _top(a), _top(b)
    some = [z3.Or(_F, *[r.present for r in rows]) for rows in (a, b)]
    missing = [
        z3.And(
            ty, z3.Not(z3.Or(_F, *[z3.And(tx, _same(x, y)) for x, tx in zip(a, ta, strict=True)]))
        )
        for y, ty in zip(b, tb, strict=True)
    ]
    return z3.Or(some[0] != some[1], *missing)


def _differs(a: _Query, b: _Query, db: _Db, dialects: tuple[str, str], mode: str) -> Any:
    ra, rb = _result(_Eval(db, a, dialects[0])), _result(_Eval(db, b, dialects[1]))
    if ra and rb:
        _same(ra[0], rb[0])
    if mode == "bag":
        return _bag_differs(ra, rb)
    if mode == "top":
        return _top_differs(ra, rb)
    return _list_differs(
        ra, rb, _ranked(ra, a.limit, db.constraints), _ranked(rb, b.limit, db.constraints)
    )


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
            rows.append(
                [
                    _cell(db, model, name, i, c["name"].lower(), c["type"], len(rows))
                    for c in table["columns"]
                ]
            )
        table["rows"] = rows
    return fixture_from_json(data)


def _cell(db: _Db, model: Any, table: str, i: int, column: str, ptype: str, n: int) -> Any:
    v = db.cells.get((table, i, column))
    if v is None:  # not read by either query: a distinct filler
        filler = {
            "integer": n + 1,
            "bigint": n + 1,
            "double": float(n + 1),
            "boolean": False,
            "text": f"v{n + 1}",
            "date": (dt.date(2000, 1, 1) + dt.timedelta(n)).isoformat(),
            "timestamp": f"2000-01-01 00:00:{n % 60:02d}",
        }
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


def witness(
    source_sql: str,
    neighbour_sql: str,
    dialect: str,
    fixture: Fixture,
    verify: Callable[[Fixture], bool],
    *,
    bound: int = DEFAULT_BOUND,
    timeout_ms: int = DEFAULT_TIMEOUT_MS,
    target_dialect: str | None = None,
) -> Outcome:
    """A database on which ``neighbour_sql`` differs from ``source_sql`` (over ``fixture``'s
    schema; the source in ``dialect``, the other in ``target_dialect``, default the same),
    tried with 1 .. ``bound`` rows per queried table (a LIMIT n raises the bound to n + 1,
    at most ``_MAX_K``). Each query is encoded with its own dialect's semantics.

    ``verify(db)``: whether the source runs on ``db`` on the engine and the other query's
    result differs from it there (the caller judges them); a model it rejects is reported as
    Unknown (``unverified``)."""
    target = target_dialect or dialect
    if z3 is None:
        return Unsupported(NEED_Z3)
    if not {dialect, target} <= DIALECTS:
        return Unsupported(f"dialect {', '.join(sorted({dialect, target} - DIALECTS))}")
    start = time.process_time()
    try:
        a, b = parse(source_sql, dialect), parse(neighbour_sql, target)
        names = {c.name.lower() for t in fixture.tables for c in t.columns}
        if dialect == "sqlite":
            a = sqlite_strings(a, source_sql, names)
        if target == "sqlite":
            b = sqlite_strings(b, neighbour_sql, names)
        qa, qb = _parts(a), _parts(b)
        search = _Search(qa, qb, fixture, (dialect, target), _mode(qa, qb), timeout_ms)
        domain = _domain((a, b))
        numbers = _literals((a, b))[1]
        search.ints = (
            min([-_INT_RANGE, *(n - 2 for n in numbers)]),
            max([_INT_RANGE, *(n + 2 for n in numbers)]),
        )
        limits = [q.limit for q in (qa, qb) if q.limit is not None]
        bound = max([bound, *(min(_MAX_K, n + 1) for n in limits)])  # room past the LIMIT
        try:
            found = search.run(closed_domain(domain, (a, b)), bound, verify, start)
        except _NeedNumbers:  # an integer column meets a text column: numeric strings too
            found = search.run(closed_domain([*domain, *_NUMBERS], (a, b)), bound, verify, start)
        if found is not None:
            return found
    except _TooLarge as exc:  # smaller k were searched: no proof, no witness
        return Unknown(f"{exc}; no witness with fewer rows", time.process_time() - start)
    except _Unsupported as exc:
        return Unsupported(str(exc))
    except (
        FixtureError,
        z3.Z3Exception,
        LookupError,
        TypeError,
        ValueError,
        AttributeError,
        ArithmeticError,
    ) as exc:
        # a model the fixture refuses, or a construct the encoder misreads: no answer, counted
        return Unknown(
            f"encoder: {type(exc).__name__}: {str(exc)[:120]}", time.process_time() - start
        )
    seconds = time.process_time() - start
    if search.mode == "ordered" or search.restricted:
        return Unknown(
            f"no witness up to {bound} rows a table among databases without ORDER BY ties"
            if search.mode == "ordered"
            else f"no witness up to {bound} rows a table among the databases searched "
            "(restricted: a nested LIMIT's ties or a scalar subquery's rows)",
            seconds,
        )
    return BoundedEquivalent(bound, seconds)


@dataclass
class _Search:
    """One pair's search over k = 1 .. bound rows a table."""

    qa: _Query
    qb: _Query
    fixture: Fixture
    dialects: tuple[str, str]
    mode: str
    timeout_ms: int
    ints: tuple[int, int] = (-_INT_RANGE, _INT_RANGE)
    restricted: bool = False

    def run(
        self, domain: list[str], bound: int, verify: Callable[[Fixture], bool], start: float
    ) -> Outcome | None:
        """A witness or z3's unknown, or None: no database up to ``bound`` rows differs."""
        for k in range(1, bound + 1):
            db = _Db(self.fixture, k, domain, self.ints)
            differs = _differs(self.qa, self.qb, db, self.dialects, self.mode)
            db.keys()
            self.restricted = self.restricted or db.restricted
            solver = z3.Solver()
            solver.add(*db.constraints, differs)
            verdict = _check(solver, self.timeout_ms)
            if verdict == z3.unknown:
                return Unknown(
                    f"z3: {solver.reason_unknown()} at k={k}", time.process_time() - start
                )
            if verdict == z3.sat:
                return _checked(_decode(db, solver.model(), self.fixture), k, verify, start)
        return None


_STRETCH = 8  # z3's wall-clock timeout grows at most to this many times the CPU budget


def _check(solver: Any, budget_ms: int) -> Any:
    """z3's verdict within ``budget_ms`` of this process's CPU time. z3's own timeout is
    wall-clock, so on a loaded machine it gives up having worked a fraction of its budget (a
    proof of 0.6 CPU-s timed out at 2 s wall at load 15): while CPU is left, the check runs
    again with twice the wall time, up to ``_STRETCH`` times the budget."""
    start, wall = time.process_time(), budget_ms
    while True:
        solver.set("timeout", wall)
        verdict = solver.check()
        used_ms = (time.process_time() - start) * 1000
        if verdict != z3.unknown or used_ms >= budget_ms or wall >= _STRETCH * budget_ms:
            return verdict
        wall *= 2


def _checked(db: Fixture, k: int, verify: Callable[[Fixture], bool], start: float) -> Outcome:
    separated = verify(db)
    seconds = time.process_time() - start
    if not separated:
        return Unknown(
            f"unverified: the k={k} model does not separate the queries on the engine", seconds
        )
    return Killed(db, k, seconds)


def label(outcome: Outcome) -> str:
    """The outcome's label in suites and bench output: killed, bounded-equivalent, unknown,
    unverified, unsupported."""
    if isinstance(outcome, Unknown):
        return "unverified" if outcome.reason.startswith("unverified") else "unknown"
    return {Killed: "killed", BoundedEquivalent: "bounded-equivalent", Unsupported: "unsupported"}[
        type(outcome)
    ]
