"""Helpers of the HTML report tests: a run's records and summary, a page's tables."""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path


def records(run_dir: Path) -> list[dict]:
    return [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines()]


def summary(run_dir: Path) -> dict:
    return json.loads((run_dir / "summary.json").read_text())


class Tables(HTMLParser):
    """Every <table> of a page as (caption, [[cell text, ...], ...]), header row first."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: list[tuple[str, list[list[str]]]] = []
        self._cell: list[str] | None = None
        self._caption: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list) -> None:
        if tag == "table":
            self.tables.append(("", []))
        elif tag == "caption":
            self._caption = []
        elif tag == "tr" and self.tables:
            self.tables[-1][1].append([])
        elif tag in ("td", "th") and self.tables:
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._cell is not None:
            self.tables[-1][1][-1].append("".join(self._cell).strip())
            self._cell = None
        elif tag == "caption" and self._caption is not None:
            self.tables[-1] = ("".join(self._caption).strip(), self.tables[-1][1])
            self._caption = None

    def handle_data(self, data: str) -> None:
        for buf in (self._cell, self._caption):
            if buf is not None:
                buf.append(data)


def html_tables(page: str) -> list[tuple[str, list[list[str]]]]:
    parser = Tables()
    parser.feed(page)
    return parser.tables
