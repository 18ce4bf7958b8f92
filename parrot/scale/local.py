"""A Ray cluster on this machine for tests and benchmarks: each node a ``ray start --block``
subprocess in its own process group, with its own temp dir and ports, stopped by process group
(never ``ray stop``, which would stop every Ray process of the machine)."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from parrot.servers.base import free_port

UP = "This command will now block forever"  # what `ray start --block` prints once its node is up
NODE_START_SECONDS = 180.0


@dataclass
class LocalCluster:
    """Addresses of the cluster and its node processes (index 0: the head)."""

    gcs: str
    client: str  # ray://127.0.0.1:PORT, for --executor
    temp_dir: Path
    nodes: list[subprocess.Popen[bytes]] = field(default_factory=list)
    logs: list[Path] = field(default_factory=list)

    def start_node(self, *args: str) -> None:
        """Start one node (``ray start --block ARGS``) and wait until it is up."""
        log = self.temp_dir / f"node{len(self.nodes)}.log"
        env = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0"}
        with log.open("wb") as out:
            proc = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "ray.scripts.scripts",
                    "start",
                    "--block",
                    "--disable-usage-stats",
                    "--object-store-memory",
                    str(80 * 2**20),
                    *args,
                ],
                stdout=out,
                stderr=subprocess.STDOUT,
                env=env,
                start_new_session=True,
            )
        self.nodes.append(proc)
        self.logs.append(log)
        deadline = time.monotonic() + NODE_START_SECONDS
        while UP not in log.read_text(errors="replace"):
            if proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(
                    f"ray node did not start: {log.read_text(errors='replace')[-2000:]}"
                )
            time.sleep(0.5)

    def add_worker(self) -> None:
        """One more worker node with one CPU."""
        self.start_node("--address", self.gcs, "--num-cpus", "1")

    def kill_node(self, index: int) -> None:
        """SIGKILL a node's whole process group: its raylet and every worker on it."""
        proc = self.nodes[index]
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(30)

    def stop(self) -> None:
        for proc in reversed(self.nodes):
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
        for proc in reversed(self.nodes):
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(10)
            with contextlib.suppress(ProcessLookupError):  # anything left in the node's group
                os.killpg(proc.pid, signal.SIGKILL)


def start_head(temp_dir: Path) -> LocalCluster:
    """A head node with no CPUs (work goes to the workers :meth:`LocalCluster.add_worker` adds)."""
    gcs_port, client_port = free_port(), free_port()
    cluster = LocalCluster(f"127.0.0.1:{gcs_port}", f"ray://127.0.0.1:{client_port}", temp_dir)
    cluster.start_node(
        "--head",
        "--port",
        str(gcs_port),
        "--num-cpus",
        "0",
        "--ray-client-server-port",
        str(client_port),
        "--include-dashboard=false",
        "--temp-dir",
        str(temp_dir / "ray"),
    )
    return cluster
