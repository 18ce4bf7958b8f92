"""Engine worker processes: untrusted SQL on the embedded engines runs where it cannot reach out.

:func:`isolated` wraps an embedded adapter class (SQLite, DuckDB, chdb, the Spark family) in a
proxy with the same :class:`~parrot.engines.base.Engine` interface. The proxy runs the real
adapter in a worker process (``python -m parrot.engines.worker``) that, before it imports any
engine:

* has **no network**: a network namespace of its own (only its own loopback is up, which the
  Spark driver needs to talk to its JVM);
* is **pid 1 of a pid namespace**, so the JVM and anything else it starts die with it;
* sees a **file system** through Landlock: the Python installation, parrot's package, system
  libraries and the JVM are readable, its scratch directory is the only writable place, every
  other host file (home directories, ``/etc/passwd``, datasets, other runs) is unreadable, and
  other processes' ``/proc`` entries are out of reach;
* sees the directories where unix sockets live (the cache with parrot's servers, the temporary
  directories, ``/run``) **empty**: a tmpfs is mounted over each in its mount namespace, since
  Landlock does not govern ``connect()`` to a socket by name and uid 0 is a superuser there;
* has an environment without secrets (:mod:`parrot.engines.sandbox`), ``TZ=UTC``, a cap on its
  address space (``RLIMIT_AS``, not for the JVM, which is bounded by its heap) and a CPU-time
  budget per execution (``RLIMIT_CPU``);
* dies with its parent (``PR_SET_PDEATHSIG``) and lives in its own process group.

An execution that has not answered ``GRACE`` seconds after its timeout, or that answers
``timeout``, gets its worker SIGKILLed; the item is ``timeout`` and the next call starts a new
worker (fixtures are loaded again there). A worker keeps at most ``KEPT_FIXTURES`` fixtures of
``KEPT_ROWS`` rows in all and its adapters' databases of them, evicting seldom-used ones (suite
databases) before the item fixtures it keeps reusing; an evicted fixture is sent again when an
execution needs it. A worker imports its own engine's library and refuses the modules of
``NOT_IMPORTED`` (pandas), which the engine libraries would import only because they are
installed. Answers come back as restricted pickles: only
parrot's result records and plain values can be decoded, never code.

Where the kernel refuses a layer the worker still runs, and says so: every missing layer is a
warning printed once on stderr and appended to the engine's label, which run manifests and
results record. ``PARROT_ISOLATION=off`` runs the adapters in-process (for debugging).
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import fcntl
import importlib.abc
import importlib.machinery
import io
import os
import pickle
import resource
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field, replace
from multiprocessing.connection import Connection
from pathlib import Path
from queue import SimpleQueue
from typing import Any, ClassVar

import parrot
from parrot.api.bounded import BoundedCache
from parrot.api.secrets import allowed_environ
from parrot.cachedir import cache_dir
from parrot.engines.base import (
    Engine,
    EngineBase,
    ExecStatus,
    Execution,
    FixtureLoadError,
    LoadReport,
    Request,
)
from parrot.fixtures import Fixture

GRACE = 0.5  # seconds past an execution's timeout before its worker is killed
CALL_TIMEOUT = 600.0  # seconds for loads, checksums and a worker's start (a JVM, big fixtures)
# fixtures a worker keeps (and its adapters' databases of them): the polyglot reference run
# sends each worker 690 fixtures, 21 of them suite databases of 26,637 rows that unpickle to
# 13 MiB each; kept for the whole run they were most of the DuckDB (1.01 GiB), SQLite (0.38)
# and ClickHouse (0.62) workers' peaks (issue 31). An evicted fixture is sent again when an
# execution needs it. The rows bound is what holds memory down; the count bound is high enough
# for a run's small suite databases: at 64, starter's (368 fixtures per worker, about 83 rows
# each) shared by two suites were evicted between them and sent, created and verified again,
# 33 times per engine a run; none at 256, one at 192 (issue 31). Each costs chdb about 0.25
# MiB (256 small databases: +74 MiB of the ClickHouse worker, 64: +27). Spark keeps a frame
# per fixture in its 1g heap: 64 there.
KEPT_FIXTURES = 256
GROUP_KEPT_FIXTURES = {"spark": 64}
KEPT_ROWS = 150_000  # rows in all: TPC-H's 86,805 and a few suite databases
# Which goes first: a fixture used by fewer than PROTECTED_USES executions (a suite database,
# used by a few executions in a row), least recently used first; an item fixture, reused all
# run long, only when nothing else is left. Plain LRU evicted TPC-H (86,805 rows, 14 MB
# pickled) whenever a TPC-H suite's databases passed, and sent it again for the next item.
PROTECTED_USES = 10
GiB = 1 << 30
# address-space cap per engine (None: not capped by RLIMIT_AS; the JVM is capped by its heap)
MEMORY_LIMITS: dict[str, int | None] = {
    "sqlite": 4 * GiB,
    "duckdb": 8 * GiB,
    "clickhouse": 16 * GiB,
    "spark": None,
}
# Modules no engine's loads or executions need, which engine libraries import only because they
# are installed: pyarrow's ``pa.array`` (parrot's Arrow loads for DuckDB and Spark), DuckDB's
# Arrow scans and pyspark's ``createDataFrame`` each import pandas to ask whether a value is a
# DataFrame (issue 31: a fresh DuckDB worker held 72 MiB of PSS with it, 45 without; Spark's 69,
# 44). A worker refuses them, and the libraries take their paths for an installation without
# pandas.
NOT_IMPORTED = ("pandas",)
FILE_SIZE_LIMIT = 4 * GiB  # largest file a worker may write into its scratch directory
SCRATCH_PREFIX = "parrot-worker-"  # + parrot's pid, the group and a random part

# Landlock (linux/landlock.h), x86-64 and arm64 share these syscall numbers
_SYS_CREATE_RULESET, _SYS_ADD_RULE, _SYS_RESTRICT_SELF = 444, 445, 446
_FS_EXECUTE, _FS_WRITE_FILE, _FS_READ_FILE, _FS_READ_DIR = 1, 2, 4, 8
_FS_FILE_RIGHTS = _FS_EXECUTE | _FS_WRITE_FILE | _FS_READ_FILE | (1 << 14) | (1 << 15)
_FS_READ = _FS_EXECUTE | _FS_READ_FILE | _FS_READ_DIR
_CLONE_NEWNET, _CLONE_NEWPID, _CLONE_NEWNS = 0x40000000, 0x20000000, 0x20000
_MS_NOSUID, _MS_NODEV, _MS_NOEXEC, _MS_REC, _MS_PRIVATE = 2, 4, 8, 1 << 14, 1 << 18
_PR_SET_PDEATHSIG, _PR_SET_NO_NEW_PRIVS = 1, 38
# the new mount API (open_tree, move_mount: the same numbers on every architecture)
_SYS_OPEN_TREE, _SYS_MOVE_MOUNT = 428, 429
_AT_FDCWD, _OPEN_TREE_CLONE, _AT_RECURSIVE, _MOVE_MOUNT_F_EMPTY_PATH = -100, 1, 0x8000, 4

# what a worker may read besides the Python installation, parrot and its scratch directory
READABLE = (
    "/usr",
    "/lib",
    "/lib64",
    "/lib32",
    "/bin",
    "/sbin",
    "/opt",
    "/sys",
    "/dev/null",
    "/dev/zero",
    "/dev/random",
    "/dev/urandom",
    "/etc/ld.so.cache",
    "/etc/localtime",
    "/etc/hosts",
    "/etc/nsswitch.conf",
    "/etc/host.conf",
    "/etc/alternatives",
    "/etc/java-17-openjdk",
    "/etc/java-21-openjdk",
    "/etc/ssl/openssl.cnf",
)
WRITABLE_DEVICES = ("/dev/null",)
# /proc when the host's is all there is: this process's own entries and system-wide facts
PROC_SHARED = (
    "/proc/self",
    "/proc/thread-self",
    "/proc/meminfo",
    "/proc/cpuinfo",
    "/proc/stat",
    "/proc/loadavg",
    "/proc/filesystems",
    "/proc/sys/kernel",
    "/proc/sys/vm",
)


# --- inside the worker ------------------------------------------------------------------------


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def _die_with_parent(libc: ctypes.CDLL, parent: int | None) -> None:
    """SIGKILL this process when its parent ends; ``parent`` is checked where it is visible
    (a parent outside this process's pid namespace is not: a worker orphaned in that race
    still ends, at end of file on its connection)."""
    libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if parent is not None and os.getppid() != parent:  # it died before the prctl
        os._exit(1)


def die_with_parent() -> None:
    """Make this process (a ``multiprocessing`` child, e.g. an ``--jobs`` worker) receive
    SIGKILL when its parent ends, so a killed run leaves nothing behind (Linux only)."""
    import multiprocessing

    parent = multiprocessing.parent_process()
    if sys.platform.startswith("linux"):
        _die_with_parent(_libc(), parent.pid if parent is not None else None)


def _loopback_up() -> None:
    """Bring ``lo`` up in a new network namespace (SIOCGIFFLAGS / SIOCSIFFLAGS)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        req = struct.pack("16sH22x", b"lo", 0)
        flags = struct.unpack("16sH22x", fcntl.ioctl(s, 0x8913, req))[1]
        fcntl.ioctl(s, 0x8914, struct.pack("16sH22x", b"lo", flags | 1))


