"""The translator interface: one item in, one typed :class:`Translation` out.

Translators never execute SQL. A translator that cannot translate says so with a typed status; it
never passes the source through in disguise.
"""

from __future__ import annotations

import abc
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass
from enum import StrEnum
from typing import Any, ClassVar

from parrot.datasets import Item


class TranslationStatus(StrEnum):
    OK = "ok"
    UNSUPPORTED = "unsupported"  # the translator cannot express a construct in the target
    ERROR = "error"  # the translator failed (parse error, API error, ...)
    MISSING = "missing"  # no translation exists (e.g. an id absent from a predictions file)
    EMPTY = "empty"  # the translator answered with no SQL


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


class Translator(abc.ABC):
    """Translate benchmark items. Subclasses register themselves in ``parrot.translators``."""

    name: ClassVar[str]

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

    def check_items(self, items: Iterable[Item]) -> list[str]:
        """Warnings about the items before a run (e.g. ids a predictions file lacks)."""
        return []

    def close(self) -> None:  # noqa: B027 - optional hook
        """Release clients, servers and caches."""
