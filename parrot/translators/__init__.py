"""Translators: one interface, one registry (identity, reference, sqlglot, file:<path>, ...)."""

from parrot.translators.base import Translation, TranslationStatus, Translator
from parrot.translators.registry import (
    UnknownTranslatorError,
    available,
    create_translator,
    register,
    translator_class,
)

__all__ = [
    "Translation",
    "TranslationStatus",
    "Translator",
    "UnknownTranslatorError",
    "available",
    "create_translator",
    "register",
    "translator_class",
]
