"""Confinement of the servers parrot starts (PostgreSQL, MariaDB) and of their setup tools.

``python -m parrot.servers.confine SPEC -- PROGRAM ARGS...`` applies, then ``exec``s the
program (which keeps every layer, its children too):

* **no network**: a network namespace of its own with no interface up, so the server is
  reached only through its unix socket (in its data directory) and reaches nothing. Where the
  kernel refuses the namespace, the server listens on 127.0.0.1 and Landlock (ABI ≥ 4) lets it
  bind only its own port and connect nowhere;
* **its data directory only**: Landlock makes the directories in ``writable`` (data directory,
  socket directory) the only writable places; system libraries, the server's installation and
  the account databases (``/etc/passwd``, ``/etc/group``: servers look their user up) are
  readable, every other host file is not;
* the environment the parent passes, which has no secrets (:mod:`parrot.engines.sandbox`);
* no core dumps; under root, the unprivileged ``uid``/``gid`` it drops to after confining.

What was refused is written as JSON to file descriptor ``report`` before the ``exec``; callers
print it and append it to the server's label (``[NOT ISOLATED: ...]``).
"""

from __future__ import annotations

import ctypes
import json
import os
import resource
import subprocess
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path

import parrot
from parrot.engines import worker

# besides the worker's readable set: what a server and its tools look up
SERVER_READABLE = ("/etc/passwd", "/etc/group", "/usr/share", "/usr/lib/locale")


@dataclass
class Spec:
    """How to confine one program."""

    writable: list[str]
    readable: list[str] = field(default_factory=list)
    port: int | None = None  # the TCP port it may bind if no network namespace can be had
    uid: int | None = None
    gid: int | None = None
    report: int | None = None  # file descriptor for the JSON list of refused layers


def command(spec: Spec, argv: list[str]) -> list[str]:
    """The command line that runs ``argv`` confined by ``spec``."""
    return [sys.executable, "-m", "parrot.servers.confine", json.dumps(asdict(spec)), "--", *argv]


def environ(env: dict[str, str]) -> dict[str, str]:
    """``env`` (already without secrets) plus what the wrapper needs to import this parrot."""
    root = str(Path(parrot.__file__).parent.parent)
    return {**env, "PYTHONPATH": os.pathsep.join([root, *filter(None, [env.get("PYTHONPATH")])])}


def network_namespace_refused() -> str | None:
    """Why this kernel refuses a network namespace to parrot's servers, or None if it grants
    one (tried in a short-lived child process)."""
    probe = (
        "import ctypes, os, sys; libc = ctypes.CDLL(None, use_errno=True); "
        f"sys.exit(0 if libc.unshare({worker._CLONE_NEWNET}) == 0 else "
        "print(os.strerror(ctypes.get_errno())) or 1)"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=False
    )
    return None if done.returncode == 0 else (done.stdout.strip() or done.stderr.strip()[-200:])


def confine(spec: Spec) -> list[str]:
    """Apply every layer of ``spec`` this kernel grants to this process; the refused ones."""
    warnings: list[str] = []
    libc = worker._libc()
    networked = libc.unshare(worker._CLONE_NEWNET) != 0
    if networked:
        warnings.append(
            f"no network namespace ({os.strerror(ctypes.get_errno())}): listens on 127.0.0.1"
        )
    readable = sorted(
        {*spec.readable, *worker._readable_paths(), *SERVER_READABLE, *worker.PROC_SHARED}
    )
    worker._landlock(
        libc, spec.writable, readable, deny_tcp=networked, warnings=warnings, tcp_bind=spec.port
    )
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    if spec.gid is not None:
        os.setgroups([])
        os.setgid(spec.gid)
    if spec.uid is not None:
        os.setuid(spec.uid)
    return warnings


def read_report(fd: int) -> list[str]:
    """The refused layers a confined program wrote to the read end ``fd`` (closed here)."""
    with os.fdopen(fd, "rb") as pipe:
        data = pipe.read()
    if not data:
        return ["the confinement wrapper reported nothing: isolation unknown"]
    return [str(w) for w in json.loads(data)]


def main(argv: list[str]) -> None:
    """``python -m parrot.servers.confine SPEC -- PROGRAM ARGS...``."""
    if len(argv) < 3 or argv[1] != "--":
        sys.exit("usage: python -m parrot.servers.confine SPEC -- PROGRAM ARGS...")
    spec = Spec(**json.loads(argv[0]))
    try:
        warnings = confine(spec)
    except OSError as exc:
        sys.exit(f"parrot.servers.confine: {exc}")
    if spec.report is not None:
        os.write(spec.report, json.dumps(warnings).encode())
        os.close(spec.report)
    try:
        os.execv(argv[2], argv[2:])
    except OSError as exc:
        sys.exit(f"parrot.servers.confine: cannot run {argv[2]}: {exc}")


if __name__ == "__main__":
    main(sys.argv[1:])
