"""PostgreSQL adapter (psycopg 3), for a server reached by URL or the one parrot manages.

**Fixtures** live in one schema per fixture content hash, ``parrot_fx_<hash>``, in the URL's
database, owned by the URL's user ("admin"). A schema is created, filled (``COPY``), analysed,
verified (row counts + checksums) and granted in ONE transaction under an advisory lock, so it
exists only when complete and concurrent loaders never duplicate work. Every later adapter
instance, in any process, finds it and re-verifies it by reading it back instead of reloading (a
schema that fails verification is dropped and rebuilt). Tables and columns are created under
their lower-cased names (quoted, so reserved words work too): PostgreSQL folds unquoted
identifiers to lower case, so translated SQL naming ``Customers`` or ``customers`` unquoted finds
them, exactly as on a database created with unquoted DDL. Type map: integer → integer, bigint →
bigint, double → double precision, decimal(p,s) → numeric(p,s), text → text, boolean → boolean,
date → date, timestamp → timestamp(6); NOT NULL and the declared primary key are kept. The
schemas stay on the server for later runs (a managed server is throwaway; on your own server
drop them with ``DROP SCHEMA parrot_fx_<hash> CASCADE``).

**Isolation** (defence in depth, each layer enough on its own for fixture data):

1. Executions run as the role ``parrot_runner`` (LOGIN, not superuser, no CREATEDB/CREATEROLE),
   which does not own the fixture tables: it cannot DROP, ALTER or TRUNCATE them, create
   triggers or rules on them, or read server files. It may SELECT/INSERT/UPDATE/DELETE them (a
   translation's writes are visible within its own execution), create objects in a per-adapter
   scratch schema ``parrot_scratch_<backend pid>`` (views, tables, functions) and temp objects.
2. Every statement of a text runs inside ONE transaction that is always rolled back;
   PostgreSQL's DDL is transactional, so views, functions, temp tables, SET and writes vanish.
   Statements are sent one at a time over the extended protocol, which refuses a text holding
   more than one command, so a splitter mistake can never smuggle in an extra COMMIT; before
   each statement the transaction is checked to still be parrot's own.
3. A commit trap: each execution inserts a row into ``parrot_guard.commit_trap``, whose
   deferred constraint trigger raises at COMMIT, so even a COMMIT that got past everything
   else fails and rolls back (the runner cannot remove the row, disable the trigger or set
   ``session_replication_role``).
4. A statement guard refuses, as ``ExecStatus.UNSUPPORTED`` before anything runs: transaction
   control (BEGIN/START/COMMIT/END/ROLLBACK/ABORT/SAVEPOINT/RELEASE/PREPARE TRANSACTION), COPY
   (files, programs and the client protocol alike), SET/RESET ROLE and SESSION AUTHORIZATION,
   ALTER SYSTEM, databases/roles/users/groups/tablespaces/extensions/languages/foreign
   servers/publications/subscriptions/event triggers, GRANT/REVOKE/REASSIGN/DROP OWNED,
   VACUUM/CLUSTER/REINDEX/CHECKPOINT/LOAD/DISCARD/IMPORT FOREIGN SCHEMA, and any mention of
   server-file, large-object-file, dblink, backend-signalling or server-control functions
   (``pg_read_file``, ``lo_import``/``lo_export``, ``dblink*``, ``pg_terminate_backend``, ...).
   DO blocks and CALL are allowed: inside parrot's transaction block PostgreSQL itself refuses
   the COMMIT/ROLLBACK a procedure or DO block attempts ("invalid transaction termination").
   Session state that survives a rollback (prepared statements, LISTEN, session advisory
   locks) is cleared with ``DISCARD ALL`` after every execution (``DO $$ ... $$`` bodies and
   functions can create it where no guard looks).

When the URL's user may not create the runner role (a user-supplied server), executions fall
back to ``SET ROLE parrot_runner`` on the URL's login, or to the URL's user itself; layers 2-4
still hold.

**Timeouts**: ``SET LOCAL statement_timeout`` to the execution's budget, plus a watchdog that
sends a cancel request at the deadline (``pg_sleep``, cross-join bombs and endless recursive
CTEs stop within the timeout + ~0.1 s) → ``ExecStatus.TIMEOUT``; a statement that ignores the
cancel (a DO block's ``EXCEPTION WHEN query_canceled``) gets its backend terminated
``ESCALATE_AFTER`` seconds later and the execution returns once ``pg_stat_activity`` no longer
lists it (a TIMEOUT; the next execution reconnects). **Result cap**: rows are
streamed in chunks; at ``max_rows + 1`` the statement is cancelled → ``ExecStatus.TOO_LARGE``
(a 10^12-row result is never materialised). **Errors** by SQLSTATE: 42601 → SYNTAX_ERROR, 57014
(cancel) → TIMEOUT, classes 08/57/58/XX and lost connections → ENGINE_ERROR (the adapter
reconnects on the next call) except 08P01 (a ``$1`` placeholder in the query: "bind message
supplies 0 parameters"), everything else → RUNTIME_ERROR.

**Session settings** (per connection): TimeZone UTC, DateStyle ISO output (the field order for
input keeps the server's), client encoding UTF8. Nothing that changes query semantics (NULL
ordering, integer division, collation, ...) is touched.

**Values** (text protocol, converted per type): numeric → Decimal (scale kept; NaN/Infinity as
Decimal), float4/float8 → float (NaN/inf kept), integers → int, bool → bool, text/varchar/char
→ str (char(n) padding kept), bytea → bytes, date/timestamp/time → Temporal (years outside
1-9999 and BC as signed ISO years, ±infinity as "infinity"), timestamptz/timetz → Temporal in
UTC, interval → Nested ``{"interval_seconds": ...}`` (a month counts 30 days, as the DuckDB
adapter's), json/jsonb → Nested, arrays/records → Nested, uuid → str, money → Decimal,
inet/cidr/ranges/geometric/other types → their PostgreSQL text.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import json
import re
import select
import time
from collections.abc import Iterator, Sequence
from decimal import Decimal, InvalidOperation
from typing import Any, ClassVar

import psycopg
from psycopg import pq, sql
from psycopg.adapt import Loader, Transformer
from psycopg.conninfo import conninfo_to_dict, make_conninfo
from psycopg.types.multirange import MultirangeInfo
from psycopg.types.range import RangeInfo

from parrot import values
from parrot.engines import statements as st
from parrot.engines.base import (
    Capabilities,
    EngineBase,
    ExecStatus,
    Execution,
    FixtureLoadError,
    Request,
    TypeMap,
    safe_canonical,
)
from parrot.engines.dbapi import default_url, interval
from parrot.fixtures import Fixture, Table, is_plain

RUNNER = "parrot_runner"
GUARD_SCHEMA = "parrot_guard"
FIXTURE_PREFIX = "parrot_fx_"
SCRATCH_PREFIX = "parrot_scratch_"
CHUNK_ROWS = 1000  # rows per network chunk while streaming results
HARD_GRACE = 5.0  # seconds past the deadline after which an unresponsive connection is dropped
SESSION_OPTIONS = "-c TimeZone=UTC -c DateStyle=ISO -c client_encoding=UTF8"
_SETUP_LOCK = 0x7061_7272_6F74  # advisory lock key of the shared setup ("parrot")

postgres_type = TypeMap(
    {
        "integer": "integer",
        "bigint": "bigint",
        "double": "double precision",
        "text": "text",
        "boolean": "boolean",
        "date": "date",
        "timestamp": "timestamp(6)",
    },
    decimal="numeric({p},{s})",
)


def _ident(name: str) -> sql.Identifier:
    """A fixture name as unquoted SQL finds it: plain names folded to lower case, others exact."""
    return sql.Identifier(name.lower() if is_plain(name) else name)


# --- statement guard ------------------------------------------------------------------------------

_REFUSED_FUNCTIONS = frozenset(
    {
        "pg_read_file",
        "pg_read_binary_file",
        "pg_stat_file",
        "pg_ls_dir",
        "pg_ls_logdir",
        "pg_ls_waldir",
        "pg_ls_tmpdir",
        "pg_ls_archive_statusdir",
        "pg_ls_logicalmapdir",
        "pg_ls_logicalsnapdir",
        "pg_ls_replslotdir",
        "pg_ls_summariesdir",
        "lo_import",
        "lo_export",
        "pg_file_write",
        "pg_file_rename",
        "pg_file_unlink",
        "pg_file_sync",
        "pg_logdir_ls",
        "pg_terminate_backend",
        "pg_cancel_backend",
        "pg_reload_conf",
        "pg_rotate_logfile",
        "pg_promote",
        "pg_switch_wal",
        "pg_create_restore_point",
        "pg_log_backend_memory_contexts",
        "pg_signal_backend",
    }
)


GUARD = st.Guard(  # what runs always runs in a transaction rolled back afterwards
    st.POSTGRES,
    reads=frozenset(),
    reserved_prefix=None,
    call_reason=("(server files, other connections and server control) is not allowed"),
    refused_first=frozenset(
        {
            "BEGIN",
            "START",
            "COMMIT",
            "END",
            "ROLLBACK",
            "ABORT",
            "SAVEPOINT",
            "RELEASE",
            "COPY",
            "VACUUM",
            "CLUSTER",
            "REINDEX",
            "CHECKPOINT",
            "LOAD",
            "DISCARD",
            "GRANT",
            "REVOKE",
            "REASSIGN",
            "IMPORT",
        }
    ),
    refused_sequences=(("PREPARE", "TRANSACTION"),),
    refused_objects=frozenset(
        {
            "DATABASE",
            "ROLE",
            "USER",
            "GROUP",
            "TABLESPACE",
            "EXTENSION",
            "SUBSCRIPTION",
            "PUBLICATION",
            "SERVER",
            "FOREIGN",
            "EVENT",
            "LANGUAGE",
            "OWNED",
            "SYSTEM",
        }
    ),
    object_modifiers=frozenset({"OR", "REPLACE", "TRUSTED", "PROCEDURAL", "DEFAULT"}),
    setting_statements=(("SET",), ("RESET",)),
    protected_settings=frozenset({"role", "authorization"}),
    refused_calls=_REFUSED_FUNCTIONS,
    refused_call_prefixes=("dblink",),
    uncalled=frozenset({st.TokenKind.WORD, st.TokenKind.QUOTED}),
)


# PostgreSQL's own parser (libpg_query through pglast): statement kinds and function calls found
# in the parse tree, wherever they sit (a CTE, a subquery, a default expression), by node type
_REFUSED_NODES = {
    "TransactionStmt": "transaction control (BEGIN/COMMIT/ROLLBACK/SAVEPOINT/PREPARE TRANSACTION)",
    "CopyStmt": "COPY",
    "VacuumStmt": "VACUUM",
    "ClusterStmt": "CLUSTER",
    "ReindexStmt": "REINDEX",
    "CheckPointStmt": "CHECKPOINT",
    "LoadStmt": "LOAD",
    "DiscardStmt": "DISCARD",
    "GrantStmt": "GRANT/REVOKE",
    "GrantRoleStmt": "GRANT/REVOKE",
    "ReassignOwnedStmt": "REASSIGN OWNED",
    "DropOwnedStmt": "DROP OWNED",
    "ImportForeignSchemaStmt": "IMPORT FOREIGN SCHEMA",
    "AlterSystemStmt": "ALTER SYSTEM",
    "CreatedbStmt": "CREATE DATABASE",
    "DropdbStmt": "DROP DATABASE",
    "AlterDatabaseStmt": "ALTER DATABASE",
    "AlterDatabaseSetStmt": "ALTER DATABASE",
    "CreateRoleStmt": "CREATE ROLE",
    "AlterRoleStmt": "ALTER ROLE",
    "AlterRoleSetStmt": "ALTER ROLE",
    "DropRoleStmt": "DROP ROLE",
    "CreateTableSpaceStmt": "CREATE TABLESPACE",
    "DropTableSpaceStmt": "DROP TABLESPACE",
    "CreateExtensionStmt": "CREATE EXTENSION",
    "AlterExtensionStmt": "ALTER EXTENSION",
    "CreatePLangStmt": "CREATE LANGUAGE",
    "CreateForeignServerStmt": "CREATE SERVER",
    "CreateFdwStmt": "CREATE FOREIGN DATA WRAPPER",
    "CreateUserMappingStmt": "CREATE USER MAPPING",
    "CreatePublicationStmt": "CREATE PUBLICATION",
    "CreateSubscriptionStmt": "CREATE SUBSCRIPTION",
    "CreateEventTrigStmt": "CREATE EVENT TRIGGER",
    "AlterOwnerStmt": "ALTER ... OWNER TO",
}


def _tree_refusal(text: str) -> str | None:
    """Why PostgreSQL's own parse tree of one statement is refused, or None.

    Beside the token guard (:data:`GUARD`), not instead of it: without pglast installed
    (the ``postgres`` extra), or for a text pglast's parser (PostgreSQL 17) cannot read — a
    syntax error, or syntax newer than it — the token guard, the runner role's privileges and
    the always-rolled-back transaction are what hold, and the server reports the syntax error.
    """
    try:
        from pglast import ast, parse_sql
        from pglast.parser import ParseError
    except ImportError:
        return None
    try:
        tree = parse_sql(text)
    except (ParseError, RecursionError, ValueError):
        return None
    pending: list[object] = list(tree)
    while pending:
        node = pending.pop()
        if isinstance(node, (tuple, list)):
            pending.extend(node)
            continue
        if not isinstance(node, ast.Node):
            continue
        kind = type(node).__name__
        if kind in _REFUSED_NODES:
            return f"{_REFUSED_NODES[kind]} is not allowed"
        if isinstance(node, ast.VariableSetStmt) and (node.name or "").lower() in (
            "role",
            "session_authorization",
        ):
            return "SET ROLE / SESSION AUTHORIZATION is not allowed"
        if isinstance(node, ast.FuncCall) and node.funcname:
            name = str(getattr(node.funcname[-1], "sval", "")).lower()
            if name in _REFUSED_FUNCTIONS or name.startswith("dblink"):
                return f"{name}() {GUARD.call_reason}"
        pending.extend(getattr(node, slot) for slot in getattr(node, "__slots__", ()))
    return None


# --- values ---------------------------------------------------------------------------------------

_OFFSET = re.compile(r"([+-])(\d{2})(?::?(\d{2}))?(?::?(\d{2}))?$")
_DATE = re.compile(r"^(\d{4,})-(\d{2})-(\d{2})$")
_TIME = re.compile(r"^(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?$")
_INTERVAL_UNIT = re.compile(r"([+-]?\d+) (year|mon|day)s?\b")
_INTERVAL_TIME = re.compile(r"([+-])?(\d+):(\d{2}):(\d{2})(?:\.(\d+))?")
_ISO_INTERVAL = re.compile(
    r"^P(?:([+-]?\d+)Y)?(?:([+-]?\d+)M)?(?:([+-]?\d+)D)?"
    r"(?:T(?:([+-]?\d+)H)?(?:([+-]?\d+)M)?(?:([+-]?\d+(?:\.\d+)?)S)?)?$"
)
_MICROS_PER_DAY = 86_400_000_000


def _fraction(text: str | None) -> str:
    digits = (text or "").rstrip("0")
    return f".{digits}" if digits else ""


def _date_iso(text: str) -> str:
    """'2024-01-05', '0044-03-15 BC', '12345-01-01' → canonical ISO date (signed years outside
    1-9999, astronomical numbering for BC)."""
    bc = text.endswith(" BC")
    m = _DATE.match(text[:-3] if bc else text)
    if not m:
        raise ValueError(text)
    year = int(m[1])
    if bc:
        year = 1 - year
    y = f"{year:04d}" if 1 <= year <= 9999 else f"{year:+05d}"
    return f"{y}-{m[2]}-{m[3]}"


def _time_iso(text: str) -> tuple[str, int]:
    """'10:00:01.50' → ('10:00:01.5', microseconds since midnight)."""
    m = _TIME.match(text)
    if not m:
        raise ValueError(text)
    micros = (int(m[1]) * 3600 + int(m[2]) * 60 + int(m[3])) * 1_000_000 + int(
        (m[4] or "").ljust(6, "0") or 0
    )
    return f"{m[1]}:{m[2]}:{m[3]}{_fraction(m[4])}", micros


def _offset_seconds(text: str) -> tuple[str, int]:
    """Split '... +05:30' into the text before the offset and the offset in seconds."""
    m = _OFFSET.search(text)
    if not m:
        raise ValueError(text)
    seconds = int(m[2]) * 3600 + int(m[3] or 0) * 60 + int(m[4] or 0)
    return text[: m.start()], -seconds if m[1] == "-" else seconds


def _micros_iso(micros: int) -> str:
    micros %= _MICROS_PER_DAY
    seconds, frac = divmod(micros, 1_000_000)
    return f"{seconds // 3600:02d}:{seconds // 60 % 60:02d}:{seconds % 60:02d}" + _fraction(
        f"{frac:06d}"
    )


class _StrLoader(Loader):
    """The type's PostgreSQL text, as str."""

    def load(self, data: Any) -> Any:
        return bytes(data).decode()


