"""What the adapters of servers reached by URL share: URLs, a table-driven statement guard,
error classification by driver codes, a DB-API execution loop and a verifying fixture loader.

Each adapter (``oracle``, ``tsql``, ``trino``, ``snowflake``, ``clickhouse.server``) is mostly
class-level facts — URL schemes, identifier quoting and case folding, the portable type map, a
:class:`Guard`, an :class:`ErrorTable`, value converters — plus a few hooks: how to connect, how
to arm a statement timeout, how to cancel, how to isolate one execution. Its driver is imported
lazily (:func:`import_driver`), when an adapter is constructed, never when parrot is imported;
a missing driver is an :class:`~parrot.engines.UnknownEngineError` naming the pip extra.

API
---
* :class:`ServerURL` — ``scheme://user:password@host:port/path?k=v`` parsed once. Its ``str``
  and ``repr`` never show the password or secret query parameters (``redacted()``), and
  :meth:`ServerURL.scrub` removes them from any message.
* The guard and the error table are the ones every engine uses
  (:class:`~parrot.engines.statements.Guard`, :class:`~parrot.engines.statements.ErrorTable`):
  ``guard.plan(texts)`` gives plans or a refusal (``ExecStatus.UNSUPPORTED``); a driver error
  not in the table is a runtime error, anything that is not a driver error an engine error.
* :class:`ServerEngine` — an :class:`~parrot.engines.base.Engine` whose ``load`` creates one
  container (schema or database) per fixture content hash, ``<prefix><hash>``, fills it,
  reads it back and verifies it (:func:`base.verify_load`), shared by every adapter
  instance and process (an existing container is verified instead of reloaded, and rebuilt when
  it fails), and whose ``execute`` splits a script, runs the guard, then hands the plans (a
  :class:`~parrot.engines.statements.Script`) and the container to the adapter's
  ``_execute_plans`` (isolation), which usually calls :meth:`ServerEngine._run`: per
  statement the adapter's timeout is armed, a :class:`~parrot.engines.statements.Watchdog`
  cancels at the deadline, at most ``max_rows + 1`` rows are fetched (``fetchmany``) and errors
  are classified by the error table.
* Helpers: :func:`fetch_capped`, :func:`insert_chunks`, :func:`interval`, :func:`json_value`
  (and, from :mod:`parrot.engines.base`, :func:`create_table_sql`, :func:`safe_canonical`).
"""

from __future__ import annotations

import abc
import contextlib
import dataclasses
import datetime as dt
import importlib
import json
import math
import re
import secrets
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, ClassVar
from urllib.parse import parse_qsl, quote, unquote, urlsplit

from parrot import values
from parrot.api.secrets import SECRET_PARAMS, redact_url
from parrot.engines import UnknownEngineError, url_from_env
from parrot.engines import statements as st
from parrot.engines.base import (
    EngineBase,
    ExecStatus,
    Execution,
    FixtureLoadError,
    LoadReport,
    Request,
    create_table_sql,
    quote_ident,
    safe_canonical,
    select_all,
)
from parrot.fixtures import Column, Fixture, Table, is_plain

FIXTURE_PREFIX = "parrot_fx_"
SCRATCH_PREFIX = "parrot_sx_"
CONNECT_TIMEOUT = 10  # seconds
LOAD_WAIT = 120.0  # seconds to wait for another process building the same fixture
FETCH_CHUNK = 1000  # rows per fetchmany call
INSERT_CHARS = 400_000  # characters of one INSERT ... VALUES statement with literals
LABEL_RETRY = 60.0  # seconds before an unreachable server is asked for its version again


# --- drivers --------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class DriverSpec:
    """An adapter's DB-API driver: the module imported, the pip package and the parrot extra
    that install it, and what else the install hint says (system libraries)."""

    module: str
    package: str
    extra: str
    note: str = ""


def import_driver(spec: DriverSpec, engine: str) -> Any:
    """Import an adapter's driver, or raise an UnknownEngineError saying how to install it."""
    try:
        return importlib.import_module(spec.module)
    except ImportError as exc:
        raise UnknownEngineError(
            f"the {engine} engine needs the Python package {spec.package!r}: "
            f"pip install 'parrot-sql[{spec.extra}]'{spec.note} ({type(exc).__name__}: {exc})"
        ) from None


