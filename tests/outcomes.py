"""Outcome records built by code for the metric and statistics tests (no engine runs)."""

from __future__ import annotations

from typing import Any


def outcome(rid: str, match: bool, tokens: int = 10) -> dict[str, Any]:
    """A results.jsonl record judged on both engines: every comparison mode ``match``."""
    return {
        "id": rid,
        "source_dialect": "sqlite",
        "target_dialect": "duckdb",
        "gold": {"status": "ok", "rows": 1},
        "pred": {"status": "ok"},
        "translation": {"status": "ok"},
        "tokens": tokens,
        "verdicts": {
            m: {"match": match, "reason": "match" if match else "value"}
            for m in ("strict", "normalized", "multiset")
        },
    }
