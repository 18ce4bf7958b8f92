"""Shared setup for the migration tests: a private fixture cache and a dirty SQLite file."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from migrate_helpers import DIRTY_ROWS, DIRTY_SCRIPT, make_sqlite

from parrot.migrate import named


@pytest.fixture(autouse=True)
def _private_cache(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Iterator[None]:
    """Named fixtures cache under a per-session folder, never the user's ~/.cache."""
    monkeypatch.setenv("PARROT_CACHE", str(tmp_path_factory.getbasetemp() / "parrot-cache"))
    yield
    named.clear_memo()


@pytest.fixture
def dirty_db(tmp_path: Path) -> Path:
    return make_sqlite(tmp_path / "dirty.sqlite", DIRTY_SCRIPT, DIRTY_ROWS)
