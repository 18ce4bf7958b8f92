"""An async chat client over litellm: bounded concurrency, retries (tenacity: which errors
:func:`retryable` says, exponential backoff with jitter or the server's Retry-After), a per-request
timeout, the response cache, and token and cost accounting.

litellm is imported on the first request (its import takes seconds), with its price list read
from the copy it ships instead of the network.
"""

from __future__ import annotations

import asyncio
import logging
import os
import random
import re
import sys
import time
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any
from urllib.parse import urlsplit

from tenacity import (
    AsyncRetrying,
    RetryCallState,
    retry_if_exception,
    stop_after_attempt,
)

from parrot.engines.sandbox import scrub_secrets
from parrot.tokens import count_tokens
from parrot.translators.llm.cache import CachedResponse, ResponseCache, cache_key

RETRY_STATUS = frozenset({408, 409, 429})  # and every 5xx
RETRY_NAMES = frozenset(
    {
        "Timeout",
        "APIConnectionError",
        "RateLimitError",
        "InternalServerError",
        "ServiceUnavailableError",
        "BadGatewayError",
    }
)
_CONFIG_ERROR = re.compile(
    r"(?i)missing credentials|api[ _-]?key|unauthori[sz]ed|"
    r"authentication|invalid model|model not found|does not exist"
)
_SECRET_SHAPES = (
    (re.compile(r"\b(sk|pk|rk|gsk|xai)-[A-Za-z0-9_*\-]{6,}"), r"\1-***"),
    (re.compile(r"(?i)\b(bearer)\s+\S+"), r"\1 ***"),
)


class LLMError(RuntimeError):
    """A request that failed for good (after retries, or a non-retryable error)."""

    def __init__(self, message: str, attempts: int):
        super().__init__(message)
        self.attempts = attempts


@dataclass(frozen=True)
class ClientSettings:
    model: str  # a litellm model name, provider/model
    api_base: str | None = None
    temperature: float = 0.0
    max_tokens: int = 1024
    request_timeout: float = 120.0
    retries: int = 4
    backoff: float = 1.0
    backoff_max: float = 30.0
    concurrency: int = 8
    response_format: dict[str, Any] | None = None
    price: tuple[float, float] | None = None  # USD per million tokens in/out
    api_key: str | None = field(default=None, repr=False)  # our own local server only

    def request_params(self) -> dict[str, Any]:
        """The parameters that shape an answer (part of the cache key)."""
        params: dict[str, Any] = {"temperature": self.temperature, "max_tokens": self.max_tokens}
        if self.response_format is not None:
            params["response_format"] = self.response_format
        return params


@dataclass(frozen=True)
class Completion:
    content: str
    tokens_in: int
    tokens_out: int
    cost: float | None
    latency: float  # seconds from the first request to the answer (0 for a cache hit)
    cached: bool
    attempts: int  # HTTP requests made (0 for a cache hit)


@lru_cache(maxsize=1)
def _litellm() -> Any:
    os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"  # never fetch the price list
    if "litellm" not in sys.modules:  # its import takes seconds: say why nothing happens
        print("loading litellm…", file=sys.stderr, flush=True)
    import litellm

    litellm.suppress_debug_info = True
    litellm.telemetry = False
    for name in ("LiteLLM", "LiteLLM Router", "LiteLLM Proxy"):  # parrot reports errors itself
        logging.getLogger(name).setLevel(logging.CRITICAL)
    return litellm


def redact(text: str, extra: tuple[str | None, ...] = ()) -> str:
    """``text`` without API keys: every configured secret (:func:`scrub_secrets`) and anything
    shaped like a key (``sk-…``, ``Bearer …``)."""
    text = scrub_secrets(text, extra)
    for shape, replacement in _SECRET_SHAPES:
        text = shape.sub(replacement, text)
    return text


def retryable(exc: BaseException) -> bool:
    """429, 408, 409, any 5xx, timeouts and broken connections are worth another try, unless the
    message names a configuration error (credentials, API key, unknown model), which no retry fixes.
    """
    if isinstance(exc, TimeoutError):
        return True
    if _CONFIG_ERROR.search(str(exc)):
        return False
    status = getattr(exc, "status_code", None)
    if isinstance(status, int) and (status in RETRY_STATUS or status >= 500):
        return True
    return type(exc).__name__ in RETRY_NAMES


def _retry_after(exc: BaseException) -> float | None:
    headers = getattr(getattr(exc, "response", None), "headers", None)
    try:
        return float(headers.get("retry-after")) if headers is not None else None
    except (TypeError, ValueError):
        return None


def count_message_tokens(messages: list[dict[str, str]]) -> int:
    """tiktoken count of a chat (contents plus 3 tokens of framing per message)."""
    return sum(count_tokens(m.get("content", "")) + 3 for m in messages) + 3