class _TemporalLoader(Loader):
    """Base: parse ISO output into a Temporal; other DateStyles come back as text."""

    def load(self, data: Any) -> Any:
        text = bytes(data).decode()
        if text in ("infinity", "-infinity"):
            return values.Temporal(self.kind, text)
        try:
            return self.parse(text)
        except (ValueError, OverflowError):
            return text

    kind: ClassVar[values.TemporalKind] = "date"

    def parse(self, text: str) -> values.Temporal:
        raise NotImplementedError


class _DateLoader(_TemporalLoader):
    kind: ClassVar[values.TemporalKind] = "date"

    def parse(self, text: str) -> values.Temporal:
        return values.Temporal("date", _date_iso(text))


class _TimestampLoader(_TemporalLoader):
    kind: ClassVar[values.TemporalKind] = "timestamp"

    def parse(self, text: str) -> values.Temporal:
        bc = text.endswith(" BC")
        day, _, clock = (text[:-3] if bc else text).partition(" ")
        return values.Temporal(
            "timestamp", f"{_date_iso(day + (' BC' if bc else ''))} {_time_iso(clock)[0]}"
        )


class _TimestamptzLoader(_TemporalLoader):
    kind: ClassVar[values.TemporalKind] = "timestamp"

    def parse(self, text: str) -> values.Temporal:
        bc = text.endswith(" BC")
        local, offset = _offset_seconds(text[:-3] if bc else text)
        day, _, clock = local.partition(" ")
        if offset == 0:
            return values.Temporal(
                "timestamp", f"{_date_iso(day + (' BC' if bc else ''))} {_time_iso(clock)[0]}"
            )
        if bc:
            raise ValueError(text)  # outside what Python's datetime can shift
        naive = dt.datetime.fromisoformat(f"{day} {clock}")
        return values.temporal(naive - dt.timedelta(seconds=offset))


