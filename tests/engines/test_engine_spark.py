"""Spark-specific checks: statement splitting and guards (no JVM needed), isolation of the shared
session's catalog, value conversions, timeouts that outlive cancellation, recovery after the JVM
dies. The cross-engine suite covers the rest of the contract."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from engine_fixtures import SHOP, col, make_fixture
from patience import SLACK, wait_until, within

from parrot.engines import Engine, ExecStatus
from parrot.engines import spark as sp
from parrot.engines import statements as st
from parrot.engines import worker as engine_worker
from parrot.fixtures import Fixture
from parrot.values import Nested, Temporal

pytestmark = pytest.mark.spark
needs_spark = pytest.mark.skipif(
    sp.SparkEngine.available() is not None, reason=f"Spark is not available: {sp.INSTALL_HINT}"
)


def on_spark(test: Callable[..., None]) -> Callable[..., None]:
    """Run ``test`` on the Spark engine (its ``engine`` fixture); skipped without Spark."""
    return needs_spark(pytest.mark.parametrize("engine_name", ["spark"], indirect=True)(test))


def rows(engine: Engine, sql: str, **kw: Any) -> tuple:
    ex = engine.execute(sql, SHOP, **kw)
    assert ex.status is ExecStatus.OK, f"{ex.status}: {ex.error}"
    assert ex.result is not None
    return ex.result.rows


def status(engine: Engine, sql: str, **kw: Any) -> ExecStatus:
    return engine.execute(sql, SHOP, **kw).status


# --- guards (no JVM) ------------------------------------------------------------------------------

REFUSED = [
    "ADD JARS '/x.jar'",
    "add archive '/x.zip'",
    "LOAD DATA INPATH '/x' INTO TABLE t",
    "FROM customers INSERT OVERWRITE LOCAL DIRECTORY '/x' SELECT *",
    "ALTER TABLE t SET LOCATION '/x'",
    'CREATE SCHEMA s LOCATION "/x"',
    "CREATE TABLE t (a INT) LOCATION r'/x'",
    "ALTER TABLE t ADD PARTITION (p=1) LOCATION '/x'",
    "CREATE TABLE t USING jdbc OPTIONS (url 'jdbc:x')",
    "SELECT MAP(id) USING 'sh -c x' FROM t",
    "SELECT REDUCE(id) USING 'x' AS y FROM t",
    "CREATE FUNCTION f AS 'a.B' USING JAR '/x.jar'",
    "CREATE OR REPLACE TEMPORARY FUNCTION f AS 'a.B'",
    "CREATE FUNCTION f(x INT) RETURNS INT LANGUAGE PYTHON RETURN x",
    "SELECT `reflect`('java.lang.String', 'valueOf', 1)",
    "SELECT system.builtin.java_method('a', 'b')",
    "SELECT try_reflect('a', 'b')",
    "SELECT IDENTIFIER('system.builtin.reflect')('a', 'b')",
    "SELECT IDENTIFIER(v)(1)",
    "SELECT * FROM IDENTIFIER(concat('t', ''))",
    "CREATE TEMPORARY FUNCTION f() RETURN reflect('a', 'b')",
    "BEGIN DECLARE q STRING DEFAULT 'SELECT 1'; EXECUTE IMMEDIATE q; END",
    "SET `spark.sql.runSQLOnFiles`=true",
    "RESET spark.sql.variable.substitute",
    "SET spark.sql.catalog.evil.url = jdbc:x",
    "SET spark.sql.defaultCatalog = evil",
    "SET spark.sql.sources.commitProtocolClass = a.B",
    "SET spark.hadoop.fs.x = y",
    "SET spark.sql.legacy.notReserveProperties = true",
]
ALLOWED = [
    "SELECT transform(array(1, 2), x -> x + 1)",
    "SELECT location FROM t",
    "SELECT location, 'x' FROM t WHERE location LIKE 'x%'",
    "SELECT options FROM t",
    "UPDATE t SET name = 'x'",
    "SET spark.sql.ansi.enabled = false",
    "SET spark.sql.legacy.timeParserPolicy = LEGACY",
    "SET TIME ZONE 'Asia/Tokyo'",
    "SET x = 1",
    "RESET",
    "SELECT * FROM a JOIN b USING (id)",
    "MERGE INTO t USING s ON t.id = s.id WHEN MATCHED THEN UPDATE SET *",
    "CREATE TABLE t (a INT) USING parquet",
    "CREATE TABLE t USING csv AS SELECT 1 AS a",
    "CREATE FUNCTION f(x INT) RETURNS INT LANGUAGE SQL RETURN x * 2",
    "CREATE TEMPORARY FUNCTION f(x STRING) RETURNS STRING RETURN x || 'as'",
    "SELECT * FROM IDENTIFIER('customers')",
    "SELECT 'reflect(' AS s",
    "SELECT 'ADD JAR x', 'LOCATION ''x''' AS location",
    "UPDATE t SET classname = 'x'",
    "SELECT add AS file, load AS data FROM t",
]


@pytest.mark.parametrize(
    ("sql", "refused"), [(sql, True) for sql in REFUSED] + [(sql, False) for sql in ALLOWED]
)
def test_guard(sql: str, refused: bool) -> None:
    assert isinstance(sp.GUARD.plan(st.splitter("spark").split(sql)), str) is refused, sql


def test_fixture_tables_are_copied_only_for_writes() -> None:
    tables = {"customers", "orders", "items"}

    def copies(sql: str) -> set[str]:
        plans = sp.GUARD.plan(st.splitter("spark").split(sql))
        assert not isinstance(plans, str), plans
        return sp._tables_to_copy(plans, tables)

    assert copies("SELECT * FROM customers JOIN orders ON 1 = 1; DROP TABLE items") == set()
    assert copies("CREATE TEMPORARY VIEW v AS SELECT * FROM customers") == set()
    assert copies("CREATE VIEW v AS SELECT * FROM `customers`; SELECT * FROM v") == {"customers"}
    assert copies("INSERT INTO customers SELECT * FROM orders") == {"customers", "orders"}
    assert copies("FROM items INSERT INTO x SELECT *") == {"items"}
    assert copies("TRUNCATE TABLE IDENTIFIER('Orders')") == {"orders"}


# --- the shared session ---------------------------------------------------------------------------


@on_spark
def test_catalog_objects_never_outlive_an_execution(engine: Engine, shop: Fixture) -> None:
    assert rows(
        engine,
        "CREATE DATABASE evil; USE evil; CREATE TABLE t AS SELECT 1 AS x; "
        "CREATE VIEW default.v AS SELECT 2 AS y; "
        "CREATE FUNCTION default.f() RETURNS INT RETURN 3; "
        "CREATE GLOBAL TEMPORARY VIEW g AS SELECT 4 AS z; "
        "CACHE TABLE c AS SELECT 5 AS w; "
        "SELECT (SELECT x FROM evil.t) + (SELECT y FROM default.v) + "
        "default.f() + (SELECT z FROM global_temp.g) + (SELECT w FROM c)",
    ) == ((15,),)
    assert rows(engine, "SHOW DATABASES") == (("default",),)
    assert rows(engine, "SHOW TABLES IN default") == ()
    assert rows(engine, "SHOW TABLES IN global_temp") == ()
    assert rows(engine, "SHOW USER FUNCTIONS") == ()
    for probe in (
        "SELECT * FROM evil.t",
        "SELECT * FROM default.v",
        "SELECT default.f()",
        "SELECT * FROM global_temp.g",
        "SELECT * FROM c",
    ):
        assert status(engine, probe) is ExecStatus.RUNTIME_ERROR, probe
    spark = sp._RUNTIME.spark
    assert spark._jsparkSession.sharedState().cacheManager().isEmpty()


@on_spark
def test_session_state_never_outlives_an_execution(engine: Engine, shop: Fixture) -> None:
    assert rows(
        engine,
        "CREATE TEMPORARY FUNCTION twice(x INT) RETURNS INT RETURN x * 2; "
        "DECLARE VARIABLE k INT DEFAULT 20; SET spark.sql.ansi.enabled = false; "
        "CREATE DATABASE d2; USE d2; SELECT twice(k) + 2",
    ) == ((42,),)
    assert status(engine, "SELECT twice(1)") is ExecStatus.RUNTIME_ERROR
    assert status(engine, "SELECT k") is ExecStatus.RUNTIME_ERROR
    assert rows(engine, "SELECT current_database()") == (("default",),)
    assert status(engine, "SELECT CAST('a' AS INT)") is ExecStatus.RUNTIME_ERROR  # ANSI again
    assert rows(engine, "SET spark.sql.runSQLOnFiles") == (("spark.sql.runSQLOnFiles", "false"),)


@on_spark
def test_writes_go_to_scratch_copies(engine: Engine, shop: Fixture) -> None:
    assert rows(
        engine,
        "INSERT INTO customers VALUES (5, 'Eve', NULL); TRUNCATE TABLE orders; "
        "ALTER TABLE items RENAME TO gone; "
        "SELECT (SELECT count(*) FROM customers), (SELECT count(*) FROM orders), "
        "(SELECT count(*) FROM gone)",
    ) == ((5, 0, 3),)
    assert rows(
        engine,
        "CREATE VIEW big AS SELECT * FROM orders WHERE amount > 10; SELECT id FROM big ORDER BY id",
    ) == ((10,), (12,))
    ex = engine.execute("DELETE FROM customers WHERE id = 1", shop)  # v1 tables: Spark says no
    assert ex.status is ExecStatus.RUNTIME_ERROR and ex.error
    assert engine.checksums(shop) == shop.checksums
    assert rows(engine, "SELECT count(*) FROM customers") == ((4,),)


@on_spark
def test_sql_scripts_and_multiple_statements(engine: Engine, shop: Fixture) -> None:
    assert rows(
        engine,
        "BEGIN DECLARE n INT DEFAULT 0; WHILE n < 3 DO SET n = n + 1; "
        "END WHILE; SELECT n * 14; END",
    ) == ((42,),)
    assert rows(engine, "SET x = 1; SELECT 2 AS y; SET z = 3") == ((2,),)
    assert rows(engine, "SET spark.sql.ansi.enabled") == (("spark.sql.ansi.enabled", "true"),)


@on_spark
def test_spark_values(engine: Engine, shop: Fixture) -> None:
    ex = engine.execute(
        """
        SELECT map('k', 2, 'j', NULL) AS m, named_struct('b', 1, 'a', array(DATE '2024-01-05'))
               AS s, array(named_struct('t', TIMESTAMP_NTZ '2024-01-05 10:00:00.5')) AS ats,
               X'00ff' AS bin, CAST(0.1 AS FLOAT) AS f32, INTERVAL '1 02:00:00' DAY TO SECOND
               AS dts, INTERVAL '1-2' YEAR TO MONTH AS ym, DATE '2024-01-05' - DATE '2024-01-01'
               AS diff, parse_json('{"b": [1, 2.5], "a": null}') AS v,
               CAST(-0.5 AS DECIMAL(10, 2)) AS dec, 9223372036854775807 AS big,
               CAST('a' AS CHAR(3)) AS ch, map(1, array(2)) AS im,
               make_interval(0, 1, 0, 2) AS cal, TIMESTAMP_NTZ '1900-01-01 00:00:00.000001' AS old
        """,
        shop,
    )
    assert ex.ok and ex.result is not None, ex.error
    row = dict(zip(ex.result.columns, ex.result.rows[0], strict=True))
    types = dict(zip(ex.result.columns, ex.result.types, strict=True))
    assert row["m"] == Nested('{"j":null,"k":2}')
    assert row["s"] == Nested('{"a":["2024-01-05"],"b":1}')
    assert row["ats"] == Nested('[{"t":"2024-01-05 10:00:00.5"}]')
    assert row["bin"] == b"\x00\xff"
    assert row["f32"] == 0.10000000149011612
    assert row["dts"] == Nested('{"interval_seconds": 93600.0}')
    assert row["ym"] == Nested('{"interval_seconds": 36288000.0}')  # 14 months of 30 days
    assert row["diff"] == Nested('{"interval_seconds": 345600.0}')
    assert row["v"] == Nested('{"a":null,"b":[1,2.5]}')
    assert row["dec"] == Decimal("-0.50") and str(row["dec"]) == "-0.50"
    assert row["big"] == 9223372036854775807
    assert row["ch"] == "a"  # CAST to CHAR(n) does not pad
    assert row["im"] == Nested('{"1":[2]}')
    assert row["cal"] == "1 months 2 days"
    assert row["old"] == Temporal("timestamp", "1900-01-01 00:00:00.000001")
    assert types["dec"] == "decimal(10,2)" and types["ym"] == "interval year to month"


@on_spark
def test_instants_come_back_in_utc_whatever_the_local_time_zone(
    engine: Engine, shop: Fixture
) -> None:
    sql = (
        "SELECT TIMESTAMP '2024-01-05 10:00:00.25', array(TIMESTAMP '2024-03-31 02:30:00'), "
        "TIMESTAMP_NTZ '2024-01-05 10:00:00'"
    )
    expected = (
        Temporal("timestamp", "2024-01-05 10:00:00.25"),
        Nested('["2024-03-31 02:30:00"]'),
        Temporal("timestamp", "2024-01-05 10:00:00"),
    )
    saved = os.environ.get("TZ")
    try:
        for tz in ("UTC", "Asia/Tokyo", "Europe/Berlin"):  # pyspark converts in the local zone
            os.environ["TZ"] = tz
            time.tzset()
            assert rows(engine, sql) == (expected,), tz
    finally:
        if saved is None:
            os.environ.pop("TZ", None)
        else:
            os.environ["TZ"] = saved
        time.tzset()
    # the session time zone is the translation's to change, for its own execution
    assert rows(
        engine,
        "SET TIME ZONE 'Asia/Tokyo'; SELECT TIMESTAMP '2024-01-05 10:00:00', "
        "TIMESTAMP_NTZ '2024-01-05 10:00:00'",
    ) == (
        (
            Temporal("timestamp", "2024-01-05 01:00:00"),
            Temporal("timestamp", "2024-01-05 10:00:00"),
        ),
    )


@on_spark
def test_ansi_mode_is_spark_4s_default(engine: Engine, shop: Fixture) -> None:
    assert rows(engine, "SET spark.sql.ansi.enabled") == (("spark.sql.ansi.enabled", "true"),)
    assert status(engine, "SELECT 2147483647 + 1") is ExecStatus.RUNTIME_ERROR
    assert rows(engine, "SET spark.sql.ansi.enabled = false; SELECT 2147483647 + 1") == (
        (-2147483648,),
    )
    assert rows(engine, "SELECT NULL AS n UNION ALL SELECT 1 ORDER BY n") == ((None,), (1,))


@on_spark
def test_messages_are_short_and_plan_free(engine: Engine, shop: Fixture) -> None:
    ex = engine.execute("SELECT nosuch FROM customers", shop)
    assert ex.error is not None and ex.error.startswith("[UNRESOLVED_COLUMN")
    assert "Project" not in ex.error and "LogicalRDD" not in ex.error
    ex = engine.execute("SELECT id, CAST(name AS INT) FROM customers", shop)  # fails in a task
    assert ex.status is ExecStatus.RUNTIME_ERROR
    assert ex.error is not None and ex.error.startswith("[CAST_INVALID_INPUT]")
    assert "\tat " not in ex.error


@on_spark
@pytest.mark.parametrize(
    "sql",
    [
        # driver-side loops: stopped by interrupting the JVM thread, not by cancelling jobs
        "WITH RECURSIVE r(n) MAX RECURSION LEVEL 1000000 AS (SELECT 1 UNION ALL SELECT n + 1 "
        "FROM r) SELECT count(*) FROM r",
        "WITH RECURSIVE r(n) MAX RECURSION LEVEL 1000000 AS (SELECT id FROM range(1) UNION ALL "
        "SELECT n + 1 FROM r) SELECT count(*) FROM r",
        # millions of rows unpickled and converted in Python: stopped by the worker's stop flag
        "SELECT id, id * 2, CAST(id AS STRING) FROM range(3000000)",
    ],
)
def test_timeouts_stop_work_that_is_not_a_job(engine: Engine, shop: Fixture, sql: str) -> None:
    started = time.monotonic()
    ex = engine.execute(sql, shop, timeout=0.5, max_rows=10**7)
    assert ex.status is ExecStatus.TIMEOUT, (ex.status, ex.error)
    assert within(started, 0.5 + 1)  # the contract: timeout + 1 s (measured in scripts/bench/)
    # the work itself stopped (it runs for hours if nothing stops it)
    assert wait_until(
        lambda: not any(w.busy for w, _ in sp._RUNTIME._abandoned), patience=2 * SLACK
    )
    assert rows(engine, "SELECT count(*) FROM customers") == ((4,),)


@on_spark
def test_a_write_cut_short_leaves_nothing_behind(engine: Engine, shop: Fixture) -> None:
    ex = engine.execute(
        "CREATE TABLE big AS SELECT a.id FROM range(100000000) a, range(10) b", shop, timeout=0.5
    )
    assert ex.status is ExecStatus.TIMEOUT, (ex.status, ex.error)
    stray = Path(sp._RUNTIME.root or "") / "warehouse" / "big"
    stray.mkdir(exist_ok=True)  # as a write killed between its files and its metadata leaves it
    (stray / "part-0").write_text("x")
    # generous: on a loaded 2-core machine the cancelled tasks may still hold the executor
    assert rows(engine, "CREATE TABLE big AS SELECT 1 AS x; SELECT x FROM big", timeout=120) == (
        (1,),
    )
    assert not stray.exists()


def _task_threads_at_work(spark: Any) -> int:
    """Threads of the local executor running a task, read from the JVM's own threads."""
    jvm: Any = spark._jvm
    count = 0
    for entry in jvm.java.lang.Thread.getAllStackTraces().entrySet():
        if str(entry.getKey().getName()).startswith("Executor task launch worker"):
            frames = [str(f) for f in entry.getValue()]
            count += any("Executor$TaskRunner.run" in f for f in frames)
    return count


