"""Translator registry: ``@register(name)`` on a class; specs ``sqlglot``, ``file:preds.json``,
``openai/gpt-4o`` (a ``PROVIDER/MODEL`` spec names a litellm model).

Built-in translators live in modules imported only when asked for, so a run with the sqlglot
baseline never imports an LLM client. Other packages add translators without editing parrot
through the ``parrot.translators`` entry-point group (``name = "module:Class"``), loaded only when
their name is asked for (docs/adding-a-translator.md).
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable
from typing import Any, TypeVar

from parrot.translators.base import Translator

T = TypeVar("T", bound=type[Translator])

TRANSLATORS: dict[str, type[Translator]] = {}

# name -> module that registers it (imported lazily)
BUILTIN: dict[str, str] = {
    "identity": "parrot.translators.simple",
    "reference": "parrot.translators.simple",
    "sqlglot": "parrot.translators.sqlglot_baseline",
    "gold-sqlglot": "parrot.translators.sqlglot_baseline",
    "file": "parrot.translators.predictions",
    "litellm": "parrot.translators.llm.translator",
    "local": "parrot.translators.llm.local",
    "ensemble": "parrot.translators.ensemble",
}


class UnknownTranslatorError(LookupError):
    """A ``--model`` spec that names no registered translator."""


def register(name: str) -> Callable[[T], T]:
    """Class decorator adding a translator under ``name``."""

    def decorate(cls: T) -> T:
        if name in TRANSLATORS and TRANSLATORS[name] is not cls:
            raise ValueError(f"translator {name!r} registered twice")
        TRANSLATORS[name] = cls
        return cls

    return decorate


ENTRY_POINTS = "parrot.translators"


def _plugins() -> dict[str, Any]:
    from importlib.metadata import entry_points

    return {ep.name: ep for ep in entry_points(group=ENTRY_POINTS)}


def available() -> list[str]:
    return sorted(set(BUILTIN) | set(TRANSLATORS) | set(_plugins()))


def translator_class(name: str) -> type[Translator]:
    if name not in TRANSLATORS and name in BUILTIN:
        importlib.import_module(BUILTIN[name])
    elif name not in TRANSLATORS and name in (plugins := _plugins()):
        cls = plugins[name].load()
        if not (isinstance(cls, type) and issubclass(cls, Translator)):
            raise UnknownTranslatorError(f"entry point {name!r} ({plugins[name].value}) in "
                                         f"group {ENTRY_POINTS} is not a Translator class")
        TRANSLATORS.setdefault(name, cls)
    try:
        return TRANSLATORS[name]
    except KeyError:
        raise UnknownTranslatorError(
            f"unknown model/translator {name!r}; available: {', '.join(available())} "
            f"({USAGE})") from None


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
            f"translator {name!r} needs an argument: --model {name}:ARGUMENT ({USAGE})")
    return cls(**kwargs)


USAGE = ("file:<path> scores a predictions file; PROVIDER/MODEL, e.g. openai/gpt-4o, or "
         "litellm:PROVIDER/MODEL calls a model; ensemble:A,B tries A, then B")


def _needs_argument(cls: type[Translator]) -> bool:
    """True when ``cls`` takes a required positional argument (the part after ``NAME:``)."""
    parameters = list(inspect.signature(cls.__init__).parameters.values())[1:]
    return any(p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
               for p in parameters)
