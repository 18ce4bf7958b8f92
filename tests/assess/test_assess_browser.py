"""``assessment.html`` in headless Chromium: no console errors, the cards equal to
``assessment.jsonl``, one row per statement, a review statement's witness opens, the page no
wider than the window."""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path

import pytest
from assessing import assess, database, results
from report_html.conftest import browser  # noqa: F401  (the session's headless Chromium)

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def assessed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    work = tmp_path_factory.mktemp("assess-page")
    (work / "q.sql").write_text(
        "SELECT COUNT(*) FROM t WHERE x > 5;\nSELECT COUNT(*) FROM t WHERE x > 7;\n"
        "SELECT COUNT(*) FROM t WHERE name LIKE 'a%';\nSELECT * FROM t WHERE k = $1;\n"
        "INSERT INTO t VALUES (99, 'z', 1);\n"
    )
    rows = [(1, "apple", 3), (2, "Avocado", 8), (3, "banana", 6)]
    database(work, "k INTEGER PRIMARY KEY, name TEXT, x INTEGER", rows)
    assert assess(work, "q.sql", "sqlite", "--db", str(work / "app.sqlite")) == 1
    return work / "out"


def test_the_page_matches_the_results(browser, assessed, tmp_path):  # noqa: F811
    lines = results(assessed)
    counts = Counter(x["verdict"] for x in lines)
    browser.get((assessed / "assessment.html").resolve().as_uri())
    assert [e for e in browser.get_log("browser") if e["level"] == "SEVERE"] == []
    for verdict in ("verified", "review", "failed", "not_assessed"):
        card = browser.find_element("css selector", f"#card-{verdict} b")
        assert card.text == str(counts.get(verdict, 0)), verdict
    rows = browser.find_elements("css selector", "#statements tr[id^=s-]")
    assert len(rows) == len(lines) == 5
    # the review statement's witness: closed at first, its tables shown once opened
    details = browser.find_element("css selector", "#statements details")
    pre = details.find_elements("css selector", "pre")[0]
    assert not pre.is_displayed()
    details.find_element("css selector", "summary").click()
    assert pre.is_displayed() and pre.text.startswith("t:")
    assert "witness" in details.find_element("css selector", "summary").text
    wide = browser.execute_script("return document.documentElement.scrollWidth > window.innerWidth")
    assert not wide
    shot = Path(os.environ.get("PARROT_SCREENSHOTS", tmp_path)) / "assessment.png"
    shot.parent.mkdir(parents=True, exist_ok=True)
    assert browser.save_screenshot(str(shot))