@on_spark
def test_the_next_use_waits_out_the_tasks_of_a_cancelled_write(
    engine: Engine, shop: Fixture
) -> None:
    # a cancelled write's tasks loop on where Spark never checks, while its scheduler already
    # counts no running task: the next use must not start beside them (they hold the cores)
    runtime = sp._RUNTIME
    for _ in range(2):
        ex = engine.execute(
            "CREATE TABLE big AS SELECT a.id FROM range(100000000) a, range(10) b",
            shop,
            timeout=0.5,
        )
        assert ex.status is ExecStatus.TIMEOUT, (ex.status, ex.error)
        with runtime.lock:
            runtime.session()
            assert _task_threads_at_work(runtime.spark) == 0


@on_spark
def test_steps_that_ignore_every_stop_are_abandoned(engine: Engine, shop: Fixture) -> None:
    runtime = sp._RUNTIME
    with runtime.lock:
        outcome = runtime.call(lambda stop: time.sleep(2), sp.st.Deadline(0.2), "parrot-test")
        assert outcome.fired
        worker, group = runtime._abandoned[-1]  # still sleeping: abandoned, not waited for
        assert worker.busy and group == "parrot-test" and runtime._worker is None
    assert rows(engine, "SELECT count(*) FROM customers", timeout=120) == ((4,),)  # new worker
    assert wait_until(lambda: not worker.busy)
    runtime.session()
    assert worker not in [w for w, _ in runtime._abandoned]


