"""A model answer that echoes a configured secret is stored without it: results.jsonl and the
response cache hold ``***`` (real run through the scripted OpenAI-compatible server)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from eval_runs import run_served

from parrot.engines.sandbox import scrub_secrets
from parrot.translators.llm.scripted_server import Reply, ScriptedServer

KEY = "sk-parrot-fake-0123456789abcdefXYZ"
TOKEN = "tok_9f8e7d6c5b4a3210"  # a secret no key shape would recognise


def leaky(request: dict[str, object]) -> Reply:
    return Reply(
        json.dumps(
            {
                "Answer": f"SELECT '{KEY}' AS a, '{TOKEN}' AS b",
                "Reasoning": f"my key is {KEY}",
                "Confidence": 0.5,
            }
        )
    )


@pytest.mark.parametrize(
    ("env", "extra", "text", "expected"),
    [
        ({"OPENAI_API_KEY": KEY}, (), f"x {KEY} y", "x *** y"),
        ({"SERVICE_TOKEN": TOKEN}, (), f"'{TOKEN}'", "'***'"),
        ({"DB_PASSWORD": "hunter2hunter2"}, (), "hunter2hunter2!", "***!"),
        ({"SOME_KEY": "short"}, (), "short", "short"),  # under 8 characters: not replaced blindly
        ({"PATH_LIKE": "notasecret123"}, (), "notasecret123", "notasecret123"),
        ({}, ("given-by-flag-0001", None), "a given-by-flag-0001 b", "a *** b"),
    ],
)
def test_scrub_secrets(
    monkeypatch: pytest.MonkeyPatch,
    env: dict[str, str],
    extra: tuple[str | None, ...],
    text: str,
    expected: str,
) -> None:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert scrub_secrets(text, extra) == expected


def test_an_answer_echoing_secrets_is_stored_without_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("SERVICE_TOKEN", TOKEN)
    out, cache = tmp_path / "run", tmp_path / "cache.sqlite"
    with ScriptedServer(leaky) as server:
        assert run_served(server.url, out, "--limit", "2") == 0  # its cache: tmp_path/cache.sqlite
    stored = [p for p in (*out.iterdir(), *tmp_path.glob("cache.sqlite*")) if p.is_file()]
    assert cache in stored
    for path in stored:
        data = path.read_bytes()
        assert KEY.encode() not in data and TOKEN.encode() not in data, path
    first = json.loads((out / "results.jsonl").read_text().splitlines()[0])
    assert first["translation"]["sql"] == "SELECT '***' AS a, '***' AS b"
