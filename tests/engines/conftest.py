"""Shared fixtures for the cross-engine suite (ibis style).

Every test that takes ``engine`` (or ``engine_name``) runs once per engine. Known engine
differences are declared on the test, not hidden in it::

    @pytest.mark.notimpl(["sqlite"], raises=AssertionError, reason="no sleep() function")

``params={"bomb": ["sleep"]}`` narrows a marker to some values of another parameter.

``notyet`` (the engine could, it does not yet), ``notimpl`` (the engine lacks the feature) and
``broken`` become ``xfail(strict=True)`` for the listed engines only, so a difference that goes
away fails the suite and the marker gets removed.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from engine_fixtures import ENGINES, SHOP

from parrot.engines import Engine, engine_class
from parrot.fixtures import Fixture

DIFFERENCE_MARKERS = ("notyet", "notimpl", "broken")


def pytest_configure(config: pytest.Config) -> None:
    for name in DIFFERENCE_MARKERS:
        config.addinivalue_line(
            "markers", f"{name}(engines, raises=None, reason=None, params=None): strict xfail "
                       "on those engines (and only for those parameter values)")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        callspec = getattr(item, "callspec", None)
        name = callspec.params.get("engine_name") if callspec is not None else None
        if name is None:
            continue
        for kind in DIFFERENCE_MARKERS:
            for mark in item.iter_markers(kind):
                only = mark.kwargs.get("params", {})  # e.g. {"bomb": ["sleep"]}
                if name in mark.args[0] and all(callspec.params.get(k) in v
                                                for k, v in only.items()):
                    item.add_marker(pytest.mark.xfail(
                        raises=mark.kwargs.get("raises"), strict=True,
                        reason=f"{kind}: {mark.kwargs.get('reason', '')}"))


# --- engines --------------------------------------------------------------------------------------

@pytest.fixture(scope="session")
def _engine_pool() -> Iterator[dict[str, Engine]]:
    pool: dict[str, Engine] = {}
    yield pool
    for engine in pool.values():
        engine.close()


@pytest.fixture(params=ENGINES)
def engine_name(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def engine(engine_name: str, _engine_pool: dict[str, Engine]) -> Engine:
    """A shared adapter instance per engine (loads are cached across tests)."""
    if engine_name not in _engine_pool:
        _engine_pool[engine_name] = engine_class(engine_name)()
    return _engine_pool[engine_name]


@pytest.fixture
def fresh_engine(engine_name: str) -> Iterator[Engine]:
    """A private adapter instance, closed after the test (for tests that damage state)."""
    engine = engine_class(engine_name)()
    yield engine
    engine.close()


@pytest.fixture
def shop(engine: Engine) -> Fixture:
    engine.load(SHOP)
    return SHOP
