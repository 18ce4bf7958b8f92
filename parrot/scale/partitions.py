"""Corpora read in partitions where the work runs, not on the driver.

A JSONL corpus is cut into byte ranges (:func:`split`: only the files' sizes are read on the
driver). A partition owns the lines that *start* inside its range, so ranges cut anywhere and
every line is read exactly once (:func:`read_rows`). On a cluster each partition is one task
that reads its rows, turns them into records (a variant's picklable per-row reader) and runs the
pipeline's first stage on them; the driver receives the stage's output in partition order —
the corpus order — and runs the rest of the pipeline as before, so the output is the local one.
Nothing of Ray is imported here (:meth:`parrot.scale.cluster.RayExecutor.map_partitions`).
"""

from __future__ import annotations

import abc
import json
import os
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from parrot.scale.stages import Batch, Executor, Record, Stage, StageCount, run_pipeline

if TYPE_CHECKING:
    from parrot.scale.stages import Progress

PARTITION_BYTES = 4 * 2**20  # ~4 MiB of JSONL: ~10 k benchmark statements
RowReader = Callable[[dict[str, Any], Path], Record | None]


@dataclass(frozen=True)
class Partition:
    """The lines of ``path`` whose first byte lies in ``[start, end)``."""

    path: str
    start: int
    end: int


def split(paths: Sequence[Path], size: int = PARTITION_BYTES) -> list[Partition]:
    """Byte-range partitions of ``paths``, in file order, each at most ``size`` bytes; their
    paths absolute (a cluster's workers run in a directory of their own)."""
    size = max(1, size)
    parts = []
    for path in paths:
        total = os.path.getsize(path)
        parts += [
            Partition(str(Path(path).resolve()), start, min(start + size, total))
            for start in range(0, total, size)
        ]
    return parts


def read_rows(part: Partition) -> Iterator[dict[str, Any]]:
    """The JSON rows ``part`` owns (blank lines skipped)."""
    with open(part.path, "rb") as fh:
        if part.start > 0:
            fh.seek(part.start - 1)
            fh.readline()  # the rest of the line that started before this range
        while fh.tell() < part.end:
            line = fh.readline()
            if not line:
                break
            if line.strip():
                yield json.loads(line)


def read_records(part: Partition, reader: RowReader) -> list[Record]:
    path = Path(part.path)
    return [r for r in (reader(row, path) for row in read_rows(part)) if r is not None]


def map_partition(
    stage: Stage, index: int, part: Partition, reader: RowReader
) -> tuple[int, Batch, int]:
    """One partition read and run through ``stage.map``: (index, batch, records read)."""
    records = read_records(part, reader)
    return index, stage.map(records), len(records)


class PartitionExecutor(Executor):
    """An executor that also reads corpus partitions where it runs (the Ray executor)."""

    @abc.abstractmethod
    def map_partitions(
        self, stage: Stage, parts: Sequence[Partition], reader: RowReader
    ) -> Iterator[tuple[int, Batch, int]]:
        """:func:`map_partition` of every partition, in any order."""


def run_partitioned(
    parts: Sequence[Partition],
    reader: RowReader,
    stages: Sequence[Stage],
    executor: PartitionExecutor,
    chunk_size: int,
    progress: Progress | None = None,
    on_stage: Callable[[StageCount], None] | None = None,
) -> tuple[list[Record], list[StageCount], list[dict[str, Any]], int]:
    """:func:`~parrot.curate.stages.run_pipeline` over a corpus read in partitions on the
    cluster: the first stage's map runs in the reading tasks. Returns what run_pipeline does
    and the number of records read."""
    first, rest = stages[0], stages[1:]
    if not first.chunked:
        raise ValueError(f"the first stage ({first.name}) must be chunked to read partitions")
    start = time.perf_counter()
    results: dict[int, Batch] = {}
    read = 0
    for index, batch, n in executor.map_partitions(first, parts, reader):
        results[index] = batch
        read += n
        if progress is not None:
            progress(first.name, read, read)  # the total is known only at the end
    out = first.reduce(Batch.in_order(results))  # corpus order
    count = StageCount.of(first.name, read, out, time.perf_counter() - start)
    if on_stage is not None:
        on_stage(count)
    kept, funnel, routed = run_pipeline(out.records, rest, executor, chunk_size, progress, on_stage)
    return kept, [count, *funnel], [*out.routed, *routed], read
