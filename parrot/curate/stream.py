"""Selection at corpus scale, streaming: standardise → normalise → cluster → coverage selection in
memory that does not grow with the input.

The in-memory pipeline (:func:`parrot.curate.stages.run_pipeline` over :class:`Standardise`,
:class:`Normalise`, :class:`Cluster`, :class:`Features`, :class:`Coverage`) holds every statement,
its tokens and its cluster as Python objects: 2.9 GiB for 1 M statements. Here:

* **prepare** (workers, one chunk of input at a time): split and format, the stages between
  standardise and normalise if any (map only: :attr:`StreamSettings.stages`), then per
  statement, lexed once, its exact and normalised duplicate keys and its cluster key as 16-byte
  hashes and its length; the chunk goes back as one Arrow table and is appended to a DuckDB
  file (spilled to disk, DuckDB's own memory limit) by this process while the workers prepare
  the next chunks;
* **dedup, cluster, rank** (DuckDB, out of core): the first statement of each normalised key is
  kept (the first of its exact key too: equal texts have equal normalised keys), clusters are
  numbered in the order of their first kept statement, members ranked longest first (then id):
  exactly what :class:`Standardise` and :class:`Cluster` decide;
* **features** (workers): of the first ``window`` members of every cluster only, read from
  DuckDB a page of clusters at a time and computed a chunk at a time while this process walks
  (their number grows with the clusters: they are never all in memory);
* **coverage** (this process): the walk of :class:`Coverage`, cluster by cluster, as the
  features arrive in order, fetching a cluster's later members from DuckDB only when its
  patience has not run out.

The selected records are the in-memory pipeline's, in the same order, with the same ``cluster``
and ``rank`` (``tests/curate/test_stream.py`` checks it; ``scripts/bench/curate_stream.py`` at
1 M statements).
"""

from __future__ import annotations

import gc
import hashlib
import json
import math
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa

from parrot.curate.canonicalise import Canonicalise
from parrot.curate.select import (
    DEFAULT_PATIENCE,
    DEFAULT_PREFIX_RATIO,
    Selector,
    coverage_source,
    normalise,
    normalise_tokens,
)
from parrot.curate.stages import Batch, Drop, Progress, Record, Stage, StageCount
from parrot.curate.standardise import (
    Standardise,
    canonical_statements,
    lexicon,
    normalised_key_of,
)
from parrot.dialects.lexer import tokenize
from parrot.scale.stages import LocalExecutor

# a chunk of input: records, or the byte range [start, end) of a JSONL file (the lines that
# start in it), with the reader that makes a record of a row (None: any row, see read_range); a
# range is read by the worker, so the input never passes through this process
RowReader = Callable[[dict[str, Any], Path], Record | None]
Chunk = list[Record] | tuple[str, int, int] | tuple[str, int, int, RowReader | None]
_SEQ_BITS = 24  # a statement's sequence number: chunk index << 24 | position in the chunk
_SCHEMA = pa.schema(
    [
        ("seq", pa.int64()),
        ("id", pa.string()),
        ("dialect", pa.string()),
        ("origin", pa.string()),
        ("fixture", pa.string()),
        ("sql", pa.string()),
        ("len", pa.int32()),
        ("ehash", pa.binary(16)),
        ("nhash", pa.binary(16)),
        ("ckey", pa.binary(16)),
        ("meta", pa.string()),  # tags and info a stage between gave the record (JSON), or null
    ]
)
DEFAULT_MEMORY_LIMIT = "1GB"  # DuckDB's buffer pool; beyond it DuckDB spills to its temp files


def _digest(*parts: str | None) -> bytes:
    text = "\x1f".join("\x00" if p is None else p for p in parts)
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()


def cluster_key(norm: Sequence[str], ratio: float) -> str:
    """The first ``ceil(ratio × n)`` normalised tokens (what :class:`Cluster` groups by)."""
    return " ".join(norm[: max(1, math.ceil(ratio * len(norm)))])


def read_range(path: str, start: int, end: int, reader: RowReader | None = None) -> list[Record]:
    """The records of the JSONL lines of ``path`` that start in ``[start, end)`` (fields: id,
    dialect, sql, and origin or benchmark, fixture), or what ``reader`` makes of each row (the
    rows it makes None of left out)."""
    out = []
    with open(path, "rb") as fh:
        if start > 0:
            fh.seek(start - 1)
            fh.readline()  # the line that started before ``start`` belongs to the range before
        pos = fh.tell()
        while pos < end:
            line = fh.readline()
            if not line:
                break
            pos += len(line)
            if not line.strip():
                continue
            row = json.loads(line)
            if reader is None:
                origin = row.get("origin", row.get("benchmark", ""))
                out.append(Record.of_row(row, origin, row.get("fixture")))
            elif (record := reader(row, Path(path))) is not None:
                out.append(record)
    return out


