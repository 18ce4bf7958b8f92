"""A scripted OpenAI-compatible server per test, and LLM options that use it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from eval_runs import echo, scripted_options

from parrot.translators.llm.options import LLMOptions
from parrot.translators.llm.scripted_server import ScriptedServer


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    with ScriptedServer(echo()) as s:
        yield s


@pytest.fixture
def options(server: ScriptedServer, tmp_path: Path) -> LLMOptions:
    return scripted_options(server.url, tmp_path)
