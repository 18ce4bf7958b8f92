"""MySQL adapter: MariaDB 10.11 serves the ``mysql`` dialect locally; a real MySQL by URL.

Reached through a URL (``mysql://user:password@host:port/``, also ``mariadb://``; a
``?unix_socket=/path`` query uses a socket, ``?ssl=preferred|required`` asks for TLS, which is off
by default for loopback hosts). The label says which server answers: ``mysql (MariaDB 10.11.19)``
when ``VERSION()`` says MariaDB, ``mysql (MySQL 8.0.36)`` otherwise. Driver: PyMySQL.

**Fixtures.** One database per fixture content hash, ``parrot_fx_<hash>``, created once per
server and shared by every adapter instance and process (a cross-process ``GET_LOCK`` serialises
loading): an instance that finds it already there reads it back and verifies row counts and
checksums instead of reloading, and reloads it when they differ. Type map: integer → INT,
bigint → BIGINT, double → DOUBLE, decimal(p,s) → DECIMAL(p,s), text → TEXT (VARCHAR in a primary
key), boolean → BOOLEAN (TINYINT(1)), date → DATE, timestamp → DATETIME(6); NOT NULL where the
fixture says so, the declared primary key, InnoDB, utf8mb4 with the server's default collation
for it (MariaDB 10.11: utf8mb4_general_ci, case- and accent-insensitive; MySQL 8:
utf8mb4_0900_ai_ci). Table names are created as the fixture spells them (case-sensitive on
Linux; column names are not). MariaDB cannot store NaN or infinities: such fixtures fail to load.
Rows are bulk-inserted with multi-row INSERTs and ``FOREIGN_KEY_CHECKS = 0``. When an instance
closes it compares ``CHECKSUM TABLE`` of the fixtures it used with the values seen at load and
drops a database that changed, so the next user reloads it; a fixture database that vanished is
reloaded transparently by the next execution.

**Database-qualified names.** Real MySQL queries name tables as ``shop.orders``: a qualifier
equal to the fixture's own name (:func:`database_name`, the last segment of ``spider/car_1``)
names the database the execution reads — the fixture database for read-only scripts (where
``parrot_ro`` may only read), the scratch copy for writing ones (where ``parrot_rw`` writes and
the fixture stays untouched). The qualifier is rewritten in the text sent to the server after
the guard has passed it, at the tokens both backslash readings agree on, and not at all when the
name also stands alone in the script (an alias or a table called ``shop``).

**Isolation.** MySQL DDL is not transactional (CREATE VIEW commits), so every execution gets a
fresh connection and each script is classified from its statements' tokens:

* *read-only* (every statement starts with SELECT/WITH/SHOW/DESCRIBE/EXPLAIN/VALUES/TABLE/DO/
  SET or transaction control, and no INSERT/UPDATE/DELETE/REPLACE/CREATE/DROP/ALTER/TRUNCATE/
  RENAME/CALL word appears, the ``REPLACE()`` and ``INSERT()`` functions aside) runs directly on
  the fixture database as ``parrot_ro``, a user with only SELECT, SHOW VIEW and EXECUTE (no
  routines exist there; it makes an unknown function "does not exist", not "denied") on
  ``parrot\\_fx\\_%`` databases;
* *writing* scripts (views, temporary tables, functions, procedures, triggers, DML, DDL) run as
  ``parrot_rw`` — all rights on ``parrot\\_sx\\_%`` databases, none elsewhere — in a throwaway
  scratch database ``parrot_sx_<instance>_<n>`` holding ``CREATE TABLE ... LIKE`` + ``INSERT ...
  SELECT`` copies of the fixture tables, dropped afterwards with its views, routines, triggers
  and sequences. Only tables the script names get their rows copied (the others exist, empty):
  SQL cannot reach a table without naming it (dynamic SQL is refused), and a write to a big
  fixture then costs what the tables it touches cost. Temporary tables and user variables die
  with the connection.

The sandbox users are created (``IF NOT EXISTS``) by the URL's user with a password derived from
the server's identity and the URL's password; if that fails (the user may not create users, a
password policy objects, ...), executions run as the URL's user itself (``sandboxed`` is False,
``sandbox_error`` says why), read-only scripts inside ``SET SESSION TRANSACTION READ ONLY``.

Refused before anything runs (``ExecStatus.UNSUPPORTED``), also as statements inside routine
bodies: USE, LOAD DATA/XML, ``INTO OUTFILE/DUMPFILE``, ``LOAD_FILE()``, SHUTDOWN, KILL, GRANT,
REVOKE, FLUSH, INSTALL/UNINSTALL, HANDLER, RESET, PURGE, CHANGE/START/STOP replication, XA,
BINLOG, BACKUP, CACHE INDEX, PREPARE/EXECUTE/DEALLOCATE (dynamic SQL would hide from this guard),
CREATE/ALTER/DROP/RENAME of users, roles, servers, databases, events, tablespaces; ``SET GLOBAL``/
``PERSIST``/``PASSWORD``/``ROLE``/``NAMES``/``CHARACTER SET``/``TRANSACTION``; assignments to the
settings this adapter relies on (``max_statement_time``, ``max_execution_time``, ``time_zone``,
``character_set_*``, ``transaction_read_only``); ``DATA/INDEX DIRECTORY``; UDF ``SONAME``; and
any mention of a ``parrot_`` name. Statements the sandbox users lack privileges for fail with
the server's access-denied error, a runtime error of the query (``RUNTIME_ERROR``: the server
ran it and refused, as a server with any other grants could). ``/*! ... */`` comments are read
as the code MySQL runs; a backtick-quoted ```LOAD_FILE``` is still the function; each text is
checked with and without backslash escapes in strings (``NO_BACKSLASH_ESCAPES`` ends ``'a\\'``
at its second quote).

**Scripts** are split at ``;`` outside strings, comments and ``BEGIN ... END`` blocks (so
``CREATE PROCEDURE p() BEGIN ...; END`` stays whole); mysql-client ``DELIMITER`` lines are
honoured. The result is the last statement's last result set (``CALL`` may return several).

**Timeouts.** Before each statement ``SET SESSION max_statement_time`` (MariaDB; MySQL:
``max_execution_time``, which covers SELECT only) gets the remaining budget, and a watchdog
issues ``KILL QUERY`` from a second connection shortly after the deadline; a statement that
ignores it (``DECLARE CONTINUE HANDLER FOR SQLEXCEPTION`` swallows both) gets its connection
killed ``ESCALATE_AFTER`` seconds later, and the execution returns once
``information_schema.PROCESSLIST`` no longer lists the thread (a TIMEOUT). A statement that
returns at or after the deadline (a killed ``BENCHMARK()`` returns 0) is a timeout. MariaDB stops a
recursive CTE silently after ``max_recursive_iterations`` (default 1000) iterations and returns
the rows so far: that is its semantics, left as is.

**Result cap.** Rows are streamed (unbuffered cursor) and at most ``max_rows + 1`` fetched; a
longer result kills its connection and reports TOO_LARGE.

**Settings** per connection: ``SET NAMES utf8mb4`` (the server's default utf8mb4 collation),
``time_zone = '+00:00'`` (TIMESTAMP values come back in UTC) and the statement time limit.
``sql_mode`` and every other semantics-affecting setting keep the server defaults — MariaDB
10.11: ``STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_AUTO_CREATE_USER,
NO_ENGINE_SUBSTITUTION`` (no ONLY_FULL_GROUP_BY, unlike MySQL 8), ``div_precision_increment``
4 (``7/2`` is ``Decimal('3.5000')``).

**Values**: DECIMAL → Decimal (scale kept), DOUBLE/FLOAT → float, integers (TINYINT(1) and
comparisons included: MySQL has no boolean type) → int, BIT → int, DATE/DATETIME/TIMESTAMP →
Temporal (zero dates keep their text), TIME → Temporal time (outside 00:00–24:00 an interval
Nested ``{"interval_seconds": ...}``), YEAR → int, text types, ENUM, SET and JSON (a LONGTEXT in
MariaDB) → str, binary types and GEOMETRY → bytes.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import decimal
import functools
import hashlib
import itertools
import re
import secrets
from collections.abc import Iterator, Sequence
from typing import Any, ClassVar
from urllib.parse import parse_qs, unquote, urlsplit

import pymysql
import pymysql.cursors
from pymysql.constants import CLIENT, FIELD_TYPE

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
    quote_ident,
    select_all,
)
from parrot.engines.base import create_table_sql as base_create_table_sql
from parrot.engines.dbapi import CONNECT_TIMEOUT, FIXTURE_PREFIX, SCRATCH_PREFIX, default_url
from parrot.fixtures import Column, Fixture, Table

URL_SCHEMES = ("mysql", "mariadb")
READ_USER = "parrot_ro"
WRITE_USER = "parrot_rw"
KILL_GRACE = 0.3  # seconds after the deadline before the watchdog kills a query
LOAD_LOCK_TIMEOUT = 600  # seconds to wait for another process loading the same fixture
ADMIN_LOCK_WAIT = 60  # seconds the admin connection waits for a metadata lock
INSERT_BATCH = 2_000  # rows per multi-row INSERT while loading
KEY_BYTES = 3072  # InnoDB's index key limit (DYNAMIC rows); utf8mb4 takes 4 bytes a character
_SANDBOX_NAME = re.compile(r"parrot_[fs]x_[0-9a-z_]+")
_LOOPBACK = ("127.0.0.1", "localhost", "::1", "")

# --- statement guard ------------------------------------------------------------------------------

_SET_DENIED = frozenset(
    {"global", "persist", "persist_only", "password", "role", "names", "charset", "transaction"}
)
# sql_mode NO_BACKSLASH_ESCAPES makes a backslash a plain character: a text is checked under both
# readings, so a string that ends early in one of them cannot hide a call from the guard
_MYSQL_PLAIN = dataclasses.replace(st.MYSQL, backslash_escapes=False)


def _refusal(plan: st.Plan) -> str | None:
    """What the tables cannot say: START other than a transaction, and SET of a scope, a
    password, a role or a character set (in a routine body too)."""
    if plan.first == "START" and plan.words[1:2] != ("TRANSACTION",):
        return f"START {plan.words[1] if len(plan.words) > 1 else ''} is not allowed".rstrip()
    tokens, in_set = plan.tokens, False
    for i, tok in enumerate(tokens):
        prev = tokens[i - 1] if i else None
        if tok.text == ";":
            in_set = False
        elif (
            tok.kind is st.TokenKind.WORD
            and tok.name == "set"
            and (i == 0 or GUARD.starts_body_statement(prev))
        ):
            in_set = True
        elif (
            in_set
            and prev is not None
            and tok.kind is st.TokenKind.WORD
            and (
                (tok.name in _SET_DENIED and (prev.name in ("set", "session") or prev.text in ",@"))
                or (
                    tok.name == "character"
                    and tokens[i + 1 : i + 2]
                    and tokens[i + 1].name == "set"
                )
            )
        ):
            return f"SET {tok.text.upper()} is not allowed"
    return None


_OBJECTS = frozenset(
    {
        "USER",
        "ROLE",
        "SERVER",
        "DATABASE",
        "SCHEMA",
        "EVENT",
        "TABLESPACE",
        "LOGFILE",
        "INSTANCE",
        "RESOURCE",
    }
)
GUARD = st.Guard(
    st.MYSQL,
    also=_MYSQL_PLAIN,
    extra=_refusal,
    reserved_starts=True,
    reads=frozenset(
        {
            "SELECT",
            "WITH",
            "SHOW",
            "DESC",
            "DESCRIBE",
            "EXPLAIN",
            "VALUES",
            "TABLE",
            "DO",
            "SET",
            "HELP",
            "BEGIN",
            "COMMIT",
            "ROLLBACK",
            "SAVEPOINT",
            "RELEASE",
            "START",
        }
    ),
    write_words=st.WRITE_WORDS | {"replace", "rename", "call"},
    write_exempt=frozenset({"SHOW"}),
    refused_first=frozenset(
        {
            "USE",
            "LOAD",
            "GRANT",
            "REVOKE",
            "SHUTDOWN",
            "KILL",
            "FLUSH",
            "INSTALL",
            "UNINSTALL",
            "HANDLER",
            "RESET",
            "PURGE",
            "CHANGE",
            "STOP",
            "XA",
            "BINLOG",
            "BACKUP",
            "CACHE",
            "PREPARE",
            "EXECUTE",
            "DEALLOCATE",
            "RESTART",
            "CLONE",
            "IMPORT",
            "DELIMITER",
        }
    ),
    object_statements=frozenset({"CREATE", "ALTER", "DROP", "RENAME"}),
    refused_objects=_OBJECTS,
    object_kinds=_OBJECTS
    | {
        "TABLE",
        "TABLES",
        "VIEW",
        "FUNCTION",
        "PROCEDURE",
        "TRIGGER",
        "INDEX",
        "SEQUENCE",
        "PACKAGE",
    },
    body_starts=st.BODY_STARTS | {"atomic"},
    refused_calls=frozenset(
        {
            "load_file",
            "sys_exec",
            "sys_eval",
            "master_pos_wait",
            "source_pos_wait",
            "master_gtid_wait",
        }
    ),
    uncalled=frozenset({st.TokenKind.QUOTED}),
    refused_words=frozenset({"outfile", "dumpfile", "soname", "prepare", "execute", "deallocate"}),
    refused_sequences=(("DATA", "DIRECTORY"), ("INDEX", "DIRECTORY")),
    protected_settings=frozenset(
        {
            "max_statement_time",
            "max_execution_time",
            "time_zone",
            "character_set_results",
            "character_set_client",
            "character_set_connection",
            "transaction_read_only",
            "tx_read_only",
        }
    ),
)


# --- database-qualified names --------------------------------------------------------------------


def database_name(fixture: Fixture) -> str:
    """The database name queries may qualify a fixture's tables with: the last segment of its
    name (``shop.orders``; ``spider/car_1`` → ``car_1.cars_data``)."""
    return fixture.name.rsplit("/", 1)[-1]


def _qualifiers(text: str, name: str, lexicon: st.Lexicon) -> set[tuple[int, int]] | None:
    """Spans of the tokens that qualify a name with database ``name`` (``name.x``, not
    ``t.name.x``); None when ``name`` also stands alone (an alias or a table called so)."""
    tokens = st.tokenize(text, lexicon)
    spans = set()
    for i, tok in enumerate(tokens):
        bare = {st.TokenKind.WORD: tok.text, st.TokenKind.QUOTED: tok.text[1:-1]}.get(tok.kind)
        if bare != name:
            continue
        after = tokens[i + 1] if i + 1 < len(tokens) else None
        if after is None or after.text != ".":
            return None
        if not (i and tokens[i - 1].text == "."):
            spans.add((tok.start, tok.end))
    return spans


def qualify(text: str, name: str, database: str) -> str:
    """``text`` with its ``name.table`` qualifiers naming ``database`` instead, where both
    readings of backslashes in strings agree on them (see :data:`_MYSQL_PLAIN`)."""
    if name not in text:
        return text
    escaped, plain = _qualifiers(text, name, st.MYSQL), _qualifiers(text, name, _MYSQL_PLAIN)
    if not escaped or not plain:
        return text
    for start, end in sorted(escaped & plain, reverse=True):
        text = text[:start] + _ident(database) + text[end:]
    return text


# --- values ---------------------------------------------------------------------------------------


def _fraction(text: str) -> str:
    """``10:00:00.500000`` → ``10:00:00.5``; a zero fraction disappears."""
    if "." not in text:
        return text
    whole, frac = text.split(".", 1)
    frac = frac.rstrip("0")
    return f"{whole}.{frac}" if frac else whole


def _date(text: str) -> values.Temporal:
    return values.Temporal("date", text)


def _timestamp(text: str) -> values.Temporal:
    return values.Temporal("timestamp", _fraction(text))


def _time(text: str) -> values.Value:
    negative = text.startswith("-")
    hours, minutes, seconds = text.lstrip("-").split(":")
    if not negative and int(hours) < 24:
        return values.Temporal("time", _fraction(f"{int(hours):02d}:{minutes}:{seconds}"))
    span = dt.timedelta(
        hours=int(hours), minutes=int(minutes), seconds=float(decimal.Decimal(seconds))
    )
    return values.canonical(-span if negative else span)


def _bit(data: bytes) -> int:
    return int.from_bytes(data, "big")


def _conversions() -> dict[Any, Any]:
    conv: dict[Any, Any] = dict(pymysql.converters.conversions)
    conv.update(
        {
            FIELD_TYPE.DATE: _date,
            FIELD_TYPE.NEWDATE: _date,
            FIELD_TYPE.DATETIME: _timestamp,
            FIELD_TYPE.TIMESTAMP: _timestamp,
            FIELD_TYPE.TIME: _time,
            FIELD_TYPE.BIT: _bit,
            FIELD_TYPE.SET: None,
            FIELD_TYPE.ENUM: None,
            FIELD_TYPE.DECIMAL: decimal.Decimal,
            FIELD_TYPE.NEWDECIMAL: decimal.Decimal,
        }
    )
    return conv


_CONVERSIONS = _conversions()
_TYPE_NAMES = {
    FIELD_TYPE.DECIMAL: "DECIMAL",
    FIELD_TYPE.NEWDECIMAL: "DECIMAL",
    FIELD_TYPE.TINY: "TINYINT",
    FIELD_TYPE.SHORT: "SMALLINT",
    FIELD_TYPE.INT24: "MEDIUMINT",
    FIELD_TYPE.LONG: "INT",
    FIELD_TYPE.LONGLONG: "BIGINT",
    FIELD_TYPE.FLOAT: "FLOAT",
    FIELD_TYPE.DOUBLE: "DOUBLE",
    FIELD_TYPE.NULL: "NULL",
    FIELD_TYPE.TIMESTAMP: "TIMESTAMP",
    FIELD_TYPE.DATE: "DATE",
    FIELD_TYPE.NEWDATE: "DATE",
    FIELD_TYPE.TIME: "TIME",
    FIELD_TYPE.DATETIME: "DATETIME",
    FIELD_TYPE.YEAR: "YEAR",
    FIELD_TYPE.BIT: "BIT",
    FIELD_TYPE.JSON: "JSON",
    FIELD_TYPE.ENUM: "ENUM",
    FIELD_TYPE.SET: "SET",
    FIELD_TYPE.GEOMETRY: "GEOMETRY",
    FIELD_TYPE.VARCHAR: "VARCHAR",
    FIELD_TYPE.VAR_STRING: "VARCHAR",
    FIELD_TYPE.STRING: "CHAR",
    FIELD_TYPE.TINY_BLOB: "TEXT",
    FIELD_TYPE.BLOB: "TEXT",
    FIELD_TYPE.MEDIUM_BLOB: "TEXT",
    FIELD_TYPE.LONG_BLOB: "TEXT",
}
_BINARY_NAMES = {"VARCHAR": "VARBINARY", "CHAR": "BINARY", "TEXT": "BLOB"}
_BINARY_CHARSET = 63


def _type_name(field: Any) -> str:
    name = _TYPE_NAMES.get(field.type_code, f"TYPE{field.type_code}")
    if getattr(field, "charsetnr", None) == _BINARY_CHARSET and name in _BINARY_NAMES:
        return _BINARY_NAMES[name]
    return name


def _result_set(cursor: Any, rows: Sequence[Sequence[Any]]) -> values.ResultSet:
    fields = getattr(getattr(cursor, "_result", None), "fields", None) or []
    names = tuple(d[0] for d in cursor.description)
    types = (
        tuple(_type_name(f) for f in fields)
        if len(fields) == len(names)
        else tuple(_TYPE_NAMES.get(d[1], str(d[1])) for d in cursor.description)
    )
    canon = tuple(tuple(values.canonical(v) for v in row) for row in rows)
    return values.ResultSet(names, canon, types)


# --- fixtures -------------------------------------------------------------------------------------

_TYPES = TypeMap.standard(integer="INT", text="TEXT", timestamp="DATETIME(6)")


def mysql_type(column: Column, key_chars: int | None = None) -> str:
    """The MySQL type of a portable column; ``key_chars`` sizes a text column in a key."""
    base = (
        f"VARCHAR({key_chars})"
        if column.type == "text" and key_chars is not None
        else _TYPES(column)
    )
    return base if column.nullable else f"{base} NOT NULL"


def create_table_sql(database: str, table: Table) -> str:
    key = set(table.primary_key)
    text_keys = [c for c in table.columns if c.name in key and c.type == "text"]
    key_chars = (
        max(1, (KEY_BYTES - 8 * (len(key) - len(text_keys))) // 4 // max(len(text_keys), 1))
        if text_keys
        else None
    )
    return base_create_table_sql(
        f"{_ident(database)}.{_ident(table.name)}",
        table,
        _ident,
        lambda c: mysql_type(c, key_chars if c.name in key else None),
        not_null=False,
        suffix=" ENGINE = InnoDB",
    )


_ident = functools.partial(quote_ident, opener="`", closer="`")


def _bind(value: Any) -> Any:
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, dt.datetime):
        return value.isoformat(sep=" ", timespec="microseconds")
    if isinstance(value, dt.date):
        return value.isoformat()
    return value


@dataclasses.dataclass(frozen=True)
class _Materialised:
    database: str
    server_checksums: dict[str, int | None]  # CHECKSUM TABLE when loaded or verified


# --- errors ---------------------------------------------------------------------------------------

_UNKNOWN_DATABASE = 1049


def _code(exc: BaseException) -> int | None:
    args = getattr(exc, "args", ())
    return args[0] if args and isinstance(args[0], int) else None


ERRORS = st.ErrorTable(
    _code,
    syntax=frozenset({1064, 1149, 1065}),  # ER_PARSE_ERROR, ER_SYNTAX_ERROR, ER_EMPTY_QUERY
    timeout=frozenset({1969, 3024}),  # max_statement_time (MariaDB), max_execution_time (MySQL)
    cancelled=frozenset({1317}),  # ER_QUERY_INTERRUPTED (KILL QUERY)
    lost=frozenset({2003, 2006, 2013, 2014, 2055, 1053, 1927}),
    lost_types=(pymysql.err.InterfaceError,),
    uncoded_cancel=False,
    driver_errors=(pymysql.Error,),
)


def _message(exc: BaseException) -> str:
    args: tuple[Any, ...] = tuple(getattr(exc, "args", ()))
    text = (
        str(args[1])
        if len(args) >= 2 and isinstance(args[0], int)
        else f"{type(exc).__name__}: {exc}"
    )
    return st.trim_message(_SANDBOX_NAME.sub("parrot_db", text))


# --- connections ----------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class _Target:
    host: str
    port: int
    user: str
    password: str
    unix_socket: str | None
    ssl: str  # "disabled", "preferred" or "required"

    @classmethod
    def parse(cls, url: str) -> _Target:
        parts = urlsplit(url)
        if parts.scheme not in URL_SCHEMES:
            raise ValueError(f"not a MySQL URL: {url!r} (use mysql://user@host:port/)")
        query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
        host = parts.hostname or "127.0.0.1"
        ssl = query.get("ssl", "disabled" if host in _LOOPBACK else "preferred")
        if ssl not in ("disabled", "preferred", "required"):
            raise ValueError(f"ssl must be disabled, preferred or required, not {ssl!r}")
        return cls(
            host=host,
            port=parts.port or 3306,
            user=unquote(parts.username or "root"),
            password=unquote(parts.password or ""),
            unix_socket=query.get("unix_socket"),
            ssl=ssl,
        )

    def connect(
        self,
        user: str | None = None,
        password: str | None = None,
        database: str | None = None,
        streaming: bool = False,
    ) -> Any:
        kwargs: dict[str, Any] = {}
        if self.ssl == "disabled":
            kwargs["ssl_disabled"] = True
        elif self.ssl == "required":
            kwargs["ssl_verify_cert"] = False  # any TLS: parrot has no CA to check against
        return pymysql.connect(
            host=self.host,
            port=self.port,
            unix_socket=self.unix_socket,
            user=self.user if user is None else user,
            password=self.password if password is None else password,
            database=database,
            charset="utf8mb4",
            conv=_CONVERSIONS,
            autocommit=True,
            connect_timeout=CONNECT_TIMEOUT,
            client_flag=CLIENT.MULTI_RESULTS,
            init_command="SET NAMES utf8mb4, time_zone = '+00:00'",
            cursorclass=pymysql.cursors.SSCursor if streaming else pymysql.cursors.Cursor,
            **kwargs,
        )


@dataclasses.dataclass(frozen=True)
class _Credentials:
    user: str
    password: str


# --- the adapter ----------------------------------------------------------------------------------


class MySQLEngine(EngineBase[_Materialised]):
    name: ClassVar[str] = "mysql"
    dialect: ClassVar[str] = "mysql"
    url_schemes: ClassVar[tuple[str, ...] | None] = URL_SCHEMES
    capabilities: ClassVar[Capabilities] = Capabilities(
        booleans=False,  # BOOLEAN is TINYINT(1); comparisons return 0/1
        transactional_ddl=False,  # DDL commits implicitly
        udfs=True,  # CREATE FUNCTION f(x INT) RETURNS INT RETURN ...
        procedures=True,
        decimals=True,
        timestamps_us=True,  # DATETIME(6)
    )

    def __init__(self, url: str | None = None) -> None:
        super().__init__()
        self._target = _Target.parse(url or default_url("mysql"))
        self._token = secrets.token_hex(4)
        self._counter = itertools.count()
        self._closed = False
        self.sandbox_error: str | None = None  # why the restricted users could not be set up
        self._admin = self._connect_admin()
        self._server_version = str(self._admin_rows("SELECT VERSION()")[0][0])
        self.mariadb = "mariadb" in self._server_version.lower()
        self._reader, self._writer, self.sandboxed = self._sandbox_users()

    # --- identity -----------------------------------------------------------------------------

    def version(self) -> str:
        number = self._server_version.split("-", 1)[0]
        return f"{'MariaDB' if self.mariadb else 'MySQL'} {number}"

    @property
    def label(self) -> str:
        return f"{self.name} ({self.version()})"

    # --- admin connection ---------------------------------------------------------------------

    def _connect_admin(self) -> Any:
        conn = self._target.connect()
        with conn.cursor() as cur:  # never wait a day for a metadata lock
            cur.execute(f"SET SESSION lock_wait_timeout = {ADMIN_LOCK_WAIT}")
        return conn

    def _admin_cursor(self) -> Any:
        try:
            self._admin.ping(reconnect=False)
        except pymysql.Error:
            _close(self._admin)
            self._admin = self._connect_admin()
        return self._admin.cursor()

    def _admin_rows(self, sql: str, args: Any = None) -> list[tuple[Any, ...]]:
        with self._admin_cursor() as cur:
            cur.execute(sql, args)
            return list(cur.fetchall()) if cur.description else []

    def _admin_sql(self, sql: str, args: Any = None) -> None:
        """Run one statement with the URL's credentials (tests use it to damage fixtures)."""
        self._admin_rows(sql, args)

    def _sandbox_users(self) -> tuple[_Credentials, _Credentials, bool]:
        """Create or refresh the restricted users; fall back to the URL's user if not allowed."""
        try:
            ident = self._admin_rows(
                "SELECT @@server_uid" if self.mariadb else "SELECT @@server_uuid"
            )[0][0]
        except pymysql.err.MySQLError:
            ident = self._server_version
        secret = hashlib.sha256(f"parrot:{ident}:{self._target.password}".encode()).hexdigest()
        password = "Pp#" + secret[:29]  # mixed case, digit, symbol: MySQL password policies
        fixtures = FIXTURE_PREFIX.replace("_", "\\_") + "%"
        scratch = SCRATCH_PREFIX.replace("_", "\\_") + "%"
        try:
            for user, grant in (
                (READ_USER, f"SELECT, SHOW VIEW, EXECUTE ON `{fixtures}`.*"),
                (WRITE_USER, f"ALL PRIVILEGES ON `{scratch}`.*"),
            ):
                self._admin_sql(
                    f"CREATE USER IF NOT EXISTS '{user}'@'%%' IDENTIFIED BY %s", (password,)
                )
                self._admin_sql(f"ALTER USER '{user}'@'%%' IDENTIFIED BY %s", (password,))
                self._admin_sql(f"GRANT {grant} TO '{user}'@'%'")
        except pymysql.err.MySQLError as exc:
            self.sandbox_error = _message(exc)
            own = _Credentials(self._target.user, self._target.password)
            return own, own, False
        return _Credentials(READ_USER, password), _Credentials(WRITE_USER, password), True

    # --- fixtures -----------------------------------------------------------------------------

    def _loading(self, fixture: Fixture) -> contextlib.AbstractContextManager[object]:
        return self._named_lock(_fixture_database(fixture))

    def _existing(self, fixture: Fixture) -> _Materialised | None:
        database = _fixture_database(fixture)
        if self._admin_rows(
            "SELECT 1 FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = %s", (database,)
        ):
            return _Materialised(database, {})
        return None

    def _create(self, fixture: Fixture) -> _Materialised:
        database = _fixture_database(fixture)
        self._admin_sql(f"CREATE DATABASE {_ident(database)} CHARACTER SET utf8mb4")
        return _Materialised(database, {})

    def _fill(self, mat: _Materialised, fixture: Fixture) -> None:
        with self._admin_cursor() as cur:
            cur.execute("SET SESSION FOREIGN_KEY_CHECKS = 0")
            for table in fixture.tables:
                cur.execute(create_table_sql(mat.database, table))
                marks = ", ".join(["%s"] * len(table.columns))
                names = ", ".join(_ident(c) for c in table.column_names)
                insert = (
                    f"INSERT INTO {_ident(mat.database)}.{_ident(table.name)} ({names})".replace(
                        "%", "%%"
                    )
                    + f" VALUES ({marks})"
                )
                for i in range(0, len(table.rows), INSERT_BATCH):
                    cur.executemany(
                        insert,
                        [tuple(_bind(v) for v in row) for row in table.rows[i : i + INSERT_BATCH]],
                    )
            cur.execute("SET SESSION FOREIGN_KEY_CHECKS = 1")

    def _ready(self, mat: _Materialised, fixture: Fixture) -> _Materialised:
        return _Materialised(mat.database, self._server_checksums(mat.database, fixture))

    def _discard(self, mat: _Materialised) -> None:
        self._admin_sql(f"DROP DATABASE IF EXISTS {_ident(mat.database)}")

    @contextlib.contextmanager
    def _named_lock(self, name: str) -> Iterator[None]:
        got = self._admin_rows("SELECT GET_LOCK(%s, %s)", (name, LOAD_LOCK_TIMEOUT))
        if not got or got[0][0] != 1:
            raise FixtureLoadError(f"another process holds the load lock {name!r}")
        try:
            yield
        finally:
            with contextlib.suppress(pymysql.Error):
                self._admin_rows("SELECT RELEASE_LOCK(%s)", (name,))

    def _read_back(self, mat: _Materialised, fixture: Fixture) -> dict[str, Any]:
        return st.read_tables(
            fixture,
            lambda t: self._admin_rows(
                select_all(t, _ident, f"{_ident(mat.database)}.{_ident(t.name)}")
            ),
            pymysql.err.MySQLError,
        )

    def _server_checksums(self, database: str, fixture: Fixture) -> dict[str, int | None]:
        tables = ", ".join(f"{_ident(database)}.{_ident(t.name)}" for t in fixture.tables)
        try:
            rows = self._admin_rows(f"CHECKSUM TABLE {tables}")
        except pymysql.err.MySQLError:
            return {}
        return {str(name).split(".", 1)[-1]: value for name, value in rows}

    # --- execution ----------------------------------------------------------------------------

    def _execute(self, request: Request) -> Execution:
        plans = GUARD.script(st.splitter("mysql").split(request.sql))
        if isinstance(plans, Execution):
            return plans
        fixture = request.fixture
        script = st.Script(plans, fixture, st.Deadline(request.timeout), request.max_rows)
        for attempt in range(2):
            try:
                mat = self.stored(fixture)
            except FixtureLoadError as exc:  # the server is gone or refuses us
                if not isinstance(exc.__cause__, pymysql.Error):
                    raise
                return Execution(ExecStatus.ENGINE_ERROR, error=_message(exc.__cause__))
            try:
                if script.writes:
                    return self._run_scratch(mat, script)
                return self._run_direct(mat, script)
            except pymysql.Error as exc:  # the sandbox itself failed before the script ran
                if attempt == 0 and _code(exc) in (_UNKNOWN_DATABASE, 1146):
                    self._stored.pop(fixture.content_hash, None)  # fixture database gone
                    continue
                return Execution(ExecStatus.ENGINE_ERROR, error=_message(exc))
        raise AssertionError("unreachable")

    def _run_direct(self, mat: _Materialised, script: st.Script) -> Execution:
        creds = self._reader
        conn = self._target.connect(creds.user, creds.password, mat.database, streaming=True)
        try:
            if not self.sandboxed:
                with conn.cursor() as cur:
                    cur.execute("SET SESSION TRANSACTION READ ONLY")
            return self._run(conn, creds, _qualified(script, mat.database))
        finally:
            _close(conn)

    def _run_scratch(self, mat: _Materialised, script: st.Script) -> Execution:
        scratch = f"{SCRATCH_PREFIX}{self._token}_{next(self._counter)}"
        try:
            mentioned = {
                t.name
                for p in script.plans
                for t in p.tokens
                if t.kind in (st.TokenKind.WORD, st.TokenKind.QUOTED)
            }
            with self._admin_cursor() as cur:
                cur.execute(f"CREATE DATABASE {_ident(scratch)} CHARACTER SET utf8mb4")
                for table in script.fixture.tables:
                    src = f"{_ident(mat.database)}.{_ident(table.name)}"
                    dst = f"{_ident(scratch)}.{_ident(table.name)}"
                    cur.execute(f"CREATE TABLE {dst} LIKE {src}")
                    if table.name.lower() in mentioned:  # SQL cannot reach an unnamed table
                        cur.execute(f"INSERT INTO {dst} SELECT * FROM {src}")
            creds = self._writer
            conn = self._target.connect(creds.user, creds.password, scratch, streaming=True)
            try:
                return self._run(conn, creds, _qualified(script, scratch))
            finally:
                _close(conn)
        finally:
            with contextlib.suppress(pymysql.Error):
                self._admin_sql(f"DROP DATABASE IF EXISTS {_ident(scratch)}")

    def _run(self, conn: Any, creds: _Credentials, script: st.Script) -> Execution:
        deadline, max_rows = script.deadline, script.max_rows
        thread = conn.thread_id()
        limit = "max_statement_time" if self.mariadb else "max_execution_time"
        cursor = conn.cursor()

        def before(_plan: st.Plan, remaining: float) -> None:
            budget = max(remaining, 0.001)
            cursor.execute(
                f"SET SESSION {limit} = "
                + (f"{budget:.3f}" if self.mariadb else str(int(budget * 1000) or 1))
            )

        def run(plan: st.Plan, _remaining: float) -> tuple[values.ResultSet, bool] | None:
            try:
                result = _statement(cursor, plan, max_rows)
            except st.Overflow:
                self._kill(creds, thread, query=False)  # stop streaming the rest
                _abandon(cursor)
                raise
            except Exception:  # PyMySQL errors, broken connections
                _abandon(cursor)
                raise
            return None if result is None else (result, False)

        # a killed BENCHMARK() returns 0, not fails: run_in_order calls that a timeout
        return st.run_in_order(
            script.plans,
            deadline,
            max_rows,
            run,
            lambda: self._kill(creds, thread, query=True),
            lambda exc, fired: ERRORS(exc, fired or deadline.expired),
            _message,
            KILL_GRACE,
            before=before,
            engine_message=_message,
            escalate=lambda: self._end_session(creds, thread),
        )

    def _kill(self, creds: _Credentials, thread: int, query: bool) -> None:
        """``KILL [QUERY]`` an execution's connection, as the user that owns it."""
        conn = self._target.connect(creds.user, creds.password)
        try:
            with conn.cursor() as cur:
                cur.execute(f"KILL {'QUERY ' if query else ''}{int(thread)}")
        finally:
            _close(conn)

    def _end_session(self, creds: _Credentials, thread: int) -> str | None:
        """``KILL CONNECTION`` a session whose statement ignored ``KILL QUERY`` (a handler for
        SQLEXCEPTION swallows it and ``max_statement_time``), then wait until the server's
        process list no longer shows the thread."""
        self._kill(creds, thread, query=False)
        conn = self._target.connect(creds.user, creds.password)
        try:
            with conn.cursor() as cur:

                def listed() -> bool:
                    cur.execute(
                        "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE ID = %s",
                        (int(thread),),
                    )
                    row = cur.fetchone()
                    return bool(row and row[0])

                return st.wait_stopped(listed, f"connection {int(thread)}")
        finally:
            _close(conn)

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        with contextlib.suppress(pymysql.Error):
            for mat in (stored.handle for stored in self._stored.values()):
                # drop a fixture database that was changed
                fixture_tables = list(mat.server_checksums)
                if not fixture_tables:
                    continue
                tables = ", ".join(f"{_ident(mat.database)}.{_ident(t)}" for t in fixture_tables)
                now = {
                    str(n).split(".", 1)[-1]: v
                    for n, v in self._admin_rows(f"CHECKSUM TABLE {tables}")
                }
                if now != mat.server_checksums:
                    with self._named_lock(mat.database):
                        self._admin_sql(f"DROP DATABASE IF EXISTS {_ident(mat.database)}")
            pattern = f"{SCRATCH_PREFIX}{self._token}_%".replace("_", "\\_")
            for (leftover,) in self._admin_rows(
                "SELECT SCHEMA_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME LIKE %s",
                (pattern,),
            ):
                self._admin_sql(f"DROP DATABASE IF EXISTS {_ident(leftover)}")
        self._stored.clear()
        _close(self._admin)


