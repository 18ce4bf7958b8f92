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

import functools
from collections.abc import Iterator

import pytest
from engine_fixtures import ENGINES, SHOP, engine_pool
from patience import SLACK

from parrot.engines import Engine, UnknownEngineError, engine_class, url_from_env
from parrot.engines.base import DEFAULT_TIMEOUT
from parrot.fixtures import Fixture
from parrot.servers import SERVERS, ServerError, server_for

DIFFERENCE_MARKERS = ("notyet", "notimpl", "broken")  # registered by tests/difference_markers.py


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        callspec = getattr(item, "callspec", None)
        name = callspec.params.get("engine_name") if callspec is not None else None
        if name is None:
            continue
        if name not in ENGINES:  # an engine-specific case for an adapter this checkout lacks
            item.add_marker(pytest.mark.skip(reason=f"no {name} adapter installed"))
            continue
        cls = engine_class(name)
        if name == "spark":
            item.add_marker(pytest.mark.spark)
        hint = getattr(cls, "available", lambda: None)()  # optional embedded engines (Spark)
        if hint is not None:
            item.add_marker(pytest.mark.skip(reason=f"{name} is not available here: {hint}"))
            continue
        if cls.url_schemes is not None:
            item.add_marker(pytest.mark.server)
            if cls.dialect not in SERVERS and not url_from_env(cls.dialect):  # URL-only engines
                item.add_marker(
                    pytest.mark.skip(
                        reason=f"no {cls.dialect} server: set PARROT_{cls.dialect.upper()}_URL"
                    )
                )
                continue
        for kind in DIFFERENCE_MARKERS:
            for mark in item.iter_markers(kind):
                only = mark.kwargs.get("params", {})  # e.g. {"bomb": ["sleep"]}
                if name in mark.args[0] and all(
                    callspec.params.get(k) in v for k, v in only.items()
                ):
                    item.add_marker(
                        pytest.mark.xfail(
                            raises=mark.kwargs.get("raises"),
                            strict=True,
                            reason=f"{kind}: {mark.kwargs.get('reason', '')}",
                        )
                    )


# --- engines --------------------------------------------------------------------------------------


class _Servers:
    """URLs of server engines for this test session: ``PARROT_<DIALECT>_URL``, a managed server
    already running, or one this session starts (and stops at its end). Skips when none can run."""

    def __init__(self) -> None:
        self.started: list[str] = []

    def url(self, dialect: str) -> str:
        url = url_from_env(dialect)
        if url:
            return url
        try:
            server = server_for(dialect)
        except ServerError:  # reached by URL only (oracle, tsql, trino, snowflake, ...)
            pytest.skip(f"no {dialect} server: set PARROT_{dialect.upper()}_URL")
        state = server.state()
        if state is None:
            hint = server.available()
            if hint is not None:
                pytest.skip(f"no {dialect} server: {hint}")
            try:
                state = server.start()
            except ServerError as exc:
                pytest.fail(f"{dialect} server failed to start: {exc}")
            self.started.append(dialect)
        return state.url

    def stop(self) -> None:
        for dialect in self.started:
            server_for(dialect).stop()


@pytest.fixture(scope="session")
def servers() -> Iterator[_Servers]:
    managed = _Servers()
    yield managed
    managed.stop()


def make_engine(name: str, servers: _Servers) -> Engine:
    """An adapter whose executions get ``DEFAULT_TIMEOUT + SLACK`` unless a test sets a timeout:
    only the tests about timeouts depend on one, and a loaded machine must not fail the rest."""
    cls = engine_class(name)
    if cls.url_schemes is None:
        try:
            engine = cls()
        except UnknownEngineError as exc:  # an optional engine not installed here (Spark)
            pytest.skip(str(exc))
    else:
        engine = cls(servers.url(cls.dialect))  # type: ignore[call-arg]
    setattr(  # noqa: B010 (an instance attribute over the method)
        engine,
        "execute",
        functools.partial(engine.execute, timeout=DEFAULT_TIMEOUT + SLACK),
    )
    return engine


@pytest.fixture(scope="session")
def _engine_pool(servers: _Servers) -> Iterator[dict[str, Engine]]:
    with engine_pool() as pool:
        yield pool


@pytest.fixture(params=ENGINES)
def engine_name(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def engine(engine_name: str, _engine_pool: dict[str, Engine], servers: _Servers) -> Engine:
    """A shared adapter instance per engine (loads are cached across tests)."""
    if engine_name not in _engine_pool:
        _engine_pool[engine_name] = make_engine(engine_name, servers)
    return _engine_pool[engine_name]


@pytest.fixture
def fresh_engine(engine_name: str, servers: _Servers) -> Iterator[Engine]:
    """A private adapter instance, closed after the test (for tests that damage state)."""
    engine = make_engine(engine_name, servers)
    yield engine
    engine.close()


@pytest.fixture
def shop(engine: Engine) -> Fixture:
    engine.load(SHOP)
    return SHOP
