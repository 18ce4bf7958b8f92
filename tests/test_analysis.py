"""parrot.report.analysis: κ, DRS, consistency, rank correlation and the failure taxonomy."""

from __future__ import annotations

from typing import Any

import pytest

from parrot.report.analysis import (
    Answer,
    accuracy,
    agreement,
    analysis_tables,
    by_annotation_source,
    cohen_kappa,
    consistency,
    drs,
    failure_class,
    judge_agreement,
    question_of,
    rank_correlation,
    taxonomy,
)


def rec(
    qid: str,
    target: str,
    match: bool,
    *,
    source: str = "sqlite",
    pred: str = "ok",
    reason: str | None = None,
    error: str = "",
    gold: str = "ok",
    translation: str = "ok",
) -> dict[str, Any]:
    verdict = {"match": match, "reason": reason or ("match" if match else "value")}
    return {
        "id": f"{qid}-{source}-{target}",
        "source_dialect": source,
        "target_dialect": target,
        "gold": {"status": gold},
        "translation": {"status": translation},
        "pred": None if translation != "ok" else {"status": pred, "error": error},
        "verdicts": {"strict": verdict},
    }


@pytest.mark.parametrize(
    ("a", "b", "kappa"),
    [
        (
            [1, 1, 0, 0, 1, 0, 1, 1, 0, 1],
            [1, 0, 0, 0, 1, 1, 1, 1, 0, 0],
            0.4,
        ),  # by hand: (.7-.5)/.5
        ([1, 0, 1, 0], [1, 0, 1, 0], 1.0),
        ([1, 0, 1, 0], [0, 1, 0, 1], -1.0),
        ([1, 1, 1], [1, 1, 1], 1.0),  # one label everywhere, full agreement
        ([1], [1], None),
    ],
)
def test_cohen_kappa(a, b, kappa):
    got = cohen_kappa([bool(x) for x in a], [bool(x) for x in b])
    assert got == pytest.approx(kappa) if kappa is not None else got is None


@pytest.mark.parametrize(
    ("acc", "score"),
    [
        ({"sqlite": (8, 10), "postgres": (6, 10), "mysql": (4, 10)}, 1 - (80 - 50) / 80),
        ({"sqlite": (5, 10), "postgres": (5, 10)}, 1.0),
        ({"sqlite": (0, 10), "postgres": (5, 10)}, None),  # no base accuracy to compare with
        ({"postgres": (5, 10)}, None),
    ],
)
def test_dialect_robustness_score(acc, score):
    got = drs(acc, "sqlite")
    assert got == pytest.approx(score) if score is not None else got is None


def test_question_of_strips_the_pair_suffix_and_keeps_the_source():
    assert (
        question_of(rec("starter-top-customers", "duckdb", True)) == "starter-top-customers@sqlite"
    )
    assert question_of({**rec("x", "duckdb", True), "question_id": "q7"}) == "q7"


def test_consistency_and_agreement():
    answers = [
        Answer("q1", "sqlite", True),
        Answer("q1", "duckdb", True),
        Answer("q1", "postgres", True),
        Answer("q2", "sqlite", True),
        Answer("q2", "duckdb", False),
        Answer("q2", "postgres", True),
        Answer("q3", "sqlite", False),
        Answer("q3", "duckdb", False),
        Answer("q3", "postgres", True),
        Answer("q4", "sqlite", True),
    ]  # judged in one dialect only: not counted
    c = consistency(answers, "sqlite")
    assert (c.questions, c.dialects, c.base_right) == (3, 3, 2)
    assert c.mean_correct == pytest.approx(6 / 3)
    assert c.all_correct == pytest.approx(100 / 3)
    assert c.base_to_rest == pytest.approx(50.0)
    agree = agreement(answers, "sqlite")
    assert agree["duckdb"] == (
        3,
        pytest.approx(cohen_kappa([True, True, False], [True, False, False])),
    )
    assert accuracy(answers)["sqlite"] == (3, 4)


def test_rank_correlation_needs_three_runs():
    runs = {
        "a": {"sqlite": (9, 10), "pg": (8, 10)},
        "b": {"sqlite": (7, 10), "pg": (6, 10)},
        "c": {"sqlite": (5, 10), "pg": (7, 10)},
    }
    n, rho, r = rank_correlation(runs, "sqlite")["pg"]
    # by hand: x = 90, 70, 50; y = 80, 60, 70; cov = 200, |x| = √800, |y| = √200 → r = 0.5;
    # ranks x = 3, 2, 1; y = 3, 1, 2 → ρ = 1 − 6·(0 + 1 + 1)/(3·8) = 0.5
    assert n == 3 and rho == pytest.approx(0.5) and r == pytest.approx(0.5)
    assert rank_correlation({k: runs[k] for k in "ab"}, "sqlite")["pg"][1:] == (None, None)


