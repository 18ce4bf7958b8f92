"""How URL engines are found and created: registry, schemes, drivers imported lazily, a missing
driver or an unreachable server reported without secrets."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest
from engine_fixtures import SHOP
from url_helpers import driver

from parrot import dialects
from parrot.connect import create_engine
from parrot.engines import (
    ENGINES,
    URL_SCHEMES,
    ExecStatus,
    FixtureLoadError,
    UnknownEngineError,
    engine_class,
    engine_for_url,
    snowflake,
    trino,
    tsql,
)
from parrot.engines.dbapi import ServerEngine
from parrot.fixtures import Column

ADAPTERS = {  # engine name -> (dialect, schemes, driver module)
    "oracle": ("oracle", ("oracle",), "oracledb"),
    "tsql": ("tsql", ("mssql",), "pyodbc"),
    "trino": ("trino", ("trino",), "trino"),
    "snowflake": ("snowflake", ("snowflake",), "snowflake.connector"),
    "clickhouse_server": ("clickhouse", ("clickhouse", "clickhouses"), "clickhouse_connect"),
}

# a portable type and its name on Snowflake, Trino and SQL Server
TYPE_NAMES = [
    ("integer", "NUMBER(10,0)", "INTEGER", "INT"),
    ("bigint", "NUMBER(19,0)", "BIGINT", "BIGINT"),
    ("double", "FLOAT", "DOUBLE", "FLOAT(53)"),
    ("decimal(10,2)", "NUMBER(10,2)", "DECIMAL(10,2)", "DECIMAL(10,2)"),
    ("decimal(38,10)", "NUMBER(38,10)", "DECIMAL(38,10)", "DECIMAL(38,10)"),
    ("text", "VARCHAR", "VARCHAR", "NVARCHAR(MAX)"),
    ("boolean", "BOOLEAN", "BOOLEAN", "BIT"),
    ("date", "DATE", "DATE", "DATE"),
    ("timestamp", "TIMESTAMP_NTZ(6)", "TIMESTAMP(6)", "DATETIME2(6)"),
]


@pytest.mark.parametrize(("ptype", "on_snowflake", "on_trino", "on_tsql"), TYPE_NAMES)
def test_every_portable_type(ptype: str, on_snowflake: str, on_trino: str, on_tsql: str) -> None:
    column = Column("c", ptype)
    assert snowflake.snowflake_type(column) == on_snowflake
    assert trino.trino_type(column) == on_trino
    assert tsql.tsql_type(column) == on_tsql


@pytest.mark.parametrize("name", sorted(ADAPTERS))
def test_registered_with_their_schemes(name: str) -> None:
    dialect, schemes, module = ADAPTERS[name]
    cls = engine_class(name)
    assert issubclass(cls, ServerEngine) and cls.name == name and cls.dialect == dialect
    assert cls.url_schemes == schemes and cls.driver_spec.module == module
    for scheme in schemes:
        assert URL_SCHEMES[scheme] == name
        assert engine_for_url(dialect, f"{scheme}://u:p@h:1/x") is cls
        assert engine_for_url(dialect, f"{scheme}+driver://u:p@h:1/x") is cls
    assert dialects.get(dialect).engine in (None, "clickhouse")  # no local engine but chdb


def test_the_registry_agrees_with_every_adapter() -> None:
    for scheme, name in URL_SCHEMES.items():
        assert name in ENGINES and scheme in (engine_class(name).url_schemes or ())


def test_a_clickhouse_url_replaces_chdb_only_when_given() -> None:
    assert engine_for_url("ch", "clickhouse://h:8123/").name == "clickhouse_server"
    with pytest.raises(UnknownEngineError, match="serves dialect 'clickhouse', not 'tsql'"):
        engine_for_url("tsql", "clickhouse://h:8123/")


@pytest.mark.parametrize("dialect", ["oracle", "tsql", "trino", "snowflake"])
def test_no_url_no_engine(dialect: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(f"PARROT_{dialect.upper()}_URL", raising=False)
    with pytest.raises(UnknownEngineError, match=f"PARROT_{dialect.upper()}_URL"):
        create_engine(dialect)


def test_importing_parrot_imports_no_driver() -> None:
    code = (
        "import sys, parrot.engines as e\n"
        "for n in ('oracle', 'tsql', 'trino', 'snowflake', 'clickhouse_server'):\n"
        "    e.engine_class(n)\n"
        "bad = [m for m in ('oracledb', 'pyodbc', 'trino', 'snowflake', 'clickhouse_connect')"
        " if m in sys.modules]\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)


@pytest.mark.parametrize("name", sorted(ADAPTERS))
def test_a_missing_driver_names_the_extra(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    real = importlib.import_module
    module = ADAPTERS[name][2]

    def fake_import(target: str, *args: object) -> object:
        if target == module:
            raise ImportError(f"No module named {module!r}")
        return real(target, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(importlib, "import_module", fake_import)
    cls = engine_class(name)
    scheme = ADAPTERS[name][1][0]
    with pytest.raises(UnknownEngineError) as err:
        cls(f"{scheme}://user:s3cr3t@h:1/db")  # type: ignore[call-arg]
    assert f"parrot-sql[{cls.driver_spec.extra}]" in str(err.value) and "s3cr3t" not in str(
        err.value
    )


# --- an unreachable server (loopback, port 1: refused at once; real drivers, no server) ----------

UNREACHABLE = {
    "oracle": "oracle://scott:s3cr3t@127.0.0.1:1/?service_name=FREEPDB1",
    "tsql": "mssql://sa:s3cr3t@127.0.0.1:1/parrot",
    "trino": "trino://alice:s3cr3t@127.0.0.1:1/memory?http_scheme=http",
    "clickhouse": "clickhouse://default:s3cr3t@127.0.0.1:1/",
}


@pytest.mark.parametrize("dialect", sorted(UNREACHABLE))
def test_an_unreachable_server_is_an_engine_error_without_secrets(dialect: str) -> None:
    module = {
        "oracle": "oracledb",
        "tsql": "pyodbc",
        "trino": "trino",
        "clickhouse": "clickhouse_connect",
    }[dialect]
    if driver(module) is None:
        pytest.skip(f"{module} is not installed")
    try:
        engine = create_engine(dialect, url=UNREACHABLE[dialect])
    except UnknownEngineError as exc:  # e.g. pyodbc without an ODBC driver for SQL Server
        assert "s3cr3t" not in str(exc)
        pytest.skip(str(exc))
    with engine:
        assert engine.label == f"{engine.name} (unreachable at 127.0.0.1:1)"
        with pytest.raises(FixtureLoadError) as err:
            engine.load(SHOP)
        assert err.value.__cause__ is not None and "s3cr3t" not in str(err.value)
        ex = engine.execute("SELECT 1", SHOP, timeout=5)
        assert ex.status is ExecStatus.ENGINE_ERROR and "s3cr3t" not in (ex.error or "")
        assert engine.execute("DROP TABLE x; COMMIT", SHOP).status is ExecStatus.UNSUPPORTED
