"""Streaming selection (parrot.curate.stream): the in-memory pipeline's result, bounded memory."""

from __future__ import annotations

import json
import math
import tracemalloc
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from parrot.curate.select import Cluster, Coverage, Features, Normalise, coverage_source
from parrot.curate.stages import Batch, Drop, LocalExecutor, Record, Stage, run_pipeline
from parrot.curate.standardise import Standardise
from parrot.curate.stream import StreamSettings, file_ranges, read_range, run_stream

_BASE = [
    "SELECT a, b FROM t WHERE x = 1",
    "select A, B from T where X = 1",  # a normalised duplicate
    "SELECT a, b FROM t WHERE x = 1",  # an exact duplicate
    "SELECT COUNT(*) FROM t GROUP BY a HAVING COUNT(*) > 2",
    "SELECT a FROM t JOIN u ON t.id = u.id WHERE u.b LIKE 'x%' ORDER BY a LIMIT 3",
    "SELECT a FROM t JOIN u ON t.id = u.id",
    "SELECT a FROM t JOIN u ON t.id = u.id WHERE u.c IN (1, 2)",
    "SELECT a FROM t JOIN u ON t.id = u.id LEFT JOIN v ON v.k = u.k",
    "SELEC oops FROM",  # unparseable
    "SELECT 1; SELECT 2",  # split in two
    "-- nothing but a comment",  # empty
    "INSERT INTO t (a, b) VALUES (1, 'x')",
    "UPDATE t SET a = 2 WHERE b = 'y'",
    "WITH q AS (SELECT a FROM t) SELECT * FROM q WHERE a > 5",
]


def _copy(c: int) -> list[Record]:
    """``_BASE`` (``c`` = 0) or a copy with other literals (new statements, same clusters)."""
    out = []
    for i, sql in enumerate(_BASE):
        text = sql if c == 0 else sql.replace("1", str(10 + c)).replace("'x", f"'x{c}")
        out.append(Record(f"s{i}@{c}", "sqlite" if i % 3 else "postgres", text, "bench"))
    return out


def _records(copies: int) -> list[Record]:
    return [r for c in range(copies + 1) for r in _copy(c)]


def _memory(
    records: list[Record], stages: list[Stage] | None = None
) -> tuple[list[tuple[str, str, int]], dict[str, int]]:
    stages = stages or [Standardise(), Normalise(), Cluster(), Features(), Coverage()]
    kept, funnel, _ = run_pipeline(records, stages, LocalExecutor(1), 7)
    dropped = {**funnel[0].dropped, **funnel[-1].dropped}
    return [(r.id, r.cluster, r.rank) for r in kept], dropped


def test_streaming_selects_what_the_in_memory_pipeline_selects() -> None:
    records = _records(6)
    expected, dropped = _memory(records)
    chunks = [records[i : i + 7] for i in range(0, len(records), 7)]  # duplicates across chunks
    result = run_stream(chunks, StreamSettings(jobs=1))
    assert [(r.id, r.cluster, r.rank) for r in result.kept] == expected
    assert {**result.funnel[0].dropped, **result.funnel[-1].dropped} == dropped
    assert result.funnel[0].records_in == len(records)
    assert result.kept[0].norm  # the normalised tokens, as the in-memory records carry them


def test_jsonl_ranges_read_every_line_once(tmp_path: Path) -> None:
    path = tmp_path / "corpus.jsonl"
    records = _records(2)
    path.write_text(
        "".join(
            json.dumps({"id": r.id, "dialect": r.dialect, "sql": r.sql, "benchmark": r.origin})
            + "\n"
            for r in records
        )
    )
    for size in (1, 37, 64, 10_000):
        got = [r for rng in file_ranges([path], size) for r in read_range(*rng)]
        assert [r.id for r in got] == [r.id for r in records], size
    expected, _ = _memory(records)
    result = run_stream(file_ranges([path], 300), StreamSettings(jobs=1))
    assert [(r.id, r.cluster, r.rank) for r in result.kept] == expected


def _peak(copies: int) -> int:
    chunks = (_copy(c) for c in range(copies + 1))  # a stream: the input is never a list
    tracemalloc.start()
    try:
        run_stream(chunks, StreamSettings(jobs=1))
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_memory_does_not_grow_with_the_input() -> None:
    """Four times the statements (the same clusters): the peak of this process's Python objects
    stays within a quarter of the smaller run's (the in-memory pipeline's would grow four-fold)."""
    small, large = _peak(100), _peak(400)
    assert large < 1.25 * small, (small, large)


