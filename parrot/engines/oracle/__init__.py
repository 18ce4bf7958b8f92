"""Oracle adapter (python-oracledb in thin mode: no Oracle Client libraries), for your own
server reached by URL — nothing here starts an Oracle server.

``oracle://user:password@host:1521/?service_name=FREEPDB1`` (the service may also be the path,
``oracle://user:password@host:1521/FREEPDB1``; ``?sid=XE`` for a SID; ``?protocol=tcps`` with
``wallet_location``/``wallet_password`` for TLS), given as ``--engine oracle=URL`` or
``$PARROT_ORACLE_URL``. Driver: ``pip install 'parrot-sql[oracle]'`` (oracledb).

**Fixtures.** In Oracle a schema is a user, so each fixture lives in its own schema user
``PARROT_FX_<HASH>`` (created by the URL's user ``IDENTIFIED BY`` a random password and
``ACCOUNT LOCK``: nobody logs in as it; quota on the database's default permanent tablespace),
shared by every adapter instance and process: an existing schema is verified (row counts +
checksums) instead of reloaded, and dropped (``DROP USER ... CASCADE``) and rebuilt when it
fails. The URL's user therefore needs CREATE USER, DROP USER, ALTER USER, CREATE ANY TABLE,
INSERT ANY TABLE, SELECT ANY TABLE and GRANT ANY OBJECT PRIVILEGE (e.g. the DBA role on a test
database); without them loading fails with a FixtureLoadError naming what is missing. Tables and
columns are created under their upper-cased names (quoted, so reserved words work), which is
how Oracle stores unquoted identifiers. Type map: integer → NUMBER(10), bigint → NUMBER(19),
double → BINARY_DOUBLE (IEEE: NaN and infinities kept), decimal(p,s) → NUMBER(p,s), text →
VARCHAR2(4000 CHAR) (CLOB when a value needs more than 4000 bytes; a shorter VARCHAR2 in a
primary key), boolean → BOOLEAN on Oracle 23ai and later, NUMBER(1) before, date → DATE,
timestamp → TIMESTAMP(6); NOT NULL and the primary key are kept. **Oracle stores the empty
string as NULL**: a fixture holding ``''`` cannot be stored faithfully and is refused with a
FixtureLoadError (and a translation's ``''`` is NULL on Oracle — that is Oracle's semantics, not
parrot's). Drop the schemas with ``DROP USER PARROT_FX_<HASH> CASCADE`` when done.

**Isolation: read-only.** Oracle commits DDL implicitly (CREATE VIEW ends the transaction), so
nothing a translation creates could be rolled back. Translations therefore run read-only:

1. The guard accepts only SELECT/WITH statements (``UNSUPPORTED`` otherwise: DDL, DML, PL/SQL
   blocks, ``WITH FUNCTION``, ``EXPLAIN PLAN``, ``LOCK TABLE``, transaction control, ALTER
   SESSION, ...) and refuses packages and functions that reach files, the network, jobs or
   dynamic SQL (``UTL_FILE``, ``UTL_HTTP``, ``UTL_TCP``, ``DBMS_SQL``, ``DBMS_SCHEDULER``,
   ``DBMS_XMLGEN``, ``BFILENAME``, ``HTTPURITYPE``, ...) and any ``parrot_`` name.
2. When the URL's user can create users, executions run as ``PARROT_RUNNER`` (CREATE SESSION
   plus SELECT on the fixture tables, nothing else; its password is derived from the URL's):
   the server itself refuses every write (ORA-01031 → UNSUPPORTED).
3. Every execution is ``ALTER SESSION SET CURRENT_SCHEMA = PARROT_FX_<HASH>`` (unqualified names
   find the fixture) then ``SET TRANSACTION READ ONLY`` (ORA-01456 for any DML) and ends with a
   rollback.

When the runner cannot be set up (no CREATE USER, a password policy, a login restriction),
``sandboxed`` is False, ``sandbox_error`` says why, and executions run as the URL's user with
layers 1 and 3 only — then a pre-existing function with an autonomous transaction could still
write; point parrot at a throwaway database.

**Timeouts**: ``connection.call_timeout`` (per round trip) set to the remaining budget before
each statement, plus a watchdog calling ``connection.cancel()`` (ORA-01013) at the deadline →
TIMEOUT. **Result cap**: ``fetchmany`` up to ``max_rows + 1`` rows, then the statement is
cancelled → TOO_LARGE. **Errors** by code: ORA-00900…00936-style parse errors, ORA-01756,
ORA-01740 (the driver reports these two as DPY-2041/2042) → SYNTAX_ERROR; DPY-4024 (call
timeout) → TIMEOUT; ORA-01013 → TIMEOUT when parrot cancelled; ORA-01031/ORA-01456 →
UNSUPPORTED; lost connections (ORA-03113/03114/03135/00028,
DPY-4011/1001/6005) and internal errors (ORA-00600/07445) → ENGINE_ERROR; the rest RUNTIME_ERROR.

**Session settings**: ``TIME_ZONE = 'UTC'`` and ``NLS_TIMESTAMP_TZ_FORMAT`` (so TIMESTAMP WITH
TIME ZONE values are read exactly and converted to UTC; a translation's ``TO_CHAR(tstz)``
without a format uses it too). NLS_DATE_FORMAT, NLS_SORT, NLS_COMP and everything else keep the
server's defaults.

**Values**: NUMBER → int when its scale is 0 (and for integral values of unconstrained NUMBER
such as ``COUNT(*)``), else Decimal (at the declared scale when there is one); BINARY_DOUBLE /
BINARY_FLOAT → float; **DATE → Temporal timestamp** (an Oracle DATE has a time part, so a date
column reads as ``2024-01-05 00:00:00``); TIMESTAMP / WITH LOCAL TIME ZONE → Temporal timestamp;
WITH TIME ZONE → Temporal timestamp in UTC; INTERVAL DAY TO SECOND / YEAR TO MONTH → Nested
``{"interval_seconds": ...}`` (a month counts 30 days); VARCHAR2/CHAR/NCHAR/CLOB/NCLOB → str
(CHAR padding kept; NULL for ''); RAW/BLOB → bytes; BOOLEAN (23ai) → bool; JSON → Nested;
VECTOR → Nested; ROWID → str.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import hashlib
import re
import secrets
from collections.abc import Callable, Sequence
from decimal import Decimal
from typing import Any, ClassVar

from parrot.engines import statements as st
from parrot.engines.base import Capabilities, ExecStatus, Execution, FixtureLoadError, select_all
from parrot.engines.dbapi import (
    CONNECT_TIMEOUT,
    ContainerExists,
    DriverSpec,
    ServerEngine,
    ServerURL,
    create_table_sql,
    insert_chunks,
    months_interval,
    text_bytes,
    utc_naive,
)
from parrot.fixtures import Column, Fixture, Table, decimal_precision, decimal_scale

RUNNER = "PARROT_RUNNER"
VARCHAR_BYTES = 4000  # VARCHAR2 limit without MAX_STRING_SIZE = EXTENDED
KEY_CHARS = 1000  # characters of a VARCHAR2 primary key column (index keys are ~6400 bytes)
INSERT_BATCH = 1000
TSTZ_FORMAT = "YYYY-MM-DD HH24:MI:SS.FF6 TZH:TZM"
REQUIRED_PRIVILEGES = (
    "CREATE USER",
    "DROP USER",
    "ALTER USER",
    "CREATE ANY TABLE",
    "INSERT ANY TABLE",
    "SELECT ANY TABLE",
    "GRANT ANY OBJECT PRIVILEGE",
)

# --- types ----------------------------------------------------------------------------------------

_TYPE_MAP = {
    "integer": "NUMBER(10)",
    "bigint": "NUMBER(19)",
    "double": "BINARY_DOUBLE",
    "date": "DATE",
    "timestamp": "TIMESTAMP(6)",
}


def oracle_type(
    column: Column, *, major: int = 19, max_bytes: int = 0, key_chars: int | None = None
) -> str:
    """The Oracle type of a portable column; ``max_bytes`` is the longest UTF-8 value of a text
    column, ``key_chars`` the size of a text column in a primary key, ``major`` the server's
    major version (BOOLEAN exists from 23)."""
    t = column.type
    if t.startswith("decimal"):
        return f"NUMBER({decimal_precision(t)},{decimal_scale(t)})"
    if t == "text":
        if key_chars is not None:
            return f"VARCHAR2({key_chars} CHAR)"
        return "CLOB" if max_bytes > VARCHAR_BYTES else f"VARCHAR2({VARCHAR_BYTES} CHAR)"
    if t == "boolean":
        return "BOOLEAN" if major >= 23 else "NUMBER(1)"
    return _TYPE_MAP[t]


# --- statement guard ------------------------------------------------------------------------------

READ_ONLY_REASON = (
    "parrot runs Oracle translations read-only (SELECT/WITH): Oracle commits "
    "DDL implicitly, so views, tables, functions, PL/SQL blocks and DML could "
    "not be rolled back"
)

GUARD = st.Guard(
    lexicon=st.ORACLE,
    reads=frozenset({"SELECT", "WITH"}),
    read_only=True,
    read_only_reason=READ_ONLY_REASON,
    write_words=st.WRITE_WORDS
    | {
        "merge",
        "grant",
        "revoke",
        "lock",
        "rename",
        "commit",
        "rollback",
        "savepoint",
        "call",
        "execute",
        "begin",
        "declare",
        "explain",
        "audit",
        "comment",
        "flashback",
        "purge",
        "analyze",
    },
    refused_sequences=(("WITH", "FUNCTION"), ("WITH", "PROCEDURE"), ("EXECUTE", "IMMEDIATE")),
    refused_qualifiers=frozenset(
        {
            "utl_file",
            "utl_http",
            "utl_tcp",
            "utl_smtp",
            "utl_mail",
            "utl_inaddr",
            "utl_dbws",
            "dbms_sql",
            "dbms_sys_sql",
            "dbms_scheduler",
            "dbms_job",
            "dbms_pipe",
            "dbms_aq",
            "dbms_aqadm",
            "dbms_java",
            "dbms_xmlgen",
            "dbms_xmlquery",
            "dbms_xmlstore",
            "dbms_cloud",
            "dbms_network_acl_admin",
            "dbms_backup_restore",
            "dbms_system",
            "dbms_alert",
            "dbms_ldap",
            "dbms_lob",
            "dbms_datapump",
            "dbms_file_transfer",
            "dbms_advisor",
            "dbms_debug_jdwp",
            "dbms_kafka",
            "dbms_redact",
            "dbms_rls",
            "httpuritype",
            "dburitype",
            "xdburitype",
        }
    ),
    refused_calls=frozenset(
        {"bfilename", "httpuritype", "dburitype", "xdburitype", "ora_hash_file"}
    ),
    refused_words=frozenset({"autonomous_transaction"}),
)


# --- errors ---------------------------------------------------------------------------------------

_CODE = re.compile(r"\b((?:ORA|DPY|DPI)-\d{4,5})\b")


def error_code(exc: BaseException) -> str | None:
    """``ORA-00942``, ``DPY-4024``, ... of an oracledb error (or of its message)."""
    err = exc.args[0] if getattr(exc, "args", None) else None
    full = getattr(err, "full_code", None)
    if isinstance(full, str) and full:
        return full
    m = _CODE.search(str(exc))
    return m.group(1) if m else None


def _ora(*numbers: int) -> frozenset[int | str]:
    return frozenset(f"ORA-{n:05d}" for n in numbers)


ERRORS = st.ErrorTable(
    code=error_code,
    syntax=_ora(
        900,
        901,
        902,
        903,
        905,
        906,
        907,
        908,
        911,
        917,
        920,
        921,
        923,
        924,
        925,
        926,
        927,
        928,
        931,
        933,
        936,
        969,
        1740,
        1756,
    )
    | frozenset({"DPY-2041", "DPY-2042"}),  # the driver's own "missing ending quote" checks
    timeout=frozenset({"DPY-4024"}),
    cancelled=_ora(1013),
    denied=_ora(1031, 1456, 1950, 1045),
    lost=_ora(28, 600, 1012, 1033, 1034, 1089, 3113, 3114, 3135, 7445, 12514, 12537, 12541)
    | frozenset({"DPY-4011", "DPY-1001", "DPY-6005", "DPY-4005"}),
)


# --- values ---------------------------------------------------------------------------------------

_TSTZ = re.compile(r"^(\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(?:\.\d+)?) ([+-])(\d{1,2}):(\d{2})$")


def number_value(value: Any, precision: int | None, scale: int | None) -> int | Decimal | Any:
    """An Oracle NUMBER fetched as Decimal → int (scale 0, or an integral value of an
    unconstrained NUMBER) or Decimal (at the declared scale when there is one)."""
    if not isinstance(value, Decimal):
        return value
    if not value.is_finite():
        return value
    if scale == 0 and precision:
        return int(value)
    if scale is not None and 0 < scale <= 127 and precision:
        return value.quantize(Decimal(1).scaleb(-scale))
    if value == value.to_integral_value():
        return int(value)
    return value.normalize()


def tstz_value(text: Any) -> Any:
    """``2024-01-05 10:00:00.500000 +05:30`` (TIMESTAMP WITH TIME ZONE fetched as text in
    :data:`TSTZ_FORMAT`) → a naive UTC datetime; other text is kept."""
    if not isinstance(text, str):
        return text
    m = _TSTZ.match(text.strip())
    if not m:
        return text
    local = dt.datetime.fromisoformat(m[1][:26])
    offset = dt.timedelta(hours=int(m[3]), minutes=int(m[4]))
    return local - offset if m[2] == "+" else local + offset


def interval_ym_value(value: Any) -> Any:
    """oracledb's IntervalYM(years, months) → Nested interval seconds."""
    years, months = getattr(value, "years", None), getattr(value, "months", None)
    if years is None or months is None:
        return value
    return months_interval(int(years), int(months))


