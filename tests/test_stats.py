"""parrot.report.stats: Wilson intervals against a hand-computed example, McNemar's exact test
against statsmodels on the same tables, and the paired bootstrap interval of a difference."""

import pytest
from statsmodels.stats.contingency_tables import mcnemar

from parrot.report.metrics import score
from parrot.report.stats import mcnemar_exact, paired_difference, wilson


def test_wilson_matches_a_hand_computed_interval() -> None:
    # 3 of 10, z = 1.959964: centre (0.3 + z²/20) / (1 + z²/10) = 0.355507, half-width
    # z·sqrt(0.3·0.7/10 + z²/400) / (1 + z²/10) = 0.247715 → [0.107792, 0.603222]
    assert wilson(3, 10) == (10.78, 60.32)
    # 0 of 5: the lower bound is 0, the upper z²/(5 + z²) = 0.434482
    assert wilson(0, 5) == (0.0, 43.45)
    assert wilson(0, 0) is None


def _record(rid: str, match: bool) -> dict:
    return {
        "id": rid,
        "source_dialect": "sqlite",
        "target_dialect": "duckdb",
        "gold": {"status": "ok", "rows": 1},
        "pred": {"status": "ok"},
        "translation": {"status": "ok"},
        "tokens": 5,
        "verdicts": {
            m: {"match": match, "reason": "match" if match else "value"}
            for m in ("strict", "normalized", "multiset")
        },
    }


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
