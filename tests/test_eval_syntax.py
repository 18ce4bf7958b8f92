"""Acc_SYN: translations checked by parrot's grammars, reported beside Acc_EX (no engine needed)."""

import json
from pathlib import Path

import pytest
from eval_runs import run_eval

from parrot.api.results import read_results
from parrot.eval.syntax import has_grammar, syntax_json
from parrot.report.metrics import score
from parrot.translators.base import Translation, TranslationStatus


@pytest.mark.parametrize(
    ("dialect", "sql", "ok", "error"),
    [
        ("sqlite", "SELECT a FROM t WHERE b > 1", True, None),
        ("tsql", "SELECT TOP 5 a FROM t", True, None),
        ("oracle", "SELECT a FROM t FETCH FIRST 5 ROWS ONLY", True, None),
        ("postgres", "SELECT a FROM t; SELECT FROM WHERE", False, "statement 2, 1:"),
        ("tsql", "SELECT a FROM t LIMIT 5", False, "statement 1, 1:"),
    ],
)
def test_syntax_verdicts(dialect: str, sql: str, ok: bool, error: str | None) -> None:
    verdict = syntax_json(dialect, Translation.from_sql(sql))
    assert verdict is not None and verdict["ok"] is ok
    assert error is None or verdict["error"].startswith(error)


def test_a_missing_translation_fails_and_a_dialect_without_grammar_is_not_scored() -> None:
    missing = syntax_json("oracle", Translation(TranslationStatus.MISSING, error="no id"))
    assert missing == {"ok": False, "error": "no translation (missing)"}
    assert not has_grammar("teradata")
    assert syntax_json("teradata", Translation.from_sql("SELECT 1")) is None


def test_acc_syn_counts_only_items_with_a_grammar() -> None:
    base = {
        "gold": {"status": "ok", "rows": 1},
        "pred": {"status": "no_engine"},
        "verdicts": {m: {"match": False} for m in ("strict", "normalized", "multiset")},
    }
    records = [{**base, "syntax": {"ok": True}}, {**base, "syntax": {"ok": False}}, dict(base)]
    s = score(records)
    assert (s["syn_checked"], s["syn"], s["acc_syn"]) == (2, 1, 50.0)
    assert (s["no_engine"], s["ex_items"], s["acc_ex"]) == (3, 0, None)  # not the translator's


def test_targets_without_an_engine_get_acc_syn(tmp_path: Path) -> None:
    items = tmp_path / "items.jsonl"
    rows = [
        ("a", "SELECT 1 AS x LIMIT 1", "SELECT 1 AS x FROM dual FETCH FIRST 1 ROWS ONLY"),
        ("b", "SELECT 2 AS x", "SELECT 2 AS x FROM dual WHERE"),
        ("c", "SELECT 3 AS x", None),
    ]
    items.write_text(
        "".join(
            json.dumps(
                {
                    "id": i,
                    "source_dialect": "sqlite",
                    "target_dialect": "oracle",
                    "source_sql": src,
                    "reference_sql": "SELECT 1 FROM dual",
                    "translation_types": ["keyword"],
                }
            )
            + "\n"
            for i, src, _ in rows
        )
    )
    preds = tmp_path / "preds.jsonl"
    preds.write_text(
        "".join(json.dumps({"id": i, "translated_sql": p}) + "\n" for i, _, p in rows if p)
    )
    out = tmp_path / "run"
    code = run_eval(out, "--dataset", str(items), "--model", f"file:{preds}", "--no-start")
    assert code == 0
    records = {r["id"]: r for r in read_results(out)}
    assert records["a"]["syntax"] == {"ok": True}
    assert records["a"]["pred"]["status"] == "no_engine"
    assert not records["b"]["syntax"]["ok"] and not records["c"]["syntax"]["ok"]
    overall = json.loads((out / "summary.json").read_text())["overall"]
    assert (overall["syn_checked"], overall["syn"], overall["acc_ex"]) == (3, 1, None)
    assert (overall["no_engine"], overall["evaluated"]) == (3, 0)
