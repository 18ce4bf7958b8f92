"""The stage interface, the records that flow between stages, the funnel, and the executor.

A stage has two halves: :meth:`Stage.map` works on one chunk of records with no shared state (so
chunks run in worker processes today and could run on other machines later), and
:meth:`Stage.reduce` sees every record once the chunks are back (deduplication, clustering,
coverage selection). Stages are plain picklable objects holding their parameters; anything heavy
(engines, parsers) is created lazily inside the worker. An :class:`Executor` decides where chunks
run: :class:`LocalExecutor` uses a process pool; a distributed executor implements the same
:meth:`Executor.map` over the same pickled stage and chunks.
"""

from __future__ import annotations

import abc
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, ClassVar, TypeVar

from parrot.engines.worker import die_with_parent

DEFAULT_CHUNK = 500
ENGINE_CHUNK = 40  # records per chunk of the stages that run engines (a multiple of 4 targets)


@dataclass(frozen=True)
class Candidate:
    """A candidate target translation and who produced it."""

    sql: str
    annotator: str  # the translator spec (``sqlglot``, ``openai/gpt-4o``) or ``<corpus>``
    annotation_source: str  # tool / llm / reflection / rule / human


@dataclass(frozen=True)
class Record:
    """One statement (and, once targets are assigned, one pair) on its way through curation."""

    id: str
    dialect: str
    sql: str
    origin: str = ""  # benchmark or test file it came from
    fixture: str | None = None  # a named fixture (``spider/<db_id>``) the statement runs on
    target: str | None = None  # target dialect, once the pair is formed
    candidates: tuple[Candidate, ...] = ()
    references: tuple[Candidate, ...] = ()  # verified candidates, canonical first
    norm: tuple[str, ...] = ()  # identifier-normalised tokens (clustering)
    cluster: str = ""
    rank: int = 0  # position inside its cluster (longest first)
    features: frozenset[str] | None = None  # coverage features, when computed
    fixture_json: dict[str, Any] | None = field(default=None, compare=False)  # generated data
    tags: tuple[str, ...] = ()
    translation_types: tuple[str, ...] = ()
    tokens: int | None = None
    info: dict[str, Any] = field(default_factory=dict, compare=False)  # per-stage notes

    @classmethod
    def of_row(cls, row: dict[str, Any], origin: str = "", fixture: str | None = None) -> Record:
        """A corpus row (JSON with ``id``, ``dialect`` and ``sql``) as a record."""
        return cls(row["id"], row["dialect"], row["sql"], origin, fixture)


def statement_id(record_id: str) -> str:
    """The statement a record comes from: a pair's id is ``<statement id>~<target>``."""
    return record_id.split("~", 1)[0]


class Drop(StrEnum):
    """Why a stage dropped a record: the code the funnel counts (a detail string says more)."""

    NUL_CHARACTER = "nul_character"  # no engine driver accepts a NUL in a statement
    EMPTY = "empty"  # nothing but comments
    DUPLICATE = "duplicate"  # the same SQL again (detail: after which stage)
    NORMALISED_DUPLICATE = "normalised_duplicate"  # the same after normalising case and spaces
    NO_TARGET = "no_target"  # no target dialect to translate into
    NO_ANNOTATION = "no_annotation"  # no annotator produced SQL
    UNPARSEABLE = "unparseable"  # not one statement sqlglot can parse (or render)
    CANONICAL_CHANGES_RESULT = "canonical_changes_result"  # detail: the strict reason
    ALREADY_VALID = "already_valid"  # already valid and same-behaving in the target
    NO_NEW_COVERAGE = "no_new_coverage"
    NOT_REACHED = "not_reached"  # the cluster's patience ran out
    OVER_KEEP = "over_keep"  # beyond --keep
    TOO_FEW_CONSTRUCTS = "too_few_constructs"  # detail: the minimum
    BELOW_LENGTH_QUANTILE = "below_length_quantile"
    NO_TEST_DATA = "no_test_data"  # detail: why no data could be generated
    SOURCE_UNUSABLE = "source_unusable"  # the source fails or is nondeterministic on its data
    NO_CANDIDATE = "no_candidate"
    NO_AGREEMENT = "no_agreement"  # no candidate agrees (detail: routed to review)
    EASY = "easy"  # the difficulty filter's model already solves it (detail: which model)
    NO_ENGINE = "no_engine"  # no engine for the pair
    NO_ENGINE_GRAMMAR_FAILS = "no_engine_grammar_fails"  # ... and every candidate fails the
    #                                                      target's grammar


