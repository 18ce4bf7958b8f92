"""What an engine worker holds: its command line (one parser), what it imports, and the
memory settings sized for parrot's tiny fixtures (issue 31, peak memory of a whole run)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
from engine_fixtures import col, make_fixture, run

from parrot.connect import create_engine
from parrot.engines import worker as w
from parrot.engines.sqlite import SQLiteEngine
from parrot.engines.worker import WORKER_MODULE, WorkerArgs
from parrot.fixtures import Fixture
from tests.script_modules import load_bench


def _peakmem() -> ModuleType:
    return load_bench("peakmem")


def test_worker_args_round_trip() -> None:
    args = WorkerArgs(7, 1234, "duckdb", "/tmp/scratch", ("/run", "/tmp"))
    assert WorkerArgs.parse(args.argv()) == args
    cmdline = [sys.executable, "-m", WORKER_MODULE, *args.argv()]
    assert WorkerArgs.of_cmdline(cmdline) == args


@pytest.mark.parametrize(
    "cmdline",
    [
        ["python", "-m", "parrot", "eval"],
        ["python", "-m", WORKER_MODULE, "7", "1234"],  # too short
        ["python", "-m", WORKER_MODULE, "x", "1234", "sqlite", "/tmp/s"],  # fd not a number
        ["python", "-c", "print()", WORKER_MODULE, "7", "1", "sqlite", "/tmp/s"],  # no -m
    ],
)
def test_not_a_worker_command_line(cmdline: list[str]) -> None:
    assert WorkerArgs.of_cmdline(cmdline) is None


class _Proc:
    """What peakmem asks a psutil.Process (name and command line)."""

    def __init__(self, pid: int, cmdline: list[str]) -> None:
        self.pid, self._cmdline = pid, cmdline

    def name(self) -> str:
        return Path(self._cmdline[0]).name

    def cmdline(self) -> list[str]:
        return self._cmdline


def test_peakmem_names_workers_by_their_group() -> None:
    kind = _peakmem()._kind
    worker = ["python", "-m", WORKER_MODULE, *WorkerArgs(9, 1, "clickhouse", "/s").argv()]
    assert kind(_Proc(5, worker), root=1) == "worker:clickhouse"
    assert kind(_Proc(1, ["python", "-m", "parrot", "eval"]), root=1) == "main"
    assert kind(_Proc(6, ["java", "-Xmx1g"]), root=1) == "java"


def _numbers(seed: int, rows: int = 3) -> Fixture:
    return make_fixture(
        f"n{seed}",
        [
            {
                "name": "t",
                "columns": [col("v", "integer")],
                "rows": [[seed * 1000 + i] for i in range(rows)],
            }
        ],
    )


def test_a_worker_evicts_the_least_recently_used_fixture_and_its_database() -> None:
    """The worker keeps at most KEPT_FIXTURES fixtures; an evicted one's database goes too,
    and the newest is kept even when it alone is over KEPT_ROWS."""
    adapter = SQLiteEngine()
    kept = w._Fixtures({"sqlite": adapter})
    fixtures = [_numbers(i) for i in range(w.KEPT_FIXTURES + 2)]
    try:
        for fixture in fixtures:
            kept.add(fixture)
            adapter.load(fixture)
            kept.get(fixtures[0].content_hash)  # the first stays: recently used
        assert len(kept) == w.KEPT_FIXTURES
        assert fixtures[0].content_hash in kept
        assert fixtures[1].content_hash not in kept and fixtures[2].content_hash not in kept
        assert fixtures[1].content_hash not in adapter._stored
        with pytest.raises(w.UnloadedFixture):
            kept.get(fixtures[1].content_hash)
        big = _numbers(999, rows=w.KEPT_ROWS + 1)
        kept.add(big)
        assert len(kept) == 1 and big.content_hash in kept
    finally:
        adapter.close()


def test_an_execution_on_an_evicted_fixture_sends_it_again() -> None:
    """Through a real isolated SQLite worker: after more fixtures than it keeps, the first
    fixture's executions still answer from its own rows."""
    engine = create_engine("sqlite")
    fixtures = [_numbers(i) for i in range(w.KEPT_FIXTURES + 3)]
    try:
        for fixture in fixtures:
            assert run(engine, "SELECT min(v) FROM t", fixture) == (
                (fixture_seed(fixture) * 1000,),
            )
        first = fixtures[0]
        assert run(engine, "SELECT count(*), max(v) FROM t", first) == ((3, 2),)
        assert set(engine.checksums(first)) == {"t"}
    finally:
        engine.close()


def fixture_seed(fixture: Fixture) -> int:
    return int(fixture.name[1:])


def test_peakmem_measures_a_server_the_run_reuses(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A managed server already running is reused by the eval without a word in its log: the
    bench found servers only by the log's "starting" lines, so a run that reused them reported
    postgres and mariadbd at 0.00 GiB (docs/results/peakmem.md at 1b92960)."""
    monkeypatch.setenv("PARROT_CACHE", str(tmp_path))
    server = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        state = tmp_path / "servers" / "postgres" / "state.json"
        state.parent.mkdir(parents=True)
        state.write_text(
            json.dumps(
                {
                    "name": "postgres",
                    "version": "18",
                    "host": "127.0.0.1",
                    "port": 1,
                    "pid": server.pid,
                    "data_dir": str(tmp_path),
                    "url": "postgresql://127.0.0.1:1/x",
                    "started": "2026-12-07T00:00:00+00:00",
                    "label": "postgres (PostgreSQL 18)",
                }
            )
        )
        assert [p.pid for p in _peakmem().adopted()] == [server.pid]
    finally:
        server.kill()
        server.wait()


# what no engine worker needs: the main process's libraries (sqlglot, the grammar's ANTLR
# runtime, matplotlib, psutil) and pandas, which pyarrow, DuckDB and pyspark import only to ask
# whether a value is a DataFrame; and another engine's library
_NEVER = {"sqlglot", "antlr4", "matplotlib", "psutil", "pandas"}
_ENGINE_LIBRARIES = {"sqlite": set(), "duckdb": {"duckdb"}, "clickhouse": {"chdb"}}
_ENGINE_LIBRARIES["spark"] = {"pyspark", "py4j"}


@pytest.mark.parametrize(
    "name",
    ["sqlite", "duckdb", "clickhouse", pytest.param("spark", marks=pytest.mark.spark)],
)
def test_a_worker_imports_its_own_engine_and_no_heavy_module(name: str) -> None:
    """In a real worker that loaded a fixture (DuckDB and Spark load through Arrow) and ran a
    query: no pandas (issue 31: 25-27 MiB of PSS in the DuckDB and Spark workers, imported by
    ``pa.array``), no library of the main process or of another engine."""
    engine = create_engine(name)
    try:
        assert run(engine, "SELECT count(*) FROM orders") == ((4,),)
        loaded = {m.split(".", 1)[0] for m in engine._call("modules")}  # type: ignore[attr-defined]
    finally:
        engine.close()
    others = set().union(*_ENGINE_LIBRARIES.values()) - _ENGINE_LIBRARIES[name]
    assert _ENGINE_LIBRARIES[name] <= loaded
    assert not loaded & (_NEVER | others)


def test_a_worker_refuses_only_the_modules_it_must_not_import() -> None:
    refuse = w._Refuse()
    with pytest.raises(ModuleNotFoundError):
        refuse.find_spec("pandas.core.frame")
    assert refuse.find_spec("pandasql") is None and refuse.find_spec("pyarrow") is None
