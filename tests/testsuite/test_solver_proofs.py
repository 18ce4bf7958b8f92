"""Bounded-equivalence proofs for the neighbours Spider dev's suites left alive although they
are equal in fact (issue 28), each beside a near-twin that is NOT equal, whose counterexample
the engine confirms:

* GROUP BY / HAVING COUNT over inner joins (every group holds a row), also joined on SQLite's
  integer column = text column (the text takes NUMERIC affinity);
* DISTINCT under ``ORDER BY … LIMIT 1`` (both queries pick among the same tied first rows,
  as the judge's tie pools accept);
* LEFT JOIN → INNER JOIN where WHERE or HAVING rejects the NULL-extended rows."""

from __future__ import annotations

import pathlib
import sys
from dataclasses import replace

import pytest
from solver_checks import engine_check

from parrot.eval.judge import Judge
from parrot.fixtures import fixture_from_json
from parrot.solver import NEED_Z3, available
from parrot.solver.core import BoundedEquivalent, Killed, Unknown, Unsupported, witness

pytestmark = pytest.mark.skipif(not available(), reason=NEED_Z3)

# z3's budget per check: generous, so that a loaded machine does not turn a proof into unknown
BUDGET_MS = 60_000


def _table(name: str, key: list[str], columns: list[tuple[str, str]], rows: list) -> dict:
    return {
        "name": name,
        "primary_key": key,
        "columns": [{"name": c, "type": t} for c, t in columns],
        "rows": rows,
    }


FIXTURE = fixture_from_json(
    {
        "name": "proofs",
        "tables": [
            _table(
                "t",
                ["id"],
                [("id", "integer"), ("x", "integer"), ("g", "text")],
                [[1, 10, "a"], [2, 20, "b"], [3, 30, "a"]],
            ),
            _table(
                "u", ["k"], [("k", "integer"), ("tid", "integer"), ("w", "text")], [[1, 1, "p"]]
            ),
            # Spider's car_1 shape: an integer key joined to a text column holding its digits
            _table(
                "countries",
                ["cid"],
                [("cid", "integer"), ("name", "text"), ("cont", "integer")],
                [[1, "usa", 1], [2, "france", 2]],
            ),
            _table(
                "makers", ["mid"], [("mid", "integer"), ("country", "text")], [[1, "1"], [2, "2"]]
            ),
        ],
    }
)

CJ = "FROM countries AS c JOIN makers AS m ON c.cid = m.country"
CL = "FROM countries AS c LEFT JOIN makers AS m ON c.cid = m.country"

PROVED = [  # (piece, dialect, source, neighbour): equal on every database, proved up to 3 rows
    (
        "having count over an inner join",
        "sqlite",
        "SELECT t.g, t.id FROM t JOIN u ON u.tid = t.id GROUP BY t.id HAVING COUNT(*) >= 1",
        "SELECT t.g, t.id FROM t JOIN u ON u.tid = t.id GROUP BY t.id HAVING COUNT(*) >= 0",
    ),
    (
        "dropped vacuous having",
        "duckdb",
        "SELECT t.id FROM t JOIN u ON u.tid = t.id GROUP BY t.id HAVING COUNT(*) >= 1",
        "SELECT t.id FROM t JOIN u ON u.tid = t.id GROUP BY t.id",
    ),
    (
        "integer column = text column",
        "sqlite",
        f"SELECT c.name, c.cid {CJ} GROUP BY c.cid HAVING COUNT(*) >= 1",
        f"SELECT c.name, c.cid {CJ} GROUP BY c.cid",
    ),
    (
        "distinct under order by limit 1",
        "sqlite",
        "SELECT x, g FROM t ORDER BY x DESC LIMIT 1",
        "SELECT DISTINCT x, g FROM t ORDER BY x DESC LIMIT 1",
    ),
    (
        "distinct under order by limit 1",
        "duckdb",
        "SELECT t.x, u.w FROM t JOIN u ON u.tid = t.id ORDER BY t.x DESC LIMIT 1",
        "SELECT DISTINCT t.x, u.w FROM t JOIN u ON u.tid = t.id ORDER BY t.x DESC LIMIT 1",
    ),
    (
        "a tie-break added under limit 1 (the source's ties are a pool)",
        "sqlite",
        "SELECT id FROM t ORDER BY x DESC LIMIT 1",
        "SELECT id FROM t ORDER BY x DESC, id LIMIT 1",
    ),
    (
        "left join under a null-rejecting where",
        "sqlite",
        "SELECT t.id, u.w FROM t JOIN u ON u.tid = t.id WHERE u.w = 'p'",
        "SELECT t.id, u.w FROM t LEFT JOIN u ON u.tid = t.id WHERE u.w = 'p'",
    ),
    (
        "left join under a having that counts the joined column",
        "duckdb",
        "SELECT t.id FROM t JOIN u ON u.tid = t.id GROUP BY t.id HAVING COUNT(u.k) >= 2",
        "SELECT t.id FROM t LEFT JOIN u ON u.tid = t.id GROUP BY t.id HAVING COUNT(u.k) >= 2",
    ),
    (  # spider_dev-0820's neighbour: SQLite reads "a", which names no column, as a string
        "min to max in groups of one row, under a double-quoted string",
        "sqlite",
        'SELECT t.id, MIN(t.x) FROM t WHERE t.g = "a" GROUP BY t.id',
        'SELECT t.id, MAX(t.x) FROM t WHERE t.g = "a" GROUP BY t.id',
    ),
]

