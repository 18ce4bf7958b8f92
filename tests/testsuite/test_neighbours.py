"""Neighbour queries: one operator per row, and the edits that must not be made."""

from __future__ import annotations

import pytest
import sqlglot

from parrot.testsuite.neighbours import OPERATORS, neighbours


def _by_operator(sql: str, dialect: str = "sqlite") -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for n in neighbours(sql, dialect):
        out.setdefault(n.operator, set()).add(n.sql)
    return out


# literal data table, one row a line (a long row wraps): kept by fmt: off
# fmt: off
OPERATOR_CASES = [
    ("SELECT a FROM t WHERE x > 3", "flip_comparison", "SELECT a FROM t WHERE x >= 3"),
    ("SELECT a FROM t WHERE x = 3", "flip_comparison", "SELECT a FROM t WHERE x <> 3"),
    ("SELECT a FROM t WHERE x = 1 AND y = 2", "and_or", "SELECT a FROM t WHERE (x = 1 OR y = 2)"),
    ("SELECT DISTINCT a FROM t", "drop_distinct", "SELECT a FROM t"),
    ("SELECT a FROM t", "add_distinct", "SELECT DISTINCT a FROM t"),
    ("SELECT a FROM t ORDER BY a LIMIT 3", "limit_plus", "SELECT a FROM t ORDER BY a LIMIT 4"),
    ("SELECT a FROM t ORDER BY a LIMIT 3", "limit_minus", "SELECT a FROM t ORDER BY a LIMIT 2"),
    ("SELECT a FROM t WHERE x = 1 AND y = 2", "drop_conjunct", "SELECT a FROM t WHERE y = 2"),
    ("SELECT COUNT(a) FROM t", "count_sum", "SELECT SUM(a) FROM t"),
    ("SELECT MIN(a) FROM t", "min_max", "SELECT MAX(a) FROM t"),
    ("SELECT t.a FROM t JOIN u ON t.id = u.tid", "inner_left",
     "SELECT t.a FROM t LEFT JOIN u ON t.id = u.tid"),
    ("SELECT a FROM t ORDER BY a", "drop_order", "SELECT a FROM t"),
    ("SELECT a FROM t ORDER BY a", "asc_desc", "SELECT a FROM t ORDER BY a DESC"),
    ("SELECT a FROM t WHERE x > 3", "literal_plus", "SELECT a FROM t WHERE x > 4"),
    ("SELECT a FROM t WHERE x > 3", "literal_minus", "SELECT a FROM t WHERE x > 2"),
    ("SELECT a FROM t WHERE s = 'Open'", "string_case", "SELECT a FROM t WHERE s = 'open'"),
    ("SELECT a, b FROM t", "swap_projection", "SELECT b, a FROM t"),
    ("SELECT t.a, COUNT(*) FROM t WHERE t.b > 0 GROUP BY t.a", "group_by_column",
     "SELECT t.a, COUNT(*) FROM t WHERE t.b > 0 GROUP BY t.b"),
    ("SELECT t.a FROM t JOIN u ON t.id = u.tid WHERE u.k = 1", "join_key",
     "SELECT t.a FROM t JOIN u ON t.id = u.k WHERE u.k = 1"),
]
# fmt: on


@pytest.mark.parametrize(
    ("sql", "operator", "expected"),
    OPERATOR_CASES,
)
def test_operator(sql: str, operator: str, expected: str) -> None:
    assert operator in OPERATORS
    assert expected in _by_operator(sql).get(operator, set())


@pytest.mark.parametrize(
    ("sql", "operator"),
    [
        ("SELECT DISTINCT a, COUNT(*) FROM t GROUP BY a", "drop_distinct"),  # fully grouped
        ("SELECT a, COUNT(*) FROM t GROUP BY a", "add_distinct"),
        ("SELECT COUNT(*) FROM t", "add_distinct"),  # one row
        ("SELECT a FROM t ORDER BY a LIMIT 3", "drop_order"),  # would pick arbitrary rows
        ("SELECT COUNT(*) FROM t", "count_sum"),
        ("SELECT a FROM t WHERE s LIKE 'Ab%'", "string_case"),
    ],
)
def test_meaning_preserving_edits_not_made(sql: str, operator: str) -> None:
    assert operator not in _by_operator(sql)


