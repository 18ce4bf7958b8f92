"""What an eval run does not repeat or load early (issue 31): the report reads its sources'
features from the judge's parse, Wilson intervals are computed once per (hits, total), and
importing the eval CLI loads no scipy (the run imports it in a thread while its engines work).
Counted calls and imported modules, never wall-clock."""

from __future__ import annotations

import subprocess
import sys

import pytest
import sqlglot

from parrot import sqlfacts
from parrot.report import features as features_mod
from parrot.report import stats


def test_features_reuse_the_parse_the_judge_made(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    real = sqlglot.parse

    def counting(sql: str, *args: object, **kwargs: object) -> object:
        calls.append(sql)
        return real(sql, *args, **kwargs)

    monkeypatch.setattr(sqlglot, "parse", counting)
    sql = "SELECT a, COUNT(*) FROM t_issue31 GROUP BY a ORDER BY a LIMIT 3"
    sqlfacts.order_facts(sql, "duckdb")  # the judge reads the source's ordering
    sqlfacts.without_limit(sql, "duckdb")
    assert features_mod.features(sql, "duckdb") == ("aggregate", "GROUP BY", "ORDER BY … LIMIT")
    assert calls == [sql]  # one parse of the text for the facts and the report's features


def test_features_of_an_unparsable_source_are_none() -> None:
    assert features_mod.features("SELECT FROM WHERE (((", "sqlite") == ()


def test_wilson_is_computed_once_per_count(monkeypatch: pytest.MonkeyPatch) -> None:
    scipy_stats = stats.load()
    calls: list[tuple[int, int]] = []
    real = scipy_stats.binomtest

    def counting(k: int, n: int, *args: object, **kwargs: object) -> object:
        calls.append((k, n))
        return real(k, n, *args, **kwargs)

    monkeypatch.setattr(scipy_stats, "binomtest", counting)
    stats.wilson.cache_clear()
    first = stats.wilson(7, 31)
    assert [stats.wilson(7, 31) for _ in range(5)] == [first] * 5
    assert calls == [(7, 31)]
    assert stats.wilson(0, 0) is None


def test_importing_the_eval_cli_loads_no_scipy() -> None:
    code = (
        "import sys, parrot.eval.cli, parrot.eval.runner, parrot.report.metrics\n"
        "print(sorted(m for m in ('scipy', 'numpy') if m in sys.modules))\n"
        "parrot.eval.runner._load_summary()\n"
        "print('scipy.stats' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.split("\n")
    assert out[0] == "[]"  # nothing on import: the run's import thread loads it
    assert out[1] == "True"  # ... and that thread loads all the summary needs
