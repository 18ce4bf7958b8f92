"""parrot.report.stats: Wilson intervals against a hand-computed example, McNemar's exact test
against statsmodels on the same tables, and the paired bootstrap interval of a difference."""

import pytest
from outcomes import outcome
from rich.console import Console
from statsmodels.stats.contingency_tables import mcnemar

from parrot.report.metrics import score, summarize
from parrot.report.render import print_rich, summary_tables
from parrot.report.stats import mcnemar_exact, paired_difference, wilson


def test_wilson_matches_a_hand_computed_interval() -> None:
    # 3 of 10, z = 1.959964: centre (0.3 + z²/20) / (1 + z²/10) = 0.355507, half-width
    # z·sqrt(0.3·0.7/10 + z²/400) / (1 + z²/10) = 0.247715 → [0.107792, 0.603222]
    assert wilson(3, 10) == (10.78, 60.32)
    # 0 of 5: the lower bound is 0, the upper z²/(5 + z²) = 0.434482
    assert wilson(0, 5) == (0.0, 43.45)
    assert wilson(0, 0) is None


def _record(rid: str, match: bool) -> dict:
    return outcome(rid, match, tokens=5)


def test_every_accuracy_of_a_summary_has_its_wilson_interval() -> None:
    s = score([_record(str(i), i < 3) for i in range(10)])
    assert s["ci95"]["strict"] == [10.78, 60.32] and s["ci95"]["ex"] == [72.25, 100.0]
    assert s["ci95"]["ts"] is None and s["ci95"]["syn"] is None  # no denominator


# (right only in A, right only in B): McNemar's exact p-value as statsmodels computes it
MCNEMAR_TABLES = [(0, 0), (1, 0), (0, 5), (3, 3), (2, 9), (85, 0), (12, 20), (40, 61)]


@pytest.mark.parametrize(("broken", "fixed"), MCNEMAR_TABLES)
def test_mcnemar_exact_equals_statsmodels(broken: int, fixed: int) -> None:
    expected = mcnemar([[7, broken], [fixed, 4]], exact=True).pvalue
    assert mcnemar_exact(broken, fixed) == pytest.approx(expected, rel=1e-12, abs=1e-300)


def test_paired_bootstrap_is_seeded_and_covers_the_observed_difference() -> None:
    a = [True] * 30 + [False] * 20 + [True] * 5 + [False] * 45
    b = [True] * 30 + [False] * 20 + [False] * 5 + [True] * 45  # +40 points
    low, high = paired_difference(a, b)
    assert low < 40.0 < high and low > 0.0  # the runs differ: the interval excludes 0
    assert paired_difference(a, b) == (low, high)  # seeded: the same interval every time
    assert paired_difference([True, False], [True, False]) == (0.0, 0.0)  # no spread
    assert paired_difference([], []) is None
    with pytest.raises(ValueError, match="differ in length"):
        paired_difference([True], [])


def _priced(rid: str, match: bool, tokens: int | None, cost: float | None) -> dict:
    record = _record(rid, match)
    record["translation"] = {
        "status": "ok",
        "latency": 0.5,
        **({} if tokens is None else {"tokens_in": tokens, "tokens_out": 10}),
    }
    if cost is not None:
        record["translation"]["cost"] = cost
    return record


def test_cost_of_a_verified_translation_per_item_and_per_strictly_right_item() -> None:
    records = [
        _priced("a", True, 90, 0.002),
        _priced("b", False, 190, 0.004),
        _priced("c", True, 40, 0.0),
        _priced("d", False, 0, 0.002),
    ]
    cost = summarize(records)["verified_cost"]
    assert (cost["items"], cost["strict"]) == (4, 2)
    assert cost["total"] == {"tokens": 360.0, "cost": 0.008, "latency": 2.0}
    assert cost["per_item"] == {"tokens": 90.0, "cost": 0.002, "latency": 0.5}
    assert cost["per_strict"] == {"tokens": 180.0, "cost": 0.004, "latency": 1.0}
    (table,) = [t for t in summary_tables(summarize(records)) if t.title.startswith("Cost of")]
    assert table.rows == [
        ("item", 4, "90.0", "0.002000", "0.500"),
        ("strictly-right item", 2, "180.0", "0.004000", "1.000"),
    ]
    # a translator that counts no tokens and prices nothing: not recorded, never 0
    free = summarize([_priced("a", True, None, None), _priced("b", False, None, None)])
    assert free["verified_cost"]["per_strict"] == {"tokens": None, "cost": None, "latency": 1.0}
    assert summarize([_priced("a", False, 5, 0.1)])["verified_cost"]["per_strict"] == {
        "tokens": None,
        "cost": None,
        "latency": None,
    }  # no strictly-right item


def test_reliability_matrix_counts_construct_by_pair_with_wilson_intervals() -> None:
    records = []
    for n, (pair, match) in enumerate(
        [("sqlite→duckdb", True)] * 3 + [("sqlite→duckdb", False)] * 7 + [("duckdb→sqlite", True)]
    ):
        r = _record(f"i{n}", match)
        r["source_dialect"], r["target_dialect"] = pair.split("→")
        r["translation_types"], r["tags"] = ["function"], (["window"] if n % 2 else [])
        records.append(r)
    matrix = summarize(records)["reliability"]
    assert list(matrix) == ["type: function", "tag: window"]
    assert matrix["type: function"]["sqlite→duckdb"] == {
        "evaluated": 10,
        "strict": 3,
        "ci95": [10.78, 60.32],
    }  # the hand-computed example
    assert matrix["tag: window"]["sqlite→duckdb"]["strict"] == 1  # i1 of i1, i3, i5, i7, i9
    assert "duckdb→sqlite" not in matrix["tag: window"]  # i10: no judged item with the tag
    (table,) = [t for t in summary_tables(summarize(records)) if t.title.startswith("Reliab")]
    assert table.headers == ("construct", "duckdb→sqlite", "sqlite→duckdb")
    # shown to 1 decimal from the 2 decimals summary.json stores (20.65, 62.45)
    assert table.rows[0] == ("type: function", "1/1 [20.6–100.0]", "3/10 [10.8–60.3]")
    assert table.rows[1] == ("tag: window", "–", "1/5 [3.6–62.5]")
    console = Console(width=80, record=True)
    print_rich([table], console)
    assert console.export_text() == ""  # wider than a terminal: left to parrot report
