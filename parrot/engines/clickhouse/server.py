"""ClickHouse server adapter (clickhouse-connect over HTTP), for your own server reached by URL —
``--engine clickhouse=clickhouse://...`` replaces the in-process chdb engine for the
``clickhouse`` dialect.

``clickhouse://user:password@host:8123/`` (``clickhouses://`` or ``?secure=yes`` for HTTPS,
default port 8443; ``?verify=no`` skips certificate checks), given as ``--engine
clickhouse=URL`` or ``$PARROT_CLICKHOUSE_URL``. Driver: ``pip install
'parrot-sql[clickhouse-server]'`` (clickhouse-connect).

What it shares with the chdb adapter (:mod:`parrot.engines.clickhouse`): the statement guard,
the type map, literal rendering for loading, and reading results as
``CustomSeparatedWithNamesAndTypes`` with Quoted escaping, converted by their exact ClickHouse
types — so chdb and a server canonicalise values identically.

**Fixtures.** One database per fixture content hash, ``parrot_fx_<hash>``, built under a name
of its own and renamed into place (``RENAME DATABASE``; a concurrent loader that wins just
means verifying its database), shared by every adapter instance and process: an existing
database is verified (row counts + checksums) instead of reloaded, and rebuilt when it fails.
Type map as chdb's: integer → Int32, bigint → Int64, double → Float64, decimal(p,s) →
Decimal(p, s), text → String, boolean → Bool, date → Date32, timestamp → DateTime64(6),
``Nullable(...)`` for nullable columns; ``MergeTree ORDER BY tuple()`` tables in the server's
default database engine. Drop them with ``DROP DATABASE parrot_fx_<hash>`` when done.

**Isolation.** ClickHouse has no rollback; each script is classified from its statements:

* *read-only* (SELECT/WITH/SHOW/DESCRIBE/EXPLAIN/EXISTS/SET): runs on the fixture database with
  ``readonly = 2`` on every request (the server refuses any write; ``readonly`` cannot be
  lowered);
* *writing* (views, ``CREATE FUNCTION``, temporary tables, INSERT, ALTER, ...): runs as
  ``parrot_runner`` — a user parrot creates, granted ALL on one scratch database
  ``parrot_sx_<token>_<n>`` at a time plus CREATE/DROP FUNCTION, nothing else — on that scratch
  database holding ``CLONE AS`` copies of the fixture tables (or ``AS`` + ``INSERT SELECT`` on
  servers without CLONE), dropped afterwards with the SQL functions the script created. SQL
  functions are global on a server: a script creating one that already exists is refused, and
  ``CREATE OR REPLACE FUNCTION``/``DROP FUNCTION`` of functions it did not create are refused.
  When the URL's user cannot create users or grant (no ``access_management``), ``sandboxed`` is
  False, ``sandbox_error`` says why, and writing scripts are refused (UNSUPPORTED) rather than
  run with the URL's rights.

The guard is chdb's (ATTACH/DETACH, SYSTEM, KILL, BACKUP/RESTORE, GRANT/REVOKE, USE,
transactions, access entities, databases, dictionaries, table functions and engines reaching
files/URLs/other servers, INTO OUTFILE, a query's own FORMAT, the settings parrot relies on, any
``parrot_`` database) plus, for a shared server: ``ON CLUSTER``, FREEZE/UNFREEZE, FETCH
PARTITION and MOVE ... TO TABLE. Every execution uses its own HTTP session (SET statements last
for the script, temporary tables die with it).

**Timeouts**: ``max_execution_time`` per request (the remaining budget) plus a watchdog running
``KILL QUERY WHERE query_id = ...`` at the deadline → TIMEOUT. **Result cap**: the result is
streamed and read up to ``max_rows + 1`` rows, then the query is killed → TOO_LARGE. **Errors**
by ClickHouse error code: 62 → SYNTAX_ERROR; 159 → TIMEOUT; 394 (QUERY_WAS_CANCELLED) → TIMEOUT
when parrot killed it; 164 (READONLY), 497 (ACCESS_DENIED), 291, 452 → UNSUPPORTED; network and
authentication failures → ENGINE_ERROR; other codes RUNTIME_ERROR.

**Settings** per request: ``session_timezone = 'UTC'``, ``format_custom_escaping_rule =
'Quoted'``, ``max_execution_time``, and ``readonly = 2`` for read-only scripts. Everything else
keeps the server's (or the user's profile's) values — which may differ from chdb's defaults.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import re
import secrets
from collections.abc import Callable, Iterator, Sequence
from typing import Any, ClassVar

from parrot import values
from parrot.engines import clickhouse as ch
from parrot.engines import statements as st
from parrot.engines.base import Capabilities, ExecStatus, Execution, select_all
from parrot.engines.dbapi import (
    CONNECT_TIMEOUT,
    ContainerExists,
    DriverSpec,
    ServerEngine,
    ServerURL,
    fetch_capped,
    values_inserts,
)
from parrot.fixtures import Fixture, Table

RUNNER = "parrot_runner"
SEND_RECEIVE_TIMEOUT = 300  # seconds of HTTP silence before the client gives up
STREAM_CHUNK = 1 << 16
_QUERY_FIRST = frozenset(
    {"SELECT", "WITH", "FROM", "VALUES", "EXPLAIN", "SHOW", "DESCRIBE", "DESC", "EXISTS"}
)
_CODE = re.compile(r"Code:\s*(\d+)")
_EXCEPTION_MARK = (b"DB::Exception", b"__exception__")

# --- statement guard (chdb's, plus what a shared server needs) ------------------------------------

_SERVER_REFUSED = (
    ("ON", "CLUSTER"),
    ("FREEZE",),
    ("UNFREEZE",),
    ("FETCH", "PARTITION"),
    ("FETCH", "PART"),
    ("MOVE", "PARTITION"),
    ("MOVE", "PART"),
)


def _server_refusal(plan: st.Plan) -> str | None:
    """chdb's FORMAT clause check, and CREATE OR REPLACE FUNCTION (functions are global)."""
    if plan.words[:3] == ("CREATE", "OR", "REPLACE") and "FUNCTION" in plan.words:
        return "CREATE OR REPLACE FUNCTION is not allowed (functions are global on a server)"
    return ch.format_clause(plan)


