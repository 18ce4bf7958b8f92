"""Stage 1: splitting, canonical formatting, deduplication."""

from __future__ import annotations

import pytest

from parrot.curate.stages import LocalExecutor, Record, run_stage
from parrot.curate.standardise import Standardise, normalised_key, split_and_format


@pytest.mark.parametrize(("sql", "dialect", "statements", "comments"), [
    ("SELECT  1 ;", "sqlite", ["SELECT 1"], 0),
    ("SELECT 'a  ;  b'  FROM t;;", "sqlite", ["SELECT 'a  ;  b' FROM t"], 0),
    ("SELECT 1; SELECT 2", "duckdb", ["SELECT 1", "SELECT 2"], 0),
    ("SELECT a -- why\n FROM t /* block ; */ WHERE b", "sqlite", ["SELECT a FROM t WHERE b"], 2),
    ("SELECT \"a  b\"\n\tFROM t", "postgres", ['SELECT "a  b" FROM t'], 0),
    ("SELECT 'it\\'s ; x' FROM t # note", "mysql", ["SELECT 'it\\'s ; x' FROM t"], 1),
    ("SELECT 'a\\' ;  SELECT 2", "sqlite", ["SELECT 'a\\'", "SELECT 2"], 0),
    ("CREATE PROCEDURE p AS BEGIN SELECT 1; SELECT 2; END", "tsql",
     ["CREATE PROCEDURE p AS BEGIN SELECT 1; SELECT 2; END"], 0),
    ("  ;  -- only a comment", "sqlite", [], 1),
])
def test_split_and_format(sql: str, dialect: str, statements: list[str], comments: int) -> None:
    assert split_and_format(sql, dialect) == (statements, comments)


@pytest.mark.parametrize(("sql", "dialect", "statements"), [
    ("SELECT 1; SELECT 2", "tsql", ["SELECT 1", "SELECT 2"]),  # statements, not GO batches
    ("SELECT 1 -- c;\n; SELECT 2", "mysql", ["SELECT 1", "SELECT 2"]),
    ("CREATE TRIGGER t AFTER INSERT ON x BEGIN SELECT 1; END", "sqlite",
     ["CREATE TRIGGER t AFTER INSERT ON x BEGIN SELECT 1; END"]),
])
def test_split_uses_the_dialects_splitter(sql: str, dialect: str, statements: list[str]) -> None:
    assert split_and_format(sql, dialect)[0] == statements


def test_normalised_key_folds_words_but_not_literals() -> None:
    assert normalised_key("SELECT Name FROM T WHERE x = 'Ab'") == \
        "select name from t where x = 'Ab'"


def test_standardise_stage_splits_and_deduplicates() -> None:
    records = [Record("a", "sqlite", "SELECT 1; select  2"),
               Record("b", "sqlite", "SELECT 1"),  # exact duplicate of a#1
               Record("c", "sqlite", "SELECT 2"),  # normalised duplicate of a#2
               Record("d", "duckdb", "SELECT 1"),  # another dialect: kept
               Record("e", "sqlite", "-- nothing")]
    batch, count = run_stage(Standardise(), records, LocalExecutor(1))
    assert [(r.id, r.sql) for r in batch.records] == [
        ("a#1", "SELECT 1"), ("a#2", "select 2"), ("d", "SELECT 1")]
    assert count.dropped == {"duplicate": 1, "normalised_duplicate": 1, "empty": 1}
    assert count.details == {}
    assert (count.records_in, count.records_out) == (5, 3)