def file_ranges(paths: Iterable[Path], size: int = 1 << 20) -> list[tuple[str, int, int]]:
    """Byte ranges of about ``size`` bytes covering every file (the chunks of a JSONL corpus)."""
    return [
        (str(p), a, min(a + size, total))
        for p in paths
        for total in [p.stat().st_size]
        for a in range(0, total, size)
    ]


# a chunk's count at each step (standardise, then each stage between): records in, and a batch
# with that step's drops and notes (no records)
Steps = list[tuple[int, Batch]]


def prepare(
    index: int, chunk: Chunk, ratio: float, stages: Sequence[Stage] = ()
) -> tuple[int, pa.Table, Steps]:
    """One chunk of input standardised, put through ``stages`` (map only) and normalised and
    hashed (runs in a worker): the statements as an Arrow table and the counts of each step.
    Each statement is lexed once, for both of its keys."""
    records = read_range(*chunk) if isinstance(chunk, tuple) else chunk
    steps: Steps = [(len(records), Batch([]))]
    if stages:
        rows: Iterable[tuple[str, str, Record]] = _through(records, stages, steps)
    else:
        rows = ((rid, sql, r) for r in records for rid, sql in canonical_statements(r, steps[0][1]))
    cols: dict[str, list[Any]] = {name: [] for name in _SCHEMA.names}
    seq = cols["seq"]
    for rid, sql, r in rows:
        tokens = tokenize(sql, lexicon(r.dialect))
        seq.append(index << _SEQ_BITS | len(seq))
        cols["id"].append(rid)
        cols["sql"].append(sql)
        cols["dialect"].append(r.dialect)
        cols["origin"].append(r.origin)
        cols["fixture"].append(r.fixture)
        cols["len"].append(len(sql))
        cols["ehash"].append(_digest(r.dialect, r.fixture, sql))
        cols["nhash"].append(_digest(r.dialect, r.fixture, normalised_key_of(sql, tokens)))
        norm = normalise_tokens(tokens)
        cols["ckey"].append(_digest(r.dialect, cluster_key(norm, ratio)))
        cols["meta"].append(_meta(r))
    if len(seq) >= 1 << _SEQ_BITS:
        raise ValueError(f"a chunk of {len(seq):,} statements is too large")
    return index, pa.table(cols, schema=_SCHEMA), steps


def _through(records: list[Record], stages: Sequence[Stage], steps: Steps) -> list[Any]:
    """``records`` standardised (no deduplication) and mapped by each of ``stages`` in turn, as
    (id, sql, record); each step's counts appended to ``steps``."""
    batch = Standardise().map(records)
    steps[0] = (len(records), batch)
    for stage in stages:
        step_in, kept = len(batch.records), batch.records
        batch.records = []
        batch = stage.map(kept)
        steps.append((step_in, batch))
    kept, batch.records = batch.records, []
    return [(r.id, r.sql, r) for r in kept]


def _meta(r: Record) -> str | None:
    if not r.tags and not r.info:
        return None
    return json.dumps({"tags": list(r.tags), "info": r.info}, sort_keys=True)


def features_of(index: int, chunk: list[Record], source: str) -> tuple[int, list[Any]]:
    """Coverage features of ``chunk`` (runs in a worker); None where the parser rejects one."""
    cov = coverage_source(source)
    return index, [cov.features(r.sql, r.dialect) for r in chunk]


def streamable(stage: Stage) -> bool:
    """Whether ``stage`` can run between standardise and normalise in a streamed selection:
    its reduce does nothing, or only deduplicates (as the stream does after every stage)."""
    return type(stage).reduce is Stage.reduce or type(stage).reduce is Canonicalise.reduce


@dataclass
class StreamSettings:
    """What decides the selection (as the in-memory stages' parameters) and how it runs."""

    prefix_ratio: float = DEFAULT_PREFIX_RATIO
    coverage: str = "sqlglot"
    patience: int = DEFAULT_PATIENCE
    limit: int | None = None
    jobs: int = 2
    workdir: Path | None = None  # where the DuckDB file goes (default: a temporary directory)
    memory_limit: str = DEFAULT_MEMORY_LIMIT
    feature_chunk: int = 200
    # stages between standardise and normalise, map only (run in the workers on every
    # statement before deduplication, which sees their output; see :func:`streamable`)
    stages: tuple[Stage, ...] = ()


