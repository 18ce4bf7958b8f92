"""Snowflake adapter (snowflake-connector-python), for your own account reached by URL.

``snowflake://user:password@account/database?warehouse=WH&role=ROLE`` (the account identifier
as host, e.g. ``myorg-myaccount`` or ``xy12345.eu-west-1``; a full
``....snowflakecomputing.com`` host works too; ``?authenticator=snowflake_jwt&
private_key_file=/path.p8&private_key_password=...`` or ``?authenticator=oauth&token=...``
for other sign-ins), given as ``--engine snowflake=URL`` or ``$PARROT_SNOWFLAKE_URL``. The
database is required: parrot creates its schemas there, so **point it at a database of its own**
(its role needs CREATE SCHEMA there and a warehouse). Driver: ``pip install
'parrot-sql[snowflake]'``.

**Fixtures.** One TRANSIENT schema per fixture content hash, ``PARROT_FX_<HASH>``, in the URL's
database (no Time Travel or Fail-safe storage), built under a temporary name and renamed into
place (``ALTER SCHEMA ... RENAME``; losing a race to another process just means verifying its
schema), shared by every adapter instance and process: an existing schema is verified — row
counts + checksums — instead of reloaded, and rebuilt when it fails. Table and column names are
upper case (quoted), Snowflake's own folding. Type map: integer → NUMBER(10,0), bigint →
NUMBER(19,0), double → FLOAT (NaN and infinities kept), decimal(p,s) → NUMBER(p,s), text →
VARCHAR, boolean → BOOLEAN, date → DATE, timestamp → TIMESTAMP_NTZ(6); NOT NULL and the primary
key (not enforced by Snowflake) are kept. Drop the schemas with ``DROP SCHEMA
PARROT_FX_<HASH>`` when done.

**Isolation.** Snowflake commits DDL implicitly (a CREATE inside a transaction commits it), so
nothing is rolled back; instead each script is classified from its statements:

* *read-only* (SELECT/WITH/SHOW/DESCRIBE/EXPLAIN and session variables): runs on the fixture's
  schema (``USE SCHEMA``);
* *writing* (CREATE TEMP TABLE/VIEW/FUNCTION, DML, ALTER TABLE, ...): runs on a zero-copy clone
  of the fixture's schema, ``PARROT_SX_<token>_<n>`` (``CREATE TRANSIENT SCHEMA ... CLONE``:
  instant, no data copied), dropped afterwards. A writing statement may only name its target
  unqualified (so it can only touch the clone): ``INSERT INTO db.s.t``, ``ALTER TABLE t RENAME
  TO other.t``, ``... SWAP WITH`` and the like are refused.

The guard refuses (UNSUPPORTED): USE, transactions (BEGIN/START/COMMIT/ROLLBACK), CALL, EXECUTE
IMMEDIATE, Snowflake Scripting blocks (DECLARE/BEGIN), stored procedures, COPY/PUT/GET/REMOVE/
LIST (stages and files), GRANT/REVOKE, UNDROP, CREATE/ALTER/DROP of databases, schemas,
warehouses, roles, users, integrations, stages, pipes, streams, tasks, shares, policies,
secrets, services and account objects, external access from UDFs (``IMPORTS``,
``EXTERNAL_ACCESS_INTEGRATIONS``, ``SECRETS``), ``SYSTEM$`` functions (``SYSTEM$WAIT`` and
``SYSTEM$TYPEOF`` aside), ALTER SESSION of the parameters parrot relies on
(``STATEMENT_TIMEOUT_IN_SECONDS``, ``TIMEZONE``, ``AUTOCOMMIT``, ``QUERY_TAG``,
``MULTI_STATEMENT_COUNT``, ``CLIENT_*``, ...) and any ``parrot_`` name. Each statement is sent
alone (Snowflake's default ``MULTI_STATEMENT_COUNT = 1`` rejects a request holding two). Runs
as the URL's user and role: use a role whose rights end at parrot's database.

**Timeouts**: ``ALTER SESSION SET STATEMENT_TIMEOUT_IN_SECONDS`` to the remaining budget (whole
seconds, at least 1) before each statement, plus a watchdog running
``SYSTEM$CANCEL_ALL_QUERIES(<session>)`` from a second connection at the deadline → TIMEOUT.
**Result cap**: ``fetchmany`` up to ``max_rows + 1`` rows, then the query is cancelled →
TOO_LARGE. **Errors** by Snowflake error number: 1003 (syntax error) → SYNTAX_ERROR; 630
(statement timeout) → TIMEOUT; 604 (cancelled) → TIMEOUT when parrot cancelled; 3001/3003
(insufficient privileges) → UNSUPPORTED; 606 (no warehouse), 250001-250003 (network), 390xxx
(session/authentication) → ENGINE_ERROR; the rest RUNTIME_ERROR.

**Session settings**: ``TIMEZONE = 'UTC'``, ``QUERY_TAG = 'parrot'``, autocommit. Semantics
parameters (``WEEK_START``, ``QUOTED_IDENTIFIERS_IGNORE_CASE``, ...) keep the account's values;
a script may change them with ALTER SESSION — its connection is then replaced afterwards.

**Values**: NUMBER with scale 0 → int, with a scale → Decimal, FLOAT → float, VARCHAR → str,
BOOLEAN → bool, DATE → Temporal date, TIMESTAMP_NTZ → Temporal timestamp, _LTZ/_TZ → Temporal
timestamp in UTC, TIME → Temporal time, BINARY → bytes, VARIANT/OBJECT/ARRAY/MAP (JSON text) →
Nested, VECTOR → Nested, GEOGRAPHY/GEOMETRY → their text.
"""

