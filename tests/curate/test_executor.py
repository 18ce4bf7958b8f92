"""The local executor's worker pool ends with the run."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import pytest
from patience import wait_until

from parrot.servers.base import pid_alive

RUN = '''
import os, time
from parrot.curate.stages import Batch, LocalExecutor, Record, Stage

class Sleep(Stage):
    name = "sleep"

    def map(self, chunk):
        print(os.getpid(), flush=True)
        time.sleep(600)
        return Batch(chunk)

chunks = [[Record(str(i), "sqlite", "SELECT 1")] for i in range(2)]
list(LocalExecutor(2).map(Sleep(), chunks))
'''


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL])
def test_a_run_ended_by_a_signal_takes_its_workers_with_it(tmp_path: Path,
                                                           sig: signal.Signals) -> None:
    """``--jobs`` workers busy with a chunk do not outlive a run that was sent SIGTERM or
    SIGKILL (they used to, until their chunk ended)."""
    script = tmp_path / "run.py"
    script.write_text(RUN)
    process = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        workers = [int(process.stdout.readline()) for _ in range(2)]
        process.send_signal(sig)
        process.wait(timeout=60)
        assert wait_until(lambda: not [p for p in workers if pid_alive(p)], 60), \
            f"left behind: {[p for p in workers if pid_alive(p)]}"
    finally:
        if process.poll() is None:
            process.kill()