class _TimeLoader(_TemporalLoader):
    kind: ClassVar[values.TemporalKind] = "time"

    def parse(self, text: str) -> values.Temporal:
        return values.Temporal("time", _time_iso(text)[0])  # 24:00:00 stays 24:00:00


class _TimetzLoader(_TemporalLoader):
    kind: ClassVar[values.TemporalKind] = "time"

    def parse(self, text: str) -> values.Temporal:
        clock, offset = _offset_seconds(text)
        iso, micros = _time_iso(clock)
        if offset == 0:
            return values.Temporal("time", iso)
        return values.Temporal("time", _micros_iso(micros - offset * 1_000_000))


def interval_seconds(text: str) -> float | None:
    """Total seconds of a PostgreSQL interval in the 'postgres' or 'iso_8601' style (a month
    counts 30 days, a year 360), or None when the text is in another style."""
    months = days = micros = 0
    m = _ISO_INTERVAL.match(text)
    if m and text != "P":
        y, mo, d, h, mi, s = (g or "0" for g in m.groups())
        months, days = int(y) * 12 + int(mo), int(d)
        micros = (int(h) * 3600 + int(mi) * 60) * 1_000_000 + int(Decimal(s) * 1_000_000)
    else:
        rest = text
        for amount, unit in _INTERVAL_UNIT.findall(text):
            if unit == "year":
                months += int(amount) * 12
            elif unit == "mon":
                months += int(amount)
            else:
                days += int(amount)
        rest = _INTERVAL_UNIT.sub("", rest).strip()
        if rest:
            t = _INTERVAL_TIME.fullmatch(rest)
            if not t:
                return None
            micros = (int(t[2]) * 3600 + int(t[3]) * 60 + int(t[4])) * 1_000_000 + int(
                (t[5] or "")[:6].ljust(6, "0") or 0
            )
            if t[1] == "-":
                micros = -micros
        elif not _INTERVAL_UNIT.search(text):
            return None
    return ((months * 30 + days) * _MICROS_PER_DAY + micros) / 1_000_000


