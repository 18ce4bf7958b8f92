"""The litellm translator: ``--model PROVIDER/MODEL`` (``openai/gpt-4o``, ``anthropic/...``,
``ollama/...``, ``hosted_vllm/...``; any OpenAI-compatible server with ``--api-base``)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, fields, replace
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from parrot.datasets import Item
from parrot.translators.base import Feedback, Translation, TranslationStatus, Translator
from parrot.translators.llm.cache import ResponseCache
from parrot.translators.llm.client import ClientSettings, Completion, LLMClient, LLMError
from parrot.translators.llm.loop import shared_loop
from parrot.translators.llm.options import FEEDBACK_MODES, LLMOptions, feedback_label
from parrot.translators.llm.parsing import Unparseable, parse_answer
from parrot.translators.llm.prompts import (
    TEXT2SQL_PROMPT,
    Message,
    PromptTemplate,
    build_messages,
    build_text2sql_messages,
    feedback_message,
    load_template,
)
from parrot.translators.registry import register


@dataclass
class Tally:
    """Accounting of every model call behind one item's answer."""

    tokens_in: int = 0
    tokens_out: int = 0
    cost: float | None = None
    calls: int = 0
    cache_hits: int = 0
    latency: float = 0.0

    def add(self, completion: Completion) -> None:
        self.calls += 1
        self.cache_hits += completion.cached
        self.tokens_in += completion.tokens_in
        self.tokens_out += completion.tokens_out
        self.latency += completion.latency
        if completion.cost is not None:
            self.cost = (self.cost or 0.0) + completion.cost

    def apply(self, translation: Translation, rounds: int | None = None) -> Translation:
        cost = round(self.cost, 10) if self.cost is not None else None
        return replace(
            translation,
            tokens_in=self.tokens_in,
            tokens_out=self.tokens_out,
            cost=cost,
            calls=self.calls,
            cache_hits=self.cache_hits,
            latency=round(self.latency, 6),
            rounds=rounds,
        )