def test_two_workers_select_what_one_process_selects() -> None:
    """Chunks prepared by two worker processes, in whatever order they finish: the same
    selection, funnel and store order as in this process alone."""
    records = _records(8)
    chunks = [records[i : i + 5] for i in range(0, len(records), 5)]
    serial = run_stream(chunks, StreamSettings(jobs=1))
    parallel = run_stream(chunks, StreamSettings(jobs=2))
    assert [(r.id, r.cluster, r.rank, r.sql) for r in parallel.kept] == [
        (r.id, r.cluster, r.rank, r.sql) for r in serial.kept
    ]
    assert [c.to_json() | {"seconds": 0} for c in parallel.funnel] == [
        c.to_json() | {"seconds": 0} for c in serial.funnel
    ]


class _Tag(Stage):
    """A stage between standardise and normalise: tags every statement, drops one."""

    name = "tag"

    def map(self, chunk: list[Record]) -> Batch:
        out = Batch([])
        for r in chunk:
            if r.id.startswith("s4@"):
                out.drop(Drop.EMPTY)
            else:
                out.records.append(replace(r, tags=("tagged",), info={"n": len(r.sql)}))
        return out


def test_stages_between_run_in_the_workers_and_their_tags_ride_along() -> None:
    records = _records(3)
    stages = [Standardise(), _Tag(), Normalise(), Cluster(), Features(), Coverage()]
    expected, _ = _memory(records, stages)
    result = run_stream([records[:20], records[20:]], StreamSettings(jobs=1, stages=(_Tag(),)))
    assert [(r.id, r.cluster, r.rank) for r in result.kept] == expected
    assert all(r.tags == ("tagged",) and r.info == {"n": len(r.sql)} for r in result.kept)
    assert [c.stage for c in result.funnel][:2] == ["standardise", "tag"]
    assert result.funnel[1].dropped == {"empty": 4}  # s4 of each copy, before deduplication


def _shapes(clusters: int, copies: int = 3) -> Iterator[list[Record]]:
    """``clusters`` (16, 64 or 256) statement shapes, each its own cluster and all with the
    same coverage features (nesting depth × number of conditions, up to 16 of each: as large
    for any number of clusters), each in ``copies`` copies with other literals; in chunks of 50
    statements."""
    step = 16 // math.isqrt(clusters)
    chunk: list[Record] = []
    for c in range(copies):
        for depth in range(1, 17, step):
            for terms in range(1, 17, step):
                where = " AND ".join(f"x{t} = {c * 1000 + t}" for t in range(terms))
                sql = f"SELECT {'(' * depth}a{')' * depth} FROM t WHERE {where}"
                chunk.append(Record(f"q{depth}.{terms}@{c}", "sqlite", sql, "bench"))
                if len(chunk) == 50:
                    yield chunk
                    chunk = []
    yield chunk


def _peak_shapes(clusters: int) -> tuple[int, int]:
    settings = StreamSettings(jobs=1, patience=2, feature_chunk=20)
    coverage_source(settings.coverage).features("SELECT 1", "sqlite")  # the parser's imports
    tracemalloc.start()
    try:
        result = run_stream(_shapes(clusters), settings)
        return tracemalloc.get_traced_memory()[1], result.stats["clusters"]
    finally:
        tracemalloc.stop()


@pytest.mark.slow  # tracemalloc over sqlglot's parses: about 30 s at load 6
def test_memory_does_not_grow_with_the_number_of_clusters() -> None:
    """Four times the clusters (statements as large): the features of every cluster's first
    members (the walk's window) are never all held at once. The peak of this process's Python
    objects grew 3.6-fold when they were; it now stays within 1.5 times the smaller run's."""
    _peak_shapes(16)  # what the first run allocates once (imports, caches)
    (small, n_small), (large, n_large) = _peak_shapes(64), _peak_shapes(256)
    assert (n_small, n_large) == (64, 256)
    assert large < 1.5 * small, (small, large)


def test_many_clusters_select_what_the_in_memory_pipeline_selects() -> None:
    """The walk reads the window a page of clusters at a time, the features a chunk at a time
    in whatever order the workers finish: the in-memory pipeline's selection."""
    records = [r for chunk in _shapes(64) for r in chunk]
    expected, dropped = _memory(records)
    for jobs in (1, 2):
        result = run_stream(_shapes(64), StreamSettings(jobs=jobs, feature_chunk=7))
        assert [(r.id, r.cluster, r.rank) for r in result.kept] == expected
        assert {**result.funnel[0].dropped, **result.funnel[-1].dropped} == dropped