KILLED = [  # (piece, dialect, source, near-twin that differs): a model the engine confirms
    (
        "having count over an inner join",
        "sqlite",
        "SELECT t.g, t.id FROM t JOIN u ON u.tid = t.id GROUP BY t.id HAVING COUNT(*) >= 1",
        "SELECT t.g, t.id FROM t JOIN u ON u.tid = t.id GROUP BY t.id HAVING COUNT(*) >= 2",
    ),
    (
        "integer column = text column",
        "sqlite",
        f"SELECT c.name, c.cid {CJ} GROUP BY c.cid HAVING COUNT(*) >= 1",
        f"SELECT c.name, c.cid {CJ} GROUP BY c.cid HAVING COUNT(*) >= 2",
    ),
    (  # spider_dev-0129's neighbour: two countries of one name, one without makers
        "left join where having counts the null-extended row",
        "sqlite",
        f"SELECT c.name {CJ} GROUP BY c.name HAVING COUNT(*) >= 2",
        f"SELECT c.name {CL} GROUP BY c.name HAVING COUNT(*) >= 2",
    ),
    (  # spider_dev-0129's other neighbour: grouped by the key instead of the name
        "group by another column",
        "sqlite",
        f"SELECT c.name {CJ} GROUP BY c.name HAVING COUNT(*) >= 2",
        f"SELECT c.name {CJ} GROUP BY c.cid HAVING COUNT(*) >= 2",
    ),
    (
        "left join under limit 1 (the inner join may be empty)",
        "sqlite",
        "SELECT t.id FROM t JOIN u ON u.tid = t.id ORDER BY u.k DESC LIMIT 1",
        "SELECT t.id FROM t LEFT JOIN u ON u.tid = t.id ORDER BY u.k DESC LIMIT 1",
    ),
    (
        "left join under a where that keeps null-extended rows",
        "duckdb",
        "SELECT t.id FROM t JOIN u ON u.tid = t.id WHERE u.w = 'p' OR u.w IS NULL",
        "SELECT t.id FROM t LEFT JOIN u ON u.tid = t.id WHERE u.w = 'p' OR u.w IS NULL",
    ),
    (
        "the tie-break dropped under limit 1 (its pick may fall outside the source's row)",
        "sqlite",
        "SELECT id FROM t ORDER BY x DESC, id LIMIT 1",
        "SELECT id FROM t ORDER BY x DESC LIMIT 1",
    ),
    (
        "direction under limit 1",
        "duckdb",
        "SELECT x, g FROM t ORDER BY x DESC LIMIT 1",
        "SELECT DISTINCT x, g FROM t ORDER BY x LIMIT 1",
    ),
    (  # spider_dev-0810's shape: a filter on a double-quoted string (was "not resolved")
        "distinct inside an aggregate under a double-quoted string",
        "sqlite",
        'SELECT SUM(x), AVG(x) FROM t WHERE g = "a"',
        'SELECT SUM(x), AVG(DISTINCT x) FROM t WHERE g = "a"',
    ),
]


def _verify(judge: Judge, dialect: str, source: str, neighbour: str):
    return engine_check(judge, FIXTURE, dialect, source, neighbour)


@pytest.mark.parametrize(("piece", "dialect", "source", "neighbour"), PROVED)
def test_equal_pair_proved(
    judge: Judge, piece: str, dialect: str, source: str, neighbour: str
) -> None:
    verify = _verify(judge, dialect, source, neighbour)
    assert not verify(FIXTURE)  # the fixture does not separate them either
    out = witness(source, neighbour, dialect, FIXTURE, verify, timeout_ms=BUDGET_MS)
    assert isinstance(out, BoundedEquivalent) and out.bound == 3, (piece, out)


@pytest.mark.parametrize(("piece", "dialect", "source", "neighbour"), KILLED)
def test_near_twin_not_proved_and_its_counterexample_checked(
    judge: Judge, piece: str, dialect: str, source: str, neighbour: str
) -> None:
    verify = _verify(judge, dialect, source, neighbour)
    out = witness(source, neighbour, dialect, FIXTURE, verify, timeout_ms=BUDGET_MS)
    assert isinstance(out, Killed), (piece, out)
    assert verify(out.fixture)  # the engine separates them on the model


