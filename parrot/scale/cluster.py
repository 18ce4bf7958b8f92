"""Ray as parrot's distributed executor (imported only when ``--executor`` names Ray).

* **Curation**: :class:`RayExecutor` is a :class:`~parrot.curate.stages.Executor`: every chunk of
  a stage is one Ray task running the stage's unchanged :meth:`~parrot.curate.stages.Stage.map`
  (the pickled stage goes to the object store once per stage). Ray retries a task whose worker or
  node died. Reduces, and every output file, stay on the driver.
* **Evaluation**: :mod:`parrot.eval.cluster` shards items over Ray actors, each owning one
  judge; it joins the cluster with :func:`connect` here.

The driver ships its own ``parrot`` package to the cluster (Ray ``py_modules``) and its
``PARROT_*`` environment (corpora and cache paths, engine URLs), so the workers run the driver's
code and read fixtures at the same paths: on several machines those paths must exist on each.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from tenacity import Retrying, retry_if_exception, stop_after_attempt, wait_exponential

import parrot
from parrot.migrate.named import corpora_root
from parrot.scale import ExecutorError
from parrot.scale.partitions import Partition, PartitionExecutor, RowReader, map_partition
from parrot.scale.stages import Batch, Record, Stage, run_chunk

IN_FLIGHT = 2  # items (eval) or chunks (curation) queued per worker CPU: results stream back
ATTEMPTS = 3  # an item whose worker died this many times stops the run
JOIN_ATTEMPTS = 3  # joins of the cluster tried when the failure is transient (:func:`_transient`)
JOIN_WAIT_SECONDS = 2.0  # the first wait between joins; it doubles
TRANSIENT_JOIN_ERRORS = ("Starting Ray client server failed", "Server startup failed")


def connect(address: str) -> None:
    """Join the Ray cluster at ``address`` (once per process)."""
    try:
        import ray
    except ImportError:
        raise ExecutorError("the Ray executor needs Ray: pip install 'parrot[ray]'") from None
    if ray.is_initialized():
        return

    env = {k: v for k, v in os.environ.items() if k.startswith("PARROT_")}
    env.setdefault("PARROT_CORPORA", str(corpora_root().resolve()))  # not beside shipped code
    runtime_env = {
        "py_modules": [str(Path(parrot.__file__).parent)],
        "excludes": ["__pycache__", "*.pyc"],
        "env_vars": env,
    }
    retrying = Retrying(
        retry=retry_if_exception(_transient),
        stop=stop_after_attempt(JOIN_ATTEMPTS),
        wait=wait_exponential(multiplier=JOIN_WAIT_SECONDS),
        before_sleep=lambda _state: ray.shutdown(),  # a half-made client connection
        reraise=True,
    )
    try:
        retrying(
            ray.init,
            address=address,
            runtime_env=runtime_env,
            logging_level=logging.WARNING,
            log_to_driver=False,
        )
    except (ConnectionError, RuntimeError, ValueError) as exc:
        raise ExecutorError(f"cannot join the Ray cluster at {address}: {exc}") from None


def _transient(exc: BaseException) -> bool:
    """A join that may work when tried again: the cluster refused the connection, or the head's
    client proxy could not start this client's own server process (seen on loaded machines)."""
    if isinstance(exc, ConnectionError):
        return True
    return isinstance(exc, RuntimeError) and any(s in str(exc) for s in TRANSIENT_JOIN_ERRORS)


def shutdown() -> None:
    import ray

    if ray.is_initialized():
        ray.shutdown()


def cluster_cpus() -> int:
    import ray

    return max(1, int(ray.cluster_resources().get("CPU", 1)))


class RayExecutor(PartitionExecutor):
    """Curation chunks as Ray tasks on the cluster at ``address``."""

    def __init__(self, address: str):
        import ray

        connect(address)
        self._task = ray.remote(run_chunk).options(num_cpus=1, max_retries=ATTEMPTS)
        self._partition_task = ray.remote(map_partition).options(num_cpus=1, max_retries=ATTEMPTS)

    def map(self, stage: Stage, chunks: Sequence[list[Record]]) -> Iterator[tuple[int, Batch]]:
        import ray

        stage_ref = ray.put(stage)
        yield from _bounded(lambda index, chunk: self._task.remote(stage_ref, index, chunk), chunks)

    def map_partitions(
        self, stage: Stage, parts: Sequence[Partition], reader: RowReader
    ) -> Iterator[tuple[int, Batch, int]]:
        """Each corpus partition read by one task, which runs ``stage.map`` on its records:
        ``(index, batch, records read)`` as they finish (:mod:`parrot.scale.partitions`)."""
        import ray

        stage_ref, reader_ref = ray.put(stage), ray.put(reader)
        yield from _bounded(
            lambda index, part: self._partition_task.remote(stage_ref, index, part, reader_ref),
            parts,
        )

    def close(self) -> None:
        shutdown()


def _bounded(submit: Callable[[int, Any], Any], work: Sequence[Any]) -> Iterator[Any]:
    """Ray tasks ``submit(index, piece)`` for every piece of ``work``, at most ``IN_FLIGHT`` per
    cluster CPU at a time; their results as they finish."""
    import ray

    width = IN_FLIGHT * cluster_cpus()
    queue = list(enumerate(work))
    queue.reverse()
    pending: set[Any] = set()
    while queue or pending:
        while queue and len(pending) < width:
            pending.add(submit(*queue.pop()))
        done, _ = ray.wait(list(pending), num_returns=1)
        for ref in done:
            pending.discard(ref)
            yield ray.get(ref)
