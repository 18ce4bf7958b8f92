"""``parrot eval`` as the tests run it (quietly, into a folder), and the identity answer of
parrot's scripted OpenAI-compatible server.

A module of its own at the top of ``tests``: the LLM translator, report, assess and text-to-SQL
tests share it, and a name imported from one folder's ``conftest`` collides with the others'.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from parrot.eval.cli import main as eval_main
from parrot.translators.llm.options import LLMOptions
from parrot.translators.llm.scripted_server import Reply

SOURCE = re.compile(r"Source query \([^)]*\):\n```sql\n(.*?)\n```", re.S)
MODEL = "openai/gpt-4o-mini"  # any OpenAI-compatible name: the scripted server answers


def run_eval(out: Path, *args: str) -> int:
    """``parrot eval --quiet ARGS --output-dir OUT``: its exit code."""
    return eval_main(["--quiet", *args, "--output-dir", str(out)])


def run_served(api_base: str, out: Path, *args: str) -> int:
    """:func:`run_eval` of :data:`MODEL` served at ``api_base`` on the sqlite:duckdb pair, its
    response cache beside ``out``."""
    served = ["--model", MODEL, "--api-base", api_base, "--cache", str(out.parent / "cache.sqlite")]
    return run_eval(out, "--pairs", "sqlite:duckdb", *served, *args)


def scripted_options(api_base: str, cache_dir: Path) -> LLMOptions:
    """LLM options for a scripted server at ``api_base``: the response cache in ``cache_dir``,
    quick retries, no few-shot examples."""
    cache = cache_dir / "cache.sqlite"
    return LLMOptions(
        api_base=api_base, cache_path=cache, backoff=0.01, request_timeout=5.0, shots=0
    )


def source_of(request: dict[str, Any]) -> str:
    """The source SQL of the item in a chat request (the last one quoted in a user turn)."""
    found = [
        s for m in request["messages"] if m["role"] == "user" for s in SOURCE.findall(m["content"])
    ]
    return found[-1] if found else ""


def echo(reasoning: str = "unchanged") -> Callable[[dict[str, Any]], Reply]:
    """A scripted server's handler answering with the source query unchanged (the identity
    translation) and ``reasoning``, as JSON."""

    def answer(request: dict[str, Any]) -> Reply:
        body = {"Answer": source_of(request), "Reasoning": reasoning, "Confidence": 0.5}
        return Reply(json.dumps(body))

    return answer