@dataclass
class StreamResult:
    kept: list[Record]
    funnel: list[StageCount]
    stats: dict[str, Any] = field(default_factory=dict)


_RANK = """
CREATE TABLE ranked AS
WITH kept AS (SELECT min(seq) AS seq FROM stmts GROUP BY nhash),
     m AS (SELECT seq, ckey, len, id FROM stmts WHERE seq IN (SELECT seq FROM kept)),
     c AS (SELECT ckey, (row_number() OVER (ORDER BY min(seq)) - 1)::INTEGER AS cnum
           FROM m GROUP BY ckey)
SELECT c.cnum, (row_number() OVER (PARTITION BY m.ckey ORDER BY m.len DESC, m.id) - 1)::INTEGER
       AS rank, m.seq
FROM m JOIN c USING (ckey)
"""
_MEMBERS = (
    "SELECT r.cnum, r.rank, s.id, s.dialect, s.sql, s.origin, s.fixture, s.meta "
    "FROM ranked r JOIN stmts s USING (seq) "
)
_COLUMNS = ("cnum", "rank", "id", "dialect", "sql", "origin", "fixture", "meta")


def _records(rows: Iterable[tuple[Any, ...]]) -> list[Record]:
    out = []
    for c, k, i, d, s, o, f, meta in rows:
        extra = {} if meta is None else json.loads(meta)
        out.append(
            Record(
                id=i,
                dialect=d,
                sql=s,
                origin=o,
                fixture=f,
                cluster=f"c{c}",
                rank=k,
                tags=tuple(extra.get("tags", ())),
                info=extra.get("info", {}),
            )
        )
    return out


class _Store:
    """The DuckDB file the statements are spilled to, and the queries selection asks it."""

    def __init__(self, path: Path, settings: StreamSettings):
        self.con = duckdb.connect(
            str(path),
            config={
                "memory_limit": settings.memory_limit,
                "threads": max(1, settings.jobs),
                "temp_directory": str(path.parent / "spill"),
                "preserve_insertion_order": False,
            },
        )
        cols = ", ".join(f"{f.name} {_DUCK[str(f.type)]}" for f in _SCHEMA)
        self.con.execute(f"CREATE TABLE stmts ({cols})")
        self._buffer: list[pa.Table] = []
        self._rows = 0
        self.reach = 0

    def append(self, table: pa.Table, flush_rows: int = 100_000, flush_tables: int = 32) -> None:
        """Buffer ``table``; insert the buffer every ``flush_rows`` rows or ``flush_tables``
        tables (each table's Python wrapper costs a kilobyte or so)."""
        self._buffer.append(table)
        self._rows += table.num_rows
        if self._rows >= flush_rows or len(self._buffer) >= flush_tables:
            self.flush()

    def flush(self) -> None:
        if self._buffer:
            chunk = pa.concat_tables(self._buffer)  # noqa: F841 - read by DuckDB by name
            self.con.execute("INSERT INTO stmts SELECT * FROM chunk")
            self._buffer, self._rows = [], 0
            # each chunk leaves reference cycles (pyarrow, DuckDB's scan of it) that the cyclic
            # collector's thresholds let pile up in proportion to the input: collect them here
            gc.collect()

    def rank(self, reach: int) -> tuple[dict[str, int], list[int]]:
        """Deduplicate, cluster and rank; the counts, and every cluster's size in order.
        Members ranked below ``reach`` are copied with their text into a small table ordered
        by cluster (what selection reads; the rest only when a cluster's walk goes further)."""
        self.flush()
        counts = self.con.execute(
            "SELECT count(*), count(DISTINCT ehash), count(DISTINCT nhash) FROM stmts"
        ).fetchone()
        assert counts is not None
        self.con.execute(_RANK)
        sizes = [
            n
            for (n,) in self.con.execute(
                "SELECT count(*) FROM ranked GROUP BY cnum ORDER BY cnum"
            ).fetchall()
        ]
        self.reach = reach
        self.con.execute(
            f"CREATE TABLE reach AS {_MEMBERS} WHERE r.rank < ? ORDER BY r.cnum, r.rank", [reach]
        )
        return dict(
            zip(("statements", "distinct", "normalised_distinct"), counts, strict=True)
        ), sizes

    def window(self, window: int, first: int, stop: int) -> list[Record]:
        """The members ranked below ``window`` of clusters ``first`` to ``stop`` (numbers)."""
        return _records(
            self.con.execute(
                f"SELECT {', '.join(_COLUMNS)} FROM reach WHERE rank < ? AND cnum >= ? "
                "AND cnum < ? ORDER BY cnum, rank",
                [window, first, stop],
            ).fetchall()
        )

    def members(self, cnum: int, start: int, stop: int) -> list[Record]:
        """Members ``start`` to ``stop`` (ranks) of cluster ``cnum``."""
        if stop <= self.reach:
            query = (
                f"SELECT {', '.join(_COLUMNS)} FROM reach WHERE cnum = ? "
                "AND rank >= ? AND rank < ? ORDER BY rank"
            )
        else:  # beyond the copied ranks: a join with every statement (rare)
            query = _MEMBERS + ("WHERE r.cnum = ? AND r.rank >= ? AND r.rank < ? ORDER BY r.rank")
        return _records(self.con.execute(query, [cnum, start, stop]).fetchall())

    def close(self) -> None:
        self.con.close()


