"""The judge's suite cache stays bounded (issue 31: kept for a whole polyglot run, its suites
were 292 MiB of the main process) and a suite dropped from it judges the same when read again."""

from __future__ import annotations

import dataclasses
import json
import shutil
from contextlib import closing
from pathlib import Path

import pytest

from parrot.datasets import Item, load_dataset
from parrot.eval import suites as suites_module
from parrot.eval.judge import Judge
from parrot.eval.suites import SuiteCache, suite_rows
from parrot.fixtures import Fixture, Table
from parrot.testsuite.store import Suite, SuiteDatabase, suite_key, write_suite
from parrot.translators.base import Translation, TranslationStatus

STARTER = Path(__file__).resolve().parents[1] / "datasets" / "starter"
SOURCES = [f"SELECT id, name FROM customers WHERE id > {n} ORDER BY id" for n in range(6)]


def _grown(fixture: Fixture, extra: int) -> Fixture:
    """``fixture`` with ``extra`` more customers (copies of the first under new ids)."""
    tables = []
    for t in fixture.tables:
        if t.name == "customers":
            more = tuple((9000 + i, *t.rows[0][1:]) for i in range(extra))
            t = Table(t.name, t.columns, (*t.rows, *more), t.primary_key)
        tables.append(t)
    return dataclasses.replace(fixture, tables=tuple(tables))


def _dataset(tmp_path: Path) -> list[Item]:
    """One sqlite → duckdb item per SOURCES on the starter ``shop`` fixture, each with a suite
    of two databases."""
    shutil.copytree(STARTER / "fixtures", tmp_path / "fixtures")
    lines = [
        {
            "id": f"cache-{n}",
            "source_dialect": "sqlite",
            "target_dialect": "duckdb",
            "source_sql": sql,
            "reference_sql": sql,
            "fixture": {"name": "shop"},
        }
        for n, sql in enumerate(SOURCES)
    ]
    (tmp_path / "items.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    items = load_dataset(str(tmp_path), count_tokens=False).items
    for item in items:
        fixture = item.fixture
        assert fixture is not None
        dbs = tuple(
            SuiteDatabase(fixture=_grown(fixture, extra), seed=extra, size=1) for extra in (1, 2)
        )
        write_suite(
            tmp_path,
            Suite(
                key=suite_key("sqlite", item.source_sql, fixture),
                source_dialect="sqlite",
                source_sql=item.source_sql,
                fixture_sha256=fixture.content_hash,
                databases=dbs,
            ),
        )
    return items


def test_the_cache_drops_the_least_recently_used_and_keeps_the_newest(tmp_path: Path) -> None:
    items = _dataset(tmp_path)
    judge = Judge(suite_dir=tmp_path)
    one = judge._suite(items[0])
    assert one is not None
    rows = suite_rows(one)
    cache = SuiteCache(entries=2, rows=2 * rows)
    for n, item in enumerate(items):
        cache.put((str(n), "", ""), judge._suite(item))
        assert len(cache) <= 2 and cache.rows <= 2 * rows
    assert ("5", "", "") in cache and ("4", "", "") in cache and ("3", "", "") not in cache
    cache.get(("4", "", ""))  # now the most recently used: "5" goes first
    cache.put(("none", "", ""), None)  # no suite: no rows, one entry
    assert ("4", "", "") in cache and ("5", "", "") not in cache and cache.rows == rows
    alone = SuiteCache(entries=3, rows=rows - 1)  # a suite over the bound is kept alone
    alone.put(("a", "", ""), one)
    assert len(alone) == 1 and alone.rows == rows


def test_the_judge_keeps_its_suites_bounded_and_judges_the_same_after_a_drop(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(suites_module, "KEPT_SUITES", 2)
    items = _dataset(tmp_path)

    def verdicts(judge: Judge, item: Item) -> object:
        translation = Translation(TranslationStatus.OK, item.source_sql)
        record = judge.judge(item, translation)
        return record["suite"]["match"], [d["match"] for d in record["suite"]["databases"]]

    with closing(Judge(suite_dir=tmp_path)) as judge:
        first = verdicts(judge, items[0])
        for item in items[1:]:
            verdicts(judge, item)
            assert len(judge._suites) <= 2
        assert (items[0].source_dialect, items[0].source_sql) not in {
            k[:2] for k in judge._suites._kept
        }
        assert verdicts(judge, items[0]) == first == (True, [True, True])