# --- URLs -----------------------------------------------------------------------------------------

_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off")


@dataclasses.dataclass(frozen=True)
class ServerURL:
    """A server URL split into parts; printing it never shows a secret."""

    scheme: str  # without any "+driver" suffix
    host: str
    port: int | None
    user: str | None
    password: str | None = dataclasses.field(repr=False, compare=False)
    path: tuple[str, ...] = ()  # non-empty path segments, unquoted
    params: tuple[tuple[str, str], ...] = ()  # query parameters in order (keys lower-cased)
    driver: str | None = None  # "oracledb" in oracle+oracledb://

    @classmethod
    def parse(cls, url: str, schemes: Sequence[str], example: str) -> ServerURL:
        parts = urlsplit(url.strip())
        scheme, _, driver = parts.scheme.lower().partition("+")
        if scheme not in schemes:
            raise ValueError(
                f"not a {'/'.join(schemes)} URL: {redact_url(url)!r} (expected {example})"
            )
        try:
            port = parts.port
        except ValueError:
            raise ValueError(f"bad port in {redact_url(url)!r}") from None
        if not parts.hostname:
            raise ValueError(f"no host in {redact_url(url)!r} (expected {example})")
        return cls(
            scheme=scheme,
            host=parts.hostname,
            port=port,
            user=unquote(parts.username) if parts.username else None,
            password=unquote(parts.password) if parts.password is not None else None,
            path=tuple(unquote(p) for p in parts.path.split("/") if p),
            params=tuple((k.lower(), v) for k, v in parse_qsl(parts.query, keep_blank_values=True)),
            driver=driver or None,
        )

    def param(self, name: str, default: str | None = None) -> str | None:
        """The last value of query parameter ``name`` (case-insensitive), or ``default``."""
        found = [v for k, v in self.params if k == name.lower()]
        return found[-1] if found else default

    def flag(self, name: str, default: bool) -> bool:
        raw = self.param(name)
        if raw is None or raw == "":
            return default
        if raw.lower() in _TRUE:
            return True
        if raw.lower() in _FALSE:
            return False
        raise ValueError(f"URL parameter {name}={raw!r} is not a yes/no value")

    @property
    def secrets(self) -> tuple[str, ...]:
        out = [v for k, v in self.params if k in SECRET_PARAMS and v]
        if self.password:
            out.append(self.password)
        return tuple(sorted(set(out), key=len, reverse=True))

    def address(self, default_port: int | None = None) -> str:
        port = self.port or default_port
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{host}:{port}" if port else host

    def redacted(self) -> str:
        auth = ""
        if self.user is not None:
            auth = quote(self.user, safe="") + (":***" if self.password is not None else "") + "@"
        path = "/" + "/".join(quote(p, safe="") for p in self.path) if self.path else ""
        query = "&".join(
            f"{k}={'***' if k in SECRET_PARAMS else quote(v, safe='')}" for k, v in self.params
        )
        scheme = f"{self.scheme}+{self.driver}" if self.driver else self.scheme
        return f"{scheme}://{auth}{self.address()}{path}" + (f"?{query}" if query else "")

    def scrub(self, text: object) -> str:
        """``text`` without any of this URL's secrets (also URL-quoted forms)."""
        out = redact_url(str(text))
        for secret in self.secrets:
            out = out.replace(secret, "***").replace(quote(secret, safe=""), "***")
        return out

    def __str__(self) -> str:
        return self.redacted()

    def __repr__(self) -> str:
        return f"ServerURL({self.redacted()!r})"


def default_url(dialect: str) -> str:
    """``$PARROT_<DIALECT>_URL``, or an UnknownEngineError saying how to name a server."""
    url = url_from_env(dialect)
    if url is None:
        raise UnknownEngineError(
            f"no {dialect} server: pass --engine {dialect}=URL or set "
            f"PARROT_{dialect.upper()}_URL (parrot.connect.create_engine "
            "also finds the server `python -m parrot.engines up` started)"
        )
    return url


# --- rows -----------------------------------------------------------------------------------------


