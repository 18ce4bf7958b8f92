"""A server killed mid-run is restarted; the affected item is retried and the run completes."""

import contextlib
import io
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from patience import wait_until
from processes import descendants

from parrot.api.results import read_results
from parrot.datasets import load_dataset
from parrot.eval.runner import RunConfig, run
from parrot.servers import server_for
from parrot.servers.base import pid_alive
from parrot.servers.mariadb import MariaDBServer
from parrot.servers.postgres import PostgresServer, processes_in
from parrot.translators import create_translator

pytestmark = pytest.mark.server

FIXTURE = {
    "name": "nums",
    "tables": [
        {
            "name": "n",
            "columns": [{"name": "k", "type": "integer"}, {"name": "v", "type": "text"}],
            "rows": [[i, f"v{i}"] for i in range(20)],
        }
    ],
}


@pytest.fixture(params=["postgres", "mysql"])
def server(request):
    server = server_for(request.param)
    hint = server.available()
    if hint is not None:
        pytest.skip(f"no {request.param} server: {hint}")
    yield server
    server.stop()


def _item(rid: str, target: str, sql: str, fixture: dict, reference: str = "") -> dict:
    """Item ``rid``: ``sql`` from SQLite to ``target``, its reference ``sql`` unless given."""
    return {
        "id": rid,
        "source_dialect": "sqlite",
        "target_dialect": target,
        "source_sql": sql,
        "reference_sql": reference or sql,
        "fixture": fixture,
    }


def _write(tmp_path: Path, items: list[dict]) -> Path:
    path = tmp_path / "items.jsonl"
    path.write_text("".join(json.dumps(i) + "\n" for i in items))
    return path


def _reference_run(tmp_path: Path, items: list[dict], on_result, **config) -> list[dict]:
    """The reference translator's run of ``items`` into ``tmp_path/run``, servers started."""
    dataset = load_dataset(str(_write(tmp_path, items)))
    out = RunConfig(output_dir=tmp_path / "run", start=True, **config)
    translator = create_translator("reference")
    return run(dataset, list(dataset.items), translator, out, on_result=on_result)


def _run_killing(tmp_path: Path, server, items: list[dict], after: str) -> tuple[list, list]:
    """:func:`_reference_run`, the server SIGKILLed once the record of item ``after`` is in: the
    records and the killed server's pid."""
    killed: list[int] = []

    def kill_after(record):
        if not killed and record["id"] == after:
            state = server.state()
            os.kill(state.pid, signal.SIGKILL)
            killed.append(state.pid)

    return _reference_run(tmp_path, items, kill_after), killed


def test_server_killed_mid_run_is_restarted_and_items_retried(tmp_path, server):
    sql = "SELECT k, v FROM n WHERE k < {} ORDER BY k"
    items = [_item(f"r{i}", server.dialect, sql.format(i), FIXTURE) for i in range(1, 9)]
    records, killed = _run_killing(tmp_path, server, items, "r3")
    assert killed
    assert [r["id"] for r in records] == [f"r{i}" for i in range(1, 9)]
    assert all(r["verdicts"]["strict"]["match"] for r in records), [
        r["verdicts"]["strict"] for r in records
    ]
    retried = [r for r in read_results(tmp_path / "run") if r.get("engine_errors_retried")]
    # one item after the kill meets the dead server and is retried: usually r4, but a
    # PostgreSQL backend can answer one more query before it notices its postmaster was
    # SIGKILLed (CI saw r5 once the judge reached r4 sooner)
    assert len(retried) == 1 and retried[0]["id"] in [f"r{i}" for i in range(4, 9)], retried
    assert retried[0]["engine_errors_retried"][0].startswith(f"{server.dialect}:")
    assert server.state().pid != killed[0]  # a fresh server


def test_server_killed_before_a_fixture_load_is_an_engine_error_retried(tmp_path, server):
    """Each item has its own fixture, so after the kill the first call to reach the dead server
    is (usually) the fixture load: its driver error (pymysql/psycopg OperationalError) is
    engine_error, retried on a restarted server, never an exception ending the run."""

    def fixture(i):
        return {
            **FIXTURE,
            "name": f"nums{i}",
            "tables": [{**FIXTURE["tables"][0], "rows": [[k, f"v{k}"] for k in range(i + 2)]}],
        }

    sql = "SELECT k, v FROM n ORDER BY k"
    items = [_item(f"r{i}", server.dialect, sql, fixture(i)) for i in range(1, 5)]
    records, killed = _run_killing(tmp_path, server, items, "r2")
    assert killed and [r["id"] for r in records] == ["r1", "r2", "r3", "r4"]
    assert all(r["verdicts"]["strict"]["match"] for r in records)
    retried = {
        r["id"]: r["engine_errors_retried"] for r in records if r.get("engine_errors_retried")
    }
    assert list(retried) == ["r3"]
    # usually the fixture load fails; but backends outlive a SIGKILLed postmaster for a moment,
    # so the load can still succeed and the query then fail ("terminating connection due to
    # unexpected postmaster exit": seen once in a full default tier at load 3-7)
    assert retried["r3"][0].startswith(f"{server.dialect}: ")


# the item the server is killed under: its translation runs long enough to be killed mid-query
SLOW = {
    "postgres": "SELECT k, v FROM n, (SELECT pg_sleep(3)) s WHERE k < 3 ORDER BY k",
    "mysql": "SELECT k, v FROM n WHERE k < 3 AND SLEEP(1) = 0 ORDER BY k",
}
RUNNING = {
    "postgres": "SELECT count(*) FROM pg_stat_activity WHERE query LIKE '%%pg_sleep(3)%%' "
    "AND pid <> pg_backend_pid()",
    "mysql": "SELECT count(*) FROM information_schema.processlist "
    "WHERE info LIKE '%%SLEEP(1)%%' AND id <> CONNECTION_ID()",
}


