"""The ``notyet`` / ``notimpl`` / ``broken`` markers (ibis style): the engine names they list are
checked at collection against the engines the Dialect classes name, so a misspelt name is a
collection error instead of a marker that never applies."""

from __future__ import annotations

import pytest

from parrot import dialects
from parrot.engines import ENGINES

DIFFERENCE_MARKERS = ("notyet", "notimpl", "broken")


def engine_names() -> set[str]:
    """Every engine a marker may name: those the Dialect classes run on, and registered ones."""
    return {d.engine for d in dialects.DIALECTS.values() if d.engine} | set(ENGINES)


def pytest_configure(config: pytest.Config) -> None:
    for name in DIFFERENCE_MARKERS:
        config.addinivalue_line(
            "markers",
            f"{name}(engines, raises=None, reason=None, params=None): strict xfail "
            "on those engines (and only for those parameter values)",
        )


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    known = engine_names()
    bad: list[str] = []
    for item in items:
        for kind in DIFFERENCE_MARKERS:
            for mark in item.iter_markers(kind):
                names = mark.args[0] if mark.args else None
                if not isinstance(names, list | tuple) or not names:
                    bad.append(f"{item.nodeid}: {kind} needs a list of engine names")
                    continue
                bad.extend(
                    f"{item.nodeid}: {kind} names unknown engine {n!r}"
                    for n in names
                    if n not in known
                )
    if bad:
        raise pytest.UsageError(
            "; ".join(sorted(set(bad))) + f" (engines: {', '.join(sorted(known))})"
        )
