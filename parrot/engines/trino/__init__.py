"""Trino adapter (the ``trino`` client over HTTP), for your own cluster reached by URL —
nothing here starts a Trino server.

``trino://user@host:8080/catalog`` (``trino://user:password@host:443/catalog`` uses HTTPS and
basic authentication; ``?http_scheme=http|https``, ``?verify=no`` to skip certificate checks,
``?roles=...``), given as ``--engine trino=URL`` or ``$PARROT_TRINO_URL``. The catalog is
required and must be writable by the URL's user (``memory``, ``iceberg``, ``hive``, ``delta``,
``postgresql``, ...): parrot stores its fixtures there. Driver: ``pip install
'parrot-sql[trino]'`` (trino).

**Fixtures.** One schema per fixture content hash, ``<catalog>.parrot_fx_<hash>``, created by
the URL's user and shared by every adapter instance and process (an existing schema is verified
— row counts + checksums — instead of reloaded, and rebuilt when it fails; a concurrent loader
is detected by "schema already exists" and waited for). Names are lower case (Trino's own
folding). Type map: integer → INTEGER, bigint → BIGINT, double → DOUBLE, decimal(p,s) →
DECIMAL(p,s), text → VARCHAR, boolean → BOOLEAN, date → DATE, timestamp → TIMESTAMP(6); NOT
NULL is kept where the connector supports it (dropped otherwise); Trino has no primary keys.
Whether a connector stores every value faithfully (e.g. Hive's timestamp precision) is what the
load verification finds out. Some connectors need a location for new schemas (``hive``,
``iceberg`` without a default warehouse): then loading fails with the connector's message. Drop
the schemas with ``DROP SCHEMA <catalog>.parrot_fx_<hash> CASCADE`` when done.

**Isolation: read-only.** Writes in Trino belong to the connector (most cannot roll back, and
what a view or table creation does depends on the catalog), so translations run read-only: the
guard accepts SELECT/WITH/VALUES/TABLE/SHOW/DESCRIBE/EXPLAIN and ``SET SESSION``/``RESET
SESSION`` (except the time limits parrot sets) and refuses everything else (UNSUPPORTED): DDL,
DML, CALL, PREPARE/EXECUTE, transactions, USE, GRANT/REVOKE/DENY, ANALYZE, SET ROLE, SET TIME
ZONE, SET SESSION AUTHORIZATION, the ``query()`` table function (raw SQL passed to a connector's
database) and any ``parrot_`` name. Each execution uses a fresh client session whose default
catalog and schema are the fixture's.

**Timeouts**: the session properties ``query_max_execution_time`` and ``query_max_run_time``
(the execution's budget; Trino fails the query with EXCEEDED_TIME_LIMIT) plus a watchdog calling
``cursor.cancel()`` at the deadline → TIMEOUT. **Result cap**: ``fetchmany`` up to ``max_rows +
1`` rows, then the query is cancelled → TOO_LARGE. **Errors** by Trino error name:
SYNTAX_ERROR → SYNTAX_ERROR; EXCEEDED_TIME_LIMIT → TIMEOUT; USER_CANCELED → TIMEOUT when parrot
cancelled; PERMISSION_DENIED → UNSUPPORTED; cluster failures (no nodes, server shutting down,
remote task errors) and HTTP/connection errors → ENGINE_ERROR; the rest RUNTIME_ERROR.

**Session settings**: time zone UTC (the client's ``timezone``). Nothing else is changed.

**Values** (the client's mapping, then): integers → int, DOUBLE/REAL → float (NaN/inf kept),
DECIMAL → Decimal, VARCHAR/CHAR → str, BOOLEAN → bool, DATE → Temporal date, TIMESTAMP →
Temporal timestamp (precision above microseconds is cut), WITH TIME ZONE → UTC, TIME [WITH TIME
ZONE] → Temporal time (UTC), INTERVAL DAY TO SECOND / YEAR TO MONTH → Nested
``{"interval_seconds": ...}`` (a month counts 30 days), ARRAY/MAP → Nested, ROW → Nested
(an object when every field is named), JSON → Nested, UUID/IPADDRESS → str, VARBINARY → bytes.
"""

