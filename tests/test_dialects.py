import pytest

from parrot import dialects


@pytest.mark.parametrize(
    ("name", "key"),
    [
        ("postgres", "postgres"),
        ("pg", "postgres"),
        ("postgresql", "postgres"),
        ("PostgreSQL", "postgres"),
        ("sqlserver", "tsql"),
        ("mssql", "tsql"),
        ("T-SQL", "tsql"),
        ("ch", "clickhouse"),
        ("ClickHouse", "clickhouse"),
        ("SQLite", "sqlite"),
        ("duckdb", "duckdb"),
        (" MySQL ", "mysql"),
        ("Spark SQL", "spark"),
        ("bq", "bigquery"),
    ],
)
def test_aliases_resolve_to_sqlglot_keys(name, key):
    assert dialects.resolve(name) == key


@pytest.mark.parametrize("name", ["postgress", "", "sql", "oracel"])
def test_unknown_dialect_is_a_clear_error(name):
    with pytest.raises(dialects.UnknownDialectError, match="unknown dialect"):
        dialects.resolve(name)


def test_every_key_is_a_sqlglot_dialect():
    from sqlglot.dialects.dialect import Dialect

    for key in dialects.DIALECTS:
        assert Dialect.get(key) is not None, key


def test_runnable_dialects_have_registered_engines():
    from parrot.engines import ENGINES

    runnable = {d.key for d in dialects.DIALECTS.values() if d.engine}
    assert {"sqlite", "duckdb", "clickhouse", "postgres", "mysql"} <= runnable
    assert {dialects.DIALECTS[k].engine for k in runnable} <= set(ENGINES)
