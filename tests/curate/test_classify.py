"""Translation types from the AST diff of source and reference."""

from __future__ import annotations

import pytest

from parrot.curate.classify import translation_types


@pytest.mark.parametrize(
    ("source", "sd", "target", "td", "types"),
    [
        ("SELECT a / b FROM t", "sqlite", "SELECT a // b FROM t", "duckdb", ("function",)),
        (
            "SELECT substr(a, 1, 2) FROM t",
            "sqlite",
            "SELECT substring(a, 1, 2) FROM t",
            "duckdb",
            ("function",),
        ),
        (
            "SELECT TOP 3 CAST(a AS NVARCHAR) FROM t",
            "tsql",
            "SELECT CAST(a AS TEXT) FROM t LIMIT 3",
            "sqlite",
            ("keyword", "data_type"),
        ),
        ('SELECT "a" FROM t', "sqlite", "SELECT a FROM t", "duckdb", ("other",)),
        (
            "SELECT a FROM t WHERE x IN (SELECT y FROM u)",
            "sqlite",
            "SELECT a FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.y = t.x)",
            "duckdb",
            ("syntax", "keyword", "function"),
        ),
        (
            "CREATE FUNCTION f(x INT) RETURNS INT AS 'select 1'",
            "postgres",
            "CREATE MACRO f(x) AS 1",
            "duckdb",
            ("udf",),
        ),
    ],
)
def test_translation_types(
    source: str, sd: str, target: str, td: str, types: tuple[str, ...]
) -> None:
    assert set(translation_types(source, sd, target, td)) >= set(types)
    if types == ("other",):
        assert translation_types(source, sd, target, td) == ("other",)
