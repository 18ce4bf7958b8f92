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
from dataclasses import dataclass, field
from enum import StrEnum
from typing import ClassVar

from parrot.fixtures import Fixture
from parrot.values import ResultSet

DEFAULT_TIMEOUT = 10.0  # seconds per execution
DEFAULT_MAX_ROWS = 100_000


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
    """Class-level facts about an engine (ibis-style capability flags)."""

    booleans: bool  # has a boolean type that comparisons return
    transactional_ddl: bool  # CREATE/DROP can be rolled back
    udfs: bool  # translations may define functions (CREATE FUNCTION / MACRO)
    procedures: bool
    decimals: bool  # exact DECIMAL arithmetic
    timestamps_us: bool  # timestamps keep microseconds
    in_process: bool  # runs inside the parrot process (no server)


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

    @abc.abstractmethod
    def execute(self, sql: str, fixture: Fixture, *, timeout: float = DEFAULT_TIMEOUT,
                max_rows: int = DEFAULT_MAX_ROWS) -> Execution:
        """Run ``sql`` (one or more statements) against ``fixture``; never raises for bad SQL."""

    @abc.abstractmethod
    def checksums(self, fixture: Fixture) -> dict[str, str]:
        """Checksums of the fixture's tables as currently stored (to prove nothing changed)."""

    def close(self) -> None:  # noqa: B027 - optional hook
        """Release connections and temporary files."""

    def __enter__(self) -> Engine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