def converter(
    type_name: str, precision: int | None = None, scale: int | None = None
) -> Callable[[Any], Any]:
    """How to turn one fetched column of Oracle type ``type_name`` (``DB_TYPE_NUMBER``, ...)
    into a plain Python value (before :func:`values.canonical`)."""
    if type_name == "DB_TYPE_NUMBER":
        return lambda v: number_value(v, precision, scale)
    if type_name == "DB_TYPE_TIMESTAMP_TZ":
        return tstz_value
    if type_name == "DB_TYPE_TIMESTAMP_LTZ":  # shown in the session time zone, UTC
        return lambda v: utc_naive(v) if isinstance(v, dt.datetime) else v
    if type_name == "DB_TYPE_INTERVAL_YM":
        return interval_ym_value
    if type_name == "DB_TYPE_VECTOR":
        return lambda v: list(v) if not isinstance(v, list | dict) else v
    if type_name in ("DB_TYPE_ROWID", "DB_TYPE_UROWID", "DB_TYPE_XMLTYPE"):
        return str
    return lambda v: v


def _output_handler(oracledb: Any) -> Callable[..., Any]:
    """Fetch NUMBER as Decimal (exact), LOBs as str/bytes, TIMESTAMP WITH TIME ZONE as text in
    :data:`TSTZ_FORMAT` (thin mode drops the offset of a fetched datetime)."""
    as_type = {
        oracledb.DB_TYPE_NUMBER: Decimal,
        oracledb.DB_TYPE_CLOB: oracledb.DB_TYPE_LONG,
        oracledb.DB_TYPE_NCLOB: oracledb.DB_TYPE_LONG_NVARCHAR,
        oracledb.DB_TYPE_BLOB: oracledb.DB_TYPE_LONG_RAW,
        oracledb.DB_TYPE_TIMESTAMP_TZ: str,
    }

    def handler(cursor: Any, metadata: Any) -> Any:
        target = as_type.get(metadata.type_code)
        if target is None:
            return None
        return cursor.var(target, arraysize=cursor.arraysize)

    return handler