class _IntervalLoader(Loader):
    def load(self, data: Any) -> Any:
        text = bytes(data).decode()
        if text in ("infinity", "-infinity"):
            seconds: float | None = float("inf") if text == "infinity" else float("-inf")
        else:
            seconds = interval_seconds(text)
        if seconds is None:
            return values.Nested(json.dumps({"interval": text}))
        return interval(seconds)


class _JsonLoader(Loader):
    def load(self, data: Any) -> Any:
        parsed = json.loads(bytes(data).decode())
        if isinstance(parsed, dict | list):
            return values.canonical(parsed)
        return values.Nested(json.dumps(parsed, sort_keys=True, separators=(",", ":")))


class _MoneyLoader(Loader):
    def load(self, data: Any) -> Any:
        text = bytes(data).decode()
        cleaned = re.sub(r"[^0-9.\-]", "", text)
        if text.count(".") > 1 or not re.search(r"\d", cleaned):
            return text  # a locale with another decimal separator: keep the text
        try:
            return Decimal(cleaned)
        except InvalidOperation:
            return text


_LOADERS: dict[str, type[Loader]] = {
    "date": _DateLoader,
    "timestamp": _TimestampLoader,
    "timestamptz": _TimestamptzLoader,
    "time": _TimeLoader,
    "timetz": _TimetzLoader,
    "interval": _IntervalLoader,
    "json": _JsonLoader,
    "jsonb": _JsonLoader,
    "money": _MoneyLoader,
    "inet": _StrLoader,
    "cidr": _StrLoader,
}


def _connect(conninfo: str, **kwargs: Any) -> psycopg.Connection[Any]:
    conn = psycopg.connect(
        conninfo, autocommit=True, prepare_threshold=None, options=SESSION_OPTIONS, **kwargs
    )
    adapters = conn.adapters
    for name, loader in _LOADERS.items():
        adapters.register_loader(name, loader)
    for info in adapters.types:
        if isinstance(info, RangeInfo | MultirangeInfo):  # psycopg's Range objects → text
            adapters.register_loader(info.oid, _StrLoader)
    return conn


