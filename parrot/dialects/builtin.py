"""The dialects parrot knows: one class each. Adding a dialect with no engine is one class here
(or in any module a plugin imports) — see docs/dialects.md.

Semantic facts of dialects with a local engine are measured (``tests/test_dialect_facts.py``);
those of dialects reached by URL only are their vendors' documented defaults.
"""

from __future__ import annotations

from typing import ClassVar

from parrot.dialects.base import Dialect, Lexicon

_MYSQL_LEXICON = Lexicon(
    backslash_escapes=True,
    hash_comments=True,
    hash_comments_always=True,
    dash_comments_need_space=True,
    plain_backticks=True,
    executable_comments=True,
)
_LIMIT = frozenset({"limit"})


class SQLite(Dialect):
    key, label, aliases = "sqlite", "SQLite", ("sqlite3",)
    engine, grammar, fences, hints = "sqlite", "Sqlite", ("sqlite",), "sqlite"
    constructs = _LIMIT
    lexicon = Lexicon(bracket_identifiers=True)
    nulls_in_asc, nulls_in_desc, integer_division = "first", "last", "integer"
    case_sensitive_strings, unquoted_identifiers = True, "insensitive"


class DuckDB(Dialect):
    key, label, aliases = "duckdb", "DuckDB", ("duck",)
    engine, grammar, fences, hints = "duckdb", "Duckdb", ("duckdb",), "duckdb"
    constructs = frozenset({"limit", "qualify", "trailing_comma", "double_colon"})
    lexicon = Lexicon(dollar_quotes=True, nested_comments=True)
    nulls_in_asc, nulls_in_desc, integer_division = "last", "last", "float"
    case_sensitive_strings, unquoted_identifiers = True, "insensitive"


class ClickHouse(Dialect):
    key, label, aliases = "clickhouse", "ClickHouse", ("ch", "chdb", "click_house")
    engine, grammar, fences, hints = "clickhouse", "Clickhouse", ("clickhouse",), "clickhouse"
    constructs = frozenset({"limit", "top", "qualify", "trailing_comma", "double_colon"})
    # x$$ is one identifier ('$' continues a word); $$ or $tag$ opens a heredoc only where a
    # token starts
    lexicon = Lexicon(
        backslash_escapes=True,
        hash_comments=True,
        dollar_quotes=True,
        nested_comments=True,
        dollar_identifiers=True,
    )
    nulls_in_asc, nulls_in_desc, integer_division = "last", "last", "float"
    case_sensitive_strings, unquoted_identifiers = True, "sensitive"


class Postgres(Dialect):
    key, label, aliases = "postgres", "PostgreSQL", ("pg", "postgresql", "pgsql", "psql")
    engine, grammar, fences = "postgres", "Postgres", ("postgres", "postgresql")
    constructs = frozenset({"limit", "double_colon"})
    lexicon = Lexicon(
        dollar_quotes=True, nested_comments=True, escape_strings=True, dollar_identifiers=True
    )
    nulls_in_asc, nulls_in_desc, integer_division = "last", "first", "integer"
    case_sensitive_strings, unquoted_identifiers = True, "lower"


class MySQL(Dialect):
    """MySQL, run here by MariaDB (its default collation ignores case and trailing spaces)."""

    key, label, aliases = "mysql", "MySQL", ("mariadb",)
    engine, grammar, fences = "mysql", "Mysql", ("mysql",)
    constructs = _LIMIT
    lexicon = _MYSQL_LEXICON
    block_ends = frozenset({"if", "loop", "while", "repeat", "for"})  # FOR … END FOR: MariaDB
    delimiter_command = True
    nulls_in_asc, nulls_in_desc, integer_division = "first", "last", "decimal"
    case_sensitive_strings, unquoted_identifiers, pad_space = False, "insensitive", True


class Spark(Dialect):
    key, label, engine, grammar = "spark", "Spark SQL", "spark", "Spark"
    aliases: ClassVar[tuple[str, ...]] = ("sparksql", "spark_sql", "spark2")
    fences: ClassVar[tuple[str, ...]] = ("spark", "sparksql")
    constructs = frozenset({"limit", "double_colon"})
    # '...' and "..." are both strings with backslash escapes, `name` doubles its backtick
    lexicon = Lexicon(
        backslash_escapes=True, nested_comments=True, plain_backticks=True, raw_strings=True
    )
    block_ends = frozenset({"if", "while", "loop", "repeat", "for"})
    blocks_begin_anywhere = False
    nulls_in_asc, nulls_in_desc, integer_division = "first", "last", "float"
    case_sensitive_strings, unquoted_identifiers = True, "insensitive"


