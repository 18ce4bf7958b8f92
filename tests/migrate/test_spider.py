"""Spider's real (and sometimes dirty) SQLite databases read as named fixtures.

Skipped when the shared corpora folder is absent. Loading them on every engine is tested in
``tests/engines/test_engine_spider.py``.
"""

from __future__ import annotations

import pytest

from parrot.connect import create_engine
from parrot.migrate import named

pytestmark = pytest.mark.skipif(
    not named.spider_ids(), reason=f"no Spider corpus at {named.spider_root()}"
)


def test_dirty_values_are_kept_exactly() -> None:
    if "bike_1" not in named.spider_ids():
        pytest.skip("bike_1 is not in this corpus")
    result = named.named_introspection("spider/bike_1")
    types = {(c.table, c.column): c.type for c in result.columns}
    assert types[("weather", "max_gust_speed_mph")] == "text"
    assert types[("weather", "precipitation_inches")] == "text"
    assert types[("status", "time")] == "text"  # declared TEXT: ISO-looking text stays text
    assert types[("station", "lat")] == "double"
    weather = result.fixture.table("weather")
    i = weather.column_names.index("max_gust_speed_mph")
    assert {"", "28"} <= {r[i] for r in weather.rows}


def test_gold_query_runs_on_the_migrated_sqlite_copy() -> None:
    if "concert_singer" not in named.spider_ids():
        pytest.skip("concert_singer is not in this corpus")
    fx = named.named_fixture("spider/concert_singer")
    with create_engine("sqlite") as engine:
        run = engine.execute(
            "SELECT name, country, age FROM singer WHERE is_male = 'T' ORDER BY age DESC", fx
        )
    assert run.ok and len(run.result.rows) == 4