def _fixture_database(fixture: Fixture) -> str:
    return f"{FIXTURE_PREFIX}{fixture.content_hash}"


def _qualified(script: st.Script, database: str) -> st.Script:
    """The script with the fixture's own database name (:func:`database_name`) pointing at the
    database the execution reads: the fixture database, or a writing script's scratch copy."""
    name = database_name(script.fixture)
    plans = [dataclasses.replace(p, text=qualify(p.text, name, database)) for p in script.plans]
    return dataclasses.replace(script, plans=plans)


def _statement(cursor: Any, plan: st.Plan, max_rows: int) -> values.ResultSet | None:
    """Run one statement; its last result set (capped), or None when it returns no rows."""
    cursor.execute(plan.text)
    last: values.ResultSet | None = None
    while True:
        if cursor.description is not None:
            rows = cursor.fetchmany(max_rows + 1)
            if len(rows) > max_rows:
                raise st.Overflow
            last = _result_set(cursor, rows)
        if not cursor.nextset():
            return last


def _abandon(cursor: Any) -> None:
    """Forget an unbuffered result without reading the rest of it (the connection is dropped)."""
    result = getattr(cursor, "_result", None)
    if result is not None:
        result.unbuffered_active = False
    cursor._result = None
    with contextlib.suppress(AttributeError):
        cursor.connection._result = None


def _close(conn: Any) -> None:
    try:
        conn.close()
    except Exception:
        with contextlib.suppress(Exception):
            conn._force_close()


__all__ = ["MySQLEngine", "create_table_sql", "mysql_type"]