def _superuser_value(state, sql):
    """One value from the server as its superuser (over its socket or TCP)."""
    if state.name == "postgres":
        import psycopg

        with psycopg.connect(state.url, autocommit=True, connect_timeout=5) as conn:
            return conn.execute(sql).fetchone()[0]
    import pymysql

    conn = pymysql.connect(
        host=state.host,
        port=state.port,
        unix_socket=state.socket or None,
        user="root",
        connect_timeout=5,
    )
    try:
        with conn.cursor() as cur:
            cur.execute(sql)
            return cur.fetchone()[0]
    finally:
        conn.close()


def test_server_killed_during_a_query_is_restarted_and_the_item_retried(tmp_path, server):
    slow = SLOW[server.dialect]
    sql = "SELECT k, v FROM n WHERE k < 3 ORDER BY k"
    items = [
        _item(f"r{i}", server.dialect, sql, FIXTURE, slow if i == 3 else "") for i in range(1, 6)
    ]
    killed = []

    def kill_mid_query():
        state = server.state()
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            with contextlib.suppress(Exception):
                if _superuser_value(state, RUNNING[server.dialect].replace("%%", "%")):
                    os.kill(state.pid, signal.SIGKILL)
                    killed.append(state.pid)
                    return
            time.sleep(0.05)

    killer = threading.Thread(target=kill_mid_query)

    def start_killer(record):
        if record["id"] == "r2":
            killer.start()

    records = _reference_run(tmp_path, items, start_killer, timeout=60)
    killer.join()
    assert killed, "the slow query was never seen running"
    assert [r["id"] for r in records] == [f"r{i}" for i in range(1, 6)]
    assert all(r["verdicts"]["strict"]["match"] for r in records)
    retried = {
        r["id"]: r["engine_errors_retried"] for r in records if r.get("engine_errors_retried")
    }
    assert list(retried) == ["r3"], retried
    assert server.state().pid != killed[0]


def _dead_pid():
    child = subprocess.Popen(["true"])
    child.wait()
    return child.pid


def test_a_crashed_runs_server_is_stopped_by_the_next_run(tmp_path, monkeypatch, server):
    from rich.console import Console

    from parrot.eval.cli import start_servers

    monkeypatch.setenv("PARROT_CACHE", str(tmp_path))
    orphan = server_for(server.dialect)
    crashed = _dead_pid()
    state = orphan.start(owner=crashed)
    assert orphan.recorded().owner == crashed
    console = Console(file=io.StringIO(), width=200)
    started, failed = start_servers([], console)
    assert (started, failed) == ([], {})
    assert (
        f"stopped the local {server.dialect} server left running by run {crashed}, which crashed"
    ) in console.file.getvalue()
    assert not pid_alive(state.pid) and orphan.recorded() is None


def test_a_crashed_runs_server_is_stopped_by_engines_down(tmp_path, monkeypatch, capsys, server):
    from parrot.servers.cli import main as engines

    monkeypatch.setenv("PARROT_CACHE", str(tmp_path))
    orphan = server_for(server.dialect)
    crashed = _dead_pid()
    state = orphan.start(owner=crashed)
    assert engines(["status", server.dialect]) == 0
    assert f"left running by run {crashed}, which crashed" in capsys.readouterr().out
    assert engines(["down", server.dialect]) == 0
    assert (
        f"{server.dialect}: stopped (left running by run {crashed}, which crashed)"
        in capsys.readouterr().out
    )
    assert not pid_alive(state.pid)


@pytest.mark.slow  # starts both servers and a --jobs 2 run, then kills it
def test_eval_with_jobs_killed_leaves_no_process_and_no_server(tmp_path):
    """``python -m parrot.eval --jobs 2`` over both servers, SIGKILLed mid-run: its workers, their
    engine workers and the servers it started all end (the watchdog stops the servers)."""
    for dialect in ("postgres", "mysql"):
        hint = server_for(dialect).available()
        if hint is not None:
            pytest.skip(f"no {dialect} server: {hint}")
    sql = "SELECT k, v FROM n WHERE k < 3 ORDER BY k"
    items = [
        _item(f"{d}{i}", d, sql, FIXTURE, SLOW[d]) for i in range(20) for d in ("postgres", "mysql")
    ]
    _write(tmp_path, items)
    cache = tmp_path / "cache"
    env = {**os.environ, "PARROT_CACHE": str(cache)}
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "parrot.eval",
            "--dataset",
            str(tmp_path / "items.jsonl"),
            "--model",
            "reference",
            "--jobs",
            "2",
            "--quiet",
            "--timeout",
            "60",
            "--output-dir",
            str(tmp_path / "run"),
        ],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    servers = [cls(root=cache / "servers") for cls in (PostgresServer, MariaDBServer)]
    try:
        assert wait_until(
            lambda: (
                (tmp_path / "run" / "results.jsonl").is_file()
                and (tmp_path / "run" / "results.jsonl").stat().st_size > 0
            ),
            300,
        ), "the run never finished an item"
        states = [s.recorded() for s in servers]
        assert all(s is not None and s.owner == process.pid for s in states), states
        tree = descendants(process.pid)
        process.kill()
        process.wait(timeout=30)
        pids = tree | {s.pid for s in states}
        assert wait_until(lambda: not [p for p in pids if pid_alive(p)], 120), (
            f"left behind: {[p for p in pids if pid_alive(p)]}"
        )
        assert wait_until(lambda: all(s.recorded() is None for s in servers), 120)
        assert all(processes_in(Path(s.data_dir)) == [] for s in states)
    finally:
        if process.poll() is None:
            process.kill()
        for server in servers:
            server.stop()