def _namespaces(libc: ctypes.CDLL, warnings: list[str]) -> bool:
    """Enter new network and pid namespaces; the pid namespace's first process is a fork of
    this one, so this process waits for it and exits with its status. True when networked."""
    if libc.unshare(_CLONE_NEWNET | _CLONE_NEWPID) != 0:
        warnings.append(
            "no network or pid namespace "
            f"({os.strerror(ctypes.get_errno())}): the engine can reach the network"
        )
        return True
    child = os.fork()
    if child:  # the namespace's init runs as the child; this process only waits for it
        _, status = os.waitpid(child, 0)
        if os.WIFSIGNALED(status):  # end the same way, so the parent sees the signal
            if os.WTERMSIG(status) not in (signal.SIGKILL, signal.SIGSTOP):  # not catchable
                signal.signal(os.WTERMSIG(status), signal.SIG_DFL)
            os.kill(os.getpid(), os.WTERMSIG(status))
        os._exit(os.waitstatus_to_exitcode(status) & 0xFF)
    _die_with_parent(libc, None)
    try:
        _loopback_up()
    except OSError as exc:
        warnings.append(f"loopback not up in the network namespace ({exc})")
    return False


def _private_proc(libc: ctypes.CDLL) -> bool:
    """Mount a /proc that shows only this pid namespace's processes (in a mount namespace of
    its own), so no other process's environment or memory can be read. False if refused."""
    if libc.unshare(_CLONE_NEWNS) != 0:
        return False
    if libc.mount(b"none", b"/", None, _MS_REC | _MS_PRIVATE, None) != 0:
        return False
    return libc.mount(b"proc", b"/proc", b"proc", _MS_NOSUID | _MS_NODEV | _MS_NOEXEC, None) == 0