def test_every_neighbour_parses_and_differs() -> None:
    sql = (
        "SELECT DISTINCT a.name, COUNT(*) FROM a JOIN b ON a.id = b.aid WHERE a.x > 3 "
        "AND b.s = 'Open' GROUP BY a.name ORDER BY a.name DESC LIMIT 5"
    )
    out = neighbours(sql, "postgres")
    assert len(out) >= 10 and len({n.sql for n in out}) == len(out)
    assert sql not in {n.sql for n in out}


def test_unparseable_gives_none() -> None:
    assert neighbours("SELEC oops", "sqlite") == []


_KEYS: dict[str, tuple[str, ...]] = {"t": ("id",), "u": ("id",)}
_TYPES = {
    "t": {"id": "integer", "q": "integer", "p": "decimal(10,2)", "x": "double"},
    "u": {"id": "integer", "tid": "integer", "k": "integer"},
}


# literal data table, one row a line (a long row wraps): kept by fmt: off
# fmt: off
LABELLED = [
    ("SELECT a FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.tid = t.id)", "add_distinct",
     "distinct_in_semijoin"),
    ("SELECT a FROM t WHERE id IN (SELECT tid FROM u)", "add_distinct", "distinct_in_semijoin"),
    ("SELECT t.a FROM t SEMI JOIN (SELECT tid FROM u) AS k ON k.tid = t.id", "add_distinct",
     "distinct_in_semijoin"),
    ("SELECT id, a FROM t", "add_distinct", "distinct_over_keys"),
    ("SELECT t.id, u.id FROM t JOIN u ON u.tid = t.id", "add_distinct", "distinct_over_keys"),
    ("SELECT t.id, u.k FROM t LEFT JOIN u ON u.id = t.q", "add_distinct", "distinct_over_keys"),
    ("SELECT id, b FROM (SELECT t.id, t.b FROM t) AS s", "add_distinct", "distinct_over_keys"),
    ("SELECT t.id, s.n FROM t JOIN (SELECT tid, COUNT(*) AS n FROM u GROUP BY tid) AS s "
     "ON s.tid = t.id", "add_distinct", "distinct_over_keys"),
    ("WITH s AS (SELECT t.id FROM t) SELECT id FROM s", "add_distinct", "distinct_over_keys"),
    ("WITH RECURSIVE d(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM d WHERE x < 3) "
     "SELECT d.x FROM d", "add_distinct", "distinct_over_keys"),  # SELECT 1: one row
    ("SELECT a FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.tid = t.id)", "literal_plus",
     "exists_projection"),
    ("SELECT a, b FROM (SELECT a, b FROM t) AS s", "swap_projection", "inner_projection_swap"),
    ("SELECT a, b FROM (SELECT a, b FROM t)", "swap_projection", "inner_projection_swap"),
    ("WITH s AS (SELECT a, b FROM t) SELECT a FROM s", "swap_projection", "inner_projection_swap"),
    ("SELECT t.a FROM t JOIN u ON u.tid = t.id WHERE u.k > 3", "inner_left",
     "left_join_null_rejected"),
    ("SELECT ROUND(SUM(t.q * t.p), 2) FROM t", "literal_plus", "round_beyond_scale"),
]
# fmt: on


@pytest.mark.parametrize(
    ("sql", "operator", "rule"),
    LABELLED,
)
def test_equivalent_neighbours_are_labelled(sql: str, operator: str, rule: str) -> None:
    found = [
        n for n in neighbours(sql, "duckdb", keys=_KEYS, types=_TYPES) if n.operator == operator
    ]
    assert found and any(n.equivalent == rule for n in found)


