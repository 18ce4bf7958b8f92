"""``python -m parrot.curate`` end to end on a slice of the shared corpora."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from parrot.curate.cli import main
from parrot.datasets import load_dataset
from parrot.eval.judge import Judge
from parrot.migrate.named import corpora_root
from parrot.translators.base import Translation, TranslationStatus

pytestmark = pytest.mark.skipif(
    not (corpora_root() / "sqlglot").is_dir(),
    reason="shared corpora absent: set PARROT_CORPORA or place them at ../shared/corpora")


@pytest.mark.slow  # the whole curation pipeline with generated data (tens of seconds)
def test_simple_variant_end_to_end(tmp_path: Path) -> None:
    out = tmp_path / "simple"
    assert main(["--variant", "simple", "--input-limit", "150", "--out", str(out),
                 "--quiet"]) == 0
    manifest = json.loads((out / "manifest.json").read_text())
    funnel = {line["stage"]: line for line in manifest["funnel"]}
    assert funnel["standardise"]["in"] == 150 == manifest["input_statements"]
    assert funnel["classify"]["out"] == manifest["outputs"]["items"] > 0
    for a, b in zip(manifest["funnel"], manifest["funnel"][1:], strict=False):
        assert b["in"] == a["out"]
    assert manifest["parameters"]["stages"]["annotate"]["annotators"][0]["name"] == "sqlglot"
    assert manifest["suites"]["exit_status"] == 0  # curation builds the suites it can
    assert (out / "suites").is_dir() and manifest["suites"]["files"] > 0
    dataset = load_dataset(str(out))
    judge = Judge()
    try:
        for item in dataset.items:
            record = judge.judge(item, Translation(TranslationStatus.OK,
                                                   sql=item.reference_sql[0]))
            assert record["verdicts"]["strict"]["match"], record["verdicts"]["strict"]
    finally:
        judge.close()


def test_unknown_annotator_is_refused(tmp_path: Path) -> None:
    assert main(["--variant", "simple", "--annotator", "nope", "--out", str(tmp_path),
                 "--quiet"]) == 2


def test_quiet_still_shows_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``--quiet`` hides progress bars and the funnel, never the reason a run was refused."""
    assert main(["--variant", "simple", "--pairs", "sqlite:duckdb", "--targets", "duckdb",
                 "--out", str(tmp_path), "--quiet"]) == 2
    assert "--pairs replaces --sources/--targets" in capsys.readouterr().err
    assert main(["--variant", "simple", "--annotator", "nope", "--out", str(tmp_path),
                 "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "nope" in err, err


@pytest.mark.slow  # a small curation run (engines, generated data)
def test_no_suites_skips_the_suite_build(tmp_path: Path) -> None:
    out = tmp_path / "simple"
    assert main(["--variant", "simple", "--input-limit", "150", "--out", str(out),
                 "--no-suites", "--quiet"]) == 0
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["outputs"]["items"] > 0  # items written, so only --no-suites skipped them
    assert "suites" not in manifest
    assert not (out / "suites").exists()
