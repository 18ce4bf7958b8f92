"""The operator registry, family by family: an edit, its expected neighbour, and the
equivalence rule that labels an edit that keeps the meaning."""

from __future__ import annotations

import pytest

from parrot.testsuite.neighbours import EQUIVALENCE_RULES, neighbours
from parrot.testsuite.operators import REGISTRY, family_of

KEYS: dict[str, tuple[str, ...]] = {"t": ("id",), "u": ("id",)}

# literal data table, one row a line (a long row wraps): kept by fmt: off
# fmt: off
EDITS = [  # (operator, source, an expected neighbour)
    ("drop_distinct", "SELECT DISTINCT a FROM t", "SELECT a FROM t"),
    ("add_distinct", "SELECT a FROM t", "SELECT DISTINCT a FROM t"),
    ("swap_projection", "SELECT a, b FROM t", "SELECT b, a FROM t"),
    ("inner_left", "SELECT t.a FROM t JOIN u ON t.id = u.tid",
     "SELECT t.a FROM t LEFT JOIN u ON t.id = u.tid"),
    ("left_inner", "SELECT t.a FROM t LEFT JOIN u ON t.id = u.tid",
     "SELECT t.a FROM t JOIN u ON t.id = u.tid"),
    ("negate_subquery", "SELECT a FROM t WHERE id IN (SELECT tid FROM u)",
     "SELECT a FROM t WHERE NOT id IN (SELECT tid FROM u)"),
    ("negate_subquery", "SELECT a FROM t WHERE NOT EXISTS (SELECT 1 FROM u)",
     "SELECT a FROM t WHERE EXISTS(SELECT 1 FROM u)"),
    ("group_by_column", "SELECT t.a, COUNT(*) FROM t WHERE t.b > 0 GROUP BY t.a",
     "SELECT t.a, COUNT(*) FROM t WHERE t.b > 0 GROUP BY t.b"),
    ("count_sum", "SELECT COUNT(CASE WHEN x > 1 THEN 1 END) FROM t",
     "SELECT SUM(CASE WHEN x > 1 THEN 1 END) FROM t"),
    ("min_max", "SELECT MIN(a) FROM t", "SELECT MAX(a) FROM t"),
    ("aggregate_distinct", "SELECT COUNT(a) FROM t", "SELECT COUNT(DISTINCT a) FROM t"),
    ("aggregate_distinct", "SELECT COUNT(DISTINCT a) FROM t", "SELECT COUNT(a) FROM t"),
    ("aggregate_distinct", "SELECT SUM(a) FROM t", "SELECT SUM(DISTINCT a) FROM t"),
    ("aggregate_distinct", "SELECT AVG(a) FROM t", "SELECT AVG(DISTINCT a) FROM t"),
    ("set_operator", "SELECT a FROM t UNION SELECT a FROM u",
     "SELECT a FROM t UNION ALL SELECT a FROM u"),
    ("set_operator", "SELECT a FROM t INTERSECT SELECT a FROM u",
     "SELECT a FROM t EXCEPT SELECT a FROM u"),
    ("drop_order", "SELECT a FROM t ORDER BY a", "SELECT a FROM t"),
    ("drop_order_limit", "SELECT a FROM t ORDER BY a LIMIT 3", "SELECT a FROM t LIMIT 3"),
    ("asc_desc", "SELECT a FROM t ORDER BY a", "SELECT a FROM t ORDER BY a DESC"),
    ("flip_comparison", "SELECT a FROM t WHERE x > 3", "SELECT a FROM t WHERE x >= 3"),
    ("reverse_comparison", "SELECT a FROM t WHERE x > 3", "SELECT a FROM t WHERE x < 3"),
    ("and_or", "SELECT a FROM t WHERE x = 1 AND y = 2", "SELECT a FROM t WHERE (x = 1 OR y = 2)"),
    ("arithmetic", "SELECT a + b FROM t", "SELECT a - b FROM t"),
    ("arithmetic", "SELECT a / 2 FROM t", "SELECT a * 2 FROM t"),
    ("between_bounds", "SELECT a FROM t WHERE x BETWEEN 1 AND 5",
     "SELECT a FROM t WHERE (x > 1 AND x <= 5)"),
    ("between_bounds", "SELECT a FROM t WHERE x BETWEEN 1 AND 5",
     "SELECT a FROM t WHERE (x >= 1 AND x < 5)"),
    ("like_wildcard", "SELECT a FROM t WHERE s LIKE '%ab%'", "SELECT a FROM t WHERE s LIKE 'ab%'"),
    ("like_wildcard", "SELECT a FROM t WHERE s LIKE 'a_'", "SELECT a FROM t WHERE s LIKE 'a%'"),
    ("drop_not", "SELECT a FROM t WHERE NOT (x > 1 OR y = 2)",
     "SELECT a FROM t WHERE (x > 1 OR y = 2)"),
    ("is_null", "SELECT a FROM t WHERE b IS NULL", "SELECT a FROM t WHERE NOT b IS NULL"),
    ("is_null", "SELECT a FROM t WHERE b IS NOT NULL", "SELECT a FROM t WHERE b IS NULL"),
    ("null_in_list", "SELECT a NOT IN (1, 2) FROM t", "SELECT NOT a IN (1, 2, NULL) FROM t"),
    ("not_in_not_exists", "SELECT t.a FROM t WHERE t.b NOT IN (SELECT u.k FROM u WHERE u.z > 1)",
     "SELECT t.a FROM t WHERE NOT EXISTS(SELECT u.k FROM u WHERE u.z > 1 AND u.k = t.b)"),
    ("join_key", "SELECT t.a FROM t JOIN u ON t.id = u.tid WHERE u.k = 1",
     "SELECT t.a FROM t JOIN u ON t.id = u.k WHERE u.k = 1"),
    ("projection_column", "SELECT t.a FROM t WHERE t.b > 1", "SELECT t.b FROM t WHERE t.b > 1"),
    ("literal_plus", "SELECT a / NULLIF(n, 0) FROM t", "SELECT a / NULLIF(n, 1) FROM t"),
    ("literal_minus", "SELECT a FROM t WHERE x > 3", "SELECT a FROM t WHERE x > 2"),
    ("string_case", "SELECT a FROM t WHERE s = 'Open'", "SELECT a FROM t WHERE s = 'open'"),
    ("limit_plus", "SELECT a FROM t LIMIT 3", "SELECT a FROM t LIMIT 4"),
    ("limit_minus", "SELECT a FROM t LIMIT 3", "SELECT a FROM t LIMIT 2"),
    ("drop_conjunct", "SELECT a FROM t WHERE x = 1 AND y = 2", "SELECT a FROM t WHERE y = 2"),
    ("drop_clause", "SELECT a, COUNT(*) FROM t GROUP BY a HAVING COUNT(*) > 1",
     "SELECT a, COUNT(*) FROM t GROUP BY a"),
    ("drop_function", "SELECT ROUND(AVG(x), 2) FROM t", "SELECT AVG(x) FROM t"),
]
# fmt: on