def fetch_capped(cursor: Any, max_rows: int, chunk: int = FETCH_CHUNK) -> list[Sequence[Any]]:
    """At most ``max_rows`` rows of the current result; raises :class:`Overflow` when there are
    more (the caller cancels the rest)."""
    rows: list[Sequence[Any]] = []
    while True:
        batch = cursor.fetchmany(max(1, min(chunk, max_rows + 1 - len(rows))))
        if not batch:
            return rows
        rows.extend(batch)
        if len(rows) > max_rows:
            raise st.Overflow


def interval(seconds: float) -> values.Nested:
    """An interval as the other adapters render it (a month counts 30 days, a year 360)."""
    return values.Nested(json.dumps({"interval_seconds": seconds}))


def months_interval(years: int, months: int, days: float = 0.0) -> values.Nested:
    return interval(((years * 12 + months) * 30 + days) * 86400.0)


def json_value(text: Any) -> values.Value:
    """JSON text (VARIANT, JSON columns) → Nested; invalid JSON stays text."""
    if not isinstance(text, str | bytes):
        return safe_canonical(text)
    try:
        parsed = json.loads(text)
    except ValueError:
        return text if isinstance(text, str) else bytes(text)
    if isinstance(parsed, dict | list):
        return values.canonical(parsed)
    return values.Nested(json.dumps(parsed, sort_keys=True, separators=(",", ":")))


def utc_naive(value: dt.datetime) -> dt.datetime:
    if value.tzinfo is None:
        return value
    return value.astimezone(dt.UTC).replace(tzinfo=None)


# --- DDL and bulk loading -------------------------------------------------------------------------


