"""Engine worker processes (parrot.engines.worker): what the operating system keeps from them.

The containment cases run the real engines *without* parrot's guards inside a process isolated
exactly as a worker is (``_isolate`` with the worker's environment), so they test the operating
system's layer alone. The process cases check that a worker killed, timed out or orphaned never
stops a run and never outlives it.
"""

from __future__ import annotations

import contextlib
import json
import os
import pickle
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import threading
from collections.abc import Iterator, Sequence
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from engine_fixtures import SHOP
from patience import wait_until
from processes import descendants

from parrot.connect import create_engine
from parrot.engines import Engine, ExecStatus, engine_class
from parrot.engines import worker as w

SECRET = "parrot-isolation-canary-51c2"
pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"),
    reason="worker isolation uses Linux namespaces and Landlock",
)

# (case id, Python run in an isolated process; canary/out/sink/parent are substituted) — each
# must raise, or return something other than the canary's content / the secret
PROBES: list[tuple[str, str]] = [
    ("read-host-file", "open(CANARY).read()"),
    ("read-etc-passwd", "open('/etc/passwd').read()"),
    ("write-host-file", "open(OUT, 'w').write('x')"),
    ("parent-environ", "open(f'/proc/{PARENT}/environ', 'rb').read().decode('latin-1')"),
    ("tcp-to-sink", "__import__('urllib.request').request.urlopen(SINK, timeout=5).read()"),
    ("env-secret", "os.environ.get('PARROT_ISOLATION_API_KEY')"),
    (
        "chdb-file-read",
        "chdb.query(f\"SELECT * FROM file('{CANARY}', 'LineAsString')\", 'CSV').bytes().decode()",
    ),
    ("chdb-file-write", "chdb.query(f\"INSERT INTO FUNCTION file('{OUT}', 'CSV') SELECT 1\")"),
    (
        "chdb-url",
        "chdb.query(f\"SELECT * FROM url('{SINK}/c', 'LineAsString') SETTINGS "
        "http_max_tries = 1, http_connection_timeout = 2\", 'CSV').bytes().decode()",
    ),
    ("duckdb-read-text", "duckdb.sql(f\"SELECT * FROM read_text('{CANARY}')\").fetchall()"),
    ("duckdb-copy-out", "duckdb.sql(f\"COPY (SELECT 1) TO '{OUT}'\")"),
    ("sqlite-attach", "sqlite3.connect(':memory:').execute(f\"ATTACH '{OUT}' AS x\")"),
]

PROBE_SCRIPT = """
import json, os, sys
from parrot.engines import worker
scratch, parent = sys.argv[1], int(sys.argv[2])
CANARY, OUT, SINK, PARENT = sys.argv[3], sys.argv[4], sys.argv[5], sys.argv[6]
warnings = worker._isolate("clickhouse", scratch, parent)
import chdb, duckdb, sqlite3
outcomes = {}
for case, code in json.loads(sys.argv[7]):
    try:
        outcomes[case] = "returned " + repr(eval(code))[:200]
    except Exception as exc:
        outcomes[case] = "raised " + type(exc).__name__
open(os.path.join(scratch, "written-inside"), "w").write("ok")
print(json.dumps({"warnings": warnings, "outcomes": outcomes, "pid": os.getpid()}))
"""


NO_SYS_ADMIN = ["setpriv", "--bounding-set", "-sys_admin"]  # the kernel refuses namespaces