# literal data table, one row a line (a long row wraps): kept by fmt: off
# fmt: off
EQUIVALENT = [  # (operator, source, the neighbour, the rule that labels it)
    ("not_in_not_exists", "SELECT t.a FROM t WHERE t.id NOT IN (SELECT u.id FROM u)",
     "SELECT t.a FROM t WHERE NOT EXISTS(SELECT u.id FROM u WHERE u.id = t.id)",
     "not_in_over_keys"),
    ("aggregate_distinct", "SELECT COUNT(id) FROM t WHERE a > 1",
     "SELECT COUNT(DISTINCT id) FROM t WHERE a > 1", "distinct_aggregate_over_key"),
    ("aggregate_distinct", "SELECT COUNT(DISTINCT t.id) FROM t", "SELECT COUNT(t.id) FROM t",
     "distinct_aggregate_over_key"),
    ("null_in_list", "SELECT a FROM t WHERE b = 1 AND x IN (1, 2)",
     "SELECT a FROM t WHERE b = 1 AND x IN (1, 2, NULL)", "null_in_filtering_in"),
    ("null_in_list", "SELECT t.a FROM t JOIN u ON u.tid = t.id AND u.k IN (1, 2)",
     "SELECT t.a FROM t JOIN u ON u.tid = t.id AND u.k IN (1, 2, NULL)", "null_in_filtering_in"),
    ("drop_order_limit", "SELECT COUNT(*) FROM t ORDER BY 1 LIMIT 5",
     "SELECT COUNT(*) FROM t LIMIT 5", "order_of_one_row"),
    ("left_inner", "SELECT t.a FROM t LEFT JOIN u ON t.id = u.tid WHERE u.k = 1",
     "SELECT t.a FROM t JOIN u ON t.id = u.tid WHERE u.k = 1", "left_join_null_rejected"),
    ("add_distinct", "SELECT a FROM t WHERE id IN (SELECT tid FROM u)",
     "SELECT a FROM t WHERE id IN (SELECT DISTINCT tid FROM u)", "distinct_in_semijoin"),
]
# fmt: on

NOT_EQUIVALENT = [  # (operator, source): the same edit where it changes the meaning
    ("not_in_not_exists", "SELECT t.a FROM t WHERE t.b NOT IN (SELECT u.tid FROM u)"),
    ("aggregate_distinct", "SELECT COUNT(a) FROM t"),
    ("aggregate_distinct", "SELECT COUNT(t.id) FROM t JOIN u ON u.tid = t.id"),
    ("null_in_list", "SELECT a FROM t WHERE x NOT IN (1, 2)"),
    ("null_in_list", "SELECT x IN (1, 2) FROM t"),
    ("drop_order_limit", "SELECT a FROM t ORDER BY a LIMIT 1"),
    ("left_inner", "SELECT t.a FROM t LEFT JOIN u ON t.id = u.tid"),
]


def _of(operator: str, sql: str) -> list[tuple[str, str]]:
    return [
        (n.sql, n.equivalent)
        for n in neighbours(sql, "sqlite", keys=KEYS)
        if n.operator == operator
    ]


def test_every_operator_has_a_family_an_origin_and_a_row_here() -> None:
    assert {op for op, _, _ in EDITS} == set(REGISTRY)
    for op in REGISTRY.values():
        assert op.family.split(".")[0] in ("SC", "OR", "NL", "IR", "ZYK") and op.origin
        assert set(op.rules) <= set(EQUIVALENCE_RULES)
    assert family_of("aggregate_distinct") == "SC.aggregate"


@pytest.mark.parametrize(("operator", "sql", "expected"), EDITS)
def test_an_edit_gives_its_neighbour(operator: str, sql: str, expected: str) -> None:
    made = _of(operator, sql)
    assert (expected, "") in made, made


@pytest.mark.parametrize(("operator", "sql", "neighbour", "rule"), EQUIVALENT)
def test_an_equivalence_rule_labels_the_edit(
    operator: str, sql: str, neighbour: str, rule: str
) -> None:
    assert rule in REGISTRY[operator].rules
    made = _of(operator, sql)
    assert (neighbour, rule) in made, made


@pytest.mark.parametrize(("operator", "sql"), NOT_EQUIVALENT)
def test_the_same_edit_where_it_changes_the_meaning_is_counted(operator: str, sql: str) -> None:
    made = _of(operator, sql)
    assert made and all(eq == "" for _, eq in made), made
