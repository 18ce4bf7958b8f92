"""The servers parrot starts are confined (parrot.servers.confine), tested with the guards and
privileges out of the way: as each server's superuser, whose PostgreSQL ``COPY ... FROM
PROGRAM`` is a shell running inside the server's sandbox.

Every test uses its own cache root, so the server the engine suite shares is never touched.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from parrot.servers.base import Server, ServerState
from parrot.servers.mariadb import MariaDBServer
from parrot.servers.postgres import PostgresServer

pytestmark = [
    pytest.mark.server,
    pytest.mark.skipif(
        not sys.platform.startswith("linux"),
        reason="server confinement uses Linux namespaces and Landlock",
    ),
]
SECRET = "parrot-server-canary-93d1"
TESTS = Path(__file__).parents[1]


def _started(cls: type[Server], root: Path, monkeypatch: pytest.MonkeyPatch) -> Server:
    server = cls(root=root)
    hint = server.available()
    if hint is not None:
        pytest.skip(f"{cls.dialect} cannot run here: {hint}")
    monkeypatch.setenv("PARROT_CONFINE_API_KEY", SECRET)  # what the server's environment drops
    server.start()
    return server


@pytest.fixture
def canary(tmp_path: Path) -> Path:
    path = tmp_path / "canary.txt"
    path.write_text(SECRET + "\n")
    path.chmod(0o644)
    tmp_path.chmod(0o755)  # readable by the postgres account but for the sandbox
    return path


@pytest.fixture
def postgres(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Server]:
    server = _started(PostgresServer, tmp_path / "servers", monkeypatch)
    yield server
    server.stop()


@pytest.fixture
def mariadb(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Server]:
    server = _started(MariaDBServer, tmp_path / "servers", monkeypatch)
    yield server
    server.stop()


def _shell(url: str, command: str) -> list[str]:
    """The output lines of ``command`` run by the server (superuser COPY FROM PROGRAM)."""
    import psycopg
    from psycopg import sql

    with psycopg.connect(url, autocommit=True, connect_timeout=10) as conn:
        conn.execute("CREATE TEMP TABLE out (line text)")
        conn.execute(
            sql.SQL("COPY out FROM PROGRAM {}").format(sql.Literal(f"({command}) 2>&1; true"))
        )
        return [row[0] for row in conn.execute("SELECT line FROM out").fetchall()]


def _pid_namespaces_differ(pid: int) -> bool:
    return os.readlink(f"/proc/{pid}/ns/net") != os.readlink("/proc/self/ns/net")


def _confined(server: Server) -> ServerState:
    """The running server's state, checked: every confinement layer on, and a network
    namespace of its own."""
    state = server.state()
    assert state is not None and state.isolation == [], state
    assert _pid_namespaces_differ(state.pid)
    return state


def test_postgres_superuser_shell_cannot_reach_the_host(
    postgres: Server, canary: Path, tmp_path: Path
) -> None:
    from http_sink import serve_sink

    state = _confined(postgres)
    out = tmp_path / "written.out"
    with serve_sink() as sink:
        port = sink[0].rsplit(":", 1)[1]
        lines = _shell(
            state.url,
            f"cat {canary}; cat /etc/shadow; ls /root; env; "
            f"echo x > {out}; echo x > {state.data_dir}/inside; "
            f"bash -c 'echo GET / > /dev/tcp/127.0.0.1/{port}'",
        )
        requests = list(sink[1:])
    text = "\n".join(lines)
    assert SECRET not in text, text
    assert "root:" not in text  # /etc/shadow
    assert "Network is unreachable" in text
    assert requests == []
    assert not out.exists()
    assert Path(state.data_dir, "inside").exists()  # its data directory is writable
    assert canary.read_text() == SECRET + "\n"


def test_mariadb_runs_in_its_own_network_namespace_without_secrets(
    mariadb: Server, canary: Path, tmp_path: Path
) -> None:
    import pymysql

    state = _confined(mariadb)
    assert SECRET.encode() not in Path(f"/proc/{state.pid}/environ").read_bytes()
    out = tmp_path / "written.out"
    conn = pymysql.connect(unix_socket=state.socket, user="root", connect_timeout=10)
    try:
        with conn.cursor() as cur:  # as root, who has FILE
            cur.execute("SELECT LOAD_FILE(%s)", (str(canary),))
            assert cur.fetchone() == (None,)
            with pytest.raises(pymysql.Error):
                cur.execute(f"SELECT 1 INTO OUTFILE '{out}'")
    finally:
        conn.close()
    assert not out.exists()


def test_without_a_network_namespace_landlock_forbids_connections(
    tmp_path: Path, canary: Path
) -> None:
    """Where the kernel refuses the namespace (no CAP_SYS_ADMIN) the server listens on
    127.0.0.1, says so in its label, and still connects nowhere and reads no host file."""
    if shutil.which("setpriv") is None:
        pytest.skip("setpriv (util-linux) is not installed")
    if PostgresServer(root=tmp_path).available() is not None:
        pytest.skip(f"postgres cannot run here: {PostgresServer(root=tmp_path).available()}")
    script = textwrap.dedent("""
        import json, sys
        from pathlib import Path
        from parrot.servers.postgres import PostgresServer
        from test_server_confinement import _shell
        from http_sink import serve_sink
        server = PostgresServer(root=Path(sys.argv[1]))
        try:
            state = server.start()
            with serve_sink() as sink:
                port = sink[0].rsplit(":", 1)[1]
                lines = _shell(state.url, f"cat {sys.argv[3]}; "
                                          f"bash -c 'echo GET / > /dev/tcp/127.0.0.1/{port}'")
                requests = list(sink[1:])
            print(json.dumps({"label": state.label, "url": state.url, "lines": lines,
                              "requests": requests}))
        finally:
            server.stop()
    """)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(TESTS / "servers"), str(TESTS)])}
    child = subprocess.run(
        [
            "setpriv",
            "--bounding-set",
            "-sys_admin",
            sys.executable,
            "-c",
            script,
            str(tmp_path / "servers"),
            "",
            str(canary),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
        cwd=Path(__file__).parents[2],
    )
    assert child.returncode == 0, child.stderr[-3000:]
    assert "WARNING: postgres server: no network namespace" in child.stderr
    result = __import__("json").loads(child.stdout.splitlines()[-1])
    assert "[NOT ISOLATED: no network namespace" in result["label"]
    assert "@127.0.0.1:" in result["url"]
    assert result["requests"] == []
    text = "\n".join(result["lines"])
    assert SECRET not in text and "Permission denied" in text, text