def _run_isolated(
    script: str, scratch: Path, *args: str, env: dict[str, str], prefix: Sequence[str] = ()
) -> dict[str, Any]:
    """Run ``script`` as a worker would (``prefix`` first), in ``scratch`` with ``env`` and the
    arguments ``scratch``, this pid, ``args``; the JSON of its last output line."""
    child = subprocess.run(
        [*prefix, sys.executable, "-c", script, str(scratch), str(os.getpid()), *args],
        env=env,
        cwd=scratch,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert child.returncode == 0, child.stderr[-3000:]
    result: dict[str, Any] = json.loads(child.stdout.splitlines()[-1])
    return result


def _probe(tmp: Path, prefix: list[str]) -> dict[str, object]:
    """Every probe's outcome, from one isolated process (chdb and DuckDB imported once)."""
    from http_sink import serve_sink

    canary, out, scratch = tmp / "canary.txt", tmp / "written.out", tmp / "scratch"
    canary.write_text(SECRET)
    scratch.mkdir()
    os.environ["PARROT_ISOLATION_API_KEY"] = SECRET  # what the worker's environment drops
    try:
        env = w.worker_environ(str(scratch))
    finally:
        del os.environ["PARROT_ISOLATION_API_KEY"]
    with serve_sink() as sink:
        result = _run_isolated(
            PROBE_SCRIPT,
            scratch,
            str(canary),
            str(out),
            sink[0],
            str(os.getpid()),
            json.dumps(PROBES),
            env=env,
            prefix=prefix,
        )
        requests = list(sink[1:])
    result.update(
        requests=requests,
        out_exists=out.exists(),
        canary=canary.read_text(),
        scratch_written=(scratch / "written-inside").exists(),
    )
    return result


@pytest.fixture(scope="module")
def probed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    return _probe(tmp_path_factory.mktemp("isolation"), [])


@pytest.fixture(scope="module")
def probed_fallback(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    """The probes where the kernel refuses namespaces (no CAP_SYS_ADMIN): Landlock alone."""
    if shutil.which("setpriv") is None:
        pytest.skip("setpriv (util-linux) is not installed")
    return _probe(tmp_path_factory.mktemp("fallback"), NO_SYS_ADMIN)


def _assert_contained(probed: dict[str, object], case: str) -> None:
    outcome = str(probed["outcomes"][case])  # type: ignore[index]
    assert SECRET not in outcome and "root:" not in outcome, outcome
    assert probed["requests"] == [], f"the sink got requests: {probed['requests']}"
    assert not probed["out_exists"] and probed["canary"] == SECRET


@pytest.mark.parametrize("case", [case for case, _ in PROBES])
def test_isolated_process_cannot_reach_the_host(probed: dict[str, object], case: str) -> None:
    assert probed["warnings"] == [], f"isolation fell back: {probed['warnings']}"
    _assert_contained(probed, case)


@pytest.mark.parametrize("case", [case for case, _ in PROBES])
def test_without_namespaces_landlock_still_contains(
    probed_fallback: dict[str, object], case: str
) -> None:
    assert any("no network or pid namespace" in str(m) for m in probed_fallback["warnings"]), (
        probed_fallback["warnings"]
    )  # type: ignore[attr-defined]
    _assert_contained(probed_fallback, case)


def test_a_fallback_is_said_on_the_terminal_and_in_the_label() -> None:
    if shutil.which("setpriv") is None:
        pytest.skip("setpriv (util-linux) is not installed")
    script = "from parrot.connect import create_engine; print(create_engine('sqlite').label)"
    child = subprocess.run(
        [*NO_SYS_ADMIN, sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=Path(__file__).parents[2],
    )
    assert child.returncode == 0, child.stderr
    assert "WARNING: sqlite engine worker: no network or pid namespace" in child.stderr
    assert "[NOT ISOLATED: no network or pid namespace" in child.stdout


def test_isolated_process_writes_its_scratch_and_is_pid_1(probed: dict[str, object]) -> None:
    assert probed["scratch_written"]
    assert probed["pid"] == 1  # the first process of its own pid namespace


def test_worker_answers_cannot_carry_code() -> None:
    from parrot.engines.base import Execution
    from parrot.values import ResultSet, Temporal

    row = (1, Temporal("date", "2024-01-01"), Decimal("1.50"))
    execution = Execution(
        ExecStatus.OK, ResultSet(("a", "b", "c"), (row,), ("INT", "DATE", "DECIMAL"))
    )
    assert w._loads(pickle.dumps(("ok", execution))) == ("ok", execution)
    with pytest.raises(pickle.UnpicklingError, match=r"posix\.system"):
        w._loads(pickle.dumps(os.system))


def _normal(engine: object) -> None:
    normal = engine.execute("SELECT count(*) FROM orders", SHOP, timeout=60)  # type: ignore[attr-defined]
    assert normal.status is ExecStatus.OK, normal.error
    assert [list(r) for r in normal.result.rows] == [[4]]
    assert engine.checksums(SHOP) == dict(SHOP.checksums)  # type: ignore[attr-defined]


def _worker_pid(engine: object) -> int:
    return w.POOL.get(engine.group).process.pid  # type: ignore[attr-defined]


def _kill_worker(engine: object) -> int:
    """SIGKILL the engine's worker and wait until it is gone; its pid."""
    first = _worker_pid(engine)
    os.killpg(first, signal.SIGKILL)
    # wait on that process itself: asking the pool for the group's worker could start the
    # replacement already (and in a full session other sqlite engines share the pool)
    assert wait_until(lambda: not _alive({first}), 30)
    return first


@pytest.fixture
def sqlite_engine() -> Iterator[Engine]:
    """The sqlite engine as parrot creates it (run in a worker), closed afterwards."""
    engine = create_engine("sqlite")
    try:
        yield engine
    finally:
        engine.close()


def test_a_worker_started_by_a_thread_outlives_that_thread(sqlite_engine: Engine) -> None:
    """Linux sends a worker's PR_SET_PDEATHSIG when the *thread* that forked it ends: a worker
    started by a pool's or a test's thread was SIGKILLed when that thread finished (the crash
    test below failed that way in CI). Workers are started from one long-lived thread."""
    starter = threading.Thread(target=sqlite_engine.load, args=(SHOP,))
    starter.start()
    starter.join()
    process = w.POOL.workers[sqlite_engine.group].process  # type: ignore[attr-defined]
    with pytest.raises(subprocess.TimeoutExpired):
        process.wait(timeout=1)
    _normal(sqlite_engine)
    assert _worker_pid(sqlite_engine) == process.pid


def test_a_killed_worker_is_replaced(sqlite_engine: Engine) -> None:
    sqlite_engine.load(SHOP)
    first = _kill_worker(sqlite_engine)
    _normal(sqlite_engine)  # a new worker, the fixture loaded again
    assert _worker_pid(sqlite_engine) != first


def test_a_fixture_crosses_to_its_worker_once(
    sqlite_engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Loading a fixture the worker holds sends nothing (the judge loads before every
    execution: TPC-H's 14 MB were pickled through the pipe each time, ~4 s per execution on
    a loaded Ray node); a replaced worker gets it again."""
    sent: list[str] = []
    call = w._Worker.call

    def counting(
        worker: w._Worker, target: str, method: str, args: tuple[object, ...], timeout: float
    ) -> object:
        sent.append(method)
        return call(worker, target, method, args, timeout)

    monkeypatch.setattr(w._Worker, "call", counting)
    sqlite_engine.load(SHOP)  # sent (the worker may hold SHOP from an earlier test's sqlite_engine)
    assert sqlite_engine.load(SHOP).cached
    for _ in range(2):
        assert sqlite_engine.execute("SELECT count(*) FROM customers", SHOP).status is ExecStatus.OK
    assert sent.count("load") == 1 and sent.count("execute") == 2
    _kill_worker(sqlite_engine)
    _normal(sqlite_engine)
    assert sent.count("load") == 2


def test_a_timeout_replaces_the_worker(sqlite_engine: Engine) -> None:
    sqlite_engine.load(SHOP)
    first = _worker_pid(sqlite_engine)
    bomb = sqlite_engine.execute(
        "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c",
        SHOP,
        timeout=1,
    )
    assert bomb.status is ExecStatus.TIMEOUT, bomb
    _normal(sqlite_engine)
    assert _worker_pid(sqlite_engine) != first


# (which process dies, by which signal): the OOM killer SIGKILLs the engine process (the first
# of the worker's pid namespace, which ignores any other signal sent from outside); a segfault
# is SIGSEGV, here sent to the worker process around it
CRASHES = [
    pytest.param("engine", signal.SIGKILL, id="oom-kill"),
    pytest.param("worker", signal.SIGSEGV, id="segfault"),
]


@pytest.mark.slow  # 2–3 s each: a worker start and a query seen running
@pytest.mark.parametrize(("victim", "sig"), CRASHES)
def test_a_worker_crashing_mid_execution_is_an_engine_error_and_replaced(
    sqlite_engine: Engine, victim: str, sig: int
) -> None:
    """The sqlite_engine dies under a running query: that execution is engine_error naming the
    signal, a new worker answers the next one."""
    sqlite_engine.load(SHOP)
    first = _worker_pid(sqlite_engine)
    outcome: list[object] = []
    bomb = threading.Thread(
        target=lambda: outcome.append(
            sqlite_engine.execute(
                "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) "
                "SELECT count(*) FROM c",
                SHOP,
                timeout=120,
            )
        )
    )
    bomb.start()
    # the sqlite_engine runs in the pid namespace's first process, a child of the worker
    assert wait_until(lambda: _busy(descendants(first)), 60), "the query never ran"
    for pid in descendants(first) if victim == "sqlite_engine" else {first}:
        os.kill(pid, sig)
    bomb.join(timeout=120)
    execution = outcome[0]
    assert execution.status is ExecStatus.ENGINE_ERROR, execution  # type: ignore[attr-defined]
    assert f"killed by {signal.Signals(sig).name}" in execution.error  # type: ignore[attr-defined]
    _normal(sqlite_engine)  # a new worker, the fixture loaded again
    assert _worker_pid(sqlite_engine) != first


def _busy(pids: set[int]) -> bool:
    """Some process of ``pids`` is running on a CPU (state R)."""
    for pid in pids:
        with contextlib.suppress(OSError, IndexError):
            if Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "R":
                return True
    return False


def _alive(pids: set[int]) -> set[int]:
    alive = set()
    for pid in pids:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (FileNotFoundError, ProcessLookupError):
            continue
        if state != "Z":
            alive.add(pid)
    return alive


def _engine_workers(pids: set[int]) -> set[int]:
    out = set()
    for pid in pids:
        try:
            if b"parrot.engines.worker" in Path(f"/proc/{pid}/cmdline").read_bytes():
                out.add(pid)
        except (FileNotFoundError, ProcessLookupError):
            pass
    return out


def _kill_and_check(process: subprocess.Popen[bytes], minimum_workers: int) -> None:
    """SIGKILL ``process`` once it has ``minimum_workers`` engine workers; nothing survives."""
    try:
        assert wait_until(
            lambda: len(_engine_workers(descendants(process.pid))) >= minimum_workers, 240
        ), "the engine workers did not start"
        tree = descendants(process.pid)
        process.kill()
        process.wait(timeout=30)
        assert wait_until(lambda: not _alive(tree), 30), f"left behind: {_alive(tree)}"
    finally:
        for pid in _alive(descendants(process.pid)):
            os.kill(pid, signal.SIGKILL)


def test_workers_die_with_their_parent() -> None:
    script = textwrap.dedent("""
        import sys, time
        sys.path.insert(0, sys.argv[1])
        from engine_fixtures import SHOP
        from parrot.connect import create_engine
        engines = [create_engine(d) for d in ("sqlite", "duckdb")]
        for e in engines:
            e.load(SHOP)
        time.sleep(600)
    """)
    process = subprocess.Popen([sys.executable, "-c", script, str(Path(__file__).parent)])
    _kill_and_check(process, 2)
    left = list(Path(tempfile.gettempdir()).glob(f"{w.SCRATCH_PREFIX}{process.pid}-*"))
    assert left  # nobody could clean up after a SIGKILL ...
    w._sweep_scratch()  # ... until a worker starts (this session's may all be running already)
    assert not [p for p in left if p.exists()]


@pytest.mark.slow
def test_eval_with_jobs_killed_leaves_no_process(tmp_path: Path) -> None:
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "parrot",
            "eval",
            "--model",
            "sqlglot",
            "--jobs",
            "2",
            "--quiet",
            "--output-dir",
            str(tmp_path / "run"),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    _kill_and_check(process, 2)


def test_isolation_off_runs_in_process(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PARROT_ISOLATION", "off")
    engine = create_engine("sqlite")
    assert type(engine) is engine_class("sqlite")
    engine.close()


@pytest.mark.spark
def test_spark_jvm_runs_inside_the_worker_sandbox(monkeypatch: pytest.MonkeyPatch) -> None:
    cls = engine_class("spark")
    hint = getattr(cls, "available", lambda: None)()
    if hint is not None:
        pytest.skip(f"spark is not available here: {hint}")
    monkeypatch.setenv("PARROT_ISOLATION_API_KEY", SECRET)
    engine = create_engine("spark")
    try:
        _normal(engine)
        jvms = [
            pid
            for pid in descendants(_worker_pid(engine))
            if b"java" in Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[0]
        ]
        assert jvms, "no JVM under the spark worker"
        for pid in jvms:
            assert os.readlink(f"/proc/{pid}/ns/net") != os.readlink("/proc/self/ns/net")
            assert os.readlink(f"/proc/{pid}/ns/pid") != os.readlink("/proc/self/ns/pid")
            assert SECRET.encode() not in Path(f"/proc/{pid}/environ").read_bytes()
        bomb = engine.execute(
            "SELECT count(*) FROM range(1000000) a CROSS JOIN range(1000000) b "
            "WHERE a.id + b.id = 7",
            SHOP,
            timeout=2,
        )
        assert bomb.status is ExecStatus.TIMEOUT, bomb
        assert wait_until(lambda: not _alive(set(jvms)), 30), "the JVM outlived its timeout"
    finally:
        engine.close()


SOCKET_SCRIPT = """
import json, os, socket, sys
from parrot.engines import worker
scratch, parent = sys.argv[1], int(sys.argv[2])
paths, hide = json.loads(sys.argv[3]), json.loads(sys.argv[4])
warnings = worker._isolate("duckdb", scratch, parent, hide=hide)
outcomes = {}
for path in paths:
    try:
        with socket.socket(socket.AF_UNIX) as s:
            s.connect(path)
        outcomes[path] = "connected"
    except OSError as exc:
        outcomes[path] = "refused: " + type(exc).__name__
open(os.path.join(scratch, "written-inside"), "w").write("ok")
print(json.dumps({"warnings": warnings, "outcomes": outcomes}))
"""


def test_a_worker_cannot_reach_the_server_sockets(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where parrot's servers put their unix sockets (the cache; /tmp for a deep cache's
    MariaDB socket and PostgreSQL's data directory under root; the host's /run): reachable
    from parrot's process, not from a process isolated as a worker is (Landlock does not
    govern connect(): before the tmpfs over them every connect succeeded)."""
    import socket
    import tempfile

    outside = Path(tempfile.mkdtemp(dir="/dev/shm")) if os.path.isdir("/dev/shm") else tmp_path
    monkeypatch.setenv("PARROT_CACHE", str(outside / "cache"))  # a cache outside /tmp too
    places = [
        outside / "cache" / "servers" / "mysql" / "mariadbd.sock",
        Path(tempfile.mkdtemp(prefix="parrot-mariadb-")) / "mariadbd.sock",
        Path(tempfile.mkdtemp(prefix="parrot-postgres-", dir="/tmp")) / ".s.PGSQL.5432",
    ]
    listeners = []
    try:
        for place in places:
            place.parent.mkdir(parents=True, exist_ok=True)
            listener = socket.socket(socket.AF_UNIX)
            listener.bind(str(place))
            listener.listen(4)
            listeners.append(listener)
            with socket.socket(socket.AF_UNIX) as client:
                client.connect(str(place))  # outside: it works
        scratch = Path(tempfile.mkdtemp(prefix=w.SCRATCH_PREFIX))
        result = _run_isolated(
            SOCKET_SCRIPT,
            scratch,
            json.dumps([str(p) for p in places]),
            json.dumps(w.socket_roots()),
            env=w.worker_environ(str(scratch)),
        )
        assert result["warnings"] == []
        assert all(v.startswith("refused") for v in result["outcomes"].values()), result
        assert (scratch / "written-inside").read_text() == "ok"  # its scratch carried over
    finally:
        for listener in listeners:
            listener.close()
        for place in places:
            shutil.rmtree(place.parent, ignore_errors=True)
        shutil.rmtree(outside, ignore_errors=True)
        if "scratch" in locals():
            shutil.rmtree(scratch, ignore_errors=True)


CARRY_SCRIPT = """
import json, os, socket, sys
from parrot.engines import worker
scratch, parent, root = sys.argv[1], int(sys.argv[2]), sys.argv[3]
worker.READABLE = (*worker.READABLE, os.path.join(root, "venv"))  # an installation under root
warnings = worker._isolate("duckdb", scratch, parent, hide=[root])
try:
    with socket.socket(socket.AF_UNIX) as s:
        s.connect(os.path.join(root, "server.sock"))
    sock = "connected"
except OSError as exc:
    sock = "refused: " + type(exc).__name__
lib = open(os.path.join(root, "venv", "lib", "module.py")).read()
print(json.dumps({"warnings": warnings, "socket": sock, "lib": lib}))
"""


def test_an_installation_under_a_hidden_root_stays_readable_and_its_sockets_hidden(
    tmp_path: Path,
) -> None:
    """A fresh virtual environment under /tmp (as CI makes one) left /tmp visible with a warning:
    every isolation test failed 'isolation fell back'. The installation is carried over the
    tmpfs; a socket beside it stays out of reach."""
    import socket
    import tempfile

    root = Path(tempfile.mkdtemp(prefix="parrot-hidden-root-"))
    try:
        (root / "venv" / "lib").mkdir(parents=True)
        (root / "venv" / "lib" / "module.py").write_text("x = 1\n")
        with socket.socket(socket.AF_UNIX) as listener:
            listener.bind(str(root / "server.sock"))
            listener.listen(1)
            scratch = Path(tempfile.mkdtemp(prefix=w.SCRATCH_PREFIX))
            env = w.worker_environ(str(scratch))
            result = _run_isolated(CARRY_SCRIPT, scratch, str(root), env=env)
        assert result["warnings"] == [], result
        assert result["socket"].startswith("refused"), result
        assert result["lib"] == "x = 1\n"
    finally:
        shutil.rmtree(root, ignore_errors=True)
