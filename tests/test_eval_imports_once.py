"""What an eval run does not repeat or load early (issue 31): the report reads its sources'
features from the judge's parse, Wilson intervals are computed once per (hits, total) without
the test's p-value, a finished eval summarises its results once, and importing the eval CLI
loads no scipy (the run imports it in a thread while its engines work).
Counted calls and imported modules, never wall-clock."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import sqlglot

from parrot import sqlfacts
from parrot.api.results import MANIFEST, read_json, read_results
from parrot.eval.cli import main as eval_main
from parrot.report import features as features_mod
from parrot.report import metrics, stats
from parrot.report.html import run_page


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


def test_wilson_spares_the_tests_p_value_search(monkeypatch: pytest.MonkeyPatch) -> None:
    """binomtest's two-sided p-value (a binary search over the binomial pmf, ~1 ms a call) is
    not what the interval needs: testing the observed proportion skips it (issue 31: a
    summary asks for hundreds of intervals). The intervals are scipy's, unchanged."""
    scipy_stats = stats.load()
    grid = [(k, n) for n in range(1, 41) for k in range(n + 1)]
    expected = {
        (k, n): scipy_stats.binomtest(k, n).proportion_ci(0.95, method="wilson") for k, n in grid
    }
    calls = 0
    real = scipy_stats.binom.pmf

    def counting(*args: object, **kwargs: object) -> object:
        nonlocal calls
        calls += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(scipy_stats.binom, "pmf", counting)
    stats.wilson.cache_clear()
    got = {(k, n): stats.wilson(k, n) for k, n in grid}
    stats.wilson.cache_clear()
    assert calls < 1.2 * len(grid)  # one pmf a test (the search: several)
    for (k, n), ci in expected.items():
        assert got[(k, n)] == (round(100.0 * ci.low, 2), round(100.0 * ci.high, 2))


def test_a_finished_eval_summarises_its_results_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``parrot eval`` prints and renders the summary its run wrote to summary.json instead of
    computing it twice more (issue 31); the page is the one ``parrot report`` renders."""
    calls: list[int] = []
    real = metrics.summarize

    def counting(records: list, *args: object, **kwargs: object) -> object:
        calls.append(len(records))
        return real(records, *args, **kwargs)

    monkeypatch.setattr(metrics, "summarize", counting)
    out = tmp_path / "run"
    flags = ["--model", "sqlglot", "--pairs", "sqlite:duckdb", "--limit", "2", "--no-suite"]
    assert eval_main([*flags, "--output-dir", str(out)]) == 0
    assert calls == [2]
    page = (out / "report.html").read_text(encoding="utf-8")
    assert page == run_page(str(out), read_json(out / MANIFEST), read_results(out))
