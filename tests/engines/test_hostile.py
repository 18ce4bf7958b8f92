"""Hostile SQL: texts an LLM might write to get out of the engine (our own cases).

The cases are data, one table per engine (``hostile_cases.toml``: host file reads and writes,
network, environment, fixture writes, lexer tricks, session state, resource bombs). Each runs
on its engine against the shared ``shop`` fixture and asserts containment: the text is refused
or fails (never ``ok``, unless it may run on a throwaway copy), the canary file is unchanged
and in no answer, no file is written outside the engine, the HTTP sink got no request, the
fixture's checksums are unchanged after every execution and a normal query afterwards is
unaffected. A bomb must time out (or hit an engine limit) and its work must stop. Embedded
engines run as an eval runs them: in isolated worker processes (``parrot.engines.worker``;
tests/engines/test_isolation.py covers that layer on its own).
"""

from __future__ import annotations

import contextlib
import os
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from engine_fixtures import SHOP, engine_pool
from http_sink import serve_sink
from patience import wait_until

from parrot.engines import Engine, ExecStatus, engine_class
from parrot.engines import statements as st
from parrot.fixtures import Fixture

SECRET = "parrot-hostile-canary-7f3a"
NORMAL = "SELECT count(*) FROM orders"
TABLE: dict[str, Any] = tomllib.loads((Path(__file__).parent / "hostile_cases.toml").read_text())
CLASSES = {"file-read", "file-write", "network", "environment", "fixture-write", "lexer"}


def _table(kind: str) -> list[tuple[str, dict[str, Any]]]:
    return [(engine, case) for engine, kinds in TABLE.items() for case in kinds.get(kind, [])]


def test_every_engine_has_every_class() -> None:
    for engine, kinds in TABLE.items():
        assert {c["class"] for c in kinds["contain"]} == CLASSES, engine
        assert kinds["state"] and kinds["bomb"], engine
    assert set(TABLE) == {"sqlite", "duckdb", "clickhouse", "postgres", "mysql", "spark"}


@pytest.fixture(scope="module")
def _isolated_pool() -> Iterator[dict[str, Engine]]:
    with engine_pool() as pool:
        yield pool


@pytest.fixture
def engine(
    engine_name: str,
    _isolated_pool: dict[str, Engine],
    _engine_pool: dict[str, Engine],
    servers: object,
) -> Engine:
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


@pytest.fixture(scope="module", autouse=True)
def _secret_in_environment() -> Iterator[None]:
    """A secret in parrot's environment that no engine may answer with."""
    os.environ["PARROT_HOSTILE_API_KEY"] = SECRET
    yield
    del os.environ["PARROT_HOSTILE_API_KEY"]


@pytest.mark.parametrize(
    ("engine_name", "case"),
    [pytest.param(e, c, id=f"{e}-{c['class']}-{c['id']}") for e, c in _table("contain")],
)
def test_hostile_sql_is_contained(
    engine: Engine,
    engine_name: str,
    case: dict[str, Any],
    canary: Path,
    tmp_path: Path,
    sink: list[str],
) -> None:
    engine.load(SHOP)
    out = tmp_path / "written.out"
    execution = engine.execute(
        case["sql"].format(canary=canary, out=out, sink=sink[0]), SHOP, timeout=30
    )
    if not case.get("may_run"):
        assert execution.status is not ExecStatus.OK, execution.result
    assert SECRET not in repr(execution), execution
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


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT `LOAD_FILE`('/etc/passwd')",
        "SELECT `load_file` ('/etc/passwd')",
        "SET sql_mode = 'NO_BACKSLASH_ESCAPES'; SELECT 'a\\', LOAD_FILE('/etc/passwd') -- '",
    ],
)
def test_mysql_guard_refuses_without_a_server(sql: str) -> None:
    from parrot.engines.mysql import GUARD

    assert any(isinstance(GUARD.check(text), str) for text in st.split_statements(sql, st.MYSQL))


@pytest.mark.parametrize(
    ("engine_name", "case"), [pytest.param(e, c, id=f"{e}-{c['id']}") for e, c in _table("bomb")]
)
def test_resource_bomb_stops_and_is_never_ok(
    engine: Engine, engine_name: str, case: dict[str, Any], servers: Any
) -> None:
    """How long a bomb ran is not asserted here (loaded machines; scripts/bench/hostile.py
    measures it): the outcome, that its work stopped, and the run continuing afterwards are."""
    engine.load(SHOP)
    worker = _worker_pid(engine)
    execution = engine.execute(case["sql"], SHOP, timeout=2)
    assert execution.status.value in case["allowed"], execution
    if execution.status is ExecStatus.TIMEOUT:
        assert wait_until(lambda: not _still_working(engine, case["sql"], worker, servers), 60), (
            f"{engine_name} kept working on the bomb after its timeout"
        )
    _assert_unaffected(engine, SHOP)


def _worker_pid(engine: Engine) -> int | None:
    from parrot.engines.worker import POOL, IsolatedEngine

    if not isinstance(engine, IsolatedEngine):
        return None
    return POOL.get(engine.group).process.pid


