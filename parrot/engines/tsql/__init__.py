"""SQL Server adapter (pyodbc), serving the ``tsql`` dialect, for your own server reached by
URL — nothing here starts a SQL Server.

``mssql://user:password@host:1433/database`` (the database is required; parrot creates its
schemas there), optionally ``?driver=ODBC+Driver+18+for+SQL+Server``, ``?encrypt=yes|no``
(default yes), ``?trust_server_certificate=yes|no`` (default yes: parrot has no CA to check
against), given as ``--engine tsql=URL`` or ``$PARROT_TSQL_URL``. Driver: ``pip install
'parrot-sql[sqlserver]'`` (pyodbc), which also needs **an ODBC driver on this machine**: the
unixODBC driver manager (``apt-get install unixodbc``) and Microsoft's "ODBC Driver 18 for SQL
Server" (msodbcsql18) or FreeTDS (``apt-get install tdsodbc``). The first installed of those is
used unless ``?driver=`` names one; with none the adapter refuses to start and says so.

**Fixtures.** One schema per fixture content hash, ``parrot_fx_<hash>``, in the URL's
database, created and filled by the URL's user under an application lock (``sp_getapplock``,
so concurrent loaders never duplicate work), shared by every adapter instance and process (an
existing schema is verified — row counts + checksums — instead of reloaded, and rebuilt when it
fails). Type map: integer → INT, bigint → BIGINT, double → FLOAT(53) (SQL Server cannot store
NaN or infinities: such fixtures are refused), decimal(p,s) → DECIMAL(p,s), text → NVARCHAR(MAX)
(NVARCHAR(450) split among text columns of a primary key: the 900-byte key limit), boolean →
BIT, date → DATE, timestamp → DATETIME2(6); NOT NULL and the primary key are kept; the
database's default collation applies (usually case-insensitive — SQL Server semantics). With
each schema comes a database user ``parrot_fx_<hash>_run`` WITHOUT LOGIN whose default schema is
the fixture's (so unqualified names find the fixture) and who may read and write the fixture
tables and create tables, views, functions, procedures, types and synonyms there, nothing else.
The URL's user therefore needs CREATE SCHEMA, ALTER ANY USER and IMPERSONATE (db_owner).

**Isolation** (SQL Server DDL is transactional). Each execution opens a fresh connection, runs
``EXECUTE AS USER = 'parrot_fx_<hash>_run' WITH NO REVERT`` (database-scoped: other databases and
linked servers are out of reach, and the context cannot be reverted), ``BEGIN TRANSACTION``, the
script's batches, ``ROLLBACK``, and closes the connection: views, procedures, temporary tables,
DML and DDL all vanish. After each batch ``@@TRANCOUNT`` must still be 1 (else the script stops,
UNSUPPORTED). A guard refuses, before anything runs (UNSUPPORTED): transaction control
(COMMIT, ROLLBACK, SAVE TRAN, BEGIN TRAN/DISTRIBUTED), EXECUTE AS / REVERT / SETUSER, dynamic SQL
(``EXEC('...')``, ``EXEC @sql``, ``sp_executesql``) and every ``sp_``/``xp_`` procedure, USE,
BACKUP/RESTORE, DBCC, KILL, SHUTDOWN, RECONFIGURE, CHECKPOINT, GRANT/REVOKE/DENY, BULK INSERT,
OPENROWSET/OPENDATASOURCE/OPENQUERY, file-reading functions, CREATE/ALTER/DROP of logins, users,
roles, databases, schemas, endpoints, assemblies, credentials, keys, certificates, server
objects, DDL triggers (``ON DATABASE``/``ON ALL SERVER``), the session settings parrot relies on
(``SET IMPLICIT_TRANSACTIONS/XACT_ABORT/LOCK_TIMEOUT/NOEXEC/PARSEONLY/FMTONLY/SHOWPLAN_*``),
``GO n`` repeats and any ``parrot_`` name. Not rolled back by SQL Server itself: identity and
sequence values consumed (the fixture has neither).

**Scripts** are split into batches at ``GO`` lines (as sqlcmd does), each sent whole, so
``CREATE VIEW``/``PROCEDURE`` need their own batch exactly as on SQL Server; the result is the
last result set of the last batch that returned one.

**Timeouts**: the ODBC query timeout (``connection.timeout``, whole seconds, the execution's
budget), ``SET LOCK_TIMEOUT`` to the remaining budget before each batch, and a watchdog calling
``cursor.cancel()`` (SQLCancel) at the deadline → TIMEOUT. **Result cap**: ``fetchmany`` up to
``max_rows + 1`` rows, then the batch is cancelled → TOO_LARGE. **Errors** by native error
number (from pyodbc's message) or SQLSTATE: 102/103/105/111/156/170/319 → SYNTAX_ERROR; HYT00
(query timeout), 1222 (lock timeout) → TIMEOUT; HY008 (cancelled) → TIMEOUT when parrot
cancelled; 229/230/262/297/300/916/15247 (permission) → UNSUPPORTED; 08xxx, 233, 10053/10054,
4060, 18456 → ENGINE_ERROR; the rest RUNTIME_ERROR.

**Session settings**: ``SET NOCOUNT ON`` (row counts are not result sets), ``XACT_ABORT OFF``,
``IMPLICIT_TRANSACTIONS OFF``, ``LOCK_TIMEOUT``. ANSI settings, DATEFIRST, LANGUAGE and the
collation keep the server's defaults.

**Values** (pyodbc): INT/BIGINT/SMALLINT/TINYINT → int, DECIMAL/NUMERIC → Decimal (scale kept),
MONEY/SMALLMONEY → Decimal (4 places), FLOAT/REAL → float, BIT → bool, CHAR/VARCHAR/NCHAR/
NVARCHAR/TEXT/XML → str, UNIQUEIDENTIFIER → str (upper case, pyodbc's default), DATE → Temporal
date, DATETIME/DATETIME2/SMALLDATETIME → Temporal timestamp (DATETIME2(7)'s 100 ns digit is
cut to microseconds), DATETIMEOFFSET → Temporal timestamp in UTC, TIME → Temporal time,
BINARY/VARBINARY/IMAGE/ROWVERSION → bytes, SQL_VARIANT and CLR types (geography, hierarchyid)
→ their raw bytes.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import math
import re
import struct
from collections.abc import Iterator, Sequence
from typing import Any, ClassVar

from parrot.engines import UnknownEngineError
from parrot.engines import statements as st
from parrot.engines.base import Capabilities, Execution, FixtureLoadError, TypeMap
from parrot.engines.dbapi import (
    CONNECT_TIMEOUT,
    LOAD_WAIT,
    DriverSpec,
    ServerEngine,
    ServerURL,
    create_table_sql,
    float_specials,
    insert_chunks,
)
from parrot.fixtures import Column, Fixture, Table

PREFERRED_DRIVERS = ("ODBC Driver 18 for SQL Server", "ODBC Driver 17 for SQL Server")
KEY_CHARS = 450  # NVARCHAR characters in a clustered primary key (900 bytes)
MAX_PARAMS = 2000  # SQL Server accepts 2100 parameters per request
MAX_VALUES_ROWS = 1000  # and 1000 rows per VALUES list
SQL_SS_VARIANT = -150
SQL_SS_UDT = -151
SQL_SS_TIMESTAMPOFFSET = -155
RUNNER_SUFFIX = "_run"
ODBC_HINT = (
    " — pyodbc also needs unixODBC (apt-get install unixodbc) and an ODBC driver for "
    "SQL Server: Microsoft's 'ODBC Driver 18 for SQL Server' (msodbcsql18) or FreeTDS "
    "(apt-get install tdsodbc)"
)

# --- types ----------------------------------------------------------------------------------------

_TYPES = TypeMap(
    {
        "integer": "INT",
        "bigint": "BIGINT",
        "double": "FLOAT(53)",
        "text": "NVARCHAR(MAX)",
        "boolean": "BIT",
        "date": "DATE",
        "timestamp": "DATETIME2(6)",
    }
)


def tsql_type(column: Column, key_chars: int | None = None) -> str:
    """The SQL Server type of a portable column (``key_chars``: a text column in a key)."""
    if column.type == "text" and key_chars is not None:
        return f"NVARCHAR({key_chars})"
    return _TYPES(column)


# --- statement guard ------------------------------------------------------------------------------

_REFUSED_OBJECTS = (
    "LOGIN",
    "USER",
    "ROLE",
    "DATABASE",
    "SCHEMA",
    "ENDPOINT",
    "ASSEMBLY",
    "CERTIFICATE",
    "CREDENTIAL",
    "SERVER",
    "AVAILABILITY",
    "RESOURCE",
    "WORKLOAD",
    "EXTERNAL",
    "FULLTEXT",
    "EVENT",
    "AUDIT",
    "MASTER",
    "SYMMETRIC",
    "ASYMMETRIC",
    "APPLICATION",
    "BROKER",
    "MESSAGE",
    "CONTRACT",
    "QUEUE",
    "SERVICE",
    "ROUTE",
    "REMOTE",
    "CRYPTOGRAPHIC",
    "COLUMN",
    "SECURITY",
    "SEARCH",
    "SPATIAL",
)
_PROTECTED_SET = (
    "IMPLICIT_TRANSACTIONS",
    "XACT_ABORT",
    "LOCK_TIMEOUT",
    "NOEXEC",
    "PARSEONLY",
    "FMTONLY",
    "SHOWPLAN_ALL",
    "SHOWPLAN_TEXT",
    "SHOWPLAN_XML",
    "REMOTE_PROC_TRANSACTIONS",
    "CONTEXT_INFO",
    "STATISTICS",
)
_SYSTEM_PROCEDURE = re.compile(r"^(?:sp|xp)_", re.IGNORECASE)


def _tsql_extra(plan: st.Plan) -> str | None:
    """What the tables cannot say: dynamic SQL and system procedures, USE, ``GO n``."""
    tokens = plan.tokens
    if plan.first == "GO":
        return "GO n (running a batch n times) is not allowed"
    for i, tok in enumerate(tokens):
        if tok.kind in (st.TokenKind.WORD, st.TokenKind.QUOTED) and _SYSTEM_PROCEDURE.match(
            tok.name
        ):
            return f"{tok.text}: system procedures are not allowed"
        if tok.kind is not st.TokenKind.WORD:
            continue
        nxt = tokens[i + 1] if i + 1 < len(tokens) else None
        if tok.name in ("exec", "execute") and nxt is not None:
            if nxt.text == "(" or nxt.kind is st.TokenKind.STRING:
                return "dynamic SQL (EXEC of a string) is not allowed"
            assigned = i + 3 < len(tokens) and tokens[i + 3].text == "="
            if nxt.text == "@" and (
                not assigned or (i + 4 < len(tokens) and tokens[i + 4].text == "@")
            ):
                return "dynamic SQL (EXEC @variable) is not allowed"
        if tok.name == "use" and (nxt is None or nxt.name not in ("hint", "plan")):
            return "USE is not allowed"
    return None


GUARD = st.Guard(
    lexicon=st.TSQL,
    reads=frozenset(),  # every batch runs inside a rolled-back transaction
    refused_sequences=(
        ("BEGIN", "TRAN"),
        ("BEGIN", "TRANSACTION"),
        ("BEGIN", "DISTRIBUTED"),
        ("SAVE", "TRAN"),
        ("SAVE", "TRANSACTION"),
        ("EXECUTE", "AS"),
        ("EXEC", "AS"),
        ("ON", "DATABASE"),
        ("ON", "ALL"),
        ("BULK", "INSERT"),
        *((verb, obj) for verb in ("CREATE", "ALTER", "DROP") for obj in _REFUSED_OBJECTS),
        *(("SET", name) for name in _PROTECTED_SET),
    ),
    refused_words=frozenset(
        {
            "commit",
            "rollback",
            "revert",
            "setuser",
            "shutdown",
            "dbcc",
            "reconfigure",
            "checkpoint",
            "kill",
            "backup",
            "restore",
            "grant",
            "revoke",
            "deny",
            "openrowset",
            "opendatasource",
            "openquery",
            "writetext",
            "updatetext",
            "readtext",
        }
    ),
    refused_calls=frozenset(
        {
            "fn_xe_file_target_read_file",
            "fn_get_audit_file",
            "fn_trace_gettable",
            "fn_dblog",
            "fn_dump_dblog",
            "sys_dm_os_file_exists",
        }
    ),
    extra=_tsql_extra,
)

# --- errors ---------------------------------------------------------------------------------------

_NATIVE = re.compile(r"\((-?\d+)\)\s*(?=;|\(SQL\w+\)|$)")


def _odbc_args(exc: BaseException) -> tuple[str | None, str]:
    """(SQLSTATE, message) of a pyodbc error (``args`` is ``(sqlstate, message)``)."""
    args: tuple[Any, ...] = tuple(getattr(exc, "args", ()))
    if len(args) >= 2 and isinstance(args[0], str):
        return args[0], str(args[1])
    return None, str(exc)


def error_code(exc: BaseException) -> int | str | None:
    """SQL Server's native error number of the first diagnostic that has one (pyodbc writes
    ``text (102)``), else the SQLSTATE (``HYT00`` for a query timeout, ...)."""
    sqlstate, message = _odbc_args(exc)
    for native in _NATIVE.findall(message.strip()):
        if int(native) != 0:
            return int(native)
    return sqlstate


ERRORS = st.ErrorTable(
    code=error_code,
    syntax=frozenset({102, 103, 105, 111, 156, 170, 319, 1018}),
    timeout=frozenset({"HYT00", "HYT01", 1222}),
    cancelled=frozenset({"HY008", 3617}),
    denied=frozenset({229, 230, 262, 297, 300, 916, 15247, 1088}),
    lost=frozenset(
        {
            "08S01",
            "08001",
            "08003",
            "08004",
            "08007",
            "IM002",
            "IM003",
            233,
            10053,
            10054,
            4060,
            18456,
            596,
            3980,
        }
    ),
)

_ODBC_PREFIX = re.compile(r"^(?:\s*\[[^\]]*\])+")  # [42000] [Microsoft][ODBC Driver 18 ...]
_ODBC_CALL = re.compile(r"\s*\(SQL\w+\)")  # (SQLExecDirectW)


def clean_message(exc: BaseException) -> str:
    """pyodbc's ``[Microsoft][ODBC Driver 18 for SQL Server][SQL Server]text (102)
    (SQLExecDirectW)`` → ``text (102)``; several diagnostics are kept, in order."""
    _, text = _odbc_args(exc)
    text = _ODBC_CALL.sub("", text.strip())
    parts = [
        _ODBC_PREFIX.sub("", piece.strip()).strip() for piece in re.split(r";\s*(?=\[)", text)
    ]  # one piece per diagnostic
    return "; ".join(p for p in parts if p) or type(exc).__name__


# --- values ---------------------------------------------------------------------------------------

_DTO = struct.Struct("<6hI2h")  # year, month, day, hour, minute, second, fraction (ns), tz h/m


def datetimeoffset_value(raw: bytes | None) -> dt.datetime | None:
    """An ODBC SQL_SS_TIMESTAMPOFFSET_STRUCT → a naive UTC datetime."""
    if raw is None:
        return None
    year, month, day, hour, minute, second, fraction, tz_h, tz_m = _DTO.unpack(raw[: _DTO.size])
    local = dt.datetime(year, month, day, hour, minute, second, fraction // 1000)
    return local - dt.timedelta(hours=tz_h, minutes=tz_m)


def connection_string(url: ServerURL, driver: str, database: str | None = None) -> str:
    """The ODBC connection string for a URL (values braced, so ``;`` and ``}`` are safe)."""

    def brace(value: str) -> str:
        return "{" + value.replace("}", "}}") + "}"

    port = url.port or SQLServerEngine.default_port
    parts = [f"DRIVER={brace(driver)}"]
    if "freetds" in driver.lower():
        parts += [f"SERVER={url.host}", f"PORT={port}", "TDS_Version=7.4", "ClientCharset=UTF-8"]
    else:
        parts += [
            f"SERVER={brace(f'{url.host},{port}')}",
            f"Encrypt={'yes' if url.flag('encrypt', True) else 'no'}",
            "TrustServerCertificate="
            + ("yes" if url.flag("trust_server_certificate", True) else "no"),
        ]
    db = database or (url.path[0] if url.path else None)
    if db:
        parts.append(f"DATABASE={brace(db)}")
    if url.user is not None:
        parts += [f"UID={brace(url.user)}", f"PWD={brace(url.password or '')}"]
    parts.append("APP=parrot")
    return ";".join(parts)


def choose_driver(installed: Sequence[str], wanted: str | None = None) -> str | None:
    """The ODBC driver to use: ``wanted`` if installed, else Microsoft's newest, any other
    SQL Server driver, then FreeTDS."""
    if wanted:
        return wanted if wanted in installed else None
    for name in PREFERRED_DRIVERS:
        if name in installed:
            return name
    for name in installed:
        if "sql server" in name.lower():
            return name
    return next((n for n in installed if "freetds" in n.lower()), None)


# --- the adapter ----------------------------------------------------------------------------------


class SQLServerEngine(ServerEngine):
    name: ClassVar[str] = "tsql"
    dialect: ClassVar[str] = "tsql"
    url_schemes: ClassVar[tuple[str, ...] | None] = ("mssql",)
    capabilities: ClassVar[Capabilities] = Capabilities(
        booleans=False,  # BIT columns, but comparisons are not values in T-SQL
        transactional_ddl=True,
        udfs=True,  # CREATE FUNCTION (own batch), rolled back
        procedures=True,
        decimals=True,
        timestamps_us=True,  # DATETIME2(6)
    )
    url_example: ClassVar[str] = "mssql://user:password@host:1433/database"
    default_port: ClassVar[int | None] = 1433
    driver_spec = DriverSpec("pyodbc", "pyodbc", "sqlserver", ODBC_HINT)
    guard: ClassVar[st.Guard] = GUARD
    errors: ClassVar[st.ErrorTable] = ERRORS
    quote_chars: ClassVar[tuple[str, str]] = ("[", "]")
    multiple_results: ClassVar[bool] = True

    def __init__(self, url: str | None = None) -> None:
        super().__init__(url)

        if not self.url.path:
            raise ValueError(
                f"name the database parrot may create schemas in: "
                f"{self.url_example} (got {self.url.redacted()!r})"
            )
        wanted = self.url.param("driver")
        installed = list(self.driver.drivers())
        chosen = choose_driver(installed, wanted)
        if chosen is None:
            raise UnknownEngineError(
                f"no ODBC driver for SQL Server is installed (pyodbc lists "
                f"{installed or 'none'}{'; wanted ' + repr(wanted) if wanted else ''}): install "
                "Microsoft's 'ODBC Driver 18 for SQL Server' (msodbcsql18) or FreeTDS "
                "(apt-get install tdsodbc), or name one with ?driver=..."
            )
        self.odbc_driver = chosen
        self.driver.pooling = False  # NO REVERT connections must never be reused

    # --- connections --------------------------------------------------------------------------

    def _connect(self) -> Any:
        conn = self.driver.connect(
            connection_string(self.url, self.odbc_driver), autocommit=True, timeout=CONNECT_TIMEOUT
        )
        conn.add_output_converter(SQL_SS_TIMESTAMPOFFSET, datetimeoffset_value)
        conn.add_output_converter(SQL_SS_VARIANT, _raw_bytes)
        conn.add_output_converter(SQL_SS_UDT, _raw_bytes)
        return conn

    def _admin_conn(self) -> Any:
        if self._admin is None:
            self._admin = self._connect()
            with self._admin.cursor() as cur:
                cur.execute("SET NOCOUNT ON")
        return self._admin

    def _ask_version(self) -> str:
        row = self._admin_rows(
            "SELECT CAST(SERVERPROPERTY('ProductVersion') AS nvarchar(64)),"
            " CAST(SERVERPROPERTY('Edition') AS nvarchar(128))"
        )[0]
        return f"SQL Server {row[0]} {row[1]}, {self.odbc_driver}"

    @staticmethod
    def runner(container: str) -> str:
        return container + RUNNER_SUFFIX

    # --- fixtures -----------------------------------------------------------------------------

    def check_fixture(self, fixture: Fixture) -> None:
        specials = float_specials(fixture)
        if specials:
            raise FixtureLoadError(
                f"fixture {fixture.name!r} cannot be stored faithfully on SQL Server: FLOAT "
                f"holds no NaN or infinity ({', '.join(specials)})"
            )

    @contextlib.contextmanager
    def _load_lock(self, container: str) -> Iterator[None]:
        rows = self._admin_rows(
            "DECLARE @r int; EXEC @r = sp_getapplock @Resource = ?, @LockMode = 'Exclusive', "
            "@LockOwner = 'Session', @LockTimeout = ?; SELECT @r",
            container,
            int(LOAD_WAIT * 1000),
        )
        if not rows or rows[0][0] is None or int(rows[0][0]) < 0:
            raise FixtureLoadError(f"another process holds the load lock of {container!r}")
        try:
            yield
        finally:
            with contextlib.suppress(Exception):
                self._admin_sql(
                    "EXEC sp_releaseapplock @Resource = ?, @LockOwner = 'Session'", container
                )

    def _container_exists(self, container: str) -> bool:
        return bool(self._admin_rows("SELECT 1 FROM sys.schemas WHERE name = ?", container))

    def _create_container(self, container: str) -> None:
        self._admin_sql(f"CREATE SCHEMA {self.quote(container)}")

    def _drop_container(self, container: str) -> None:
        for (name,) in self._admin_rows(
            "SELECT name FROM sys.tables WHERE schema_id = SCHEMA_ID(?)", container
        ):
            self._admin_sql(f"DROP TABLE {self.quote(container)}.{self.quote(name)}")
        self._admin_sql(f"DROP USER IF EXISTS {self.quote(self.runner(container))}")
        self._admin_sql(f"DROP SCHEMA IF EXISTS {self.quote(container)}")

    def table_ddl(self, container: str, table: Table) -> str:
        keys = set(table.primary_key)
        text_keys = [c for c in table.columns if c.name in keys and c.type == "text"]
        key_chars = max(1, KEY_CHARS // max(len(text_keys), 1))
        return create_table_sql(
            self.qualified(container, table.name),
            table,
            self.ident,
            lambda c: tsql_type(c, key_chars if c in text_keys else None),
        )

    def _insert(self, container: str, table: Table) -> None:
        cols = ", ".join(self.ident(c) for c in table.column_names)
        row_marks = "(" + ", ".join("?" for _ in table.columns) + ")"
        target = self.qualified(container, table.name)
        with self._admin_conn().cursor() as cur:
            for chunk in insert_chunks(table, max_rows=MAX_VALUES_ROWS, max_params=MAX_PARAMS):
                cur.execute(
                    f"INSERT INTO {target} ({cols}) VALUES " + ", ".join(row_marks for _ in chunk),
                    *[v for row in chunk for v in row],
                )

    def _after_load(self, container: str, fixture: Fixture) -> None:
        """The fixture's runner user: default schema = the fixture's; rights there only."""
        user, schema = self.quote(self.runner(container)), self.quote(container)
        try:
            if not self._admin_rows(
                "SELECT 1 FROM sys.database_principals WHERE name = ?", self.runner(container)
            ):
                self._admin_sql(f"CREATE USER {user} WITHOUT LOGIN WITH DEFAULT_SCHEMA = {schema}")
            self._admin_sql(
                f"GRANT SELECT, INSERT, UPDATE, DELETE, ALTER, REFERENCES, EXECUTE, "
                f"VIEW DEFINITION ON SCHEMA::{schema} TO {user}"
            )
            self._admin_sql(
                f"GRANT CREATE TABLE, CREATE VIEW, CREATE FUNCTION, CREATE PROCEDURE,"
                f" CREATE TYPE, CREATE SYNONYM TO {user}"
            )
        except self.driver.Error as exc:
            raise FixtureLoadError(
                f"cannot set up the restricted user of {container!r}: {self.message(exc)} "
                "(the URL's user needs CREATE SCHEMA, ALTER ANY USER and IMPERSONATE — "
                "db_owner — in the URL's database)"
            ) from None

    # --- execution ----------------------------------------------------------------------------

    def _execute_plans(self, script: st.Script, container: str) -> Execution:
        conn = self._connect()
        try:
            conn.timeout = max(1, math.ceil(script.deadline.seconds))  # ODBC query timeout, s
            cur = conn.cursor()
            cur.execute(self.session_sql(container, script.deadline.remaining()))
            cur.execute("BEGIN TRANSACTION")

            def still_ours() -> str | None:
                cur.execute("SELECT @@TRANCOUNT")
                row = cur.fetchone()
                return None if row and row[0] == 1 else "a statement ended parrot's transaction"

            return self._run(cur, script, between=still_ours)
        finally:
            with contextlib.suppress(Exception):
                conn.timeout = 0
                conn.cursor().execute("IF @@TRANCOUNT > 0 ROLLBACK")
            st.close_quietly(conn)

    def session_sql(self, container: str, seconds: float) -> str:
        """What starts every execution: settings, then the restricted user for good."""
        runner = self.runner(container).replace("'", "''")
        return (
            f"SET NOCOUNT ON; SET XACT_ABORT OFF; SET IMPLICIT_TRANSACTIONS OFF; "
            f"SET LOCK_TIMEOUT {max(1, int(seconds * 1000))}; "
            f"EXECUTE AS USER = N'{runner}' WITH NO REVERT"
        )

    def _arm_timeout(self, cursor: Any, seconds: float) -> None:
        cursor.execute(f"SET LOCK_TIMEOUT {max(1, int(seconds * 1000))}")

    def _cancel(self, cursor: Any) -> None:
        cursor.cancel()

    def _raw_message(self, exc: BaseException) -> str:
        return clean_message(exc)

    def _type_name(self, column: Sequence[Any]) -> str:
        code = column[1]
        return getattr(code, "__name__", str(code))


def _raw_bytes(raw: bytes | None) -> bytes | None:
    return None if raw is None else bytes(raw)


__all__ = [
    "ERRORS",
    "GUARD",
    "SQLServerEngine",
    "choose_driver",
    "clean_message",
    "connection_string",
    "datetimeoffset_value",
    "error_code",
    "tsql_type",
]