class LLMClient:
    """One model behind litellm. Use from a single event loop."""

    def __init__(self, settings: ClientSettings, cache: ResponseCache | None = None):
        self.settings = settings
        self.cache = cache
        self.requests = 0  # HTTP requests made, retries included
        self._semaphore: asyncio.Semaphore | None = None
        self._rng = random.Random()
        self._priced = True  # False once litellm says it has no price for the model
        # configured secrets beyond the environment's: the key and an --api-base password
        base_password = urlsplit(settings.api_base).password if settings.api_base else None
        self._secrets = (settings.api_key, base_password)

    async def complete(self, messages: list[dict[str, str]]) -> Completion:
        """The model's reply to ``messages``; raises LLMError."""
        s = self.settings
        key = cache_key(s.model, messages, s.request_params())
        if self.cache is not None:
            hit = self.cache.get(key)
            if hit is not None:  # scrubbed again: a cache written before scrubbing existed
                return Completion(
                    scrub_secrets(hit.content, self._secrets),
                    hit.tokens_in,
                    hit.tokens_out,
                    self.cost(hit.tokens_in, hit.tokens_out),
                    0.0,
                    cached=True,
                    attempts=0,
                )
        if self._semaphore is None:
            self._semaphore = asyncio.Semaphore(s.concurrency)
        _litellm()  # the first import takes seconds: not inside a request's timeout
        start: float | None = None  # the first request, not the wait for a slot
        retrying = AsyncRetrying(
            stop=stop_after_attempt(s.retries + 1),
            retry=retry_if_exception(retryable),
            wait=self._wait,
            reraise=True,
        )
        try:
            async for attempt in retrying:
                with attempt:
                    async with self._semaphore:
                        start = start or time.perf_counter()
                        self.requests += 1
                        response = await asyncio.wait_for(
                            self._request(messages), s.request_timeout
                        )
        except Exception as exc:
            tries = retrying.statistics["attempt_number"]
            raise LLMError(_describe(exc, tries, self._secrets), tries) from None
        attempts = retrying.statistics["attempt_number"]
        choices = getattr(response, "choices", None) or []
        message = getattr(choices[0], "message", None) if choices else None
        if message is None:
            raise LLMError("the response holds no message", attempts)
        # an answer that echoes a key is stored (cache, results.jsonl) without it
        content = scrub_secrets(getattr(message, "content", None) or "", self._secrets)
        usage = getattr(response, "usage", None)
        tokens_in = int(getattr(usage, "prompt_tokens", 0) or 0)
        tokens_out = int(getattr(usage, "completion_tokens", 0) or 0)
        if not tokens_in and not tokens_out:  # the provider reported none: count them
            tokens_in = count_message_tokens(messages)

            tokens_out = count_tokens(content)
        latency = time.perf_counter() - (start or 0.0)
        completion = Completion(
            content,
            tokens_in,
            tokens_out,
            self.cost(tokens_in, tokens_out),
            latency,
            cached=False,
            attempts=attempts,
        )
        if self.cache is not None:
            self.cache.put(key, s.model, CachedResponse(content, tokens_in, tokens_out, latency))
        return completion

    async def _request(self, messages: list[dict[str, str]]) -> Any:
        s = self.settings
        kwargs: dict[str, Any] = {
            "model": s.model,
            "messages": messages,
            "temperature": s.temperature,
            "max_tokens": s.max_tokens,
            "timeout": s.request_timeout,
            "max_retries": 0,
            "num_retries": 0,
        }
        if s.api_base:
            kwargs["api_base"] = s.api_base
        if s.response_format is not None:
            kwargs["response_format"] = s.response_format
        api_key = s.api_key
        if (
            api_key is None
            and s.api_base
            and s.model.startswith("openai/")
            and not os.environ.get("OPENAI_API_KEY")
        ):
            api_key = "no-key"  # OpenAI-compatible servers without authentication
        if api_key is not None:
            kwargs["api_key"] = api_key
        return await _litellm().acompletion(**kwargs)

    def _wait(self, state: RetryCallState) -> float:
        """tenacity's wait: the delay after the failed attempt ``state`` describes."""
        assert state.outcome is not None
        return self._delay(state.attempt_number, state.outcome.exception())

    def _delay(self, attempt: int, exc: BaseException | None) -> float:
        """Exponential backoff with equal jitter, or the server's Retry-After when it says."""
        s = self.settings
        ceiling = min(s.backoff_max, s.backoff * 2 ** (attempt - 1))
        after = _retry_after(exc) if exc is not None else None
        if after is not None:
            return min(s.backoff_max, after)
        return ceiling / 2 + self._rng.uniform(0, ceiling / 2)

    def cost(self, tokens_in: int, tokens_out: int) -> float | None:
        """USD at --price, else at litellm's price list; None when the model has no price."""
        s = self.settings
        if s.price is not None:
            return (tokens_in * s.price[0] + tokens_out * s.price[1]) / 1e6
        if not self._priced:
            return None
        try:
            prompt, completion = _litellm().cost_per_token(
                model=s.model, prompt_tokens=tokens_in, completion_tokens=tokens_out
            )
        except Exception:  # litellm raises for models it has no price for
            self._priced = False
            return None
        return float(prompt) + float(completion)


def _describe(exc: BaseException, attempts: int, secrets: tuple[str | None, ...] = ()) -> str:
    kind = "timeout" if isinstance(exc, TimeoutError) else type(exc).__name__
    status = getattr(exc, "status_code", None)
    text = str(exc).strip().splitlines()[0][:300] if str(exc).strip() else ""
    where = f" (HTTP {status})" if isinstance(status, int) else ""
    tries = f" after {attempts} attempts" if attempts > 1 else ""
    return redact(f"{kind}{where}{tries}: {text}".rstrip(": "), secrets)
