"""Two runs sharing one ``PARROT_CACHE`` share its servers: the first run's end (its
``stop_servers`` and its watchdog) leaves the server running while the second still uses it, and
the second's end stops it (before, the first run's end stopped it under the second)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

import pytest
from patience import wait_until

from parrot.servers import base, server_for
from parrot.servers import cli as servers_cli
from parrot.servers.base import pid_alive
from parrot.servers.postgres import PostgresServer

pytestmark = pytest.mark.server

# A run's server handling, as `parrot eval` and `parrot testsuite build` do it: start (or join)
# the servers it needs, say so on one line, use them until told to end, then stop (release) them.
RUN = """
import io, json, sys
from rich.console import Console
from parrot.eval.cli import start_servers, stop_servers
from parrot.servers import base
started, failed = start_servers([sys.argv[1]], Console(file=io.StringIO()))
watchdogs = [w.pid for w in base._WATCHDOGS]
print(json.dumps({"started": started, "failed": failed, "watchdogs": watchdogs}), flush=True)
sys.stdin.readline()
stop_servers(started)
"""


def _run(dialect: str) -> tuple[subprocess.Popen[str], dict[str, Any]]:
    run = subprocess.Popen(
        [sys.executable, "-c", RUN, dialect],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=os.environ.copy(),
    )
    assert run.stdout is not None
    return run, json.loads(run.stdout.readline())


def _end(run: subprocess.Popen[str], said: dict[str, Any]) -> None:
    run.communicate("\n", timeout=120)
    assert run.returncode == 0
    assert wait_until(lambda: not any(pid_alive(w) for w in said["watchdogs"]), 60), (
        "the run's watchdog did not finish"
    )


@pytest.mark.parametrize("dialect", ["postgres", "mysql"])
def test_the_first_runs_end_leaves_the_server_the_second_uses(
    dialect: str, tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PARROT_CACHE", str(tmp_path))
    server = server_for(dialect)
    hint = server.available()
    if hint is not None:
        pytest.skip(f"the {dialect} server binary is not here: {hint}")
    runs: list[subprocess.Popen[str]] = []
    try:
        first, said_first = _run(dialect)
        runs.append(first)
        assert said_first["started"] == [dialect], said_first
        state = server.state()
        assert state is not None and state.owner == first.pid
        second, said_second = _run(dialect)
        runs.append(second)
        _end(first, said_first)  # its stop_servers, then its watchdog once it has exited
        still = server.state()
        assert still is not None and still.pid == state.pid, "the first run stopped it"
        assert said_second["started"] == [dialect]  # joined: the second run releases it
        assert server.users() == [second.pid]
        _end(second, said_second)
        assert server.recorded() is None and not pid_alive(state.pid)  # the last user stopped it
    finally:
        for run in runs:
            if run.poll() is None:
                run.kill()
        server.stop()


def test_a_registration_names_a_process_not_a_reused_pid(tmp_path: Any) -> None:
    """A user's file holds its process's start time: a pid now held by another process (or by
    none) is not a user, and its file goes."""
    server = PostgresServer(root=tmp_path / "servers")
    server.users_dir.mkdir(parents=True)
    (server.users_dir / str(os.getpid())).write_text("0.0")  # an earlier process with this pid
    (server.users_dir / "not-a-pid").write_text("")
    assert server.users() == []
    assert list(server.users_dir.iterdir()) == []
    server._register(os.getpid())
    assert server.users() == [os.getpid()]


def test_users_are_listed_by_pid_in_numeric_order(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Files are named by pid, so a name order put 10456 before 3749 (a CI failure of the
    ``engines down`` test): users() sorts the pids as numbers."""
    monkeypatch.setattr(base, "process_started", lambda pid: "then")  # every pid is live
    server = PostgresServer(root=tmp_path / "servers")
    server.users_dir.mkdir(parents=True)
    for pid in (10456, 3749, 99):
        (server.users_dir / str(pid)).write_text("then")
    assert server.users() == [99, 3749, 10456]


# A run that uses a server only through an engine, as `parrot assess` or a `--jobs` worker does
# (parrot.connect.default_url with start=True): from a pool worker of the run (spawned, as --jobs
# spawns them) or from the run itself. The run never releases it: it just ends.
ENGINE_RUN = """
import json, multiprocessing, os, sys
from concurrent.futures import ProcessPoolExecutor
from parrot.connect import default_url

def use(dialect):
    default_url(dialect, start=True)
    return os.getpid()

if __name__ == "__main__":
    if sys.argv[2] == "worker":
        with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
            user = pool.submit(use, sys.argv[1]).result()
    else:
        user = use(sys.argv[1])
    print(json.dumps({"user": user}), flush=True)
    sys.stdin.readline()
"""


