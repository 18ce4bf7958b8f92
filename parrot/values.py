"""Canonical result values: what engine adapters hand to the comparator.

Every engine adapter converts its driver's values into these Python types, one per type family
(README, "What the numbers mean"), so the comparator never needs to know which engine produced
a row:

========== ==========================================================
family      Python representation
========== ==========================================================
null        ``None``
boolean     ``bool``
number      ``int``, ``decimal.Decimal`` or ``float`` (NaN allowed)
string      ``str`` (exact; nothing stripped or folded)
temporal    :class:`Temporal` (canonical ISO text + kind)
bytes       ``bytes``
nested      :class:`Nested` (canonical JSON text of arrays, maps, tuples)
========== ==========================================================
"""

from __future__ import annotations

import datetime as dt
import json
import math
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Literal

TemporalKind = Literal["date", "time", "timestamp"]


@dataclass(frozen=True, order=True)
class Temporal:
    """A date, time or timestamp as canonical ISO text (``YYYY-MM-DD[ HH:MM:SS[.ffffff]]``).

    Fractional seconds are written with trailing zeros removed (``.5`` not ``.500000``); a zero
    fraction is omitted. Time zones are converted to UTC and the offset dropped.
    """

    kind: TemporalKind
    iso: str

    def __str__(self) -> str:
        return self.iso


@dataclass(frozen=True, order=True)
class Nested:
    """An array, map, struct or tuple as canonical JSON text (keys sorted)."""

    json: str

    def __str__(self) -> str:
        return self.json


Value = None | bool | int | float | Decimal | str | bytes | Temporal | Nested


@dataclass(frozen=True)
class ResultSet:
    """A query result: column names and rows of canonical values."""

    columns: tuple[str, ...]
    rows: tuple[tuple[Value, ...], ...]
    types: tuple[str, ...] = field(default=())  # engine type names, informational only

    @property
    def empty(self) -> bool:
        return not self.rows


# A canonical value's type family: the first of these classes it is an instance of.
_FAMILIES: tuple[tuple[type | tuple[type, ...], str], ...] = (
    (type(None), "null"),
    (bool, "boolean"),  # before "number": a bool is an int
    ((int, float, Decimal), "number"),
    (str, "string"),
    (Temporal, "temporal"),
    (bytes, "bytes"),
    (Nested, "nested"),
)


def family(value: Value) -> str:
    """The type family name of a canonical value."""
    for kinds, name in _FAMILIES:
        if isinstance(value, kinds):
            return name
    raise TypeError(f"not a canonical value: {value!r} ({type(value).__name__})")


def _iso_seconds(t: dt.time | dt.datetime) -> str:
    text = t.strftime("%H:%M:%S")
    if t.microsecond:
        text += f".{t.microsecond:06d}".rstrip("0")
    return text


def temporal(value: dt.date | dt.datetime | dt.time) -> Temporal:
    """Canonicalise a Python date, datetime or time."""
    if isinstance(value, dt.datetime):
        if value.tzinfo is not None:
            value = value.astimezone(dt.UTC).replace(tzinfo=None)
        return Temporal("timestamp", f"{value.date().isoformat()} {_iso_seconds(value)}")
    if isinstance(value, dt.date):
        return Temporal("date", value.isoformat())
    if isinstance(value, dt.time):
        return Temporal("time", _iso_seconds(value))
    raise TypeError(f"not a temporal value: {value!r}")


def canonical(value: Any) -> Value:
    """Canonicalise a plain Python value as DB-API drivers commonly return them.

    Adapters call this after their engine-specific conversions (e.g. ClickHouse UInt8 booleans
    stay numbers; the comparator bridges 0/1 and booleans).
    """
    if value is None or isinstance(value, bool | int | str | Decimal | Temporal | Nested):
        return value
    if isinstance(value, float):
        return value
    if isinstance(value, dt.date | dt.datetime | dt.time):
        return temporal(value)
    if isinstance(value, bytes | bytearray | memoryview):
        return bytes(value)
    if isinstance(value, dt.timedelta):
        return Nested(json.dumps({"interval_seconds": value.total_seconds()}))
    if isinstance(value, list | tuple | dict | set | frozenset):
        return Nested(json.dumps(_jsonable(value), sort_keys=True, separators=(",", ":")))
    if hasattr(value, "item"):  # numpy scalars
        return canonical(value.item())
    if type(value).__name__ == "UUID":
        return str(value)
    raise TypeError(f"cannot canonicalise {value!r} ({type(value).__name__})")


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, set | frozenset):
        return sorted((_jsonable(v) for v in value), key=repr)
    v = canonical(value)
    if isinstance(v, Decimal):
        return str(v)
    if isinstance(v, float) and math.isnan(v):
        return "NaN"
    if isinstance(v, Temporal | Nested):
        return str(v)
    if isinstance(v, bytes):
        return v.hex()
    return v


def to_json(value: Value) -> Any:
    """A JSON-safe rendering of a canonical value for results files and reports."""
    if isinstance(value, Decimal):
        return {"decimal": str(value)}
    if isinstance(value, float) and (math.isnan(value) or math.isinf(value)):
        return {"float": str(value)}
    if isinstance(value, Temporal):
        return {value.kind: value.iso}
    if isinstance(value, Nested):
        return {"nested": value.json}
    if isinstance(value, bytes):
        return {"bytes": value.hex()}
    return value
