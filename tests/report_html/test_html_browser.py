"""The HTML report in headless Chromium, opened from disk: no console errors, headline equal to
summary.json, filters showing exactly the matching items, the item view's SQL and differing
cell, two clicks from a heat-map cell to an item. Screenshots go to the test's tmp dir (or
``$PARROT_SCREENSHOTS``)."""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path

import pytest
from html_helpers import records, summary

pytestmark = pytest.mark.browser

WAIT = 30.0


def open_page(browser, path: Path, fragment: str = "") -> None:
    from selenium.webdriver.support.ui import WebDriverWait

    browser.get("about:blank")
    browser.get(path.resolve().as_uri() + fragment)
    WebDriverWait(browser, WAIT).until(
        lambda d: d.execute_script("return document.body.dataset.ready === 'true'")
    )


def console_errors(browser) -> list[dict]:
    return [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]


def shot(browser, tmp_path: Path, name: str) -> Path:
    target = Path(os.environ.get("PARROT_SCREENSHOTS", tmp_path)) / name
    target.parent.mkdir(parents=True, exist_ok=True)
    browser.save_screenshot(str(target))
    print(f"screenshot: {target}")
    return target


def shown_ids(browser) -> list[str]:
    return [
        tr.get_attribute("data-id")
        for tr in browser.find_elements("css selector", "#item-table tbody tr")
    ]


def test_run_page_loads_without_console_errors(browser, run_dirs, tmp_path):
    open_page(browser, run_dirs["sqlglot"] / "report.html")
    assert console_errors(browser) == []
    assert shot(browser, tmp_path, "report-run.png").stat().st_size > 0


def test_headline_text_equals_summary_json(browser, run_dirs):
    open_page(browser, run_dirs["sqlglot"] / "report.html")
    overall = summary(run_dirs["sqlglot"])["overall"]
    metrics = browser.find_elements("css selector", ".headline .metric")
    assert metrics
    for m in metrics:
        key = m.get_attribute("data-key")
        value = m.find_element("css selector", ".value").text
        assert value == ("–" if overall[key] is None else f"{overall[key]:.1f}%"), key
    assert browser.find_element("css selector", "[data-key=gold_error]").text == str(
        overall["gold_error"]
    )


def test_reason_filter_shows_exactly_those_items(browser, run_dirs):
    from selenium.webdriver.support.ui import Select

    run_dir = run_dirs["sqlglot"]
    recs = records(run_dir)
    reasons = Counter(r["verdicts"]["strict"]["reason"] for r in recs)
    assert len(reasons) >= 3
    open_page(browser, run_dir / "report.html")
    for reason in reasons:
        Select(browser.find_element("css selector", "select[name=reason]")).select_by_value(reason)
        expected = {r["id"] for r in recs if r["verdicts"]["strict"]["reason"] == reason}
        assert set(shown_ids(browser)) == expected, reason
        assert len(shown_ids(browser)) == len(expected)
    assert console_errors(browser) == []


def test_search_and_pair_filters(browser, run_dirs):
    run_dir = run_dirs["sqlglot"]
    recs = records(run_dir)
    open_page(browser, run_dir / "report.html", "#pair=sqlite%E2%86%92duckdb&q=join")
    expected = {
        r["id"]
        for r in recs
        if (r["source_dialect"], r["target_dialect"]) == ("sqlite", "duckdb")
        and "join" in (r["translation"].get("sql") or "").lower()
    }
    assert expected and set(shown_ids(browser)) <= {
        r["id"] for r in recs if r["source_dialect"] == "sqlite" and r["target_dialect"] == "duckdb"
    }
    assert expected <= set(shown_ids(browser))


def test_item_view_shows_sql_and_differing_cell(browser, run_dirs, tmp_path):
    run_dir = run_dirs["sqlglot"]
    item = next(
        r
        for r in records(run_dir)
        if r["verdicts"]["strict"]["reason"] == "value"
        and r["verdicts"]["strict"]["cell"]["row"] < len(r["gold"]["preview"])
    )
    cell = item["verdicts"]["strict"]["cell"]
    open_page(browser, run_dir / "report.html", f"#item={item['id']}")
    shown = browser.find_element("css selector", "#translation-sql").text
    assert shown.split() == item["translation"]["sql"].split()
    for side in ("gold", "pred"):
        diff = browser.find_elements("css selector", f"table[data-side={side}] td.diff")
        assert len(diff) == 1
        assert diff[0].text == str(cell[side])
    note = browser.find_element("css selector", "#diff-cell").text
    assert f"row {cell['row']}, column {cell['column']}" in note
    assert console_errors(browser) == []
    shot(browser, tmp_path, "report-item.png")


