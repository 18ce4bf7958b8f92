"""Three-valued SQL values over z3 terms: the encoder's arithmetic, comparisons, CASE and
aggregates (:mod:`parrot.solver.core` builds queries from them)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

try:  # optional dependency (extra "solver")
    import z3
except ImportError:  # pragma: no cover - exercised where z3-solver is absent
    z3 = None

_EPOCH = dt.date(1970, 1, 1)


class _Unsupported(Exception):
    """A construct outside the fragment."""


@dataclass
class _V:
    """A symbolic SQL value: ``val`` (z3 term) meaningful when ``null`` is false. ``kind``:
    int, real, text (index into the domain), date (days), bool, lit (a string literal).
    ``column``: the kind of the table column it is a plain reference to (SQLite's column
    affinity; '' for any other expression)."""

    kind: str
    val: Any
    null: Any
    lit: str = ""
    column: str = ""


_T, _F = (z3.BoolVal(True), z3.BoolVal(False)) if z3 is not None else (None, None)


def _as(v: _V, kind: str) -> Any:
    return z3.ToReal(v.val) if kind == "real" and v.kind == "int" else v.val


def _truth(b: _V) -> Any:
    """Whether a three-valued boolean is TRUE."""
    return z3.And(z3.Not(b.null), b.val)


def _and(a: _V, b: _V) -> _V:
    false = z3.Or(z3.And(z3.Not(a.null), z3.Not(a.val)), z3.And(z3.Not(b.null), z3.Not(b.val)))
    return _V("bool", z3.And(_truth(a), _truth(b)), z3.And(z3.Not(false), z3.Or(a.null, b.null)))


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
    val = {
        "=": lambda: x == y,
        "<>": lambda: x != y,
        "<": lambda: x < y,
        "<=": lambda: x <= y,
        ">": lambda: x > y,
        ">=": lambda: x >= y,
    }[op]()
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
        return _V(
            "real",
            z3.If(
                none,
                z3.RealVal(0),
                (z3.ToReal(total) if kind == "int" else total) / z3.ToReal(count),
            ),
            none,
        )
    cur, empty = _zero(kind), _T
    for c, v in taken:
        x = _as(v, kind)
        better = x < cur if name == "MIN" else x > cur
        take = z3.And(c, z3.Or(empty, better))
        cur, empty = z3.If(take, x, cur), z3.And(empty, z3.Not(c))
    return _V(kind, cur, none)
