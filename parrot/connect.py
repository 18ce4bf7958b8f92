"""An engine for a dialect, by URL or from the servers parrot manages (as ``ibis.connect`` picks a
backend by URL scheme).

Above both :mod:`parrot.engines` (the adapters, which know nothing of managed servers) and
:mod:`parrot.servers` (the local PostgreSQL and MariaDB processes). A server engine's URL is found
in this order: an explicit URL (``--engine DIALECT=URL``), the environment variable
``PARROT_<DIALECT>_URL``, then the local server parrot manages (``python -m parrot.engines up``),
started on demand when the caller allows it. A URL picks its adapter by scheme, so
``--engine clickhouse=clickhouse://host:8123`` uses a ClickHouse server instead of chdb.
"""

from __future__ import annotations

from parrot.engines import (
    ENGINE_REGISTRY,
    Engine,
    UnknownEngineError,
    engine_class,
    engine_for_url,
    engine_name_for,
    url_from_env,
)
from parrot.engines.worker import isolated, isolation_enabled
from parrot.servers import SERVERS, ServerError, server_for


def needs_server(dialect: str) -> bool:
    """True when ``dialect`` runs here on a server parrot manages rather than in-process."""
    name = engine_name_for(dialect)
    return name is not None and dialect in SERVERS and engine_class(name).is_server()


def create_engine(dialect: str, url: str | None = None, start: bool = False) -> Engine:
    """A new adapter instance for ``dialect``.

    Raises UnknownEngineError when parrot has no adapter for it or, for a server engine, when no
    URL is given, none is in the environment and no managed server runs (``start=True`` starts
    the managed server instead).
    """
    url = url or url_from_env(dialect)
    if url is not None:
        return engine_for_url(dialect, url)(url)  # type: ignore[call-arg]
    name = engine_name_for(dialect)
    if name is None or name not in ENGINE_REGISTRY:
        raise UnknownEngineError(
            f"no engine runs dialect {dialect!r} on this machine; pass --engine {dialect}=URL "
            f"or set PARROT_{dialect.upper()}_URL to use a server"
        )
    cls = engine_class(name)
    if not cls.is_server():
        if not isolation_enabled():
            return cls()
        problem = cls.available()  # checked here: the worker would only fail at its first call
        if problem is not None:
            raise UnknownEngineError(f"{cls.name} is not available: {problem}")
        return isolated(cls)()
    return cls(default_url(dialect, start=start))  # type: ignore[call-arg]


def default_url(dialect: str, start: bool = False) -> str:
    """``$PARROT_<DIALECT>_URL``, else the URL of the local server parrot manages for
    ``dialect`` (started first when ``start``); UnknownEngineError when there is neither. A
    managed server is shared (:meth:`~parrot.servers.base.Server.share`): this process's run
    is registered as using it, so another run's end does not stop it under this one."""
    url = url_from_env(dialect)
    if url is not None:
        return url
    server = server_for(dialect)
    try:
        state = server.share(start=start)
    except ServerError as exc:
        raise UnknownEngineError(str(exc)) from None
    if state is None:
        raise UnknownEngineError(
            f"no {dialect} server: start one with `python -m parrot.engines up {dialect}`, "
            f"pass --engine {dialect}=URL or set PARROT_{dialect.upper()}_URL"
        )
    return state.url