def public_url(url: str) -> str:
    """``url`` without credentials or query string (manifests never hold secrets)."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    netloc = f"{host}:{parts.port}" if parts.port else host
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


@register("litellm")
class LLMTranslator(Translator):
    """Any model litellm can call, with our prompt, robust parsing, a response cache and
    reflection on the target engine's errors (``--reflection K``)."""

    name = "litellm"
    takes_llm_options = True

    def __init__(self, model: str, options: LLMOptions | None = None):
        if "/" not in model:
            raise ValueError(f"model {model!r}: expected PROVIDER/MODEL, e.g. openai/gpt-4o")
        self.model = model
        self.options = options or LLMOptions()
        if self.options.feedback not in FEEDBACK_MODES:
            raise ValueError(f"feedback mode {self.options.feedback!r}: one of {FEEDBACK_MODES}")
        self.template = load_template(self.options.prompt)
        self.text2sql_template = load_template(TEXT2SQL_PROMPT)  # items with a question
        self.feedback: Feedback | None = None
        self._client: LLMClient | None = None

    def params(self) -> dict[str, Any]:
        o = self.options
        out: dict[str, Any] = {"name": self.name, "model": self.model}
        if o.api_base:
            out["api_base"] = public_url(o.api_base)
        t2s = self.text2sql_template
        out.update(
            {
                "prompt": f"{self.template.id} sha256:{self.template.sha256}",
                "text2sql_prompt": f"{t2s.id} sha256:{t2s.sha256}",
                "hints": o.hints,
                "shots": o.shots,
                "schema": o.schema,
                "temperature": o.temperature,
                "max_tokens": o.max_tokens,
            }
        )
        if o.reflection:
            out["reflection"] = o.reflection
            out["feedback"] = feedback_label(o.feedback)
        if o.price is not None:
            out["price_per_million"] = list(o.price)
        return out

    def client_settings(self) -> ClientSettings:
        o = self.options
        # every client setting that LLMOptions also has (the request flags) is taken from it
        given = {f.name: getattr(o, f.name) for f in fields(ClientSettings) if hasattr(o, f.name)}
        return ClientSettings(model=self.model, **given)

    @property
    def client(self) -> LLMClient:
        if self._client is None:
            path = self.options.resolved_cache_path()
            self._client = LLMClient(
                self.client_settings(), ResponseCache(path) if path is not None else None
            )
        return self._client

    @property
    def feedback_mode(self) -> str | None:
        return self.options.feedback if self.options.reflection > 0 else None

    def attach_feedback(self, feedback: Feedback) -> None:
        self.feedback = feedback

    def template_for(self, item: Item) -> PromptTemplate:
        """The text-to-SQL template for an item with a question, else the translation one."""
        return self.text2sql_template if item.question else self.template

    def messages(self, item: Item) -> list[Message]:
        o = self.options
        if item.question:
            return build_text2sql_messages(
                item, self.text2sql_template, use_hints=o.hints, use_schema=o.schema
            )
        return build_messages(
            item, self.template, use_hints=o.hints, shots=o.shots, use_schema=o.schema
        )

    async def ask(self, messages: list[Message], tally: Tally) -> Translation:
        """One model call, parsed; failures are typed translations."""
        try:
            completion = await self.client.complete(messages)
        except LLMError as exc:
            return Translation(TranslationStatus.ERROR, error=str(exc), annotation_source="llm")
        tally.add(completion)
        raw = completion.content
        try:
            answer = parse_answer(raw)
        except Unparseable as exc:
            return Translation(
                TranslationStatus.UNPARSEABLE, error=str(exc), raw=raw, annotation_source="llm"
            )
        return Translation.from_sql(
            answer.sql,
            raw=raw if raw.strip() != answer.sql else None,
            reasoning=answer.reasoning,
            confidence=answer.confidence,
            annotation_source="llm",
        )

    async def translate_async(self, item: Item) -> Translation:
        tally = Tally()
        messages = self.messages(item)
        translation = await self.ask(messages, tally)
        if self.options.reflection and self.feedback is not None:
            translation, rounds = await reflect(self, item, messages, translation, tally)
            return tally.apply(translation, rounds)
        return tally.apply(translation)

    def translate(self, item: Item) -> Translation:
        return shared_loop().run(self.translate_async(item))

    def probe(self) -> str | None:
        """One request, without retries (a cached answer counts): None, or why it failed."""
        probe = LLMClient(replace(self.client_settings(), retries=0), self.client.cache)
        try:
            shared_loop().run(probe.complete([{"role": "user", "content": "Reply: SELECT 1"}]))
        except LLMError as exc:
            where = f" at {public_url(self.options.api_base)}" if self.options.api_base else ""
            return f"model {self.model}{where} cannot be used: {exc}"
        return None

    def translate_all(self, items: Iterable[Item]) -> Iterator[tuple[Item, Translation]]:
        """Every item at once on the loop, at most ``concurrency`` requests in flight;
        answers come back as they complete."""
        return shared_loop().map_unordered(self.translate_async, items)

    def close(self) -> None:
        if self._client is not None and self._client.cache is not None:
            self._client.cache.close()
        self._client = None


# Reflection (UniQL / CrackSQL style): the model sees what went wrong with its previous answer
# and tries again, up to K rounds. In ``errors`` mode the feedback is only what a real user would
# have: the target engine's error for the candidate (or a note that the reply held no SQL).
# ``results`` mode, for curation, also reports a mismatch with the expected result; runs using it
# are labelled in their manifest.
async def reflect(
    translator: LLMTranslator, item: Item, messages: list[Message], first: Translation, tally: Tally
) -> tuple[Translation, int]:
    """The answer after up to ``options.reflection`` rounds, and the rounds used."""
    feedback = translator.feedback
    assert feedback is not None
    history = list(messages)
    current, rounds = first, 0
    while rounds < translator.options.reflection:
        if current.status is TranslationStatus.ERROR:  # no answer (the API failed): stop
            break
        if current.ok and current.sql is not None:
            problem = await asyncio.to_thread(feedback.check, item, current.sql)
            if problem is None:
                break
            follow_up = feedback_message(
                translator.template_for(item), item, feedback.mode, problem
            )
        else:  # unparseable or empty: ask for the format again
            follow_up = translator.template_for(item).render("unparseable")
        history += [
            {"role": "assistant", "content": current.raw or current.sql or ""},
            {"role": "user", "content": follow_up},
        ]
        current = await translator.ask(history, tally)
        rounds += 1
    if rounds:
        current = replace(current, annotation_source="reflection")
    return current, rounds
