"""A fixture's primary key is declared on every engine that has keys (with the index it
implies): a duplicate key fails the same way on SQLite and DuckDB as on PostgreSQL and MariaDB,
and a lookup by key can use the index (a Spider-dev answer took 77 s without it)."""

from __future__ import annotations

import pytest
from engine_fixtures import ALLTYPES

from parrot.engines import Engine, ExecStatus


@pytest.mark.parametrize("engine_name", ["sqlite", "duckdb", "postgres", "mysql"])
def test_a_duplicate_primary_key_fails_on_every_engine(engine: Engine) -> None:
    engine.load(ALLTYPES)
    execution = engine.execute(
        "INSERT INTO t (id) VALUES (1); SELECT count(*) FROM t", ALLTYPES, timeout=60
    )
    assert execution.status is ExecStatus.RUNTIME_ERROR, execution
    assert engine.checksums(ALLTYPES) == dict(ALLTYPES.checksums)


@pytest.mark.parametrize("engine_name", ["sqlite"])
def test_sqlite_looks_rows_up_by_the_key_index(engine: Engine) -> None:
    engine.load(ALLTYPES)
    plan = engine.execute("EXPLAIN QUERY PLAN SELECT s FROM t WHERE id = 3", ALLTYPES, timeout=60)
    assert plan.status is ExecStatus.OK, plan.error
    assert plan.result is not None
    assert any("USING INDEX t__pkey" in str(row) for row in plan.result.rows), plan.result