from __future__ import annotations

import contextlib
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
    json_value,
    utc_naive,
)
from parrot.fixtures import Table

ACCOUNT_SUFFIX = ".snowflakecomputing.com"
PASSTHROUGH = (
    "warehouse",
    "role",
    "authenticator",
    "private_key_file",
    "private_key_password",
    "token",
    "passcode",
    "host",
    "port",
    "protocol",
)

# --- types ----------------------------------------------------------------------------------------

snowflake_type = TypeMap.standard(
    integer="NUMBER(10,0)",
    bigint="NUMBER(19,0)",
    double="FLOAT",
    timestamp="TIMESTAMP_NTZ(6)",
    decimal="NUMBER({p},{s})",
)


def string_literal(text: str) -> str:
    """A Snowflake single-quoted string (backslashes are escapes there)."""
    return "'" + text.replace("\\", "\\\\").replace("'", "''") + "'"


# a fixture value as a Snowflake literal of the column's type
literal = Literals(
    snowflake_type,
    string_literal,
    specials=("NaN", "inf", "-inf"),
    templates={
        "double": "'{v}'::FLOAT",
        "date": "'{v}'::DATE",
        "timestamp": "'{v}'::TIMESTAMP_NTZ(6)",
        "decimal": "'{v}'::{t}",
    },
)


# --- statement guard ------------------------------------------------------------------------------

_ALLOWED_SYSTEM = frozenset({"system$wait", "system$typeof"})
_TARGET_KINDS = frozenset(
    {
        "TABLE",
        "VIEW",
        "FUNCTION",
        "SEQUENCE",
        "TAG",
        "FILE",
        "FORMAT",
        "EVENT",
        "MATERIALIZED",
        "SECURE",
        "TEMPORARY",
        "TEMP",
        "TRANSIENT",
        "VOLATILE",
        "LOCAL",
        "GLOBAL",
        "OR",
        "REPLACE",
        "IF",
        "NOT",
        "EXISTS",
        "RECURSIVE",
    }
)


def _write_targets(plan: st.Plan) -> list[int]:
    """Indexes of the tokens naming what a writing statement writes to."""
    tokens, first = plan.tokens, plan.first
    words = [(i, t) for i, t in enumerate(tokens) if t.kind is not st.TokenKind.PUNCT]
    out: list[int] = []
    for pos, (i, tok) in enumerate(words):
        nxt = words[pos + 1][0] if pos + 1 < len(words) else None
        if nxt is None or tok.kind is not st.TokenKind.WORD:
            continue
        name = tok.name
        if (
            (name == "into" and first in ("INSERT", "MERGE"))
            or (name == "from" and first == "DELETE" and not out)
            or (name == "to" and i and tokens[i - 1].name == "rename")
            or (name == "with" and i and tokens[i - 1].name == "swap")
        ):
            out.append(nxt)
    if first in ("UPDATE", "TRUNCATE", "CREATE", "DROP", "ALTER", "COMMENT"):
        skip = {"UPDATE", "TRUNCATE", "CREATE", "DROP", "ALTER", "COMMENT", "ON"} | _TARGET_KINDS
        at = next(
            (i for i, t in words if not (t.kind is st.TokenKind.WORD and t.text.upper() in skip)),
            None,
        )
        if at is not None:
            out.append(at)
    return out


