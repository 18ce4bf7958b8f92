"""Translator registry: ``@register(name)`` on a class; specs ``sqlglot``, ``file:preds.json``,
``openai/gpt-4o`` (a ``PROVIDER/MODEL`` spec names a litellm model).

Built-in translators live in modules imported only when asked for, so a run with the sqlglot
baseline never imports an LLM client. Other packages add translators without editing parrot
through the ``parrot.translators`` entry-point group (``name = "module:Class"``), loaded only when
their name is asked for (docs/adding-a-translator.md).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any, TypeVar

from parrot.registry import Registry
from parrot.translators.base import Translator

T = TypeVar("T", bound=type[Translator])
ENTRY_POINTS = "parrot.translators"


class UnknownTranslatorError(LookupError):
    """A ``--model`` spec that names no registered translator."""


def _is_translator(obj: object) -> bool:
    return isinstance(obj, type) and issubclass(obj, Translator)


# name -> module that registers it (imported lazily)
TRANSLATORS: Registry[type[Translator]] = Registry(
    "translator",
    group=ENTRY_POINTS,
    check=_is_translator,
    expects="a Translator class",
    error=UnknownTranslatorError,
    builtin={
        "identity": "parrot.translators.simple",
        "reference": "parrot.translators.simple",
        "sqlglot": "parrot.translators.sqlglot_baseline",
        "gold-sqlglot": "parrot.translators.sqlglot_baseline",
        "file": "parrot.translators.predictions",
        "litellm": "parrot.translators.llm.translator",
        "local": "parrot.translators.llm.local",
        "ensemble": "parrot.translators.ensemble",
        "rules": "parrot.curate.rules",
    },
)


def register(name: str) -> Callable[[T], T]:
    """Class decorator adding a translator under ``name``."""
    return TRANSLATORS.register(name)


def available() -> list[str]:
    return TRANSLATORS.names()


def translator_class(name: str) -> type[Translator]:
    if name not in TRANSLATORS:
        raise UnknownTranslatorError(
            f"unknown model/translator {name!r}; available: {', '.join(available())} ({USAGE})"
        )
    return TRANSLATORS.get(name)


def create_translator(spec: str, llm: Any = None, **kwargs: Any) -> Translator:
    """Build the translator a ``--model`` spec names: ``NAME``, ``NAME:ARGUMENT`` or
    ``PROVIDER/MODEL``; ``llm`` (LLMOptions) reaches the translators that take it."""
    name, sep, argument = spec.partition(":")
    if "/" in name:  # provider/model, e.g. openai/gpt-4o, ollama/llama3:8b
        name, sep, argument = "litellm", ":", spec
    cls = translator_class(name.strip())
    if llm is not None and cls.takes_llm_options:
        kwargs["options"] = llm
    if sep:
        return cls(argument, **kwargs)  # type: ignore[call-arg]
    if _needs_argument(cls):
        raise UnknownTranslatorError(
            f"translator {name!r} needs an argument: --model {name}:ARGUMENT ({USAGE})"
        )
    return cls(**kwargs)


USAGE = (
    "file:<path> scores a predictions file; PROVIDER/MODEL, e.g. openai/gpt-4o, or "
    "litellm:PROVIDER/MODEL calls a model; ensemble:A,B tries A, then B"
)


def _needs_argument(cls: type[Translator]) -> bool:
    """True when ``cls`` takes a required positional argument (the part after ``NAME:``)."""
    parameters = list(inspect.signature(cls.__init__).parameters.values())[1:]
    return any(
        p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
        for p in parameters
    )