@dataclass
class Batch:
    """What a stage returns for some records: the kept ones and counted reasons for the rest."""

    records: list[Record]
    dropped: Counter[str] = field(default_factory=Counter)  # Drop code -> records
    notes: Counter[str] = field(default_factory=Counter)  # counted events that drop nothing
    routed: list[dict[str, Any]] = field(default_factory=list)  # review-queue entries
    details: Counter[str] = field(default_factory=Counter)  # "code: detail" -> records

    def drop(self, code: Drop, detail: str = "", n: int = 1) -> None:
        """Count ``n`` records dropped for ``code`` (and ``detail``, when given)."""
        self.dropped[code.value] += n
        if detail:
            self.details[f"{code.value}: {detail}"] += n

    @classmethod
    def in_order(cls, parts: dict[int, Batch]) -> Batch:
        """One batch of ``parts`` 0, 1, ... (whatever order they came back in)."""
        out = cls([])
        for index in range(len(parts)):
            out.extend(parts[index])
        return out

    def extend(self, other: Batch) -> None:
        self.records.extend(other.records)
        self.dropped.update(other.dropped)
        self.notes.update(other.notes)
        self.routed.extend(other.routed)
        self.details.update(other.details)


class Stage(abc.ABC):
    """One curation step. Override :meth:`map`, :meth:`reduce` or both."""

    name: ClassVar[str]
    chunked: ClassVar[bool] = True  # False: map is skipped, reduce does everything
    # at most this many records per chunk (engine stages: seconds per record, so a 500-record
    # chunk left one worker of two busy for minutes at the end of the stage); None: chunk_size
    max_chunk: ClassVar[int | None] = None

    def map(self, chunk: list[Record]) -> Batch:
        """Process one chunk independently of every other (runs in a worker)."""
        return Batch(chunk)

    def reduce(self, batch: Batch) -> Batch:
        """Global step over all mapped records (runs in the coordinating process)."""
        return batch

    def params(self) -> dict[str, Any]:
        """The parameters that determine this stage's output (for the build manifest)."""
        return {}


@dataclass
class StageCount:
    """One funnel line: records in and out of a stage, why some left, how long it took."""

    stage: str
    records_in: int
    records_out: int
    dropped: dict[str, int]  # Drop code -> records
    notes: dict[str, int]
    seconds: float
    routed: int = 0
    details: dict[str, int] = field(default_factory=dict)  # "code: detail" -> records

    @classmethod
    def of(cls, stage: str, records_in: int, out: Batch, seconds: float) -> StageCount:
        """The funnel line of a stage that made ``out`` of ``records_in`` records."""
        return cls(
            stage,
            records_in,
            len(out.records),
            dict(out.dropped.most_common()),
            dict(out.notes.most_common()),
            seconds,
            len(out.routed),
            dict(out.details.most_common()),
        )

    @property
    def rate(self) -> float:
        return self.records_in / self.seconds if self.seconds > 0 else float("inf")

    def to_json(self) -> dict[str, Any]:
        return {
            "stage": self.stage,
            "in": self.records_in,
            "out": self.records_out,
            "dropped": self.dropped,
            "dropped_details": self.details,
            "notes": self.notes,
            "routed_to_review": self.routed,
            "seconds": round(self.seconds, 3),
        }


T = TypeVar("T")
Progress = Callable[[str, int, int], None]  # (stage, done, total)