def _snowflake_extra(plan: st.Plan) -> str | None:
    for tok in plan.tokens:
        if (
            tok.kind is st.TokenKind.WORD
            and tok.name.startswith("system$")
            and tok.name not in _ALLOWED_SYSTEM
        ):
            return f"{tok.text}: SYSTEM$ functions are not allowed"
    if plan.writes:
        for at in _write_targets(plan):
            after = plan.tokens[at + 1] if at + 1 < len(plan.tokens) else None
            if after is not None and after.text == ".":
                return (
                    "a writing statement may only name its target unqualified (it runs on "
                    f"a scratch copy of the fixture): {plan.tokens[at].text}.…"
                )
    return None


GUARD = st.Guard(
    lexicon=st.SNOWFLAKE,
    reads=frozenset({"SELECT", "WITH", "SHOW", "DESCRIBE", "DESC", "EXPLAIN", "SET", "UNSET"}),
    refused_first=frozenset(
        {
            "USE",
            "GRANT",
            "REVOKE",
            "COPY",
            "PUT",
            "GET",
            "REMOVE",
            "RM",
            "LIST",
            "LS",
            "CALL",
            "EXECUTE",
            "BEGIN",
            "START",
            "COMMIT",
            "ROLLBACK",
            "UNDROP",
            "DECLARE",
            "EXCEPTION",
            "RETURN",
            "LET",
            "FOR",
            "WHILE",
            "REPEAT",
            "LOOP",
            "CASE",
            "IF",
        }
    ),
    refused_objects=frozenset(
        {
            "DATABASE",
            "SCHEMA",
            "WAREHOUSE",
            "ROLE",
            "USER",
            "INTEGRATION",
            "STAGE",
            "PIPE",
            "STREAM",
            "TASK",
            "SHARE",
            "NETWORK",
            "SECURITY",
            "PROCEDURE",
            "EXTERNAL",
            "DYNAMIC",
            "ALERT",
            "NOTEBOOK",
            "APPLICATION",
            "SECRET",
            "ACCOUNT",
            "CONNECTION",
            "REPLICATION",
            "FAILOVER",
            "RESOURCE",
            "MANAGED",
            "ORGANIZATION",
            "PASSWORD",
            "ICEBERG",
            "HYBRID",
            "SNAPSHOT",
            "SERVICE",
            "COMPUTE",
            "IMAGE",
            "GIT",
            "MODEL",
            "DATASET",
            "AGENT",
            "API",
            "NOTIFICATION",
            "STORAGE",
            "MASKING",
            "ROW",
            "AGGREGATION",
            "PROJECTION",
            "AUTHENTICATION",
            "PACKAGES",
            "JOIN",
            "PRIVACY",
            "CORTEX",
            "EVENT",
        }
    ),
    refused_sequences=(("EXECUTE", "IMMEDIATE"), ("SWAP", "WITH"), ("SESSION", "POLICY")),
    refused_words=frozenset({"external_access_integrations", "imports", "secrets"}),
    protected_settings=frozenset(
        {
            "statement_timeout_in_seconds",
            "statement_queued_timeout_in_seconds",
            "timezone",
            "autocommit",
            "query_tag",
            "multi_statement_count",
            "rows_per_resultset",
            "lock_timeout",
            "abort_detached_query",
            "client_session_keep_alive",
            "client_result_chunk_size",
            "client_prefetch_threads",
            "client_timestamp_type_mapping",
            "jdbc_use_session_timezone",
            "python_connector_query_result_format",
            "odbc_use_custom_sql_data_types",
        }
    ),
    setting_statements=(("ALTER", "SESSION"),),
    write_words=st.WRITE_WORDS | {"merge", "comment", "undrop"},
    extra=_snowflake_extra,
)


# --- errors ---------------------------------------------------------------------------------------


def error_code(exc: BaseException) -> int | None:
    errno = getattr(exc, "errno", None)
    return errno if isinstance(errno, int) and errno >= 0 else None


