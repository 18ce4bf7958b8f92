"""Dialect registry: canonical sqlglot keys, aliases, the engine that runs each, and facts.

Every dialect name that enters parrot (CLI flags, dataset lines, prediction files) goes through
:func:`resolve`, so ``pg``, ``postgresql`` and ``PostgreSQL`` all become ``postgres``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

NullOrder = Literal["first", "last"]


class UnknownDialectError(ValueError):
    """A dialect name that is neither a canonical key nor an alias."""


@dataclass(frozen=True)
class Dialect:
    """One SQL dialect and the facts about it that tests and the comparator rely on."""

    key: str  # sqlglot's dialect name
    label: str  # what reports print
    engine: str | None = None  # parrot engine adapter that runs it here (None: by URL only)
    aliases: tuple[str, ...] = ()
    # Facts measured on the engine (see the README, "Engines"); None when unknown.
    nulls_in_asc: NullOrder | None = None
    nulls_in_desc: NullOrder | None = None
    integer_division: Literal["integer", "decimal", "float"] | None = None
    case_sensitive_strings: bool | None = None
    unquoted_identifiers: Literal["lower", "upper", "sensitive", "insensitive"] | None = None
    # Default collation ignores trailing spaces in comparisons, GROUP BY and DISTINCT.
    pad_space: bool | None = None


_DIALECTS: tuple[Dialect, ...] = (
    Dialect("sqlite", "SQLite", "sqlite", ("sqlite3",), "first", "last", "integer", True,
            "insensitive"),
    Dialect("duckdb", "DuckDB", "duckdb", ("duck",), "last", "last", "float", True,
            "insensitive"),
    Dialect("clickhouse", "ClickHouse", "clickhouse", ("ch", "chdb", "click_house"), "last",
            "last", "float", True, "sensitive"),
    Dialect("postgres", "PostgreSQL", "postgres", ("pg", "postgresql", "pgsql", "psql"),
            "last", "first", "integer", True, "lower"),
    Dialect("mysql", "MySQL", "mysql", ("mariadb",), "first", "last", "decimal", False,
            "insensitive", True),
    Dialect("spark", "Spark SQL", "spark", ("sparksql", "spark_sql", "spark2"), "first", "last",
            "float", True, "insensitive"),
    Dialect("hive", "Hive", "hive", ("hiveql",), "first", "last", "float", True, "insensitive"),
    Dialect("databricks", "Databricks", "databricks", (), "first", "last", "float", True,
            "insensitive"),
    Dialect("tsql", "SQL Server (T-SQL)", None, ("sqlserver", "mssql", "t-sql", "azuresql",
                                                "sql_server")),
    Dialect("oracle", "Oracle", None, ("plsql", "oracledb")),
    Dialect("snowflake", "Snowflake", None),
    Dialect("bigquery", "BigQuery", None, ("bq", "googlesql")),
    Dialect("trino", "Trino", None),
    Dialect("presto", "Presto", None),
    Dialect("redshift", "Redshift", None),
    Dialect("teradata", "Teradata", None),
    Dialect("athena", "Athena", None),
    Dialect("doris", "Doris", None),
    Dialect("starrocks", "StarRocks", None),
    Dialect("materialize", "Materialize", None),
    Dialect("risingwave", "RisingWave", None),
    Dialect("drill", "Drill", None),
    Dialect("druid", "Druid", None),
    Dialect("dremio", "Dremio", None),
    Dialect("exasol", "Exasol", None),
    Dialect("fabric", "Microsoft Fabric", None),
    Dialect("prql", "PRQL", None),
    Dialect("tableau", "Tableau", None),
)

DIALECTS: dict[str, Dialect] = {d.key: d for d in _DIALECTS}


def _fold(name: str) -> str:
    return name.strip().lower().replace(" ", "").replace("-", "_")


ALIASES: dict[str, str] = {}
for _d in _DIALECTS:
    for _name in (_d.key, _d.label, *_d.aliases):
        ALIASES[_fold(_name)] = _d.key


def resolve(name: str) -> str:
    """The canonical key for ``name`` (a key, an alias or a label, any case)."""
    key = ALIASES.get(_fold(name)) if isinstance(name, str) else None
    if key is None:
        known = ", ".join(sorted(DIALECTS))
        raise UnknownDialectError(f"unknown dialect {name!r} (known: {known}; aliases such as "
                                  "pg, postgresql, sqlserver, mssql, ch are accepted)")
    return key


def get(name: str) -> Dialect:
    """The :class:`Dialect` for ``name`` (any accepted spelling)."""
    return DIALECTS[resolve(name)]
