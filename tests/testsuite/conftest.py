"""Fixtures of the test-suite tests."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import closing

import pytest

from parrot.eval.judge import Judge


@pytest.fixture(scope="module")
def judge() -> Iterator[Judge]:
    """One judge for a test module's tests, closed after its last."""
    with closing(Judge()) as j:
        yield j
