"""The HTML pages as files: written by every eval, self-contained, numbers equal to summary.json
and to the Markdown leaderboard, every item inlined."""

from __future__ import annotations

import base64
import gzip
import json
import re
from pathlib import Path

import pytest
from built_wheel import REPO, wheel_names
from eval_runs import run_eval
from html_helpers import html_tables, records, summary

from parrot.report.cli import main as report_main
from parrot.report.html import source_sql


def inlined_items(page: str) -> list[dict]:
    packed = re.search(
        r'<script type="application/gzip\+base64" id="parrot-data">([^<]*)</script>', page
    )
    assert packed
    return json.loads(gzip.decompress(base64.b64decode(packed.group(1))))["items"]


def test_eval_writes_report_html(run_dirs):
    for run_dir in run_dirs.values():
        assert (run_dir / "report.html").is_file()


def test_page_is_self_contained(run_dirs):
    page = (run_dirs["sqlglot"] / "report.html").read_text()
    assert not re.search(r"<(script|img|link|iframe)[^>]+(src|href)=", page)
    assert "<svg" in page and "<style>" in page
    assert not re.search(r'(src|href)="(https?:)?//', page)
    assert not re.search(r"url\((?!#)", page)  # CSS and SVG reference only in-page ids


def test_headline_equals_summary_json(run_dirs):
    page = (run_dirs["sqlglot"] / "report.html").read_text()
    overall = summary(run_dirs["sqlglot"])["overall"]
    shown = dict(re.findall(r'data-key="(acc_\w+)" data-value="([^"]*)"', page))
    assert {"acc_ex", "acc_strict", "acc_ts", "acc_normalized", "acc_multiset"} <= set(shown)
    for key, value in shown.items():
        assert value == ("" if overall[key] is None else str(overall[key])), key
    low, high = overall["ci95"]["strict"]  # each headline number with its Wilson interval
    assert re.search(rf'data-key="acc_strict".*?95% CI \[{low:.1f}–{high:.1f}\]', page, re.S)


def test_every_record_is_inlined_with_its_source_sql(run_dirs):
    run_dir = run_dirs["sqlglot"]
    items = inlined_items((run_dir / "report.html").read_text())
    recs = records(run_dir)
    # each item also carries its source's SQL features (the item table's SQL feature filter)
    assert [
        {k: v for k, v in i.items() if k not in ("source_sql", "features")} for i in items
    ] == recs
    sources, missing = source_sql(json.loads((run_dir / "manifest.json").read_text()))
    assert missing is None
    assert all(i["source_sql"] == sources[i["id"]] for i in items)


@pytest.mark.parametrize(
    ("change", "note"),
    [
        ({"sha256": "0" * 64}, "changed since the run"),
        ({"path": "/nonexistent/items.jsonl"}, "not readable here"),
        ({"path": None}, "names no dataset file"),
    ],
)
def test_source_sql_refused_when_dataset_differs(run_dirs, change, note):
    manifest = json.loads((run_dirs["sqlglot"] / "manifest.json").read_text())
    manifest["dataset"] = {**manifest["dataset"], **change}
    sources, missing = source_sql(manifest)
    assert sources == {} and missing is not None and note in missing


def test_report_cli_html_output_flag(run_dirs, tmp_path, capsys):
    out = tmp_path / "page.html"
    assert report_main([str(run_dirs["identity"]), "--format", "html", "-o", str(out)]) == 0
    assert f"report: {out}" in capsys.readouterr().err
    assert len(inlined_items(out.read_text())) == len(records(run_dirs["identity"]))


def _md_tables(text: str) -> dict[str, list[list[str]]]:
    tables: dict[str, list[list[str]]] = {}
    title = ""
    for line in text.splitlines():
        if line.startswith("### "):
            title = line[4:]
            tables[title] = []
        elif line.startswith("|") and not line.startswith("|---"):
            tables[title].append([c.strip() for c in line.strip("|").split("|")])
    return tables


def test_leaderboard_numbers_match_markdown(run_dirs, tmp_path, capsys):
    dirs = [str(d) for d in run_dirs.values()]
    md = tmp_path / "board.md"
    page = tmp_path / "board.html"
    assert report_main([*dirs, "--format", "md", "-o", str(md)]) == 0
    assert report_main([*dirs, "--format", "html", "-o", str(page)]) == 0
    expected = _md_tables(md.read_text())
    boards = {k: v for k, v in expected.items() if k.startswith("Leaderboard")}
    assert len(boards) == 1  # three runs of the same slice: one comparable group
    ((title, rows),) = boards.items()
    text = page.read_text()
    assert title in text
    shown = html_tables(text)
    board = [t for c, t in shown if c == "Leaderboard"]
    assert board == [rows]
    analysis = {k: v for k, v in expected.items() if k not in boards}
    assert analysis  # the slice answers each question in several dialects: κ, ρ, DRS tables
    assert {k: v for k, v in shown if k in analysis} == analysis
    assert rows[1][1] == "reference"  # the reference translations rank first
    by_pair = next(t for c, t in html_tables(text) if c == "strict % by dialect pair")
    for row in by_pair[1:]:
        pairs = summary(Path(row[0]))["by_pair"]
        assert row[1:] == [f"{pairs[p]['acc_strict']:.1f}" for p in by_pair[0][1:]]