# chdb's guard plus what a shared server refuses
GUARD = dataclasses.replace(ch.GUARD, refused_sequences=_SERVER_REFUSED, extra=_server_refusal)


def plan_script(texts: Sequence[str]) -> list[st.Plan] | str:
    plans: list[st.Plan] = []
    created: set[str] = set()
    for text in texts:
        plan = GUARD.check(text)
        if isinstance(plan, str):
            return ch.OUR_DATABASE.sub("parrot_db", plan)
        if (name := ch.created_function(plan)) is not None:
            created.add(name)
        if (name := ch.dropped_function(plan)) is not None and name not in created:
            return f"DROP FUNCTION {name}: only functions the script created may be dropped"
        plans.append(plan)
    return plans


# --- errors ---------------------------------------------------------------------------------------


class ServerError(Exception):
    """An error the ClickHouse server reported (with its code)."""

    def __init__(self, message: str, code: int | None) -> None:
        super().__init__(message)
        self.code = code


def error_code(exc: BaseException) -> int | None:
    code = getattr(exc, "code", None)
    if isinstance(code, int):
        return code
    m = _CODE.search(str(exc))
    return int(m.group(1)) if m else None


def server_error(exc: BaseException) -> BaseException:
    """A clickhouse-connect error carrying a server error code → :class:`ServerError`; others
    (connection refused, HTTP failures) are returned unchanged."""
    if isinstance(exc, ServerError):
        return exc
    code = error_code(exc)
    if code is None:
        return exc
    text = str(exc)
    m = _CODE.search(text)
    return ServerError(text[m.start() :] if m else text, code)


ERRORS = st.ErrorTable(
    code=error_code,
    syntax=frozenset({62}),
    timeout=frozenset({159}),
    cancelled=frozenset({394}),
    denied=frozenset({164, 497, 291, 452}),
    lost=frozenset({209, 210, 516, 1000}),
)


# --- a DB-API-like cursor over HTTP ---------------------------------------------------------------


