"""The litellm translator against a real HTTP server speaking the OpenAI protocol."""

from __future__ import annotations

import json
import time
from dataclasses import replace

import pytest
from llm_items import make_item

from parrot.translators import TranslationStatus, create_translator
from parrot.translators.llm.client import count_message_tokens
from parrot.translators.llm.options import LLMOptions
from parrot.translators.llm.scripted_server import Reply, ScriptedServer
from parrot.translators.llm.translator import LLMTranslator


def translator(options: LLMOptions, model: str = "openai/gpt-4o-mini") -> LLMTranslator:
    t = create_translator(model, llm=options)
    assert isinstance(t, LLMTranslator)
    return t


def test_concurrency_limit_is_honoured_and_used(
    server: ScriptedServer, options: LLMOptions
) -> None:
    server.latency = 0.3
    t = translator(replace(options, concurrency=3))
    t.translate(make_item("warm-up", "SELECT 0 AS warm"))  # import litellm outside the timing
    server.reset()
    items = [make_item(f"i{n}", f"SELECT {n} AS a") for n in range(12)]
    start = time.perf_counter()
    results = dict((item.id, tr) for item, tr in t.translate_all(items))
    elapsed = time.perf_counter() - start
    t.close()
    assert server.count == 12 and server.max_in_flight == 3
    assert elapsed >= 1.2  # 4 waves of 0.3 s at least: never more than 3 at once
    assert results["i7"].sql == "SELECT 7 AS a"


def test_429_500_and_malformed_bodies_are_retried(
    server: ScriptedServer, options: LLMOptions
) -> None:
    server.enqueue(
        Reply(status=429, content="slow down"), Reply(status=500), Reply(body=b"this is not json")
    )
    t = translator(options)
    result = t.translate(make_item("a", "SELECT 42 AS a"))
    t.close()
    assert result.ok and result.sql == "SELECT 42 AS a"
    assert server.count == 4 and result.calls == 1 and result.cache_hits == 0


def test_retries_give_up_with_a_typed_error(server: ScriptedServer, options: LLMOptions) -> None:
    server.enqueue(*[Reply(status=503, content="overloaded")] * 3)
    t = translator(replace(options, retries=2))
    result = t.translate(make_item("a"))
    t.close()
    assert result.status is TranslationStatus.ERROR and server.count == 3
    assert "HTTP 503" in (result.error or "") and "after 3 attempts" in (result.error or "")


def test_a_response_without_an_answer_is_a_typed_error(
    server: ScriptedServer, options: LLMOptions
) -> None:
    server.enqueue(
        Reply(body=json.dumps({"id": "x", "object": "chat.completion", "choices": []}).encode())
    )
    t = translator(options)
    result = t.translate(make_item("a"))
    t.close()
    assert result.status is TranslationStatus.ERROR and server.count == 1
    assert result.error == "the response holds no message"


def test_client_errors_are_not_retried(server: ScriptedServer, options: LLMOptions) -> None:
    server.enqueue(Reply(status=400, content="bad request"))
    t = translator(options)
    result = t.translate(make_item("a"))
    t.close()
    assert result.status is TranslationStatus.ERROR and server.count == 1


def test_a_5xx_naming_missing_credentials_is_not_retried(
    server: ScriptedServer, options: LLMOptions
) -> None:
    server.enqueue(Reply(status=500, content="Missing credentials. Please pass an apiKey"))
    t = translator(options)
    result = t.translate(make_item("a"))
    t.close()
    assert result.status is TranslationStatus.ERROR and server.count == 1
    assert "Missing credentials" in (result.error or "")


def test_a_slow_request_times_out_and_is_retried(
    server: ScriptedServer, options: LLMOptions
) -> None:
    t = translator(replace(options, request_timeout=0.5))
    t.translate(make_item("warm-up", "SELECT 0 AS warm"))
    server.reset()
    server.enqueue(Reply(delay=3.0))
    result = t.translate(make_item("a", "SELECT 5 AS a"))
    t.close()
    # two requests: the first was cut at 0.5 s (had it been waited for, its answer would count)
    assert result.ok and result.sql == "SELECT 5 AS a" and server.count == 2