def _type_name(conn: psycopg.Connection[Any], oid: int, mod: int) -> str:
    info = conn.adapters.types.get(oid)
    if info is None:
        return f"oid {oid}"
    name = info.regtype
    if info.array_oid == oid and info.oid != oid:
        return f"{name}[]"
    if name == "numeric" and mod >= 4:
        return f"numeric({(mod - 4) >> 16},{(mod - 4) & 0xFFFF})"
    if name in ("character varying", "character") and mod >= 4:
        return f"{name}({mod - 4})"
    return name


# --- errors ---------------------------------------------------------------------------------------

# a failure the server reported carries its SQLSTATE; anything else (psycopg, OSError, a lost
# connection) counts as 08006 connection_failure
ERRORS = st.ErrorTable(
    lambda exc: exc.code if isinstance(exc, st.Failed) else "08006",
    timeout=frozenset({"57014"}),  # query_canceled: statement_timeout or parrot's cancel
    syntax=frozenset({"42601"}),
    runtime=frozenset({"08P01"}),  # "bind message supplies 0 parameters": $1 in the query
    lost_prefixes=("08", "57", "58", "XX"),  # connection, operator intervention, system, internal
    uncoded=ExecStatus.ENGINE_ERROR,
    driver_errors=(st.Failed,),
)


def _message(res: pq.abc.PGresult) -> str:
    def field(code: pq.DiagnosticField) -> str:
        raw = res.error_field(code)
        return raw.decode(errors="replace") if raw else ""

    primary = field(pq.DiagnosticField.MESSAGE_PRIMARY) or str(res.get_error_message())
    parts = [primary]
    for label, code in (
        ("DETAIL", pq.DiagnosticField.MESSAGE_DETAIL),
        ("HINT", pq.DiagnosticField.MESSAGE_HINT),
    ):
        if text := field(code):
            parts.append(f"{label}: {text}")
    return st.trim_message(" ".join(parts))


class _LostConnection(Exception):
    """The server stopped answering or the connection broke mid-statement."""


@dataclasses.dataclass
class _Outcome:
    result: values.ResultSet | None = None  # rows (None: the statement returned none)
    too_large: bool = False
    sqlstate: str | None = None
    error: str | None = None


# --- the adapter ----------------------------------------------------------------------------------


