"""Portable types for columns read from a foreign database: the declared type proposes, the values
decide.

The rule (one column at a time):

1. The declared type names a *family* (:func:`declared_family`), with SQLite's affinity rules as
   the base (``INT`` anywhere → integer, ``CHAR``/``CLOB``/``TEXT`` → text, ``REAL``/``FLOA``/
   ``DOUB`` → double, ``DEC``/``NUMERIC``/``NUMBER`` → decimal) refined by the names other engines
   use: ``BOOL``/``BOOLEAN`` → boolean, ``DATE`` → date, ``DATETIME``/``TIMESTAMP`` → timestamp,
   ``BIGINT``/``INT8``/``HUGEINT``/``UBIGINT`` → bigint, ``BIT`` and ``YEAR`` → integer (``BIT``
   is a bit string in MySQL and PostgreSQL), ``TIME``/``UUID``/``JSON``/``ENUM``/``INTERVAL`` →
   text. An empty, ``BLOB`` or unknown declaration has no family: the values alone decide.
2. The family lists portable types to try in order (:data:`_ATTEMPTS`): the first one that *every*
   non-NULL value of the column fits exactly wins. A value fits only if the fixture can hold it
   without changing it:

   * integer/bigint: Python ints (not bools) or integral ``Decimal``; ``integer`` when all fit in
     32 bits, ``bigint`` in 64 bits (a declared ``BIGINT`` stays ``bigint``); wider → decimal(38,0);
   * decimal(p,s): ints, ``Decimal`` or floats whose *shortest* decimal form (``repr``) has at most
     ``s`` decimals and ``p-s`` integer digits (a SQLite ``DECIMAL(19,4)`` column stores doubles;
     ``repr`` is the number the database meant). A bare ``NUMERIC``/``DECIMAL`` declares no scale:
     it fits integers, then doubles;
   * double: floats, ints up to 2**53, ``Decimal`` whose shortest double form is itself;
   * boolean: bools, or ints 0/1 in a column *declared* boolean;
   * date: ``datetime.date`` objects, or text that is exactly ISO ``YYYY-MM-DD`` (the text parsed
     and printed back must be the same text — ``1978-2-23``, ``0000-00-00`` and ``04/12/2005``
     do not fit);
   * timestamp: naive ``datetime`` objects, or text that prints back identically as
     ``YYYY-MM-DD HH:MM:SS[.ffffff]`` (how every parrot engine writes timestamps);
   * text: any str; numbers, dates and other scalars are kept as their exact text (``str`` for
     ints and ``Decimal``, ``repr`` for floats — the shortest text that reads back as the same
     double —, ISO for dates and times).

   Text is always the last resort, so a column whose values do not all fit its declared type
   becomes ``text`` with every value's exact text: no value is silently changed, and the decision
   is reported (:class:`ColumnReport`). Binary values (bytes) have no portable form: they raise.
3. A column without non-NULL values takes its family's first type (``text`` without family).

``blank_as_null=True`` (off by default) is the one value-changing option: an empty string in a
column whose family is not text is read as NULL, and the report says how many were.

**Candidates, checked on the values, never applied silently.** SQLite has no boolean or date
storage, so such columns often arrive as INTEGER or TEXT. An integer column whose values are all
0/1 is reported a *boolean candidate*; a text column whose values all are ISO dates
(``YYYY-MM-DD``, printing back identically) a *date candidate*, ISO timestamps a *timestamp
candidate* (:attr:`Inferred.candidate`). The column keeps its inferred type — changing it would
change every named fixture's content and what queries over it mean — until an **override**
(:func:`parse_override`, ``--type table.column=boolean|date|timestamp|decimal(p,s)``) forces a
type: every non-NULL value must then fit it (booleans: true/false or 0/1; dates and timestamps:
ISO text or temporal values; decimals: numbers or numeric text exactly representable at the
scale), else :class:`IntrospectionError` names the values that do not. The override is reported.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from decimal import Context, Decimal, InvalidOperation
from enum import StrEnum
from typing import Any

from parrot.fixtures import FixtureError
from parrot.values import temporal

INT32 = (-(2**31), 2**31 - 1)
INT64 = (-(2**63), 2**63 - 1)
MAX_DECIMAL_PRECISION = 38
_EXACT_FLOAT_INT = 2**53
_PARAMS = re.compile(r"\(\s*(\d+)\s*(?:,\s*(\d+)\s*)?\)")
EXAMPLES = 3  # offending values quoted in a report
_WIDE = Context(prec=80)  # quantize decimal(38,s) values without rounding


class IntrospectionError(FixtureError):
    """A source database that cannot be read into a portable fixture."""


class Family(StrEnum):
    INTEGER = "integer"
    BIGINT = "bigint"
    DECIMAL = "decimal"  # with precision and scale
    NUMERIC = "numeric"  # decimal without precision/scale
    DOUBLE = "double"
    BOOLEAN = "boolean"
    DATE = "date"
    TIMESTAMP = "timestamp"
    TEXT = "text"
    ANY = "any"  # no usable declaration


@dataclass(frozen=True)
class Declared:
    """What a declared type asks for."""

    text: str  # the declaration as the source spelled it
    family: Family
    precision: int | None = None
    scale: int | None = None

    @property
    def expected(self) -> str | None:
        """The portable type a clean column of this declaration gets (None: values decide)."""
        if self.family is Family.DECIMAL:
            return f"decimal({self.precision},{self.scale})"
        if self.family in (Family.NUMERIC, Family.ANY):
            return None
        return str(self.family)


def declared_family(declared: str | None) -> Declared:
    """Classify a declared column type (SQLite, DuckDB, or SQLAlchemy's rendering of a type)."""
    text = (declared or "").strip()
    t = " ".join(text.upper().split())
    if not t or t == "NULL":
        return Declared(text, Family.ANY)
    if any(w in t for w in ("INTERVAL", "POINT", "UUID", "JSON", "ENUM")):
        return Declared(text, Family.TEXT)
    if "BOOL" in t:
        return Declared(text, Family.BOOLEAN)
    if "INT" in t:
        big = any(w in t for w in ("BIGINT", "INT8", "HUGEINT", "LONG", "INT64", "INT128"))
        return Declared(text, Family.BIGINT if big else Family.INTEGER)
    if any(w in t for w in ("CHAR", "CLOB", "TEXT", "STRING")):
        return Declared(text, Family.TEXT)
    if any(w in t for w in ("BLOB", "BINARY", "BYTEA", "BYTES")):
        return Declared(text, Family.ANY)
    if any(w in t for w in ("REAL", "FLOA", "DOUB")):
        return Declared(text, Family.DOUBLE)
    if any(w in t for w in ("DEC", "NUMERIC", "NUMBER", "MONEY")):
        m = _PARAMS.search(t)
        if m:
            p, s = int(m[1]), int(m[2] or 0)
            if 1 <= p <= MAX_DECIMAL_PRECISION and s <= p:
                return Declared(text, Family.DECIMAL, p, s)
        return Declared(text, Family.NUMERIC)
    if "DATETIME" in t or "TIMESTAMP" in t:
        return Declared(text, Family.TIMESTAMP)
    if "DATE" in t:
        return Declared(text, Family.DATE)
    if "TIME" in t:
        return Declared(text, Family.TEXT)
    if t.startswith("BIT") or t.startswith("YEAR"):
        return Declared(text, Family.INTEGER)
    return Declared(text, Family.ANY)


@dataclass(frozen=True)
class Inferred:
    """The portable type chosen for a column and its values in the fixture's JSON form."""

    type: str
    values: list[Any]  # JSON form (see parrot.fixtures.storage_text), None for NULL
    reason: str = ""  # why the type differs from what the declaration asks (empty: it does not)
    examples: tuple[str, ...] = ()  # a few values that did not fit the declared type
    blanks_as_null: int = 0  # empty strings read as NULL (blank_as_null=True)
    candidate: str = ""  # a type the values also fit exactly: boolean, date or timestamp


# --- fitting values to one portable type ----------------------------------------------------------
# Each fitter returns (portable type, JSON values) or None when some value does not fit.

Fit = tuple[str, list[Any]] | None


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _as_int(v: Any) -> int | None:
    if _is_int(v):
        return int(v)
    if isinstance(v, Decimal) and v.is_finite() and v == v.to_integral_value():
        return int(v)
    return None


def fit_integer(values: Sequence[Any], *, big: bool = False) -> Fit:
    fitted = _fit_each(values, "integer", _as_int)
    if fitted is None:
        return None
    out = fitted[1]
    ints = [i for i in out if i is not None]
    lo, hi = (min(ints), max(ints)) if ints else (0, 0)
    if not big and INT32[0] <= lo and hi <= INT32[1]:
        return "integer", out
    if INT64[0] <= lo and hi <= INT64[1]:
        return "bigint", out
    if all(len(str(abs(i))) <= MAX_DECIMAL_PRECISION for i in ints):
        return f"decimal({MAX_DECIMAL_PRECISION},0)", [None if i is None else str(i) for i in out]
    return None


def _as_decimal(v: Any) -> Decimal | None:
    if _is_int(v):
        return Decimal(v)
    if isinstance(v, float):
        return Decimal(repr(v)) if math.isfinite(v) else None
    if isinstance(v, Decimal):
        return v if v.is_finite() else None
    return None


def _digits(d: Decimal) -> tuple[int, int]:
    """(integer digits, decimal places) of a finite Decimal in its shortest exact form."""
    _, digits, exp = d.normalize().as_tuple()
    assert isinstance(exp, int)
    if d == 0:
        return 0, 0
    places = max(0, -exp)
    whole = max(0, len(digits) + exp)
    return whole, places


def fit_decimal(values: Sequence[Any], precision: int, scale: int) -> Fit:
    quantum = Decimal(1).scaleb(-scale)
    limit = Decimal(10) ** (precision - scale)

    def exact(v: Any) -> str | None:
        d = _as_decimal(v)
        if d is None:
            return None
        try:
            q = d.quantize(quantum, context=_WIDE)
        except InvalidOperation:  # more digits than the context holds
            return None
        return format(q, "f") if q == d and abs(q) < limit else None

    return _fit_each(values, f"decimal({precision},{scale})", exact)


def fit_decimal_objects(values: Sequence[Any]) -> Fit:
    """Columns of ``Decimal`` values without a declared scale: the narrowest decimal(p,s)."""
    present = [v for v in values if v is not None]
    if not present or not all(
        isinstance(v, Decimal | int) and not isinstance(v, bool) for v in present
    ):
        return None
    if not any(isinstance(v, Decimal) for v in present):
        return None
    try:
        shapes = [_digits(Decimal(v)) for v in present]
    except (InvalidOperation, AssertionError):
        return None
    whole = max(w for w, _ in shapes)
    scale = max(s for _, s in shapes)
    if whole + scale > MAX_DECIMAL_PRECISION:
        return None
    return fit_decimal(values, max(1, whole + scale), scale)


def fit_double(values: Sequence[Any]) -> Fit:
    out: list[Any] = []
    for v in values:
        if v is None:
            out.append(None)
        elif isinstance(v, float):
            out.append(v if math.isfinite(v) else str(v))
        elif _is_int(v):
            if abs(v) > _EXACT_FLOAT_INT:
                return None
            out.append(float(v))
        elif isinstance(v, Decimal) and v.is_finite() and Decimal(repr(float(v))) == v:
            out.append(float(v))
        else:
            return None
    return "double", out


def fit_boolean(values: Sequence[Any], *, from_ints: bool) -> Fit:
    out: list[Any] = []
    for v in values:
        if v is None or isinstance(v, bool):
            out.append(v)
        elif from_ints and _is_int(v) and v in (0, 1):
            out.append(bool(v))
        else:
            return None
    return "boolean", out


def _iso_date(v: Any) -> str | None:
    if isinstance(v, dt.datetime):
        return None
    if isinstance(v, dt.date):
        return v.isoformat()
    if isinstance(v, str):
        try:
            parsed = dt.date.fromisoformat(v)
        except ValueError:
            return None
        return v if parsed.isoformat() == v else None
    return None


def _iso_timestamp(v: Any) -> str | None:
    if isinstance(v, dt.datetime):
        return None if v.tzinfo is not None else temporal(v).iso
    if isinstance(v, str) and len(v) >= 19:
        try:
            parsed = dt.datetime.fromisoformat(v)
        except ValueError:
            return None
        if parsed.tzinfo is not None:
            return None
        return v if temporal(parsed).iso == v else None
    return None


def _fit_each(values: Sequence[Any], ptype: str, convert: Callable[[Any], Any]) -> Fit:
    out: list[Any] = []
    for v in values:
        if v is None:
            out.append(None)
            continue
        c = convert(v)
        if c is None:
            return None
        out.append(c)
    return ptype, out


def fit_date(values: Sequence[Any]) -> Fit:
    return _fit_each(values, "date", _iso_date)


def fit_timestamp(values: Sequence[Any]) -> Fit:
    return _fit_each(values, "timestamp", _iso_timestamp)


def exact_text(v: Any) -> str:
    """The exact text of a scalar value (how a column of mixed values keeps it)."""
    if isinstance(v, str):
        return v
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return repr(v)
    if isinstance(v, Decimal):
        return format(v, "f") if v.is_finite() else str(v)
    if isinstance(v, dt.datetime):
        return v.isoformat(sep=" ") if v.tzinfo is not None else temporal(v).iso
    if isinstance(v, dt.date | dt.time):
        return v.isoformat()
    if isinstance(v, bytes | bytearray | memoryview):
        raise IntrospectionError("binary values have no portable type")
    return str(v)


def fit_text(values: Sequence[Any]) -> Fit:
    return "text", [None if v is None else exact_text(v) for v in values]


def _fit_by_values(values: Sequence[Any]) -> Fit:
    """No usable declaration: the Python types of the values decide (text stays text)."""
    present = [v for v in values if v is not None]
    kinds = {type(v) for v in present}
    if not present:
        return fit_text(values)
    if kinds == {bool}:
        return fit_boolean(values, from_ints=False)
    if all(_is_int(v) for v in present):
        return fit_integer(values)
    if all(_is_int(v) or isinstance(v, float) for v in present):
        return fit_double(values) or fit_text(values)
    if all(isinstance(v, Decimal | int) and not isinstance(v, bool) for v in present):
        return fit_decimal_objects(values) or fit_double(values) or fit_text(values)
    if kinds == {dt.date}:
        return fit_date(values)
    if kinds == {dt.datetime}:
        return fit_timestamp(values) or fit_text(values)
    return fit_text(values)


def _attempts(decl: Declared) -> list[Callable[[Sequence[Any]], Fit]]:
    f = decl.family
    if f is Family.INTEGER or f is Family.BIGINT:
        big = f is Family.BIGINT
        return [lambda v: fit_integer(v, big=big), fit_double, fit_text]
    if f is Family.DECIMAL:
        p, s = decl.precision or MAX_DECIMAL_PRECISION, decl.scale or 0
        return [lambda v: fit_decimal(v, p, s), fit_integer, fit_double, fit_text]
    if f is Family.NUMERIC:
        return [fit_integer, fit_decimal_objects, fit_double, fit_text]
    if f is Family.DOUBLE:
        return [fit_double, fit_text]
    if f is Family.BOOLEAN:
        return [lambda v: fit_boolean(v, from_ints=True), fit_integer, fit_text]
    if f is Family.DATE:
        return [fit_date, fit_timestamp, fit_text]
    if f is Family.TIMESTAMP:
        return [fit_timestamp, fit_date, fit_text]
    if f is Family.TEXT:
        return [fit_text]
    return [_fit_by_values]


def _examples(bad: Sequence[Any]) -> tuple[str, ...]:
    """A few distinct offending values, quoted."""
    seen: list[str] = []
    for v in bad:
        text = repr(v)
        if text not in seen:
            seen.append(text)
            if len(seen) == EXAMPLES:
                break
    return tuple(seen)


def _describe(bad: Sequence[Any]) -> str:
    kinds: dict[str, int] = {}
    for v in bad:
        name = "empty-string" if v == "" else type(v).__name__
        kinds[name] = kinds.get(name, 0) + 1
    return ", ".join(f"{n} {k}" for k, n in sorted(kinds.items(), key=lambda kv: -kv[1]))


OVERRIDES = ("boolean", "date", "timestamp", "decimal(p,s)")
_DECIMAL_TYPE = re.compile(r"decimal\(\s*(\d+)\s*,\s*(\d+)\s*\)")


def parse_override(spec: str) -> tuple[str, str]:
    """``table.column=TYPE`` → (``table.column``, portable type); ValueError when malformed."""
    target, sep, wanted = spec.partition("=")
    table, dot, column = target.strip().rpartition(".")
    wanted = "".join(wanted.split()).lower()
    if not (sep and dot and table and column):
        raise ValueError(f"--type {spec!r}: expected TABLE.COLUMN=TYPE")
    m = _DECIMAL_TYPE.fullmatch(wanted)
    if m:
        p, sc = int(m[1]), int(m[2])
        if not 1 <= p <= MAX_DECIMAL_PRECISION or sc > p:
            raise ValueError(
                f"--type {spec!r}: decimal(p,s) needs 1 <= p <= {MAX_DECIMAL_PRECISION} and s <= p"
            )
        wanted = f"decimal({p},{sc})"
    elif wanted not in OVERRIDES[:3]:
        raise ValueError(f"--type {spec!r}: TYPE is one of {', '.join(OVERRIDES)}")
    return f"{table}.{column}", wanted


def _numeric_text(v: Any) -> Any:
    """Numeric text as a Decimal (an override to decimal reads it), anything else unchanged."""
    if isinstance(v, str):
        try:
            d = Decimal(v.strip())
        except InvalidOperation:
            return v
        return d if d.is_finite() else v
    return v


def _override_fitter(ptype: str) -> Callable[[Sequence[Any]], Fit]:
    if ptype == "boolean":
        return lambda v: fit_boolean(v, from_ints=True)
    if ptype == "date":
        return fit_date
    if ptype == "timestamp":
        return lambda v: _fit_each(v, "timestamp", _timestamp_or_midnight)
    m = _DECIMAL_TYPE.fullmatch(ptype)
    assert m is not None, ptype
    p, s = int(m[1]), int(m[2])
    return lambda v: fit_decimal([_numeric_text(x) for x in v], p, s)


def _timestamp_or_midnight(v: Any) -> str | None:
    """An ISO timestamp, or an ISO date read as its midnight."""
    if (ts := _iso_timestamp(v)) is not None:
        return ts
    return None if (d := _iso_date(v)) is None else d + " 00:00:00"


def _overridden(decl: Declared, values: Sequence[Any], ptype: str) -> Inferred:
    fitter = _override_fitter(ptype)
    fit = fitter(values)
    if fit is None:
        bad = [v for v in values if v is not None and fitter([v]) is None]
        raise IntrospectionError(
            f"--type {ptype}: {len(bad)} of {sum(v is not None for v in values)} value(s) do "
            f"not fit ({_describe(bad)}, e.g. {', '.join(_examples(bad))})"
        )
    reason = f"declared {decl.text or '(none)'}: --type {ptype} applied"
    return Inferred(fit[0], fit[1], reason)


def _candidate(ptype: str, values: Sequence[Any]) -> str:
    """A boolean/date/timestamp type an integer or text column's values all fit exactly."""
    present = [v for v in values if v is not None]
    if not present:
        return ""
    if ptype in ("integer", "bigint") and all(_is_int(v) and v in (0, 1) for v in present):
        return "boolean"
    if ptype == "text" and all(isinstance(v, str) for v in present):
        if fit_date(present) is not None:
            return "date"
        if fit_timestamp(present) is not None:
            return "timestamp"
    return ""


def infer_column(
    declared: str | None,
    values: Sequence[Any],
    *,
    blank_as_null: bool = False,
    override: str | None = None,
) -> Inferred:
    """Choose the portable type of one column from its declaration and all its values;
    ``override`` (a type from :func:`parse_override`) forces one all values must fit."""
    decl = declared_family(declared)
    for v in values:
        if isinstance(v, bytes | bytearray | memoryview):
            raise IntrospectionError(f"binary value {bytes(v)[:16]!r}... has no portable type")
    if override is not None:
        return _overridden(decl, values, override)
    blanks = 0
    if blank_as_null and decl.family not in (Family.TEXT, Family.ANY):
        blanks = sum(1 for v in values if v == "")
        if blanks:
            values = [None if v == "" else v for v in values]
    fit: Fit = None
    for attempt in _attempts(decl):
        fit = attempt(values)
        if fit is not None:
            break
    assert fit is not None  # fit_text and _fit_by_values always fit
    ptype, out = fit
    expected = decl.expected
    reason = ""
    examples: tuple[str, ...] = ()
    widened = decl.family is Family.INTEGER and ptype == "bigint"  # same family, not a misfit
    if expected is not None and ptype != expected and not widened:
        first = _attempts(decl)[0]
        bad = [v for v in values if v is not None and first([v]) is None]
        wanted = expected
    elif decl.family is Family.NUMERIC and ptype == "text":
        numeric = _attempts(decl)[:-1]
        bad = [v for v in values if v is not None and all(a([v]) is None for a in numeric)]
        wanted = "a number"
    else:
        bad = []
        wanted = ""
    if wanted:
        examples = _examples(bad)
        reason = (
            f"declared {decl.text or '(none)'}: {len(bad)} of "
            f"{sum(v is not None for v in values)} value(s) do not fit {wanted} "
            f"({_describe(bad)}, e.g. {', '.join(examples)}) → {ptype}"
            + (" (values kept as their exact text)" if ptype == "text" else "")
        )
    elif decl.family is Family.TEXT and any(
        v is not None and not isinstance(v, str) for v in values
    ):
        reason = f"declared {decl.text}: non-text values kept as their exact text"
    if blanks:
        reason = (reason + "; " if reason else "") + f"{blanks} empty string(s) read as NULL"
    return Inferred(ptype, out, reason, examples, blanks, _candidate(ptype, values))


__all__ = [
    "Declared",
    "Family",
    "Inferred",
    "IntrospectionError",
    "declared_family",
    "exact_text",
    "infer_column",
    "parse_override",
]
