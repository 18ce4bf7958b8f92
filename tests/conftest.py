"""Session-wide test settings."""

from __future__ import annotations

import os
import shutil
import tempfile

import pytest
from difference_markers import pytest_collection_modifyitems  # noqa: F401  (a hook)
from difference_markers import pytest_configure as _difference_markers

_OWN_CACHE: list[str] = []


def pytest_configure(config: pytest.Config) -> None:
    """Give the session its own parrot cache (servers, fixtures) unless one is chosen.

    Servers a test session starts live under this cache and are stopped at the session's end, so
    two sessions never stop each other's servers and a user's ``parrot.engines up`` servers are
    left alone. Set ``PARROT_CACHE`` to reuse a cache across sessions.
    """
    _difference_markers(config)
    if "PARROT_CACHE" not in os.environ:
        path = tempfile.mkdtemp(prefix="parrot-test-cache-")
        os.environ["PARROT_CACHE"] = path
        _OWN_CACHE.append(path)


def pytest_unconfigure(config: pytest.Config) -> None:
    for path in _OWN_CACHE:
        shutil.rmtree(path, ignore_errors=True)
