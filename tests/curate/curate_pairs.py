"""Verified pairs built by code for the curation tests (a module of its own: test modules do
not import each other)."""

from __future__ import annotations

from parrot.curate.stages import Candidate, Record


def verified_pair(name: str, sql: str, reference: str = "", target: str = "duckdb") -> Record:
    """Pair ``name~target``: ``sql`` from SQLite with one reference (``sql`` unless given), as
    sqlglot's tool candidate."""
    return Record(
        id=f"{name}~{target}",
        dialect="sqlite",
        target=target,
        sql=sql,
        references=(Candidate(reference or sql, "sqlglot", "tool"),),
    )
