"""The translator interface: one item in, one typed :class:`Translation` out.

Translators never execute SQL. A translator that cannot translate says so with a typed status; it
never passes the source through in disguise.
"""

from __future__ import annotations

import abc
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass
from enum import StrEnum
from typing import Any, ClassVar, Protocol

from parrot.datasets import Item


class TranslationStatus(StrEnum):
    OK = "ok"
    UNSUPPORTED = "unsupported"  # the translator cannot express a construct in the target
    ERROR = "error"  # the translator failed (parse error, API error, ...)
    MISSING = "missing"  # no translation exists (e.g. an id absent from a predictions file)
    EMPTY = "empty"  # the translator answered with no SQL
    UNPARSEABLE = "unparseable"  # an answer with no recognisable SQL (raw text kept in ``raw``)
    NO_REFERENCE = "no_reference"  # ``reference`` on an item with none in its target dialect


@dataclass(frozen=True)
class Translation:
    """A translator's answer for one item, with its accounting."""

    status: TranslationStatus
    sql: str | None = None
    error: str | None = None
    raw: str | None = None  # the raw response, when different from ``sql``
    reasoning: str | None = None
    confidence: float | None = None
    tokens_in: int | None = None
    tokens_out: int | None = None
    cost: float | None = None
    latency: float | None = None  # seconds
    annotation_source: str | None = None  # which member/tool produced it (tool, llm, rule, ...)
    member: str | None = None  # the ensemble member that produced it (its --model spec)
    calls: int | None = None  # model requests behind this answer (cache hits included)
    cache_hits: int | None = None  # of ``calls``, answered by the response cache
    rounds: int | None = None  # reflection rounds used (0: the first answer was kept)

    @property
    def ok(self) -> bool:
        return self.status is TranslationStatus.OK

    def to_json(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if v is not None}

    @classmethod
    def from_sql(cls, sql: str | None, **kwargs: Any) -> Translation:
        """An OK translation, or EMPTY when ``sql`` is blank."""
        if sql is None or not sql.strip():
            return cls(TranslationStatus.EMPTY, error="no SQL in the answer", **kwargs)
        return cls(TranslationStatus.OK, sql=sql, **kwargs)


class Feedback(Protocol):
    """What the runner tells a translator about a candidate: the reflection and ensemble
    translators run nothing themselves. ``mode`` is ``errors`` (the target engine's error only:
    fair for evaluation) or ``results`` (also a mismatch with the expected result: curation)."""

    mode: str

    def check(self, item: Item, sql: str) -> str | None:
        """None when the candidate is accepted, else the message to show the model."""


class Translator(abc.ABC):
    """Translate benchmark items. Subclasses register themselves in ``parrot.translators``."""

    name: ClassVar[str]
    takes_llm_options: ClassVar[bool] = False  # accepts ``options=LLMOptions`` (--model flags)
    # translate() is local computation (no requests, no feedback, nothing shared): a run may
    # call it in a thread of its own, a few items ahead of the judge (parrot.eval.runner)
    read_ahead: ClassVar[bool] = False

    @abc.abstractmethod
    def translate(self, item: Item) -> Translation:
        """Translate one item; failures are returned as a typed status, not raised."""

    def translate_all(self, items: Iterable[Item]) -> Iterator[tuple[Item, Translation]]:
        """Translate many items, yielding as each finishes (batching translators override)."""
        for item in items:
            yield item, self.translate(item)

    def params(self) -> dict[str, Any]:
        """Everything that determines this translator's output, for the run manifest."""
        return {"name": self.name}

    @property
    def feedback_mode(self) -> str | None:
        """The execution feedback to :meth:`attach_feedback` before translating (``errors`` or
        ``results``), or None."""
        return None

    def attach_feedback(self, feedback: Feedback) -> None:  # noqa: B027 - optional hook
        """Receive the runner's execution feedback (translators never execute SQL)."""

    def check_items(self, items: Iterable[Item]) -> list[str]:
        """Warnings about the items before a run (e.g. ids a predictions file lacks)."""
        return []

    def probe(self) -> str | None:
        """Why the translator cannot work at all (bad credentials, unknown model, unreachable
        endpoint), found with one request before a run; None when it can."""
        return None

    def close(self) -> None:  # noqa: B027 - optional hook
        """Release clients, servers and caches."""