ERRORS = st.ErrorTable(
    code=error_code,
    syntax=frozenset({1003}),
    timeout=frozenset({630}),
    cancelled=frozenset({604}),
    denied=frozenset({3001, 3003}),
    lost=frozenset(
        {
            606,
            250001,
            250002,
            250003,
            250005,
            390100,
            390111,
            390112,
            390114,
            390318,
            251005,
            251006,
        }
    ),
)


# --- values ---------------------------------------------------------------------------------------

TYPE_NAMES = {
    0: "FIXED",
    1: "REAL",
    2: "TEXT",
    3: "DATE",
    4: "TIMESTAMP",
    5: "VARIANT",
    6: "TIMESTAMP_LTZ",
    7: "TIMESTAMP_TZ",
    8: "TIMESTAMP_NTZ",
    9: "OBJECT",
    10: "ARRAY",
    11: "BINARY",
    12: "TIME",
    13: "BOOLEAN",
    14: "GEOGRAPHY",
    15: "GEOMETRY",
    16: "VECTOR",
    17: "MAP",
    18: "FILE",
    19: "INTERVAL_YEAR_MONTH",
    20: "INTERVAL_DAY_TIME",
}


def converter(type_name: str) -> Callable[[Any], Any]:
    """How to turn one column of Snowflake type ``type_name`` (``TYPE_NAMES``) into a plain
    Python value."""
    if type_name in ("VARIANT", "OBJECT", "ARRAY", "MAP"):
        return json_value
    if type_name in ("TIMESTAMP_LTZ", "TIMESTAMP_TZ"):
        return lambda v: utc_naive(v) if hasattr(v, "tzinfo") and hasattr(v, "date") else v
    if type_name in ("GEOGRAPHY", "GEOMETRY"):
        return lambda v: v if isinstance(v, str) else values.canonical(v)
    if type_name == "VECTOR":
        return lambda v: list(v) if not isinstance(v, list) else v
    if type_name == "BINARY":
        return lambda v: bytes(v) if isinstance(v, bytearray | memoryview) else v
    return lambda v: v


# --- the adapter ----------------------------------------------------------------------------------


