"""The worker pools of a curation run (its chunks, its suite build) end with the run."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import pytest
from patience import wait_until

from parrot.curate.difficulty import Difficulty
from parrot.curate.select import Normalise, TypeFilter
from parrot.curate.stages import ENGINE_CHUNK, Batch, LocalExecutor, Record, run_stage
from parrot.curate.verify import TestData, Verify
from parrot.servers.base import pid_alive

RUN = """
import os, time
from parrot.curate.stages import Batch, LocalExecutor, Record, Stage

class Sleep(Stage):
    name = "sleep"

    def map(self, chunk):
        os.write(1, f"{os.getpid()}\\n".encode())  # one write: workers share the pipe
        time.sleep(600)
        return Batch(chunk)

chunks = [[Record(str(i), "sqlite", "SELECT 1")] for i in range(2)]
list(LocalExecutor(2).map(Sleep(), chunks))
"""

SUITE_BUILD = """
import argparse, multiprocessing, time
from concurrent.futures import ProcessPoolExecutor
from parrot.testsuite.cli import _init

if __name__ == "__main__":  # the suite builder's pool: spawned workers set up by _init
    pool = ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("spawn"),
                               initializer=_init, initargs=(argparse.Namespace(),))
    list(pool.map(abs, range(8)))
    for pid in list(pool._processes)[:2]:
        print(pid, flush=True)
    [pool.submit(time.sleep, 600) for _ in range(2)]
    time.sleep(600)
"""


@pytest.mark.parametrize("script", [RUN, SUITE_BUILD], ids=["chunks", "suite-build"])
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL])
def test_a_run_ended_by_a_signal_takes_its_workers_with_it(
    tmp_path: Path, script: str, sig: signal.Signals
) -> None:
    """``--jobs`` workers busy with a chunk do not outlive a run that was sent SIGTERM or
    SIGKILL (they used to, until their chunk ended)."""
    path = tmp_path / "run.py"
    path.write_text(script)
    process = subprocess.Popen([sys.executable, str(path)], stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        workers = [int(process.stdout.readline()) for _ in range(2)]
        process.send_signal(sig)
        process.wait(timeout=60)
        assert wait_until(lambda: not [p for p in workers if pid_alive(p)], 60), (
            f"left behind: {[p for p in workers if pid_alive(p)]}"
        )
    finally:
        if process.poll() is None:
            process.kill()


class Chunks(LocalExecutor):
    """Records the chunk sizes a stage is cut into (and runs nothing)."""

    def __init__(self) -> None:
        super().__init__(1)
        self.sizes: list[int] = []

    def map(self, stage, chunks):  # type: ignore[no-untyped-def]
        self.sizes = [len(c) for c in chunks]
        return ((i, Batch(c)) for i, c in enumerate(chunks))


def test_engine_stages_are_cut_into_small_chunks() -> None:
    """A stage that runs engines (seconds per pair) gets chunks of at most ENGINE_CHUNK records,
    so the last 500-record chunk no longer keeps one worker busy while the others idle."""
    records = [Record(str(i), "sqlite", "SELECT 1") for i in range(1000)]
    for stage in (TestData(), TypeFilter(5.0, 100), Verify(), Difficulty("sqlglot")):
        executor = Chunks()
        run_stage(stage, records, executor, chunk_size=500)
        assert max(executor.sizes) == ENGINE_CHUNK and sum(executor.sizes) == 1000
    executor = Chunks()
    run_stage(Normalise(), records, executor, chunk_size=500)
    assert executor.sizes == [500, 500]