_DUCK = {
    "int64": "BIGINT",
    "int32": "INTEGER",
    "string": "VARCHAR",
    "fixed_size_binary[16]": "BLOB",
}


def _cluster_members(
    store: _Store, cnum: int, size: int, window: list[Record], page: int
) -> Iterator[Record]:
    """A cluster's members in rank order: the window (features computed), then pages from the
    store (features computed when the walk reaches them)."""
    yield from window
    start = len(window)
    while start < size:
        got = store.members(cnum, start, min(size, start + page))
        yield from got
        start += len(got)
        page *= 2


@dataclass(frozen=True)
class _Parts:
    """What one streaming selection works with."""

    store: _Store
    executor: LocalExecutor
    settings: StreamSettings
    progress: Progress | None

    def report(self, stage: str, done: int, total: int) -> None:
        if self.progress is not None:
            self.progress(stage, done, total)


def _ingest(parts: _Parts, chunks: Iterable[Chunk], total: int) -> list[tuple[int, Batch]]:
    """Every chunk prepared and appended to the store; each step's records in and counts."""
    settings = parts.settings
    steps: Steps = [(0, Batch([])) for _ in range(1 + len(settings.stages))]
    tasks = ((i, c, settings.prefix_ratio, settings.stages) for i, c in enumerate(chunks))
    for done, (_, table, counted) in enumerate(parts.executor.run(prepare, tasks), 1):
        parts.store.append(table)
        for n, (step_in, batch) in enumerate(counted):
            steps[n][1].extend(batch)
            steps[n] = (steps[n][0] + step_in, steps[n][1])
        parts.report("prepare", done, total)
    return steps


def _window_pages(parts: _Parts, sizes: list[int], window: int, page: int) -> Iterator[Record]:
    """Every cluster's first ``window`` members in cluster and rank order, read from the store
    about ``page`` records at a time (never all at once: their number grows with the clusters)."""
    first = rows = 0
    for cnum, size in enumerate(sizes):
        rows += min(size, window)
        if rows >= page or cnum == len(sizes) - 1:
            yield from parts.store.window(window, first, cnum + 1)
            first, rows = cnum + 1, 0


def _with_features(parts: _Parts, records: Iterator[Record], total: int) -> Iterator[Record]:
    """``records`` in the same order with their coverage features, computed by the workers a
    chunk at a time while this process walks the clusters: only the chunks in flight and those
    finished ahead of an earlier one are held (the window's features are never all in memory,
    and the walk overlaps the workers)."""
    size = parts.settings.feature_chunk
    pending: dict[int, list[Record]] = {}

    def tasks() -> Iterator[tuple[int, list[Record], str]]:
        for index in range(math.ceil(total / size)):
            chunk = [r for _, r in zip(range(size), records, strict=False)]
            pending[index] = chunk
            yield index, chunk, parts.settings.coverage

    ready: dict[int, list[Any]] = {}
    done = 0
    unparseable = frozenset({"\x00"})
    for index, feats in parts.executor.run(features_of, tasks()):
        ready[index] = feats
        while done in ready:
            feats = ready.pop(done)
            for r, f in zip(pending.pop(done), feats, strict=True):
                yield replace(r, features=f if f is not None else unparseable)
            done += 1
            parts.report("features", min(total, done * size), total)


def run_stream(
    chunks: Iterable[Chunk],
    settings: StreamSettings | None = None,
    progress: Progress | None = None,
    total: int = 0,
) -> StreamResult:
    """Select from ``chunks`` as Standardise → Normalise → Cluster → Features → Coverage would
    (see the module docstring); ``total``: the number of chunks, for ``progress``."""
    settings = settings or StreamSettings()
    with tempfile.TemporaryDirectory(prefix="parrot-curate-", dir=settings.workdir) as tmp:
        store = _Store(Path(tmp) / "statements.duckdb", settings)
        executor = LocalExecutor(settings.jobs)
        try:
            return _run(_Parts(store, executor, settings, progress), chunks, total)
        finally:
            executor.close()
            store.close()


