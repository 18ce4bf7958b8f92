"""Terminal tables stay readable at 80 columns: group labels and numbers are never cut; the
test-suite tables show Acc_RES and Acc_TS on their denominators and the items only a suite
separates."""

import pytest
from outcomes import outcome
from rich.console import Console

from parrot.report.metrics import score, summarize
from parrot.report.render import (
    SCORE_HEADERS,
    Table,
    _score_cells,
    print_rich,
    suite_tables,
    summary_tables,
)


def test_rich_tables_fit_80_columns_without_cutting_labels_or_numbers() -> None:
    rows = [
        (
            pair,
            155,
            0,
            155,
            0,
            "58.9",
            155,
            "49.6",
            155,
            75,
            3,
            "41.0",
            155,
            "49.6",
            "49.6",
            "49.6",
            155,
            "100.0",
            155,
            *["[41.8–57.4]"] * 7,
        )
        for pair in ("clickhouse→postgres", "databricks→snowflake", "sqlite→duckdb")
    ]
    console = Console(width=80, record=True)
    print_rich([Table("By dialect pair", SCORE_HEADERS, rows)], console)
    text = console.export_text()
    assert "…" not in text
    assert all(len(line) <= 80 for line in text.splitlines())
    for pair, *_ in rows:
        assert pair in text
    assert "By dialect pair (%)" in text and "100.0" in text
    assert "≠∅" not in text  # left to python -m parrot.report


def _record(rid: str, fixture: bool, suite: list[tuple[bool, str]] | None) -> dict:
    """An outcome record judged strict ``fixture`` on the fixture and, per suite database,
    (match, reason)."""
    record = outcome(rid, fixture) | {"gold": {"status": "ok", "rows": 3}}
    if suite is not None:
        dbs = [
            {"index": i, "seed": 10 + i, "match": ok, "reason": reason}
            | (
                {}
                if ok
                else {
                    "detail": f"{reason} on database {i}",
                    "cell": {"row": 0, "column": 1, "gold": {"decimal": "1.50"}, "pred": None},
                }
            )
            for i, (ok, reason) in enumerate(suite)
        ]
        failed = next((d["index"] for d in dbs if not d["match"]), None)
        record["suite"] = {
            "databases": dbs,
            "judged": len(dbs),
            "elapsed": 0.1,
            "match": fixture and failed is None,
            "first_failure": failed,
        }
    return record


# (records, Acc_RES rows: (passed, n), Acc_TS (passed, n), suite-only rows: (id, database, seed))
SUITE_CASES = [
    (
        [
            _record("a", True, [(True, "match")]),
            _record("b", True, [(True, "match"), (False, "value")]),
            _record("c", False, [(False, "row_count")]),
            _record("d", True, None),
        ],
        (3, 4),
        (1, 3),
        [("b", 1, 11)],
    ),
    ([_record("a", True, [(True, "match")])], (1, 1), (1, 1), []),
]


@pytest.mark.parametrize(("records", "res", "ts", "only"), SUITE_CASES)
def test_suite_tables_show_denominators_and_suite_only_failures(records, res, ts, only) -> None:
    tables = {t.title.split(" (")[0].split(":")[0]: t for t in suite_tables(summarize(records))}
    counts = {row[0]: row[1:3] for row in tables["Acc_RES and Acc_TS"].rows}
    assert counts["Acc_RES strict"] == res and counts["Acc_TS"] == ts
    assert counts["Acc_RES strict, items with a suite"][1] == ts[1]  # one denominator
    failed = tables.get("Passed on the fixture, failed on the suite", Table("", (), []))
    assert [(r[0], r[2], r[3]) for r in failed.rows] == only
    assert len(tables) == 1 + bool(only)  # an empty table is not shown at all
    for row in failed.rows:
        assert row[1] == "sqlite→duckdb" and row[4] == "value"
        assert row[5] == "row 0, column 1: 1.50 vs NULL"


def test_no_suite_tables_without_suites() -> None:
    assert suite_tables(summarize([_record("a", True, None)])) == []


def test_timeouts_are_counted_apart_from_wrong_answers() -> None:
    """A translation that timed out is not strictly right, like a wrong answer, but summary.json
    and the score tables (md/csv/json, report.html) count it apart (before: only the reasons
    table and the execution-status table said so)."""
    records = [
        _record("right", True, None),
        _record("wrong", False, None),
        _record("slow", False, None),
    ]
    records[2]["pred"] = {"status": "timeout"}
    records[2]["verdicts"] = {
        m: {"match": False, "reason": "timeout"} for m in ("strict", "normalized", "multiset")
    }
    summary = summarize(records)
    overall = summary["overall"]
    assert (overall["strict"], overall["wrong"], overall["timeout"]) == (1, 1, 1)
    assert summary["by_pair"]["sqlite→duckdb"]["timeout"] == 1
    table = summary_tables(summary)[0]
    row = dict(zip(table.headers, table.rows[0], strict=True))
    assert (row["wrong"], row["timeout"]) == (1, 1)
    assert "timed out" in table.note


def test_a_count_an_older_summary_lacks_shows_as_a_dash_not_as_zero() -> None:
    counts = ("no_reference", "ts_items", "nonempty", "syn_checked")
    current = score([])
    assert [_score_cells(dict(current))[c] for c in ("no ref", "TS n", "≠∅ n", "SYN n")] == [0] * 4
    older = {k: v for k, v in current.items() if k not in counts}
    assert [_score_cells(older)[c] for c in ("no ref", "TS n", "≠∅ n", "SYN n")] == ["–"] * 4
