"""Time in tests on a loaded machine.

Tests never assert how fast something is (that is measured in ``scripts/bench/``). Where a test
must tell "stopped" from "ran to the end", the work it starts runs far longer than ``SLACK``
when nothing stops it, and the test allows ``SLACK`` beyond the bound it checks: a machine
loaded enough to need more is not one a verdict can come from.
"""

from __future__ import annotations

import time
from collections.abc import Callable

SLACK = 30.0  # seconds a loaded 2-core machine may add to any bound


def within(started: float, bound: float) -> bool:
    """Whether ``bound`` seconds (plus ``SLACK``) have not yet passed since ``started``."""
    return time.monotonic() - started < bound + SLACK


def wait_until(condition: Callable[[], bool], patience: float = SLACK) -> bool:
    """Poll ``condition`` every 0.1 s for up to ``patience`` seconds; its last value."""
    until = time.monotonic() + patience
    while not condition() and time.monotonic() < until:
        time.sleep(0.1)
    return condition()