@pytest.mark.parametrize(("dialect", "how"), [("postgres", "worker"), ("mysql", "run")])
def test_a_run_using_the_server_through_an_engine_keeps_it_until_it_ends(
    dialect: str, how: str, tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before: a process that found the server running through ``default_url`` did not
    register, so the run that started it stopped it under that process at its end. Now the
    process's run registers (a worker's parent, not the worker, which may linger while its run
    releases), the first run's end leaves the server up, and the second's end stops it — it
    never releases; the watchdog its first use started does."""
    monkeypatch.setenv("PARROT_CACHE", str(tmp_path))
    server = server_for(dialect)
    hint = server.available()
    if hint is not None:
        pytest.skip(f"the {dialect} server binary is not here: {hint}")
    script = tmp_path / "engine_run.py"
    script.write_text(ENGINE_RUN)
    runs: list[subprocess.Popen[str]] = []
    try:
        first, said_first = _run(dialect)
        runs.append(first)
        state = server.state()
        assert state is not None and state.owner == first.pid
        second = subprocess.Popen(
            [sys.executable, str(script), dialect, how],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=os.environ.copy(),
        )
        runs.append(second)
        assert second.stdout is not None
        user = json.loads(second.stdout.readline())["user"]
        assert (user != second.pid) == (how == "worker")
        assert server.users() == sorted([first.pid, second.pid])  # the run, not its worker
        _end(first, said_first)
        still = server.state()
        assert still is not None and still.pid == state.pid, "the first run stopped it"
        assert server.users() == [second.pid]
        second.communicate("\n", timeout=120)
        assert second.returncode == 0
        assert wait_until(lambda: server.recorded() is None, 60), "the server outlived its users"
        assert not pid_alive(state.pid)
    finally:
        for run in runs:
            if run.poll() is None:
                run.kill()
        server.stop()


def test_engines_down_names_the_live_runs_it_cuts_off_and_clears_them(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before: ``engines down`` stopped a server under its live users without a word and left
    their registrations behind. Now it names them and clears their files."""
    monkeypatch.setenv("PARROT_CACHE", str(tmp_path))
    server = server_for("postgres")
    hint = server.available()
    if hint is not None:
        pytest.skip(f"the postgres server binary is not here: {hint}")
    other = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=-1)
    try:
        state = server.start()  # registers this process
        assert server.join(other.pid) is not None
        assert server.users() == sorted([os.getpid(), other.pid])
        capsys.readouterr()
        assert servers_cli.main(["down", "postgres"]) == 0
        said = capsys.readouterr().out
        assert said.startswith("postgres: stopped; cut off the live runs using it: "), said
        cut = sorted(int(pid) for pid in said.strip().split(": ")[-1].split(", "))
        assert cut == sorted([os.getpid(), other.pid])
        assert server.recorded() is None and not pid_alive(state.pid)
        assert not server.users_dir.exists()  # their registrations went with the server
        assert servers_cli.main(["down", "postgres"]) == 0
        assert capsys.readouterr().out == "postgres: was not running\n"
    finally:
        other.communicate("")
        server.stop()


def test_the_mariadb_reference_parser_leaves_the_server_a_joined_run_uses(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``parrot check``'s MariaDB reference starts the server when it is not running and stops
    it at close. Before, it stopped it even when another run had joined it meanwhile; now it
    releases it: the server stays while the other run lives, and stops when it is the last."""
    from parrot.check.references import MariadbReference

    monkeypatch.setenv("PARROT_CACHE", str(tmp_path))
    server = server_for("mysql")
    hint = server.available()
    if hint is not None:
        pytest.skip(f"the mysql server binary is not here: {hint}")
    other = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=-1)
    try:
        reference = MariadbReference()
        state = server.state()
        assert state is not None
        assert server.join(other.pid) is not None  # another run joins the server
        reference.close()
        assert server.state() is not None, "the reference stopped the server under another run"
        assert server.users() == [other.pid]
        assert server.release(other.pid)  # the last user: it stops
        assert not pid_alive(state.pid)
    finally:
        other.communicate("")
        server.stop()


def test_a_watchdog_outliving_its_run_does_not_wait_on_a_reused_pid() -> None:
    """An ``--outlives`` watchdog waits for its run however long it takes; it names the run by
    pid and start time, so a pid the system hands to another process after the run's end does
    not keep it waiting for ever."""
    from parrot.servers.base import process_started
    from parrot.servers.watchdog import _same_process

    me = os.getpid()
    assert _same_process(me, process_started(me))
    assert not _same_process(me, "0.0")  # the run that had this pid started earlier: it ended
    assert not _same_process(me, None)  # the run had already ended when the watchdog started
