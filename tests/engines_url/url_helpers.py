"""Helpers of the URL-engine tests.

Driver exception classes are constructed when the driver is installed; otherwise a minimal
object with the same attributes stands in (a test double of an error object, nothing more).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import pytest

from parrot.engines import statements as st
from parrot.engines.dbapi import ServerURL

E = TypeVar("E")


def driver(module: str) -> Any | None:
    """The driver module when it imports here, else None."""
    try:
        return importlib.import_module(module)
    except ImportError:
        return None


def needs(module: str) -> pytest.MarkDecorator:
    return pytest.mark.skipif(driver(module) is None, reason=f"{module} is not installed")


class FakeError(Exception):
    """Stands in for a driver's error class when the driver is not installed."""

    def __init__(self, *args: Any, **attrs: Any) -> None:
        super().__init__(*args)
        for key, value in attrs.items():
            setattr(self, key, value)


def url_parser(engine: Any, default: str) -> Callable[..., ServerURL]:
    """``url(text=default)``: a URL parsed as the engine parses its own (schemes, example)."""

    def url(text: str = default) -> ServerURL:
        return ServerURL.parse(text, engine.url_schemes, engine.url_example)

    return url


# what ServerEngine.__init__ sets that a bare adapter's methods read (no connection yet)
BARE_STATE: dict[str, Any] = {
    "_token": "abcd1234",
    "_counter": 0,
    "_admin": None,
    "_runner": None,
    "sandboxed": None,
    "sandbox_error": None,
}


def bare_maker(engine: type[E], url: Callable[[], ServerURL], **attrs: Any) -> Callable[[], E]:
    """``bare()``: a fresh adapter without __init__ (no driver, no connection) for its pure
    methods, its ``url`` parsed anew, :data:`BARE_STATE` and ``attrs`` set."""

    def bare() -> E:
        made = engine.__new__(engine)
        for key, value in {"url": url(), **BARE_STATE, **attrs}.items():
            setattr(made, key, value)
        return made

    return bare


def assert_guard(
    planned: Sequence[st.Plan] | str,
    sql: str,
    *,
    refused: str | None = None,
    writes: bool | None = None,
) -> None:
    """A guard's answer for ``sql``: a refusal that says ``refused`` when that is given, else
    plans (writing ones iff ``writes``, when that is given)."""
    if refused is not None:
        assert isinstance(planned, str) and refused in planned, (sql, planned)
        return
    assert isinstance(planned, list), (sql, planned)
    if writes is not None:
        assert any(p.writes for p in planned) is writes, sql
