"""A run whose translator wrote some items' references (curation's ``annotators``) is flagged as
circular, with its scores on the items it did not annotate beside the headline."""

import json
from pathlib import Path

from eval_runs import run_eval

from parrot.api.results import read_json
from parrot.report.cli import main as report_main
from parrot.report.metrics import translator_specs


def test_translator_specs_cover_names_models_and_members():
    assert translator_specs({"name": "sqlglot"}) == {"sqlglot"}
    assert translator_specs({"name": "litellm", "model": "openai/gpt-4o"}) == {
        "litellm",
        "openai/gpt-4o",
    }
    assert "sqlglot" in translator_specs({"name": "ensemble", "members": [{"name": "sqlglot"}]})
    assert translator_specs(None) == set()


def _dataset(tmp_path: Path) -> Path:
    items = tmp_path / "items.jsonl"
    rows = [
        ("a", ["sqlglot"]),
        ("b", ["sqlglot", "openai/gpt-4o"]),
        ("c", ["openai/gpt-4o"]),
        ("d", None),
    ]
    items.write_text(
        "".join(
            json.dumps(
                {
                    "id": i,
                    "source_dialect": "sqlite",
                    "target_dialect": "duckdb",
                    "source_sql": f"SELECT {n} AS x",
                    "reference_sql": [f"SELECT {n} AS x"],
                    **({"annotators": who} if who else {}),
                }
            )
            + "\n"
            for n, (i, who) in enumerate(rows)
        )
    )
    return items


def test_a_run_scored_on_references_its_translator_wrote_is_flagged(tmp_path, capsys):
    items = _dataset(tmp_path)
    for model in ("sqlglot", "identity"):
        assert run_eval(tmp_path / model, "--model", model, "--dataset", str(items)) == 0
    summary = read_json(tmp_path / "sqlglot" / "summary.json")
    assert summary["circular"]["annotated_by_translator"] == 2
    assert summary["circular"]["rest"]["items"] == 2
    assert "circular" not in read_json(tmp_path / "identity" / "summary.json")
    assert report_main([str(tmp_path / "sqlglot")]) == 0
    assert "Circular: the translator under test wrote 2 of the 4" in capsys.readouterr().out
    assert (
        report_main([str(tmp_path / "sqlglot"), str(tmp_path / "identity"), "--format", "csv"]) == 0
    )
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("Leader")]
    flagged = [r for r in rows if "circular: annotated 2/4 references" in r]
    assert len(flagged) == 1 and ',"sqlglot (' in flagged[0]