@pytest.mark.parametrize(
    ("sql", "operator"),
    [
        ("SELECT a FROM t", "add_distinct"),  # no key projected
        ("SELECT t.id FROM t JOIN u ON u.tid = t.id", "add_distinct"),  # the join multiplies rows
        ("SELECT id FROM (SELECT t.id FROM t JOIN u ON u.tid = t.id) AS s", "add_distinct"),
        (
            "WITH RECURSIVE d(x) AS (SELECT t.b FROM t UNION ALL SELECT x + 1 FROM d WHERE x < 3) "
            "SELECT d.x FROM d",
            "add_distinct",
        ),  # no member is distinct by construction
        ("SELECT * FROM (SELECT a, b FROM t) AS s", "swap_projection"),  # read by position
        ("SELECT a FROM t WHERE (a, b) IN (SELECT a, b FROM u)", "swap_projection"),
        ("SELECT t.a FROM t JOIN u ON u.tid = t.id WHERE u.k IS NULL", "inner_left"),
        ("SELECT t.a FROM t JOIN u ON u.tid = t.id WHERE u.k > 3 OR t.a = 1", "inner_left"),
        ("SELECT ROUND(SUM(t.q * t.p), 1) FROM t", "literal_plus"),  # 2 digits > 1
        ("SELECT ROUND(AVG(t.p), 2) FROM t", "literal_plus"),  # AVG has no fixed scale
        ("SELECT ROUND(SUM(t.x), 2) FROM t", "literal_plus"),  # double
    ],
)
def test_inequivalent_neighbours_are_not_labelled(sql: str, operator: str) -> None:
    found = [
        n for n in neighbours(sql, "duckdb", keys=_KEYS, types=_TYPES) if n.operator == operator
    ]
    assert found and not any(n.equivalent for n in found)


def test_string_case_only_where_compared_with_data() -> None:
    sql = "SELECT DATE(d, 'start of month') FROM t WHERE s = 'Open'"
    assert _by_operator(sql)["string_case"] == {
        "SELECT DATE(d, 'start of month') FROM t WHERE s = 'open'"
    }


_RULES_TYPES = {
    **_TYPES,
    "t": {**_TYPES["t"], "s": "text", "b": "text"},
    "u": {**_TYPES["u"], "s": "text"},
}


# literal data table, one row a line (a long row wraps): kept by fmt: off
# fmt: off
RULES = [
    ("SELECT a FROM t UNION SELECT k FROM u", "add_distinct", "distinct_under_set_op", "duckdb"),
    ("SELECT a FROM t EXCEPT SELECT k FROM u", "add_distinct", "distinct_under_set_op", "sqlite"),
    ("SELECT a FROM (SELECT a FROM t INTERSECT SELECT k FROM u) AS s", "add_distinct",
     "distinct_over_keys", "duckdb"),
    ("SELECT LOWER(b) AS lb, COUNT(*) FROM t GROUP BY lb", "add_distinct", "distinct_over_keys",
     "sqlite"),
    ("SELECT t.id, COUNT(*) FROM t GROUP BY t.id, t.q", "add_distinct", "distinct_over_keys",
     "duckdb"),
    ("SELECT id, ROW_NUMBER() OVER (ORDER BY q) AS n FROM t", "add_distinct", "distinct_over_keys",
     "duckdb"),
    ("SELECT id, m FROM (SELECT id, (SELECT MAX(k) FROM u) AS m FROM t) AS s", "add_distinct",
     "distinct_over_keys", "duckdb"),
    ("WITH RECURSIVE c(id, d) AS (SELECT id, 0 FROM t WHERE q IS NULL UNION ALL "
     "SELECT t.id, c.d + 1 FROM t JOIN c ON t.q = c.id) SELECT id, d FROM c", "add_distinct",
     "distinct_over_keys", "duckdb"),
    ("SELECT t.a FROM t JOIN u ON u.tid = t.id WHERE LOWER(u.s) = 'x'", "inner_left",
     "left_join_null_rejected", "duckdb"),
    ("SELECT t.a FROM t JOIN u ON u.tid = t.id WHERE YEAR(u.k + 1) = 2024", "inner_left",
     "left_join_null_rejected", "duckdb"),
    ("SELECT a FROM t WHERE s = 'Open'", "string_case", "case_insensitive_collation", "mysql"),
    # MySQL's YEAR(d) parses as YEAR of a date cast, which propagates NULL too (a rules-v7
    # survivor in polyglot's products-ordered-both-years)
    ("SELECT t.a FROM t JOIN u ON u.tid = t.id WHERE YEAR(u.d) = 2023", "inner_left",
     "left_join_null_rejected", "mysql"),
]
# fmt: on


@pytest.mark.parametrize(
    ("sql", "operator", "rule", "dialect"),
    RULES,
)
def test_equivalence_rules(sql: str, operator: str, rule: str, dialect: str) -> None:
    """Every neighbour of ``operator`` is labelled, one with ``rule`` (survivors of rules-v4
    that were provably equal to their source)."""
    found = [
        n
        for n in neighbours(sql, dialect, keys=_KEYS, types=_RULES_TYPES)
        if n.operator == operator
    ]
    assert found and all(n.equivalent for n in found), found
    assert any(n.equivalent == rule for n in found)


