"""Engine adapters, one module per engine, looked up lazily by name or dialect.

Embedded engines (SQLite, DuckDB, chdb) run in-process. Server engines are reached by URL, found
in this order: an explicit URL (``--engine DIALECT=URL``), the environment variable
``PARROT_<DIALECT>_URL``, then the local server parrot manages (``python -m parrot.engines up``),
started on demand when the caller allows it.
"""

from __future__ import annotations

import importlib
import os

from parrot import dialects
from parrot.engines.base import (
    DEFAULT_MAX_ROWS,
    DEFAULT_TIMEOUT,
    Capabilities,
    Engine,
    ExecStatus,
    Execution,
    FixtureLoadError,
    LoadReport,
)

# name -> "module:Class"; imported only when used (chdb alone costs ~1 s to import)
ENGINES: dict[str, str] = {
    "sqlite": "parrot.engines.sqlite:SQLiteEngine",
    "duckdb": "parrot.engines.duckdb:DuckDBEngine",
    "clickhouse": "parrot.engines.clickhouse:ClickHouseEngine",
    "postgres": "parrot.engines.postgres:PostgresEngine",
    "mysql": "parrot.engines.mysql:MySQLEngine",
}


class UnknownEngineError(LookupError):
    """No engine adapter is registered under a name or for a dialect, or none is reachable."""


def engine_class(name: str) -> type[Engine]:
    """The adapter class registered as ``name``."""
    try:
        module, cls = ENGINES[name].split(":")
    except KeyError:
        raise UnknownEngineError(
            f"no engine named {name!r} (available: {', '.join(sorted(ENGINES))})") from None
    engine: type[Engine] = getattr(importlib.import_module(module), cls)
    return engine


def engine_name_for(dialect: str) -> str | None:
    """The engine adapter that runs ``dialect``, or None when parrot has none."""
    return dialects.get(dialect).engine


def url_from_env(dialect: str) -> str | None:
    """``$PARROT_<DIALECT>_URL`` for a dialect, if set."""
    return os.environ.get(f"PARROT_{dialects.resolve(dialect).upper()}_URL") or None


def needs_server(dialect: str) -> bool:
    """True when ``dialect`` runs on a server (reached by URL) rather than in-process."""
    name = engine_name_for(dialect)
    return name is not None and engine_class(name).url_schemes is not None


def create_engine(dialect: str, url: str | None = None, start: bool = False) -> Engine:
    """A new adapter instance for ``dialect``.

    Raises UnknownEngineError when parrot has no adapter for it or, for a server engine, when no
    URL is given, none is in the environment and no managed server runs (``start=True`` starts
    the managed server instead).
    """
    name = engine_name_for(dialect)
    if name is None or name not in ENGINES:
        raise UnknownEngineError(f"no engine runs dialect {dialect!r} on this machine")
    cls = engine_class(name)
    if cls.url_schemes is None:
        return cls()
    url = url or url_from_env(dialect)
    if url is None:
        from parrot.servers import ServerError, server_for

        server = server_for(dialect)
        try:
            state = server.state() or (server.start() if start else None)
        except ServerError as exc:
            raise UnknownEngineError(str(exc)) from None
        if state is None:
            raise UnknownEngineError(
                f"no {dialect} server: start one with `python -m parrot.engines up {dialect}`, "
                f"pass --engine {dialect}=URL or set PARROT_{dialect.upper()}_URL")
        url = state.url
    return cls(url)  # type: ignore[call-arg]


__all__ = [
    "DEFAULT_MAX_ROWS",
    "DEFAULT_TIMEOUT",
    "ENGINES",
    "Capabilities",
    "Engine",
    "ExecStatus",
    "Execution",
    "FixtureLoadError",
    "LoadReport",
    "UnknownEngineError",
    "create_engine",
    "engine_class",
    "engine_name_for",
    "needs_server",
    "url_from_env",
]
