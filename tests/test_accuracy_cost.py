"""The leaderboard's accuracy-vs-cost plot: one point per run, strict Acc_RES with its interval
against the cost of a strictly-right item, in the first unit some run records (summaries and
records built by code)."""

from __future__ import annotations

from outcomes import outcome

from parrot.report.html import cost_points, leaderboard_page
from parrot.report.metrics import summarize


def _summary(right: int, n: int, latency: float | None) -> dict:
    records = [outcome(f"i{k}", k < right) for k in range(n)]
    for r in records:
        if latency is not None:
            r["translation"]["latency"] = latency
    return summarize(records)


def test_points_use_seconds_when_no_run_records_money() -> None:
    members = [
        ("runs/a", {}, _summary(6, 10, 2.0)),
        ("runs/b", {}, _summary(3, 10, None)),
        ("runs/c", {}, _summary(0, 10, 1.0)),
    ]
    points, unit, left = cost_points(members, ["runs/a", "runs/b", "runs/c"])
    assert unit == "seconds of translation"
    # a: 20 s of translation over 6 strictly-right items; its interval is the summary's
    assert points == [("a", 60.0, members[0][2]["overall"]["ci95"]["strict"], 3.3333)]  # 4 decimals
    assert left == ["runs/b", "runs/c"]  # b records no latency, c has no strictly-right item


def test_no_cost_recorded_means_no_plot() -> None:
    members = [("runs/a", {}, _summary(6, 10, None))]
    assert cost_points(members, ["runs/a"]) == ([], "", ["runs/a"])


def test_the_leaderboard_page_draws_the_plot() -> None:
    runs = []
    for name, right, latency in (("fast", 4, 0.5), ("slow", 8, 3.0)):
        records = [outcome(f"i{k}", k < right) for k in range(10)]
        for r in records:
            r["translation"]["latency"] = latency
        runs.append(
            (
                f"runs/{name}",
                {"dataset": {"sha256": "x", "name": "d"}, "translator": {"name": name}},
                records,
            )
        )
    page = leaderboard_page(runs, analysis=[])
    assert 'class="accuracy-cost"' in page and "<svg" in page
    assert "seconds of translation per strictly-right item" in page
