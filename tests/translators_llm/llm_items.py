"""Items and request helpers of the LLM translator tests (a module of its own: a name
imported from ``conftest`` collides with the other test packages' conftest modules when
several are collected in one session)."""

from __future__ import annotations

import json
import re
from typing import Any

from parrot.datasets import item_from_record
from parrot.translators.llm.scripted_server import Reply

SOURCE = re.compile(r"Source query \([^)]*\):\n```sql\n(.*?)\n```", re.S)


def source_of(request: dict[str, Any]) -> str:
    """The source SQL of the item in a chat request (the last one quoted in a user turn)."""
    found = [
        s for m in request["messages"] if m["role"] == "user" for s in SOURCE.findall(m["content"])
    ]
    return found[-1] if found else ""


def echo_source(request: dict[str, Any]) -> Reply:
    """Answer with the source query unchanged (the identity translation), as JSON."""
    return Reply(
        json.dumps({"Answer": source_of(request), "Reasoning": "unchanged", "Confidence": 0.5})
    )


def make_item(i: str, sql: str = "SELECT 1 AS a", src: str = "sqlite", tgt: str = "duckdb") -> Any:
    return item_from_record(
        {"id": i, "source_dialect": src, "target_dialect": tgt, "source_sql": sql}
    )
