"""Stage 1: splitting, canonical formatting, deduplication."""

from __future__ import annotations

import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from parrot.curate.stages import LocalExecutor, Record, run_stage
from parrot.curate.standardise import (
    Standardise,
    lexed_split_and_format,
    lexicon,
    normalised_key,
    normalised_key_of,
    single_statement,
    split_and_format,
)
from parrot.dialects.lexer import TokenKind, scan, tokenize

_ASCII_LOWER = str.maketrans(string.ascii_uppercase, string.ascii_lowercase)

# SQL-ish texts full of what lexers disagree on: quotes, escapes, comments, ; and whitespace
_TRICKY = st.lists(
    st.sampled_from(
        [*"ab SEé'\"`[]\\;#/-*$\t\n\u00a0(1,=", "BEGIN ", "q'", "DELIMITER ", "$$", "E'", "  "]
    ),
    max_size=30,
).map("".join)
_DIALECTS = ["sqlite", "duckdb", "postgres", "mysql", "clickhouse", "tsql", "oracle", "spark"]


# literal data table, one row a line (a long row wraps): kept by fmt: off
# fmt: off
SPLIT_AND_FORMAT = [
    ("SELECT  1 ;", "sqlite", ["SELECT 1"], 0),
    ("SELECT 'a  ;  b'  FROM t;;", "sqlite", ["SELECT 'a  ;  b' FROM t"], 0),
    ("SELECT 1; SELECT 2", "duckdb", ["SELECT 1", "SELECT 2"], 0),
    ("SELECT a -- why\n FROM t /* block ; */ WHERE b", "sqlite", ["SELECT a FROM t WHERE b"], 2),
    ('SELECT "a  b"\n\tFROM t', "postgres", ['SELECT "a  b" FROM t'], 0),
    ("SELECT 'it\\'s ; x' FROM t # note", "mysql", ["SELECT 'it\\'s ; x' FROM t"], 1),
    ("SELECT 'a\\' ;  SELECT 2", "sqlite", ["SELECT 'a\\'", "SELECT 2"], 0),
    ("CREATE PROCEDURE p AS BEGIN SELECT 1; SELECT 2; END", "tsql",
     ["CREATE PROCEDURE p AS BEGIN SELECT 1; SELECT 2; END"], 0),
    ("  ;  -- only a comment", "sqlite", [], 1),
]
# fmt: on


@pytest.mark.parametrize(
    ("sql", "dialect", "statements", "comments"),
    SPLIT_AND_FORMAT,
)
def test_split_and_format(sql: str, dialect: str, statements: list[str], comments: int) -> None:
    assert split_and_format(sql, dialect) == (statements, comments)


@pytest.mark.parametrize(
    ("sql", "dialect", "statements"),
    [
        ("SELECT 1; SELECT 2", "tsql", ["SELECT 1", "SELECT 2"]),  # statements, not GO batches
        ("SELECT 1 -- c;\n; SELECT 2", "mysql", ["SELECT 1", "SELECT 2"]),
        (
            "CREATE TRIGGER t AFTER INSERT ON x BEGIN SELECT 1; END",
            "sqlite",
            ["CREATE TRIGGER t AFTER INSERT ON x BEGIN SELECT 1; END"],
        ),
    ],
)
def test_split_uses_the_dialects_splitter(sql: str, dialect: str, statements: list[str]) -> None:
    assert split_and_format(sql, dialect)[0] == statements


@pytest.mark.parametrize(
    ("sql", "single"),
    [
        ("  SELECT  a\n FROM t ; ", "SELECT a FROM t"),
        ("SELECT\ta,\u00a0\n b  FROM t", "SELECT a, b FROM t"),  # no quote: folded by a regex
        ("SELECT 'a  b' FROM t;", "SELECT 'a  b' FROM t"),
        ("SELECT 'unterminated ;", "SELECT 'unterminated"),
        (" ; ", ""),
        ("SELECT 1; SELECT 2", None),  # a split
        ("SELECT a / b FROM t", None),  # '/' may start a comment or a SQL*Plus line
        ("SELECT 1 -- c", None),
        ("DELIMITER //", None),
        ("BEGIN SELECT 1 END", None),  # procedural: kept whole by the lexed path
        ("SELECT 'it\\'s  x'  FROM t", "SELECT 'it\\'s  x' FROM t"),  # the dialect's escapes
    ],
)
def test_single_statement_takes_only_what_needs_no_lexer(sql: str, single: str | None) -> None:
    assert single_statement(sql, "mysql") == single
    if single is not None:
        assert lexed_split_and_format(sql, "mysql") == (([single] if single else []), 0)


