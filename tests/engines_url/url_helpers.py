"""Helpers of the URL-engine tests.

Driver exception classes are constructed when the driver is installed; otherwise a minimal
object with the same attributes stands in (a test double of an error object, nothing more).
"""

from __future__ import annotations

import importlib
from typing import Any

import pytest


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
