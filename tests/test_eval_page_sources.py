"""``parrot eval`` writes its page from the dataset it loaded, not from the dataset file read a
second time (issue 31: the load validates every item again), and the page is the one
``parrot report`` renders from the file."""

from __future__ import annotations

from pathlib import Path

import pytest

import parrot.report.metrics as metrics
from parrot.api.results import MANIFEST, read_json, read_results
from parrot.eval.cli import main as eval_main
from parrot.report.html import run_page


def test_eval_reads_its_dataset_once_and_writes_the_page_report_renders(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    loads: list[str] = []
    original = metrics.load_dataset

    def counted(*args: object, **kwargs: object) -> object:
        loads.append(str(args[0]))
        return original(*args, **kwargs)

    monkeypatch.setattr(metrics, "load_dataset", counted)
    out = tmp_path / "run"
    flags = ["--model", "sqlglot", "--pairs", "sqlite:duckdb", "--limit", "2", "--no-suite"]
    assert eval_main(["--quiet", *flags, "--output-dir", str(out)]) == 0
    assert loads == []  # the page's sources came from the run's own dataset
    page = (out / "report.html").read_text(encoding="utf-8")
    rendered = run_page(str(out), read_json(out / MANIFEST), read_results(out))
    assert loads  # parrot report reads the file
    assert page == rendered
