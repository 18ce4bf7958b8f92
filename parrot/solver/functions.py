"""CAST and simple string functions over the solver's finite text domain.

Text cells range over a finite domain of strings (indices into a sorted list), so a string
function is a table over that domain: ``LOWER``/``UPPER`` map an index to the index of the
folded string, ``LENGTH`` to its length, ``a || b`` a pair of indices to the index of the
concatenation. :func:`closed_domain` adds the images these need, so the tables are total; a
domain that would grow too large, or holds non-ASCII text (SQLite folds ASCII only), is
outside the fragment. A finite domain does not hold every string these functions can tell
apart (``LENGTH(g) = 5``, ``LOWER(g) = 'ab'`` for ``'aB'``), so a query using them gets
witnesses (checked on the engines) but never a bounded-equivalence proof.

CAST is encoded where the three engines agree on it: between integer types, integer to a
real or decimal type, real to real, text to text without a length, and a date or a date
literal to DATE; anything else (real to integer rounds differently on SQLite
and PostgreSQL) is unsupported."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any

from sqlglot import exp

from parrot.solver.logic import _EPOCH, _T, _V, _Unsupported, z3

_MAX_DOMAIN = 400  # text values at most, once closed under the queries' string functions
_INT = frozenset({"INT", "BIGINT", "SMALLINT", "TINYINT", "UBIGINT", "UINT", "USMALLINT"})
_REAL = frozenset({"DOUBLE", "FLOAT", "DECIMAL", "BIGDECIMAL"})
_TEXT = frozenset({"TEXT", "VARCHAR"})


def closed_domain(domain: Sequence[str], trees: Sequence[exp.Expr]) -> list[str]:
    """``domain`` closed under the queries' LOWER/UPPER (once) and ``||`` (one level)."""
    out = set(domain)
    functions = {type(n) for t in trees for n in t.find_all(exp.Lower, exp.Upper, exp.DPipe)}
    if not functions:
        return sorted(out)
    if not all(s.isascii() for s in out):
        raise _Unsupported("string functions over non-ASCII text")
    if exp.Lower in functions or exp.Upper in functions:
        out |= {s.lower() for s in out} | {s.upper() for s in out}
    if exp.DPipe in functions:
        if len(out) ** 2 > _MAX_DOMAIN:
            raise _Unsupported(f"|| over a text domain of {len(out)} values")
        out |= {a + b for a in out for b in out}
    return sorted(out)


def text_function(ev: Any, node: exp.Expr, ctx: Any) -> _V:
    """CAST, LOWER, UPPER, LENGTH or ``||`` (``ev``: the query's evaluator)."""
    if isinstance(node, exp.Cast):
        return _cast(ev, node, ctx)
    domain: list[str] = ev.db.domain
    # the domain holds the literals and a few strings, not every string a function's value
    # depends on (LENGTH(g) = 5 needs a string of five characters): witnesses only, no proof
    ev.db.restricted = True
    if isinstance(node, exp.DPipe):
        # NULL || x is NULL on the three engines (sqlglot's ``safe`` is about coercing
        # non-text operands, which are outside the fragment)
        a, b = _text(ev.value(node.this, ctx)), _text(ev.value(node.expression, ctx))
        pairs = [
            ((i, j), domain.index(x + y))
            for i, x in enumerate(domain)
            for j, y in enumerate(domain)
            if x + y in domain
        ]
        val = _table([(z3.And(a.val == i, b.val == j), k) for (i, j), k in pairs])
        return _V("text", val, z3.Or(a.null, b.null))
    v = _text(ev.value(node.this, ctx))
    if isinstance(node, exp.Length):
        return _V("int", _table([(v.val == i, len(s)) for i, s in enumerate(domain)]), v.null)
    fold = str.lower if isinstance(node, exp.Lower) else str.upper
    return _V(
        "text", _table([(v.val == i, domain.index(fold(s))) for i, s in enumerate(domain)]), v.null
    )


def _text(v: _V) -> _V:
    if v.kind == "null":
        return _V("text", z3.IntVal(0), _T)
    if v.kind != "text":
        raise _Unsupported(f"string function of {v.kind}")
    return v


def _table(cases: list[tuple[Any, int]]) -> Any:
    """The value of the first case that holds (the cases cover the domain)."""
    if not cases:
        raise _Unsupported("string function with no value in the domain")
    out = z3.IntVal(cases[-1][1])
    for cond, value in reversed(cases[:-1]):
        out = z3.If(cond, value, out)
    return out


def _cast(ev: Any, node: exp.Cast, ctx: Any) -> _V:
    if type(node) is not exp.Cast:
        raise _Unsupported(type(node).__name__.upper())
    to = node.to
    name = to.this.name if isinstance(to, exp.DataType) else ""
    v = ev.value(node.this, ctx)
    kind = (
        "int"
        if name in _INT
        else "real"
        if name in _REAL and not to.expressions
        else "text"
        if name in _TEXT and not to.expressions
        else "date"
        if name == "DATE"
        else ""
    )
    if not kind:
        raise _Unsupported(f"CAST to {to.sql()}")
    if v.kind == "null":
        return _V(kind, z3.IntVal(0), _T)
    if v.kind == kind or (v.kind, kind) == ("int", "real"):
        return _V(
            kind,
            z3.ToReal(v.val) if v.kind != kind else v.val,
            v.null,
            lit=v.lit if v.kind == kind else "",
        )
    if (v.kind, kind) == ("text", "date") and v.lit:
        try:
            days = (dt.date.fromisoformat(v.lit) - _EPOCH).days
        except ValueError:
            raise _Unsupported(f"CAST({v.lit!r} AS DATE)") from None
        return _V("date", z3.IntVal(days), v.null)
    raise _Unsupported(f"CAST from {v.kind} to {to.sql()}")
