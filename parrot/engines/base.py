"""The engine interface: materialise fixtures, execute untrusted SQL safely, return canonical rows.

Engines never know about translators or LLMs. Every execution:

* has a timeout that really stops the query (``ExecStatus.TIMEOUT``);
* cannot change the fixture data: writes and objects a translation creates (views, UDFs, temp
  tables, procedures) live in a scratch space that is thrown away afterwards;
* is capped in result size (``ExecStatus.TOO_LARGE``);
* turns every failure into a typed :class:`Execution` instead of raising.
"""

from __future__ import annotations

import abc
import argparse
import contextlib
import dataclasses
import json
import time
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, ClassVar, Generic, NoReturn, TypeVar

from parrot import values
from parrot.fixtures import (
    Column,
    Fixture,
    Table,
    cell_text,
    decimal_precision,
    decimal_scale,
    table_checksum,
)
from parrot.values import ResultSet

DEFAULT_TIMEOUT = 10.0  # seconds per execution
MAX_TIMEOUT = 86_400.0  # the longest budget an execution may be given (a day)
DEFAULT_MAX_ROWS = 100_000


def timeout_arg(text: str) -> float:
    """A ``--timeout`` value: seconds, finite, above 0 and at most MAX_TIMEOUT (``nan``,
    ``inf`` and ``1e309`` are refused with a one-line message: an argparse ``type``)."""
    try:
        seconds = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not 0 < seconds <= MAX_TIMEOUT:  # also false for nan
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a timeout: seconds above 0 and at most {MAX_TIMEOUT:g}"
        )
    return seconds


MESSAGE_LIMIT = 1000  # characters of an engine message kept in Execution.error


class ExecStatus(StrEnum):
    OK = "ok"
    SYNTAX_ERROR = "syntax_error"  # the engine's parser rejected the SQL
    RUNTIME_ERROR = "runtime_error"  # parsed, then failed (unknown column, bad cast, ...)
    TIMEOUT = "timeout"
    TOO_LARGE = "too_large"  # more rows than the result cap
    UNSUPPORTED = "unsupported"  # a statement kind parrot refuses to run (e.g. ATTACH, COMMIT)
    NO_ENGINE = "no_engine"  # no engine for the dialect is available
    ENGINE_ERROR = "engine_error"  # the engine itself failed (crash, lost connection)


@dataclass(frozen=True)
class Execution:
    """The typed outcome of running one SQL text (possibly several statements)."""

    status: ExecStatus
    result: ResultSet | None = None  # the last statement's rows when status is OK
    error: str | None = None  # the engine's own message
    elapsed: float = 0.0  # seconds spent inside the engine

    @property
    def ok(self) -> bool:
        return self.status is ExecStatus.OK


@dataclass(frozen=True)
class Capabilities:
    """Class-level facts about an engine (ibis-style capability flags); whether it runs inside
    the parrot process is whether it has no ``url_schemes``."""

    booleans: bool  # has a boolean type that comparisons return
    transactional_ddl: bool  # CREATE/DROP can be rolled back
    udfs: bool  # translations may define functions (CREATE FUNCTION / MACRO)
    procedures: bool
    decimals: bool  # exact DECIMAL arithmetic
    timestamps_us: bool  # timestamps keep microseconds


@dataclass(frozen=True)
class LoadReport:
    """What :meth:`Engine.load` verified about a materialised fixture."""

    fixture: str
    row_counts: dict[str, int]
    checksums: dict[str, str]
    seconds: float = 0.0
    cached: bool = False
    mismatches: tuple[str, ...] = field(default=())  # empty when verified

    @property
    def verified(self) -> bool:
        return not self.mismatches


# the SQL standard's names for the portable column types (DOUBLE: most engines' short form)
STANDARD_TYPES: Mapping[str, str] = {
    "integer": "INTEGER",
    "bigint": "BIGINT",
    "double": "DOUBLE",
    "text": "VARCHAR",
    "boolean": "BOOLEAN",
    "date": "DATE",
    "timestamp": "TIMESTAMP",
}


@dataclass(frozen=True)
class TypeMap:
    """An engine's names for the portable column types, as data; called with a column, its
    type (``decimal`` formats ``decimal(p,s)`` with ``{p}`` and ``{s}``)."""

    names: Mapping[str, str]
    decimal: str = "DECIMAL({p},{s})"

    @classmethod
    def standard(cls, decimal: str = "DECIMAL({p},{s})", **names: str) -> TypeMap:
        """The :data:`STANDARD_TYPES` but for ``names``, an engine's own (``text="TEXT"``)."""
        if unknown := names.keys() - STANDARD_TYPES.keys():
            raise ValueError(f"not portable column types: {sorted(unknown)}")
        return cls({**STANDARD_TYPES, **names}, decimal)

    def __call__(self, column: Column) -> str:
        t = column.type
        if t.startswith("decimal"):
            return self.decimal.format(p=decimal_precision(t), s=decimal_scale(t))
        return self.names[t]


