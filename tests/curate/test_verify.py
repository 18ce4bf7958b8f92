"""Type filter, semantic verification on generated data, the review queue, serialisation."""

from __future__ import annotations

import hashlib
import json
from contextlib import closing
from pathlib import Path

import pytest

from parrot.curate.classify import Classify
from parrot.curate.review import import_fixes, read_review
from parrot.curate.select import TypeFilter
from parrot.curate.serialise import write_dataset, write_review
from parrot.curate.stages import Candidate, LocalExecutor, Record, run_pipeline
from parrot.curate.verify import TestData, Verify
from parrot.datasets import load_dataset
from parrot.eval.judge import Judge
from parrot.translators.base import Translation, TranslationStatus

SQLGLOT = "sqlglot"
# SQLite divides integers as integers; DuckDB's "/" is a float division
DIVISION = "SELECT a / b AS q FROM t WHERE a > 3"


def _pair(sql: str, *candidates: str, target: str = "duckdb") -> Record:
    key = hashlib.sha256(f"{sql}|{target}".encode()).hexdigest()[:8]
    return Record(
        id=f"p{key}",
        dialect="sqlite",
        sql=sql,
        target=target,
        candidates=tuple(Candidate(c, SQLGLOT, "tool") for c in candidates),
    )


def _verify(*records: Record, review: bool = True) -> tuple[list[Record], list[dict]]:
    stages = [TestData(rounds=5, seed=1), Verify(review=review)]
    kept, _, routed = run_pipeline(list(records), stages, LocalExecutor(1))
    return kept, routed


def test_a_wrong_candidate_is_exposed_and_routed_to_review() -> None:
    kept, routed = _verify(_pair(DIVISION, "SELECT a / b AS q FROM t WHERE a > 3"))
    assert kept == []
    assert len(routed) == 1 and routed[0]["candidates"][0]["reason"] in ("value", "precision")


def test_right_candidates_are_kept_as_references_in_order() -> None:
    right = "SELECT a // b AS q FROM t WHERE a > 3"
    also_right = "SELECT CAST(TRUNC(a / b) AS BIGINT) AS q FROM t WHERE a > 3"
    wrong = "SELECT a / b AS q FROM t WHERE a > 3"
    kept, routed = _verify(_pair(DIVISION, wrong, right, also_right))
    assert not routed
    assert [c.sql for c in kept[0].references] == [right, also_right]
    assert kept[0].info["rejected"][0]["candidate"] == wrong


def test_type_filter_drops_what_needs_no_translation() -> None:
    same = _pair("SELECT name, n + 1 AS m FROM t WHERE n > 2")
    different = _pair(DIVISION)
    stages = [TestData(rounds=3, seed=0), TypeFilter(5.0, 1000)]
    kept, funnel, _ = run_pipeline([same, different], stages, LocalExecutor(1))
    assert [r.id for r in kept] == [different.id]
    assert funnel[-1].dropped == {"already_valid": 1}


def test_dataset_written_scores_100_with_the_reference(tmp_path: Path) -> None:
    right = "SELECT a // b AS q FROM t WHERE a > 3"
    kept, _ = _verify(_pair(DIVISION, right), _pair("SELECT 7 / 2 AS x", "SELECT 7 // 2 AS x"))
    kept = Classify().map(kept).records
    assert write_dataset(tmp_path, "t", kept) == (2, 1)
    dataset = load_dataset(str(tmp_path))
    judge = Judge()
    for item in dataset.items:
        assert item.annotation_source == "tool" and item.translation_types
        record = judge.judge(item, Translation(TranslationStatus.OK, sql=item.reference_sql[0]))
        assert record["verdicts"]["strict"]["match"], record
    judge.close()