class Hive(Spark):
    """Hive, run here by local Spark with ANSI mode off (Spark's facts otherwise)."""

    key, label, aliases, engine, fences = "hive", "Hive", ("hiveql",), "hive", ()


class Databricks(Spark):
    """Databricks, run here by local Spark with ANSI mode on (Spark's facts otherwise)."""

    key, label, aliases, engine, fences = "databricks", "Databricks", (), "databricks", ()


class TSQL(Dialect):
    key, label = "tsql", "SQL Server (T-SQL)"
    aliases = ("sqlserver", "mssql", "t-sql", "azuresql", "sql_server")
    grammar, fences = "Tsql", ("tsql",)
    constructs = frozenset({"top"})
    lexicon = Lexicon(
        bracket_identifiers=True,
        nested_comments=True,  # block comments nest
        bracket_escapes=True,
    )
    batch_separator = "GO"
    nulls_in_asc, nulls_in_desc, integer_division = "first", "last", "integer"  # documented


class Oracle(Dialect):
    key, label, aliases = "oracle", "Oracle", ("plsql", "oracledb")
    grammar, fences = "Oracle", ("oracle", "plsql")
    plsql_units = compound_block_ends = True
    lexicon = Lexicon(q_quotes=True)
    slash_terminator = True
    # documented: NULLs are larger than any value; NUMBER division; names fold to upper case
    nulls_in_asc, nulls_in_desc, integer_division = "last", "first", "decimal"
    unquoted_identifiers = "upper"


class Snowflake(Dialect):
    key, label = "snowflake", "Snowflake"
    grammar, fences = "Snowflake", ("snowflake",)
    constructs = frozenset({"limit", "top", "qualify", "double_colon"})
    lexicon = Lexicon(
        backslash_escapes=True,
        dollar_quotes=True,
        slash_comments=True,
        dollar_identifiers=True,  # SYSTEM$WAIT is one name
        plain_double_quotes=True,
    )
    # documented: NULLs sort high; NUMBER division; names fold to upper case
    nulls_in_asc, nulls_in_desc, integer_division = "last", "first", "decimal"
    unquoted_identifiers = "upper"


class BigQuery(Dialect):
    key, label, aliases = "bigquery", "BigQuery", ("bq", "googlesql")
    grammar = "Bigquery"
    # 'it\'s' and # comments (documented: GoogleSQL lexical structure; sqlglot agrees)
    lexicon = Lexicon(backslash_escapes=True, hash_comments=True, hash_comments_always=True)
    constructs = frozenset({"limit", "qualify", "trailing_comma"})
    nulls_in_asc, nulls_in_desc, integer_division = "first", "last", "float"  # documented


class Trino(Dialect):
    key, label = "trino", "Trino"
    grammar, fences = "Trino", ("trino",)
    compound_block_ends = True
    constructs = _LIMIT
    nulls_in_asc, nulls_in_desc, integer_division = "last", "last", "integer"  # documented


class Presto(Dialect):
    key, label, grammar = "presto", "Presto", "Trino"


class Athena(Dialect):
    key, label, grammar = "athena", "Athena", "Trino"


def _name_only(key: str, label: str) -> type[Dialect]:
    """A dialect parrot knows only by name (sqlglot translates it; nothing runs or parses it)."""
    return type(
        label.replace(" ", ""), (Dialect,), {"key": key, "label": label, "__module__": __name__}
    )


# (key, label) of the dialects with no fact beyond their names
for _key, _label in (
    ("redshift", "Redshift"),
    ("teradata", "Teradata"),
    ("doris", "Doris"),
    ("starrocks", "StarRocks"),
    ("materialize", "Materialize"),
    ("risingwave", "RisingWave"),
    ("drill", "Drill"),
    ("druid", "Druid"),
    ("dremio", "Dremio"),
    ("exasol", "Exasol"),
    ("fabric", "Microsoft Fabric"),
    ("prql", "PRQL"),
    ("tableau", "Tableau"),
):
    _name_only(_key, _label)
