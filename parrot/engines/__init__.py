"""Engine adapters, one module per engine, looked up lazily by name, dialect or URL scheme.

Embedded engines (SQLite, DuckDB, chdb, the Spark family) run in isolated worker processes
(:mod:`parrot.engines.worker`; ``PARROT_ISOLATION=off`` runs them in-process). Server engines are
reached by URL: an explicit URL (``--engine DIALECT=URL``) or the environment variable
``PARROT_<DIALECT>_URL``; :mod:`parrot.connect` (above engines and servers) also finds the local
server parrot manages (``python -m parrot.engines up``). A URL picks its adapter by scheme, so
``--engine clickhouse=clickhouse://host:8123`` uses a ClickHouse server instead of chdb.
"""

from __future__ import annotations

import os
from urllib.parse import urlsplit

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
from parrot.registry import Registry


class UnknownEngineError(LookupError):
    """No engine adapter is registered under a name or for a dialect, or none is reachable."""


def _is_engine(obj: object) -> bool:
    return isinstance(obj, type) and issubclass(obj, Engine)


# name -> "module:Class"; imported only when used (chdb alone costs ~1 s to import)
ENGINES: dict[str, str] = {
    "sqlite": "parrot.engines.sqlite:SQLiteEngine",
    "duckdb": "parrot.engines.duckdb:DuckDBEngine",
    "clickhouse": "parrot.engines.clickhouse:ClickHouseEngine",
    "postgres": "parrot.engines.postgres:PostgresEngine",
    "mysql": "parrot.engines.mysql:MySQLEngine",
    "spark": "parrot.engines.spark:SparkEngine",
    "hive": "parrot.engines.spark:HiveOnSparkEngine",  # local Spark, ANSI off
    "databricks": "parrot.engines.spark:DatabricksOnSparkEngine",  # local Spark
    # reached by URL only (drivers are optional extras, imported when an adapter is created)
    "oracle": "parrot.engines.oracle:OracleEngine",
    "tsql": "parrot.engines.tsql:SQLServerEngine",
    "trino": "parrot.engines.trino:TrinoEngine",
    "snowflake": "parrot.engines.snowflake:SnowflakeEngine",
    "clickhouse_server": "parrot.engines.clickhouse.server:ClickHouseServerEngine",
}
# the built-in adapters above, and those other packages declare in the ``parrot.engines``
# entry-point group (docs/adding-an-engine.md)
ENGINE_REGISTRY: Registry[type[Engine]] = Registry(
    "engine",
    group="parrot.engines",
    builtin=ENGINES,
    check=_is_engine,
    expects="an Engine class",
    error=UnknownEngineError,
)

# URL scheme (before any "+driver") -> engine name; each adapter's ``url_schemes`` lists its own
URL_SCHEMES: dict[str, str] = {
    "postgresql": "postgres",
    "postgres": "postgres",
    "mysql": "mysql",
    "mariadb": "mysql",
    "oracle": "oracle",
    "mssql": "tsql",
    "trino": "trino",
    "snowflake": "snowflake",
    "clickhouse": "clickhouse_server",
    "clickhouses": "clickhouse_server",
}


def engine_class(name: str) -> type[Engine]:
    """The adapter class registered as ``name``."""
    if name not in ENGINE_REGISTRY:
        raise UnknownEngineError(
            f"no engine named {name!r} (available: {', '.join(ENGINE_REGISTRY.names())})"
        )
    return ENGINE_REGISTRY.get(name)


def engine_name_for(dialect: str) -> str | None:
    """The engine adapter that runs ``dialect``, or None when parrot has none."""
    return dialects.get(dialect).engine


def engine_for_url(dialect: str, url: str) -> type[Engine]:
    """The adapter class for a server URL of ``dialect`` (chosen by the URL's scheme)."""
    scheme = urlsplit(url).scheme.split("+")[0].lower()
    name = URL_SCHEMES.get(scheme)
    if name is None:
        raise UnknownEngineError(
            f"no engine adapter for URLs of scheme {scheme!r} "
            f"(known: {', '.join(sorted(URL_SCHEMES))})"
        )
    cls = engine_class(name)
    if cls.dialect != dialects.resolve(dialect):
        raise UnknownEngineError(
            f"a {scheme}:// URL serves dialect {cls.dialect!r}, not {dialect!r}"
        )
    return cls


def url_from_env(dialect: str) -> str | None:
    """``$PARROT_<DIALECT>_URL`` for a dialect, if set."""
    return os.environ.get(f"PARROT_{dialects.resolve(dialect).upper()}_URL") or None


__all__ = [
    "DEFAULT_MAX_ROWS",
    "DEFAULT_TIMEOUT",
    "ENGINES",
    "ENGINE_REGISTRY",
    "URL_SCHEMES",
    "Capabilities",
    "Engine",
    "ExecStatus",
    "Execution",
    "FixtureLoadError",
    "LoadReport",
    "UnknownEngineError",
    "engine_class",
    "engine_for_url",
    "engine_name_for",
    "url_from_env",
]