def test_two_clicks_from_heat_map_to_a_failing_item(browser, run_dirs):
    from selenium.webdriver.support.ui import WebDriverWait

    run_dir = run_dirs["sqlglot"]
    pair = "sqlite→clickhouse"
    failing = {
        r["id"]
        for r in records(run_dir)
        if not r["verdicts"]["strict"]["match"]
        and f"{r['source_dialect']}→{r['target_dialect']}" == pair
    }
    assert failing
    open_page(browser, run_dir / "report.html")
    link = browser.find_element(
        "css selector", 'a[href="#pair=sqlite%E2%86%92clickhouse&strict=fail"]'
    )
    browser.execute_script(
        "arguments[0].dispatchEvent(new MouseEvent('click', {bubbles: true}))", link
    )  # an SVG <a>: click it as a reader does
    wait = WebDriverWait(browser, WAIT)  # hashchange is dispatched asynchronously
    wait.until(lambda d: set(shown_ids(d)) == failing)
    browser.find_element("css selector", "#item-table tbody tr td:nth-child(2)").click()
    wait.until(lambda d: d.find_elements("css selector", "#item-view h2"))
    assert browser.find_element("css selector", "#item-view h2").text in failing
    assert browser.find_elements("css selector", "#diff-cell, #item-view .error, #verdicts")


def test_leaderboard_sorts(browser, run_dirs, tmp_path):
    from parrot.report.cli import main as report_main

    page = tmp_path / "board.html"
    assert report_main([*map(str, run_dirs.values()), "--format", "html", "-o", str(page)]) == 0
    browser.get(page.resolve().as_uri())
    board = browser.find_element("css selector", "table.leaderboard")
    header = next(
        th for th in board.find_elements("css selector", "thead th") if th.text == "strict %"
    )
    col = [th.text for th in board.find_elements("css selector", "thead th")].index("strict %")

    def column() -> list[float]:
        return [
            float(tr.find_elements("css selector", "th, td")[col].text)
            for tr in board.find_elements("css selector", "tbody tr")
        ]

    header.click()
    assert column() == sorted(column())
    header.click()
    assert column() == sorted(column(), reverse=True)
    assert console_errors(browser) == []


def test_item_view_shows_the_model_answer(browser, llm_run):
    item = records(llm_run)[0]
    open_page(browser, llm_run / "report.html", f"#item={item['id']}")
    text = browser.find_element("css selector", "#item-view").text
    assert "the source runs unchanged" in text
    if item["translation"].get("raw"):
        assert browser.find_element("css selector", "#raw").text == item["translation"]["raw"]
    assert console_errors(browser) == []


def test_no_duplicate_ids_and_no_table_cut_off(browser, run_dirs):
    """Every id of the live page is unique (matplotlib's figure_1, patch_1… were repeated in
    each figure) and no table reaches past the page at 1400 px: wide ones scroll in a
    wrapper."""
    open_page(browser, run_dirs["sqlglot"] / "report.html")
    duplicates = browser.execute_script(
        "const seen = {}; for (const e of document.querySelectorAll('[id]'))"
        " seen[e.id] = (seen[e.id] || 0) + 1;"
        " return Object.keys(seen).filter((k) => seen[k] > 1);"
    )
    assert duplicates == []
    width = browser.execute_script("return document.documentElement.clientWidth")
    assert browser.execute_script("return document.documentElement.scrollWidth") <= width
    overflow = browser.execute_script(
        "return [...document.querySelectorAll('#overview table')].filter((t) => {"
        " const w = t.closest('.scroll'); return !w || w.getBoundingClientRect().right >"
        f" {width} + 1; }}).length"
    )
    assert overflow == 0