class PostgresEngine(EngineBase[str]):
    name: ClassVar[str] = "postgres"
    dialect: ClassVar[str] = "postgres"
    url_schemes: ClassVar[tuple[str, ...] | None] = ("postgresql", "postgres")
    capabilities: ClassVar[Capabilities] = Capabilities(
        booleans=True,
        transactional_ddl=True,
        udfs=True,  # CREATE FUNCTION (SQL, PL/pgSQL) in the scratch schema
        procedures=True,  # CREATE PROCEDURE / CALL (no COMMIT inside parrot's transaction)
        decimals=True,
        timestamps_us=True,
    )

    def __init__(self, url: str | None = None) -> None:
        super().__init__()
        self.url = url or default_url("postgres")
        self._admin: psycopg.Connection[Any] | None = None
        self._runner: psycopg.Connection[Any] | None = None
        self._scratch: str | None = None
        self._server_key: tuple[Any, ...] | None = None
        self._mode: str | None = None  # "login", "set_role" or "admin" once set up
        self._version: str | None = None

    # --- connections --------------------------------------------------------------------------

    def _admin_conn(self) -> psycopg.Connection[Any]:
        if self._admin is not None and not self._admin.closed and not self._admin.broken:
            return self._admin
        st.close_quietly(self._admin)
        self._admin = _connect(self.url, application_name="parrot-admin", connect_timeout=10)
        row = self._admin.execute(
            "SELECT pg_postmaster_start_time()::text, inet_server_port()"
        ).fetchone()
        key = tuple(row) if row else ()
        if self._server_key is not None and key != self._server_key:
            self._forget_server()  # a different (restarted) server: nothing loaded there yet
        self._server_key = key
        return self._admin

    def _forget_server(self) -> None:
        self._stored.clear()
        self._mode = None
        self._drop_runner()

    def _reset(self) -> None:
        """Drop both connections after a connection failure (the next call reconnects; what
        was loaded is kept unless the server turns out to be another one)."""
        self._drop_runner()
        st.close_quietly(self._admin)
        self._admin = None

    def _setup(self) -> None:
        """Runner role, commit trap (idempotent, serialised across processes)."""
        if self._mode is not None:
            return
        admin = self._admin_conn()
        with admin.transaction():
            admin.execute("SELECT pg_advisory_xact_lock(%s)", [_SETUP_LOCK])
            mode = "login"
            if (
                admin.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", [RUNNER]).fetchone()
                is None
            ):
                try:
                    with admin.transaction():
                        admin.execute(
                            sql.SQL(
                                "CREATE ROLE {} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE "
                                "NOREPLICATION NOBYPASSRLS"
                            ).format(sql.Identifier(RUNNER))
                        )
                except psycopg.errors.InsufficientPrivilege:
                    mode = "admin"
            guard = sql.Identifier(GUARD_SCHEMA)
            admin.execute(sql.SQL("CREATE SCHEMA IF NOT EXISTS {}").format(guard))
            admin.execute(
                sql.SQL(
                    "CREATE TABLE IF NOT EXISTS {}.commit_trap (at timestamptz DEFAULT now())"
                ).format(guard)
            )
            admin.execute(
                sql.SQL(
                    "CREATE OR REPLACE FUNCTION {}.refuse_commit() RETURNS trigger "
                    "LANGUAGE plpgsql AS $$BEGIN RAISE EXCEPTION 'parrot: transactions of "
                    "untrusted SQL are never committed'; END$$"
                ).format(guard)
            )
            if (
                admin.execute(
                    "SELECT 1 FROM pg_trigger WHERE tgname = 'parrot_refuse_commit' "
                    "AND tgrelid = %s::regclass",
                    [f"{GUARD_SCHEMA}.commit_trap"],
                ).fetchone()
                is None
            ):
                admin.execute(
                    sql.SQL(
                        "CREATE CONSTRAINT TRIGGER parrot_refuse_commit AFTER INSERT ON "
                        "{}.commit_trap DEFERRABLE INITIALLY DEFERRED FOR EACH ROW "
                        "EXECUTE FUNCTION {}.refuse_commit()"
                    ).format(guard, guard)
                )
            if mode != "admin":
                runner = sql.Identifier(RUNNER)
                admin.execute(sql.SQL("GRANT USAGE ON SCHEMA {} TO {}").format(guard, runner))
                admin.execute(sql.SQL("GRANT INSERT ON {}.commit_trap TO {}").format(guard, runner))
        self._mode = mode

    def _runner_conn(self) -> psycopg.Connection[Any]:
        conn = self._runner
        if conn is not None and not conn.closed and not conn.broken:
            return conn
        self._drop_runner()
        self._setup()
        conn = None
        if self._mode == "login":
            params = conninfo_to_dict(self.url)
            params.pop("password", None)
            params["user"] = RUNNER
            try:
                conn = _connect(
                    make_conninfo("", **params),
                    application_name="parrot-runner",
                    connect_timeout=10,
                )
            except psycopg.OperationalError:
                self._mode = "set_role"  # e.g. password authentication for every role
        if conn is None and self._mode == "set_role":
            conn = _connect(self.url, application_name="parrot-runner", connect_timeout=10)
            try:
                conn.execute(sql.SQL("SET ROLE {}").format(sql.Identifier(RUNNER)))
            except psycopg.Error:
                self._mode = "admin"
        if conn is None:
            conn = _connect(self.url, application_name="parrot-runner", connect_timeout=10)
        self._runner = conn
        try:
            self._scratch = self._create_scratch(conn.info.backend_pid)
        except BaseException:
            self._drop_runner()
            raise
        return conn

    def _create_scratch(self, pid: int) -> str:
        """The runner's scratch schema (dropping scratch schemas of backends that are gone)."""
        admin = self._admin_conn()
        name = f"{SCRATCH_PREFIX}{pid}"
        with admin.transaction():
            live = {str(p) for (p,) in admin.execute("SELECT pid FROM pg_stat_activity")}
            for (schema,) in admin.execute(
                "SELECT nspname FROM pg_namespace WHERE starts_with(nspname, %s) "
                "AND pg_has_role(nspowner, 'USAGE')",
                [SCRATCH_PREFIX],
            ).fetchall():
                owner_pid = schema[len(SCRATCH_PREFIX) :]
                if owner_pid.isdigit() and owner_pid not in live:  # its backend is gone
                    admin.execute(
                        sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(schema))
                    )
            admin.execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(name)))
            admin.execute(sql.SQL("CREATE SCHEMA {}").format(sql.Identifier(name)))
            if self._mode != "admin":
                admin.execute(
                    sql.SQL("GRANT USAGE, CREATE ON SCHEMA {} TO {}").format(
                        sql.Identifier(name), sql.Identifier(RUNNER)
                    )
                )
        return name

    def _drop_runner(self) -> None:
        conn, scratch = self._runner, self._scratch
        self._runner = self._scratch = None
        st.close_quietly(conn)
        if scratch and self._admin is not None and not self._admin.closed:
            with contextlib.suppress(psycopg.Error):
                self._admin.execute(
                    sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(scratch))
                )

    def close(self) -> None:
        admin = self._admin
        if (
            admin is not None
            and not admin.closed
            and admin.info.transaction_status != pq.TransactionStatus.IDLE
        ):
            with contextlib.suppress(psycopg.Error):
                admin.rollback()
        self._drop_runner()
        st.close_quietly(self._admin)
        self._admin = None
        self._stored.clear()

    # --- facts --------------------------------------------------------------------------------

    def version(self) -> str:
        if self._version is None:
            row = self._admin_conn().execute("SHOW server_version").fetchone()
            self._version = str(row[0]) if row else "unknown"
        return self._version

    @property
    def label(self) -> str:
        try:
            return f"postgres (PostgreSQL {self.version().split()[0]})"
        except psycopg.Error:
            return "postgres (unreachable)"

    # --- fixtures -----------------------------------------------------------------------------

    def schema(self, fixture: Fixture) -> str:
        """The schema holding ``fixture`` on the server (loaded on demand)."""
        return self.stored(fixture)

    @contextlib.contextmanager
    def _loading(self, fixture: Fixture) -> Iterator[None]:
        """One transaction holding the fixture's advisory lock: loaders in other processes
        wait, and a failed build rolls back."""
        self._setup()
        admin = self._admin_conn()
        with admin.transaction():
            admin.execute("SELECT pg_advisory_xact_lock(%s)", [int(fixture.content_hash[:15], 16)])
            yield

    def _existing(self, fixture: Fixture) -> str | None:
        schema = FIXTURE_PREFIX + fixture.content_hash
        found = (
            self._admin_conn()
            .execute("SELECT 1 FROM pg_namespace WHERE nspname = %s", [schema])
            .fetchone()
        )
        return schema if found is not None else None

    def _create(self, fixture: Fixture) -> str:
        schema = FIXTURE_PREFIX + fixture.content_hash
        self._admin_conn().execute(sql.SQL("CREATE SCHEMA {}").format(sql.Identifier(schema)))
        return schema

    def _fill(self, schema: str, fixture: Fixture) -> None:
        admin = self._admin_conn()
        ns = sql.Identifier(schema)
        for table in fixture.tables:
            self._create_table(admin, ns, table)
        admin.execute(
            sql.SQL("COMMENT ON SCHEMA {} IS {}").format(
                ns, sql.Literal(f"parrot fixture {fixture.name!r}")
            )
        )
        if self._mode != "admin":
            runner = sql.Identifier(RUNNER)
            admin.execute(sql.SQL("GRANT USAGE ON SCHEMA {} TO {}").format(ns, runner))
            admin.execute(
                sql.SQL(
                    "GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA {} TO {}"
                ).format(ns, runner)
            )

    def _discard(self, schema: str) -> None:
        self._admin_conn().execute(sql.SQL("DROP SCHEMA {} CASCADE").format(sql.Identifier(schema)))

    def _load_failed(self, exc: BaseException) -> None:
        if isinstance(exc, psycopg.OperationalError):
            self._reset()

    @staticmethod
    def _create_table(admin: psycopg.Connection[Any], ns: sql.Identifier, table: Table) -> None:
        name = sql.SQL(".").join([ns, _ident(table.name)])
        cols = [
            sql.SQL("{} {}{}").format(
                _ident(c.name),
                sql.SQL(postgres_type(c)),
                sql.SQL("" if c.nullable else " NOT NULL"),
            )
            for c in table.columns
        ]
        if table.primary_key:
            cols.append(
                sql.SQL("PRIMARY KEY ({})").format(
                    sql.SQL(", ").join(_ident(c) for c in table.primary_key)
                )
            )
        admin.execute(sql.SQL("CREATE TABLE {} ({})").format(name, sql.SQL(", ").join(cols)))
        columns = sql.SQL(", ").join(_ident(c) for c in table.column_names)
        with (
            admin.cursor() as cur,
            cur.copy(sql.SQL("COPY {} ({}) FROM STDIN").format(name, columns)) as copy,
        ):
            for row in table.rows:
                copy.write_row(row)
        admin.execute(sql.SQL("ANALYZE {}").format(name))

    def _read_back(self, schema: str, fixture: Fixture) -> dict[str, list[tuple[Any, ...]]]:
        conn = self._admin_conn()

        def read(table: Table) -> list[tuple[Any, ...]]:
            query = sql.SQL("SELECT {} FROM {}.{}").format(
                sql.SQL(", ").join(_ident(c) for c in table.column_names),
                sql.Identifier(schema),
                _ident(table.name),
            )
            with conn.transaction():  # a savepoint when inside a transaction
                return conn.execute(query).fetchall()

        return st.read_tables(fixture, read, psycopg.errors.UndefinedTable)

    # --- execution ----------------------------------------------------------------------------

    def _execute(self, request: Request) -> Execution:
        texts = st.splitter("postgres").split(request.sql)
        if not texts:
            return Execution(ExecStatus.SYNTAX_ERROR, error=st.NO_STATEMENT)
        for text in texts:
            plan = GUARD.check(text)
            refusal = plan if isinstance(plan, str) else _tree_refusal(text)
            if refusal:
                return Execution(ExecStatus.UNSUPPORTED, error=refusal)
        try:
            schema = self.schema(request.fixture)
            conn = self._runner_conn()
        except FixtureLoadError as exc:
            if not isinstance(exc.__cause__, psycopg.OperationalError):
                raise  # the fixture itself cannot be stored faithfully
            return Execution(ExecStatus.ENGINE_ERROR, error=st.trim_message(exc.__cause__))
        except psycopg.Error as exc:
            self._reset()
            return Execution(ExecStatus.ENGINE_ERROR, error=st.trim_message(exc))
        deadline = st.Deadline(request.timeout)
        execution = Execution(ExecStatus.ENGINE_ERROR, error="execution did not finish")
        try:
            self._begin(conn, schema, deadline)
            execution = self._run(conn, texts, deadline, request.max_rows)
        except (psycopg.Error, OSError, _LostConnection) as exc:
            execution = Execution(
                ExecStatus.ENGINE_ERROR, error=st.trim_message(f"{type(exc).__name__}: {exc}")
            )
        finally:
            self._end(conn)
        return execution

    def _begin(self, conn: psycopg.Connection[Any], schema: str, deadline: st.Deadline) -> None:
        setup = sql.SQL(
            "BEGIN; SET LOCAL statement_timeout = {}; SET LOCAL search_path = {}, {}; "
            "INSERT INTO {}.commit_trap DEFAULT VALUES"
        ).format(
            sql.Literal(max(1, int(deadline.seconds * 1000))),
            sql.Identifier(self._scratch or "pg_temp"),
            sql.Identifier(schema),
            sql.Identifier(GUARD_SCHEMA),
        )
        for attempt in range(2):
            try:
                conn.execute(setup)
                return
            except psycopg.errors.QueryCanceled:  # a late cancel from the previous execution
                conn.execute("ROLLBACK")
                if attempt:
                    raise

    def _end(self, conn: psycopg.Connection[Any]) -> None:
        """Roll back; clear session state (after every execution: a DO block or function can
        create it out of any guard's sight); drop the connection if anything fails."""
        try:
            for attempt in range(2):
                try:
                    if conn.info.transaction_status != pq.TransactionStatus.IDLE:
                        conn.execute("ROLLBACK")
                    break
                except psycopg.errors.QueryCanceled:
                    if attempt:
                        raise
            conn.execute("DISCARD ALL")
            if self._mode == "set_role":
                conn.execute(sql.SQL("SET ROLE {}").format(sql.Identifier(RUNNER)))
            if conn.info.transaction_status != pq.TransactionStatus.IDLE:
                raise _LostConnection("transaction still open after ROLLBACK")
        except (psycopg.Error, OSError, _LostConnection):
            self._drop_runner()

    def _run(
        self,
        conn: psycopg.Connection[Any],
        texts: Sequence[str],
        deadline: st.Deadline,
        max_rows: int,
    ) -> Execution:
        def before(_text: str, _remaining: float) -> str | None:
            if conn.info.transaction_status != pq.TransactionStatus.INTRANS:
                return "a statement ended parrot's transaction"
            return None

        def run(text: str, _remaining: float) -> tuple[values.ResultSet, bool] | None:
            outcome = self._statement(conn, text, max_rows, deadline.at + HARD_GRACE)
            if outcome.error is not None:
                raise st.Failed(outcome.error, outcome.sqlstate)
            if outcome.too_large:
                raise st.Overflow
            return None if outcome.result is None else (outcome.result, False)

        pid = conn.info.backend_pid
        return st.run_in_order(
            texts,
            deadline,
            max_rows,
            run,
            lambda: self._cancel(conn),
            ERRORS,
            str,
            before=before,
            escalate=lambda: self._terminate(pid),
        )

    def _terminate(self, pid: int) -> str | None:
        """``pg_terminate_backend`` a runner whose statement ignored the cancel (a PL/pgSQL
        handler for ``query_canceled`` swallows it), from a connection of its own, and wait
        until ``pg_stat_activity`` no longer lists the backend (the next execution reconnects).
        """
        with _connect(self.url, application_name="parrot-admin", connect_timeout=10) as admin:
            admin.autocommit = True
            admin.execute("SELECT pg_terminate_backend(%s)", [pid])

            def listed() -> bool:
                row = admin.execute(
                    "SELECT count(*) FROM pg_stat_activity WHERE pid = %s", [pid]
                ).fetchone()
                return bool(row and row[0])

            return st.wait_stopped(listed, f"backend {pid}")

    @staticmethod
    def _cancel(conn: psycopg.Connection[Any]) -> None:
        try:
            conn.cancel_safe(timeout=2.0)
        except Exception:
            conn.cancel()

    def _statement(
        self, conn: psycopg.Connection[Any], text: str, max_rows: int, hard_deadline: float
    ) -> _Outcome:
        """Run one statement over the extended protocol, streaming at most max_rows + 1 rows."""
        pg = conn.pgconn
        pg.send_query_params(text.encode(), None)
        if psycopg.capabilities.has_stream_chunked():
            pg.set_chunked_rows_mode(CHUNK_ROWS)
        else:
            pg.set_single_row_mode()
        _flush(pg, hard_deadline)
        tx = Transformer(conn)
        outcome = _Outcome()
        rows: list[tuple[Any, ...]] = []
        names: list[str] | None = None
        types: list[str] = []
        stop = False  # cancelled or failed: drain what is left
        while (res := _next_result(pg, hard_deadline)) is not None:
            status = res.status
            if status in (
                pq.ExecStatus.SINGLE_TUPLE,
                pq.ExecStatus.TUPLES_CHUNK,
                pq.ExecStatus.TUPLES_OK,
            ):
                if names is None:
                    names = [(res.fname(i) or b"").decode() for i in range(res.nfields)]
                    types = [
                        _type_name(conn, res.ftype(i), res.fmod(i)) for i in range(res.nfields)
                    ]
                    tx.set_pgresult(res)
                else:
                    tx.set_pgresult(res, set_loaders=False)
                if stop or not res.ntuples:
                    continue
                try:
                    take = min(res.ntuples, max_rows + 1 - len(rows))
                    rows.extend(tx.load_rows(0, take, tuple))
                except Exception as exc:  # a value psycopg cannot convert
                    outcome.sqlstate, outcome.error = (
                        "22000",
                        st.trim_message(f"cannot convert a result value: {exc}"),
                    )
                    stop = True
                    self._cancel(conn)
                    continue
                if len(rows) > max_rows:
                    outcome.too_large = stop = True
                    self._cancel(conn)
            elif status == pq.ExecStatus.FATAL_ERROR:
                if not stop:
                    raw = res.error_field(pq.DiagnosticField.SQLSTATE)
                    outcome.sqlstate = raw.decode() if raw else None
                    outcome.error = _message(res)
                    if outcome.sqlstate is None and pg.status == pq.ConnStatus.BAD:
                        raise _LostConnection(outcome.error)
                stop = True
            elif status in (
                pq.ExecStatus.COPY_OUT,
                pq.ExecStatus.COPY_IN,
                pq.ExecStatus.COPY_BOTH,
            ):  # unreachable past the guard
                raise _LostConnection("COPY is not allowed (connection dropped)")
        if pg.status == pq.ConnStatus.BAD:
            raise _LostConnection("connection to the server lost")
        if outcome.error is not None or outcome.too_large or names is None:
            return outcome
        canon = tuple(tuple(safe_canonical(v) for v in row) for row in rows)
        outcome.result = values.ResultSet(tuple(names), canon, tuple(types))
        return outcome


def _flush(pg: pq.abc.PGconn, hard_deadline: float) -> None:
    while pg.flush() != 0:
        _wait(pg, write=True, hard_deadline=hard_deadline)


def _next_result(pg: pq.abc.PGconn, hard_deadline: float) -> pq.abc.PGresult | None:
    while True:
        pg.consume_input()
        if not pg.is_busy():
            return pg.get_result()
        _wait(pg, write=False, hard_deadline=hard_deadline)


def _wait(pg: pq.abc.PGconn, *, write: bool, hard_deadline: float) -> None:
    """Wait for the socket (releasing the GIL, so the watchdog can cancel meanwhile)."""
    remaining = hard_deadline - time.monotonic()
    if remaining <= 0:
        raise _LostConnection("the server did not answer a cancel request in time")
    sock = pg.socket
    ready = (
        select.select([], [sock], [], min(remaining, 1.0))
        if write
        else select.select([sock], [], [], min(remaining, 1.0))
    )
    del ready


__all__ = ["PostgresEngine", "interval_seconds", "postgres_type"]
