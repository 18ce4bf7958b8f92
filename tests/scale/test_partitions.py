"""Corpora read in byte-range partitions (:mod:`parrot.scale.partitions`): every line exactly
once wherever the ranges cut, and the pipeline over partitions gives the pipeline over the
corpus read whole (the cluster's path, here with an in-process partition executor)."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from parrot.curate.select import Cluster, Coverage, Features, Normalise
from parrot.curate.stages import Batch, LocalExecutor, Stage, run_pipeline
from parrot.curate.standardise import Standardise
from parrot.curate.variants import RowReader
from parrot.scale.partitions import (
    Partition,
    PartitionExecutor,
    map_partition,
    read_rows,
    run_partitioned,
    split,
)

ROWS = [
    {
        "id": f"q{i}",
        "dialect": "sqlite" if i % 3 else "duckdb",
        "db_id": None,
        "sql": f"SELECT {'é' * (i % 4)}a{i % 7}, b FROM t{i % 5} WHERE c > {i % 11}",
    }
    for i in range(60)
]


class InProcess(LocalExecutor, PartitionExecutor):
    """Partitions read in this process, in reverse order (the order must not matter)."""

    def map_partitions(
        self, stage: Stage, parts: Sequence[Partition], reader: RowReader
    ) -> Iterator[tuple[int, Batch, int]]:
        for index in reversed(range(len(parts))):
            yield map_partition(stage, index, parts[index], reader)


@pytest.fixture
def corpus(tmp_path: Path) -> list[Path]:
    paths = [tmp_path / "a.jsonl", tmp_path / "b.jsonl"]
    paths[0].write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in ROWS[:35]) + "\n",
        encoding="utf-8",
    )  # a blank line at the end
    paths[1].write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in ROWS[35:]), encoding="utf-8"
    )
    return paths


@pytest.mark.parametrize("size", [1, 7, 64, 100, 333, 10**6])
def test_every_row_exactly_once_wherever_the_ranges_cut(corpus: list[Path], size: int) -> None:
    parts = split(corpus, size)
    assert all(p.end - p.start <= size for p in parts)
    assert [row for part in parts for row in read_rows(part)] == ROWS


def test_a_pipeline_over_partitions_gives_the_whole_corpus_result(corpus: list[Path]) -> None:
    reader = RowReader(("sqlite",), frozenset(), spider_only=False)
    records = [
        r
        for path in corpus
        for line in path.read_text(encoding="utf-8").splitlines()
        if line.strip() and (r := reader(json.loads(line), path)) is not None
    ]

    def stages() -> list[Stage]:
        return [Standardise(), Normalise(), Cluster(), Features(), Coverage(limit=12)]

    whole = run_pipeline(records, stages(), LocalExecutor(), chunk_size=8)
    kept, funnel, routed, read = run_partitioned(
        split(corpus, 300), reader, stages(), InProcess(), chunk_size=8
    )
    assert read == len(records) == 40
    assert kept == whole[0] and kept
    assert [(c.stage, c.records_in, c.records_out, c.dropped) for c in funnel] == [
        (c.stage, c.records_in, c.records_out, c.dropped) for c in whole[1]
    ]
    assert routed == whole[2]


def test_a_first_stage_that_is_not_chunked_is_refused(corpus: list[Path]) -> None:
    reader = RowReader(("sqlite",), frozenset(), spider_only=False)
    with pytest.raises(ValueError, match="must be chunked"):
        run_partitioned(split(corpus), reader, [Cluster()], InProcess(), chunk_size=8)


def test_a_record_the_reader_skips_is_not_read(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in ROWS[:9]))
    reader = RowReader(("duckdb",), frozenset(), spider_only=False)
    _, batch, read = map_partition(Standardise(), 0, split([path])[0], reader)
    assert read == 3 and [r.id for r in batch.records] == ["q0", "q3", "q6"]


def test_partitions_name_their_files_absolutely(
    corpus: list[Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(corpus[0].parent)
    parts = split([Path(corpus[0].name)], 100)
    monkeypatch.chdir(corpus[0].parent.parent)  # where a cluster worker runs: elsewhere
    assert all(Path(p.path).is_absolute() for p in parts)
    assert [r["id"] for p in parts for r in read_rows(p)] == [r["id"] for r in ROWS[:35]]