def socket_roots() -> list[str]:
    """Directories a worker sees empty: where parrot's servers (and the host's) keep their unix
    sockets, which let uid 0 in as a superuser without a password (the cache, the temporary
    directories a deep cache's sockets move to, ``/run``). Computed in parrot's process."""
    with contextlib.suppress(OSError):  # made now, so a server started there later is hidden
        cache_dir().mkdir(parents=True, exist_ok=True)
    roots = {str(cache_dir()), tempfile.gettempdir(), "/tmp", "/var/tmp", "/run"}
    return sorted(os.path.realpath(r) for r in roots if os.path.isdir(r))


def _under(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def _hide(
    libc: ctypes.CDLL, roots: list[str], scratch: str, readable: list[str], warnings: list[str]
) -> None:
    """Mount an empty tmpfs over each of ``roots`` in this mount namespace, so no unix socket
    under them can be reached by name; ``scratch`` and every ``readable`` path under a hidden
    root (a virtual environment in ``/tmp``) are carried over (``open_tree`` and
    ``move_mount``). A root the worker reads as a whole stays visible, with a warning."""
    hidden: list[str] = []
    for root in sorted(set(roots)):
        if any(_under(root, h) for h in hidden):
            continue
        if any(_under(root, os.path.realpath(p)) for p in readable):
            warnings.append(
                f"{root} holds files the engine reads: unix sockets under it are reachable"
            )
            continue
        hidden.append(root)
    wanted = sorted(
        {
            os.path.realpath(p)
            for p in [scratch, *readable]
            if os.path.exists(p) and any(_under(os.path.realpath(p), h) for h in hidden)
        }
    )
    carried = [p for p in wanted if not any(_under(p, q) and p != q for q in wanted)]
    dirs = {p for p in carried if os.path.isdir(p)}  # known before the tmpfs hides them
    kept = _clone_trees(libc, carried, warnings)
    if kept is None:
        return
    try:
        for root in hidden:
            if (
                libc.mount(
                    b"tmpfs",
                    root.encode(),
                    b"tmpfs",
                    _MS_NOSUID | _MS_NODEV | _MS_NOEXEC,
                    b"size=64k,mode=755",
                )
                != 0
            ):
                warnings.append(
                    f"{root} not hidden ({os.strerror(ctypes.get_errno())}): unix "
                    "sockets under it are reachable"
                )
        for path, fd in kept:
            _move_tree(libc, fd, path, directory=path in dirs)
        if any(path == os.path.realpath(scratch) for path, _ in kept):
            os.chdir(scratch)
    finally:
        for _, fd in kept:
            os.close(fd)


def _clone_trees(
    libc: ctypes.CDLL, paths: list[str], warnings: list[str]
) -> list[tuple[str, int]] | None:
    """A detached copy (``open_tree``) of each of ``paths``, to be put back over the tmpfs;
    None (nothing hidden, with a warning) when the kernel refuses one."""
    syscall = libc.syscall
    syscall.restype = ctypes.c_long
    kept: list[tuple[str, int]] = []
    for path in paths:
        fd = syscall(
            _SYS_OPEN_TREE,
            ctypes.c_int(_AT_FDCWD),
            path.encode(),
            ctypes.c_uint(_OPEN_TREE_CLONE | os.O_CLOEXEC | _AT_RECURSIVE),
        )
        if fd < 0:
            error = os.strerror(ctypes.get_errno())
            warnings.append(f"{path} not carried over ({error}): server sockets are reachable")
            for _, other in kept:
                os.close(other)
            return None
        kept.append((path, fd))
    return kept


def _move_tree(libc: ctypes.CDLL, fd: int, path: str, directory: bool) -> None:
    """Mount the detached tree ``fd`` at ``path`` (made on the tmpfs: a directory, or an empty
    file for a file)."""
    if directory:
        os.makedirs(path, exist_ok=True)
    else:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        open(path, "a").close()  # an empty mount point
    if (
        libc.syscall(
            _SYS_MOVE_MOUNT,
            ctypes.c_int(fd),
            b"",
            ctypes.c_int(_AT_FDCWD),
            path.encode(),
            ctypes.c_uint(_MOVE_MOUNT_F_EMPTY_PATH),
        )
        != 0
    ):
        raise OSError(ctypes.get_errno(), f"move_mount of {path}")


def _landlock(
    libc: ctypes.CDLL,
    scratch: str | list[str],
    readable: list[str],
    deny_tcp: bool,
    warnings: list[str],
    tcp_bind: int | None = None,
) -> None:
    """Confine file access to ``readable`` (read) and ``scratch`` (one directory or several,
    read/write); with ``deny_tcp`` also forbid TCP bind/connect (when no network namespace
    could be had) except binding port ``tcp_bind`` (a server's own port)."""
    syscall = libc.syscall
    syscall.restype = ctypes.c_long
    abi = syscall(_SYS_CREATE_RULESET, None, ctypes.c_size_t(0), ctypes.c_uint32(1))
    if abi < 1:
        warnings.append(
            "no Landlock in this kernel "
            f"({os.strerror(ctypes.get_errno())}): host files are readable and "
            "writable by the engine"
        )
        return
    handled = (
        (1 << 13) - 1
        | (1 << 13 if abi >= 2 else 0)
        | (1 << 14 if abi >= 3 else 0)
        | (1 << 15 if abi >= 5 else 0)
    )
    net = 3 if deny_tcp and abi >= 4 else 0
    scoped = 3 if abi >= 6 else 0  # abstract unix sockets and signals outside the sandbox
    attr = struct.pack("QQQ", handled, net, scoped)
    size = 24 if abi >= 6 else 16 if abi >= 4 else 8
    buf = ctypes.create_string_buffer(attr, 24)
    ruleset = syscall(_SYS_CREATE_RULESET, buf, ctypes.c_size_t(size), ctypes.c_uint32(0))
    if ruleset < 0:
        warnings.append(f"Landlock refused a ruleset ({os.strerror(ctypes.get_errno())})")
        return
    writable = [scratch] if isinstance(scratch, str) else scratch
    rules = (
        [(p, _FS_READ) for p in readable]
        + [(p, handled) for p in writable]
        + [(p, _FS_READ_FILE | _FS_WRITE_FILE) for p in WRITABLE_DEVICES]
    )
    if net and tcp_bind is not None:
        port = ctypes.create_string_buffer(struct.pack("=QQ", 1, tcp_bind), 16)  # BIND_TCP
        if (
            syscall(_SYS_ADD_RULE, ctypes.c_int(ruleset), ctypes.c_int(2), port, ctypes.c_uint32(0))
            != 0
        ):
            warnings.append(
                f"Landlock rule for TCP port {tcp_bind} refused ({os.strerror(ctypes.get_errno())})"
            )
    for path, access in rules:
        try:
            fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
        except OSError:
            continue
        try:
            if not os.path.isdir(path):
                access &= _FS_FILE_RIGHTS
            rule = ctypes.create_string_buffer(struct.pack("=Qi", access & handled, fd), 12)
            if (
                syscall(
                    _SYS_ADD_RULE, ctypes.c_int(ruleset), ctypes.c_int(1), rule, ctypes.c_uint32(0)
                )
                != 0
            ):
                warnings.append(
                    f"Landlock rule for {path} refused ({os.strerror(ctypes.get_errno())})"
                )
        finally:
            os.close(fd)
    libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
    if syscall(_SYS_RESTRICT_SELF, ctypes.c_int(ruleset), ctypes.c_uint32(0)) != 0:
        warnings.append(
            f"Landlock not applied ({os.strerror(ctypes.get_errno())}): host files "
            "are readable and writable by the engine"
        )
    if deny_tcp and abi < 4:
        warnings.append("Landlock cannot forbid TCP here (ABI < 4)")
    os.close(ruleset)


def _readable_paths() -> list[str]:
    # parrot's package only, not the checkout around it (datasets, .git); it is imported already
    paths = {sys.prefix, sys.base_prefix, sys.exec_prefix, str(Path(parrot.__file__).parent)}
    paths.update(READABLE)
    java_home = os.environ.get("JAVA_HOME")
    if java_home:
        paths.add(java_home)
    return sorted(paths)


def _isolate(group: str, scratch: str, parent: int, hide: list[str] | None = None) -> list[str]:
    """Apply every layer this kernel grants; the warnings name the ones it refused. ``hide``:
    the directories to see empty (default :func:`socket_roots`)."""
    warnings: list[str] = []
    libc = _libc()
    _die_with_parent(libc, parent)
    networked = _namespaces(libc, warnings)
    readable = _readable_paths()  # before Landlock: resolving them needs the file system
    if not networked and _private_proc(libc):
        readable.append("/proc")
        _hide(libc, socket_roots() if hide is None else hide, scratch, readable, warnings)
    else:
        readable.extend(PROC_SHARED)
        warnings.append("no mount namespace: parrot's server sockets are reachable")
    _landlock(libc, scratch, readable, deny_tcp=networked and group != "spark", warnings=warnings)
    limit = MEMORY_LIMITS.get(group)
    with contextlib.suppress(ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        resource.setrlimit(resource.RLIMIT_FSIZE, (FILE_SIZE_LIMIT, FILE_SIZE_LIMIT))
        if limit is not None:
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    return warnings


def _cpu_budget(timeout: float | None) -> None:
    """Let this process spend at most ``timeout`` seconds on each core, plus a margin, from
    now (SIGXCPU kills it past that); None lifts the budget."""
    if timeout is None:
        resource.setrlimit(resource.RLIMIT_CPU, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
        return
    used = resource.getrusage(resource.RUSAGE_SELF)
    spent = used.ru_utime + used.ru_stime
    resource.setrlimit(
        resource.RLIMIT_CPU,
        (int(spent + timeout * (os.cpu_count() or 1)) + 2, resource.RLIM_INFINITY),
    )


class UnloadedFixture(KeyError):
    """The worker no longer holds the fixture an execution names (evicted): load it again."""


class _Fixtures:
    """The fixtures a worker holds, by content hash: at most ``KEPT_FIXTURES`` (its group's
    ``GROUP_KEPT_FIXTURES``) of at most
    ``KEPT_ROWS`` rows in all, never evicting the newest. The least recently used of those used
    by fewer than ``PROTECTED_USES`` executions goes first, then the least recently used of the
    rest. An evicted fixture's databases are discarded from every adapter of the worker too."""

    def __init__(self, adapters: dict[str, Engine], group: str = "") -> None:
        self._adapters = adapters
        self._kept: BoundedCache[str, Fixture] = BoundedCache(
            GROUP_KEPT_FIXTURES.get(group, KEPT_FIXTURES),
            KEPT_ROWS,
            lambda fixture: fixture.row_count,
            victim=self._victim,
            on_evict=self._forget,
        )
        # executions per fixture hash, kept across evictions (a re-sent item fixture stays
        # protected): one small int per fixture the worker was ever sent
        self._uses: dict[str, int] = {}

    def __len__(self) -> int:
        return len(self._kept)

    def __contains__(self, digest: str) -> bool:
        return digest in self._kept

    def add(self, fixture: Fixture) -> None:
        self._kept.put(fixture.content_hash, fixture)

    def _victim(self, older: Sequence[str]) -> str:
        """The fixture to evict among ``older`` (least recently used first, the newest not
        among them): the least recently used seldom-used one, else the least recently used."""
        seldom = (d for d in older if self._uses.get(d, 0) < PROTECTED_USES)
        return next(seldom, older[0])

    def _forget(self, digest: str, fixture: Fixture) -> None:
        for engine in self._adapters.values():
            if isinstance(engine, EngineBase):
                engine._forget(fixture)

    def get(self, digest: str) -> Fixture:
        try:
            fixture = self._kept.get(digest)  # now the most recently used
        except KeyError:
            raise UnloadedFixture(digest) from None
        self._uses[digest] = self._uses.get(digest, 0) + 1
        return fixture


class _Refuse(importlib.abc.MetaPathFinder):
    """Refuses to import the modules of ``NOT_IMPORTED`` (and their submodules)."""

    def find_spec(
        self, fullname: str, path: Any = None, target: Any = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname.split(".", 1)[0] in NOT_IMPORTED:
            raise ModuleNotFoundError(
                f"No module named {fullname!r} (not imported in an engine worker)", name=fullname
            )
        return None


def _serve(conn: Connection, group: str = "") -> None:
    """Answer calls until the parent closes the connection."""
    import importlib

    adapters: dict[str, Engine] = {}
    fixtures = _Fixtures(adapters, group)
    while True:
        try:
            target, method, args = pickle.loads(conn.recv_bytes())
        except EOFError:
            return
        try:
            engine = adapters.get(target)
            if engine is None:
                module, cls = target.split(":")
                engine = adapters[target] = getattr(importlib.import_module(module), cls)()
            if method == "load":
                fixtures.add(args[0])
                answer: Any = engine.load(args[0])
            elif method == "execute":
                sql, digest, timeout, max_rows = args
                fixture = fixtures.get(digest)
                _cpu_budget(timeout)
                try:
                    answer = engine.execute(sql, fixture, timeout=timeout, max_rows=max_rows)
                finally:
                    _cpu_budget(None)
            elif method == "checksums":
                answer = engine.checksums(fixtures.get(args[0]))
            elif method == "label":
                answer = engine.label
            elif method == "version":
                answer = engine.version()
            elif method == "modules":  # what the worker imported (tests)
                answer = sorted(sys.modules)
            else:
                raise ValueError(f"unknown call {method!r}")
            reply: tuple[str, Any] = ("ok", answer)
        except FixtureLoadError as exc:
            reply = ("load_error", str(exc))
        except UnloadedFixture as exc:
            reply = ("unloaded", exc.args[0])
        except Exception as exc:
            reply = ("error", f"{type(exc).__name__}: {exc}")
        conn.send_bytes(pickle.dumps(reply, protocol=pickle.HIGHEST_PROTOCOL))


WORKER_MODULE = "parrot.engines.worker"


@dataclass(frozen=True)
class WorkerArgs:
    """A worker's command line, ``python -m parrot.engines.worker FD PARENT_PID GROUP SCRATCH
    [HIDDEN_DIR...]``: the one place that knows its layout (the worker reads it, the parent
    writes it, ``scripts/bench/peakmem.py`` tells workers apart by ``group``)."""

    fd: int
    parent: int
    group: str
    scratch: str
    hide: tuple[str, ...] = ()

    def argv(self) -> list[str]:
        """The arguments after ``-m parrot.engines.worker``."""
        return [str(self.fd), str(self.parent), self.group, self.scratch, *self.hide]

    @classmethod
    def parse(cls, argv: list[str]) -> WorkerArgs:
        """The arguments after ``-m parrot.engines.worker``; ``ValueError`` if malformed."""
        if len(argv) < 4:
            raise ValueError(f"a worker needs FD PARENT_PID GROUP SCRATCH, got {argv!r}")
        return cls(int(argv[0]), int(argv[1]), argv[2], argv[3], tuple(argv[4:]))

    @classmethod
    def of_cmdline(cls, cmdline: list[str]) -> WorkerArgs | None:
        """A process's whole command line (``python -m parrot.engines.worker ...``) parsed, or
        ``None`` if it is not a well-formed worker's."""
        if WORKER_MODULE not in cmdline:
            return None
        at = cmdline.index(WORKER_MODULE)
        if at == 0 or cmdline[at - 1] != "-m":
            return None
        try:
            return cls.parse(cmdline[at + 1 :])
        except ValueError:
            return None


def main(argv: list[str]) -> None:
    """``python -m parrot.engines.worker FD PARENT_PID GROUP SCRATCH [HIDDEN_DIR...]``."""
    args = WorkerArgs.parse(argv)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C stops the parent, which kills us
    warnings = _isolate(args.group, args.scratch, args.parent, hide=list(args.hide))
    sys.meta_path.insert(0, _Refuse())
    conn = Connection(args.fd)
    conn.send_bytes(pickle.dumps(("hello", os.getpid(), warnings)))
    _serve(conn, args.group)


# --- in parrot's process ----------------------------------------------------------------------

_ALLOWED = {
    "builtins": {
        "tuple",
        "list",
        "dict",
        "set",
        "frozenset",
        "str",
        "bytes",
        "int",
        "float",
        "bool",
        "complex",
        "bytearray",
    },
    "decimal": {"Decimal"},
    "parrot.values": {"ResultSet", "Temporal", "Nested"},
    "parrot.engines.base": {"Execution", "ExecStatus", "LoadReport"},
}


class _Unpickler(pickle.Unpickler):
    """Decodes only parrot's records and plain values: a worker taken over by a hostile text
    cannot send code to the parent."""

    def find_class(self, module: str, name: str) -> Any:
        if name in _ALLOWED.get(module, ()):
            return super().find_class(module, name)
        raise pickle.UnpicklingError(f"a worker sent a {module}.{name}, which is not allowed")


def _loads(data: bytes) -> Any:
    return _Unpickler(io.BytesIO(data)).load()


class WorkerDied(RuntimeError):
    """The worker process ended or stopped answering."""


class _Spawner:
    """Starts every worker process from one long-lived thread of this process.

    A worker asks for ``PR_SET_PDEATHSIG``, and Linux sends that signal when the *thread* that
    forked it ends, not the process: a worker started by a short-lived thread (a thread pool's,
    a test's) was SIGKILLed when that thread finished, under whatever query another thread was
    running on it. The spawner thread lives as long as the process (a daemon: at exit the
    workers die with it, as they should); a forked child starts its own on first use."""

    def __init__(self) -> None:
        self._owner: int | None = None
        self._queue: SimpleQueue[tuple[Future[Any], tuple[Any, ...], dict[str, Any]]] = (
            SimpleQueue()
        )
        self._lock = threading.Lock()
        os.register_at_fork(after_in_child=self._forget)

    def _forget(self) -> None:
        """In a forked child: the parent's thread and lock do not exist here."""
        self._owner, self._lock, self._queue = None, threading.Lock(), SimpleQueue()

    def popen(self, *args: Any, **kwargs: Any) -> subprocess.Popen[bytes]:
        """``subprocess.Popen(*args, **kwargs)``, run on the spawner thread."""
        with self._lock:
            if self._owner != os.getpid():
                self._owner = os.getpid()
                threading.Thread(
                    target=self._serve,
                    args=(self._queue,),
                    daemon=True,
                    name="parrot-worker-spawner",
                ).start()
        done: Future[subprocess.Popen[bytes]] = Future()
        self._queue.put((done, args, kwargs))
        return done.result()

    @staticmethod
    def _serve(requests: SimpleQueue[tuple[Future[Any], tuple[Any, ...], dict[str, Any]]]) -> None:
        while True:
            done, args, kwargs = requests.get()
            try:
                done.set_result(subprocess.Popen(*args, **kwargs))
            except BaseException as exc:  # handed to the caller, raised there
                done.set_exception(exc)


SPAWNER = _Spawner()


@dataclass
class _Worker:
    """One worker process and the connection to it."""

    group: str
    process: subprocess.Popen[bytes]
    conn: Connection
    scratch: str
    warnings: list[str]
    lock: threading.Lock = field(default_factory=threading.Lock)

    @classmethod
    def start(cls, group: str) -> _Worker:
        _sweep_scratch()
        scratch = tempfile.mkdtemp(prefix=f"{SCRATCH_PREFIX}{os.getpid()}-{group}-")
        ours, theirs = socket.socketpair()
        try:
            process = SPAWNER.popen(
                [
                    sys.executable,
                    "-m",
                    WORKER_MODULE,
                    *WorkerArgs(
                        theirs.fileno(), os.getpid(), group, scratch, tuple(socket_roots())
                    ).argv(),
                ],
                env=worker_environ(scratch),
                cwd=scratch,
                stdin=subprocess.DEVNULL,
                pass_fds=(theirs.fileno(),),
                start_new_session=True,
            )
        except BaseException:
            ours.close()
            shutil.rmtree(scratch, ignore_errors=True)
            raise
        finally:
            theirs.close()
        conn = Connection(os.dup(ours.fileno()))
        ours.close()
        worker = cls(group, process, conn, scratch, [])
        try:
            hello = worker._receive(CALL_TIMEOUT)
        except WorkerDied:
            worker.kill()
            raise
        worker.warnings = list(hello[2])
        _announce(group, worker.warnings)
        return worker

    def _receive(self, timeout: float) -> Any:
        try:
            if not self.conn.poll(timeout):
                raise WorkerDied(f"no answer within {timeout:.1f} s")
            return _loads(self.conn.recv_bytes())
        except (EOFError, OSError) as exc:
            raise WorkerDied(f"the worker ended ({_exit_text(self._exit_code())})") from exc

    def _exit_code(self) -> int | None:
        """The ended worker's exit status: its pipe closes a moment before it can be reaped."""
        try:
            return self.process.wait(timeout=2)
        except subprocess.TimeoutExpired:
            return None

    def call(self, target: str, method: str, args: tuple[Any, ...], timeout: float) -> Any:
        try:
            self.conn.send_bytes(
                pickle.dumps((target, method, args), protocol=pickle.HIGHEST_PROTOCOL)
            )
        except OSError as exc:
            raise WorkerDied(f"the worker ended ({_exit_text(self._exit_code())})") from exc
        return self._receive(timeout)

    def kill(self) -> None:
        """SIGKILL the worker's whole process group (its JVM included) and clean up."""
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=10)
        self.conn.close()
        shutil.rmtree(self.scratch, ignore_errors=True)

    def stop(self) -> None:
        """Close the connection (the worker then exits) and make sure it is gone."""
        self.conn.close()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=5)
        self.kill()


def _sweep_scratch() -> None:
    """Remove scratch directories of workers whose parrot process is gone (killed runs)."""
    root = Path(tempfile.gettempdir())
    for path in root.glob(f"{SCRATCH_PREFIX}*-*-*"):
        owner = path.name[len(SCRATCH_PREFIX) :].split("-", 1)[0]
        if owner.isdigit() and not Path(f"/proc/{owner}").exists():
            shutil.rmtree(path, ignore_errors=True)


def worker_environ(scratch: str) -> dict[str, str]:
    """A worker's environment: this one without secrets, in UTC, its scratch directory as home
    and temporary directory, importing the same parrot as this process."""
    env = allowed_environ()
    env.update(
        TMPDIR=scratch,
        HOME=scratch,
        TZ="UTC",
        PYTHONPATH=os.pathsep.join(
            [str(Path(parrot.__file__).parent.parent), *filter(None, [env.get("PYTHONPATH")])]
        ),
    )
    return env


def _exit_text(code: int | None) -> str:
    if code is None:
        return "still running"
    if code < 0:
        return f"killed by {signal.Signals(-code).name}"
    return f"exit status {code}"


_ANNOUNCED: set[str] = set()


def _announce(group: str, warnings: list[str]) -> None:
    """Say once per process and engine which isolation layers the kernel refused."""
    if warnings and group not in _ANNOUNCED:
        _ANNOUNCED.add(group)
        for warning in warnings:
            print(f"parrot: WARNING: {group} engine worker: {warning}", file=sys.stderr)


class _Pool:
    """This process's workers, one per group (the Spark family shares one JVM), shared by the
    proxies of that group and restarted on demand."""

    def __init__(self) -> None:
        self.workers: dict[str, _Worker] = {}
        self.users: dict[str, int] = {}
        self.lock = threading.Lock()
        self._starting: dict[str, threading.Lock] = {}  # one start at a time per group

    def get(self, group: str) -> _Worker:
        """The group's running worker, started (or restarted) when there is none. Workers of
        different groups start side by side: only one group's start is serialised, not the
        pool (a run warms its engines' workers in parallel, :meth:`Judge.warm`)."""
        with self.lock:
            worker = self.workers.get(group)
            if worker is not None and worker.process.poll() is None:
                return worker
            starting = self._starting.setdefault(group, threading.Lock())
        with starting:
            with self.lock:
                worker = self.workers.get(group)
                if worker is not None and worker.process.poll() is None:
                    return worker  # another thread started it meanwhile
                stale = self.workers.pop(group, None)
            if stale is not None:
                stale.kill()
            worker = _Worker.start(group)
            with self.lock:
                self.workers[group] = worker
            return worker

    def discard(self, worker: _Worker) -> None:
        with self.lock:
            if self.workers.get(worker.group) is worker:
                del self.workers[worker.group]
        worker.kill()

    def acquire(self, group: str) -> None:
        with self.lock:
            self.users[group] = self.users.get(group, 0) + 1

    def release(self, group: str) -> None:
        with self.lock:
            self.users[group] = self.users.get(group, 1) - 1
            worker = self.workers.pop(group, None) if self.users[group] <= 0 else None
        if worker is not None:
            worker.stop()

    def stop_all(self) -> None:
        """Stop every worker (at exit: their scratch directories go with them)."""
        with self.lock:
            workers = list(self.workers.values())
            self.workers.clear()
        for worker in workers:
            worker.stop()


POOL = _Pool()
atexit.register(POOL.stop_all)


class IsolatedEngine(Engine):
    """An embedded adapter run in a worker process (see the module docstring)."""

    target: ClassVar[str]  # "module:Class" of the adapter the worker runs
    group: ClassVar[str]  # adapters of one group share a worker

    def __init__(self) -> None:
        self._loaded: dict[str, tuple[LoadReport, int]] = {}  # hash -> (report, worker pid)
        self._label: str | None = None
        self._version: str | None = None
        self._closed = False
        POOL.acquire(self.group)

    def _call(self, method: str, *args: Any, timeout: float = CALL_TIMEOUT) -> Any:
        worker = POOL.get(self.group)
        with worker.lock:
            try:
                status, answer = worker.call(self.target, method, args, timeout)
            except (WorkerDied, pickle.UnpicklingError):
                POOL.discard(worker)
                raise
        if status == "load_error":
            raise FixtureLoadError(answer)
        if status == "unloaded":
            raise UnloadedFixture(answer)
        if status != "ok":
            raise WorkerDied(f"{self.name} worker failed: {answer}")
        return answer

    @property
    def isolation_warnings(self) -> list[str]:
        """The layers the kernel refused for this engine's worker (empty: fully isolated)."""
        return list(POOL.get(self.group).warnings)

    def version(self) -> str:
        """The engine's version, as the adapter in the worker reports it."""
        if self._version is None:
            self._version = str(self._call("version"))
        return self._version

    @property
    def label(self) -> str:
        """The in-process adapter's label; a fallback appends the layers that are missing."""
        warnings = self.isolation_warnings
        if self._label is None:
            self._label = str(self._call("label"))
        base = self._label
        return f"{base} [NOT ISOLATED: {'; '.join(warnings)}]" if warnings else base

    def load(self, fixture: Fixture) -> LoadReport:
        """Load ``fixture`` in the worker, unless this worker already holds it: the fixture
        crosses the pipe once per worker, not once per execution (TPC-H: 14 MB pickled)."""
        known = self._loaded.get(fixture.content_hash)
        if known is not None and known[1] == POOL.get(self.group).process.pid:
            return replace(known[0], cached=True, seconds=0.0)
        try:
            report: LoadReport = self._call("load", shipped(fixture))
        except WorkerDied as exc:
            raise FixtureLoadError(f"{self.name} worker: {exc}") from None
        self._loaded[fixture.content_hash] = (report, POOL.get(self.group).process.pid)
        return report

    def _execute(self, request: Request) -> Execution:
        execution = self._execute_once(request)
        if execution is None:  # the worker evicted the fixture since: send it again
            self._loaded.pop(request.fixture.content_hash, None)
            execution = self._execute_once(request)
        if execution is None:
            return Execution(ExecStatus.ENGINE_ERROR, error="fixture load: evicted on arrival")
        return execution

    def _execute_once(self, request: Request) -> Execution | None:
        """The execution, or None when the worker no longer holds the fixture."""
        try:
            self.load(request.fixture)
        except FixtureLoadError as exc:
            return Execution(ExecStatus.ENGINE_ERROR, error=f"fixture load: {exc}")
        worker = POOL.get(self.group)
        started = time.monotonic()
        with worker.lock:
            try:
                status, answer = worker.call(
                    self.target,
                    "execute",
                    (request.sql, request.fixture.content_hash, request.timeout, request.max_rows),
                    request.timeout + GRACE,
                )
            except (WorkerDied, pickle.UnpicklingError) as exc:
                elapsed = time.monotonic() - started
                POOL.discard(worker)
                if elapsed >= request.timeout or "SIGXCPU" in str(exc):
                    return Execution(
                        ExecStatus.TIMEOUT,
                        elapsed=elapsed,
                        error=f"timed out: the {self.name} worker was killed after {elapsed:.1f} s",
                    )
                return Execution(
                    ExecStatus.ENGINE_ERROR,
                    elapsed=elapsed,
                    error=f"the {self.name} worker crashed: {exc}; the next "
                    "execution gets a new worker",
                )
        if status == "unloaded":
            return None
        if status != "ok":
            return Execution(ExecStatus.ENGINE_ERROR, error=str(answer))
        execution: Execution = answer
        if execution.status is ExecStatus.TIMEOUT:  # whatever it left running dies with it
            POOL.discard(worker)
        return execution

    def checksums(self, fixture: Fixture) -> dict[str, str]:
        self.load(fixture)
        try:
            checksums: dict[str, str] = self._call("checksums", fixture.content_hash)
        except UnloadedFixture:  # evicted since: send it again
            self._loaded.pop(fixture.content_hash, None)
            self.load(fixture)
            checksums = self._call("checksums", fixture.content_hash)
        return checksums

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            POOL.release(self.group)


def shipped(fixture: Fixture) -> Fixture:
    """``fixture`` with its content hash and declared checksums computed, so the pickle a
    worker gets carries them: computed once in parrot's process, not once per engine worker
    (the checksums are a JSON dump and a SHA-256 of every row; a suite database is loaded on
    its source's and its targets' engines, issue 31)."""
    _ = fixture.content_hash, fixture.checksums
    return fixture


def isolated(cls: type[Engine]) -> type[Engine]:
    """A proxy class for the embedded adapter ``cls`` whose executions run in a worker."""
    group = "spark" if cls.__module__ == "parrot.engines.spark" else cls.name
    proxy: type[Engine] = type(
        f"Isolated{cls.__name__}",
        (IsolatedEngine,),
        {
            "name": cls.name,
            "dialect": cls.dialect,
            "capabilities": cls.capabilities,
            "url_schemes": None,
            "target": f"{cls.__module__}:{cls.__qualname__}",
            "group": group,
            "__doc__": f"{cls.__name__} in an isolated worker process.",
        },
    )
    return proxy


def isolation_enabled() -> bool:
    """False when ``PARROT_ISOLATION=off`` asks for in-process adapters."""
    return os.environ.get("PARROT_ISOLATION", "on").lower() not in ("off", "0", "no", "false")


if __name__ == "__main__":
    main(sys.argv[1:])
