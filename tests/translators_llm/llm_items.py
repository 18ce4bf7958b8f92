"""Items of the LLM translator tests (a module of its own: a name imported from ``conftest``
collides with the other test packages' conftest modules when several are collected in one
session). The scripted server's answers are in ``tests/eval_runs.py``."""

from __future__ import annotations

from typing import Any

from parrot.datasets import item_from_record


def make_item(i: str, sql: str = "SELECT 1 AS a", src: str = "sqlite", tgt: str = "duckdb") -> Any:
    return item_from_record(
        {"id": i, "source_dialect": src, "target_dialect": tgt, "source_sql": sql}
    )
