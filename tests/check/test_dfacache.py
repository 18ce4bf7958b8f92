"""The grammars' prediction cache (DFA) kept between processes: same verdicts, warm start."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# (dialect, statements: valid ones and ones the grammar rejects)
CASES = [
    (
        "duckdb",
        [
            "SELECT a, COUNT(*) FROM t WHERE b > 1 GROUP BY a ORDER BY 2 DESC LIMIT 3",
            "SELECT list_transform([1, 2], x -> x + 1), t.* EXCLUDE (b) FROM t",
            "SELECT FROM WHERE",
            "SELECT (1 + FROM t",
        ],
    ),
    (
        "clickhouse",
        [
            "SELECT arrayMap(x -> x * 2, [1, 2]) AS m, toInt32(a) FROM t FINAL",
            "WITH q AS (SELECT 1 AS x) SELECT x FROM q SETTINGS max_threads = 1",
            "SELECT a FROM t GROUP BY",
            "SELECT CAST(a AS) FROM t",
        ],
    ),
    (
        "sqlite",
        [
            "SELECT a || 'x', IFNULL(b, 0) FROM t LEFT JOIN u USING (id) LIMIT 2 OFFSET 1",
            "SELECT a FROM t WHERE a IN (SELECT b FROM u) AND NOT EXISTS (SELECT 1)",
            "SELECT a FROM t LIMIT",
            "SELECT * FROM t WHERE (a = 1",
        ],
    ),
]

SCRIPT = """
import importlib, json, sys
def _has_configs(state):
    try:
        object.__getattribute__(state, "configs")
    except AttributeError:
        return False
    return True
from parrot.check import check_sql, dfacache, grammar_for
from parrot.check.parsers import checker, persist
dialect, statements, damage = sys.argv[1], json.loads(sys.argv[2]), sys.argv[3] == "1"
if sys.argv[4] != "1":  # as if parrot shipped no seed
    dfacache.SEED_DIR = dfacache.SEED_DIR / "absent"
grammar = grammar_for(dialect)
parser_cls = getattr(importlib.import_module(
    f"parrot.check.generated.{grammar.lower()}.{grammar}Parser"), f"{grammar}Parser")
if damage:  # garbage where the kept DFA was, before the checker loads it
    dfacache.cache_file(parser_cls).write_bytes(b"not a dfa")
checker(dialect)
states = dfacache.state_count(parser_cls)
loaded = states > 0  # checker() loaded what an earlier run kept
verdicts = [[(v.ok, v.line, v.column, v.token, v.message) for v in check_sql(s, dialect)]
            for s in statements]
pending = sum(getattr(d, "pending", None) is not None for d in parser_cls.decisionsToDFA)
reached = [d for d in parser_cls.decisionsToDFA if getattr(d, "unlisted", None) is not None]
tables = sum(isinstance(d, dfacache._LazyDFA) and d.pending is None and d.unlisted is None
             for d in parser_cls.decisionsToDFA)  # decisions whose table of states was built
unbuilt = sum(not _has_configs(s) for d in reached for s, _ in d.unlisted)  # sets not rebuilt
persist()
print(json.dumps({"loaded": loaded, "verdicts": verdicts, "states": states, "pending": pending,
                  "tables": tables, "unbuilt": unbuilt,
                  "saved": dfacache.state_count(parser_cls),
                  "kept": dfacache.cache_file(parser_cls).is_file()}))
"""


def _run(
    tmp_path: Path, dialect: str, statements: list[str], damage: bool = False, seed: bool = False
) -> dict:
    env = {**os.environ, "PARROT_CACHE": str(tmp_path), "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            SCRIPT,
            dialect,
            json.dumps(statements),
            "1" if damage else "0",
            "1" if seed else "0",
        ],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout)


@pytest.mark.parametrize(("dialect", "statements"), CASES, ids=[c[0] for c in CASES])
def test_a_kept_dfa_starts_the_next_process_warm_with_the_same_verdicts(
    tmp_path: Path, dialect: str, statements: list[str]
) -> None:
    cold = _run(tmp_path, dialect, statements)
    warm = _run(tmp_path, dialect, statements)
    assert not cold["loaded"] and cold["kept"]
    assert warm["loaded"]
    assert warm["verdicts"] == cold["verdicts"]
    # the kept states are all counted at load, but only the decisions the statements reach are
    # rebuilt: most of the cache stays data until a statement needs it
    assert warm["states"] == cold["saved"] and warm["pending"] > 0
    # a statement whose predictions are all kept follows the kept edges: no decision's table of
    # states is built and most states' configuration sets stay data (issue 31: rebuilding them
    # was 2.4 of the 2.5 CPU-s of a starter run's first DuckDB check)
    assert warm["tables"] == 0 and warm["unbuilt"] > 0
    assert [all(ok for ok, *_ in v) for v in cold["verdicts"]] == [True, True, False, False]


def test_a_damaged_kept_file_is_ignored_and_parsing_warms_as_usual(tmp_path: Path) -> None:
    dialect, statements = CASES[0]
    cold = _run(tmp_path, dialect, statements)
    damaged = _run(tmp_path, dialect, statements, damage=True)
    assert not damaged["loaded"]
    assert damaged["verdicts"] == cold["verdicts"]


def test_a_first_run_starts_from_the_shipped_seed_with_the_same_verdicts(tmp_path: Path) -> None:
    dialect, statements = CASES[0]
    seeded = _run(tmp_path / "seeded", dialect, statements, seed=True)
    cold = _run(tmp_path / "cold", dialect, statements)
    assert seeded["loaded"] and not cold["loaded"]
    assert seeded["verdicts"] == cold["verdicts"]


def test_every_grammar_ships_a_seed_for_its_current_parser() -> None:
    """A regenerated parser changes the key: rebuild with scripts/build_dfa_seed.py."""
    import importlib

    from parrot.check import dfacache
    from parrot.check.parsers import GRAMMAR_OF

    for grammar in sorted(set(GRAMMAR_OF.values())):
        parser_cls = getattr(
            importlib.import_module(f"parrot.check.generated.{grammar.lower()}.{grammar}Parser"),
            f"{grammar}Parser",
        )
        assert dfacache.seed_file(parser_cls).is_file(), grammar


def test_preloaded_grammars_are_the_checkers_used_and_give_the_same_verdicts() -> None:
    from parrot.check import check_sql
    from parrot.check.parsers import _PRELOADING, checker, preload

    # an earlier test in the same process may have preloaded some of these already (an eval
    # with Acc_SYN does): only the threads this call starts are counted
    before = dict(_PRELOADING)
    preload(["sqlite", "duckdb", "spark"])
    threads = {_PRELOADING[g] for g in ("Sqlite", "Duckdb", "Spark")}
    started = {t for g, t in _PRELOADING.items() if before.get(g) is not t}
    assert len(started) <= 1  # one background thread for the grammars not loaded before
    assert started <= threads
    assert checker("sqlite") is checker("sqlite")
    for dialect in ("duckdb", "spark"):
        checker(dialect)
    assert not any(t.is_alive() for t in threads)  # checker() waited for the load
    assert [v.ok for v in check_sql("SELECT 1; SELECT FROM", "sqlite")] == [True, False]
