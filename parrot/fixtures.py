"""Portable fixtures: a schema of portable types plus rows, and canonical checksums of content.

A fixture is engine-neutral. Engine adapters map the portable types below to their own types,
load the rows, read them back and compare :func:`table_checksum` of what they read with the
checksum of the declared rows, so a lossy load (dropped microseconds, NULL turned into 0, rounded
decimals) is caught before any query runs.

Portable types: ``integer``, ``bigint``, ``double``, ``decimal(p,s)``, ``text``, ``boolean``,
``date``, ``timestamp`` (microsecond precision, no time zone).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from decimal import Context, Decimal, InvalidOperation
from functools import cached_property
from typing import Any

from parrot.values import Temporal, temporal

_DECIMAL = re.compile(r"^decimal\(\s*(\d+)\s*,\s*(\d+)\s*\)$")
SIMPLE_TYPES = ("integer", "bigint", "double", "text", "boolean", "date", "timestamp")
_PLAIN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_UNSAFE = re.compile(r'[\x00-\x1f\x7f"`\[\]\\.;]')
MAX_NAME_BYTES = 63  # PostgreSQL's limit (NAMEDATALEN - 1), the tightest of the local engines
_WIDE = Context(prec=80)  # decimal(38,s) values exceed Python's default 28 digits


class FixtureError(ValueError):
    """A fixture that is malformed or whose rows do not fit its schema."""


def is_plain(name: str) -> bool:
    """Whether ``name`` can be written unquoted (``^[A-Za-z_][A-Za-z0-9_]*$``).

    Adapters of engines that fold unquoted names (PostgreSQL to lower case, Oracle and Snowflake to
    upper case) store plain names folded, so unquoted SQL finds them, and other names exactly as
    written, since SQL can only reach those quoted.
    """
    return bool(_PLAIN.match(name))


def name_problem(name: str) -> str | None:
    """Why ``name`` cannot be a fixture table or column name, or None.

    Any name every engine can store quoted is allowed (``Home Town``, ``%_Change_2007``): non-empty,
    at most 63 UTF-8 bytes, no leading or trailing space, and none of the characters that quoting or
    qualification treats specially somewhere (control characters, ``" ` [ ] \\ . ;``).
    """
    if not name:
        return "is empty"
    if len(name.encode()) > MAX_NAME_BYTES:
        return f"is longer than {MAX_NAME_BYTES} bytes"
    if name != name.strip():
        return "has leading or trailing space"
    bad = _UNSAFE.search(name)
    if bad:
        return f"contains {bad.group()!r}"
    return None


def parse_type(text: str) -> str:
    """Validate and normalise a portable type name (``DECIMAL(10, 2)`` → ``decimal(10,2)``)."""
    t = " ".join(str(text).lower().split())
    if t in SIMPLE_TYPES:
        return t
    m = _DECIMAL.match(t)
    if m:
        p, s = int(m[1]), int(m[2])
        if not 1 <= p <= 38 or s > p:
            raise FixtureError(f"decimal precision/scale out of range: {text!r}")
        return f"decimal({p},{s})"
    raise FixtureError(
        f"unknown portable type {text!r} (use one of {', '.join(SIMPLE_TYPES)}, decimal(p,s))"
    )


def decimal_scale(ptype: str) -> int | None:
    m = _DECIMAL.match(ptype)
    return int(m[2]) if m else None


def decimal_precision(ptype: str) -> int | None:
    m = _DECIMAL.match(ptype)
    return int(m[1]) if m else None


@dataclass(frozen=True)
class Column:
    name: str
    type: str  # portable type
    nullable: bool = True


@dataclass(frozen=True)
class Table:
    name: str
    columns: tuple[Column, ...]
    rows: tuple[tuple[Any, ...], ...]  # typed Python values (see coerce)
    primary_key: tuple[str, ...] = ()

    @property
    def column_names(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.columns)

    def primary_key_problem(self) -> str | None:
        """Why :attr:`primary_key` does not hold for the rows (engines that enforce keys would
        refuse them), or None."""
        unknown = sorted(set(self.primary_key) - set(self.column_names))
        if unknown:
            return f"primary key names unknown columns {unknown}"
        if not self.primary_key:
            return None
        index = [self.column_names.index(k) for k in self.primary_key]
        seen: set[tuple[Any, ...]] = set()
        for i, row in enumerate(self.rows):
            key = tuple(row[j] for j in index)
            if None in key:
                return f"row {i}: NULL in primary key {self.primary_key}"
            if key in seen:
                return f"row {i}: duplicate primary key {key}"
            seen.add(key)
        return None


@dataclass(frozen=True)
class Fixture:
    """A named portable database: tables with typed rows."""

    name: str
    tables: tuple[Table, ...]

    @cached_property
    def content_hash(self) -> str:
        """Stable hash of schema and rows; engines cache materialisations under it."""
        payload = json.dumps(fixture_to_json(self), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(payload.encode()).hexdigest()[:16]

    @property
    def row_count(self) -> int:
        """Rows of all its tables."""
        return sum(len(t.rows) for t in self.tables)

    @cached_property
    def checksums(self) -> dict[str, str]:
        """Canonical checksum of every table's declared rows."""
        return {t.name: table_checksum(t, t.rows) for t in self.tables}

    def table(self, name: str) -> Table:
        for t in self.tables:
            if t.name == name:
                return t
        raise KeyError(name)


# --- typed values -------------------------------------------------------------------------------


def coerce(value: Any, ptype: str) -> Any:
    """Turn a JSON value into the typed Python value a column of ``ptype`` holds."""
    if value is None:
        return None
    try:
        if ptype in ("integer", "bigint"):
            if isinstance(value, bool) or not isinstance(value, int):
                raise FixtureError(f"expected an integer, got {value!r}")
            return value
        if ptype == "double":
            if isinstance(value, str) and value.lower() in (
                "nan",
                "inf",
                "-inf",
                "infinity",
                "-infinity",
            ):
                return float(value)
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise FixtureError(f"expected a number, got {value!r}")
            return float(value)
        if ptype.startswith("decimal"):
            if isinstance(value, bool) or not isinstance(value, int | float | str):
                raise FixtureError(f"expected a decimal (number or string), got {value!r}")
            scale = decimal_scale(ptype)
            d = Decimal(str(value))
            q = d.quantize(Decimal(1).scaleb(-(scale or 0)), context=_WIDE)
            if q != d:
                raise FixtureError(f"{value!r} has more than {scale} decimal places")
            return q
        if ptype == "text":
            if not isinstance(value, str):
                raise FixtureError(f"expected a string, got {value!r}")
            return value
        if ptype == "boolean":
            if not isinstance(value, bool):
                raise FixtureError(f"expected true/false, got {value!r}")
            return value
        if ptype == "date":
            return dt.date.fromisoformat(value)
        if ptype == "timestamp":
            ts = dt.datetime.fromisoformat(value)
            if ts.tzinfo is not None:
                raise FixtureError(f"timestamps carry no time zone: {value!r}")
            return ts
    except (ValueError, TypeError, InvalidOperation) as exc:
        if isinstance(exc, FixtureError):
            raise
        raise FixtureError(f"{value!r} is not a valid {ptype}: {exc}") from None
    raise FixtureError(f"unknown portable type {ptype!r}")


def storage_text(value: Any, ptype: str) -> Any:
    """The JSON-safe form of a typed value (inverse of :func:`coerce`)."""
    if value is None:
        return None
    if ptype.startswith("decimal"):
        return str(value)
    if ptype == "double" and (math.isnan(value) or math.isinf(value)):
        return str(value)
    if ptype in ("date", "timestamp"):
        return temporal(value).iso
    return value


# --- checksums ----------------------------------------------------------------------------------


def cell_text(value: Any, ptype: str) -> str:
    """Canonical text of one stored value, read back from any engine, given its portable type.

    Engines without a native type return a stand-in (SQLite: floats for decimals, 0/1 for
    booleans, ISO text for dates); this maps every stand-in of the same value to the same text.
    """
    if value is None:
        return "\x00NULL"
    if ptype in ("integer", "bigint"):
        return str(int(value))
    if ptype == "double":
        return repr(float(value))
    if ptype.startswith("decimal"):
        scale = decimal_scale(ptype) or 0
        d = Decimal(repr(value)) if isinstance(value, float) else Decimal(str(value))
        return str(d.quantize(Decimal(1).scaleb(-scale), context=_WIDE))
    if ptype == "boolean":
        return "true" if bool(value) else "false"
    if ptype in ("date", "timestamp"):
        if isinstance(value, Temporal):
            return value.iso
        if isinstance(value, str):
            parsed = (
                dt.date.fromisoformat(value)
                if ptype == "date"
                else dt.datetime.fromisoformat(value)
            )
            return temporal(parsed).iso
        return temporal(value).iso
    return str(value)


def table_checksum(table: Table, rows: Iterable[Sequence[Any]]) -> str:
    """Order-independent checksum of ``rows`` interpreted with ``table``'s column types."""
    types = [c.type for c in table.columns]
    lines = sorted(
        json.dumps([cell_text(v, t) for v, t in zip(row, types, strict=True)], ensure_ascii=False)
        for row in rows
    )
    h = hashlib.sha256()
    h.update(f"{len(lines)}\n".encode())
    for line in lines:
        h.update(line.encode())
        h.update(b"\n")
    return h.hexdigest()[:16]


# --- JSON form ----------------------------------------------------------------------------------


def fixture_from_json(data: Any) -> Fixture:
    """Build a :class:`Fixture` from its JSON object form, validating everything."""
    if not isinstance(data, dict):
        raise FixtureError("a fixture is an object with 'name' and 'tables'")
    name = data.get("name")
    if not isinstance(name, str) or not name:
        raise FixtureError("fixture needs a non-empty 'name'")
    raw_tables = data.get("tables")
    if not isinstance(raw_tables, list) or not raw_tables:
        raise FixtureError(f"fixture {name!r} needs a non-empty list 'tables'")
    tables = []
    seen: set[str] = set()
    for rt in raw_tables:
        table = _table_from_json(rt, name)
        if table.name.lower() in seen:
            raise FixtureError(f"fixture {name!r}: duplicate table {table.name!r}")
        seen.add(table.name.lower())
        tables.append(table)
    return Fixture(name=name, tables=tuple(tables))


def _table_from_json(rt: Any, fixture: str) -> Table:
    if not isinstance(rt, dict):
        raise FixtureError(f"fixture {fixture!r}: each table is an object")
    tname = rt.get("name")
    if not isinstance(tname, str):
        raise FixtureError(f"fixture {fixture!r}: each table needs a string 'name'")
    if problem := name_problem(tname):
        raise FixtureError(f"fixture {fixture!r}: table name {tname!r} {problem}")
    cols = []
    for rc in rt.get("columns") or []:
        if not isinstance(rc, dict) or not isinstance(rc.get("name"), str):
            raise FixtureError(f"table {tname!r}: each column is an object with a 'name'")
        if problem := name_problem(rc["name"]):
            raise FixtureError(f"table {tname!r}: column name {rc['name']!r} {problem}")
        cols.append(
            Column(rc["name"], parse_type(rc.get("type", "")), bool(rc.get("nullable", True)))
        )
    if not cols:
        raise FixtureError(f"table {tname!r} has no columns")
    if len({c.name.lower() for c in cols}) != len(cols):
        raise FixtureError(f"table {tname!r} has duplicate column names")
    rows = []
    for i, rr in enumerate(rt.get("rows") or []):
        if not isinstance(rr, list) or len(rr) != len(cols):
            raise FixtureError(f"table {tname!r} row {i}: expected a list of {len(cols)} values")
        try:
            row = tuple(coerce(v, c.type) for v, c in zip(rr, cols, strict=True))
        except FixtureError as exc:
            raise FixtureError(f"table {tname!r} row {i}: {exc}") from None
        for v, c in zip(row, cols, strict=True):
            if v is None and not c.nullable:
                raise FixtureError(f"table {tname!r} row {i}: NULL in NOT NULL column {c.name!r}")
        rows.append(row)
    table = Table(tname, tuple(cols), tuple(rows), tuple(rt.get("primary_key") or ()))
    if problem := table.primary_key_problem():
        raise FixtureError(f"table {tname!r}: {problem}")
    return table


def fixture_to_json(fixture: Fixture) -> dict[str, Any]:
    return {
        "name": fixture.name,
        "tables": [
            {
                "name": t.name,
                "columns": [
                    {"name": c.name, "type": c.type, "nullable": c.nullable} for c in t.columns
                ],
                "primary_key": list(t.primary_key),
                "rows": [
                    [storage_text(v, c.type) for v, c in zip(r, t.columns, strict=True)]
                    for r in t.rows
                ],
            }
            for t in fixture.tables
        ],
    }
