"""Hostile SQL: texts an LLM might write to get out of the engine (our own cases).

Each case runs on one engine against the shared ``shop`` fixture and asserts containment: the
text is refused or fails (never ``ok``), the canary file is unchanged, no file is written
outside the engine, the fixture's checksums are unchanged and a normal query afterwards is
unaffected. Embedded engines run as an eval runs them: in isolated worker processes
(``parrot.engines.worker``; tests/engines/test_isolation.py covers that layer on its own).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from engine_fixtures import SHOP
from http_sink import serve_sink

from parrot.engines import Engine, ExecStatus, engine_class
from parrot.engines import statements as st
from parrot.fixtures import Fixture

SECRET = "parrot-hostile-canary-7f3a"
NORMAL = "SELECT count(*) FROM orders"

# (engine, case id, SQL with {canary} = a host file holding SECRET, {out} = a path to not write,
# {sink} = the URL of an HTTP server on 127.0.0.1 that counts the requests it gets)
CASES: list[tuple[str, str, str]] = [
    ("clickhouse", "url", "SELECT * FROM url('{sink}/x', 'LineAsString')"),
    ("clickhouse", "dollar-ident-url", "SELECT 1 AS x$$, * FROM url('{sink}/x', 'CSV') AS y$$"),
    ("duckdb", "http-read", "SELECT * FROM read_csv('{sink}/x.csv')"),
    ("postgres", "read-file", "SELECT pg_read_file('{canary}')"),
    ("postgres", "copy-program", "COPY (SELECT 1) TO PROGRAM 'touch {out}'"),
    ("postgres", "do-copy-program",
     "DO $$ BEGIN EXECUTE 'COPY (SELECT 1) TO PROGRAM ''touch {out}'''; END $$"),
    ("mysql", "load-data-local", "LOAD DATA LOCAL INFILE '{canary}' INTO TABLE orders"),
    ("spark", "csv-file", "SELECT * FROM csv.`{canary}`"),
    ("sqlite", "load-extension", "SELECT load_extension('{out}')"),
    # ClickHouse reads x$$ as an identifier; a $$-heredoc lexer hid what follows from the guard
    ("clickhouse", "dollar-ident-file-read",
     "SELECT 1 AS x$$, * FROM file('{canary}', 'LineAsString') AS y$$"),
    ("clickhouse", "dollar-ident-outfile",
     "SELECT 1 AS x$$, 2 INTO OUTFILE '{out}' AS y$$"),
    ("clickhouse", "file-read", "SELECT * FROM file('{canary}', 'LineAsString')"),
    ("clickhouse", "file-engine-write",
     "CREATE TABLE t (s String) ENGINE = File(LineAsString, '{out}'); "
     "INSERT INTO t VALUES ('x')"),
    ("clickhouse", "buffer-into-fixture",
     "CREATE TABLE b AS orders ENGINE = Buffer(currentDatabase(), orders, 1, 0, 0, 1, 1, 1, 1); "
     "INSERT INTO b SELECT * FROM orders"),
    # Spark ends the raw string r'\' at its second quote: the rest is code, not string
    ("spark", "raw-string-reflect",
     "SELECT r'\\', reflect('java.lang.System', 'getProperty', 'user.home') -- '"),
    ("spark", "raw-string-java-method",
     "SELECT R\"\\\", java_method('java.lang.System', 'getProperty', 'user.home') -- \""),
    ("spark", "reflect-exit", "SELECT reflect('java.lang.System', 'exit', 0)"),
    # DuckDB: external access is off at the source
    ("duckdb", "read-text", "SELECT * FROM read_text('{canary}')"),
    ("duckdb", "copy-out", "COPY (SELECT 1) TO '{out}'"),
    ("duckdb", "external-access-on", "SET enable_external_access = true"),
    # MariaDB: a backtick-quoted name still calls the function; NO_BACKSLASH_ESCAPES ends 'a\'
    ("mysql", "backtick-load-file", "SELECT `LOAD_FILE`('{canary}')"),
    ("mysql", "no-backslash-escapes",
     "SET sql_mode = 'NO_BACKSLASH_ESCAPES'; SELECT 'a\\', LOAD_FILE('{canary}') -- '"),
    ("mysql", "outfile", "SELECT 1 INTO OUTFILE '{out}'"),
    # SQLite
    ("sqlite", "attach-file", "ATTACH DATABASE '{out}' AS x"),
]


@pytest.fixture(scope="module")
def _isolated_pool() -> Iterator[dict[str, Engine]]:
    pool: dict[str, Engine] = {}
    yield pool
    for engine in pool.values():
        engine.close()


@pytest.fixture
def engine(engine_name: str, _isolated_pool: dict[str, Engine],
           _engine_pool: dict[str, Engine], servers: object) -> Engine:
    """The adapter as an eval runs it: embedded engines in an isolated worker process."""
    from parrot.engines.worker import isolated

    cls = engine_class(engine_name)
    if cls.url_schemes is not None:
        if engine_name not in _engine_pool:
            _engine_pool[engine_name] = cls(servers.url(cls.dialect))  # type: ignore[attr-defined,call-arg]
        return _engine_pool[engine_name]
    if engine_name not in _isolated_pool:
        _isolated_pool[engine_name] = isolated(cls)()
    return _isolated_pool[engine_name]


@pytest.fixture
def canary(tmp_path: Path) -> Path:
    path = tmp_path / "canary.txt"
    path.write_text(SECRET + "\n")
    return path


@pytest.fixture
def sink() -> Iterator[list[str]]:
    """[the sink's URL, then one entry per request it got]."""
    with serve_sink() as seen:
        yield seen


def _cases() -> list[pytest.param]:  # type: ignore[valid-type]
    return [pytest.param(e, sql, id=f"{e}-{case}") for e, case, sql in CASES]


@pytest.mark.parametrize(("engine_name", "sql"), _cases())
def test_hostile_sql_is_contained(engine: Engine, engine_name: str, sql: str, canary: Path,
                                  tmp_path: Path, sink: list[str]) -> None:
    engine.load(SHOP)
    out = tmp_path / "written.out"
    execution = engine.execute(sql.format(canary=canary, out=out, sink=sink[0]), SHOP,
                               timeout=30)
    assert execution.status is not ExecStatus.OK, execution.result
    assert sink[1:] == [], f"{engine_name} made HTTP requests: {sink[1:]}"
    assert canary.read_text() == SECRET + "\n"
    assert not out.exists(), f"{engine_name} wrote {out}"
    _assert_unaffected(engine, SHOP)


def _assert_unaffected(engine: Engine, fixture: Fixture) -> None:
    """The fixture is unchanged and a normal query still answers correctly."""
    assert engine.checksums(fixture) == dict(fixture.checksums)
    normal = engine.execute(NORMAL, fixture, timeout=60)
    assert normal.status is ExecStatus.OK, normal.error
    assert normal.result is not None and [list(r) for r in normal.result.rows] == [[4]]


@pytest.mark.parametrize("sql", [
    "SELECT `LOAD_FILE`('/etc/passwd')",
    "SELECT `load_file` ('/etc/passwd')",
    "SET sql_mode = 'NO_BACKSLASH_ESCAPES'; SELECT 'a\\', LOAD_FILE('/etc/passwd') -- '",
])
def test_mysql_guard_refuses_without_a_server(sql: str) -> None:
    from parrot.engines.mysql import _plan
    assert any(isinstance(_plan(text), str) for text in st.split_statements(sql, st.MYSQL))


# (engine, case id, SQL that keeps the engine busy far past a 2 s budget, the outcomes
# allowed): a timeout or an engine limit, never ok. How long a bomb ran is not asserted (loaded
# machines): the outcome and the run continuing afterwards are. Measured by hand, 2026-12-02:
# DuckDB repeat() 115 s in-process (reported timeout), 2.5 s in a worker (killed at timeout +
# 0.5 s); the others stop at their deadline or fail at once.
TIMEOUT_ONLY = (ExecStatus.TIMEOUT,)
LIMIT_OR_TIMEOUT = (ExecStatus.TIMEOUT, ExecStatus.RUNTIME_ERROR)
BOMBS: list[tuple[str, str, str, tuple[ExecStatus, ...]]] = [
    ("sqlite", "randomblob", "SELECT length(hex(randomblob(499999999)))", LIMIT_OR_TIMEOUT),
    ("sqlite", "recursive-cte",
     "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c",
     TIMEOUT_ONLY),
    ("duckdb", "repeat", "SELECT length(repeat('x', 2000000000))", LIMIT_OR_TIMEOUT),
    ("duckdb", "range", "SELECT count(*) FROM range(100000000000) t(i) WHERE hash(i) = 1",
     TIMEOUT_ONLY),
    ("mysql", "benchmark", "SELECT BENCHMARK(2000000000, MD5('x'))", TIMEOUT_ONLY),
    ("clickhouse", "numbers",
     "SELECT count() FROM numbers(100000000000) WHERE sipHash64(number) = 1", TIMEOUT_ONLY),
    ("spark", "cross-join",
     "SELECT count(*) FROM range(1000000) a CROSS JOIN range(1000000) b WHERE a.id + b.id = 7",
     TIMEOUT_ONLY),
]


@pytest.mark.parametrize(("engine_name", "sql", "allowed"),
                         [pytest.param(e, sql, allowed, id=f"{e}-{case}")
                          for e, case, sql, allowed in BOMBS])
def test_resource_bomb_stops_and_is_never_ok(engine: Engine, engine_name: str, sql: str,
                                             allowed: tuple[ExecStatus, ...]) -> None:
    engine.load(SHOP)
    execution = engine.execute(sql, SHOP, timeout=2)
    assert execution.status in allowed, execution
    _assert_unaffected(engine, SHOP)


# (engine, case id, SQL that changes session or global state, probe, the probe's answer)
STATE: list[tuple[str, str, str, str, list[list[object]]]] = [
    ("duckdb", "global-timezone", "SET GLOBAL TimeZone = 'America/New_York'",
     "SELECT current_setting('TimeZone')", [["UTC"]]),
    ("duckdb", "timezone", "SET TimeZone = 'Asia/Tokyo'",
     "SELECT current_setting('TimeZone')", [["UTC"]]),
    ("duckdb", "global-null-order",  # configuration is locked: no SET gets through
     "SET GLOBAL default_null_order = 'nulls_first'",
     "SELECT lower(current_setting('default_null_order'))", [["nulls_last"]]),
    ("duckdb", "variable", "SET VARIABLE parrot_x = 42",
     "SELECT getvariable('parrot_x') IS NULL", [[True]]),
    ("duckdb", "temp-macro", "CREATE TEMP MACRO parrot_m(a) AS a + 1",
     "SELECT count(*) FROM duckdb_functions() WHERE function_name = 'parrot_m'", [[0]]),
    ("sqlite", "temp-table", "CREATE TEMP TABLE parrot_t(x)",
     "SELECT count(*) FROM sqlite_temp_master WHERE name = 'parrot_t'", [[0]]),
    ("clickhouse", "session-timezone", "SET session_timezone = 'Asia/Tokyo'",
     "SELECT timezone()", [["UTC"]]),
    ("clickhouse", "function", "CREATE FUNCTION hostile_f AS (x) -> x + 1",
     "SELECT count() FROM system.functions WHERE name = 'hostile_f'", [[0]]),
    # PostgreSQL: state a DO block leaves on the runner connection survives ROLLBACK
    ("postgres", "do-advisory-lock",
     "DO $$ BEGIN PERFORM pg_advisory_lock(4242); END $$",
     "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()",
     [[0]]),
    ("postgres", "do-prepare",
     "DO $$ BEGIN EXECUTE 'PREPARE parrot_hostile AS SELECT 1'; END $$",
     "SELECT count(*) FROM pg_prepared_statements", [[0]]),
    ("postgres", "do-set-timezone",
     "DO $$ BEGIN PERFORM set_config('TimeZone', 'Asia/Tokyo', false); END $$",
     "SELECT current_setting('TimeZone')", [["UTC"]]),
]


@pytest.mark.parametrize(("engine_name", "sql", "probe", "expected"),
                         [pytest.param(e, sql, probe, want, id=f"{e}-{case}")
                          for e, case, sql, probe, want in STATE])
def test_state_does_not_leak_into_later_executions(engine: Engine, engine_name: str, sql: str,
                                                   probe: str,
                                                   expected: list[list[object]]) -> None:
    engine.load(SHOP)
    first = engine.execute(probe, SHOP, timeout=30)
    assert first.result is not None and [list(r) for r in first.result.rows] == expected
    engine.execute(sql, SHOP, timeout=30)
    after = engine.execute(probe, SHOP, timeout=30)
    assert after.status is ExecStatus.OK, after.error
    assert after.result is not None and [list(r) for r in after.result.rows] == expected
    _assert_unaffected(engine, SHOP)


@pytest.mark.spark
@pytest.mark.parametrize(("sql", "refused"), [
    ("SELECT reflect('java.lang.System', 'exit', 0)", True),
    ("SELECT `java_method`('java.lang.System', 'exit', 0)", True),
    ("SELECT system.builtin.try_reflect('java.lang.System', 'exit', 0)", True),
    ("SELECT TRANSFORM(a) USING 'cat' FROM VALUES (1) t(a)", True),
    ("BEGIN SELECT reflect('a', 'b'); END", True),
    ("CREATE TEMPORARY FUNCTION f() RETURNS STRING RETURN reflect('a', 'b')", True),
    ("SELECT IDENTIFIER('reflect')('a', 'b')", True),
    ("SELECT transform(array(1), x -> x + 1)", False),
    ("SELEC 1", False),  # left to fail as Spark's own syntax error
])
def test_spark_plan_guard(sql: str, refused: bool) -> None:
    from parrot.engines import spark
    if spark.SparkEngine.available() is not None:
        pytest.skip(f"spark is not available here: {spark.SparkEngine.available()}")
    session = spark._RUNTIME.session()
    assert (spark._plan_refusal(session, spark.split_statements(sql)) is not None) is refused


def test_clean_environ_drops_secrets() -> None:
    from parrot.engines.sandbox import clean_environ
    env = {"OPENAI_API_KEY": "k", "GITHUB_TOKEN": "t", "MY_SECRET": "s", "PGPASSWORD": "p",
           "PARROT_POSTGRES_URL": "postgresql://u:pw@h/db", "PATH": "/bin", "HOME": "/root"}
    assert clean_environ(env) == {"PATH": "/bin", "HOME": "/root"}


@pytest.mark.spark
def test_spark_jvm_environment_has_no_secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    from parrot.engines import spark
    if spark.SparkEngine.available() is not None:
        pytest.skip(f"spark is not available here: {spark.SparkEngine.available()}")
    monkeypatch.setenv("PARROT_HOSTILE_API_KEY", SECRET)
    with spark._RUNTIME.lock:
        spark._RUNTIME.stop()  # the next session starts a JVM from this environment
        session = spark._RUNTIME.session()
        pid = session._jvm.java.lang.ProcessHandle.current().pid()
    environ = Path(f"/proc/{pid}/environ").read_bytes()
    assert SECRET.encode() not in environ
    assert os.environ["PARROT_HOSTILE_API_KEY"] == SECRET  # put back for parrot itself


@pytest.mark.parametrize(("engine_name", "sql", "status"), [
    pytest.param("clickhouse", "SELECT length(groupArray(number)) FROM numbers(400000000)",
                 ExecStatus.RUNTIME_ERROR, id="clickhouse-3gb"),
    pytest.param("clickhouse", "SELECT length(groupArray(number)) FROM numbers(400000000) "
                 "SETTINGS max_memory_usage = 0", ExecStatus.UNSUPPORTED,
                 id="clickhouse-3gb-limit-off"),
])
def test_memory_bomb_fails_at_the_memory_limit(engine: Engine, engine_name: str, sql: str,
                                               status: ExecStatus) -> None:
    engine.load(SHOP)
    execution = engine.execute(sql, SHOP, timeout=120)
    assert execution.status is status, execution
    _assert_unaffected(engine, SHOP)


def test_sink_counts_requests(sink: list[str]) -> None:
    import urllib.request
    with urllib.request.urlopen(sink[0] + "/probe", timeout=10) as response:
        assert response.status == 200
    assert sink[1:] == ["/probe"]


@pytest.mark.parametrize(("sql", "refused"), [
    ("SELECT 1 AS x$$, * FROM file('/etc/passwd', 'LineAsString') AS y$$", True),
    ("SELECT * FROM `file`('/etc/passwd', 'LineAsString')", True),
    ("SELECT file('/etc/passwd')", True),
    ("INSERT INTO FUNCTION file('x', 'CSV') SELECT 1", True),
    ("CREATE TABLE t (s String) ENGINE = File(LineAsString, '/tmp/x')", True),
    ("CREATE TABLE b (a Int32) ENGINE = Buffer(default, t, 1, 0, 0, 1, 1, 1, 1)", True),
    ("SELECT * FROM url('http://127.0.0.1:1/x', 'CSV')", True),
    ("SELECT * FROM s3Cluster('c', 'http://x/y', 'CSV')", True),
    ("SELECT * FROM remoteSecure('h', system.one)", True),
    ("SELECT * FROM numbers(3) WHERE number > 1", False),
    ("CREATE TABLE t (a Int32) ENGINE = MergeTree ORDER BY a", False),
    ("SELECT arrayMap(x -> x + 1, [1, 2])", False),
    ("SELEC 1", False),  # left to fail as ClickHouse's own syntax error
])
def test_clickhouse_ast_guard(sql: str, refused: bool) -> None:
    """The guard from ClickHouse's own parser (EXPLAIN AST), without the token guard."""
    chdb = pytest.importorskip("chdb")
    from parrot.engines.clickhouse import _ast_refusal

    conn = chdb.connect(":memory:")
    try:
        assert (_ast_refusal(conn, sql) is not None) is refused
    finally:
        conn.close()