def test_difficulty_and_tag_filters(browser, run_dirs):
    from selenium.webdriver.support.ui import Select

    run_dir = run_dirs["sqlglot"]
    recs = records(run_dir)
    difficulties = Counter(r["difficulty"] for r in recs if r["difficulty"])
    tags = Counter(t for r in recs for t in r["tags"])
    assert len(difficulties) >= 2 and len(tags) >= 2
    open_page(browser, run_dir / "report.html")
    for difficulty in difficulties:
        Select(browser.find_element("css selector", "select[name=difficulty]")).select_by_value(
            difficulty
        )
        assert set(shown_ids(browser)) == {r["id"] for r in recs if r["difficulty"] == difficulty}
    Select(browser.find_element("css selector", "select[name=difficulty]")).select_by_value("")
    tag = tags.most_common()[-1][0]
    Select(browser.find_element("css selector", "select[name=tag]")).select_by_value(tag)
    assert set(shown_ids(browser)) == {r["id"] for r in recs if tag in r["tags"]}
    open_page(browser, run_dir / "report.html", f"#difficulty=hard&tag={tag}")
    assert set(shown_ids(browser)) == {
        r["id"] for r in recs if tag in r["tags"] and r["difficulty"] == "hard"
    }
    assert console_errors(browser) == []


def test_level_filter_shows_exactly_the_items_of_each_verdict_level(browser, run_dirs):
    from selenium.webdriver.support.ui import Select

    run_dir = run_dirs["sqlglot"]
    recs = records(run_dir)
    levels = Counter(r["level"]["name"] for r in recs)
    assert levels["suite"]  # the slice's items all have a suite: "fixture" is then no option
    open_page(browser, run_dir / "report.html")
    for level in levels:
        Select(browser.find_element("css selector", "select[name=level]")).select_by_value(level)
        assert set(shown_ids(browser)) == {r["id"] for r in recs if r["level"]["name"] == level}
    options = browser.find_elements("css selector", "select[name=level] option")
    assert [o.get_attribute("value") for o in options] == ["", *sorted(levels)]
    open_page(browser, run_dir / "report.html", "#level=suite")  # the level table's links
    assert len(shown_ids(browser)) == levels["suite"]
    assert console_errors(browser) == []


def test_the_item_view_shows_the_witness(browser, run_dirs, tmp_path):
    """``parrot witness --all`` on a run, the page re-rendered: a witnessed item's view shows
    the witness's rows (as many as its size) and both results on it."""
    import json
    import shutil

    from parrot.eval.witness_cmd import main as witness_main
    from parrot.report.cli import main as report_main

    run = tmp_path / "run"
    shutil.copytree(run_dirs["sqlglot"], run)
    assert witness_main([str(run), "--all"]) == 0
    found = [
        x
        for x in map(json.loads, (run / "witnesses.jsonl").read_text().splitlines())
        if x["witness"]
    ]
    assert found, "the sqlglot slice has rejections on data"
    assert report_main([str(run), "--format", "html"]) == 0
    item = found[0]
    open_page(browser, run / "report.html", f"#item={item['id']}")
    header = browser.find_element("css selector", "#witness").text
    assert "1-minimal" in header and f"{item['witness']['size']} row" in header
    cells = browser.find_elements("css selector", "#item-view .witness-table tbody tr")
    assert len(cells) == item["witness"]["size"]
    assert console_errors(browser) == []


def test_the_worst_constructs_link_to_witnessed_items(browser, run_dirs, tmp_path):
    """After ``parrot witness --all``: the "wrong most often" table links its wrong items, the
    witnessed ones first, and a link opens the item view with its witness."""
    import shutil

    from parrot.eval.witness_cmd import main as witness_main
    from parrot.report.cli import main as report_main

    run = tmp_path / "run"
    shutil.copytree(run_dirs["sqlglot"], run)
    assert witness_main([str(run), "--all"]) == 0
    assert report_main([str(run), "--format", "html"]) == 0
    open_page(browser, run / "report.html")
    rows = browser.find_elements("css selector", "#worst-constructs tbody tr")
    assert rows
    witnessed = [
        a
        for a in browser.find_elements("css selector", "#worst-constructs a")
        if "witness:" in a.find_element("xpath", "..").text
    ]
    assert witnessed, "the slice's most frequent wrong constructs include witnessed items"
    target = witnessed[0].get_attribute("href").split("#item=")[1]
    witnessed[0].click()
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(browser, WAIT).until(lambda d: d.find_elements("css selector", "#witness"))
    assert browser.find_element("css selector", "#item-view h2").text == target
    assert console_errors(browser) == []


