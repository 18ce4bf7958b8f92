"""Stage 1b: canonical identifier case and SQLite's double-quoted strings, checked by execution."""

from __future__ import annotations

import pytest
from sql_cases import sql_cases

from parrot.curate import canonicalise as canon
from parrot.curate.canonicalise import Canonical, Canonicalise, Schema, canonicalise, same_result
from parrot.curate.stages import LocalExecutor, Record, run_stage
from parrot.curate.verify import grammar_accepts
from parrot.fixtures import Column, Fixture, Table

FIXTURE = Fixture(
    "canon-test",
    (
        Table(
            "Singer",
            (Column("Singer_ID", "integer"), Column("Name", "text"), Column("Country", "text")),
            ((1, "Ann", "France"), (2, "Bo", "Chile"), (3, "O'Brien", "Country")),
        ),
        Table(
            "Concert",
            (
                Column("concert_ID", "integer"),
                Column("Singer_ID", "integer"),
                Column("Theme", "text"),
            ),
            ((10, 1, "Free"), (11, 2, "Party"), (12, 1, "Party")),
        ),
    ),
)
SCHEMA = Schema.of(FIXTURE)


@pytest.mark.parametrize(
    ("sql", "expected"),
    sql_cases("test_canonicalise.declared_spelling.tsv"),
)
def test_case_takes_the_declared_spelling(sql: str, expected: str) -> None:
    assert canonicalise(sql, "sqlite", SCHEMA).sql == expected


@pytest.mark.parametrize(
    ("sql", "expected"),
    sql_cases("test_canonicalise.double_quoted.tsv"),
)
def test_double_quoted_tokens_follow_sqlites_fallback(sql: str, expected: str) -> None:
    assert canonicalise(sql, "sqlite", SCHEMA).sql == expected


def test_edits_are_counted_and_other_dialects_are_left_alone() -> None:
    result = canonicalise('SELECT t.name FROM singer AS T WHERE country = "x"', "sqlite", SCHEMA)
    assert result.edits == {
        "table case": 1,
        "qualifier case": 1,
        "column case": 2,
        "\"x\" → 'x'": 1,
    }
    sql = 'SELECT name FROM singer WHERE country = "x"'
    assert canonicalise(sql, "postgres", SCHEMA) == Canonical(sql, problem="dialect")
    assert canonicalise("SELECT FROM (", "sqlite", SCHEMA).problem == "unparseable"


@pytest.mark.parametrize(
    ("original", "rewritten", "verdict"),
    [
        (
            "SELECT name FROM singer ORDER BY singer_id",
            "SELECT Name FROM Singer ORDER BY Singer_ID",
            "",
        ),
        (
            'SELECT Name FROM Singer WHERE Country = "Chile"',
            "SELECT Name FROM Singer WHERE Country = 'Chile'",
            "",
        ),
        # "Country" names the column here: as a string it would select another row
        (
            'SELECT Name FROM Singer WHERE Country <> "Country"',
            "SELECT Name FROM Singer WHERE Country <> 'Country'",
            "row_count",
        ),
        (
            "SELECT count(*) FROM Singer",
            "SELECT count(*) FROM Nowhere",
            "rewrite fails: runtime_error",
        ),
        ("SELECT count(*) FROM Nowhere", "SELECT count(*) FROM Singer", None),  # cannot judge
    ],
)
def test_same_result_on_the_source_engine(
    original: str, rewritten: str, verdict: str | None
) -> None:
    assert same_result("sqlite", original, rewritten, FIXTURE) == verdict


def test_stage_rewrites_checks_and_deduplicates(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(canon, "named", lambda name: FIXTURE if name == "test/db" else None)
    real = canon.canonicalise
    wrong = 'SELECT Name FROM Singer WHERE Country <> "Country"'

    def rewriter(sql: str, dialect: str, schema: Schema) -> Canonical:
        if sql == wrong:  # a rewriter bug: this token names a column
            return Canonical(sql.replace('"Country"', "'Country'"), canon.Counter({"bug": 1}))
        return real(sql, dialect, schema)

    monkeypatch.setattr(canon, "canonicalise", rewriter)
    records = [
        Record(
            "a", "sqlite", 'SELECT name FROM singer WHERE country = "France"', fixture="test/db"
        ),
        Record(
            "b", "sqlite", "SELECT Name FROM Singer WHERE Country = 'France'", fixture="test/db"
        ),  # a's canonical form
        Record("c", "sqlite", wrong, fixture="test/db"),
        Record("d", "sqlite", 'SELECT name FROM singer WHERE x = "y"'),  # no fixture
        Record("e", "sqlite", "SELECT count(*) FROM nowhere", fixture="unknown/db"),
    ]
    batch, count = run_stage(Canonicalise(), records, LocalExecutor(1))
    assert [(r.id, r.sql) for r in batch.records] == [
        ("a", "SELECT Name FROM Singer WHERE Country = 'France'"),
        ("d", records[3].sql),
        ("e", records[4].sql),
    ]
    assert batch.records[0].info["original_sql"] == records[0].sql
    assert "canonicalised" in batch.records[0].tags
    assert count.dropped == {"canonical_changes_result": 1, "duplicate": 1}
    assert count.details == {
        "canonical_changes_result: row_count": 1,
        "duplicate: after canonicalisation": 1,
    }
    assert count.notes == {
        "canonicalised: table case": 1,
        "canonicalised: column case": 2,
        "canonicalised: \"x\" → 'x'": 1,
        "canonicalised statements": 1,
    }


@pytest.mark.parametrize(
    ("sql", "dialect", "ok"),
    [
        ("SELECT 1", "duckdb", True),  # parrot's grammar
        ("SELECT FROM FROM", "duckdb", False),
        ("SELECT 1", "teradata", True),  # no grammar: sqlglot's parser
        ("SELECT FROM (", "teradata", False),
    ],
)
def test_grammar_accepts(sql: str, dialect: str, ok: bool) -> None:
    assert grammar_accepts(sql, dialect) is ok