# --- the adapter ----------------------------------------------------------------------------------


class OracleEngine(ServerEngine):
    name: ClassVar[str] = "oracle"
    dialect: ClassVar[str] = "oracle"
    url_schemes: ClassVar[tuple[str, ...] | None] = ("oracle",)
    capabilities: ClassVar[Capabilities] = Capabilities(
        booleans=False,  # BOOLEAN only from 23ai; comparisons in a SELECT list before that fail
        transactional_ddl=False,  # DDL commits implicitly
        udfs=False,  # read-only executions: no CREATE FUNCTION, no WITH FUNCTION
        procedures=False,
        decimals=True,
        timestamps_us=True,  # TIMESTAMP(6)
    )
    url_example: ClassVar[str] = "oracle://user:password@host:1521/?service_name=FREEPDB1"
    default_port: ClassVar[int | None] = 1521
    driver_spec = DriverSpec("oracledb", "oracledb", "oracle")
    guard: ClassVar[st.Guard] = GUARD
    errors: ClassVar[st.ErrorTable] = ERRORS
    fold: ClassVar[str | None] = "upper"

    def __init__(self, url: str | None = None) -> None:
        super().__init__(url)
        self.connect_params(self.url)  # validate the URL now
        self._major: int | None = None
        self._tablespace: str | None = None

    # --- connections --------------------------------------------------------------------------

    @staticmethod
    def connect_params(url: ServerURL) -> dict[str, Any]:
        """``oracledb.connect`` keyword arguments for a URL."""
        if not url.user:
            raise ValueError(f"an Oracle URL names a user: {url.redacted()!r}")
        params: dict[str, Any] = {
            "user": url.user,
            "password": url.password or "",
            "host": url.host,
            "port": url.port or OracleEngine.default_port,
            "tcp_connect_timeout": CONNECT_TIMEOUT,
        }
        sid = url.param("sid")
        service = url.param("service_name") or (url.path[0] if url.path else None)
        if sid:
            params["sid"] = sid
        elif service:
            params["service_name"] = service
        else:
            raise ValueError(
                "an Oracle URL names a service: oracle://user:password@host:1521/"
                "?service_name=FREEPDB1 (or ?sid=XE)"
            )
        for key in ("protocol", "wallet_location", "wallet_password"):
            if (value := url.param(key)) is not None:
                params[key] = value
        return params

    def _connect(self, user: str | None = None, password: str | None = None) -> Any:
        params = self.connect_params(self.url)
        if user is not None:
            params.update(user=user, password=password)
        conn = self.driver.connect(**params)
        conn.outputtypehandler = _output_handler(self.driver)
        with conn.cursor() as cur:
            cur.execute("ALTER SESSION SET TIME_ZONE = 'UTC'")
            cur.execute(f"ALTER SESSION SET NLS_TIMESTAMP_TZ_FORMAT = '{TSTZ_FORMAT}'")
        return conn

    def _admin_conn(self) -> Any:
        if self._admin is None or not self._healthy(self._admin):
            st.close_quietly(self._admin)
            self._admin = self._connect()
            self._major = int(str(self._admin.version).split(".")[0])
        return self._admin

    @staticmethod
    def _healthy(conn: Any) -> bool:
        try:
            return bool(conn.is_healthy())
        except Exception:
            return False

    def runner_password(self) -> str:
        secret = hashlib.sha256(
            f"parrot:{self.url.address(1521)}:{self.url.user}:{self.url.password}".encode()
        ).hexdigest()
        return f"Pp1_{secret[:24]}"  # 28 characters: upper, lower, digit and a symbol

    def _runner_conn(self) -> Any:
        if self._runner is not None and self._healthy(self._runner):
            return self._runner
        self._drop_runner()
        if self.sandboxed is None or self.sandboxed:
            try:
                self._setup_runner()
                self._runner = self._connect(RUNNER, self.runner_password())
                self.sandboxed = True
            except self.driver.Error as exc:
                if (
                    ERRORS.classify(exc, cancelled=False, driver_errors=self.driver_errors())
                    is ExecStatus.ENGINE_ERROR
                ):
                    raise  # the server is unreachable: no reason to give up the sandbox
                self.sandboxed, self.sandbox_error = False, self.message(exc)
        if self._runner is None:
            self._runner = self._connect()
        return self._runner

    def _setup_runner(self) -> None:
        password = self.runner_password()
        quoted = '"' + password + '"'
        try:
            self._admin_sql(f"CREATE USER {RUNNER} IDENTIFIED BY {quoted}")
        except self.driver.Error as exc:
            if error_code(exc) != "ORA-01920":  # user name conflicts: it exists already
                raise
            self._admin_sql(f"ALTER USER {RUNNER} IDENTIFIED BY {quoted} ACCOUNT UNLOCK")
        self._admin_sql(f"GRANT CREATE SESSION TO {RUNNER}")
        for stored in self._stored.values():
            self._grant(stored.handle)

    def _grant(self, container: str, tables: Sequence[str] | None = None) -> None:
        names = (
            tables
            if tables is not None
            else [
                t
                for (t,) in self._admin_rows(
                    "SELECT table_name FROM all_tables WHERE owner = :1", [container]
                )
            ]
        )
        for table in names:
            self._admin_sql(
                f"GRANT SELECT ON {self.quote(container)}.{self.quote(table)} TO {RUNNER}"
            )

    # --- identity -----------------------------------------------------------------------------

    def _ask_version(self) -> str:
        return f"Oracle {self._admin_conn().version}"

    # --- fixtures -----------------------------------------------------------------------------

    def check_fixture(self, fixture: Fixture) -> None:
        for table in fixture.tables:
            for at, column in enumerate(table.columns):
                if column.type == "text" and any(r[at] == "" for r in table.rows):
                    raise FixtureLoadError(
                        f"fixture {fixture.name!r} cannot be stored faithfully on Oracle: "
                        f"{table.name}.{column.name} holds the empty string, which Oracle "
                        "stores as NULL"
                    )
        privileges = {p for (p,) in self._admin_rows("SELECT privilege FROM session_privs")}
        missing = [p for p in REQUIRED_PRIVILEGES if p not in privileges]
        if missing:
            raise FixtureLoadError(
                f"the URL's user {self.url.user!r} lacks {', '.join(missing)}: parrot keeps each "
                "Oracle fixture in a schema user of its own (PARROT_FX_<hash>), created, filled "
                "and granted by the URL's user (the DBA role on a test database has all of it)"
            )

    def _container_exists(self, container: str) -> bool:
        return bool(self._admin_rows("SELECT 1 FROM all_users WHERE username = :1", [container]))

    def _maybe_loading(self, container: str) -> bool:
        rows = self._admin_rows(
            "SELECT (SYSDATE - created) * 86400 FROM all_users WHERE username = :1", [container]
        )
        return bool(rows) and rows[0][0] is not None and float(rows[0][0]) < 600

    def _default_tablespace(self) -> str:
        if self._tablespace is None:
            rows = []
            with contextlib.suppress(self.driver.Error):
                rows = self._admin_rows(
                    "SELECT property_value FROM database_properties WHERE "
                    "property_name = 'DEFAULT_PERMANENT_TABLESPACE'"
                )
            if not rows:
                rows = self._admin_rows("SELECT default_tablespace FROM user_users")
            self._tablespace = str(rows[0][0])
        return self._tablespace

    def _create_container(self, container: str) -> None:
        space = self.quote(self._default_tablespace())
        password = f'"Px1_{secrets.token_hex(12)}"'  # nobody logs in: ACCOUNT LOCK
        try:
            self._admin_sql(
                f"CREATE USER {self.quote(container)} IDENTIFIED BY {password} "
                f"ACCOUNT LOCK DEFAULT TABLESPACE {space} QUOTA UNLIMITED ON {space}"
            )
        except self.driver.Error as exc:
            if error_code(exc) == "ORA-01920":
                raise ContainerExists(container) from exc
            raise

    def _drop_container(self, container: str) -> None:
        self._admin_sql(f"DROP USER {self.quote(container)} CASCADE")

    def table_ddl(self, container: str, table: Table) -> str:
        keys = set(table.primary_key)
        text_keys = [c for c in table.columns if c.name in keys and c.type == "text"]
        key_chars = max(1, KEY_CHARS // max(len(text_keys), 1))
        major = self._major or 19

        def type_of(column: Column) -> str:
            return oracle_type(
                column,
                major=major,
                max_bytes=text_bytes(table, column),
                key_chars=key_chars if column in text_keys else None,
            )

        return create_table_sql(self.qualified(container, table.name), table, self.ident, type_of)

    def _create_table(self, container: str, table: Table) -> None:
        self._admin_conn()  # the server version decides the boolean type
        self._admin_sql(self.table_ddl(container, table))

    def _insert(self, container: str, table: Table) -> None:
        oracledb, conn = self.driver, self._admin_conn()
        major = self._major or 19
        sizes = {
            "integer": oracledb.DB_TYPE_NUMBER,
            "bigint": oracledb.DB_TYPE_NUMBER,
            "double": oracledb.DB_TYPE_BINARY_DOUBLE,
            "date": oracledb.DB_TYPE_DATE,
            "timestamp": oracledb.DB_TYPE_TIMESTAMP,
            "boolean": oracledb.DB_TYPE_BOOLEAN if major >= 23 else oracledb.DB_TYPE_NUMBER,
        }
        cols = ", ".join(self.ident(c) for c in table.column_names)
        marks = ", ".join(f":{i + 1}" for i in range(len(table.columns)))
        sql = f"INSERT INTO {self.qualified(container, table.name)} ({cols}) VALUES ({marks})"
        with conn.cursor() as cur:
            for chunk in insert_chunks(table, max_rows=INSERT_BATCH):
                cur.setinputsizes(
                    *[
                        sizes.get(
                            c.type,
                            oracledb.DB_TYPE_NUMBER if c.type.startswith("decimal") else None,
                        )
                        for c in table.columns
                    ]
                )
                cur.executemany(sql, [bind_row(row, table.columns, major) for row in chunk])
        conn.commit()

    def _read_table(self, container: str, table: Table) -> list[Sequence[Any]]:
        with self._admin_conn().cursor() as cur:
            cur.execute(select_all(table, self.ident, self.qualified(container, table.name)))
            return [stored_row(row, table.columns) for row in cur.fetchall()]

    def _after_load(self, container: str, fixture: Fixture) -> None:
        if self.sandboxed is not False:
            with contextlib.suppress(self.driver.Error):  # no runner yet: granted at set-up
                if self._admin_rows("SELECT 1 FROM all_users WHERE username = :1", [RUNNER]):
                    self._grant(container, [self.folded(t.name) for t in fixture.tables])

    # --- execution ----------------------------------------------------------------------------

    def _execute_plans(self, script: st.Script, container: str) -> Execution:
        conn = self._runner_conn()
        cur = conn.cursor()
        try:
            conn.rollback()
            cur.execute(f"ALTER SESSION SET CURRENT_SCHEMA = {self.quote(container)}")
            cur.execute("SET TRANSACTION READ ONLY")
            return self._run(cur, script)
        finally:
            try:
                conn.call_timeout = 0
                cur.close()
                conn.rollback()
            except Exception:
                self._drop_runner()

    def _arm_timeout(self, cursor: Any, seconds: float) -> None:
        cursor.connection.call_timeout = max(1, int(seconds * 1000))

    def _cancel(self, cursor: Any) -> None:
        cursor.connection.cancel()

    def _converter(self, column: Sequence[Any]) -> Callable[[Any], Any]:
        code = column[1]
        return converter(str(getattr(code, "name", code)), column[4], column[5])

    def _raw_message(self, exc: BaseException) -> str:
        lines = [line for line in str(exc).splitlines() if not line.startswith("Help: ")]
        return "\n".join(lines) or type(exc).__name__

    def close(self) -> None:
        with contextlib.suppress(Exception):
            if self._runner is not None:
                self._runner.rollback()
        super().close()


def bind_row(row: Sequence[Any], columns: Sequence[Column], major: int) -> list[Any]:
    """Python values bound for one fixture row (booleans as 0/1 before Oracle 23)."""
    out: list[Any] = []
    for value, column in zip(row, columns, strict=True):
        if column.type == "boolean" and value is not None and major < 23:
            value = int(value)
        elif (
            column.type == "date"
            and isinstance(value, dt.date)
            and not isinstance(value, dt.datetime)
        ):
            value = dt.datetime(value.year, value.month, value.day)
        out.append(value)
    return out


def stored_row(row: Sequence[Any], columns: Sequence[Column]) -> tuple[Any, ...]:
    """A row read back from a fixture table, as the portable types read it (an Oracle DATE at
    midnight → date; NUMBER → int/Decimal; values.Temporal untouched)."""
    out: list[Any] = []
    for value, column in zip(row, columns, strict=True):
        if isinstance(value, Decimal):
            value = number_value(
                value,
                19 if column.type in ("integer", "bigint") else None,
                0 if column.type in ("integer", "bigint", "boolean") else None,
            )
        if column.type == "date" and isinstance(value, dt.datetime) and value.time() == dt.time():
            value = value.date()
        out.append(value)
    return tuple(out)


__all__ = [
    "ERRORS",
    "GUARD",
    "OracleEngine",
    "converter",
    "error_code",
    "number_value",
    "oracle_type",
    "stored_row",
    "tstz_value",
]
