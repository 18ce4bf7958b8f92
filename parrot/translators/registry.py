"""Translator registry: ``@register(name)`` on a class; specs ``sqlglot``, ``file:preds.json``.

Built-in translators live in modules imported only when asked for, so a run with the sqlglot
baseline never imports an LLM client.
"""

from __future__ import annotations

import importlib
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
    "file": "parrot.translators.predictions",
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


def available() -> list[str]:
    return sorted(set(BUILTIN) | set(TRANSLATORS))


def translator_class(name: str) -> type[Translator]:
    if name not in TRANSLATORS and name in BUILTIN:
        importlib.import_module(BUILTIN[name])
    try:
        return TRANSLATORS[name]
    except KeyError:
        raise UnknownTranslatorError(
            f"unknown model/translator {name!r}; available: {', '.join(available())} "
            "(file:<path> scores a predictions file)") from None


def create_translator(spec: str, **kwargs: Any) -> Translator:
    """Build the translator a ``--model`` spec names: ``NAME`` or ``NAME:ARGUMENT``."""
    name, sep, argument = spec.partition(":")
    cls = translator_class(name.strip())
    if sep:
        return cls(argument, **kwargs)  # type: ignore[call-arg]
    return cls(**kwargs)
