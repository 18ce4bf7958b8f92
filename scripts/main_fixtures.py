"""parrot-main's own fixtures (``bird_*``), generated from per-table specs.

One TOML file per fixture, ``concepts/main/fixtures/<name>.toml``::

    name = "bird_superhero"
    seed = 14                       # every random column draws from its own seeded generator

    [[tables]]
    name = "superhero"
    size = 13                       # rows (or ``rows = [[...], ...]``: an authored table)
    primary_key = ["id"]            # optional; checked unique
    columns = [
      {name = "id", type = "integer", nullable = false, gen = "seq"},
      {name = "full_name", type = "text", gen = "values", values = ["Abe Sapien", "-", ""]},
    ]

TOML has no NULL: ``{}`` (an empty inline table) stands for one in rows and value lists.
A column's ``gen`` is one of: ``seq`` (``start``, default 1, and ``step``, default 1);
``values`` (one authored value per row); ``cycle`` (``values`` repeated in order); ``choice``
(a seeded draw from ``values``); ``ref`` (a seeded draw from the values of the column
``"table.column"`` of a table above); ``int`` (``min``..``max``); ``float`` (``min``..``max``
rounded to ``digits``, default 2); ``moment`` (``start``..``end``, whole ``unit`` seconds from
``start``, formatted by ``strftime``, default ``%Y-%m-%d %H:%M:%S``); ``format`` (a Python format
string over ``n`` (0-based row), ``i`` (1-based) and the row's other columns; ``lower = true``
lower-cases the result). ``int``, ``float`` and ``moment`` take ``nulls``, the chance of a NULL.

A table may instead be ``product = ["t.col", "u.col"]``: the pairs of two generated key columns,
each kept with chance ``keep`` (default 0.5), none whose first value is in ``exclude``; its
further columns are generated as above. Output is deterministic: the same specs give the same
bytes (:func:`render_fixture`), in the committed fixtures' layout (one row per line).
"""

from __future__ import annotations

import datetime as dt
import json
import random
import tomllib
from pathlib import Path
from typing import Any

_STAMP = "%Y-%m-%d %H:%M:%S"
COLUMN_KEYS = {
    "name",
    "type",
    "nullable",
    "gen",
    "values",
    "start",
    "step",
    "min",
    "max",
    "digits",
    "end",
    "unit",
    "strftime",
    "format",
    "lower",
    "nulls",
    "ref",
}


class SpecError(ValueError):
    """A fixture spec that cannot be generated; the message names the file."""


def _nulls(values: list[Any]) -> list[Any]:
    """``{}`` (TOML's stand-in for NULL) as None."""
    return [None if v == {} else v for v in values]


def _rng(seed: int, *names: str) -> random.Random:
    """The column's own generator: adding a column or table never shifts another's values."""
    return random.Random(":".join([str(seed), *names]))


def _moment(text: str) -> dt.datetime:
    return dt.datetime.fromisoformat(text)


def _column(
    col: dict[str, Any],
    n_rows: int,
    rows: list[dict[str, Any]],
    seed: int,
    table: str,
    done: dict[str, dict[str, list[Any]]],
) -> list[Any]:
    """The column's value in each row (``rows``: the columns before it, by name)."""
    gen, name = col.get("gen"), col["name"]
    rng = _rng(seed, table, name)
    nulls = float(col.get("nulls", 0))

    def maybe_null(values: list[Any]) -> list[Any]:
        return [None if nulls and rng.random() < nulls else v for v in values]

    if gen == "seq":
        start, step = col.get("start", 1), col.get("step", 1)
        return [start + step * n for n in range(n_rows)]
    if gen == "values":
        if len(col["values"]) != n_rows:
            raise ValueError(f"{name}: {len(col['values'])} values for {n_rows} rows")
        return _nulls(col["values"])
    if gen == "cycle":
        return _nulls([col["values"][n % len(col["values"])] for n in range(n_rows)])
    if gen == "choice":
        return _nulls([rng.choice(col["values"]) for _ in range(n_rows)])
    if gen == "ref":
        other, _, key = col["ref"].partition(".")
        pool = done[other][key]
        return [rng.choice(pool) for _ in range(n_rows)]
    if gen == "int":
        return maybe_null([rng.randint(col["min"], col["max"]) for _ in range(n_rows)])
    if gen == "float":
        digits = col.get("digits", 2)
        return maybe_null(
            [round(rng.uniform(col["min"], col["max"]), digits) for _ in range(n_rows)]
        )
    if gen == "moment":
        start, unit = _moment(col["start"]), int(col.get("unit", 1))
        steps = int((_moment(col["end"]) - start).total_seconds()) // unit
        fmt = col.get("strftime", _STAMP)
        return maybe_null(
            [
                (start + dt.timedelta(seconds=unit * rng.randint(0, steps))).strftime(fmt)
                for _ in range(n_rows)
            ]
        )
    if gen == "format":
        out = [col["format"].format(n=n, i=n + 1, **rows[n]) for n in range(n_rows)]
        return [v.lower() for v in out] if col.get("lower") else out
    raise ValueError(f"{name}: unknown gen {gen!r}")


