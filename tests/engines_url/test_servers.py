"""Against a real server named by ``PARROT_<DIALECT>_URL`` (skipped otherwise): load a fixture,
run queries, hostile SQL leaves the fixture's checksums unchanged, timeouts and result caps.

Nothing here has a stand-in: without the variable (and the driver) a test is skipped, saying
which. Point these at a throwaway database or account — parrot creates ``parrot_fx_*`` schemas
there (and, where it can, a restricted user).
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from engine_fixtures import SHOP
from patience import within
from url_helpers import driver

from parrot.connect import create_engine
from parrot.engines import Engine, ExecStatus, url_from_env

pytestmark = pytest.mark.server

DRIVERS = {
    "oracle": "oracledb",
    "tsql": "pyodbc",
    "trino": "trino",
    "snowflake": "snowflake.connector",
    "clickhouse": "clickhouse_connect",
}

# statements that would change the fixture if they reached it
HOSTILE = {
    "oracle": [
        "DELETE FROM orders",
        "DROP TABLE orders",
        "TRUNCATE TABLE items",
        "UPDATE customers SET name = 'x'",
        "INSERT INTO customers VALUES (9, 'x', 'y')",
        "BEGIN EXECUTE IMMEDIATE 'DROP TABLE orders'; END;",
        "CREATE VIEW v AS SELECT 1 x FROM dual",
        "SELECT * FROM orders FOR UPDATE",
    ],
    "tsql": [
        "DELETE FROM orders",
        "DROP TABLE orders",
        "TRUNCATE TABLE items; SELECT 1",
        "UPDATE customers SET name = 'x'; COMMIT",
        "DELETE FROM orders\nGO\nCOMMIT",
        "CREATE PROCEDURE p AS DELETE FROM orders\nGO\nEXEC p",
        "DELETE FROM orders; SELECT 1 / 0",
        "ALTER TABLE orders DROP COLUMN amount",
        "EXEC('DELETE FROM orders')",
        "SELECT * INTO orders_copy FROM orders",
    ],
    "trino": [
        "DELETE FROM orders",
        "DROP TABLE orders",
        "INSERT INTO customers VALUES (9, 'x', 'y')",
        "CREATE TABLE t AS SELECT * FROM orders",
        "ALTER TABLE orders RENAME TO o2",
    ],
    "snowflake": [
        "DELETE FROM orders",
        "DROP TABLE orders",
        "TRUNCATE TABLE items",
        "CREATE OR REPLACE TABLE orders AS SELECT 1 x",
        "ALTER TABLE orders RENAME TO o2",
        "INSERT INTO customers VALUES (9, 'x', 'y')",
        "UPDATE customers SET name = 'x'",
    ],
    "clickhouse": [
        "DROP TABLE orders",
        "TRUNCATE TABLE items",
        "ALTER TABLE orders DELETE WHERE 1",
        "DELETE FROM orders WHERE 1",
        "INSERT INTO customers VALUES (9, 'x', 'y')",
        "CREATE OR REPLACE TABLE orders (x Int32) ENGINE = Memory",
        "RENAME TABLE orders TO o2",
        "SET readonly = 0",
    ],
}
# a write visible inside its own execution (engines that run writing scripts)
OWN_WRITES = {
    "tsql": "DELETE FROM orders; SELECT count(*) FROM orders",
    "snowflake": "DELETE FROM orders; SELECT count(*) FROM orders",
    "clickhouse": "DELETE FROM orders WHERE 1; SELECT count() FROM orders",
}
SLOW = {
    "oracle": "SELECT COUNT(*) FROM (SELECT LEVEL l FROM dual CONNECT BY LEVEL <= 100000) a, "
    "(SELECT LEVEL l FROM dual CONNECT BY LEVEL <= 100000) b",
    "tsql": "WAITFOR DELAY '00:00:30'",
    "trino": "SELECT count(*) FROM UNNEST(sequence(1, 100000)) a(x) "
    "CROSS JOIN UNNEST(sequence(1, 100000)) b(y)",
    "snowflake": "SELECT SYSTEM$WAIT(30)",
    "clickhouse": "SELECT count() FROM numbers(1000000000000)",
}
MANY_ROWS = {
    "oracle": "SELECT LEVEL FROM dual CONNECT BY LEVEL <= 100000",
    "tsql": "SELECT TOP 100000 a.object_id FROM sys.all_objects a CROSS JOIN sys.all_objects b",
    "trino": "SELECT * FROM UNNEST(sequence(1, 100000))",
    "snowflake": "SELECT SEQ4() FROM TABLE(GENERATOR(ROWCOUNT => 100000))",
    "clickhouse": "SELECT number FROM numbers(100000)",
}


@pytest.fixture(scope="module", params=sorted(DRIVERS))
def engine(request: pytest.FixtureRequest) -> Iterator[Engine]:
    dialect = str(request.param)
    url = url_from_env(dialect)
    if not url:
        pytest.skip(f"no {dialect} server: set PARROT_{dialect.upper()}_URL")
    if driver(DRIVERS[dialect]) is None:
        pytest.skip(f"{DRIVERS[dialect]} is not installed")
    with create_engine(dialect, url=url) as adapter:
        yield adapter


def dialect_of(engine: Engine) -> str:
    return engine.dialect


def test_load_verifies_and_is_shared(engine: Engine) -> None:
    report = engine.load(SHOP)
    assert report.verified and report.row_counts == {"customers": 4, "orders": 4, "items": 3}
    assert engine.checksums(SHOP) == SHOP.checksums
    url = url_from_env(engine.dialect)
    with create_engine(engine.dialect, url=url) as other:
        again = other.load(SHOP)  # found and verified, not rebuilt
        assert again.verified and again.checksums == report.checksums


def test_queries(engine: Engine) -> None:
    ex = engine.execute("SELECT name FROM customers WHERE id = 3", SHOP)
    assert ex.status is ExecStatus.OK, ex.error
    assert ex.result is not None and ex.result.rows == (("Linus",),)
    assert engine.execute("SELEC 1", SHOP).status is ExecStatus.SYNTAX_ERROR
    assert engine.execute("SELECT nope FROM customers", SHOP).status is ExecStatus.RUNTIME_ERROR


def test_hostile_sql_leaves_the_fixture_unchanged(engine: Engine) -> None:
    engine.load(SHOP)
    for sql in HOSTILE[dialect_of(engine)]:
        ex = engine.execute(sql, SHOP)
        assert ex.status is not ExecStatus.ENGINE_ERROR, (sql, ex.error)
        assert engine.checksums(SHOP) == SHOP.checksums, sql
    own = OWN_WRITES.get(dialect_of(engine))
    if own is not None:
        ex = engine.execute(own, SHOP)
        assert ex.status is ExecStatus.OK and ex.result is not None, ex.error
        assert ex.result.rows == ((0,),)
        assert engine.checksums(SHOP) == SHOP.checksums


def test_timeout_stops_the_query(engine: Engine) -> None:
    started = time.monotonic()
    ex = engine.execute(SLOW[dialect_of(engine)], SHOP, timeout=2.0)
    assert ex.status is ExecStatus.TIMEOUT, (ex.status, ex.error)
    assert within(started, 2.0 + 5.0)
    assert engine.execute("SELECT count(*) FROM orders", SHOP).ok


def test_result_cap(engine: Engine) -> None:
    ex = engine.execute(MANY_ROWS[dialect_of(engine)], SHOP, max_rows=100)
    assert ex.status is ExecStatus.TOO_LARGE, (ex.status, ex.error)
    assert engine.execute("SELECT count(*) FROM orders", SHOP).ok