class _Peek:
    """Records in cluster order, handed out a cluster at a time."""

    def __init__(self, items: Iterator[Record]):
        self._items = items
        self._next: Record | None = None
        self.exhausted_at: float | None = None  # when the last record was read (perf_counter)

    def cluster(self, label: str) -> list[Record]:
        """The next records while their cluster is ``label``."""
        out: list[Record] = []
        while True:
            if self._next is None:
                self._next = next(self._items, None)
                if self._next is None:
                    self.exhausted_at = self.exhausted_at or time.perf_counter()
                    return out
            if self._next.cluster != label:
                return out
            out.append(self._next)
            self._next = None


def _run(parts: _Parts, chunks: Iterable[Chunk], total: int) -> StreamResult:
    store, settings = parts.store, parts.settings
    # the walk of a cluster without a kept member reads exactly ``patience`` members: those are
    # computed ahead in the workers; the members after a kept one, by the walk (this process,
    # overlapping the workers). With patience + 1, one more member of every cluster was
    # parsed, and not read by the walk of most (all but those with a kept member)
    window_size = max(1, settings.patience)
    clock = time.perf_counter()
    steps = _ingest(parts, chunks, total)
    ingest_s = time.perf_counter() - clock
    counts, sizes = store.rank(reach=max(8 * window_size, 64))
    seconds = [time.perf_counter() - clock]
    stats = steps[0][1]
    stats.drop(Drop.DUPLICATE, n=counts["statements"] - counts["distinct"])
    stats.drop(Drop.NORMALISED_DUPLICATE, n=counts["distinct"] - counts["normalised_distinct"])
    stats.dropped = +stats.dropped  # zero counts out, as the in-memory funnel has them
    out = Batch([])
    selector = Selector(settings.coverage, settings.patience, settings.limit, out)
    total_window = sum(min(size, window_size) for size in sizes)
    pages = _window_pages(parts, sizes, window_size, 10 * settings.feature_chunk)
    window = _Peek(_with_features(parts, pages, total_window))
    for cnum, size in enumerate(sizes):
        head = window.cluster(f"c{cnum}")
        selector.cluster(_cluster_members(store, cnum, size, head, 64), size)
        if cnum % 500 == 0 or cnum == len(sizes) - 1:
            parts.report("coverage", cnum + 1, len(sizes))
    seconds += [window.exhausted_at or time.perf_counter(), time.perf_counter()]
    seconds[1:] = [t - clock for t in seconds[1:]]
    out.notes["coverage features"] = len(selector.covered)
    out.records = [replace(r, norm=normalise(r.sql, r.dialect)) for r in out.records]
    stats_out = {"ingest_seconds": ingest_s, "rank_seconds": seconds[0] - ingest_s, **counts}
    stats_out["clusters"] = len(sizes)
    stats_out["features_ahead"] = total_window  # in the workers (and "features computed late")
    funnel = _funnel(steps, settings.stages, counts["normalised_distinct"], sizes, seconds, out)
    return StreamResult(out.records, funnel, stats_out)


def _funnel(
    steps: Steps,
    stages: Sequence[Stage],
    kept_n: int,
    sizes: list[int],
    seconds: list[float],
    out: Batch,
) -> list[StageCount]:
    """The funnel lines: standardise (deduplication included: the statements it keeps are the
    ones clustered), the stages between (counted before deduplication), normalise, cluster,
    features and coverage (the in-memory pipeline's stages)."""

    def line(name: str, n_in: int, n_out: int, batch: Batch, s: float) -> StageCount:
        count = StageCount.of(name, n_in, batch, s)
        count.records_out = n_out
        return count

    funnel = [line("standardise", steps[0][0], kept_n, steps[0][1], seconds[0])]
    for stage, (n_in, batch) in zip(stages, steps[1:], strict=True):
        funnel.append(line(stage.name, n_in, n_in - sum(batch.dropped.values()), batch, 0.0))
    return [
        *funnel,
        StageCount("normalise", kept_n, kept_n, {}, {}, 0.0),
        StageCount("cluster", kept_n, kept_n, {}, {"clusters": len(sizes)}, 0.0),
        StageCount("features", kept_n, kept_n, {}, {}, seconds[1] - seconds[0]),
        line("coverage", kept_n, len(out.records), out, seconds[2] - seconds[1]),
    ]