class HTTPCursor:
    """Just enough of a DB-API cursor over clickhouse-connect for :meth:`ServerEngine._run`:
    queries stream ``CustomSeparatedWithNamesAndTypes``; ``description`` is ``(name, type)``
    pairs; ``fetchmany`` parses rows as they arrive; ``cancel`` kills the running query."""

    def __init__(
        self, client: Any, settings: dict[str, Any], session_id: str, kill: Callable[[str], None]
    ) -> None:
        self.client = client
        self.settings = dict(settings)
        self.session_id = session_id
        self.kill = kill
        self.query_id: str | None = None
        self.description: list[tuple[str, str]] | None = None
        self._stream: Any = None
        self._lines: Iterator[bytes] | None = None

    def run(self, text: str, query_like: bool) -> None:
        self.close_stream()
        self.description = None
        self.query_id = f"parrot-{secrets.token_hex(8)}"
        settings = {**self.settings, "session_id": self.session_id, "query_id": self.query_id}
        try:
            if not query_like:
                self.client.command(text, settings=settings)
                return
            self._stream = self.client.raw_stream(text, settings=settings, fmt=ch.OUTPUT_FORMAT)
            self._lines = self._read_lines(self._stream)
            names, types = next(self._lines, None), next(self._lines, None)
        except Exception as exc:
            raise server_error(exc) from None
        if names is None or types is None:
            raise ServerError("the server sent no column header", None)
        self.description = list(
            zip(
                [str(ch.parse_literal(f)[0]) for f in names.split(b"\t")],
                [str(ch.parse_literal(f)[0]) for f in types.split(b"\t")],
                strict=True,
            )
        )

    @staticmethod
    def _read_lines(stream: Any) -> Iterator[bytes]:
        read = getattr(stream, "read", None)
        chunks: Iterator[bytes] = (
            iter(lambda: read(STREAM_CHUNK), b"") if read is not None else iter(stream)
        )
        pending = b""
        for chunk in chunks:
            pending += bytes(chunk)
            *lines, pending = pending.split(b"\n")
            for line in lines:
                check_line(line)
                yield line
        if pending:
            check_line(pending)
            yield pending

    def fetchmany(self, size: int) -> list[list[Any]]:
        if self._lines is None or self.description is None:
            return []
        rows: list[list[Any]] = []
        try:
            for line in self._lines:
                fields = line.split(b"\t")
                if len(fields) != len(self.description):
                    raise ServerError(f"unexpected output row: {line[:200]!r}", None)
                rows.append([ch.parse_literal(f)[0] for f in fields])
                if len(rows) >= size:
                    break
        except ServerError:
            raise
        except Exception as exc:
            raise server_error(exc) from None
        return rows

    def cancel(self) -> None:
        if self.query_id is not None:
            with contextlib.suppress(Exception):
                self.kill(self.query_id)
        self.close_stream()

    def close_stream(self) -> None:
        stream, self._stream, self._lines = self._stream, None, None
        st.close_quietly(stream)


def check_line(line: bytes) -> None:
    """Raise the server's exception when it interrupts a streamed result."""
    if any(mark in line for mark in _EXCEPTION_MARK) and _CODE.search(
        line.decode("utf-8", "replace")
    ):
        text = line.decode("utf-8", "replace")
        m = _CODE.search(text)
        raise ServerError(text[m.start() :] if m else text, int(m.group(1)) if m else None)


# --- the adapter ----------------------------------------------------------------------------------


