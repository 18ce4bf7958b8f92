"""Local database servers that parrot starts, checks and stops itself.

Each server lives in a throwaway data directory under ``<cache>/servers/<name>/`` with a
``state.json`` that any parrot process can read, so ``python -m parrot.engines status`` in one
shell sees the server ``up`` started in another, and engine adapters find its URL. Servers run
confined (:mod:`parrot.servers.confine`): in a network namespace of their own, reached through
a unix socket, where the kernel allows it; else on 127.0.0.1 and a free port.

A server started for a run records the run's pid (``owner``) and is watched by a small
process (:mod:`parrot.servers.watchdog`) that stops it when the run ends, even by SIGKILL; one
whose owner died anyway (the watchdog killed too) is stopped by the next run or ``engines
down``, which say so (:meth:`Server.stop_orphan`).

Several processes may share one cache (two ``parrot testsuite build`` runs): each process that
uses a server registers itself (``<cache>/servers/<name>.users/<pid>``, holding the process's
start time so a reused pid does not count) when it starts or joins the server, and a process
done with it releases it (:meth:`Server.release`): the server stops only when no other live
process is registered, so one run's end never stops a server another run still uses. What
registers is the *run* (:func:`run_pid`): a ``--jobs`` worker registers the run that spawned it,
so workers still winding down never keep a server up after their run has released it. A run that
uses a server only through an engine (``Judge(start=True)``, :func:`parrot.connect.default_url`)
registers when it first finds the server (:meth:`Server.share`) and, when another run started it,
is watched: the server is stopped once both have ended, whichever ends last.
"""

from __future__ import annotations

import abc
import contextlib
import dataclasses
import datetime as dt
import fcntl
import json
import multiprocessing
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import ClassVar

import psutil

from parrot.cachedir import cache_dir

_WATCHDOGS: list[subprocess.Popen[bytes]] = []


class ServerError(RuntimeError):
    """A server could not be installed, started, reached or stopped."""


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def port_open(port: int, host: str = "127.0.0.1", timeout: float = 0.2) -> bool:
    with contextlib.suppress(OSError), socket.create_connection((host, port), timeout=timeout):
        return True
    return False


def pid_alive(pid: int | None) -> bool:
    """The process exists and is not a zombie (a dead child not reaped yet)."""
    if not pid:
        return False
    try:
        return bool(psutil.Process(pid).status() != psutil.STATUS_ZOMBIE)
    except psutil.NoSuchProcess:
        return False
    except psutil.AccessDenied:
        return True


def _gone(procs: list[psutil.Process], seconds: float) -> list[psutil.Process]:
    """Wait up to ``seconds`` for ``procs`` to end (a zombie has ended); those still running."""
    deadline = time.monotonic() + seconds
    while True:
        alive = [p for p in procs if pid_alive(p.pid) and p.is_running()]
        if not alive or time.monotonic() >= deadline:
            return alive
        psutil.wait_procs(alive, timeout=min(0.05, max(0.0, deadline - time.monotonic())))


def stop_processes(
    pids: list[int], asks: tuple[tuple[int, float], ...] = ((15, 20.0),), kill_wait: float = 5.0
) -> list[int]:
    """Stop ``pids``: each ``(signal number, seconds)`` of ``asks`` in turn (a polite stop,
    default SIGTERM for 20 s), then kill and wait ``kill_wait``; the pids still running."""
    procs = []
    for pid in pids:
        with contextlib.suppress(psutil.NoSuchProcess, psutil.AccessDenied):
            procs.append(psutil.Process(pid))
    for sig, seconds in asks:
        for proc in procs:
            with contextlib.suppress(psutil.NoSuchProcess, psutil.AccessDenied):
                proc.send_signal(sig)
        procs = _gone(procs, seconds)
        if not procs:
            return []
    for proc in procs:
        with contextlib.suppress(psutil.NoSuchProcess, psutil.AccessDenied):
            proc.kill()
    return [p.pid for p in _gone(procs, kill_wait)]


def stop_pid(pid: int, timeout: float = 20.0) -> None:
    """Ask the process to stop (SIGTERM), wait ``timeout`` seconds, then kill it."""
    if stop_processes([pid], ((signal.SIGTERM.value, timeout),)):
        raise ServerError(f"process {pid} did not stop")


