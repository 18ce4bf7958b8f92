import pytest

from parrot.sqlfacts import order_facts, sort_key_columns, with_sort_key_columns, without_limit


@pytest.mark.parametrize(
    ("sql", "dialect", "ordered"),
    [
        ("SELECT a FROM t ORDER BY a", "sqlite", True),
        ("SELECT a, ROW_NUMBER() OVER (ORDER BY b) FROM t", "duckdb", False),
        ("SELECT * FROM (SELECT a FROM t ORDER BY a) s", "duckdb", False),
        ("WITH c AS (SELECT a FROM t ORDER BY a) SELECT a FROM c", "sqlite", False),
        ("SELECT 'order by' AS txt FROM t", "sqlite", False),
        ("SELECT a FROM t UNION ALL SELECT b FROM u ORDER BY 1", "duckdb", True),
        # ClickHouse binds ORDER BY to the last SELECT of a UNION: not a top-level order
        ("SELECT a FROM t UNION ALL SELECT b FROM u ORDER BY 1", "clickhouse", False),
        ("CREATE TEMP VIEW v AS SELECT 1 AS a; SELECT a FROM v ORDER BY a", "duckdb", True),
        ("(SELECT a FROM t ORDER BY a)", "sqlite", True),
    ],
)
def test_top_level_order_by_is_read_from_the_ast(sql, dialect, ordered):
    assert order_facts(sql, dialect).ordered is ordered


@pytest.mark.parametrize(
    ("sql", "columns", "expected"),
    [
        ("SELECT a, b AS x FROM t ORDER BY 2 DESC, a", ("a", "x"), (1, 0)),
        ("SELECT a, b AS x FROM t ORDER BY x", ("a", "x"), (1,)),
        ("SELECT a, b + 1 FROM t ORDER BY b + 1", ("a", "b + 1"), (1,)),
        ("SELECT * FROM t ORDER BY b", ("a", "B"), (1,)),
        ("SELECT a FROM t ORDER BY c", ("a",), None),
    ],
)
def test_sort_keys_map_to_output_columns(sql, columns, expected):
    assert sort_key_columns(order_facts(sql, "duckdb"), columns) == expected


def test_rewrite_appends_sort_keys_unless_it_would_change_rows():
    rewritten = with_sort_key_columns("SELECT a FROM t ORDER BY 1, c DESC", "duckdb")
    assert rewritten == (
        "SELECT a, a AS __parrot_sort_key_0, c AS __parrot_sort_key_1 FROM t ORDER BY 1, c DESC"
    )
    assert with_sort_key_columns("SELECT DISTINCT a FROM t ORDER BY c", "duckdb") is None
    assert (
        with_sort_key_columns("SELECT a FROM t UNION SELECT b FROM u ORDER BY 1", "duckdb") is None
    )


@pytest.mark.parametrize(
    ("sql", "dialect", "expected"),
    [
        ("SELECT a FROM t ORDER BY a LIMIT 3", "duckdb", ("SELECT a FROM t ORDER BY a", 0)),
        (
            "SELECT a FROM t ORDER BY a LIMIT 3 OFFSET 2",
            "postgres",
            ("SELECT a FROM t ORDER BY a", 2),
        ),
        ("SELECT a FROM t ORDER BY a LIMIT 2, 3", "mysql", ("SELECT a FROM t ORDER BY a", 2)),
        ("SELECT TOP 3 a FROM t ORDER BY a", "tsql", ("SELECT a FROM t ORDER BY a", 0)),
        (
            "SELECT a FROM t ORDER BY a OFFSET 4 ROWS FETCH NEXT 2 ROWS ONLY",
            "postgres",
            ("SELECT a FROM t ORDER BY a", 4),
        ),
        ("SELECT a FROM t ORDER BY a", "sqlite", None),
        ("SELECT a FROM t ORDER BY a OFFSET 2", "postgres", None),  # no limit: nothing cut
    ],
)
def test_without_limit(sql, dialect, expected):
    got = without_limit(sql, dialect)
    assert (got.sql, got.offset) == expected if expected else got is None


@pytest.mark.parametrize(
    ("sql", "expected"),
    [
        (
            "SELECT a / b AS ratio FROM t ORDER BY CASE WHEN ratio IS NULL THEN 1 ELSE 0 END, "
            "ratio",
            "SELECT a / b AS ratio, CASE WHEN (a / b) IS NULL THEN 1 ELSE 0 END AS "
            "__parrot_sort_key_0, "
            "(a / b) AS __parrot_sort_key_1 FROM t ORDER BY CASE WHEN ratio IS NULL THEN 1 "
            "ELSE 0 END, "
            "ratio",
        ),
        (
            "SELECT a AS a, b FROM t ORDER BY a + 1",  # an alias of its own column stays
            "SELECT a AS a, b, a + 1 AS __parrot_sort_key_0 FROM t ORDER BY a + 1",
        ),
        (
            "SELECT t.a AS x FROM t ORDER BY t.x + 1",  # qualified: a column, not the alias
            "SELECT t.a AS x, t.x + 1 AS __parrot_sort_key_0 FROM t ORDER BY t.x + 1",
        ),
    ],
)
def test_rewrite_expands_select_aliases_in_sort_keys(sql: str, expected: str) -> None:
    assert with_sort_key_columns(sql, "postgres") == expected


def test_facts_are_memoized_and_left_intact_by_the_rewrites() -> None:
    sql = "SELECT a / b AS r, c FROM t ORDER BY CASE WHEN r IS NULL THEN 1 END, c LIMIT 2"
    facts = order_facts(sql, "sqlite")
    keys = [k.sql() for k in facts.keys]
    assert order_facts(sql, "sqlite") is facts  # asked once per suite database: parsed once
    assert with_sort_key_columns(sql, "sqlite") == with_sort_key_columns(sql, "sqlite")
    assert without_limit(sql, "sqlite") is without_limit(sql, "sqlite")
    assert [k.sql() for k in facts.keys] == keys


def test_a_query_without_limit_is_not_copied_to_find_none(monkeypatch: pytest.MonkeyPatch) -> None:
    """without_limit is asked of every source and translation of a run; most have no LIMIT,
    and copying their tree first was a twelfth of the judge's CPU (issue 31)."""
    from sqlglot import exp

    copies = []
    original = exp.Expression.copy

    def counted(self: exp.Expression) -> exp.Expression:
        copies.append(self)
        return original(self)

    monkeypatch.setattr(exp.Expression, "copy", counted)
    assert without_limit("SELECT probe FROM t ORDER BY probe", "sqlite") is None
    assert copies == []
    assert without_limit("SELECT probe FROM t ORDER BY probe LIMIT 2", "sqlite") is not None
    assert copies  # the limited one is copied to be rewritten
