"""A scripted OpenAI-compatible server per test, and LLM options that use it."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from parrot.datasets import item_from_record
from parrot.translators.llm.options import LLMOptions
from parrot.translators.llm.scripted_server import Reply, ScriptedServer

SOURCE = re.compile(r"Source query \([^)]*\):\n```sql\n(.*?)\n```", re.S)


def source_of(request: dict[str, Any]) -> str:
    """The source SQL of the item in a chat request (the last one quoted in a user turn)."""
    found = [s for m in request["messages"] if m["role"] == "user"
             for s in SOURCE.findall(m["content"])]
    return found[-1] if found else ""


def echo_source(request: dict[str, Any]) -> Reply:
    """Answer with the source query unchanged (the identity translation), as JSON."""
    return Reply(json.dumps({"Answer": source_of(request), "Reasoning": "unchanged",
                             "Confidence": 0.5}))


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    with ScriptedServer(echo_source) as s:
        yield s


@pytest.fixture
def options(server: ScriptedServer, tmp_path: Path) -> LLMOptions:
    return LLMOptions(api_base=server.url, cache_path=tmp_path / "cache.sqlite", backoff=0.01,
                      request_timeout=5.0, shots=0)


def make_item(i: str, sql: str = "SELECT 1 AS a", src: str = "sqlite",
              tgt: str = "duckdb") -> Any:
    return item_from_record({"id": i, "source_dialect": src, "target_dialect": tgt,
                             "source_sql": sql})
