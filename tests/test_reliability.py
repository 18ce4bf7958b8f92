"""A server killed mid-run is restarted; the affected item is retried and the run completes."""

import json
import os
import signal

import pytest

from parrot.datasets import load_dataset
from parrot.eval.results import read_results
from parrot.eval.runner import RunConfig, run
from parrot.servers import server_for
from parrot.translators import create_translator

pytestmark = pytest.mark.server

FIXTURE = {"name": "nums", "tables": [{
    "name": "n", "columns": [{"name": "k", "type": "integer"}, {"name": "v", "type": "text"}],
    "rows": [[i, f"v{i}"] for i in range(20)]}]}


@pytest.fixture(params=["postgres", "mysql"])
def server(request):
    server = server_for(request.param)
    hint = server.available()
    if hint is not None:
        pytest.skip(f"no {request.param} server: {hint}")
    yield server
    server.stop()


def test_server_killed_mid_run_is_restarted_and_items_retried(tmp_path, server):
    lines = [json.dumps({"id": f"r{i}", "source_dialect": "sqlite",
                         "target_dialect": server.dialect,
                         "source_sql": f"SELECT k, v FROM n WHERE k < {i} ORDER BY k",
                         "reference_sql": f"SELECT k, v FROM n WHERE k < {i} ORDER BY k",
                         "fixture": FIXTURE}) for i in range(1, 9)]
    (tmp_path / "items.jsonl").write_text("\n".join(lines) + "\n")
    dataset = load_dataset(str(tmp_path / "items.jsonl"))
    killed = []

    def kill_after_third(record):
        if len(killed) == 0 and record["id"] == "r3":
            state = server.state()
            os.kill(state.pid, signal.SIGKILL)
            killed.append(state.pid)

    records = run(dataset, list(dataset.items), create_translator("reference"),
                  RunConfig(output_dir=tmp_path / "run", start=True),
                  on_result=kill_after_third)
    assert killed
    assert [r["id"] for r in records] == [f"r{i}" for i in range(1, 9)]
    assert all(r["verdicts"]["strict"]["match"] for r in records), [
        r["verdicts"]["strict"] for r in records]
    retried = [r for r in read_results(tmp_path / "run") if r.get("engine_errors_retried")]
    assert [r["id"] for r in retried] == ["r4"]
    assert retried[0]["engine_errors_retried"][0].startswith(f"{server.dialect}:")
    assert server.state().pid != killed[0]  # a fresh server


def test_server_killed_before_a_fixture_load_is_an_engine_error_retried(tmp_path, server):
    """Each item has its own fixture, so after the kill the first call to reach the dead server
    is the fixture load: its driver error (pymysql/psycopg OperationalError) is engine_error,
    retried on a restarted server, never an exception ending the run."""
    def fixture(i):
        return {**FIXTURE, "name": f"nums{i}",
                "tables": [{**FIXTURE["tables"][0],
                            "rows": [[k, f"v{k}"] for k in range(i + 2)]}]}

    lines = [json.dumps({"id": f"r{i}", "source_dialect": "sqlite",
                         "target_dialect": server.dialect,
                         "source_sql": "SELECT k, v FROM n ORDER BY k",
                         "reference_sql": "SELECT k, v FROM n ORDER BY k",
                         "fixture": fixture(i)}) for i in range(1, 5)]
    (tmp_path / "items.jsonl").write_text("\n".join(lines) + "\n")
    dataset = load_dataset(str(tmp_path / "items.jsonl"))
    killed = []

    def kill_after_second(record):
        if not killed and record["id"] == "r2":
            state = server.state()
            os.kill(state.pid, signal.SIGKILL)
            killed.append(state.pid)

    records = run(dataset, list(dataset.items), create_translator("reference"),
                  RunConfig(output_dir=tmp_path / "run", start=True),
                  on_result=kill_after_second)
    assert killed and [r["id"] for r in records] == ["r1", "r2", "r3", "r4"]
    assert all(r["verdicts"]["strict"]["match"] for r in records)
    retried = {r["id"]: r["engine_errors_retried"] for r in records
               if r.get("engine_errors_retried")}
    assert list(retried) == ["r3"]
    assert retried["r3"][0].startswith(f"{server.dialect}: fixture load: ")
