"""Stopping server processes (parrot.servers.base, through psutil): a process that ignores the
polite signal is killed, a zombie counts as gone, a recycled or missing pid is not touched."""

from __future__ import annotations

import signal
import subprocess
import sys

import pytest

from parrot.servers.base import ServerError, pid_alive, stop_pid, stop_processes

IGNORES_TERM = (
    "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
    "print('ready', flush=True); time.sleep(120)"
)


def _start(code: str) -> subprocess.Popen[str]:
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
    return proc


def test_a_process_ignoring_sigterm_is_killed() -> None:
    proc = _start(IGNORES_TERM)
    try:
        stop_pid(proc.pid, timeout=0.3)  # returns only once it is gone: SIGTERM did nothing
        assert not pid_alive(proc.pid)
    finally:
        proc.kill()


def test_the_asks_come_in_order_and_each_can_end_it() -> None:
    proc = _start(
        "import signal, sys, time; signal.signal(signal.SIGINT, lambda *a: "
        "(print('asked', flush=True), sys.exit(0))); print('ready', flush=True); "
        "time.sleep(120)"
    )
    try:
        assert stop_processes([proc.pid], ((signal.SIGINT.value, 10.0),)) == []
        assert proc.stdout is not None and proc.stdout.read().strip() == "asked"
    finally:
        proc.kill()


def test_a_zombie_is_gone_and_a_missing_pid_is_left_alone() -> None:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    for _ in range(200):  # exited but not reaped: a zombie
        if not pid_alive(proc.pid):
            break
        subprocess.run(["sleep", "0.05"], check=True)
    assert not pid_alive(proc.pid)
    assert stop_processes([proc.pid]) == []
    proc.wait()
    assert stop_processes([proc.pid]) == []  # no such process: nothing to do


def test_stop_pid_says_when_it_cannot(monkeypatch: pytest.MonkeyPatch) -> None:
    import parrot.servers.base as base

    monkeypatch.setattr(base, "stop_processes", lambda pids, asks: list(pids))
    with pytest.raises(ServerError, match="did not stop"):
        stop_pid(12345, timeout=0.1)