def test_the_reliability_heat_map_counts_and_links(browser, run_dirs, tmp_path):
    """Each heat-map cell carries strictly right / judged and the interval of summary's matrix
    in its title, and a click shows exactly that pair's failing items with that construct."""
    import json

    from selenium.webdriver.support.ui import WebDriverWait

    from parrot.report.features import features
    from parrot.report.html import write_run_report
    from parrot.report.metrics import run_summary, source_sql

    run_dir = run_dirs["sqlglot"]
    manifest = json.loads((run_dir / "manifest.json").read_text())
    recs = records(run_dir)
    matrix = run_summary(run_dir, manifest, recs)["reliability"]
    assert any(c.startswith("feature: ") for c in matrix)  # the sources' SQL features
    write_run_report(run_dir, manifest, recs, tmp_path / "page.html")
    open_page(browser, tmp_path / "page.html")
    cells = browser.find_elements("css selector", "#reliability-heatmap td[title]")
    assert len(cells) == sum(len(pairs) for pairs in matrix.values())
    construct, pairs = next(
        (c, p)
        for c, p in matrix.items()
        if c.startswith("feature: ") and any(x["strict"] < x["evaluated"] for x in p.values())
    )
    pair, cell = next((p, x) for p, x in pairs.items() if x["strict"] < x["evaluated"])
    lo, hi = cell["ci95"]
    heads = [
        th.text for th in browser.find_elements("css selector", "#reliability-heatmap thead th")
    ]
    (row,) = [
        tr
        for tr in browser.find_elements("css selector", "#reliability-heatmap tbody tr")
        if tr.find_element("css selector", "th").text == construct
    ]
    td = row.find_elements("css selector", "td")[heads.index(pair) - 1]
    assert td.get_attribute("title") == (
        f"{cell['strict']}/{cell['evaluated']} right, 95% CI [{lo:.1f}–{hi:.1f}]"
    )
    td.find_element("css selector", "a").click()
    feature = construct.split(": ", 1)[1]
    sources, _ = source_sql(manifest)
    expected = {
        r["id"]
        for r in recs
        if f"{r['source_dialect']}→{r['target_dialect']}" == pair
        and r["verdicts"]["strict"]["match"] is False
        and feature in features(sources[r["id"]], r["source_dialect"])
    }
    from selenium.common.exceptions import StaleElementReferenceException

    WebDriverWait(browser, WAIT, ignored_exceptions=(StaleElementReferenceException,)).until(
        lambda d: set(shown_ids(d)) == expected
    )  # the table is redrawn under the wait
    assert console_errors(browser) == []


def test_the_level_filter_and_item_view_show_bounded_equivalent(browser, run_dirs, tmp_path):
    """Records a prover marked ``bounded-equivalent`` (built by code from the run's own lines):
    the level filter offers it and shows exactly them, and the item view states the bound."""
    import json

    from parrot.report.html import write_run_report

    run_dir = run_dirs["sqlglot"]
    manifest = json.loads((run_dir / "manifest.json").read_text())
    recs = records(run_dir)
    proved = {r["id"] for r in recs if r["verdicts"]["strict"]["match"]}
    proved = set(sorted(proved)[:3])
    for r in recs:
        if r["id"] in proved:
            r["level"] = {
                "name": "bounded-equivalent",
                "databases": r["level"]["databases"],
                "bound": 4,
            }
    write_run_report(run_dir, manifest, recs, tmp_path / "page.html")
    open_page(browser, tmp_path / "page.html", "#level=bounded-equivalent")
    assert set(shown_ids(browser)) == proved
    values = [
        o.get_attribute("value")
        for o in browser.find_elements("css selector", "select[name=level] option")
    ]
    assert "bounded-equivalent" in values
    open_page(browser, tmp_path / "page.html", f"#item={sorted(proved)[0]}")
    assert "up to 4 rows" in browser.find_element("css selector", "#level").text
    assert console_errors(browser) == []