def test_leaderboard_separates_datasets(run_dirs, tmp_path):
    """A run on other items is its own group, not ranked against the others."""
    other = tmp_path / "other"

    assert run_eval(other, "--model", "sqlglot", "--limit", "6") == 0
    page = tmp_path / "board.html"
    assert (
        report_main([str(run_dirs["sqlglot"]), str(other), "--format", "html", "-o", str(page)])
        == 0
    )
    boards = [t for c, t in html_tables(page.read_text()) if c == "Leaderboard"]
    assert sorted(len(b) - 1 for b in boards) == [1, 1]


def test_cost_and_latency_only_when_a_model_was_called(run_dirs, llm_run):
    assert "Cost and latency" in (llm_run / "report.html").read_text()
    assert "Cost and latency" not in (run_dirs["sqlglot"] / "report.html").read_text()
    verified = summary(llm_run)["verified_cost"]  # the model's tokens per verified translation
    assert (
        verified["per_item"]["tokens"] > 0
        and "Cost of a verified translation" in (llm_run / "report.html").read_text()
    )
    item = inlined_items((llm_run / "report.html").read_text())[0]
    assert item["translation"]["reasoning"] == "the source runs unchanged"


@pytest.mark.slow
def test_wheel_carries_the_templates(tmp_path):
    names = wheel_names(tmp_path)
    shipped = {
        f"parrot/report/templates/{p.name}"
        for p in (REPO / "parrot" / "report" / "templates").iterdir()
        if p.is_file()
    }
    assert shipped and shipped <= names


def test_ids_are_unique_and_every_svg_reference_resolves(run_dirs):
    """matplotlib numbers figure_1, axes_1, patch_1… afresh in each figure: 244 duplicate ids on
    this page before each figure's ids were prefixed with its name."""
    page = (run_dirs["sqlglot"] / "report.html").read_text()
    ids = re.findall(r'\bid="([^"]+)"', page)
    assert len(ids) == len(set(ids)), sorted({i for i in ids if ids.count(i) > 1})[:10]
    refs = re.findall(r'(?:url\(|href=")#([^")]+)', page)
    anchors = [r for r in refs if "=" not in r]  # #pair=…, #item=… are the item table's links
    assert anchors and set(anchors) <= set(ids)


def test_no_empty_table_and_no_title_said_twice(run_dirs):
    """A table without rows is one line; a section's heading is not repeated as its table's
    caption (the suite section showed "… (0 items)" as a heading and an empty table)."""
    page = (run_dirs["sqlglot"] / "report.html").read_text()
    for caption, rows in html_tables(page):
        assert len(rows) > 1 or not caption, caption  # the item table is filled by its script
    headings = re.findall(r"<h2>([^<]*)</h2>", page)
    captions = [c for c, _ in html_tables(page)]
    assert not set(headings) & set(captions)
    assert "(0 items)" not in page


def test_wide_tables_scroll_inside_a_wrapper(run_dirs):
    page = (run_dirs["sqlglot"] / "report.html").read_text()
    tables = re.findall(r"<table\b", page)
    wrapped = re.findall(r'<div class="scroll">\s*<table\b', page)
    assert len(tables) == len(wrapped) > 5


def test_every_score_table_says_what_each_share_counts(run_dirs):
    """The Acc_SYN card showed 79.9% of 189 beside Acc_EX over 438 without saying it was another
    subset: each card and each score table now names its denominator and subset."""
    page = (run_dirs["sqlglot"] / "report.html").read_text()
    scored = [c for c, rows in html_tables(page) if "RES n" in rows[0]]
    assert scored and page.count("what each % counts") == len(scored)
    assert page.count('class="subset"') == page.count('class="metric"')
    assert "another subset" in page  # the Acc_SYN card


def test_the_page_shows_verdict_levels_and_filters_items_by_level(run_dirs):
    page = (run_dirs["sqlglot"] / "report.html").read_text()
    by_level = summary(run_dirs["sqlglot"])["by_level"]
    assert '<select name="level">' in page and "By verdict level" in page
    assert "#level=" in page  # each level's row links to its items
    levels = [i["level"]["name"] for i in inlined_items(page)]
    assert {k: v["items"] for k, v in by_level.items()} == {k: levels.count(k) for k in by_level}