from __future__ import annotations

import datetime as dt
import importlib
import math
from collections.abc import Callable, Sequence
from typing import Any, ClassVar

from parrot import values
from parrot.engines import statements as st
from parrot.engines.base import Capabilities, Execution, TypeMap
from parrot.engines.dbapi import (
    CONNECT_TIMEOUT,
    ContainerExists,
    DriverSpec,
    Literals,
    ServerEngine,
    ServerURL,
    create_table_sql,
    fetch_capped,
    json_value,
    months_interval,
)
from parrot.fixtures import Table

REQUEST_TIMEOUT = 60.0  # seconds per HTTP request

# --- types ----------------------------------------------------------------------------------------

trino_type = TypeMap.standard(timestamp="TIMESTAMP(6)")


def string_literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


# a fixture value as a Trino literal of the column's type
literal = Literals(
    trino_type,
    string_literal,
    specials=("NaN", "Infinity", "-Infinity"),
    templates={
        "double": "CAST('{v}' AS DOUBLE)",
        "date": "DATE '{v}'",
        "timestamp": "TIMESTAMP '{v}'",
        "decimal": "CAST('{v}' AS {t})",
        "integer": "CAST('{v}' AS {t})",
        "bigint": "CAST('{v}' AS {t})",
    },
)


# --- statement guard ------------------------------------------------------------------------------

READ_ONLY_REASON = (
    "parrot runs Trino translations read-only: writes belong to the catalog's "
    "connector and cannot be rolled back"
)

GUARD = st.Guard(
    lexicon=st.TRINO,
    reads=frozenset(
        {"SELECT", "WITH", "VALUES", "TABLE", "SHOW", "DESCRIBE", "EXPLAIN", "SET", "RESET"}
    ),
    read_only=True,
    read_only_reason=READ_ONLY_REASON,
    # a leading word outside ``reads`` writes; these make EXPLAIN ANALYZE <write> a write too
    write_words=st.WRITE_WORDS | {"merge", "grant", "revoke", "deny", "call", "comment", "refresh"},
    refused_sequences=(
        ("SET", "ROLE"),
        ("SET", "TIME", "ZONE"),
        ("SET", "SESSION", "AUTHORIZATION"),
        ("RESET", "SESSION", "AUTHORIZATION"),
        ("SET", "PATH"),
    ),
    refused_calls=frozenset({"query", "raw_query"}),
    protected_settings=frozenset(
        {"query_max_execution_time", "query_max_run_time", "query_max_planning_time"}
    ),
    setting_statements=(("SET", "SESSION"), ("RESET", "SESSION")),
)


# --- errors ---------------------------------------------------------------------------------------


def error_code(exc: BaseException) -> str | None:
    name = getattr(exc, "error_name", None)
    return name if isinstance(name, str) else None


ERRORS = st.ErrorTable(
    code=error_code,
    syntax=frozenset({"SYNTAX_ERROR"}),
    timeout=frozenset({"EXCEEDED_TIME_LIMIT"}),
    cancelled=frozenset({"USER_CANCELED", "ADMINISTRATIVELY_KILLED"}),
    denied=frozenset({"PERMISSION_DENIED"}),
    lost=frozenset(
        {
            "NO_NODES_AVAILABLE",
            "SERVER_SHUTTING_DOWN",
            "SERVER_STARTING_UP",
            "REMOTE_TASK_ERROR",
            "REMOTE_TASK_MISMATCH",
            "REMOTE_HOST_GONE",
            "PAGE_TRANSPORT_ERROR",
            "PAGE_TRANSPORT_TIMEOUT",
            "TOO_MANY_REQUESTS_FAILED",
            "CLUSTER_OUT_OF_MEMORY",
            "ABANDONED_QUERY",
        }
    ),
)


