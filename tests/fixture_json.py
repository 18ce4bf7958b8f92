"""Fixtures' JSON object form written compactly: a table's columns as DDL, one keyword each."""

from __future__ import annotations

from typing import Any


def table_json(name: str, rows: list[list[Any]], /, **columns: str) -> dict[str, Any]:
    """The JSON of table ``name`` holding ``rows``, keyed by its first column.

    Each column's DDL type may end in ``NOT NULL`` or ``NULL`` (``nullable`` false or true);
    without either the JSON leaves ``nullable`` out, as the fixture files do.
    """
    cols = []
    for column, ddl in columns.items():
        col: dict[str, Any] = {"name": column, "type": ddl}
        for suffix, nullable in ((" NOT NULL", False), (" NULL", True)):
            if ddl.endswith(suffix):
                col.update(type=ddl.removesuffix(suffix), nullable=nullable)
                break
        cols.append(col)
    return {"name": name, "primary_key": [cols[0]["name"]], "columns": cols, "rows": rows}


def fixture_json(name: str, *tables: dict[str, Any]) -> dict[str, Any]:
    """The JSON of fixture ``name`` of ``tables``."""
    return {"name": name, "tables": list(tables)}
