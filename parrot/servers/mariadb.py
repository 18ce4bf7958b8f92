"""A throwaway MariaDB server serving the ``mysql`` dialect (Debian's ``mariadb-server``).

``mariadb-install-db --no-defaults`` initialises the data directory parrot hands over, then
``mariadbd --no-defaults`` runs on it, both confined (:mod:`parrot.servers.confine`): in a
network namespace of its own with ``--skip-networking``, reached through its unix socket (in the
data directory, or a ``/tmp/parrot-mariadb-*/`` directory when that path is too long); where the
namespace is refused, on 127.0.0.1 and the free port given. Pid file, error log and temporary
files stay inside the data directory. Root runs it as ``--user=root`` (the
server refuses root otherwise); any other user runs it as themselves.

Settings (none changes SQL semantics beyond what a MySQL user meets by default):

* ``--character-set-server=utf8mb4 --collation-server=utf8mb4_general_ci``: without them
  ``--no-defaults`` gives latin1. utf8mb4_general_ci is MariaDB 10.11's default utf8mb4
  collation, the one a MariaDB user meets: case- and accent-insensitive, trailing spaces ignored.
* ``sql_mode`` is left at the server default
  (``STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_AUTO_CREATE_USER,NO_ENGINE_SUBSTITUTION``).
* Grants stay on (no ``--skip-grant-tables``): the adapter runs translations as restricted users.
  ``root`` has no password and is reachable from 127.0.0.1 only (``--skip-name-resolve``).
* Hardening and speed, not semantics: ``--local-infile=0``, ``--secure-file-priv`` pointing at an
  empty directory inside the data directory, no binary log, ``innodb_flush_log_at_trx_commit=2``
  and no doublewrite buffer (the data is thrown away anyway), a small redo log.

Measured here (2 cores): install-db ≈0.5 s, start → ready ≈0.1–0.3 s.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from typing import ClassVar
from urllib.parse import quote

from parrot.api.secrets import allowed_environ
from parrot.servers import confine
from parrot.servers.base import Server, ServerError, ServerState, pid_alive, stop_pid

INSTALL_HINT = "apt-get install -y mariadb-server"
HOST = "127.0.0.1"
READY_TIMEOUT = 60.0  # seconds from launch until the server must answer
INSTALL_TIMEOUT = 180.0
SOCKET_PATH_LIMIT = 100  # sun_path holds 108 bytes; mariadbd refuses longer socket paths
SOCKET_DIR_PREFIX = "parrot-mariadb-"  # /tmp/parrot-mariadb-XXXX/: the socket of a deep data dir
INNODB = ("--innodb-log-file-size=16M", "--innodb-buffer-pool-size=128M")
_SEARCH = ("/usr/sbin", "/usr/local/sbin", "/usr/bin", "/usr/local/bin", "/usr/local/mysql/bin")


def find_binary(*names: str) -> str | None:
    """The first of ``names`` on PATH or in the usual sbin directories (often off a user's PATH)."""
    path = os.pathsep.join([os.environ.get("PATH", ""), *_SEARCH])
    for name in names:
        found = shutil.which(name, path=path)
        if found:
            return found
    return None


def ping(
    host: str, port: int, user: str = "root", timeout: float = 2.0, socket: str | None = None
) -> str | None:
    """``VERSION()`` of the server at ``host:port`` (or its unix ``socket``) if it answers,
    else None."""
    import pymysql

    try:
        conn = pymysql.connect(
            host=host,
            port=port,
            user=user,
            connect_timeout=timeout,
            read_timeout=timeout,
            ssl_disabled=True,
            unix_socket=socket,
        )
    except pymysql.Error:
        return None
    try:
        with conn.cursor() as cur:
            cur.execute("SELECT VERSION()")
            row = cur.fetchone()
        return str(row[0]) if row else None
    except pymysql.Error:
        return None
    finally:
        with contextlib.suppress(Exception):
            conn.close()


def short_version(version: str) -> str:
    """``10.11.19-MariaDB-0+deb12u1`` → ``10.11.19``."""
    return version.split("-", 1)[0]


class MariaDBServer(Server):
    name: ClassVar[str] = "mariadb"
    dialect: ClassVar[str] = "mysql"

    def available(self) -> str | None:
        if find_binary("mariadbd", "mysqld") and find_binary(
            "mariadb-install-db", "mysql_install_db"
        ):
            return None
        return INSTALL_HINT

    def _start(self, data_dir: Path, port: int) -> ServerState:
        server = find_binary("mariadbd", "mysqld")
        install = find_binary("mariadb-install-db", "mysql_install_db")
        if server is None or install is None:
            raise ServerError(f"MariaDB is not installed: {INSTALL_HINT}")
        data_dir = data_dir.resolve()
        refused = confine.network_namespace_refused()
        as_root = ["--user=root"] if os.geteuid() == 0 else []
        tmp = data_dir / "tmp"  # the server's temporary files stay in its data directory
        tmp.mkdir(exist_ok=True)
        socket, writable = _socket(data_dir)
        spec = confine.Spec(writable=writable, port=port)
        _install_db(
            spec,
            [
                install,
                "--no-defaults",
                f"--datadir={data_dir}",
                *as_root,
                "--auth-root-authentication-method=normal",
                "--skip-test-db",
                "--skip-name-resolve",
                f"--tmpdir={tmp}",
                *INNODB,
            ],
            data_dir,
        )
        files = data_dir / "files"  # secure_file_priv: the only directory FILE may touch
        files.mkdir(exist_ok=True)
        error_log = data_dir / "mariadbd.err"
        args = _server_args(server, data_dir, port, socket, refused, as_root)
        started = time.monotonic()
        proc, isolation = _launch(spec, args, data_dir)
        via = {} if refused else {"socket": str(socket)}
        version = _wait_ready(proc, port, via, started)
        if version is None:
            raise ServerError(
                f"mariadbd did not become ready"
                f"{f' on port {port}' if refused else f' on {socket}'}: "
                f"{_tail(error_log)} (log {error_log})"
            )
        self.ready_seconds = time.monotonic() - started
        short = short_version(version)
        url = (
            f"mysql://root@{HOST}:{port}/"
            if refused
            else f"mysql://root@localhost/?unix_socket={quote(str(socket))}"
        )
        return ServerState(
            name=self.name,
            version=short,
            host=HOST,
            port=port,
            pid=proc.pid,
            data_dir=str(data_dir),
            url=url,
            started=self.now(),
            label=f"{self.dialect} (MariaDB {short})",
            socket=via.get("socket", ""),
            isolation=isolation,
        )

    def _ping(self, state: ServerState) -> bool:
        return ping(state.host, state.port, socket=state.socket or None) is not None

    def _discard(self) -> None:
        state = self.recorded()
        if state is not None and Path(state.socket).parent.name.startswith(SOCKET_DIR_PREFIX):
            shutil.rmtree(Path(state.socket).parent, ignore_errors=True)
        super()._discard()


def _server_args(
    server: str, data_dir: Path, port: int, socket: Path, refused: str | None, as_root: list[str]
) -> list[str]:
    """mariadbd's command line: its files in ``data_dir``, reached by ``socket`` (or by TCP on
    ``port`` when the kernel refused it a network namespace of its own)."""
    # in its own network namespace the server has no network: the socket is the way in
    network = [f"--port={port}", f"--bind-address={HOST}"] if refused else ["--skip-networking"]
    return [
        server,
        "--no-defaults",
        *as_root,
        f"--datadir={data_dir}",
        *network,
        f"--socket={socket}",
        f"--tmpdir={data_dir / 'tmp'}",
        f"--pid-file={data_dir / 'mariadbd.pid'}",
        f"--log-error={data_dir / 'mariadbd.err'}",
        "--character-set-server=utf8mb4",
        "--collation-server=utf8mb4_general_ci",
        "--skip-name-resolve",
        "--local-infile=0",
        f"--secure-file-priv={data_dir / 'files'}",
        "--skip-log-bin",
        "--innodb-flush-log-at-trx-commit=2",
        "--innodb-doublewrite=0",
        *INNODB,
    ]


def _socket(data_dir: Path) -> tuple[Path, list[str]]:
    """The server's socket, and the directories it may write (its socket's, when not its own)."""
    socket = data_dir / "mariadbd.sock"
    writable = [str(data_dir)]
    if len(str(socket)) > SOCKET_PATH_LIMIT:  # deep cache directories: socket under /tmp
        socket_dir = tempfile.mkdtemp(prefix=SOCKET_DIR_PREFIX)
        socket = Path(socket_dir) / "mariadbd.sock"
        writable.append(socket_dir)
    return socket, writable


def _launch(
    spec: confine.Spec, args: list[str], data_dir: Path
) -> tuple[subprocess.Popen[bytes], list[str]]:
    """The confined server process, and the confinement's report of its isolation."""
    report, theirs = os.pipe()
    spec.report = theirs
    try:
        proc = subprocess.Popen(
            confine.command(spec, args),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            cwd=data_dir,
            start_new_session=True,
            pass_fds=(theirs,),
            env=confine.environ(allowed_environ()),
        )
    finally:
        os.close(theirs)
    isolation = confine.read_report(report)
    # reap the child when it exits, so a dead server never lingers as a zombie of this process
    threading.Thread(target=proc.wait, name=f"reap-mariadbd-{proc.pid}", daemon=True).start()
    return proc, isolation


def _wait_ready(
    proc: subprocess.Popen[bytes], port: int, via: dict[str, str], started: float
) -> str | None:
    """The server's version once it answers; None (the process stopped) when it never does."""
    version = None
    while time.monotonic() - started < READY_TIMEOUT:
        version = ping(HOST, port, timeout=1.0, **via)
        if version is not None or not pid_alive(proc.pid):
            break
        time.sleep(0.05)
    if version is None and pid_alive(proc.pid):
        with contextlib.suppress(ServerError):
            stop_pid(proc.pid, timeout=10)
    return version


def _install_db(spec: confine.Spec, argv: list[str], data_dir: Path) -> None:
    """Run ``mariadb-install-db`` (``argv``) confined by ``spec``; its log in ``data_dir``."""
    log = data_dir / "install.log"
    with log.open("wb") as out:
        try:
            done = subprocess.run(
                confine.command(spec, argv),
                stdout=out,
                stderr=subprocess.STDOUT,
                timeout=INSTALL_TIMEOUT,
                cwd=data_dir,
                check=False,
                env=confine.environ(allowed_environ()),
            )
        except subprocess.TimeoutExpired:
            raise ServerError(
                f"mariadb-install-db did not finish in {INSTALL_TIMEOUT:.0f} s (log {log})"
            ) from None
    if done.returncode != 0:
        raise ServerError(
            f"mariadb-install-db failed ({done.returncode}): {_tail(log)} (log {log})"
        )


def _tail(path: Path, lines: int = 5) -> str:
    with contextlib.suppress(OSError):
        text = path.read_text(errors="replace").strip().splitlines()
        return " | ".join(line.strip() for line in text[-lines:])
    return "(no log)"


__all__ = ["INSTALL_HINT", "MariaDBServer", "find_binary", "ping", "short_version"]
