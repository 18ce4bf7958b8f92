"""Numbers that do not mislead: an item with no reference in its dialect is ``no_reference``
(counted apart, in no denominator), a share is rounded once from its counts, and every headline
card names its own denominator and subset."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from eval_runs import run_eval
from outcomes import outcome

from parrot.api.results import read_results
from parrot.report.html import headline
from parrot.report.metrics import share, summarize
from parrot.report.render import SCORE_HEADERS, render, summary_tables


def _dataset(tmp_path: Path) -> Path:
    """Two text-to-SQL-like items: one with a reference in its target dialect, one without."""
    lines = [
        {
            "id": "q1-duckdb",
            "source_dialect": "sqlite",
            "target_dialect": "duckdb",
            "source_sql": "SELECT 1 AS x",
            "reference_sql": "SELECT 1 AS x",
        },
        {
            "id": "q2-duckdb",
            "source_dialect": "sqlite",
            "target_dialect": "duckdb",
            "source_sql": "SELECT 2 AS x",
        },
        {  # a grammar-only target: no engine, and no reference to parse either
            "id": "q2-oracle",
            "source_dialect": "sqlite",
            "target_dialect": "oracle",
            "source_sql": "SELECT 2 AS x",
        },
    ]
    path = tmp_path / "items.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def test_reference_without_a_reference_is_no_reference_not_a_failure(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dataset = _dataset(tmp_path)
    assert run_eval(tmp_path / "run", "--model", "reference", "--dataset", str(dataset)) == 0
    records = {r["id"]: r for r in read_results(tmp_path / "run")}
    assert records["q2-duckdb"].get("no_reference") is True
    assert "no_reference" not in records["q1-duckdb"]
    assert "syntax" not in records["q2-duckdb"]  # nothing to check either
    assert "syntax" not in records["q2-oracle"]  # was Acc_SYN 0/1: a missing SQL "failed"
    overall = json.loads((tmp_path / "run" / "summary.json").read_text())["overall"]
    assert (
        overall["items"],
        overall["no_reference"],
        overall["evaluated"],
        overall["ex_items"],
        overall["acc_strict"],
        overall["acc_ex"],
    ) == (3, 1, 1, 1, 100.0, 100.0)
    assert (overall["no_engine"], overall["syn_checked"]) == (1, 0)
    row = dict(
        zip(
            SCORE_HEADERS,
            summary_tables({**summarize(list(records.values()))})[0].rows[0],
            strict=True,
        )
    )
    assert (row["no ref"], row["RES n"], row["strict %"]) == (1, 1, "100.0")


def _record(rid: str, match: bool) -> dict:
    record = outcome(rid, match)
    record["suite"] = {
        "databases": [],
        "judged": 0,
        "elapsed": 0.0,
        "match": match,
        "first_failure": None,
    }
    return record


def test_a_share_is_rounded_once_from_its_counts() -> None:
    """210/438 = 47.945…: rounded to 47.95 first, it printed as 48.0 in the tables and 47.9
    where the counts were used directly."""
    assert share(210, 438) == 47.9 and share(0, 0) is None
    records = [_record(str(i), i < 210) for i in range(438)]
    summary = summarize(records)
    assert summary["overall"]["acc_strict"] == 47.9
    text = render(summary_tables(summary), "md")
    assert "47.9" in text and "48.0" not in text and "47.95" not in text
    cards = {m.key: m for m in headline(summary["overall"])}
    assert cards["acc_strict"].value == 47.9


def test_every_card_names_its_own_denominator_and_subset() -> None:
    """Acc_EX counts the translations that could run (ex_items), not the items judged on both
    engines; Acc_SYN's subset is another one and says so."""
    overall = {
        "items": 10,
        "gold_error": 0,
        "no_engine": 4,
        "no_reference": 0,
        "evaluated": 4,
        "nonempty": 4,
        "ex_items": 6,
        "ex": 5,
        "acc_ex": share(5, 6),
        "strict": 3,
        "acc_strict": 75.0,
        "normalized": 3,
        "acc_normalized": 75.0,
        "multiset": 3,
        "acc_multiset": 75.0,
        "strict_nonempty": 3,
        "acc_strict_nonempty": 75.0,
        "ts_items": 0,
        "ts": 0,
        "acc_ts": None,
        "ts_strict": 0,
        "syn_checked": 5,
        "syn": 4,
        "acc_syn": 80.0,
    }
    cards = {m.key: m for m in headline(overall)}
    assert (cards["acc_ex"].hits, cards["acc_ex"].total) == (5, 6)
    assert (cards["acc_syn"].hits, cards["acc_syn"].total) == (4, 5)
    assert "another subset" in cards["acc_syn"].subset
    assert all(m.subset for m in cards.values())
    assert len({cards[k].subset for k in ("acc_ex", "acc_strict", "acc_syn")}) == 3