@settings(max_examples=300, deadline=None)
@given(sql=_TRICKY, dialect=st.sampled_from(_DIALECTS))
def test_the_unlexed_path_gives_what_the_lexer_gives(sql: str, dialect: str) -> None:
    assert split_and_format(sql, dialect) == lexed_split_and_format(sql, dialect)


@settings(max_examples=300, deadline=None)
@given(sql=_TRICKY)
def test_normalised_key_folds_the_words_the_lexer_finds(sql: str) -> None:
    lexed = "".join(t.text.lower() if t.kind is TokenKind.WORD else t.text for t in scan(sql))
    assert normalised_key(sql) == lexed


@settings(max_examples=400, deadline=None)
@given(
    sql=st.lists(
        st.sampled_from(
            [*"aB Xé'\"`[]\\;#/-*$\t\n\u00a0(1.", "/*M!", "/*!", "*/", "--", "q'", "$$"]
        ),
        max_size=30,
    ).map("".join),
    dialect=st.sampled_from(_DIALECTS),
)
def test_the_key_from_the_statements_tokens_is_the_scanned_key(sql: str, dialect: str) -> None:
    """The duplicate key made of a statement's tokens (curation lexes a statement once, for
    both its keys) is the text with every piece the dialect's scanner finds folded, except
    strings, quoted identifiers and comments."""
    kept = (TokenKind.STRING, TokenKind.QUOTED, TokenKind.COMMENT)
    scanned = "".join(
        t.text if t.kind in kept else t.text.translate(_ASCII_LOWER)
        for t in scan(sql, lexicon(dialect))
    )
    assert normalised_key_of(sql, tokenize(sql, lexicon(dialect))) == scanned
    assert normalised_key(sql, dialect) == scanned


def test_normalised_key_folds_words_but_not_literals() -> None:
    assert (
        normalised_key("SELECT Name FROM T WHERE x = 'Ab'") == "select name from t where x = 'Ab'"
    )


def test_standardise_stage_splits_and_deduplicates() -> None:
    records = [
        Record("a", "sqlite", "SELECT 1; select  2"),
        Record("b", "sqlite", "SELECT 1"),  # exact duplicate of a#1
        Record("c", "sqlite", "SELECT 2"),  # normalised duplicate of a#2
        Record("d", "duckdb", "SELECT 1"),  # another dialect: kept
        Record("e", "sqlite", "-- nothing"),
    ]
    batch, count = run_stage(Standardise(), records, LocalExecutor(1))
    assert [(r.id, r.sql) for r in batch.records] == [
        ("a#1", "SELECT 1"),
        ("a#2", "select 2"),
        ("d", "SELECT 1"),
    ]
    assert count.dropped == {"duplicate": 1, "normalised_duplicate": 1, "empty": 1}
    assert count.details == {}
    assert (count.records_in, count.records_out) == (5, 3)


@pytest.mark.parametrize(
    ("sql", "dialect", "statements", "comments"),
    [
        # a backslash-escaped quote does not end a Snowflake or BigQuery string (curation used its
        # own escape list, which lacked Snowflake, and the Dialect class lacked BigQuery's)
        (
            "SELECT 'it\\'s; -- no comment' AS s",
            "snowflake",
            ["SELECT 'it\\'s; -- no comment' AS s"],
            0,
        ),
        (
            "SELECT 'it\\'s; # no comment' AS s # a comment",
            "bigquery",
            ["SELECT 'it\\'s; # no comment' AS s"],
            1,
        ),
        # MySQL: '--' starts a comment only before whitespace: 1--1 is 1 - (-1)
        ("SELECT 1--1; SELECT 2", "mysql", ["SELECT 1--1", "SELECT 2"], 0),
        ("SELECT 1 -- c\n; SELECT 2 // x\n", "snowflake", ["SELECT 1", "SELECT 2"], 2),
    ],
)
def test_curation_reads_the_dialects_lexical_facts(sql, dialect, statements, comments):
    assert split_and_format(sql, dialect) == (statements, comments)
    assert lexed_split_and_format(sql, dialect) == (statements, comments)