def test_the_cache_answers_reruns_without_requests(
    server: ScriptedServer, options: LLMOptions
) -> None:
    items = [make_item(f"i{n}", f"SELECT {n} AS a") for n in range(5)]
    first = dict(translator(options).translate_all(items))
    assert server.count == 5
    again = translator(options)  # a new process would open the same file
    second = dict(again.translate_all(items))
    again.close()
    assert server.count == 5
    assert {i.id: t.sql for i, t in second.items()} == {i.id: t.sql for i, t in first.items()}
    assert all(t.cache_hits == 1 and t.calls == 1 for t in second.values())
    assert [t.tokens_in for t in second.values()] == [t.tokens_in for t in first.values()]
    hotter = translator(replace(options, temperature=0.7))  # other parameters: another key
    hotter.translate(items[0])
    uncached = translator(replace(options, cache=False))
    uncached.translate(items[0])
    assert server.count == 7


def test_tokens_come_from_usage_or_tiktoken(server: ScriptedServer, options: LLMOptions) -> None:
    t = translator(options)
    reported = t.translate(make_item("a", "SELECT 1 AS a"))
    body = server.requests[-1]
    prompt_chars = sum(len(m["content"]) for m in body["messages"])
    assert reported.tokens_in == prompt_chars // 4
    server.enqueue(Reply(json.dumps({"Answer": "SELECT 2 AS a"}), usage=False))
    counted = t.translate(make_item("b", "SELECT 2 AS a"))
    t.close()
    from parrot.tokens import count_tokens

    assert counted.tokens_in == count_message_tokens(server.requests[-1]["messages"])
    assert counted.tokens_out == count_tokens(json.dumps({"Answer": "SELECT 2 AS a"}))


def test_cost_at_litellm_prices_or_given_prices(
    server: ScriptedServer, options: LLMOptions
) -> None:
    import litellm

    t = translator(options)
    result = t.translate(make_item("a"))
    t.close()
    price = litellm.model_cost["gpt-4o-mini"]
    expected = (
        result.tokens_in * price["input_cost_per_token"]
        + result.tokens_out * price["output_cost_per_token"]
    )
    assert result.cost == pytest.approx(expected) and result.cost > 0
    unknown = translator(options, "openai/no-such-model-anywhere")
    assert unknown.translate(make_item("a")).cost is None
    priced = translator(replace(options, price=(1.0, 2.0)), "openai/no-such-model-anywhere")
    r = priced.translate(make_item("a"))
    assert r.cost == pytest.approx((r.tokens_in + 2 * r.tokens_out) / 1e6)


def test_unparseable_answers_keep_the_raw_text(server: ScriptedServer, options: LLMOptions) -> None:
    server.enqueue(Reply("I am sorry, I cannot translate this."))
    t = translator(options)
    result = t.translate(make_item("a"))
    t.close()
    assert result.status is TranslationStatus.UNPARSEABLE
    assert result.raw == "I am sorry, I cannot translate this."


def test_keys_reach_the_server_but_no_error_message(
    server: ScriptedServer, options: LLMOptions, monkeypatch: pytest.MonkeyPatch
) -> None:
    secret = "sk-parrot-test-0123456789abcdef"
    monkeypatch.setenv("OPENAI_API_KEY", secret)
    server.enqueue(Reply(status=401, content=f"Incorrect API key provided: {secret}"))
    t = translator(options)
    result = t.translate(make_item("a"))
    t.close()
    assert server.headers[-1]["authorization"] == f"Bearer {secret}"
    assert result.status is TranslationStatus.ERROR and "401" in (result.error or "")
    assert secret not in json.dumps(result.to_json()) and secret not in json.dumps(t.params())


def test_model_specs_route_to_litellm() -> None:
    t = create_translator("ollama/llama3:8b")
    assert isinstance(t, LLMTranslator) and t.model == "ollama/llama3:8b"
    assert t.params()["model"] == "ollama/llama3:8b" and "api_base" not in t.params()
    with pytest.raises(ValueError, match="PROVIDER/MODEL"):
        create_translator("litellm:gpt-4o")
