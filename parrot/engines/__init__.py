"""Engine adapters, one module per engine, looked up lazily by name or dialect."""

from __future__ import annotations

import importlib

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
}


class UnknownEngineError(LookupError):
    """No engine adapter is registered under a name or for a dialect."""


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
    """The engine that runs ``dialect`` here, or None when none does."""
    return dialects.get(dialect).engine


def create_engine(dialect: str) -> Engine:
    """A new adapter instance for ``dialect``; raises UnknownEngineError when none runs it."""
    name = engine_name_for(dialect)
    if name is None or name not in ENGINES:
        raise UnknownEngineError(f"no engine runs dialect {dialect!r} on this machine")
    return engine_class(name)()


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
]
