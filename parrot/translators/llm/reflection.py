"""Reflection (UniQL / CrackSQL style): the model sees what went wrong with its previous answer
and tries again, up to K rounds.

In ``errors`` mode the feedback is only what a real user would have: the target engine's error
for the candidate (or a note that the reply held no SQL). ``results`` mode, for curation, also
reports a mismatch with the expected result; runs using it are labelled in their manifest.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import TYPE_CHECKING

from parrot.datasets import Item
from parrot.translators.base import Translation, TranslationStatus
from parrot.translators.llm.prompts import Message, feedback_message

if TYPE_CHECKING:
    from parrot.translators.llm.translator import LLMTranslator, Tally


async def reflect(translator: LLMTranslator, item: Item, messages: list[Message],
                  first: Translation, tally: Tally) -> tuple[Translation, int]:
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
            follow_up = feedback_message(translator.template_for(item), item, feedback.mode,
                                         problem)
        else:  # unparseable or empty: ask for the format again
            follow_up = translator.template_for(item).render("unparseable")
        history += [{"role": "assistant", "content": current.raw or current.sql or ""},
                    {"role": "user", "content": follow_up}]
        current = await translator.ask(history, tally)
        rounds += 1
    if rounds:
        current = replace(current, annotation_source="reflection")
    return current, rounds