def test_review_round_trip(tmp_path: Path) -> None:
    (tmp_path / "items.jsonl").write_text("")
    _, routed = _verify(_pair(DIVISION, "SELECT a / b AS q FROM t WHERE a > 3"))
    write_review(tmp_path, routed)
    entries = read_review(tmp_path / "review.csv")
    assert entries[0]["fixed_sql"] == ""
    entries[0]["fixed_sql"] = "SELECT a / b + 1 AS q FROM t WHERE a > 3"  # still wrong
    added, waiting = import_fixes(entries, tmp_path, "t")
    assert (added, len(waiting)) == (0, 1)
    waiting[0]["fixed_sql"] = "SELECT a // b AS q FROM t WHERE a > 3"
    added, waiting = import_fixes(waiting, tmp_path, "t")
    assert (added, waiting) == (1, [])
    line = json.loads((tmp_path / "items.jsonl").read_text())
    assert line["annotation_source"] == "human"
    assert load_dataset(str(tmp_path)).items[0].fixture is not None


@pytest.mark.parametrize(
    ("sql", "reason"),
    [
        ("SELECT a FROM t ORDER BY b LIMIT 1", None),  # ties on b are possible: checked, not fatal
        ("SELECT random() AS r", "no_test_data: volatile function"),
        ("CREATE TABLE x (a INT)", "no_test_data: not a single query"),
    ],
)
def test_testdata_reasons(sql: str, reason: str | None) -> None:
    _, funnel, _ = run_pipeline([_pair(sql)], [TestData(rounds=2)], LocalExecutor(1))
    if reason is not None:
        assert funnel[0].dropped == {reason.split(":")[0]: 1}
        assert funnel[0].details == {reason: 1}


def test_an_engine_failure_of_a_candidate_is_judged_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """A transient engine failure (DuckDB could not start a thread on a loaded machine) is not
    a wrong translation: the candidate is judged again on the real engine and verified."""
    from parrot.curate import verify

    monkeypatch.setattr(verify, "ENGINE_RETRY_PAUSE", 0.0)
    check = verify.checker(verify.DEFAULT_TIMEOUT, verify.DEFAULT_MAX_ROWS)
    real = check.judge.judge
    failures = iter([True])

    def flaky(item, translation):  # type: ignore[no-untyped-def]
        record = real(item, translation)
        if next(failures, False):
            record["pred"] = {
                "status": "engine_error",
                "error": "RuntimeError: can't start new thread",
            }
            record["verdicts"]["strict"] = {"match": False, "reason": "pred_error"}
        return record

    monkeypatch.setattr(check.judge, "judge", flaky)
    kept, routed = _verify(_pair("SELECT 7 / 2 AS q", "SELECT 7 // 2 AS q"))
    assert len(kept) == 1 and routed == []


def test_an_engine_failure_of_the_source_is_run_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """The source's engine failing once per round (a loaded machine) neither drops the pair at
    test data ("source fails on every round") nor sends it to review: each run is repeated."""
    from parrot.curate import verify
    from parrot.engines.base import ExecStatus, Execution
    from parrot.eval.judge import Gold

    monkeypatch.setattr(verify, "ENGINE_RETRY_PAUSE", 0.0)
    check = verify.checker(verify.DEFAULT_TIMEOUT, verify.DEFAULT_MAX_ROWS)
    real = check.judge.gold
    failed: set[tuple[str, str]] = set()

    def flaky(item, fixture=None):  # type: ignore[no-untyped-def]
        key = (item.source_sql, (fixture or item.fixture).content_hash)
        if key not in failed:  # every round's first run of the source fails
            failed.add(key)
            return Gold(
                Execution(ExecStatus.ENGINE_ERROR, error="can't start new thread"),
                real(item, fixture).facts,
                "sqlite",
            )
        return real(item, fixture)

    monkeypatch.setattr(check.judge, "gold", flaky)
    kept, routed = _verify(_pair("SELECT 7 / 2 AS q", "SELECT 7 // 2 AS q"))
    assert len(kept) == 1 and routed == []
    failed.clear()  # the verification's own runs of the source fail once each, too
    record = check.judge_retrying(
        check.item(kept[0], check.rounds(kept[0])[0]), "SELECT 7 // 2 AS q"
    )
    assert record["verdicts"]["strict"]["match"]