# literal data table, one row a line (a long row wraps): kept by fmt: off
# fmt: off
NOT_BY_RULES = [
    ("SELECT a FROM t UNION ALL SELECT k FROM u", "add_distinct", "duckdb"),
    ("SELECT q AS q2, COUNT(*) FROM t GROUP BY q2, b", "add_distinct", "duckdb"),
    ("SELECT LOWER(b) AS q, COUNT(*) FROM t GROUP BY q", "add_distinct", "sqlite"),  # a column
    ("SELECT t.q, COUNT(*) FROM t GROUP BY t.id, t.q", "add_distinct", "duckdb"),  # no key out
    ("SELECT t.id, ROW_NUMBER() OVER (ORDER BY u.k) AS n FROM t JOIN u ON u.tid = t.id",
     "add_distinct", "duckdb"),
    ("WITH RECURSIVE c(id, d) AS (SELECT id, 0 FROM t WHERE q = 1 UNION ALL "
     "SELECT t.id, c.d + 1 FROM t JOIN c ON t.q = c.id) SELECT id, d FROM c", "add_distinct",
     "duckdb"),  # the anchor's rows may be reached again
    ("SELECT t.a FROM t JOIN u ON u.tid = t.id WHERE COALESCE(u.k, 0) = 0", "inner_left", "duckdb"),
    ("SELECT a FROM t WHERE s = 'Open'", "string_case", "duckdb"),
    ("SELECT a FROM t WHERE s COLLATE utf8mb4_bin = 'Open'", "string_case", "mysql"),
]
# fmt: on


@pytest.mark.parametrize(
    ("sql", "operator", "dialect"),
    NOT_BY_RULES,
)
def test_equivalence_rules_do_not_overreach(sql: str, operator: str, dialect: str) -> None:
    """Near misses of each rule: some neighbour of ``operator`` stays counted."""
    found = [
        n
        for n in neighbours(sql, dialect, keys=_KEYS, types=_RULES_TYPES)
        if n.operator == operator
    ]
    assert found and not all(n.equivalent for n in found), found


def test_no_literal_edits_of_type_sizes() -> None:
    """DECIMAL(20, 6) → (21, 6) or CHAR(200) → (201) changes no value within the data's domain
    (rules-v7 survivors of polyglot's MySQL sources); the compared literal is still edited."""
    sql = "SELECT ROUND(CAST(x AS DECIMAL(20, 6)), 1), CAST(s AS CHAR(200)) FROM t WHERE x > 3"
    edited = [
        n.sql for n in neighbours(sql, "mysql") if n.operator in ("literal_plus", "literal_minus")
    ]
    assert not any(
        size in text
        for text in edited
        for size in ("(21, 6)", "(19, 6)", "(20, 7)", "(20, 5)", "(201)", "(199)")
    )
    assert any("x > 4" in text for text in edited) and any("x > 2" in text for text in edited)


_DAYS = "SELECT toDate32('2023-12-29') + number AS day FROM numbers(5)"
_YEAR = (
    "SELECT oi.product_id FROM order_items AS oi {} JOIN orders AS o ON o.id = oi.order_id "
    "WHERE toYear(o.order_date) = {}"
)


