"""``--model ensemble:sqlglot,openai/gpt-4o``: members in order, the next one taking over an item
when the previous one produced no SQL or the target engine rejected its SQL.

With ``--feedback results`` (curation only, labelled in the manifest) a member is also passed
over when its result differs from the expected one. Each answer records the member that produced
it (``member``, and that member's ``annotation_source``); the accounting of members passed over
is added to the answer's.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import replace
from typing import Any

from parrot.datasets import Item
from parrot.translators.base import Feedback, Translation, Translator
from parrot.translators.llm.options import LLMOptions, feedback_label
from parrot.translators.registry import create_translator, register

_SUMMED = ("tokens_in", "tokens_out", "cost", "latency", "calls", "cache_hits")


@register("ensemble")
class EnsembleTranslator(Translator):
    """A fallback chain of translators (members are ``--model`` specs, comma-separated)."""

    name = "ensemble"
    takes_llm_options = True

    def __init__(self, members: str, options: LLMOptions | None = None):
        specs = [s.strip() for s in members.split(",") if s.strip()]
        if len(specs) < 2:
            raise ValueError("an ensemble needs two or more members: ensemble:A,B[,...]")
        self.options = options or LLMOptions()
        self.members: list[tuple[str, Translator]] = [
            (spec, create_translator(spec, llm=self.options)) for spec in specs
        ]
        self.feedback: Feedback | None = None

    def params(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "members": [t.params() for _, t in self.members],
            "feedback": feedback_label(self.options.feedback),
        }

    @property
    def feedback_mode(self) -> str | None:
        return self.options.feedback

    def attach_feedback(self, feedback: Feedback) -> None:
        self.feedback = feedback
        for _, member in self.members:
            if member.feedback_mode is not None:
                member.attach_feedback(feedback)

    def check_items(self, items: Iterable[Item]) -> list[str]:
        items = list(items)
        return [w for _, member in self.members for w in member.check_items(items)]

    def accepts(self, item: Item, translation: Translation) -> bool:
        if not translation.ok or translation.sql is None:
            return False
        return self.feedback is None or self.feedback.check(item, translation.sql) is None

    def translate(self, item: Item) -> Translation:
        return next(iter(self.translate_all([item])))[1]

    def translate_all(self, items: Iterable[Item]) -> Iterator[tuple[Item, Translation]]:
        """Each member translates, as one batch, the items its predecessors failed."""
        pending = list(items)
        spent: dict[str, Translation] = {}
        for index, (spec, member) in enumerate(self.members):
            last = index == len(self.members) - 1
            passed_over = []
            for item, translation in member.translate_all(pending):
                translation = _plus(replace(translation, member=spec), spent.get(item.id))
                if last or self.accepts(item, translation):
                    yield item, translation
                else:
                    spent[item.id] = translation
                    passed_over.append(item)
            pending = passed_over
            if not pending:
                return

    def close(self) -> None:
        for _, member in self.members:
            member.close()


def _plus(translation: Translation, earlier: Translation | None) -> Translation:
    """``translation`` with the accounting of an earlier member's attempt added."""
    if earlier is None:
        return translation
    summed = {}
    for key in _SUMMED:
        a, b = getattr(translation, key), getattr(earlier, key)
        summed[key] = b if a is None else a if b is None else a + b
    return replace(translation, **summed)
