"""The managed MariaDB server: up, status, query, down, idempotent start, crash detection.

One server for the module, in a private cache directory (``PARROT_CACHE``), so a server the user
or another test session runs is never touched. Skips with the install hint when MariaDB is absent.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from parrot.engines import worker
from parrot.servers import server_for
from parrot.servers.base import pid_alive
from parrot.servers.cli import main as cli
from parrot.servers.mariadb import INSTALL_HINT, MariaDBServer, ping

pytestmark = pytest.mark.server


def _processes_using(data_dir: str) -> list[int]:
    """Pids of live processes whose command line mentions ``data_dir`` (zombies excluded)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if data_dir in cmdline and pid_alive(int(entry.name)):
            found.append(int(entry.name))
    return found


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    root = tmp_path_factory.mktemp("cache")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("PARROT_CACHE", str(root))
        hint = MariaDBServer().available()
        if hint is not None:
            pytest.skip(f"no mysql server: {hint}")
        yield root
        MariaDBServer().stop()


@pytest.fixture
def server(cache: Path) -> MariaDBServer:
    return MariaDBServer()


def test_registry_and_hint(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    server = server_for("mysql")
    assert isinstance(server, MariaDBServer)
    assert isinstance(server_for("mariadb"), MariaDBServer)
    assert server.root == cache / "servers" / "mariadb"
    assert server.available() is None
    monkeypatch.setattr("parrot.servers.mariadb.find_binary", lambda *names: None)
    assert server.available() == INSTALL_HINT == "apt-get install -y mariadb-server"


def test_up_status_query_down(server: MariaDBServer, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli(["up", "mysql"]) == 0
    out = capsys.readouterr().out
    state = server.state()
    assert state is not None
    assert f"mysql: up — mysql (MariaDB {state.version}) at {state.address}" in out
    assert state.version.startswith("10.") and state.label == f"mysql (MariaDB {state.version})"
    if state.isolation:  # no network namespace here: on 127.0.0.1
        assert state.url == f"mysql://root@127.0.0.1:{state.port}/"
    else:  # in a network namespace of its own: the socket is the only way in
        assert state.url == f"mysql://root@localhost/?unix_socket={state.socket}"
        assert state.socket == str(Path(state.data_dir, "mariadbd.sock"))
    assert Path(state.data_dir).is_dir() and Path(state.data_dir, "mariadbd.err").is_file()

    assert cli(["status", "mysql"]) == 0
    line = capsys.readouterr().out
    assert f"at {state.address}" in line and f"data {state.data_dir}" in line
    assert state.label in line and "uptime" in line

    from parrot.connect import create_engine
    from parrot.fixtures import fixture_from_json

    fixture = fixture_from_json(
        {
            "name": "one",
            "tables": [
                {"name": "t", "columns": [{"name": "a", "type": "integer"}], "rows": [[1], [2]]}
            ],
        }
    )
    engine = create_engine("mysql")  # no URL: finds the managed server through its state file
    try:
        assert engine.label == state.label
        ex = engine.execute("SELECT sum(a) FROM t", fixture)
        assert ex.ok and ex.result is not None and ex.result.rows == ((3,),)
    finally:
        engine.close()

    assert cli(["down", "mysql"]) == 0
    assert "mysql: stopped" in capsys.readouterr().out
    assert server.state() is None
    assert not pid_alive(state.pid)
    assert _processes_using(state.data_dir) == []
    assert not Path(state.data_dir).exists() and not server.root.exists()
    assert ping(state.host, state.port, socket=state.socket or None) is None
    assert cli(["down", "mysql"]) == 0
    assert "was not running" in capsys.readouterr().out


def test_start_is_idempotent(server: MariaDBServer) -> None:
    first = server.start()
    again = MariaDBServer().start()
    assert (again.pid, again.port, again.started) == (first.pid, first.port, first.started)
    assert ping(first.host, first.port, socket=first.socket or None) is not None


def test_killed_server_is_detected_and_replaced(server: MariaDBServer) -> None:
    first = server.start()
    os.kill(first.pid, signal.SIGKILL)
    deadline = time.monotonic() + 10
    while pid_alive(first.pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert server.state() is None  # the state file is still there, the server is not
    second = server.start()
    assert second.pid != first.pid and pid_alive(second.pid)
    assert ping(second.host, second.port, socket=second.socket or None) is not None
    assert server.stop()
    assert _processes_using(second.data_dir) == []
    assert not Path(second.data_dir).exists()


def test_long_data_directory_puts_the_socket_in_tmp(tmp_path: Path) -> None:
    root = tmp_path / ("d" * 60) / ("e" * 40)
    server = MariaDBServer(root=root)
    hint = server.available()
    if hint is not None:
        pytest.skip(f"no mysql server: {hint}")
    state = server.start()
    try:
        if state.isolation:
            pytest.skip("the server listens on TCP here (no network namespace)")
        socket = Path(state.socket)
        assert socket.exists() and socket.parent.name.startswith("parrot-mariadb-")
        assert socket.parent.parent == Path(tempfile.gettempdir())
        assert ping(state.host, state.port, socket=state.socket) is not None
    finally:
        assert server.stop()
    assert not socket.parent.exists()
    assert _processes_using(state.data_dir) == []
    assert not root.joinpath("mariadb").exists()


WORKER_CONNECT = """
import socket, sys
from parrot.engines import worker
scratch, parent, path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
hide = sys.argv[4:]
warnings = worker._isolate("sqlite", scratch, parent, hide=hide)
try:
    with socket.socket(socket.AF_UNIX) as s:
        s.connect(path)
    print("connected", warnings)
except OSError as exc:
    print("refused", type(exc).__name__, warnings)
"""


def test_an_engine_worker_cannot_reach_the_running_server(server: MariaDBServer) -> None:
    """The real server's socket: parrot's process reaches it, a process isolated as an engine
    worker is (with the directories parrot's process hides) does not."""
    state = server.start()
    if not state.socket:
        pytest.skip("the server listens on TCP here (no network namespace): nothing to hide")
    with socket.socket(socket.AF_UNIX) as s:
        s.connect(state.socket)  # outside: it works
    scratch = tempfile.mkdtemp(prefix=worker.SCRATCH_PREFIX)
    try:
        child = subprocess.run(
            [
                sys.executable,
                "-c",
                WORKER_CONNECT,
                scratch,
                str(os.getpid()),
                state.socket,
                *worker.socket_roots(),
            ],
            env=worker.worker_environ(scratch),
            cwd=scratch,
            capture_output=True,
            text=True,
            timeout=120,
        )
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    assert child.returncode == 0, child.stderr[-2000:]
    assert child.stdout.startswith("refused"), child.stdout