class SnowflakeEngine(ServerEngine):
    name: ClassVar[str] = "snowflake"
    dialect: ClassVar[str] = "snowflake"
    url_schemes: ClassVar[tuple[str, ...] | None] = ("snowflake",)
    capabilities: ClassVar[Capabilities] = Capabilities(
        booleans=True,
        transactional_ddl=False,  # DDL commits implicitly: writing scripts run on a clone
        udfs=True,  # CREATE FUNCTION (SQL/JavaScript/Python without external access) in a clone
        procedures=False,
        decimals=True,
        timestamps_us=True,  # TIMESTAMP_NTZ(6)
    )
    url_example: ClassVar[str] = "snowflake://user:password@account/database?warehouse=WH"
    driver_spec = DriverSpec("snowflake.connector", "snowflake-connector-python", "snowflake")
    guard: ClassVar[st.Guard] = GUARD
    errors: ClassVar[st.ErrorTable] = ERRORS
    literal = literal
    fold: ClassVar[str | None] = "upper"
    rename_builds: ClassVar[bool] = True

    def __init__(self, url: str | None = None) -> None:
        super().__init__(url)
        self.home = self.connect_params(self.url)["database"]
        self._runner_session: str | None = None

    @property
    def database(self) -> str | None:
        """The database whose schemas hold parrot's fixtures (the URL's path)."""
        return self.home

    @staticmethod
    def connect_params(url: ServerURL) -> dict[str, Any]:
        """``snowflake.connector.connect`` keyword arguments for a URL."""
        if not url.path:
            raise ValueError(
                f"name the database parrot may create schemas in: "
                f"{SnowflakeEngine.url_example} (got {url.redacted()!r})"
            )
        account = url.host
        if account.endswith(ACCOUNT_SUFFIX):
            account = account[: -len(ACCOUNT_SUFFIX)]
        params: dict[str, Any] = {
            "account": account,
            "user": url.user,
            "database": url.path[0],
            "login_timeout": CONNECT_TIMEOUT * 3,
            "timezone": "UTC",
            "query_tag": "parrot",
            "autocommit": True,
            "client_session_keep_alive": False,
            "enable_server_session_keep_alive_auto_detection": False,
        }
        if url.password is not None:
            params["password"] = url.password
        for key in PASSTHROUGH:
            if (value := url.param(key)) is not None:
                params[key] = int(value) if key == "port" else value
        return params

    def _connect(self) -> Any:
        return self.driver.connect(**self.connect_params(self.url))

    def _runner_conn(self) -> Any:
        if self._runner is None:
            conn = self._connect()
            cur = conn.cursor()
            cur.execute("SELECT CURRENT_SESSION()")
            self._runner_session = str(cur.fetchone()[0])
            cur.close()
            self._runner = conn
        return self._runner

    def _drop_runner(self) -> None:
        conn, self._runner, self._runner_session = self._runner, None, None
        st.close_quietly(conn)

    def _ask_version(self) -> str:
        return f"Snowflake {self._admin_rows('SELECT CURRENT_VERSION()')[0][0]}"

    # --- fixtures -----------------------------------------------------------------------------

    def _create_container(self, container: str) -> None:
        self._admin_rows(
            f"CREATE TRANSIENT SCHEMA {self.qualified(container)} DATA_RETENTION_TIME_IN_DAYS = 0"
        )

    def _rename_container(self, built: str, container: str) -> None:
        try:
            self._admin_rows(
                f"ALTER SCHEMA {self.qualified(built)} RENAME TO {self.qualified(container)}"
            )
        except self.driver.Error as exc:
            if "already exists" in str(exc).lower():
                raise ContainerExists(container) from exc
            raise

    def _drop_container(self, container: str) -> None:
        self._admin_rows(f"DROP SCHEMA IF EXISTS {self.qualified(container)} CASCADE")

    def table_ddl(self, container: str, table: Table) -> str:
        return create_table_sql(
            self.qualified(container, table.name), table, self.ident, snowflake_type
        )

    # --- execution ----------------------------------------------------------------------------

    def _execute_plans(self, script: st.Script, container: str) -> Execution:
        scratch = self.scratch_name() if script.writes else None
        try:
            if scratch is not None:
                self._admin_rows(
                    f"CREATE TRANSIENT SCHEMA {self.qualified(scratch)} CLONE "
                    f"{self.qualified(container)}"
                )
            conn = self._runner_conn()
            cur = conn.cursor()
            try:
                cur.execute(f"USE SCHEMA {self.qualified(scratch or container)}")
                return self._run(cur, script)
            finally:
                st.close_quietly(cur)
        finally:
            if scratch is not None or any(self.leaves_session_state(p) for p in script.plans):
                self._drop_runner()  # temporary tables, variables, session parameters
            if scratch is not None:
                with contextlib.suppress(Exception):
                    self._admin_rows(f"DROP SCHEMA IF EXISTS {self.qualified(scratch)} CASCADE")

    @staticmethod
    def leaves_session_state(plan: st.Plan) -> bool:
        return plan.first in ("SET", "UNSET") or plan.words[:2] == ("ALTER", "SESSION")

    def timeout_sql(self, seconds: float) -> str:
        return f"ALTER SESSION SET STATEMENT_TIMEOUT_IN_SECONDS = {max(1, math.ceil(seconds))}"

    def _arm_timeout(self, cursor: Any, seconds: float) -> None:
        cursor.execute(self.timeout_sql(seconds))

    def _cancel(self, cursor: Any) -> None:
        if self._runner_session is not None:
            self._admin_rows(f"SELECT SYSTEM$CANCEL_ALL_QUERIES({int(self._runner_session)})")

    def _type_name(self, column: Sequence[Any]) -> str:
        code = column[1]
        return TYPE_NAMES.get(code, str(code)) if isinstance(code, int) else str(code)

    def _converter(self, column: Sequence[Any]) -> Callable[[Any], Any]:
        return converter(self._type_name(column))

    def _raw_message(self, exc: BaseException) -> str:
        text = str(getattr(exc, "raw_msg", "") or exc)
        code = error_code(exc)
        return f"{code:06d}: {text}" if code is not None and not text[:6].isdigit() else text


__all__ = [
    "ERRORS",
    "GUARD",
    "SnowflakeEngine",
    "converter",
    "error_code",
    "literal",
    "snowflake_type",
]
