"""Statistics on accuracies, computed by scipy (never by hand): Wilson intervals of a proportion,
McNemar's exact test of two paired runs and a paired bootstrap interval of their difference.

Every figure is in percent (points for a difference), like the accuracies of
:mod:`parrot.report.metrics`.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any

CONFIDENCE = 0.95  # every interval parrot reports
BOOTSTRAP_RESAMPLES = 9999
BOOTSTRAP_SEED = 0  # a paired bootstrap is reproducible: the same runs give the same interval
ALPHA = 0.05  # significance level of McNemar's test (the leaderboard's marks, --fail-on-regression)


def load() -> Any:
    """``scipy.stats``, imported on first use (about a CPU-second): a run imports it in a
    thread of its own while its engines work (:func:`parrot.eval.runner.run`)."""
    # deferred: scipy (loaded only when a figure is computed, not by importing the report)
    import scipy.stats

    return scipy.stats


@lru_cache(maxsize=4096)  # a report asks the same few (hits, total) of many cells
def wilson(hits: int, total: int) -> tuple[float, float] | None:
    """The 95% Wilson score interval of ``hits``/``total`` in percent, rounded to 2 decimals as
    the accuracies are (None without a denominator)."""
    if total <= 0:
        return None
    # the interval depends on hits and total only, not on the test's hypothesised proportion;
    # testing the observed one (p = hits/total) spares binomtest its two-sided p-value search
    # (~1 ms a call, thousands of cells in a summary), which nothing here reads
    test = load().binomtest(hits, total, p=hits / total)
    ci = test.proportion_ci(confidence_level=CONFIDENCE, method="wilson")
    return round(100.0 * float(ci.low), 2), round(100.0 * float(ci.high), 2)


def mcnemar_exact(broken: int, fixed: int) -> float:
    """Two-sided p-value of McNemar's exact test on the discordant pairs (``broken``: right in A,
    wrong in B; ``fixed``: the reverse): the binomial test of ``fixed`` among ``broken + fixed``
    at 1/2. 1.0 when no pair is discordant."""
    if broken + fixed == 0:
        return 1.0
    return float(load().binomtest(fixed, broken + fixed, 0.5).pvalue)


def paired_difference(a: Sequence[bool], b: Sequence[bool]) -> tuple[float, float] | None:
    """The 95% paired bootstrap (percentile, seeded) interval of accuracy(B) − accuracy(A) in
    points, over items judged in both runs (``a[i]``, ``b[i]``: item i right in A, in B); None
    without items. When every item has the same difference the interval is that difference."""
    if len(a) != len(b):
        raise ValueError(f"paired samples differ in length: {len(a)} and {len(b)}")
    if not a:
        return None
    # deferred: numpy (loaded only when a paired interval is computed)
    import numpy as np

    diff = np.asarray(b, dtype=float) - np.asarray(a, dtype=float)
    if np.all(diff == diff[0]):  # no spread: every resample is the same (scipy would warn)
        return round(100.0 * diff[0], 2), round(100.0 * diff[0], 2)
    res = load().bootstrap(
        (np.asarray(a, dtype=float), np.asarray(b, dtype=float)),
        lambda x, y, axis=-1: np.mean(y, axis=axis) - np.mean(x, axis=axis),
        paired=True,
        vectorized=True,
        confidence_level=CONFIDENCE,
        n_resamples=BOOTSTRAP_RESAMPLES,
        method="percentile",
        rng=np.random.default_rng(BOOTSTRAP_SEED),
    )
    ci = res.confidence_interval
    return round(100.0 * float(ci.low), 2), round(100.0 * float(ci.high), 2)


def significant(broken: int, fixed: int, alpha: float = ALPHA) -> bool:
    """McNemar's exact test rejects "the two runs are equally accurate" at ``alpha``."""
    return mcnemar_exact(broken, fixed) < alpha


def interval_text(ci: Sequence[float] | None) -> str:
    """``[38.1–52.0]`` (``–`` without a denominator)."""
    return "–" if ci is None else f"[{ci[0]:.1f}–{ci[1]:.1f}]"