class Executor(abc.ABC):
    """Where chunks of a stage run."""

    @abc.abstractmethod
    def map(self, stage: Stage, chunks: Sequence[list[Record]]) -> Iterator[tuple[int, Batch]]:
        """Yield ``(chunk index, batch)`` for every chunk, in any order."""

    def close(self) -> None:  # noqa: B027 - optional hook
        """Release workers."""


def run_chunk(stage: Stage, index: int, chunk: list[Record]) -> tuple[int, Batch]:
    """One chunk through ``stage.map`` (the unit of work every executor runs)."""
    return index, stage.map(chunk)


class LocalExecutor(Executor):
    """Chunks in this process (``jobs=1``) or in a pool of ``jobs`` worker processes."""

    def __init__(self, jobs: int = 1):
        self.jobs = max(1, jobs)
        self._pool: ProcessPoolExecutor | None = None

    def map(self, stage: Stage, chunks: Sequence[list[Record]]) -> Iterator[tuple[int, Batch]]:
        if len(chunks) <= 1:
            for index, chunk in enumerate(chunks):
                yield index, stage.map(chunk)
            return
        yield from self.run(run_chunk, ((stage, i, chunk) for i, chunk in enumerate(chunks)))

    def run(self, fn: Callable[..., T], tasks: Iterable[tuple[Any, ...]]) -> Iterator[T]:
        """``fn(*task)`` for every task, as each finishes: here when ``jobs=1``, else in the
        workers, at most two tasks a worker in flight (results stream back; ``tasks`` is read
        only as fast as they do)."""
        if self.jobs == 1:
            for task in tasks:
                yield fn(*task)
            return
        if self._pool is None:
            # a run ended by a signal (SIGTERM, SIGKILL) takes its workers with it
            self._pool = ProcessPoolExecutor(self.jobs, initializer=die_with_parent)
        pending: set[Future[T]] = set()
        todo = iter(tasks)
        for task in todo:
            pending.add(self._pool.submit(fn, *task))
            if len(pending) >= 2 * self.jobs:
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                yield from (future.result() for future in done)
        while pending:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            yield from (future.result() for future in done)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(cancel_futures=True)
            self._pool = None


def chunked(records: list[Record], size: int) -> list[list[Record]]:
    return [records[i : i + size] for i in range(0, len(records), max(1, size))]


def run_stage(
    stage: Stage,
    records: list[Record],
    executor: Executor,
    chunk_size: int = DEFAULT_CHUNK,
    progress: Progress | None = None,
) -> tuple[Batch, StageCount]:
    """Run one stage (map over chunks, then reduce) and count its funnel line."""
    start = time.perf_counter()
    total = len(records)
    if stage.chunked:
        chunks = chunked(records, min(chunk_size, stage.max_chunk or chunk_size))
        results: dict[int, Batch] = {}
        done = 0
        for index, batch in executor.map(stage, chunks):
            results[index] = batch
            done += len(chunks[index])
            if progress is not None:
                progress(stage.name, done, total)
        mapped = Batch.in_order(results)  # the input order
    else:
        mapped = Batch(list(records))
    out = stage.reduce(mapped)
    return out, StageCount.of(stage.name, total, out, time.perf_counter() - start)


def run_pipeline(
    records: list[Record],
    stages: Sequence[Stage],
    executor: Executor,
    chunk_size: int = DEFAULT_CHUNK,
    progress: Progress | None = None,
    on_stage: Callable[[StageCount], None] | None = None,
) -> tuple[list[Record], list[StageCount], list[dict[str, Any]]]:
    """Run ``stages`` in order; returns the surviving records, the funnel and the review queue."""
    funnel: list[StageCount] = []
    routed: list[dict[str, Any]] = []
    for stage in stages:
        batch, count = run_stage(stage, records, executor, chunk_size, progress)
        records = batch.records
        routed.extend(batch.routed)
        funnel.append(count)
        if on_stage is not None:
            on_stage(count)
    return records, funnel, routed