@on_spark
def test_instances_share_the_session_safely(engine_name: str) -> None:
    engines = [sp.SparkEngine() for _ in range(2)]
    outcomes: list[Any] = []

    def work(e: Engine) -> None:
        for i in range(3):
            outcomes.append(
                rows(
                    e,
                    f"CREATE FUNCTION twice(x INT) RETURNS INT RETURN x * 2; "
                    f"CREATE TABLE t AS SELECT {i} AS v; "
                    "SELECT twice(v) FROM t",
                )
            )

    try:
        threads = [threading.Thread(target=work, args=(e,)) for e in engines]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert sorted(outcomes) == [((0,),), ((0,),), ((2,),), ((2,),), ((4,),), ((4,),)]
    finally:
        for e in engines:
            e.close()


@on_spark
def test_no_files_outside_the_temporary_directory(engine: Engine, shop: Fixture) -> None:
    rows(
        engine,
        "CREATE TABLE t AS SELECT * FROM customers; INSERT INTO customers "
        "VALUES (9, 'x', 'y'); SELECT count(*) FROM t",
    )
    root = Path(sp._RUNTIME.root or "")
    assert root.is_dir() and (root / "warehouse").is_dir()
    assert list((root / "warehouse").iterdir()) == []  # scratch tables dropped with their files
    for leftover in ("spark-warehouse", "metastore_db", "derby.log"):
        assert not Path(leftover).exists()
    jvm: Any = sp._RUNTIME.spark._jvm
    assert str(jvm.java.lang.System.getProperty("java.io.tmpdir")).startswith(str(root))


