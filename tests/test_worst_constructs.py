"""report.html's "wrong most often": constructs ranked by the lower bound of their error rate's
Wilson interval, each linking its wrong items with the witnessed ones first (records built by
code)."""

from __future__ import annotations

import re

from outcomes import outcome

from parrot.report.html import worst_constructs


def _records() -> list[dict]:
    out = []
    for n in range(50):  # type: function, wrong on 40 of 50
        r = outcome(f"f{n:02d}", n >= 40)
        r["translation_types"] = ["function"]
        out.append(r)
    for n in range(2):  # tag: rare, wrong on 2 of 2: a higher share, far less evidence
        r = outcome(f"r{n}", False)
        r["tags"] = ["rare"]
        out.append(r)
    return out


def test_ranked_by_the_lower_bound_not_the_share() -> None:
    html = worst_constructs(_records(), {}, {})
    rows = re.findall(r'<th scope="row">([^<]*)</th>', html)
    assert rows == ["type: function", "tag: rare"]  # 40/50 [67.0–88.8] above 2/2 [34.2–100.0]
    assert "40/50" in html and "[67.0–88.8]" in html


def test_witnessed_items_come_first_and_the_rest_are_one_link_away() -> None:
    witness = {"f39": {"size": 2}}
    html = worst_constructs(_records(), {}, witness)  # type: ignore[arg-type]
    first = re.search(r"<td><a href=\"#item=([^\"]+)\"", html)
    assert first is not None and first.group(1) == "f39"
    assert "(witness: 2 rows)" in html
    assert '<a href="#type=function&amp;strict=fail">35 more</a>' in html


def test_no_wrong_item_no_table() -> None:
    assert worst_constructs([outcome("a", True)], {}, {}) == ""