def process_started(pid: int) -> str | None:
    """When process ``pid`` started (None if it does not run): with the pid, names a process
    even after its pid is reused."""
    try:
        return repr(psutil.Process(pid).create_time())
    except (psutil.NoSuchProcess, psutil.AccessDenied, ValueError):
        return None


def run_pid() -> int:
    """The pid of the run this process works for: a pool worker's (``multiprocessing``, as
    ``--jobs`` spawns them) parent, else this process's own."""
    parent = multiprocessing.parent_process()
    return parent.pid if parent is not None and parent.pid is not None else os.getpid()


@dataclass(frozen=True)
class ServerState:
    """What ``state.json`` records about a running server."""

    name: str
    version: str
    host: str
    port: int
    pid: int
    data_dir: str
    url: str  # a connection URL adapters accept (no secrets: local trust/socket auth)
    started: str  # ISO time
    label: str  # what reports print, e.g. "mysql (MariaDB 10.11.18)"
    socket: str = ""  # the unix socket (PostgreSQL: its directory) when reached through one
    isolation: list[str] = field(default_factory=list)  # confinement layers the kernel refused
    owner: int = 0  # pid of the run that started it and stops it (0: `engines up`)

    @property
    def address(self) -> str:
        """Where clients reach it: the socket, else 127.0.0.1:PORT."""
        return self.socket or f"{self.host}:{self.port}"

    @property
    def uptime(self) -> float:
        return (dt.datetime.now(dt.UTC) - dt.datetime.fromisoformat(self.started)).total_seconds()


