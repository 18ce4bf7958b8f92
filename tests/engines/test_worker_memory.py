"""What an engine worker holds: its command line (one parser), what it imports, and the
memory settings sized for parrot's tiny fixtures (issue 31, peak memory of a whole run)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

from parrot.engines.worker import WORKER_MODULE, WorkerArgs

BENCH = Path(__file__).resolve().parents[2] / "scripts" / "bench"


def _peakmem() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_peakmem", BENCH / "peakmem.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


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