@dataclass(frozen=True)
class Request:
    """One :meth:`Engine.execute` call: the SQL text, the fixture it runs against, the seconds
    it may take and the most rows it may return."""

    sql: str
    fixture: Fixture
    timeout: float = DEFAULT_TIMEOUT
    max_rows: int = DEFAULT_MAX_ROWS


class FixtureLoadError(RuntimeError):
    """A fixture could not be materialised faithfully on an engine."""


class Engine(abc.ABC):
    """One adapter per engine. Instances are not thread-safe; use one per worker."""

    name: ClassVar[str]  # registry key, e.g. "sqlite"
    dialect: ClassVar[str]  # sqlglot dialect key it executes
    capabilities: ClassVar[Capabilities]
    # None: embedded, constructed with no arguments. Otherwise the engine is a server reached
    # through a URL and constructed as ``cls(url)``; these are the URL schemes it accepts.
    url_schemes: ClassVar[tuple[str, ...] | None] = None

    @classmethod
    def is_server(cls) -> bool:
        """Whether the engine is a server reached through a URL (it has ``url_schemes``), not
        one that runs in parrot's process or its worker."""
        return cls.url_schemes is not None

    @staticmethod
    def available() -> str | None:
        """None when this machine can run the engine, else what is missing (an install hint)."""
        return None

    @abc.abstractmethod
    def version(self) -> str:
        """The engine's own version string."""

    @property
    def label(self) -> str:
        """What reports print, e.g. ``"clickhouse (chdb 4.4.0, ClickHouse 26.9)"``."""
        return f"{self.name} {self.version()}"

    @abc.abstractmethod
    def load(self, fixture: Fixture) -> LoadReport:
        """Materialise ``fixture`` (cached by ``fixture.content_hash``) and verify it.

        Raises :class:`FixtureLoadError` when the read-back row counts or checksums differ from
        ``fixture.checksums``.
        """

    def execute(
        self,
        sql: str,
        fixture: Fixture,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        max_rows: int = DEFAULT_MAX_ROWS,
    ) -> Execution:
        """Run ``sql`` (one or more statements) against ``fixture``; never raises for bad SQL."""
        return self._execute(Request(sql, fixture, timeout, max_rows))

    @abc.abstractmethod
    def _execute(self, request: Request) -> Execution:
        """The adapter's :meth:`execute`: the request's SQL run against its fixture."""

    @abc.abstractmethod
    def checksums(self, fixture: Fixture) -> dict[str, str]:
        """Checksums of the fixture's tables as currently stored (to prove nothing changed)."""

    def close(self) -> None:  # noqa: B027 - optional hook
        """Release connections and temporary files."""

    def __enter__(self) -> Engine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


H = TypeVar("H")


@dataclass(frozen=True)
class Stored(Generic[H]):
    """A fixture materialised on an engine: the engine's handle to it and what load verified."""

    handle: H
    report: LoadReport


