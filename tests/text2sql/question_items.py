"""Text-to-SQL items built by code for the align and taxonomy tests (a module of its own: test
modules do not import each other)."""

from __future__ import annotations

from typing import Any


def question_item(qid: str, gold_sql: str, target: str, question: str) -> dict[str, Any]:
    """Item ``qid-target``: question ``qid`` asked of ``target``, its SQLite gold ``gold_sql``,
    on the starter set's ``shop`` fixture."""
    return {
        "id": f"{qid}-{target}",
        "question_id": qid,
        "source_dialect": "sqlite",
        "target_dialect": target,
        "source_sql": gold_sql,
        "question": question,
        "fixture": {"name": "shop"},
    }
