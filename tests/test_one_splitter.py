"""The lexer/splitter cases of issue 30 through every consumer: curation, the grammar check,
translate, the engines' splitting and the suite builder all split with the dialect's one
splitter (:mod:`parrot.dialects.splitter`), so each gives the same statements."""

from __future__ import annotations

import pytest

from parrot import translate
from parrot.check import check_sql
from parrot.curate.standardise import split_and_format
from parrot.dialects import get
from parrot.dialects.lexer import scan
from parrot.engines import statements as st
from parrot.testsuite.datagen import SchemaError, parse_query

_PROC = (
    "CREATE PROCEDURE p()\nBEGIN\n  DECLARE x INT;\n  SET x = 1;\n"
    "  IF x > 0 THEN SELECT x; END IF;\nEND"
)
_PROC_ONE = (
    "CREATE PROCEDURE p() BEGIN DECLARE x INT; SET x = 1; IF x > 0 THEN SELECT x; END IF; END"
)

# (dialect, input, its statements as curation writes them, comments curation removes)
CASES = [
    pytest.param(
        "snowflake",
        "SELECT 'it\\'s; -- no comment' AS s",
        ["SELECT 'it\\'s; -- no comment' AS s"],
        0,
        id="snowflake-escaped-quote",
    ),
    pytest.param(
        "postgres",
        "SELECT 1 /* a /* b; */ c; */; SELECT 2",
        ["SELECT 1", "SELECT 2"],
        1,
        id="postgres-nested-comment",
    ),
    pytest.param(
        "mysql", "SELECT 1--1; SELECT 2", ["SELECT 1--1", "SELECT 2"], 0, id="mysql-dash-dash-digit"
    ),
    pytest.param("mysql", _PROC, [_PROC_ONE], 0, id="mariadb-procedure"),
    pytest.param(
        "mysql",
        f"DELIMITER //\n{_PROC} //\nDELIMITER ;\n",
        [_PROC_ONE],
        0,
        id="mariadb-procedure-delimiter",
    ),
]


@pytest.mark.parametrize(("dialect", "sql", "statements", "comments"), CASES)
def test_curation(dialect: str, sql: str, statements: list[str], comments: int) -> None:
    assert split_and_format(sql, dialect) == (statements, comments)


@pytest.mark.parametrize(("dialect", "sql", "statements", "comments"), CASES)
def test_grammar_check(dialect: str, sql: str, statements: list[str], comments: int) -> None:
    verdicts = check_sql(sql, dialect)
    assert len(verdicts) == len(statements)
    if "PROCEDURE" not in sql:  # (the MySQL grammar has no CREATE PROCEDURE yet)
        assert all(v.ok for v in verdicts), verdicts
    for v, text in zip(verdicts, statements, strict=True):  # spans are the input's
        assert " ".join(sql[v.start : v.end].split()).startswith(text.split()[0])


@pytest.mark.parametrize(("dialect", "sql", "statements", "comments"), CASES)
def test_translate(dialect: str, sql: str, statements: list[str], comments: int) -> None:
    assert len(translate.split(sql, dialect)) == len(statements)


@pytest.mark.parametrize(("dialect", "sql", "statements", "comments"), CASES)
def test_engine_splitting(dialect: str, sql: str, statements: list[str], comments: int) -> None:
    texts = st.splitter(dialect).split(sql)
    assert [" ".join(t.split()) for t in texts] == [
        " ".join(s.split()) for s in statements
    ] or "/*" in sql
    assert len(texts) == len(statements)


@pytest.mark.parametrize(("dialect", "sql", "statements", "comments"), CASES)
def test_suite_builder(dialect: str, sql: str, statements: list[str], comments: int) -> None:
    if len(statements) == 1 and statements[0].startswith("SELECT"):
        assert parse_query(sql, dialect).sql(dialect)
    else:
        with pytest.raises(SchemaError, match="not a single query"):
            parse_query(sql, dialect)


@pytest.mark.parametrize(("dialect", "sql", "statements", "comments"), CASES)
def test_scan_gives_the_text_back(
    dialect: str, sql: str, statements: list[str], comments: int
) -> None:
    assert "".join(t.text for t in scan(sql, get(dialect).lexicon)) == sql


def test_engines_keep_a_plsql_units_declarations_in_one_statement() -> None:
    """The grammar check always did; the engines' splitter cut the unit at each declaration."""
    sql = (
        "CREATE OR REPLACE FUNCTION f RETURN INT IS x INT; y INT; BEGIN IF x > 0 THEN "
        "y := 1; END IF; RETURN y; END;\n/\nSELECT f FROM dual"
    )
    assert [s.split()[0] for s in st.splitter("oracle").split(sql)] == ["CREATE", "SELECT"]
    assert [v.ok for v in check_sql(sql, "oracle")] == [True, True]


def test_a_lexicon_refuses_hash_comments_always_without_hash_comments() -> None:
    from parrot.dialects.base import Lexicon

    with pytest.raises(ValueError, match="hash_comments_always"):
        Lexicon(hash_comments_always=True)
    assert Lexicon(hash_comments=True, hash_comments_always=True).hash_comments_always
