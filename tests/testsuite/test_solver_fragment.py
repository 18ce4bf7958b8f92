"""The solver's wider fragment (parrot.solver): CTEs, derived tables, scalar / IN / EXISTS
subqueries (correlated too), CAST and string functions. Each kind: a survivor of random rounds
killed by a model the engine confirms, and an equivalent pair proved bounded-equivalent."""

from __future__ import annotations

import pytest
from sql_cases import sql_cases

from parrot.eval.judge import Judge
from parrot.solver import NEED_Z3, available
from parrot.solver.core import BoundedEquivalent, Killed, Unknown, witness
from tests.testsuite.test_solver import FIXTURE, _verify

pytestmark = pytest.mark.skipif(not available(), reason=NEED_Z3)

KILLED = sql_cases("test_solver_fragment.killed.tsv")  # (kind, source, surviving neighbour)

KILLED_DUCKDB = sql_cases("test_solver_fragment.killed_duckdb.tsv")  # DuckDB's own joins

EQUIVALENT = sql_cases("test_solver_fragment.equivalent.tsv")

EQUIVALENT_DUCKDB = sql_cases("test_solver_fragment.equivalent_duckdb.tsv")


@pytest.mark.parametrize("dialect", ["sqlite", "duckdb"])
@pytest.mark.parametrize(("kind", "source", "neighbour"), KILLED, ids=[k[0] for k in KILLED])
def test_survivor_of_each_new_kind_killed(
    judge: Judge, dialect: str, kind: str, source: str, neighbour: str
) -> None:
    verify = _verify(judge, dialect, source, neighbour)
    assert not verify(FIXTURE)  # the fixture leaves it alive
    out = witness(source, neighbour, dialect, FIXTURE, verify)
    assert isinstance(out, Killed), out
    assert verify(out.fixture)  # the engine separates them on the model


@pytest.mark.parametrize(
    ("kind", "source", "neighbour"), KILLED_DUCKDB, ids=[k[0] for k in KILLED_DUCKDB]
)
def test_duckdb_joins_killed(judge: Judge, kind: str, source: str, neighbour: str) -> None:
    verify = _verify(judge, "duckdb", source, neighbour)
    assert not verify(FIXTURE)
    out = witness(source, neighbour, "duckdb", FIXTURE, verify)
    assert isinstance(out, Killed) and verify(out.fixture), out


@pytest.mark.parametrize(
    ("dialect", "source", "neighbour"),
    [("sqlite", *p) for p in EQUIVALENT] + [("duckdb", *p) for p in EQUIVALENT_DUCKDB],
)
def test_equivalent_pair_of_each_new_kind_proved(
    judge: Judge, dialect: str, source: str, neighbour: str
) -> None:
    out = witness(source, neighbour, dialect, FIXTURE, _verify(judge, dialect, source, neighbour))
    assert out == BoundedEquivalent(3, out.seconds), out


@pytest.mark.parametrize(
    "same",
    [
        "SELECT id FROM t WHERE x = (SELECT tid FROM u WHERE k = 1)",  # at most one row searched
        "SELECT id FROM t WHERE LENGTH(g) = 5",  # no string of length 5 in the domain
        "SELECT id FROM t WHERE LOWER(g) = 'ab'",  # nor 'aB'
    ],
)
def test_restricted_search_is_never_bounded_equivalent(same: str) -> None:
    out = witness(same, same, "sqlite", FIXTURE, lambda db: True)
    assert isinstance(out, Unknown) and "restricted" in out.reason, out


def test_each_side_in_its_own_dialect(judge: Judge) -> None:
    # LIKE folds case on SQLite, not on DuckDB: the pair differs across the two
    source = "SELECT id FROM t WHERE g LIKE 'a%'"
    out = witness(source, source, "sqlite", FIXTURE, lambda db: True, target_dialect="duckdb")
    assert isinstance(out, Killed), out
    assert isinstance(
        witness(source, source, "sqlite", FIXTURE, lambda db: True, target_dialect="sqlite"),
        BoundedEquivalent,
    )


def test_an_encoding_too_large_is_unknown_not_a_hang() -> None:
    # five self-joined copies of t: 3 ** 5 row combinations at k = 3, refused there (k = 1, 2
    # searched)
    joins = " ".join(f"JOIN t AS t{i} ON t{i}.id = t.id" for i in range(1, 5))
    source = f"SELECT t.id FROM t {joins} WHERE t.x > 5"
    out = witness(source, source.replace("> 5", ">= 6"), "sqlite", FIXTURE, lambda db: True)
    assert isinstance(out, Unknown) and "row combinations at k=3" in out.reason, out