# --- values ---------------------------------------------------------------------------------------


def _utc_time(value: Any) -> Any:
    if isinstance(value, dt.time) and value.tzinfo is not None:
        offset = value.utcoffset() or dt.timedelta()
        moment = dt.datetime.combine(dt.date(2000, 1, 1), value.replace(tzinfo=None)) - offset
        return moment.time()
    return value


def _row(value: Any) -> Any:
    names = getattr(value, "_names", None)
    if isinstance(value, tuple) and names and all(names) and len(names) == len(value):
        return dict(zip(names, value, strict=True))
    return value


def _interval_ym(value: Any) -> Any:
    years, months = getattr(value, "years", None), getattr(value, "months", None)
    if years is None or months is None:
        return value
    return months_interval(int(years), int(months))


def converter(type_name: str) -> Callable[[Any], Any]:
    """How to turn one column of Trino type ``type_name`` (as the client reports it) into a
    plain Python value."""
    t = type_name.lower()
    if t == "interval year to month":
        return _interval_ym
    if (t.startswith("time ") or t.startswith("time(")) and t.endswith("with time zone"):
        return _utc_time
    if t.startswith("row("):
        return _row
    if t == "json":
        return json_value
    if t in ("uuid", "ipaddress"):
        return str
    return lambda v: v


# --- the adapter ----------------------------------------------------------------------------------


