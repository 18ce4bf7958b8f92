"""``python -m parrot.servers.watchdog DIALECT OWNER ROOT [--outlives]``: stop a run's server
when the run ends.

The run starts this process with a pipe on its standard input and never writes to it; end of
file means the run has ended, however (a SIGKILL included). The watchdog then stops the server
of ``DIALECT`` under ``ROOT`` (the servers directory) if it is still the one started for the run
``OWNER``, and says so on standard error. With ``--outlives`` OWNER is not the process that
started the watchdog but the run it works for (a ``--jobs`` worker's parent), which may run long
after it: the watchdog waits for OWNER's end however long it takes.
"""

from __future__ import annotations

import signal
import sys
import time
from pathlib import Path

from parrot.servers import SERVERS, ServerError
from parrot.servers.base import pid_alive, process_started


def _same_process(pid: int, started: str | None) -> bool:
    """Process ``pid`` still runs and is the one that started at ``started``."""
    return pid_alive(pid) and process_started(pid) == started


def main(argv: list[str]) -> int:
    dialect, owner, root = argv[0], int(argv[1]), Path(argv[2])
    outlives = argv[3:] == ["--outlives"]
    started = process_started(owner)  # a pid reused after the run's end is not the run
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C stops the run; the run stops us
    sys.stdin.buffer.read()  # until the run's end closes the pipe
    deadline = time.monotonic() + 30  # its files close a moment before it is gone
    while _same_process(owner, started) and (outlives or time.monotonic() < deadline):
        time.sleep(0.05 if not outlives else 0.5)

    server = SERVERS.get(dialect)(root=root)
    try:
        stopped = server.stop_orphan()
    except ServerError as exc:
        print(f"parrot: the {dialect} server of run {owner} did not stop: {exc}", file=sys.stderr)
        return 1
    if stopped == owner:
        print(
            f"parrot: stopped the {dialect} server of run {owner}, which ended without stopping it",
            file=sys.stderr,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