class ClickHouseServerEngine(ServerEngine):
    name: ClassVar[str] = "clickhouse_server"
    dialect: ClassVar[str] = "clickhouse"
    url_schemes: ClassVar[tuple[str, ...] | None] = ("clickhouse", "clickhouses")
    capabilities: ClassVar[Capabilities] = Capabilities(
        booleans=False,  # comparisons return UInt8
        transactional_ddl=False,
        udfs=True,  # CREATE FUNCTION f AS (x) -> ..., dropped afterwards
        procedures=False,
        decimals=True,
        timestamps_us=True,  # DateTime64(6)
    )
    url_example: ClassVar[str] = "clickhouse://user:password@host:8123/"
    default_port: ClassVar[int | None] = 8123
    driver_spec = DriverSpec("clickhouse_connect", "clickhouse-connect", "clickhouse-server")
    guard: ClassVar[st.Guard] = GUARD
    errors: ClassVar[st.ErrorTable] = ERRORS
    quote_chars: ClassVar[tuple[str, str]] = ("`", "`")
    rename_builds: ClassVar[bool] = True

    def __init__(self, url: str | None = None) -> None:
        super().__init__(url)
        self.client_params(self.url)  # validate the URL now
        self._reader: Any = None

    # --- connections --------------------------------------------------------------------------

    @staticmethod
    def client_params(
        url: ServerURL, user: str | None = None, password: str | None = None
    ) -> dict[str, Any]:
        """``clickhouse_connect.get_client`` keyword arguments for a URL."""
        secure = url.scheme == "clickhouses" or url.flag("secure", False)
        return {
            "host": url.host,
            "port": url.port or (8443 if secure else ClickHouseServerEngine.default_port),
            "username": user if user is not None else (url.user or "default"),
            "password": password if password is not None else (url.password or ""),
            "secure": secure,
            "verify": url.flag("verify", True),
            "connect_timeout": CONNECT_TIMEOUT,
            "send_receive_timeout": SEND_RECEIVE_TIMEOUT,
            "autogenerate_session_id": False,
            "client_name": "parrot",
        }

    def _client(self, user: str | None = None, password: str | None = None) -> Any:
        try:
            return self.driver.get_client(**self.client_params(self.url, user, password))
        except Exception as exc:
            raise server_error(exc) from None

    def _admin_client(self) -> Any:
        if self._admin is None:
            self._admin = self._client()
        return self._admin

    def _command(self, sql: str, **settings: Any) -> Any:
        try:
            return self._admin_client().command(sql, settings=settings or None)
        except Exception as exc:
            raise server_error(exc) from None

    def _rows(self, sql: str) -> tuple[list[str], list[list[Any]]]:
        """Types and raw rows of a query run by the URL's user."""
        try:
            data = self._admin_client().raw_query(
                sql,
                fmt=ch.OUTPUT_FORMAT,
                settings={"session_timezone": "UTC", "format_custom_escaping_rule": "Quoted"},
            )
        except Exception as exc:
            raise server_error(exc) from None
        _, types, rows = ch.parse_output(data)
        return types, rows

    def driver_errors(self) -> tuple[type[BaseException], ...]:
        return (ServerError,)

    def _reset(self) -> None:
        for attr in ("_admin", "_reader", "_runner"):
            client = getattr(self, attr)
            setattr(self, attr, None)
            st.close_quietly(client)

    def _ask_version(self) -> str:
        return f"ClickHouse {self._rows('SELECT version()')[1][0][0]} server"

    def runner_password(self) -> str:
        secret = hashlib.sha256(
            f"parrot:{self.url.address(8123)}:{self.url.user}:{self.url.password}".encode()
        ).hexdigest()
        return f"Pp1_{secret[:28]}"

    def _runner_client(self) -> Any:
        """The restricted user's client, or None when it cannot be set up."""
        if self._runner is not None:
            return self._runner
        if self.sandboxed is False:
            return None
        password = self.runner_password().replace("'", "")
        try:
            self._command(
                f"CREATE USER IF NOT EXISTS {RUNNER} IDENTIFIED WITH sha256_password "
                f"BY '{password}'"
            )
            self._command(f"ALTER USER {RUNNER} IDENTIFIED WITH sha256_password BY '{password}'")
            self._command(f"GRANT CREATE FUNCTION, DROP FUNCTION ON *.* TO {RUNNER}")
            self._runner = self._client(RUNNER, password)
            self.sandboxed = True
        except ServerError as exc:  # the server said no (rights, password rules, ...)
            self.sandboxed, self.sandbox_error = False, self.message(exc)
            return None
        return self._runner

    def _kill(self, query_id: str) -> None:
        self._command(f"KILL QUERY WHERE query_id = {ch.string_literal(query_id)} ASYNC")

    # --- fixtures -----------------------------------------------------------------------------

    def _container_exists(self, container: str) -> bool:
        return bool(
            self._rows(
                f"SELECT 1 FROM system.databases WHERE name = {ch.string_literal(container)}"
            )[1]
        )

    def _create_container(self, container: str) -> None:
        try:
            self._command(f"CREATE DATABASE {ch.ident(container)}")
        except ServerError as exc:
            if exc.code == 82:  # DATABASE_ALREADY_EXISTS
                raise ContainerExists(container) from exc
            raise

    def _rename_container(self, built: str, container: str) -> None:
        try:
            self._command(f"RENAME DATABASE {ch.ident(built)} TO {ch.ident(container)}")
        except ServerError as exc:
            if exc.code == 82:
                raise ContainerExists(container) from exc
            raise

    def _drop_container(self, container: str) -> None:
        self._command(f"DROP DATABASE IF EXISTS {ch.ident(container)} SYNC")

    def table_ddl(self, container: str, table: Table) -> str:
        return ch.table_ddl(container, table)

    def _create_table(self, container: str, table: Table) -> None:
        self._command(self.table_ddl(container, table))

    def _insert(self, container: str, table: Table) -> None:
        head = f"INSERT INTO {ch.ident(container)}.{ch.ident(table.name)}"
        for sql in values_inserts(table, head, lambda v, c: ch.literal(v)):
            self._command(sql, session_timezone="UTC")

    def _read_table(self, container: str, table: Table) -> list[Sequence[Any]]:
        types, rows = self._rows(
            select_all(table, ch.ident, f"{ch.ident(container)}.{ch.ident(table.name)}")
        )
        return list(ch.canonical_rows(types, rows))

    # --- execution ----------------------------------------------------------------------------

    def plan(self, texts: Sequence[str]) -> list[st.Plan] | str:
        return plan_script(texts)

    def _execute_plans(self, script: st.Script, container: str) -> Execution:
        settings: dict[str, Any] = {
            "session_timezone": "UTC",
            "format_custom_escaping_rule": "Quoted",
        }
        session = f"parrot-{self._token}-{secrets.token_hex(6)}"
        if not script.writes:
            if self._reader is None:
                self._reader = self._client()
            self._reader.database = container
            cursor = HTTPCursor(self._reader, {**settings, "readonly": 2}, session, self._kill)
            try:
                return self._run(cursor, script)
            finally:
                cursor.close_stream()
        runner = self._runner_client()
        if runner is None:
            return Execution(
                ExecStatus.UNSUPPORTED,
                error=(
                    "writing scripts need parrot's restricted ClickHouse user, which the URL's "
                    "user "
                    f"cannot set up: {self.sandbox_error}"
                ),
            )
        functions = [f for p in script.plans if (f := ch.created_function(p))]
        if functions:
            existing = {
                str(r[0])
                for r in self._rows(
                    "SELECT name FROM system.functions WHERE name IN ("
                    + ", ".join(ch.string_literal(f) for f in functions)
                    + ")"
                )[1]
            }
            if existing:
                return Execution(
                    ExecStatus.UNSUPPORTED,
                    error=(f"function {sorted(existing)[0]} already exists on the server"),
                )
        scratch = self.scratch_name()
        try:
            self._clone(container, scratch, script.fixture)
            try:
                self._command(f"GRANT ALL ON {ch.ident(scratch)}.* TO {RUNNER}")
            except ServerError as exc:
                if exc.code not in ERRORS.denied:
                    raise
                self.sandboxed, self.sandbox_error = False, self.message(exc)
                return Execution(
                    ExecStatus.UNSUPPORTED,
                    error=(
                        "writing scripts need parrot's restricted ClickHouse user, which the URL's "
                        f"user cannot grant rights to: {self.sandbox_error}"
                    ),
                )
            runner.database = scratch
            cursor = HTTPCursor(runner, settings, session, self._kill)
            try:
                return self._run(cursor, script)
            finally:
                cursor.close_stream()
        finally:
            cleanup = [
                f"DROP DATABASE IF EXISTS {ch.ident(scratch)} SYNC",
                f"REVOKE ALL ON {ch.ident(scratch)}.* FROM {RUNNER}",
            ]
            cleanup += [f"DROP FUNCTION IF EXISTS {ch.ident(f)}" for f in functions]
            for statement in cleanup:
                with contextlib.suppress(Exception):
                    self._command(statement)

    def _clone(self, container: str, scratch: str, fixture: Fixture) -> None:
        self._command(f"CREATE DATABASE {ch.ident(scratch)}")
        for table in fixture.tables:
            src = f"{ch.ident(container)}.{ch.ident(table.name)}"
            dst = f"{ch.ident(scratch)}.{ch.ident(table.name)}"
            try:
                self._command(f"CREATE TABLE {dst} CLONE AS {src}")
            except ServerError as exc:
                if exc.code != 62:  # a server without CLONE AS: copy the rows
                    raise
                self._command(f"CREATE TABLE {dst} AS {src}")
                self._command(f"INSERT INTO {dst} SELECT * FROM {src}")

    def _statement(self, cursor: Any, plan: st.Plan, max_rows: int) -> values.ResultSet | None:
        cursor.run(plan.text, query_like=plan.first in _QUERY_FIRST)
        if not cursor.description:
            return None
        rows = fetch_capped(cursor, max_rows)
        return self._result(cursor.description, rows)

    def _arm_timeout(self, cursor: Any, seconds: float) -> None:
        cursor.settings["max_execution_time"] = round(max(seconds, 0.001), 3)

    def _cancel(self, cursor: Any) -> None:
        cursor.cancel()

    def _converter(self, column: Sequence[Any]) -> Callable[[Any], Any]:
        return ch.converter(ch.parse_type(str(column[1])))


__all__ = [
    "ERRORS",
    "ClickHouseServerEngine",
    "HTTPCursor",
    "ServerError",
    "check_line",
    "error_code",
    "plan_script",
]