def _table(
    spec: dict[str, Any], seed: int, done: dict[str, dict[str, list[Any]]]
) -> dict[str, Any]:
    name, columns = spec["name"], spec["columns"]
    for col in columns:
        unknown = sorted(set(col) - COLUMN_KEYS)
        if unknown:
            raise ValueError(f"column {col.get('name')!r}: unknown key(s) {unknown}")
    header = [
        {"name": c["name"], "type": c["type"], "nullable": c.get("nullable", True)} for c in columns
    ]
    if "rows" in spec:  # an authored table
        rows = [_nulls(r) for r in spec["rows"]]
        if any(len(r) != len(columns) for r in rows):
            raise ValueError(f"a row of {len(columns)} columns has another length")
    else:
        given: list[dict[str, Any]] = []
        fixed = 0
        if "product" in spec:  # pairs of two key columns, each kept with chance `keep`
            (ta, ca), (tb, cb) = (ref.split(".") for ref in spec["product"])
            rng = _rng(seed, name, "product")
            keep, exclude = float(spec.get("keep", 0.5)), set(spec.get("exclude", []))
            given = [
                {columns[0]["name"]: a, columns[1]["name"]: b}
                for a in done[ta][ca]
                for b in done[tb][cb]
                if rng.random() < keep and a not in exclude
            ]
            fixed = 2
        n_rows = len(given) if given else int(spec["size"])
        values: list[dict[str, Any]] = given or [{} for _ in range(n_rows)]
        # format columns last: they may read any other column of the row
        for col in sorted(columns[fixed:], key=lambda c: c.get("gen") == "format"):
            for row, v in zip(values, _column(col, n_rows, values, seed, name, done), strict=True):
                row[col["name"]] = v
        rows = [[row[c["name"]] for c in columns] for row in values]
    done[name] = {c["name"]: [r[k] for r in rows] for k, c in enumerate(columns)}
    for k, c in enumerate(header):
        if not c["nullable"] and any(r[k] is None for r in rows):
            raise ValueError(f"column {c['name']!r} is NOT NULL but got a NULL")
    table: dict[str, Any] = {"name": name, "columns": header}
    if "primary_key" in spec:
        keys = [
            next(k for k, c in enumerate(columns) if c["name"] == p) for p in spec["primary_key"]
        ]
        seen = [tuple(r[k] for k in keys) for r in rows]
        if len(set(seen)) != len(seen):
            raise ValueError(f"primary key {spec['primary_key']} is not unique")
        table["primary_key"] = list(spec["primary_key"])
    table["rows"] = rows
    return table


def build_fixture(path: Path) -> dict[str, Any]:
    """The fixture JSON (``parrot.fixtures`` shape) that the spec file describes."""
    try:
        spec = tomllib.loads(path.read_text(encoding="utf-8"))
        if spec.get("name") != path.stem:
            raise ValueError(f"name {spec.get('name')!r} is not the file's {path.stem!r}")
        done: dict[str, dict[str, list[Any]]] = {}
        tables = []
        for t in spec["tables"]:
            try:
                tables.append(_table(t, int(spec["seed"]), done))
            except (KeyError, ValueError, TypeError, IndexError) as exc:
                raise ValueError(f"table {t.get('name')!r}: {exc}") from None
    except (tomllib.TOMLDecodeError, KeyError, ValueError) as exc:
        raise SpecError(f"{path.name}: {exc}") from None
    return {"name": spec["name"], "tables": tables}


def _dump(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def render_fixture(fixture: dict[str, Any]) -> str:
    """The fixture as text: one column and one row per line."""
    lines = ["{", f'  "name": {_dump(fixture["name"])},', '  "tables": [']
    for t_i, table in enumerate(fixture["tables"]):
        lines += ["    {", f'      "name": {_dump(table["name"])},', '      "columns": [']
        cols = table["columns"]
        lines += [
            f'        {{"name": {_dump(c["name"])}, "type": {_dump(c["type"])}, '
            f'"nullable": {_dump(c["nullable"])}}}' + ("," if k < len(cols) - 1 else "")
            for k, c in enumerate(cols)
        ]
        lines.append("      ],")
        if "primary_key" in table:
            lines.append(f'      "primary_key": {_dump(table["primary_key"])},')
        rows = table["rows"]
        lines.append('      "rows": [')
        lines += [
            f"        {_dump(r)}" + ("," if k < len(rows) - 1 else "") for k, r in enumerate(rows)
        ]
        lines += ["      ]", "    }" + ("," if t_i < len(fixture["tables"]) - 1 else "")]
    lines += ["  ]", "}", ""]
    return "\n".join(lines)