@pytest.mark.slow
@on_spark
def test_a_dead_jvm_is_an_engine_error_then_restarts(engine: Engine, shop: Fixture) -> None:
    runtime = sp._RUNTIME
    old_root, old_generation = runtime.root, runtime.generation
    jvm: Any = runtime.spark._jvm
    pid = int(jvm.java.lang.ProcessHandle.current().pid())
    os.kill(pid, 9)  # the JVM this process started
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and Path(f"/proc/{pid}").exists():
        time.sleep(0.1)
    ex = engine.execute("SELECT count(*) FROM customers", shop)
    assert ex.status is ExecStatus.ENGINE_ERROR and ex.error
    assert rows(engine, "SELECT count(*) FROM customers") == ((4,),)  # new session, reloaded
    assert runtime.generation == old_generation + 1
    assert old_root is not None and not Path(old_root).exists()
    assert engine.checksums(shop) == shop.checksums


@pytest.mark.slow
@on_spark
def test_a_long_runaway_restarts_the_session(
    engine: Engine, shop: Fixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    runtime = sp._RUNTIME
    monkeypatch.setattr(sp, "RUNAWAY_LIMIT", 0.5)
    generation = runtime.generation
    with runtime.lock:
        runtime.call(lambda stop: time.sleep(3), sp.st.Deadline(0.1), "parrot-test")
    time.sleep(0.6)
    assert rows(engine, "SELECT count(*) FROM customers") == ((4,),)
    assert runtime.generation == generation + 1 and runtime._abandoned == []


# per row, a loop Spark never checks for cancellation: its tasks run on after their job is
# cancelled, and hold both cores (the Spark tier hung on such tasks of a cancelled cross join)
DEAF = (
    "SELECT sum(aggregate(sequence(1, 100000), 0L, (a, x) -> a + aggregate(sequence(1, "
    "100000 + id), 0L, (b, y) -> b + y))) FROM range(0, 4, 1, 2)"
)


@pytest.mark.slow
@on_spark
def test_tasks_that_ignore_cancellation_restart_the_session(
    engine: Engine, shop: Fixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The next use waits TASK_DRAIN for a cancelled job's tasks, then restarts the session: the
    fixture's read-back no longer waits for them for good (pytest's timeout failed it before)."""
    runtime = sp._RUNTIME
    monkeypatch.setattr(sp, "TASK_DRAIN", 1.0)

    def running() -> int:
        with runtime.lock:
            return _task_threads_at_work(runtime.spark)

    generation = runtime.generation
    for timeout in (3, 10, 30):  # long enough for its tasks to start on a loaded machine
        ex = engine.execute(DEAF, shop, timeout=timeout)
        assert ex.status is ExecStatus.TIMEOUT, (ex.status, ex.error)
        if running():
            break
    assert running()  # cancelled, still running
    assert engine.checksums(shop) == shop.checksums
    assert runtime.generation == generation + 1
    assert rows(engine, "SELECT count(*) FROM customers") == ((4,),)


@on_spark
def test_a_column_named_language_is_not_refused(engine: Engine) -> None:
    fixture = make_fixture(
        "langs",
        [
            {
                "name": "countrylanguage",
                "columns": [col("Language", "text")],
                "rows": [["Dutch"], ["Frisian"]],
            }
        ],
    )
    engine.load(fixture)
    ex = engine.execute("SELECT Language FROM countrylanguage ORDER BY Language", fixture)
    assert ex.status is ExecStatus.OK, ex.error
    refused = engine.execute(
        "CREATE OR REPLACE TEMPORARY FUNCTION f(x INT) RETURNS INT LANGUAGE PYTHON RETURN x",
        fixture,
    )
    assert refused.status is ExecStatus.UNSUPPORTED


@on_spark
def test_an_evicted_fixture_is_discarded_under_the_session_lock(
    engine_name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before: the worker's fixture cache evicting a fixture (``BoundedCache``'s ``on_evict`` →
    ``_forget`` → ``_discard``) released its frames without the session's lock, so it raced an
    execution on the same session in another thread. Now the discard waits for the lock."""
    engine = sp.SparkEngine()
    released: list[bool] = []
    real = sp._release

    def spy(frame: Any) -> None:
        released.append(sp._RUNTIME.lock._is_owned())  # type: ignore[attr-defined]
        real(frame)

    monkeypatch.setattr(sp, "_release", spy)
    monkeypatch.setattr(engine_worker, "KEPT_FIXTURES", 1)
    fixtures = engine_worker._Fixtures({"spark": engine})
    first, second = (
        make_fixture(name, [{"name": "t", "columns": [col("v", "integer")], "rows": [[1]]}])
        for name in ("evicted_first", "evicted_second")
    )
    try:
        fixtures.add(first)
        engine.load(first)
        with sp._RUNTIME.lock:  # an execution on the session, in this thread
            evicting = threading.Thread(target=fixtures.add, args=(second,))
            evicting.start()
            evicting.join(timeout=1.0)
            assert released == [], "a frame was released while an execution held the session"
        evicting.join()
        assert first.content_hash not in fixtures
        assert released == [True]  # the evicted fixture's one frame, under the lock
    finally:
        engine.close()