def test_distinct_under_limit_2_not_proved() -> None:
    """Past LIMIT 1, DISTINCT drops a duplicate that the source keeps in its second place: the
    solver (tie-free databases only there) must not call it equal; the duplicate-holding
    database, built by hand, is the counterexample on the engine."""
    source = "SELECT x, g FROM t ORDER BY x DESC LIMIT 2"
    twin = "SELECT DISTINCT x, g FROM t ORDER BY x DESC LIMIT 2"
    out = witness(source, twin, "sqlite", FIXTURE, lambda db: True, timeout_ms=BUDGET_MS)
    assert isinstance(out, Unknown) and "ties" in out.reason, out
    rows = ((1, 30, "a"), (2, 30, "a"), (3, 10, "b"))
    tables = tuple(replace(t, rows=rows) if t.name == "t" else t for t in FIXTURE.tables)
    judge = Judge()
    try:
        assert _verify(judge, "sqlite", source, twin)(replace(FIXTURE, tables=tables))
    finally:
        judge.close()


NOT_ENCODED = [  # (source, neighbour, reason): SQLite conversions the encoder does not model
    (
        f"SELECT c.cid {CJ} WHERE m.country <> ' 1'",
        f"SELECT c.cid {CJ} WHERE m.country <> ' 2'",
        "text ' 1' compared with an integer column",
    ),
    (
        "SELECT c.cid FROM countries AS c JOIN makers AS m ON c.cid < m.country",
        "SELECT c.cid FROM countries AS c JOIN makers AS m ON c.cid <= m.country",
        "ordered against a text column",
    ),
]


@pytest.mark.parametrize(("source", "neighbour", "why"), NOT_ENCODED)
def test_integer_text_conversions_not_encoded_are_unsupported(
    source: str, neighbour: str, why: str
) -> None:
    out = witness(source, neighbour, "sqlite", FIXTURE, lambda db: True)
    assert isinstance(out, Unsupported) and why in out.reason, out


def test_integer_column_against_text_column_outside_sqlite_unsupported() -> None:
    out = witness(f"SELECT c.cid {CJ}", f"SELECT c.cid {CL}", "duckdb", FIXTURE, lambda db: True)
    assert isinstance(out, Unsupported) and "int compared with text" in out.reason, out


def test_bench_counts_in_sample_proofs_apart() -> None:
    """The leave-one-family-out table shows the neighbours the full build's solver proved
    bounded-equivalent in a column of their own (not among the neighbours or survivors), and
    lists the build's survivors with the solver's answer."""
    sys.path.insert(0, str(pathlib.Path(__file__).parents[2] / "scripts" / "bench"))
    import testsuite as bench

    families = {"SC.select": [10, 9, 8, 7, 1, 2]}
    run = {"seconds": 1.0, "dbs": 3, "judged": 0, "separated": 0, "survivors": ["SC.select x"]}
    table = bench.lofo_table(families, [run], "tiny")
    assert "| SC.select | 10 | 90.0% | 2 | 8 | 87.5% | 1 |" in table
    assert "Neighbours alive after the full build (1):" in table and "`SC.select x`" in table


def test_a_check_starved_of_cpu_runs_again_with_more_wall_time() -> None:
    """z3's timeout is wall-clock: a check that gave up (on a loaded machine) before spending
    its CPU budget runs again with twice the wall time, up to 8 times the budget (spider_dev
    0123's proof, 0.6 CPU-s, timed out at 2 s wall at load 15); one that spent it does not."""
    import z3

    from parrot.solver.core import _check

    class Starved:  # gives up at once until allowed 8 s of wall time
        def __init__(self) -> None:
            self.timeouts: list[int] = []

        def set(self, key: str, value: int) -> None:
            self.timeouts.append(value)

        def check(self) -> object:
            return z3.sat if self.timeouts[-1] >= 8000 else z3.unknown

    starved = Starved()
    assert _check(starved, 2000) == z3.sat and starved.timeouts == [2000, 4000, 8000]
    starved = Starved()
    assert _check(starved, 100) == z3.unknown and starved.timeouts == [100, 200, 400, 800]


@pytest.mark.parametrize(
    ("sql", "literal"),
    [
        ('SELECT x FROM t WHERE g = "a"', True),  # names no column: SQLite's string
        ('SELECT x FROM t WHERE g = "x"', False),  # names a column: a column
        ('SELECT x AS "n" FROM t ORDER BY "n"', False),  # an alias
        ("SELECT x FROM t WHERE g = `a`", False),  # only double quotes fall back to a string
    ],
)
def test_sqlite_double_quoted_names_read_as_sqlite_reads_them(sql: str, literal: bool) -> None:
    from sqlglot import exp

    from parrot.solver.parts import parse, sqlite_strings

    names = {c.name.lower() for t in FIXTURE.tables for c in t.columns}
    tree = sqlite_strings(parse(sql, "sqlite"), sql, names)
    assert any(isinstance(n, exp.Literal) and n.is_string for n in tree.walk()) is literal