def test_verification_skips_the_grammar_check_of_failing_runs() -> None:
    """Curation judges by execution only: a candidate the engine rejects costs no grammar
    check (Acc_SYN, slow to load on a loaded machine), which eval's default judge still runs."""
    from parrot.curate import verify
    from parrot.datasets import Item

    item = Item(id="x", source_dialect="sqlite", target_dialect="duckdb", source_sql="SELECT 1")
    failing = Translation(TranslationStatus.OK, sql="SELEC 1")
    check = verify.checker(verify.DEFAULT_TIMEOUT, verify.DEFAULT_MAX_ROWS)
    assert check.judge.judge(item, failing)["syntax_checked"] is False
    with closing(Judge()) as judge:
        assert judge.judge(item, failing)["syntax_checked"] is True


@pytest.mark.parametrize(
    ("sql", "detail"),
    [
        ("CREATE TABLE x (a INT)", "not a single query"),
        ("SET x = 1", "not a single query"),
        ("SELECT random() AS r", "volatile function"),
        # regression: a simple-variant reference passed five rounds, then failed eval on MariaDB
        (
            "SELECT NTH_VALUE(a, 2) OVER (PARTITION BY b) AS n FROM t",
            "order-dependent window function",
        ),
        ("SELECT ROW_NUMBER() OVER () AS n FROM t", "order-dependent window function"),
    ],
)
def test_pairs_drops_a_statement_with_no_test_data_once(sql: str, detail: str) -> None:
    """What test data would drop for every target is dropped before it becomes pairs."""
    from parrot.curate.annotate import Pairs

    out = Pairs(["duckdb", "clickhouse", "postgres"]).map([Record("s", "sqlite", sql)])
    assert out.records == []
    assert out.dropped == {"no_test_data": 1} and out.details == {f"no_test_data: {detail}": 1}
    kept = Pairs(["duckdb", "clickhouse"]).map([Record("s", "sqlite", DIVISION)]).records
    assert [r.id for r in kept] == ["s~duckdb", "s~clickhouse"]


def test_the_targets_of_a_statement_share_its_test_data(monkeypatch: pytest.MonkeyPatch) -> None:
    """Test data is made once per statement, named and seeded by it: every target is judged on
    the same rounds, so the source runs once per round and each fixture is written once."""
    from parrot.curate import verify
    from parrot.testsuite.datagen import fixture_name

    calls: list[str] = []
    real = verify.query_test_data

    def counting(sql, dialect, **kw):  # type: ignore[no-untyped-def]
        calls.append(sql)
        return real(sql, dialect, **kw)

    monkeypatch.setattr(verify, "query_test_data", counting)
    pairs = [Record(f"s~{t}", "sqlite", DIVISION, target=t) for t in ("duckdb", "clickhouse")]
    kept = TestData(rounds=3).map(pairs).records
    assert len(calls) == 1 and len(kept) == 2
    assert kept[0].info["rounds"] == kept[1].info["rounds"]
    assert kept[0].info["rounds"][0]["name"] == f"{fixture_name('s')}-r0"


def test_ties_are_checked_once_per_source_and_round(monkeypatch: pytest.MonkeyPatch) -> None:
    """Whether a source's LIMIT cuts ties (a run of the source without it) is asked by every
    target and candidate; it is computed once per source and round."""
    from parrot.curate import verify

    check = verify.checker(verify.DEFAULT_TIMEOUT, verify.DEFAULT_MAX_ROWS)
    real = check.judge.limit_cuts_ties
    asked: list[tuple[str, str]] = []

    def counting(item):  # type: ignore[no-untyped-def]
        asked.append((item.source_sql, item.fixture.content_hash))
        return real(item)

    monkeypatch.setattr(check.judge, "limit_cuts_ties", counting)
    sql = "SELECT COUNT(*) AS n FROM t WHERE a > 2 LIMIT 5"
    right = [sql, "SELECT COUNT(*) AS n FROM t WHERE 2 < a LIMIT 5"]
    kept, _ = _verify(_pair(sql, *right), _pair(sql, *right, target="clickhouse"))
    assert len(kept) == 2
    assert asked and len(asked) == len(set(asked))
