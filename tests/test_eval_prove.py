"""``parrot eval --prove`` (parrot.eval.prove): an item judged right gets the solver's answer —
the level ``bounded-equivalent`` with its bound, or a counterexample checked on both engines
(recorded as a witness, failing Acc_TS) — and the run's manifest names z3's version."""

from __future__ import annotations

import json
from typing import Any

import pytest
from eval_runs import run_eval

from parrot.datasets import Item
from parrot.eval.judge import Judge
from parrot.eval.prove import ProveSettings, attach, prove
from parrot.solver import NEED_Z3, available
from parrot.translators.base import Translation, TranslationStatus
from tests.testsuite.test_solver import FIXTURE

pytestmark = pytest.mark.skipif(not available(), reason=NEED_Z3)


@pytest.fixture(scope="module")
def judge() -> Judge:
    j = attach(Judge(), ProveSettings())
    yield j
    j.close()


def _item(source: str, src: str = "sqlite", tgt: str = "duckdb") -> Item:
    return Item(id="p", source_dialect=src, target_dialect=tgt, source_sql=source, fixture=FIXTURE)


def _judged(
    judge: Judge, source: str, sql: str, src: str = "sqlite", tgt: str = "duckdb"
) -> dict[str, Any]:
    return dict(judge.judge(_item(source, src, tgt), Translation(TranslationStatus.OK, sql=sql)))


def test_equivalent_translation_is_bounded_equivalent(judge: Judge) -> None:
    record = _judged(
        judge,
        "SELECT id FROM t WHERE x BETWEEN 1 AND 25",
        "SELECT id FROM t WHERE x >= 1 AND x <= 25",
    )
    assert record["verdicts"]["strict"]["match"]
    assert record["prove"]["label"] == "bounded-equivalent" and record["prove"]["bound"] == 3
    assert record["level"] == {"name": "bounded-equivalent", "databases": 1, "bound": 3}


def test_counterexample_is_a_witness_checked_on_both_engines(judge: Judge) -> None:
    # right on the fixture (lower-case text only), wrong in general: SQLite's LIKE folds case,
    # DuckDB's does not
    record = _judged(
        judge, "SELECT id FROM t WHERE g LIKE 'a%'", "SELECT id FROM t WHERE g LIKE 'a%'"
    )
    assert record["verdicts"]["strict"]["match"]
    entry = record["prove"]
    assert entry["label"] == "counterexample", entry
    w = entry["witness"]
    assert w["gold"]["engine"].startswith("sqlite") and w["pred"]["engine"].startswith("duckdb")
    assert w["reason"] != "match" and w["origin"].startswith("solver")
    assert any("solver" in n for n in record["verdicts"]["strict"]["notes"])
    assert record["level"]["name"] == "fixture"  # the level is not raised


def test_counterexample_fails_the_suite_verdict(judge: Judge) -> None:
    item = _item("SELECT id FROM t WHERE g LIKE 'a%'")
    translation = Translation(TranslationStatus.OK, sql=item.source_sql)
    record: Any = Judge.judge(judge, item, translation)  # judge as usual, then a suite record
    record.pop("prove")
    record["suite"] = {
        "key": "k",
        "databases": [],
        "judged": 0,
        "match": True,
        "first_failure": None,
        "elapsed": 0.0,
    }
    prove(judge, item, translation, record, ProveSettings())
    assert record["prove"]["label"] == "counterexample" and record["suite"]["match"] is False


def test_wrong_items_and_other_dialects_are_left_alone(judge: Judge) -> None:
    wrong = _judged(judge, "SELECT id FROM t WHERE x > 5", "SELECT id FROM t WHERE x > 25")
    assert not wrong["verdicts"]["strict"]["match"] and "prove" not in wrong
    unknown = _judged(
        judge, "SELECT id FROM t WHERE x > 5", "SELECT id FROM t WHERE x > 5", tgt="sqlite"
    )
    assert unknown["prove"]["label"] == "bounded-equivalent"
    odd = _judged(judge, "SELECT x / 2 FROM t", "SELECT x / 2 FROM t", tgt="sqlite")
    assert odd["prove"] == {"label": "unsupported", "reason": "Div"}


def test_eval_prove_records_z3_in_the_manifest(tmp_path) -> None:

    run = tmp_path / "run"
    assert (
        run_eval(run, "--model", "sqlglot", "--pairs", "sqlite:duckdb", "--limit", "3", "--prove")
        == 0
    )
    settings = json.loads((run / "manifest.json").read_text())["settings"]["prove"]
    assert settings["bound"] == 3 and settings["z3"] and settings["timeout_ms"] == 2000
    lines = [json.loads(x) for x in (run / "results.jsonl").read_text().splitlines()]
    assert all("prove" in r for r in lines if r["verdicts"]["strict"]["match"])


def test_eval_prove_without_z3_is_a_clear_error(monkeypatch, tmp_path, capsys) -> None:
    import parrot.eval.cli as eval_cli

    monkeypatch.setattr(eval_cli, "solver_available", lambda: False)
    assert (
        eval_cli.main(
            [
                "--quiet",
                "--model",
                "sqlglot",
                "--limit",
                "1",
                "--prove",
                "--output-dir",
                str(tmp_path / "run"),
            ]
        )
        == 2
    )
    assert "z3-solver" in capsys.readouterr().err