class EngineBase(Engine, Generic[H]):
    """The base every adapter builds on: one template :meth:`load` — cache, build, verify
    checksums, discard on failure — and :meth:`checksums` from the same read-back.

    An adapter supplies the hooks: :meth:`_create` (an empty container: a connection, a
    database, a schema) and :meth:`_fill` it, :meth:`_read_back` its rows for verification,
    :meth:`_discard` it; optionally :meth:`_existing` (a container another process built,
    verified instead of rebuilt), :meth:`_ready` (settings once verified), :meth:`_loading`
    (a lock around it all) and :meth:`_usable` (a cached handle still valid).
    """

    # containers kept at most, the least recently used discarded first (rebuilt on next use);
    # None keeps every one (a server's containers may be shared with other processes)
    keep: ClassVar[int | None] = None

    def __init__(self) -> None:
        self._stored: dict[str, Stored[H]] = {}

    def load(self, fixture: Fixture) -> LoadReport:
        if (hit := self._cached(fixture)) is not None:
            return hit
        try:
            with self._loading(fixture):
                if (hit := self._cached(fixture)) is not None:
                    return hit
                started = time.perf_counter()
                handle, report = self._materialise(fixture, started)
        except BaseException as exc:
            self._load_failed(exc)
            raise_load_error(fixture, self.name, exc, self._load_message(exc))
        self._stored[fixture.content_hash] = Stored(handle, report)
        while self.keep is not None and len(self._stored) > self.keep:
            oldest = next(iter(self._stored))
            with contextlib.suppress(Exception):
                self._discard(self._stored.pop(oldest).handle)
        return report

    def checksums(self, fixture: Fixture) -> dict[str, str]:
        return stored_checksums(fixture, self._read_back(self.stored(fixture), fixture))

    def stored(self, fixture: Fixture) -> H:
        """The handle of ``fixture`` (loaded first when new or no longer usable)."""
        self.load(fixture)
        return self._stored[fixture.content_hash].handle

    def _forget(self, fixture: Fixture) -> None:
        """Discard a fixture's container (it is rebuilt on next use), e.g. once broken."""
        stored = self._stored.pop(fixture.content_hash, None)
        if stored is not None:
            with contextlib.suppress(Exception):
                self._discard(stored.handle)

    def close(self) -> None:
        """Discard every container this adapter holds."""
        while self._stored:
            _, stored = self._stored.popitem()
            with contextlib.suppress(Exception):
                self._discard(stored.handle)

    def _cached(self, fixture: Fixture) -> LoadReport | None:
        hit = self._stored.get(fixture.content_hash)
        if hit is None:
            return None
        if not self._usable(hit.handle):
            del self._stored[fixture.content_hash]
            return None
        self._stored[fixture.content_hash] = self._stored.pop(fixture.content_hash)  # recent
        return dataclasses.replace(hit.report, cached=True, seconds=0.0)

    def _materialise(self, fixture: Fixture, started: float) -> tuple[H, LoadReport]:
        """Verify an existing container or build one; nothing half-built is left behind."""
        handle = self._existing(fixture)
        if handle is not None:
            try:
                return self._verified(fixture, handle, started)
            except FixtureLoadError:  # partial or damaged: build afresh
                self._discard(handle)
        handle = self._create(fixture)
        try:
            self._fill(handle, fixture)
            return self._verified(fixture, handle, started)
        except BaseException:
            with contextlib.suppress(Exception):
                self._discard(handle)
            raise

    def _verified(self, fixture: Fixture, handle: H, started: float) -> tuple[H, LoadReport]:
        report = verify_load(
            fixture, self._read_back(handle, fixture), seconds=time.perf_counter() - started
        )
        return self._ready(handle, fixture), report

    def _loading(self, fixture: Fixture) -> contextlib.AbstractContextManager[object]:
        """What a load runs under (a lock shared with other processes; default: nothing)."""
        return contextlib.nullcontext()

    def _existing(self, fixture: Fixture) -> H | None:
        """A container of ``fixture`` that already exists (servers), else None."""
        return None

    def _create(self, fixture: Fixture) -> H:
        """A new, empty container for ``fixture`` (needed unless :meth:`_materialise` is
        replaced, as the URL adapters' race-aware one is)."""
        raise NotImplementedError

    def _fill(self, handle: H, fixture: Fixture) -> None:
        """Create the fixture's tables in the container and insert their rows."""
        raise NotImplementedError

    @abc.abstractmethod
    def _read_back(self, handle: H, fixture: Fixture) -> Mapping[str, Iterable[Sequence[Any]]]:
        """Every table's rows as stored (a table that cannot be read maps to no rows)."""

    @abc.abstractmethod
    def _discard(self, handle: H) -> None:
        """Throw a container away."""

    def _ready(self, handle: H, fixture: Fixture) -> H:
        """The handle once verified (e.g. with the settings executions restore)."""
        return handle

    def _usable(self, handle: H) -> bool:
        """Whether a cached handle still works (e.g. not from an engine since restarted)."""
        return True

    def _load_failed(self, exc: BaseException) -> None:
        """Clean-up after a failed load (e.g. forget a broken connection)."""

    def _load_message(self, exc: BaseException) -> str:
        return trim_message(exc)


def quote_ident(name: str, opener: str = '"', closer: str = '"') -> str:
    """``name`` as a quoted identifier (the closing quote doubled inside)."""
    return opener + name.replace(closer, closer * 2) + closer


def select_all(table: Table, quote: Callable[[str], str], source: str | None = None) -> str:
    """``SELECT`` every column of ``table`` ``FROM source`` (default: the table, quoted)."""
    return (
        f"SELECT {', '.join(quote(c) for c in table.column_names)} "
        f"FROM {source or quote(table.name)}"
    )


def create_table_sql(
    qualified: str,
    table: Table,
    quote_name: Callable[[str], str],
    type_of: Callable[[Column], str],
    *,
    primary_key: bool = True,
    not_null: bool = True,
    suffix: str = "",
) -> str:
    """``CREATE TABLE qualified (col type [NOT NULL], ..., PRIMARY KEY (...))suffix``."""
    cols = [
        f"{quote_name(c.name)} {type_of(c)}" + ("" if c.nullable or not not_null else " NOT NULL")
        for c in table.columns
    ]
    if primary_key and table.primary_key:
        cols.append(f"PRIMARY KEY ({', '.join(quote_name(k) for k in table.primary_key)})")
    return f"CREATE TABLE {qualified} ({', '.join(cols)}){suffix}"