@pytest.mark.parametrize(
    ("record", "label"),
    [
        (rec("q", "pg", False, translation="unparseable"), "no_sql"),
        (rec("q", "pg", False, pred="syntax_error"), "syntax"),
        (
            rec("q", "pg", False, pred="runtime_error", error='column "x" does not exist'),
            "schema_type",
        ),
        (rec("q", "pg", False, pred="runtime_error", error="division by zero"), "runtime"),
        (rec("q", "pg", False, pred="timeout"), "resource"),
        (rec("q", "pg", False, reason="column_count"), "projection"),
        (rec("q", "pg", False, reason="order"), "ordering"),
        (rec("q", "pg", False, reason="precision"), "formatting_precision"),
        (rec("q", "pg", False, reason="row_count"), "filtering_logic"),
        (rec("q", "pg", False, reason="whitespace"), "formatting_precision"),
        (rec("q", "pg", False, pred="too_large"), "resource"),
    ],
)
def test_failure_class(record, label):
    assert failure_class(record) == label


def test_taxonomy_counts_only_failures_the_dialect_shift_caused():
    records = [
        rec("q1", "sqlite", True, source="duckdb"),
        rec("q1", "postgres", False, source="duckdb", reason="order"),
        rec("q2", "sqlite", False, source="duckdb"),
        rec("q2", "postgres", False, source="duckdb"),  # wrong in the base too
        rec("q3", "sqlite", True, source="duckdb"),
        rec("q3", "postgres", False, source="duckdb", pred="no_engine"),
    ]  # not judged
    assert taxonomy(records, "sqlite") == {"postgres": {"ordering": 1}}


def test_tables_only_for_runs_with_several_dialects_per_question():
    single = [rec("q1", "postgres", True), rec("q2", "postgres", False)]
    assert analysis_tables([("run", single)]) == []
    multi = [
        *single,
        rec("q1", "sqlite", True, source="duckdb"),
        rec("q1", "postgres", False, source="duckdb"),
    ]
    titles = [t.title for t in analysis_tables([("run", multi)])]
    assert titles[0].startswith("By target dialect") and "Cross-dialect consistency" in titles


def test_the_tables_hold_the_hand_computed_numbers():
    # q1: right in sqlite, duckdb, pg; q2: right in sqlite and pg, wrong in duckdb (rows);
    # q3: wrong in sqlite, right in duckdb and pg; q4: right in sqlite, wrong in duckdb (order)
    marks = {"q1": (1, 1, 1), "q2": (1, 0, 1), "q3": (0, 1, 1), "q4": (1, 0, 1)}
    records = [
        rec(q, d, bool(m), source="mysql", reason=None if m or q != "q4" else "order")
        for q, ms in marks.items()
        for d, m in zip(("sqlite", "duckdb", "pg"), ms, strict=True)
    ]
    tables = {t.title.split(" (")[0]: t for t in analysis_tables([("run", records)])}
    by_dialect = {row[0]: row for row in tables["By target dialect"].rows}
    # sqlite 3/4 = 75 %, duckdb 2/4 = 50 % (drop 25), pg 4/4 = 100 % (drop −25)
    assert by_dialect["duckdb"][:4] == ("duckdb", 4, "50.0", "25.0")
    assert by_dialect["pg"][:4] == ("pg", 4, "100.0", "-25.0")
    # κ(sqlite, duckdb) over (1,1),(1,0),(0,1),(1,0): po = 1/4, pe = 3/4·2/4 + 1/4·2/4 = 1/2
    assert by_dialect["duckdb"][4:] == (4, "-0.50")
    # pg is right everywhere: pe = 3/4 = po → κ = 0
    assert by_dialect["pg"][4:] == (4, "0.00")
    # mean correct (3 + 2 + 2 + 2)/4 = 2.25; All-N 1/4; base right 3, of them right in the rest
    # 1 (q1) → 33.3 %; DRS = 1 − (75 − (50 + 100)/2)/75 = 1.0
    assert tables["Cross-dialect consistency"].rows == [(4, 3, "2.25", "25.0", 3, "33.3", "1.000")]
    # right in sqlite, wrong in duckdb: q2 (rows, no gold → filtering_logic) and q4 (order)
    tax = tables["Failures caused by the dialect shift"]
    header = tax.headers
    row = dict(zip(header, tax.rows[0], strict=True))
    assert (row["dialect"], row["n"], row["filtering_logic"], row["ordering"]) == (
        "duckdb",
        2,
        1,
        1,
    )


def test_accuracy_by_annotation_source():
    records = [
        {**rec("q1", "pg", True), "annotation_source": "tool"},
        {**rec("q2", "pg", False), "annotation_source": "tool"},
        {**rec("q3", "pg", False), "annotation_source": "rule"},
        {**rec("q4", "pg", False), "tags": ["gold:unaligned"]},
        {**rec("q5", "pg", False, gold="runtime_error"), "annotation_source": "rule"},
    ]
    assert by_annotation_source(records) == {
        ("rule", "pg"): (0, 1),
        ("tool", "pg"): (1, 2),
        ("unaligned", "pg"): (0, 1),
    }


def test_judge_agreement_counts_the_labels_equal_to_the_rules():
    labels = [
        {"dialect": "pg", "rule": "ordering", "judge": {"label": "ordering"}},
        {"dialect": "pg", "rule": "ordering", "judge": {"label": "filtering_logic"}},
        {"dialect": "pg", "rule": "syntax", "judge": {"label": None}},  # not counted
        {"dialect": "mysql", "rule": "syntax"},
    ]  # no judge
    assert judge_agreement(labels) == {"pg": (2, {"ordering": 1, "filtering_logic": 1}, 1)}