# literal data table, one row a line (a long row wraps): kept by fmt: off
# fmt: off
CLICKHOUSE_RULES = [
    # rules-v7 survivors of polyglot's ClickHouse sources (issue 12)
    ("SELECT round(toDecimal64(x, 6), 1) FROM t", "SELECT round(toDecimal64(x, 7), 1) FROM t",
     "decimal_scale_under_round"),
    ("SELECT round(toDecimal64(x, 6), 0) FROM t", "SELECT round(toDecimal64(x, 5), 0) FROM t",
     "decimal_scale_under_round"),
    (_DAYS, _DAYS.replace("SELECT", "SELECT DISTINCT"), "distinct_over_keys"),
    (f"SELECT d.day, ifNull(o.n, 0) AS k FROM ({_DAYS}) AS d LEFT JOIN (SELECT order_date, "
     "count() AS n FROM orders GROUP BY order_date) AS o ON o.order_date = d.day",
     f"SELECT DISTINCT d.day, ifNull(o.n, 0) AS k FROM ({_DAYS}) AS d LEFT JOIN (SELECT "
     "order_date, count() AS n FROM orders GROUP BY order_date) AS o ON o.order_date = "
     "d.day", "distinct_over_keys"),
    ("SELECT number - 1 AS k FROM numbers(2, 5)",
     "SELECT DISTINCT number - 1 AS k FROM numbers(2, 5)", "distinct_over_keys"),
    (_YEAR.format("INNER", 2023), _YEAR.format("LEFT", 2023), "left_join_null_rejected"),
    # near misses: still counted
    # scale 1 no longer past the rounding digit
    ("SELECT round(toDecimal64(x, 2), 1) FROM t", "SELECT round(toDecimal64(x, 1), 1) FROM t", ""),
    ("SELECT toDecimal64(x, 6) FROM t", "SELECT toDecimal64(x, 7) FROM t", ""),  # not rounded
    # ROUND's digits
    ("SELECT round(toDecimal64(x, 6), 1) FROM t", "SELECT round(toDecimal64(x, 6), 2) FROM t", ""),
    ("SELECT toDateTime64(ts, 3) FROM t", "SELECT toDateTime64(ts, 4) FROM t", ""),
    ("SELECT number * number AS k FROM numbers(5)",
     "SELECT DISTINCT number * number AS k FROM numbers(5)", ""),  # not a shift
    ("SELECT number % 2 AS k FROM numbers(5)", "SELECT DISTINCT number % 2 AS k FROM numbers(5)",
     ""),
    ("SELECT number + x AS k FROM numbers(5)", "SELECT DISTINCT number + x AS k FROM numbers(5)",
     ""),  # x is no constant
    (_YEAR.format("INNER", 1970), _YEAR.format("LEFT", 1970), ""),  # the default date's year
]
# fmt: on


@pytest.mark.parametrize(
    ("sql", "neighbour", "rule"),
    CLICKHOUSE_RULES,
)
def test_clickhouse_rules(sql: str, neighbour: str, rule: str) -> None:
    """The neighbour is made, labelled with ``rule`` ('' when it is counted)."""
    found = {
        n.sql: n.equivalent for n in neighbours(sql, "clickhouse", keys=_KEYS, types=_RULES_TYPES)
    }
    assert neighbour in found, sorted(found)
    assert found[neighbour] == rule


_JOINED = "SELECT t.a FROM t {} JOIN u ON u.tid = t.id WHERE {}"


@pytest.mark.parametrize(
    ("where", "rule"),
    [
        # an unmatched row holds u's column defaults (0, '', 1970-01-01) under join_use_nulls = 0,
        # not NULL: starter's above-department-average (e.salary > a.dept_avg, the default 0) was
        # labelled equivalent under rules-v8
        ("t.q > u.k", ""),
        ("u.k > -1", ""),
        ("u.k <> 3", ""),
        ("u.k IN (0, 1)", ""),
        ("u.k BETWEEN -1 AND 1", ""),
        ("u.s <> 'x'", ""),
        ("u.s < '2024-01-01'", ""),  # 1970-01-01 is earlier
        ("u.s >= '1970-01-01'", ""),  # the epoch itself
        ("NOT u.k IS NULL", ""),  # a non-Nullable column is never NULL
        ("LENGTH(u.s) < 3", ""),  # a function of the default
        ("u.k > 3", "left_join_null_rejected"),
        ("3 < u.k", "left_join_null_rejected"),
        ("u.k = -2", "left_join_null_rejected"),
        ("u.k IN (1, 2)", "left_join_null_rejected"),
        ("u.k BETWEEN 1 AND 5", "left_join_null_rejected"),
        ("u.s = 'x'", "left_join_null_rejected"),
        ("LOWER(u.s) = 'delivered'", "left_join_null_rejected"),
        ("u.s >= '2024-01-01'", "left_join_null_rejected"),
    ],
)
def test_clickhouse_left_join_defaults(where: str, rule: str) -> None:
    """INNER → LEFT JOIN in ClickHouse is labelled only when the WHERE rejects NULL and every
    default an unmatched row can hold; in DuckDB NULL is all it must reject."""
    sql = _JOINED.format("INNER", where)
    found = {
        n.sql: n.equivalent for n in neighbours(sql, "clickhouse", keys=_KEYS, types=_RULES_TYPES)
    }
    left = sqlglot.transpile(_JOINED.format("LEFT", where), read="clickhouse", write="clickhouse")[
        0
    ]
    assert left in found, sorted(found)
    assert found[left] == rule
