import pytest

from parrot.report.metrics import MODES
from parrot.report.render import LEADERBOARD_HEADERS, leaderboards


def _record(item_id, ok=True, error=None):
    return {
        "id": item_id,
        "source_dialect": "sqlite",
        "target_dialect": "duckdb",
        "gold": {"status": "ok", "rows": 1},
        "pred": {"status": "ok", "rows": 1} if ok else None,
        "translation": {"status": "ok" if ok else "error", "error": error},
        "tokens": 5,
        "verdicts": {
            m: {"match": ok, "reason": "match" if ok else "translation_error"} for m in MODES
        },
    }


def _manifest(name, sha="a" * 64, limit=None):
    return {
        "translator": {"name": name},
        "dataset": {"name": "starter", "sha256": sha},
        "settings": {"limit": limit, "pairs": []},
    }


def test_a_limit_subset_is_never_ranked_against_the_full_set():
    full = [_record(f"i{n}", ok=n % 2 == 0) for n in range(10)]
    subset = [_record(f"i{n}") for n in range(0, 10, 2)]
    tables = leaderboards(
        [("full", _manifest("sqlglot"), full), ("sub", _manifest("llm", limit=5), subset)]
    )
    assert len(tables) == 2
    run = LEADERBOARD_HEADERS.index("run")
    by_run = {t.rows[0][run]: t for t in tables}
    assert all(len(t.rows) == 1 and t.rows[0][0] == 1 for t in tables)
    assert "subset: --limit 5" in by_run["sub"].title
    assert "subset" not in by_run["full"].title and "10 items" in by_run["full"].title


def test_runs_of_different_dataset_files_are_grouped_apart():
    records = [_record("i0")]
    tables = leaderboards(
        [
            ("one", _manifest("a"), records),
            ("two", _manifest("b", sha="b" * 64), records),
            ("three", _manifest("c"), records),
        ]
    )
    assert sorted(len(t.rows) for t in tables) == [1, 2]


def test_a_run_failed_by_one_configuration_error_is_flagged():
    broken = [_record(f"i{n}", ok=False, error="HTTP 500: Missing credentials") for n in range(3)]
    fine = [_record(f"i{n}") for n in range(3)]
    [table] = leaderboards([("broken", _manifest("llm"), broken), ("fine", _manifest("x"), fine)])
    run, flag = LEADERBOARD_HEADERS.index("run"), LEADERBOARD_HEADERS.index("flag")
    flags = {row[run]: row[flag] for row in table.rows}
    assert flags["broken"].startswith("config error: HTTP 500: Missing credentials")
    assert flags["fine"] == ""


def test_runs_judged_under_different_verdict_rules_are_grouped_apart():
    from parrot.compare import SEMANTICS_VERSION

    records = [_record("i0")]
    new = {**_manifest("a"), "comparator": SEMANTICS_VERSION}
    old = _manifest("b")  # a manifest from before the rules were versioned: version 1
    tables = leaderboards(
        [
            ("new", new, records),
            ("old", old, records),
            ("new2", {**new, "translator": {"name": "c"}}, records),
        ]
    )
    assert sorted(len(t.rows) for t in tables) == [1, 2]
    assert any(t.title.endswith("verdict rules v1") for t in tables)
    assert leaderboards([("a", new, records)])[0].title.endswith("1 items")


# (right per item in the better run, in the worse run, the mark the worse run gets)
VERSUS_CASES = [
    ("1111111100", "1111111000", "not significant: McNemar p=1 (1 right only above, 0 only here"),
    ("1" * 12 + "0" * 8, "0" * 20, "significant: McNemar p=0.000488 (12 right only above, 0 "),
]


@pytest.mark.parametrize(("better", "worse", "mark"), VERSUS_CASES)
def test_the_leaderboard_marks_a_difference_that_is_not_significant(better, worse, mark):
    runs = [
        (name, _manifest(name), [_record(f"i{n}", ok=c == "1") for n, c in enumerate(bits)])
        for name, bits in (("worse", worse), ("better", better))
    ]
    (table,) = leaderboards(runs)
    versus, run = LEADERBOARD_HEADERS.index("vs rank above"), LEADERBOARD_HEADERS.index("run")
    assert (table.rows[0][run], table.rows[0][versus]) == ("better", "–")
    assert table.rows[1][run] == "worse" and table.rows[1][versus].startswith(mark)
