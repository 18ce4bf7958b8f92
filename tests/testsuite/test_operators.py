"""The operator registry, family by family: an edit, its expected neighbour, and the
equivalence rule that labels an edit that keeps the meaning."""

from __future__ import annotations

import pytest
from sql_cases import sql_cases

from parrot.testsuite.neighbours import EQUIVALENCE_RULES, neighbours
from parrot.testsuite.operators import REGISTRY, family_of

KEYS: dict[str, tuple[str, ...]] = {"t": ("id",), "u": ("id",)}

EDITS = sql_cases("test_operators.edits.tsv")  # (operator, source, an expected neighbour)

EQUIVALENT = sql_cases("test_operators.equivalent.tsv")

NOT_EQUIVALENT = sql_cases("test_operators.not_equivalent.tsv")


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