class Server(abc.ABC):
    """Lifecycle of one local server kind (PostgreSQL, MariaDB, ...)."""

    name: ClassVar[str]  # registry key, e.g. "postgres"
    dialect: ClassVar[str]  # the dialect it serves

    def __init__(self, root: Path | None = None):
        self.root = (root or cache_dir() / "servers") / self.name
        self.state_path = self.root / "state.json"

    # -- to implement ------------------------------------------------------------------------
    @abc.abstractmethod
    def available(self) -> str | None:
        """None when this machine can run the server, else how to make it able (install hint)."""

    @abc.abstractmethod
    def _start(self, data_dir: Path, port: int) -> ServerState:
        """Initialise ``data_dir``, start the server on ``port``, wait until it answers."""

    @abc.abstractmethod
    def _ping(self, state: ServerState) -> bool:
        """True when the server answers a trivial query."""

    # -- shared ------------------------------------------------------------------------------
    def state(self) -> ServerState | None:
        """The recorded state if the server is running and answering, else None."""
        state = self.recorded()
        if state is None or not pid_alive(state.pid) or not self._ping(state):
            return None
        return state

    # -- users: the processes sharing the server ------------------------------------------------
    @property
    def users_dir(self) -> Path:
        """One file per process registered as using the server (outside ``root``, which a
        restart replaces)."""
        return self.root.parent / f"{self.name}.users"

    def _register(self, pid: int) -> bool:
        """Register ``pid``; True when it was not registered already."""
        started = process_started(pid)
        if started is None:
            return False
        path = self.users_dir / str(pid)
        with contextlib.suppress(OSError):
            if path.read_text() == started:
                return False
        self.users_dir.mkdir(parents=True, exist_ok=True)
        path.write_text(started)
        return True

    def users(self) -> list[int]:
        """The live processes registered as using the server, by pid in numeric order (a dead
        one's file is removed)."""
        live = []
        for path in self.users_dir.glob("*") if self.users_dir.is_dir() else []:
            with contextlib.suppress(OSError, ValueError):
                pid = int(path.name)
                if path.read_text() == process_started(pid):
                    live.append(pid)
                    continue
            path.unlink(missing_ok=True)
        return sorted(live)

    def join(self, pid: int | None = None) -> ServerState | None:
        """Register ``pid`` (default: this process) as using the server if it runs; its state,
        or None when it does not run (then nothing is registered)."""
        with self._locked():
            state = self.state()
            if state is not None:
                self._register(pid or os.getpid())
            return state

    def share(self, start: bool = False) -> ServerState | None:
        """The server for this process's run (:func:`run_pid`): registered as a user, and —
        the first time it registers a server another run started — watched, so that the
        server stops when the last of them ends (:meth:`stop_orphan`). ``start``: start it
        when it does not run (for no run in particular, as :meth:`start` without an owner);
        else None when it does not run."""
        run = run_pid()
        with self._locked():
            state = self.state()
            if state is None and start:
                state = self._start_unlocked()
            if state is None:
                return None
            new = self._register(run)
        if new and state.owner and state.owner != run:
            self.watch(run)
        return state

    def release(self, pid: int | None = None) -> bool:
        """``pid`` (default: this process) is done with the server: unregister it and stop the
        server unless another live process is registered; True when it was stopped."""
        with self._locked():
            (self.users_dir / str(pid or os.getpid())).unlink(missing_ok=True)
            if self.users():
                return False
            return self._stop_unlocked()

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        """Serialise start/stop across processes (parallel eval workers may restart a server)."""
        lock_path = self.root.parent / f"{self.name}.lock"
        lock_path.parent.mkdir(parents=True, exist_ok=True)
        with lock_path.open("a") as fh:
            fcntl.flock(fh, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(fh, fcntl.LOCK_UN)

    def start(self, owner: int = 0) -> ServerState:
        """Start the server unless it already runs; returns its state. ``owner`` is the pid of
        the run it is started for (a restart keeps the dead server's owner while that runs);
        that run (else this process's, :func:`run_pid`) is registered as a user."""
        with self._locked():
            state = self._start_unlocked(owner)
            self._register(owner or run_pid())
            return state

    def _start_unlocked(self, owner: int = 0) -> ServerState:
        running = self.state()
        if running is not None:
            return running
        hint = self.available()
        if hint is not None:
            raise ServerError(f"{self.name} cannot run here: {hint}")
        previous = self.recorded()
        if not owner and previous is not None and pid_alive(previous.owner):
            owner = previous.owner  # restarted mid-run: still that run's server
        self._discard()
        data_dir = self.root / "data"
        data_dir.mkdir(parents=True, exist_ok=True)
        state = self._start(data_dir, free_port())
        if state.isolation:
            for warning in state.isolation:
                print(f"parrot: WARNING: {self.dialect} server: {warning}", file=sys.stderr)
            state = dataclasses.replace(
                state, label=f"{state.label} [NOT ISOLATED: {'; '.join(state.isolation)}]"
            )
        state = dataclasses.replace(state, owner=owner)
        self.root.mkdir(parents=True, exist_ok=True)
        tmp = self.state_path.with_suffix(".tmp")
        tmp.write_text(json.dumps(asdict(state), indent=2))
        os.replace(tmp, self.state_path)
        return state

    def recorded(self) -> ServerState | None:
        """What ``state.json`` says, whether or not the server still runs."""
        with contextlib.suppress(OSError, ValueError, TypeError):
            return ServerState(**json.loads(self.state_path.read_text()))
        return None

    def stop_orphan(self) -> int | None:
        """Stop the server if the run that started it has ended without stopping it (killed)
        and no other live process is registered as using it; returns that run's pid, or None
        when there was no such server."""
        with self._locked():
            state = self.recorded()
            if state is None or not state.owner or pid_alive(state.owner) or self.users():
                return None
            self._stop_unlocked()
            return state.owner

    def watch(self, owner: int) -> None:
        """Start a watchdog that stops this server once ``owner`` (this process, or the run
        this worker works for) and this process have ended, however they ended
        (:mod:`parrot.servers.watchdog`)."""
        watchdog = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "parrot.servers.watchdog",
                self.dialect,
                str(owner),
                str(self.root.parent),
                *(["--outlives"] if owner != os.getpid() else []),
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            start_new_session=True,
        )
        _WATCHDOGS.append(watchdog)  # its stdin stays open for as long as this process lives

    def stop(self) -> bool:
        """Stop the server and delete its data directory; False if it was not running."""
        with self._locked():
            return self._stop_unlocked()

    def cut_off(self) -> tuple[bool, list[int]]:
        """Stop the server whoever uses it (``engines down``): whether it was running, and the
        live processes that were registered as using it — now cut off, their registrations
        gone with the server."""
        with self._locked():
            users = self.users()
            stopped = self._stop_unlocked()
            shutil.rmtree(self.users_dir, ignore_errors=True)
            return stopped, users

    def _stop_unlocked(self) -> bool:
        state = self.recorded()
        was_running = False
        if state is not None and pid_alive(state.pid):
            stop_pid(state.pid)
            was_running = True
        self._discard()
        return was_running

    def _discard(self) -> None:
        if self.root.exists():
            shutil.rmtree(self.root, ignore_errors=True)

    @staticmethod
    def now() -> str:
        return dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