class TrinoEngine(ServerEngine):
    name: ClassVar[str] = "trino"
    dialect: ClassVar[str] = "trino"
    url_schemes: ClassVar[tuple[str, ...] | None] = ("trino",)
    capabilities: ClassVar[Capabilities] = Capabilities(
        booleans=True,
        transactional_ddl=False,
        udfs=False,  # read-only executions (no CREATE FUNCTION)
        procedures=False,
        decimals=True,
        timestamps_us=True,  # TIMESTAMP(6)
    )
    url_example: ClassVar[str] = "trino://user@host:8080/catalog"
    default_port: ClassVar[int | None] = 8080
    driver_spec = DriverSpec("trino", "trino", "trino")
    guard: ClassVar[st.Guard] = GUARD
    errors: ClassVar[st.ErrorTable] = ERRORS
    literal = literal
    fold: ClassVar[str | None] = "lower"
    admin_fetches: ClassVar[bool] = True  # a statement finishes when its results are read

    def __init__(self, url: str | None = None) -> None:
        super().__init__(url)
        for sub in ("auth", "dbapi", "exceptions"):  # submodules the adapter uses
            importlib.import_module(f"{self.driver_spec.module}.{sub}")

        self.home = self.catalog_of(self.url)
        self._not_null = True  # whether the connector accepts NOT NULL columns

    @staticmethod
    def catalog_of(url: ServerURL) -> str:
        if not url.path:
            raise ValueError(
                f"a Trino URL names a writable catalog for parrot's fixtures: "
                f"trino://user@host:8080/memory (got {url.redacted()!r})"
            )
        return url.path[0]

    @staticmethod
    def connect_params(
        url: ServerURL, schema: str | None = None, timeout: float | None = None
    ) -> dict[str, Any]:
        """``trino.dbapi.connect`` keyword arguments (``password`` becomes basic auth)."""
        scheme = url.param("http_scheme") or ("https" if url.password else "http")
        params: dict[str, Any] = {
            "host": url.host,
            "port": url.port or (443 if scheme == "https" else TrinoEngine.default_port),
            "user": url.user or "parrot",
            "catalog": TrinoEngine.catalog_of(url),
            "schema": schema,
            "http_scheme": scheme,
            "timezone": "UTC",
            "source": "parrot",
            "verify": url.flag("verify", True),
            "request_timeout": REQUEST_TIMEOUT,
            "max_attempts": 1,
        }
        if url.password:
            params["password"] = url.password
        if url.param("roles"):
            params["roles"] = url.param("roles")
        if timeout is not None:
            limit = f"{max(1, math.ceil(timeout * 1000))}ms"
            params["session_properties"] = {
                "query_max_execution_time": limit,
                "query_max_run_time": limit,
            }
        return params

    def _connect(
        self, schema: str | None = None, timeout: float = max(CONNECT_TIMEOUT, 600)
    ) -> Any:  # the admin's by default
        params = self.connect_params(self.url, schema, timeout)
        password = params.pop("password", None)
        if password is not None:
            params["auth"] = self.driver.auth.BasicAuthentication(params["user"], password)
        return self.driver.dbapi.connect(**params)

    def driver_errors(self) -> tuple[type[BaseException], ...]:
        exceptions = self.driver.exceptions
        return (exceptions.TrinoQueryError, exceptions.TrinoDataError)

    def _ask_version(self) -> str:
        return f"Trino {self._admin_rows('SELECT version()')[0][0]}"

    # --- fixtures -----------------------------------------------------------------------------

    def _create_container(self, container: str) -> None:
        try:
            self._admin_rows(f"CREATE SCHEMA {self.qualified(container)}")
        except self.driver.exceptions.TrinoQueryError as exc:
            if error_code(exc) == "SCHEMA_ALREADY_EXISTS":
                raise ContainerExists(container) from exc
            raise

    def _drop_container(self, container: str) -> None:
        for (name,) in self._admin_rows(
            f"SELECT table_name FROM {self.quote(self.home or '')}.information_schema."
            f"tables WHERE table_schema = {string_literal(container)}"
        ):
            self._admin_rows(f"DROP TABLE IF EXISTS {self.qualified(container)}.{self.quote(name)}")
        self._admin_rows(f"DROP SCHEMA IF EXISTS {self.qualified(container)}")

    def table_ddl(self, container: str, table: Table, not_null: bool = True) -> str:
        return create_table_sql(
            self.qualified(container, table.name),
            table,
            self.ident,
            trino_type,
            primary_key=False,
            not_null=not_null,
        )

    def _create_table(self, container: str, table: Table) -> None:
        try:
            self._admin_rows(self.table_ddl(container, table, self._not_null))
        except self.driver.exceptions.TrinoQueryError as exc:
            if not self._not_null or "NOT NULL" not in str(exc).upper():
                raise
            self._not_null = False  # e.g. "Catalog 'x' does not support non-null column"
            self._admin_rows(self.table_ddl(container, table, False))

    # --- execution ----------------------------------------------------------------------------

    def _execute_plans(self, script: st.Script, container: str) -> Execution:
        conn = self._connect(schema=container, timeout=script.deadline.seconds)
        cur = conn.cursor()
        try:
            return self._run(cur, script)
        finally:
            st.close_quietly(cur, conn)

    def _statement(self, cursor: Any, plan: st.Plan, max_rows: int) -> values.ResultSet | None:
        cursor.execute(plan.text)
        if cursor.description:
            return self._result(cursor.description, fetch_capped(cursor, max_rows))
        cursor.fetchall()  # a statement without rows finishes when its results are read
        return None

    def _arm_timeout(self, cursor: Any, seconds: float) -> None:
        """Nothing per statement: the session's time limits carry the execution's budget and
        the watchdog the remainder."""

    def _cancel(self, cursor: Any) -> None:
        cursor.cancel()

    def _converter(self, column: Sequence[Any]) -> Callable[[Any], Any]:
        return converter(str(column[1]))

    def _raw_message(self, exc: BaseException) -> str:
        message = getattr(exc, "message", None)
        name = error_code(exc)
        if isinstance(message, str):
            return f"{name}: {message}" if name else message
        return f"{type(exc).__name__}: {exc}"


__all__ = ["ERRORS", "GUARD", "TrinoEngine", "converter", "error_code", "literal", "trino_type"]
