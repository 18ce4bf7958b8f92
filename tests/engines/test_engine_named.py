"""Named fixtures migrated to every engine and verified: every Spider database (real, sometimes
dirty SQLite files) and TPC-H.

Spider cases skip when the shared corpora folder is absent, TPC-H cases without the
duckdb-extension-tpch wheel. The default tier loads the dirtiest Spider databases, those whose
names need quoting and TPC-H at sf 0.001; the ``slow`` tests load every Spider database and
TPC-H at sf 0.01.
"""

from __future__ import annotations

import time

import pytest

from parrot.engines import Engine
from parrot.migrate import named

needs_spider = pytest.mark.skipif(
    not named.spider_ids(), reason=f"no Spider corpus at {named.spider_root()}"
)
needs_tpch = pytest.mark.skipif(
    not named.tpch_available(), reason="duckdb-extension-tpch is not installed"
)

# bike_1: '' and 'nil'/'T' in INTEGER columns, '94040-1724' zip codes, m/d/Y dates, 10k+ rows;
# college_1: DATETIME values like '1978-2-23'; hr_1: '0000-00-00' dates and DECIMAL(2,2);
# flight_1: DATE columns holding '04/12/2005 09:30'; concert_singer: BOOL columns of 'T'/'F';
# university_basketball: a percentage in an INT column.
DIRTY = ["bike_1", "college_1", "hr_1", "flight_1", "concert_singer", "university_basketball"]
# names that can only be written quoted
QUOTED = {
    "aircraft": ("airport", "%_Change_2007"),
    "orchestra": ("performance", "Official_ratings_(millions)"),
    "perpetrator": ("people", "Home Town"),
    "tracking_grants_for_research": ("Tasks", "eg Agree Objectives"),
    "tvshow": ("TV_series", "18_49_Rating_Share"),
}
BACKTICKS = {"mysql", "spark"}  # engines whose default mode does not quote with "..."


def _spider(db_id: str) -> str:
    if db_id not in named.spider_ids():
        pytest.skip(f"{db_id} is not in this corpus")
    return f"spider/{db_id}"


@needs_spider
@pytest.mark.parametrize("db_id", DIRTY)
def test_dirty_spider_databases_load_and_verify(db_id: str, engine: Engine) -> None:
    fx = named.named_fixture(_spider(db_id))
    report = engine.load(fx)
    assert report.verified
    assert report.row_counts == {t.name: len(t.rows) for t in fx.tables}


@needs_spider
@pytest.mark.parametrize("db_id", sorted(QUOTED))
def test_names_that_need_quoting_load_and_answer_quoted_queries(
    db_id: str, engine: Engine, engine_name: str
) -> None:
    fx = named.named_fixture(_spider(db_id))
    table, column = QUOTED[db_id]
    assert engine.load(fx).verified
    q = "`" if engine_name in BACKTICKS else '"'
    run = engine.execute(f"SELECT count({q}{column}{q}) FROM {table}", fx)  # plain table names
    assert run.ok, run.error
    index = fx.table(table).column_names.index(column)
    assert run.result.rows[0][0] == sum(r[index] is not None for r in fx.table(table).rows)


@pytest.mark.slow
@needs_spider
def test_every_spider_database_loads_and_verifies(engine: Engine, engine_name: str) -> None:
    names = [n for n in named.available_named() if n.startswith("spider/")]
    assert not [n for n in named.unavailable_named() if n.startswith("spider/")]
    started = time.perf_counter()
    fixtures = [named.named_fixture(n) for n in names]
    resolved = time.perf_counter() - started
    failures = {}
    started = time.perf_counter()
    for fx in fixtures:
        try:
            assert engine.load(fx).verified
        except Exception as exc:
            failures[fx.name] = str(exc)[:300]
    loaded = time.perf_counter() - started
    rows = sum(len(t.rows) for fx in fixtures for t in fx.tables)
    print(
        f"{len(names)} Spider fixtures ({rows} rows): resolve {resolved:.2f}s, "
        f"load+verify on {engine_name} {loaded:.2f}s"
    )
    assert not failures


@needs_tpch
def test_small_tpch_loads_and_answers(engine: Engine) -> None:
    fx = named.named_fixture("tpch-sf0.001")
    report = engine.load(fx)
    assert report.verified and report.row_counts["lineitem"] == len(fx.table("lineitem").rows)
    run = engine.execute("SELECT count(*), sum(l_quantity) FROM lineitem", fx)
    assert run.ok, run.error
    index = fx.table("lineitem").column_names.index("l_quantity")
    assert run.result.rows[0][0] == len(fx.table("lineitem").rows)
    assert run.result.rows[0][1] == sum(r[index] for r in fx.table("lineitem").rows)


@pytest.mark.slow
@needs_tpch
def test_tpch_sf001_loads_and_verifies(engine: Engine, engine_name: str) -> None:
    started = time.perf_counter()
    fx = named.named_fixture("tpch")
    generated = time.perf_counter() - started
    assert sum(len(t.rows) for t in fx.tables) == 86_805
    report = engine.load(fx)
    print(
        f"tpch sf0.01: generate+introspect {generated:.2f}s, load+verify on {engine_name} "
        f"{report.seconds:.2f}s"
    )
    assert report.verified