def insert_chunks(
    table: Table, *, max_rows: int, max_params: int | None = None
) -> Iterator[tuple[tuple[Any, ...], ...]]:
    """The table's rows in chunks of at most ``max_rows`` rows and ``max_params`` values."""
    per = max_rows
    if max_params is not None:
        per = max(1, min(per, max_params // max(len(table.columns), 1)))
    for i in range(0, len(table.rows), per):
        yield table.rows[i : i + per]


@dataclasses.dataclass(frozen=True)
class Literals:
    """How an adapter writes a fixture value as SQL of its column's type (the ``literal`` its
    INSERTs use): NULL, TRUE/FALSE and quoted strings alike, the other types by ``templates``."""

    types: Callable[[Column], str]  # the column's type on the engine (a TypeMap)
    string: Callable[[str], str]  # a text value as a quoted string
    specials: tuple[str, str, str]  # NaN, +infinity and -infinity as the engine reads them
    # per portable type ("decimal" for every decimal(p,s); default "{v}"): "{v}" the value's
    # text, "{t}" the column's type on the engine
    templates: Mapping[str, str]

    def __call__(self, value: Any, column: Column) -> str:
        if value is None:
            return "NULL"
        if column.type == "boolean":
            return "TRUE" if value else "FALSE"
        if column.type == "text":
            return self.string(str(value))
        kind = "decimal" if column.type.startswith("decimal") else column.type
        template = self.templates.get(kind, "{v}")
        return template.format(v=self._text(value, kind), t=self.types(column))

    def _text(self, value: Any, kind: str) -> str:
        if kind == "double":
            f = float(value)
            if math.isnan(f):
                return self.specials[0]
            return self.specials[1 if f > 0 else 2] if math.isinf(f) else repr(f)
        if kind == "date":
            return str(value.isoformat())
        if kind == "timestamp":
            return str(value.isoformat(sep=" ", timespec="microseconds"))
        if kind == "decimal":
            return format(value, "f")
        return str(int(value))


def values_inserts(
    table: Table,
    head: str,
    literal: Callable[[Any, Column], str],
    max_chars: int = INSERT_CHARS,
    max_rows: int = 10_000,
) -> list[str]:
    """``head VALUES (...), (...)`` statements holding the table's rows as literals, each at
    most about ``max_chars`` long and ``max_rows`` rows (servers limit both)."""
    out: list[str] = []
    rows: list[str] = []
    size = 0
    for row in table.rows:
        text = "(" + ", ".join(literal(v, c) for v, c in zip(row, table.columns, strict=True)) + ")"
        if rows and (size + len(text) > max_chars or len(rows) >= max_rows):
            out.append(f"{head} VALUES " + ", ".join(rows))
            rows, size = [], 0
        rows.append(text)
        size += len(text) + 2
    if rows:
        out.append(f"{head} VALUES " + ", ".join(rows))
    return out


def text_bytes(table: Table, column: Column) -> int:
    """The longest UTF-8 encoding of a text column's values (0 for an empty table)."""
    at = table.columns.index(column)
    return max((len(str(r[at]).encode()) for r in table.rows if r[at] is not None), default=0)


def float_specials(fixture: Fixture) -> list[str]:
    """``table.column`` of every double column holding NaN or an infinity."""
    out = []
    for table in fixture.tables:
        for at, column in enumerate(table.columns):
            if column.type == "double" and any(
                isinstance(r[at], float) and (math.isnan(r[at]) or math.isinf(r[at]))
                for r in table.rows
            ):
                out.append(f"{table.name}.{column.name}")
    return out


# --- the adapter base -----------------------------------------------------------------------------


class ContainerExists(Exception):
    """Another process created the fixture's container first."""


class ServerEngine(EngineBase[str]):
    """Base of the adapters for servers reached by URL (see the module docstring)."""

    # --- class-level facts (set by each adapter) ---
    url_example: ClassVar[str]
    default_port: ClassVar[int | None] = None
    driver_spec: ClassVar[DriverSpec]
    guard: ClassVar[st.Guard]
    errors: ClassVar[st.ErrorTable]
    literal: ClassVar[Literals]  # a fixture value as SQL (for _insert)
    quote_chars: ClassVar[tuple[str, str]] = ('"', '"')
    fold: ClassVar[str | None] = None  # "upper"/"lower": how unquoted identifiers are stored
    home: str | None = None  # the database or catalog whose schemas are the containers, if any
    multiple_results: ClassVar[bool] = False  # a statement may return several result sets
    rename_builds: ClassVar[bool] = False  # build a fixture under a temporary name, then rename
    admin_fetches: ClassVar[bool] = False  # read the results of every admin statement
    cancel_grace: ClassVar[float] = 0.3  # seconds past the deadline before the watchdog fires

    def __init__(self, url: str | None = None) -> None:
        super().__init__()
        self.url = ServerURL.parse(
            url or default_url(self.dialect), self.url_schemes or (), self.url_example
        )
        self._driver: Any = None
        self.driver  # noqa: B018 - fail at construction when the driver is missing
        self._token = secrets.token_hex(4)
        self._counter = 0
        self._version: str | None = None
        self._admin: Any = None  # the URL's user's connection: loads and drops fixtures
        self._runner: Any = None  # the connection executions run on (adapters that keep one)
        self.sandboxed: bool | None = None  # writing scripts can run sandboxed (None: unknown)
        self.sandbox_error: str | None = None  # why they cannot
        self._label_retry = 0.0  # monotonic time before which an unreachable label is reused
        self._closed = False

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.url.redacted()!r})"

    # --- identity -----------------------------------------------------------------------------

    @property
    def driver(self) -> Any:
        if self._driver is None:
            self._driver = import_driver(self.driver_spec, self.name)
        return self._driver

    def version(self) -> str:
        if self._version is None:
            self._version = self._ask_version()
        return self._version

    @abc.abstractmethod
    def _ask_version(self) -> str:
        """The server's version string (asked once)."""

    @property
    def label(self) -> str:
        """``name (version)``; when the server cannot be reached, says so (and asks again at
        most once a minute: reports ask for the label after every execution)."""
        if self._version is None and time.monotonic() < self._label_retry:
            return self._unreachable
        try:
            return f"{self.name} ({self.version()})"
        except Exception:
            self._label_retry = time.monotonic() + LABEL_RETRY
            return self._unreachable

    @property
    def _unreachable(self) -> str:
        return f"{self.name} (unreachable at {self.url.address(self.default_port)})"

    @classmethod
    def quote(cls, name: str) -> str:
        """``name`` as a quoted identifier (the closing quote doubled inside)."""
        return quote_ident(name, *cls.quote_chars)

    @classmethod
    def folded(cls, name: str) -> str:
        """``name`` as SQL finds it: a plain name as the server stores it unquoted, others exact."""
        if not is_plain(name):
            return name
        if cls.fold == "upper":
            return name.upper()
        if cls.fold == "lower":
            return name.lower()
        return name

    @classmethod
    def ident(cls, name: str) -> str:
        """A fixture name, quoted, as unquoted SQL naming it finds it."""
        return cls.quote(cls.folded(name))

    def container(self, fixture: Fixture) -> str:
        return self.folded(FIXTURE_PREFIX + fixture.content_hash)

    def scratch_name(self) -> str:
        self._counter += 1
        return self.folded(f"{SCRATCH_PREFIX}{self._token}_{self._counter}")

    def message(self, exc: BaseException) -> str:
        """An error message fit for a report: no secrets, parrot's own names made stable."""
        text = self.url.scrub(self._raw_message(exc))
        text = re.sub(r"(?i)parrot_(?:fx|sx)_[0-9a-z_]+", "parrot_db", text)
        return st.trim_message(text)

    def _raw_message(self, exc: BaseException) -> str:
        return str(exc) or type(exc).__name__

    def driver_errors(self) -> tuple[type[BaseException], ...]:
        """The driver's exception base classes."""
        return (self.driver.Error,)

    # --- the admin connection -----------------------------------------------------------------

    def _connect(self) -> Any:
        """A new connection with the URL's credentials (for the admin helpers below)."""
        raise NotImplementedError(f"{type(self).__name__} connects its own way")

    def _admin_conn(self) -> Any:
        if self._admin is None:
            self._admin = self._connect()
        return self._admin

    def _admin_rows(self, sql: str, *args: Any) -> list[Sequence[Any]]:
        """The rows one statement returns on the admin connection ([] for none)."""
        cur = self._admin_conn().cursor()
        try:
            cur.execute(sql, *args)
            return list(cur.fetchall()) if cur.description or self.admin_fetches else []
        finally:
            st.close_quietly(cur)

    def _admin_sql(self, sql: str, *args: Any) -> None:
        """Run one statement on the admin connection."""
        self._admin_rows(sql, *args)

    # --- fixtures -----------------------------------------------------------------------------

    def check_fixture(self, fixture: Fixture) -> None:
        """Raise FixtureLoadError for data this engine cannot store faithfully (before any
        work on the server)."""

    def _load_failed(self, exc: BaseException) -> None:
        if isinstance(exc, Exception) and not isinstance(exc, FixtureLoadError):
            self._reset()

    def _load_message(self, exc: BaseException) -> str:
        return self.message(exc)

    def _materialise(self, fixture: Fixture, started: float) -> tuple[str, LoadReport]:
        """Verify an existing container or build it; under the engine's load lock if it has
        one, else racing builders are detected by ContainerExists and waited for."""
        self.check_fixture(fixture)
        container = self.container(fixture)
        wait_until = time.monotonic() + LOAD_WAIT
        raced = False
        with self._load_lock(container):
            while True:
                if time.monotonic() > wait_until + 30:
                    raise FixtureLoadError(
                        f"gave up waiting for another process to load "
                        f"{fixture.name!r} on {self.name}"
                    )
                if self._container_exists(container):
                    try:
                        _, report = self._verified(fixture, container, started)
                    except FixtureLoadError:
                        if (
                            raced or self._maybe_loading(container)
                        ) and time.monotonic() < wait_until:
                            time.sleep(1.0)  # probably still being filled by another process
                            continue
                        self._drop_container(container)  # partial or damaged: rebuild
                    else:
                        self._after_load(container, fixture)
                        return container, report
                try:
                    self._build(fixture, container)
                except ContainerExists:
                    raced = True
                    time.sleep(0.5)
                    continue
                try:
                    _, report = self._verified(fixture, container, started)
                except FixtureLoadError:  # stored unfaithfully: leave nothing behind
                    with contextlib.suppress(Exception):
                        self._drop_container(container)
                    raise
                self._after_load(container, fixture)
                return container, report

    def _load_lock(self, container: str) -> contextlib.AbstractContextManager[object]:
        """A server-side lock serialising loaders of one container (default: none)."""
        return contextlib.nullcontext()

    def _maybe_loading(self, container: str) -> bool:
        """Whether a container that fails verification may still be filled by another process
        (True: wait up to LOAD_WAIT seconds for it before dropping it)."""
        return False

    def _build(self, fixture: Fixture, container: str) -> None:
        """Create ``container`` (raise ContainerExists when it appeared meanwhile) and fill it;
        drop it again when filling fails. With ``rename_builds`` it is built under a name of
        its own and renamed into place, so it never exists half-filled."""
        target = self.folded(f"{container}_b{self._token}") if self.rename_builds else container
        self._create_container(target)
        try:
            for table in fixture.tables:
                self._create_table(target, table)
                self._insert(target, table)
            if target != container:
                self._rename_container(target, container)
        except BaseException:
            with contextlib.suppress(Exception):
                self._drop_container(target)
            raise

    def _rename_container(self, built: str, container: str) -> None:
        """Rename a container built under another name (raise ContainerExists when
        ``container`` exists already)."""
        raise NotImplementedError

    def _after_load(self, container: str, fixture: Fixture) -> None:
        """Grants or other set-up once the container is verified."""

    def _read_back(self, container: str, fixture: Fixture) -> dict[str, list[Sequence[Any]]]:
        return st.read_tables(
            fixture, lambda t: self._read_table(container, t), self.driver_errors()
        )

    def _discard(self, container: str) -> None:
        self._drop_container(container)

    def _container_exists(self, container: str) -> bool:
        """Whether schema ``container`` exists in ``home`` (adapters without one ask their own
        catalog)."""
        return bool(
            self._admin_rows(
                f"SELECT 1 FROM {self.quote(self.home or '')}."
                f"information_schema.schemata "
                f"WHERE schema_name = '{container}'"
            )
        )

    @abc.abstractmethod
    def _create_container(self, container: str) -> None: ...

    @abc.abstractmethod
    def _drop_container(self, container: str) -> None: ...

    def table_ddl(self, container: str, table: Table) -> str:
        """The CREATE TABLE statement of a fixture table."""
        raise NotImplementedError(f"{type(self).__name__} creates its tables its own way")

    def _create_table(self, container: str, table: Table) -> None:
        self._admin_sql(self.table_ddl(container, table))

    def _insert(self, container: str, table: Table) -> None:
        """Fill a table: by default ``INSERT ... VALUES`` statements of ``literal`` values."""
        head = (
            f"INSERT INTO {self.qualified(container, table.name)} "
            f"({', '.join(self.ident(c) for c in table.column_names)})"
        )
        for sql in values_inserts(table, head, type(self).literal):
            self._admin_sql(sql)

    def qualified(self, container: str, table: str | None = None) -> str:
        """A container's name (inside ``home``), or with ``table`` one of its tables'."""
        out = (
            self.quote(container)
            if self.home is None
            else f"{self.quote(self.home)}.{self.quote(container)}"
        )
        return out if table is None else f"{out}.{self.ident(table)}"

    def _read_table(self, container: str, table: Table) -> list[Sequence[Any]]:
        """The table's rows as stored, converted so that :func:`fixtures.cell_text` reads them
        as the portable types (e.g. an Oracle DATE at midnight → date)."""
        return self._admin_rows(
            select_all(table, self.ident, self.qualified(container, table.name))
        )

    # --- execution ----------------------------------------------------------------------------

    def plan(self, texts: Sequence[str]) -> list[st.Plan] | str:
        """The guard's plans of the statements, or why one is refused."""
        return self.guard.plan(texts)

    def _execute(self, request: Request) -> Execution:
        texts = st.splitter(self.dialect).split(request.sql)
        if not texts:
            return Execution(ExecStatus.SYNTAX_ERROR, error=st.NO_STATEMENT)
        plans = self.plan(texts)
        if isinstance(plans, str):
            return Execution(ExecStatus.UNSUPPORTED, error=self.url.scrub(plans))
        fixture = request.fixture
        try:
            self.load(fixture)
        except FixtureLoadError as exc:
            if exc.__cause__ is None:
                raise  # the fixture itself cannot be stored faithfully
            return Execution(ExecStatus.ENGINE_ERROR, error=st.trim_message(exc))
        container = self._stored[fixture.content_hash].handle
        script = st.Script(plans, fixture, st.Deadline(request.timeout), request.max_rows)
        try:
            return self._execute_plans(script, container)
        except Exception as exc:  # the sandbox itself failed (connection, set-up, clean-up)
            self._reset()
            text = self.message(exc)
            if not isinstance(exc, self.driver_errors()):
                text = st.trim_message(f"{type(exc).__name__}: {text}")
            return Execution(ExecStatus.ENGINE_ERROR, error=text)

    @abc.abstractmethod
    def _execute_plans(self, script: st.Script, container: str) -> Execution:
        """Isolate one execution (connection, transaction, scratch copy) of the fixture stored
        in ``container`` and run it, usually through :meth:`_run`."""

    def _run(
        self,
        cursor: Any,
        script: st.Script,
        *,
        between: Callable[[], str | None] | None = None,
    ) -> Execution:
        """The generic DB-API loop: per statement arm the timeout, watch the deadline, fetch at
        most ``max_rows + 1`` rows, classify failures; ``between`` may stop the script after a
        statement (e.g. "a statement ended parrot's transaction")."""
        deadline, max_rows = script.deadline, script.max_rows

        def run(plan: st.Plan, remaining: float) -> tuple[values.ResultSet, bool] | None:
            self._arm_timeout(cursor, remaining)
            try:
                fetched = self._statement(cursor, plan, max_rows)
            except st.Overflow:
                self._cancel(cursor)
                raise
            return None if fetched is None else (fetched, False)

        def classify(exc: BaseException, fired: bool) -> ExecStatus:
            status = self.errors.classify(
                exc, cancelled=fired or deadline.expired, driver_errors=self.driver_errors()
            )
            if status is ExecStatus.ENGINE_ERROR:
                self._reset()
            return status

        return st.run_in_order(
            script.plans,
            deadline,
            max_rows,
            run,
            lambda: self._cancel(cursor),
            classify,
            self.message,
            self.cancel_grace,
            after=between,
            engine_message=self.message,
        )

    def _statement(self, cursor: Any, plan: st.Plan, max_rows: int) -> values.ResultSet | None:
        """Run one statement; its last result set (capped), or None when it returns no rows."""
        cursor.execute(self._statement_text(plan))
        last: values.ResultSet | None = None
        while True:
            if cursor.description:
                last = self._result(cursor.description, fetch_capped(cursor, max_rows))
            if not self.multiple_results or not cursor.nextset():
                return last

    def _statement_text(self, plan: st.Plan) -> str:
        return plan.text

    def _result(
        self, description: Sequence[Sequence[Any]], rows: Sequence[Sequence[Any]]
    ) -> values.ResultSet:
        convert = [self._converter(d) for d in description]
        canon = tuple(
            tuple(
                safe_canonical(f(v)) if v is not None else None
                for f, v in zip(convert, row, strict=True)
            )
            for row in rows
        )
        return values.ResultSet(
            tuple(str(d[0]) for d in description),
            canon,
            tuple(self._type_name(d) for d in description),
        )

    def _converter(self, column: Sequence[Any]) -> Callable[[Any], Any]:
        """How to turn one column's driver values into plain Python values."""
        return _identity

    def _type_name(self, column: Sequence[Any]) -> str:
        code = column[1]
        return str(getattr(code, "name", None) or getattr(code, "__name__", None) or code)

    @abc.abstractmethod
    def _arm_timeout(self, cursor: Any, seconds: float) -> None:
        """Make the engine itself stop the next statement after ``seconds``."""

    @abc.abstractmethod
    def _cancel(self, cursor: Any) -> None:
        """Cancel what ``cursor`` runs (called from the watchdog thread)."""

    def _reset(self) -> None:
        """Forget connections after a failure (the next call reconnects)."""
        self._drop_runner()
        admin, self._admin = self._admin, None
        st.close_quietly(admin)

    def _drop_runner(self) -> None:
        runner, self._runner = self._runner, None
        st.close_quietly(runner)

    def close(self) -> None:
        self._closed = True
        self._reset()
        self._stored.clear()


def _identity(value: Any) -> Any:
    return value


__all__ = [
    "FIXTURE_PREFIX",
    "SCRATCH_PREFIX",
    "ContainerExists",
    "DriverSpec",
    "Literals",
    "ServerEngine",
    "ServerURL",
    "create_table_sql",
    "default_url",
    "fetch_capped",
    "float_specials",
    "import_driver",
    "insert_chunks",
    "interval",
    "json_value",
    "months_interval",
    "redact_url",
    "safe_canonical",
    "text_bytes",
    "utc_naive",
    "values_inserts",
]