def _still_working(engine: Engine, sql: str, worker: int | None, servers: Any) -> bool:
    """The engine still runs ``sql``: its old worker process is alive, or the server still
    lists the query (asked as the server's superuser)."""
    if worker is not None:
        return (
            Path(f"/proc/{worker}").exists()
            and Path(f"/proc/{worker}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
        )
    url = servers.url(engine.dialect)
    if engine.dialect == "postgres":
        import psycopg

        with psycopg.connect(url, autocommit=True, connect_timeout=10) as conn:
            row = conn.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE state = 'active' "
                "AND pid <> pg_backend_pid() AND strpos(query, %s) > 0",
                (sql,),
            ).fetchone()
    else:
        from parrot.engines.mysql import _Target

        conn = _Target.parse(url).connect()
        try:
            with conn.cursor() as cur:
                cur.execute(
                    "SELECT count(*) FROM information_schema.processlist WHERE "
                    "command = 'Query' AND id <> CONNECTION_ID() AND INSTR(info, %s)",
                    (sql,),
                )
                row = cur.fetchone()
        finally:
            conn.close()
    return bool(row and row[0])


@pytest.mark.parametrize(
    ("engine_name", "case"), [pytest.param(e, c, id=f"{e}-{c['id']}") for e, c in _table("state")]
)
def test_state_does_not_leak_into_later_executions(
    engine: Engine, engine_name: str, case: dict[str, Any]
) -> None:
    engine.load(SHOP)
    probe, expected = case["probe"], case["expect"]
    first = engine.execute(probe, SHOP, timeout=30)
    assert first.result is not None and [list(r) for r in first.result.rows] == expected
    engine.execute(case["sql"], SHOP, timeout=30)
    after = engine.execute(probe, SHOP, timeout=30)
    assert after.status is ExecStatus.OK, after.error
    assert after.result is not None and [list(r) for r in after.result.rows] == expected
    _assert_unaffected(engine, SHOP)


def _clickhouse_ast_refusal(sql: str) -> str | None:
    import chdb

    from parrot.engines.clickhouse import _ast_refusal

    with contextlib.closing(chdb.connect(":memory:")) as conn:
        return _ast_refusal(conn, sql)


def _spark_plan_refusal(sql: str) -> str | None:
    from parrot.engines import spark

    return spark._plan_refusal(spark._RUNTIME.session(), st.splitter("spark").split(sql))


# the guards that ask the engine's own parser (run here without the token guard)
PARSER_GUARDS = {"clickhouse": _clickhouse_ast_refusal, "spark": _spark_plan_refusal}


@pytest.mark.parametrize(
    ("engine_name", "case"),
    [pytest.param(e, c, id=f"{e}-{c['sql']}") for e, c in _table("guard")],
)
def test_parser_guard(engine_name: str, case: dict[str, Any]) -> None:
    assert (PARSER_GUARDS[engine_name](case["sql"]) is not None) is case["refused"]


def test_engine_environment_drops_secrets() -> None:
    from parrot.api.secrets import allowed_environ

    secrets = ["OPENAI_API_KEY", "GITHUB_TOKEN", "MY_SECRET", "PGPASSWORD", "PARROT_POSTGRES_URL"]
    # an allow-list, not a deny-list: these passed the old filter
    unlisted = ["MYSQL_PWD", "DATABASE_URL", "GITHUB_PAT", "ANY_OTHER"]
    env = {name: "postgresql://u:pw@h/db" for name in secrets + unlisted}
    env |= {"PATH": "/bin", "HOME": "/root"}
    assert allowed_environ(env) == {"PATH": "/bin", "HOME": "/root"}


def test_the_spark_engines_settings_reach_its_isolated_worker() -> None:
    """Regression: PARROT_SPARK_MEMORY / _JAVA_OPTIONS were off the child environment's
    allow-list, so a worker (isolation is the default) started the JVM with the defaults."""
    from parrot.api.secrets import allowed_environ
    from parrot.engines import spark

    names = [spark.MEMORY_VARIABLE, spark.JAVA_OPTIONS_VARIABLE]
    env = dict.fromkeys(names, "2g")
    assert allowed_environ(env) == env


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


@pytest.mark.parametrize(
    ("engine_name", "sql", "status"),
    [
        pytest.param(
            "clickhouse",
            "SELECT length(groupArray(number)) FROM numbers(400000000)",
            ExecStatus.RUNTIME_ERROR,
            id="clickhouse-3gb",
        ),
        pytest.param(
            "clickhouse",
            "SELECT length(groupArray(number)) FROM numbers(400000000) "
            "SETTINGS max_memory_usage = 0",
            ExecStatus.UNSUPPORTED,
            id="clickhouse-3gb-limit-off",
        ),
    ],
)
def test_memory_bomb_fails_at_the_memory_limit(
    engine: Engine, engine_name: str, sql: str, status: ExecStatus
) -> None:
    engine.load(SHOP)
    execution = engine.execute(sql, SHOP, timeout=120)
    assert execution.status is status, execution
    _assert_unaffected(engine, SHOP)


def test_sink_counts_requests(sink: list[str]) -> None:
    import urllib.request

    with urllib.request.urlopen(sink[0] + "/probe", timeout=10) as response:
        assert response.status == 200
    assert sink[1:] == ["/probe"]