def safe_canonical(value: Any) -> values.Value:
    """:func:`values.canonical`, falling back to the value's text for unknown types."""
    try:
        return values.canonical(value)
    except TypeError:  # a type parrot has no family for (geometry, user-defined types, ...)
        return str(value)


def arrow_arrays(table: Table) -> list[Any]:
    """The table's columns as Arrow arrays of the types that carry its values unchanged."""
    import pyarrow as pa

    types = {
        "integer": pa.int32(),
        "bigint": pa.int64(),
        "double": pa.float64(),
        "text": pa.string(),
        "boolean": pa.bool_(),
        "date": pa.date32(),
        "timestamp": pa.timestamp("us"),
    }
    return [
        pa.array(
            [row[i] for row in table.rows],
            type=pa.decimal128(decimal_precision(c.type), decimal_scale(c.type))
            if c.type.startswith("decimal")
            else types[c.type],
        )
        for i, c in enumerate(table.columns)
    ]


def trim_message(message: object, limit: int = MESSAGE_LIMIT) -> str:
    """An engine message, whitespace-normalised at the ends and cut to ``limit`` characters."""
    text = str(message).strip()
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


# --- fixture load verification --------------------------------------------------------------------


def verify_load(
    fixture: Fixture, stored: Mapping[str, Iterable[Sequence[Any]]], *, seconds: float = 0.0
) -> LoadReport:
    """Compare the rows read back from an engine with the fixture's declared rows.

    ``stored`` maps every table name to the rows as the engine returns them (any stand-in values
    :func:`parrot.fixtures.cell_text` understands). Returns the :class:`LoadReport` when row
    counts and checksums match; raises :class:`FixtureLoadError` naming every mismatch (with a
    sample of differing rows) otherwise.
    """
    row_counts: dict[str, int] = {}
    checksums: dict[str, str] = {}
    mismatches: list[str] = []
    for table in fixture.tables:
        rows = [tuple(r) for r in stored.get(table.name, ())]
        row_counts[table.name] = len(rows)
        checksums[table.name] = table_checksum(table, rows)
        if len(rows) != len(table.rows):
            mismatches.append(f"{table.name}: {len(rows)} rows stored, {len(table.rows)} declared")
        if checksums[table.name] != fixture.checksums[table.name]:
            mismatches.append(
                f"{table.name}: checksum {checksums[table.name]} != declared "
                f"{fixture.checksums[table.name]}"
                + _row_diff(table.rows, rows, [c.type for c in table.columns])
            )
    report = LoadReport(
        fixture=fixture.name,
        row_counts=row_counts,
        checksums=checksums,
        seconds=seconds,
        mismatches=tuple(mismatches),
    )
    if mismatches:
        raise FixtureLoadError(
            f"fixture {fixture.name!r} is not stored faithfully: " + "; ".join(mismatches)
        )
    return report


def raise_load_error(
    fixture: Fixture, engine: str, exc: BaseException, message: str | None = None
) -> NoReturn:
    """Re-raise a failure while materialising ``fixture``: verification failures and
    interrupts as they are, engine errors (a value out of a type's range, ...) as
    :class:`FixtureLoadError` (with ``message``, else the exception's own, trimmed)."""
    if isinstance(exc, FixtureLoadError) or not isinstance(exc, Exception):
        raise exc
    raise FixtureLoadError(
        f"fixture {fixture.name!r} could not be stored on {engine}: {message or trim_message(exc)}"
    ) from exc


def stored_checksums(
    fixture: Fixture, stored: Mapping[str, Iterable[Sequence[Any]]]
) -> dict[str, str]:
    """Checksums of the rows as stored (a missing table checksums as empty)."""
    return {
        t.name: table_checksum(t, [tuple(r) for r in stored.get(t.name, ())])
        for t in fixture.tables
    }


def _row_diff(
    declared: Iterable[Sequence[Any]],
    stored: Iterable[Sequence[Any]],
    types: Sequence[str],
    sample: int = 2,
) -> str:
    def texts(rows: Iterable[Sequence[Any]]) -> Counter[str]:
        out: Counter[str] = Counter()
        for row in rows:
            try:
                out[
                    json.dumps(
                        [cell_text(v, t) for v, t in zip(row, types, strict=True)],
                        ensure_ascii=False,
                    )
                ] += 1
            except (TypeError, ValueError, ArithmeticError):
                out[repr(tuple(row))] += 1
        return out

    want, got = texts(declared), texts(stored)
    missing = list((want - got).elements())[:sample]
    extra = list((got - want).elements())[:sample]
    parts = []
    if missing:
        parts.append("declared but not stored: " + ", ".join(missing))
    if extra:
        parts.append("stored but not declared: " + ", ".join(extra))
    return f" ({'; '.join(parts)})" if parts else ""
