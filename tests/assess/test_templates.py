"""Templates and carrying a translation over to a template's other statements."""

from __future__ import annotations

import pytest

from parrot.assess.templates import carry_over, shape


@pytest.mark.parametrize(
    ("rep", "member", "translation", "expected"),
    [
        # literals differ and occur once: the member's literals go in
        (
            "SELECT a FROM t WHERE x > 5 AND n = 'a'",
            "SELECT a FROM t WHERE x > 7 AND n = 'b'",
            "SELECT a FROM t WHERE x > 5 AND n = 'a'",
            "SELECT a FROM t WHERE x > 7 AND n = 'b'",
        ),
        # the same statement: the translation as it is
        ("SELECT 1", "SELECT 1", "SELECT 1", "SELECT 1"),
        # the translator rewrote the literal (a date format): no carry-over
        (
            "SELECT * FROM t WHERE d = '2024-01-01'",
            "SELECT * FROM t WHERE d = '2024-02-01'",
            "SELECT * FROM t WHERE d = CAST('2024/01/01' AS DATE)",
            None,
        ),
        # a value used twice in the representative: ambiguous, no carry-over
        (
            "SELECT * FROM t WHERE a = 1 OR b = 1",
            "SELECT * FROM t WHERE a = 2 OR b = 1",
            "SELECT * FROM t WHERE a = 1 OR b = 1",
            None,
        ),
        # a string and a number are different literals
        ("SELECT * FROM t WHERE a = '1'", "SELECT * FROM t WHERE a = 1", "SELECT 1", None),
        # another template
        ("SELECT a FROM t", "SELECT b FROM t", "SELECT a FROM t", None),
    ],
)
def test_carry_over(rep, member, translation, expected):
    got = carry_over(shape(rep, "sqlite"), shape(member, "sqlite"), translation, "duckdb")
    assert got == expected


def test_statements_differing_only_in_literals_share_a_template():
    assert (
        shape("SELECT a FROM t WHERE x = 1", "sqlite").key
        == shape("select a from t where x = 42", "sqlite").key
    )
    assert shape("SELECT a FROM t", "sqlite").key != shape("SELECT b FROM t", "sqlite").key
    broken = shape("SELEC broken", "sqlite")
    assert broken.key != shape("SELEC other", "sqlite").key  # unparseable: its own template
