"""ClickHouse adapter, running ClickHouse in-process through chdb.

**One server per process.** chdb embeds a single ClickHouse server per process (a second
session with another data path is refused, and every session sees the same databases), so all
adapter instances share it: each instance owns the databases named ``parrot_<random token>_...``
and never touches others. Connections (``chdb.connect``) carry their own current database and
settings: an adapter keeps one read-only connection for the read-only executions that change no
session setting (no ``SET`` statement), replaced after a timeout or a failure; the others get a
fresh one. A fixture's tables are created and filled in one multi-statement query (several for
big fixtures), and a statement text that passed the guard is not explained again.

**Isolation.** ClickHouse has no rollback, so each execution is classified from its statements'
leading keywords:

* *read-only* (every statement is SELECT/WITH/SHOW/DESCRIBE/EXPLAIN/EXISTS/SET): runs directly
  on the fixture database with ``readonly = 2`` (reads and settings only; the engine refuses any
  write, and ``readonly`` cannot be lowered again);
* *writing* (anything else: views, ``CREATE FUNCTION`` lambdas, temporary tables, INSERT, DROP,
  ALTER, ...): runs on a scratch database holding ``CLONE AS`` copies of the fixture tables
  (MergeTree parts are immutable and shared by hard links, so this is cheap and mutations of a
  copy never reach the original), dropped afterwards together with SQL functions the execution
  created and tables it created in other non-parrot databases. Executions that create functions
  (process-global in ClickHouse) are serialised across adapter instances.

Refused before anything runs (``ExecStatus.UNSUPPORTED``): ATTACH/DETACH, SYSTEM, KILL,
BACKUP/RESTORE, GRANT/REVOKE, USE, transactions, access entities, databases and dictionaries;
table functions, engines and functions that reach files, URLs, other servers or the Python
process (``file()``, ``url()``, ``s3()``, ``remote()``, ``mysql()``, ``Python()``, ... — no
setting disables these short of ``readonly = 1``, which also forbids SET/SETTINGS, so this is a
token-level guard), ``INTO OUTFILE``/``FROM INFILE``, a query's own ``FORMAT`` clause, any mention
of a ``parrot_`` database, and changes to the settings this adapter relies on (``readonly``,
``max_execution_time``, ``timeout_overflow_mode``, ``log_comment``, ``session_timezone``,
``max_memory_usage``, output-format settings).

**Timeouts.** ``max_execution_time`` is set to the remaining budget before each statement; a
watchdog thread also issues ``KILL QUERY`` (matched on this execution's ``log_comment``) shortly
after the deadline in case the engine's own check is late. ``sleep()``/``sleepEachRow()`` only
notice either between one-second slices, so they overrun the deadline by up to ~0.9 s.

**Settings changed** (per connection): ``session_timezone = 'UTC'`` (DateTime values load, print
and canonicalise deterministically), ``format_custom_escaping_rule = 'Quoted'`` (only affects the
``CustomSeparatedWithNamesAndTypes`` output this adapter reads), ``log_comment`` (watchdog tag),
``max_execution_time`` (timeout), ``max_memory_usage`` (``MEMORY_LIMIT``, 2 GB: memory bombs
fail at once) and ``readonly = 2`` for read-only executions. NULL ordering,
``join_use_nulls``, division and every other semantics-affecting setting keep ClickHouse's
defaults.

**Type map**: integer → Int32, bigint → Int64, double → Float64, decimal(p,s) → Decimal(p,s),
text → String, boolean → Bool, date → Date32 (Date stops at 1970-01-01 and 2149-06-06),
timestamp → DateTime64(6) (DateTime would drop sub-seconds); nullable columns are
``Nullable(...)`` (NULL into a non-Nullable column silently becomes 0/''). Tables use
``MergeTree ORDER BY tuple()``, as real ClickHouse tables do, in a database whose table list
is kept in memory (``ENGINE = Memory``: no metadata files, half the wall time of an Atomic
database's creation and fill, issue 31); the scratch copies writing executions run on are in an
Atomic database, where lightweight DELETE and CREATE OR REPLACE work. In ClickHouse 26.9 Date32
and DateTime64 span 0001-01-01 … 9999-12-31.

**Results** are read as ``CustomSeparatedWithNamesAndTypes`` with Quoted escaping, which carries
the exact ClickHouse type of every column and prints every value exactly; values are converted
by type: Decimal → Decimal (at the type's scale), Float64 → float (NaN/inf kept), Float32 →
float widened exactly, Bool → bool, UInt8 and every (U)Int up to 256 bits → int, Date/Date32 and
DateTime/DateTime64 → Temporal (UTC), Array/Tuple/Map → Nested (named tuples as objects),
Nullable/LowCardinality unwrapped, Enum/UUID/IP/FixedString → str, Interval → Nested
``{"interval_seconds": ...}`` (a month counts 30 days, as DuckDB's Python conversion does), JSON →
Nested. (The JSON formats were not used: telling NaN from NULL there needs
``output_format_json_quote_denormals``, which also changes what ``toJSONString()`` returns.)
SELECT-like statements are streamed through chdb's native connection (``conn._conn``), fetching
at most ``max_rows + 1`` rows: chdb's public ``StreamingResult`` ends a stream at a chunk that
read no rows, which loses the column header of empty results.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import decimal
import importlib.util
import itertools
import json
import re
import secrets
import struct
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any, ClassVar
from zoneinfo import ZoneInfo

from parrot import values
from parrot.engines import statements as st
from parrot.engines.base import (
    Capabilities,
    EngineBase,
    ExecStatus,
    Execution,
    Request,
    TypeMap,
    create_table_sql,
    select_all,
)
from parrot.fixtures import Column, Fixture, Table

OUTPUT_FORMAT = "CustomSeparatedWithNamesAndTypes"
DB_PREFIX = "parrot_"
KILL_GRACE = 0.3  # seconds after the deadline before the watchdog kills a query
MEMORY_LIMIT = 2_000_000_000  # max_memory_usage (bytes) of an execution's queries
INSERT_BATCH = 10_000  # rows per INSERT while loading
FILL_QUERY_BYTES = 1 << 20  # a fixture's DDL and INSERTs go in multi-statement queries this big
CHECKED_TEXTS = 4_096  # statement texts whose guard verdict an adapter remembers
# after these, the shared read-only connection is kept; after a timeout, a cut-short result or an
# engine failure it is replaced (a killed or cancelled query must not leave it in doubt)
REUSABLE_AFTER = frozenset({ExecStatus.OK, ExecStatus.RUNTIME_ERROR, ExecStatus.SYNTAX_ERROR})
TABLE_ENGINE = "MergeTree ORDER BY tuple()"  # what real ClickHouse tables use (DELETE works)
# A fixture's database: its tables' metadata in memory, not in files (the data parts are files
# either way). A 3-table suite database of 27 rows a table was created and filled in 37 ms wall
# (31 CPU) against 68 (42) in an Atomic database (chdb 4.4, load 4.2; issue 31). Fixture
# databases are never written (writing executions run on Atomic scratch copies, CLONE AS).
FIXTURE_DATABASE_ENGINE = "Memory"
OUR_DATABASE = re.compile(DB_PREFIX + r"[0-9a-f]{12}_[fs][0-9a-f]+")

# process-wide: executions that create SQL functions (global objects) run one at a time
_UDF_LOCK = threading.Lock()

# --- statement guard ------------------------------------------------------------------------------

READ_FIRST = frozenset(
    {"SELECT", "WITH", "SHOW", "DESC", "DESCRIBE", "EXPLAIN", "EXISTS", "SET", "FROM", "VALUES"}
)
_QUERY_FIRST = frozenset({"SELECT", "WITH", "FROM", "VALUES", "EXPLAIN"})  # streamable
_REFUSED_FIRST = frozenset(
    {
        "ATTACH",
        "DETACH",
        "SYSTEM",
        "KILL",
        "BACKUP",
        "RESTORE",
        "GRANT",
        "REVOKE",
        "USE",
        "BEGIN",
        "COMMIT",
        "ROLLBACK",
        "START",
        "UNDROP",
        "MOVE",
        "WATCH",
        "EXECUTE",
        "SAVEPOINT",
        "RELEASE",
    }
)
_REFUSED_OBJECTS = frozenset(
    {
        "USER",
        "ROLE",
        "QUOTA",
        "POLICY",
        "ROW",
        "SETTINGS",
        "PROFILE",
        "NAMED",
        "DATABASE",
        "DICTIONARY",
        "WORKLOAD",
        "RESOURCE",
        "MASKING",
    }
)
_OBJECT_MODIFIERS = frozenset({"OR", "REPLACE", "IF", "NOT", "EXISTS", "TEMPORARY"})
_DENIED_CALLS = frozenset(
    {  # table functions, engines and functions reaching files/network/host
        "file",
        "filecluster",
        "filelog",
        "url",
        "urlcluster",
        "input",
        "cluster",
        "clusterallreplicas",
        "gcs",
        "oss",
        "cosn",
        "hive",
        "redis",
        "kafka",
        "nats",
        "rabbitmq",
        "odbc",
        "jdbc",
        "sqlite",
        "zookeeper",
        "keepermap",
        "ytsaurus",
        "arrowflight",
        "python",
        "pandas",
        "dictionary",
        "buffer",
    }
)
_DENIED_CALL_PREFIXES = (
    "s3",
    "hdfs",
    "azure",
    "iceberg",
    "deltalake",
    "hudi",
    "paimon",
    "remote",
    "executable",
    "mysql",
    "postgresql",
    "materializedpostgresql",
    "materializedmysql",
    "mongo",
)
_DENIED_WORDS = frozenset({"outfile", "infile"})
_PROTECTED_SETTINGS = frozenset(
    {
        "readonly",
        "max_execution_time",
        "max_execution_time_leaf",
        "timeout_overflow_mode",
        "timeout_overflow_mode_leaf",
        "log_comment",
        "session_timezone",
        "date_time_output_format",
        "interval_output_format",
        "allow_introspection_functions",
        "allow_ddl",
        "max_estimated_execution_time",
        "timeout_before_checking_execution_speed",
        "max_memory_usage",
        "max_memory_usage_for_user",
        "max_guaranteed_memory_usage",
    }
)


def format_clause(plan: st.Plan) -> str | None:
    """Why a query is refused for a FORMAT clause (it changes the output format parrot reads)."""
    tokens = plan.tokens
    for i, tok in enumerate(tokens if plan.first in READ_FIRST else ()):
        nxt = tokens[i + 1] if i + 1 < len(tokens) else None
        if (
            tok.kind is st.TokenKind.WORD
            and tok.name == "format"
            and nxt is not None
            and nxt.kind in (st.TokenKind.WORD, st.TokenKind.QUOTED)
        ):
            after = tokens[i + 2] if i + 2 < len(tokens) else None
            if after is None or after.name == "settings":
                return "a FORMAT clause would change the output format parrot reads"
    return None


# settings are protected wherever they are named (a query's SETTINGS clause sets them too)
GUARD = st.Guard(
    lexicon=st.CLICKHOUSE,
    reads=READ_FIRST | {""},
    refused_first=_REFUSED_FIRST,
    refused_objects=_REFUSED_OBJECTS | {"DEFAULT", "TRANSACTION"},
    object_modifiers=_OBJECT_MODIFIERS,
    object_statements=frozenset({"CREATE", "ALTER", "DROP", "RENAME", "EXCHANGE", "SET"}),
    refused_calls=_DENIED_CALLS,
    refused_call_prefixes=_DENIED_CALL_PREFIXES,
    call_reason="reaches outside the database and is not allowed",
    refused_words=_DENIED_WORDS,
    protected_settings=_PROTECTED_SETTINGS,
    protected_prefixes=("output_format_", "format_custom_"),
    setting_statements=((),),
    reserved_prefix=DB_PREFIX,
    extra=format_clause,
)


def _function_name(plan: st.Plan, verb: str) -> str | None:
    """The (case-sensitive) name of the SQL function a ``CREATE``/``DROP FUNCTION`` names."""
    if plan.first != verb or "FUNCTION" not in plan.words:
        return None
    at = next(i for i, t in enumerate(plan.tokens) if t.name == "function")
    rest = [t for t in plan.tokens[at + 1 :] if t.name not in ("if", "not", "exists")]
    if not rest:
        return None
    tok = rest[0]
    return tok.text[1:-1] if tok.kind is st.TokenKind.QUOTED else tok.text


def created_function(plan: st.Plan) -> str | None:
    return _function_name(plan, "CREATE")


def dropped_function(plan: st.Plan) -> str | None:
    return _function_name(plan, "DROP")


_AST_FUNCTION = re.compile(r"^\s*Function (\S+)", re.MULTILINE)
MULTI_STATEMENT = "more than one statement: ClickHouse's parser explains one at a time"


class MultiStatementError(ValueError):
    """A text given to :func:`explain_ast` that holds more than one statement."""


def _string_literal(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def explain_ast(conn: Any, text: str) -> str:
    """ClickHouse's ``EXPLAIN AST`` of ``text``, which must be exactly one statement: chdb runs
    *every* statement of a multi-statement text (``EXPLAIN AST SELECT 1; INSERT INTO FUNCTION
    file(...) SELECT 1`` writes the file). The text is refused (:class:`MultiStatementError`)
    when parrot's splitter sees more than one statement, or when ClickHouse's own parser does
    (``formatQuerySingleLine`` of the exact query to be sent, which parses a string without
    running it and refuses multi-statements). chdb's RuntimeError (a syntax error) propagates."""
    if len(st.splitter("clickhouse").split(text)) > 1:
        raise MultiStatementError(MULTI_STATEMENT)
    query = f"EXPLAIN AST {text}"
    try:
        conn.query(f"SELECT formatQuerySingleLine({_string_literal(query)})", "TSVRaw")
    except RuntimeError as exc:
        if "Multi-statements are not allowed" in str(exc):
            raise MultiStatementError(MULTI_STATEMENT) from None
        raise
    return str(conn.query(query, "TSVRaw").bytes().decode("utf-8", "replace"))


def _ast_refusal(conn: Any, text: str) -> str | None:
    """Why ClickHouse's own parser finds ``text`` reaching outside the database: a table
    function, storage engine or function of ``_DENIED_CALLS`` anywhere in its ``EXPLAIN AST``
    (which parses without running). A syntax error is left to the execution, which fails the
    same way before running anything; any other failure to explain refuses (fails closed)."""
    try:
        tree = explain_ast(conn, text)
    except MultiStatementError as exc:
        return str(exc)
    except RuntimeError as exc:
        if _error_code(exc) in _SYNTAX_CODES:
            return None
        return f"ClickHouse's parser could not explain the statement: {_clean_message(exc)}"
    for match in _AST_FUNCTION.finditer(tree):
        name = match.group(1).lower()
        if name in _DENIED_CALLS or name.startswith(_DENIED_CALL_PREFIXES):
            return f"{match.group(1)}(...) reaches outside the database and is not allowed"
    return None


# --- ClickHouse types -----------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class CHType:
    """A parsed ClickHouse type: ``name(args)``; ``fields`` holds named-tuple element names."""

    name: str
    args: tuple[CHType | str, ...] = ()
    fields: tuple[str | None, ...] = ()

    def arg_types(self) -> list[CHType]:
        return [a for a in self.args if isinstance(a, CHType)]

    def arg_texts(self) -> list[str]:
        return [a for a in self.args if isinstance(a, str)]


_TYPE_TOKEN = re.compile(
    r"\s*(`(?:[^`\\]|\\.)*`|'(?:[^'\\]|\\.)*'|[A-Za-z_][A-Za-z0-9_]*|"
    r"-?[0-9][0-9.eE+-]*|[(),=])"
)


def parse_type(text: str) -> CHType:
    """Parse a ClickHouse type name such as ``Map(String, Array(Nullable(Decimal(10, 2))))``."""
    tokens = _TYPE_TOKEN.findall(text)
    pos = 0

    def peek() -> str:
        return tokens[pos] if pos < len(tokens) else ""

    def take() -> str:
        nonlocal pos
        pos += 1
        return tokens[pos - 1] if pos <= len(tokens) else ""

    def parse() -> CHType:
        name = take()
        args: list[CHType | str] = []
        fields: list[str | None] = []
        if peek() == "(":
            take()
            while peek() not in (")", ""):
                args_item, field = parse_arg()
                args.append(args_item)
                fields.append(field)
                if peek() == ",":
                    take()
            take()
        return CHType(name, tuple(args), tuple(fields) if any(fields) else ())

    def parse_arg() -> tuple[CHType | str, str | None]:
        tok = peek()
        if tok.startswith("'") or tok[:1].isdigit() or tok.startswith("-"):
            parts = [take()]
            while peek() not in (",", ")", ""):  # enum values: 'a' = 1
                parts.append(take())
            return " ".join(parts), None
        nxt = tokens[pos + 1] if pos + 1 < len(tokens) else ""
        if tok.startswith("`") or (nxt not in ("(", ",", ")", "") and nxt[:1].isalpha()):
            field = take()
            if field.startswith("`"):
                field = field[1:-1].replace("\\`", "`")
            return parse(), field
        return parse(), None

    return parse()


class _Bare(str):
    """An unquoted literal in the output (number, nan, inf, true, false)."""


class _Pairs(list[tuple[Any, Any]]):
    """A map literal's (key, value) pairs, in output order."""


_ESCAPES = {
    ord("n"): b"\n",
    ord("t"): b"\t",
    ord("r"): b"\r",
    ord("0"): b"\0",
    ord("b"): b"\b",
    ord("f"): b"\f",
    ord("a"): b"\a",
    ord("v"): b"\v",
    ord("e"): b"\x1b",
}


def parse_literal(data: bytes, pos: int = 0) -> tuple[Any, int]:
    """Parse one value written with ClickHouse's Quoted escaping; returns (value, next index)."""
    c = data[pos : pos + 1]
    if c == b"'":
        out = bytearray()
        i = pos + 1
        while True:
            quote = data.find(b"'", i)
            if quote < 0:
                raise ValueError(f"unterminated string in output at {pos}")
            backslash = data.find(b"\\", i, quote)
            if backslash < 0:
                out += data[i:quote]
                return out.decode("utf-8", "replace"), quote + 1
            out += data[i:backslash]
            esc = data[backslash + 1]
            if esc == ord("x"):
                out.append(int(data[backslash + 2 : backslash + 4], 16))
                i = backslash + 4
            else:
                out += _ESCAPES.get(esc, bytes([esc]))
                i = backslash + 2
    if c in (b"[", b"(", b"{"):
        close = {b"[": b"]", b"(": b")", b"{": b"}"}[c]
        items: list[Any] = []
        i = pos + 1
        while data[i : i + 1] != close:
            item, i = parse_literal(data, i)
            if c == b"{":  # key:value
                value, i = parse_literal(data, i + 1)
                item = (item, value)
            items.append(item)
            if data[i : i + 1] == b",":
                i += 1
        if c == b"[":
            return items, i + 1
        if c == b"(":
            return tuple(items), i + 1
        return _Pairs(items), i + 1
    end = pos
    while end < len(data) and data[end : end + 1] not in (
        b",",
        b"]",
        b")",
        b"}",
        b":",
        b"\t",
        b"\n",
    ):
        end += 1
    text = data[pos:end].decode()
    return (None if text == "NULL" else _Bare(text)), end


def parse_output(data: bytes) -> tuple[list[str], list[str], list[list[Any]]]:
    """Names, type names and raw rows of one ``CustomSeparatedWithNamesAndTypes`` chunk."""
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    if len(lines) < 2:
        raise ValueError(f"unexpected output: {data[:200]!r}")
    names = [parse_literal(f)[0] for f in lines[0].split(b"\t")]
    types = [parse_literal(f)[0] for f in lines[1].split(b"\t")]
    rows = []
    for line in lines[2:]:
        fields = line.split(b"\t")
        if len(fields) != len(names):
            raise ValueError(f"row with {len(fields)} fields, expected {len(names)}")
        rows.append([parse_literal(f)[0] for f in fields])
    return names, types, rows


# --- typed conversion of raw literals -------------------------------------------------------------

_DEC_CONTEXT = decimal.Context(prec=200)
_INTERVAL_SECONDS = {
    "Nanosecond": 1e-9,
    "Microsecond": 1e-6,
    "Millisecond": 1e-3,
    "Second": 1,
    "Minute": 60,
    "Hour": 3600,
    "Day": 86400,
    "Week": 7 * 86400,
    "Month": 30 * 86400,
    "Quarter": 90 * 86400,
    "Year": 360 * 86400,
}
_INT = re.compile(r"^[+-]?\d+$")
_WRAPPERS = ("Nullable", "LowCardinality", "SimpleAggregateFunction")
_STRINGS = ("String", "FixedString", "UUID", "IPv4", "IPv6", "Enum8", "Enum16", "Enum")
_UTC = dt.UTC


def converter(t: CHType, session_tz: str = "UTC") -> Callable[[Any], Any]:
    """A function turning a raw literal of type ``t`` into a plain Python value."""
    name = t.name
    inner = t.arg_types()
    if name in _WRAPPERS and inner:
        return converter(inner[-1], session_tz)
    if name == "Nothing":
        return lambda raw: None
    if re.fullmatch(r"U?Int\d+", name):
        return _nullable(int)
    if name in ("Float64", "BFloat16"):
        return _nullable(float)
    if name == "Float32":
        return _nullable(lambda r: struct.unpack("<f", struct.pack("<f", float(r)))[0])
    if name.startswith("Decimal"):
        scale = int(t.arg_texts()[-1]) if t.arg_texts() else 0
        quantum = decimal.Decimal(1).scaleb(-scale)
        return _nullable(lambda r: decimal.Decimal(r).quantize(quantum, context=_DEC_CONTEXT))
    if name == "Bool":
        return _nullable(lambda r: r == "true")
    if name.startswith(_STRINGS):
        return _nullable(str)
    if name in ("Date", "Date32"):
        return _nullable(dt.date.fromisoformat)
    if name in ("DateTime", "DateTime64"):
        zones = [a.strip("'") for a in t.arg_texts() if a.startswith("'")]
        zone = zones[0] if zones else session_tz
        return _nullable(lambda r: _datetime(r, zone))
    if name in ("Time", "Time64"):
        return _nullable(_time)
    if name.startswith("Interval"):
        unit = _INTERVAL_SECONDS.get(name[len("Interval") :])
        if unit is not None:
            return _nullable(lambda r: dt.timedelta(seconds=float(r) * unit))
    if name == "Array" and inner:
        item = converter(inner[0], session_tz)
        return _nullable(lambda r: [item(x) for x in r])
    if name == "Tuple" and inner:
        items = [converter(a, session_tz) for a in inner]
        if t.fields and all(t.fields):
            keys = [str(f) for f in t.fields]
            return _nullable(lambda r: {k: f(x) for k, f, x in zip(keys, items, r, strict=True)})
        return _nullable(lambda r: [f(x) for f, x in zip(items, r, strict=True)])
    if name == "Map" and len(inner) == 2:
        key, value = converter(inner[0], session_tz), converter(inner[1], session_tz)
        return _nullable(lambda r: {_hashable(key(k)): value(v) for k, v in r})
    if name in ("JSON", "Object"):
        return _nullable(lambda r: json.loads(r) if isinstance(r, str) else _generic(r))
    return _generic


def _nullable(f: Callable[[Any], Any]) -> Callable[[Any], Any]:
    return lambda raw: None if raw is None else f(raw)


def _generic(raw: Any) -> Any:
    """Best-effort conversion without a usable type (Dynamic, Variant, geo types, ...)."""
    if raw is None or (isinstance(raw, str) and not isinstance(raw, _Bare)):
        return raw
    if isinstance(raw, _Bare):
        if raw in ("true", "false"):
            return raw == "true"
        if _INT.match(raw):
            return int(raw)
        try:
            return float(raw)
        except ValueError:
            return str(raw)
    if isinstance(raw, _Pairs):
        return {_hashable(_generic(k)): _generic(v) for k, v in raw}
    return [_generic(x) for x in raw]


def _hashable(key: Any) -> Any:
    return (
        key
        if isinstance(key, str | int | float | bool | decimal.Decimal | dt.date | None)
        else json.dumps(values.to_json(values.canonical(key)), sort_keys=True)
    )


def _datetime(text: str, zone: str) -> dt.datetime:
    date_part, _, frac = text.partition(".")
    value = dt.datetime.fromisoformat(date_part)
    if frac:
        value = value.replace(microsecond=int(frac[:6].ljust(6, "0")))
    if zone not in ("UTC", "Etc/UTC", "GMT", "Etc/GMT"):
        value = value.replace(tzinfo=ZoneInfo(zone)).astimezone(_UTC).replace(tzinfo=None)
    return value


def _time(text: str) -> Any:
    try:
        return dt.time.fromisoformat(text)
    except ValueError:
        return str(text)


def canonical_rows(
    type_names: Sequence[str], rows: Sequence[Sequence[Any]]
) -> tuple[tuple[values.Value, ...], ...]:
    """Canonical values of raw output rows, converted by their ClickHouse types."""
    convs = [converter(parse_type(t)) for t in type_names]
    return tuple(
        tuple(values.canonical(f(v)) for f, v in zip(convs, row, strict=True)) for row in rows
    )


# --- fixtures -------------------------------------------------------------------------------------

_TYPES = TypeMap(
    {
        "integer": "Int32",
        "bigint": "Int64",
        "double": "Float64",
        "text": "String",
        "boolean": "Bool",
        "date": "Date32",
        "timestamp": "DateTime64(6)",
    },
    decimal="Decimal({p}, {s})",
)


def clickhouse_type(column: Column) -> str:
    """The ClickHouse type of a portable column (``Nullable(...)`` when nullable)."""
    return f"Nullable({_TYPES(column)})" if column.nullable else _TYPES(column)


def ident(name: str) -> str:
    """A quoted ClickHouse identifier."""
    return "`" + name.replace("\\", "\\\\").replace("`", "\\`") + "`"


def table_ddl(database: str, table: Table) -> str:
    """The CREATE TABLE statement of a fixture table in ``database``."""
    return create_table_sql(
        f"{ident(database)}.{ident(table.name)}",
        table,
        ident,
        clickhouse_type,
        primary_key=False,
        not_null=False,
        suffix=f" ENGINE = {TABLE_ENGINE}",
    )


def fill_statements(database: str, fixture: Fixture) -> Iterator[str]:
    """The statements that create and fill a fixture's tables in ``database`` (INSERTs of at
    most ``INSERT_BATCH`` rows)."""
    for table in fixture.tables:
        target = f"{ident(database)}.{ident(table.name)}"
        yield table_ddl(database, table)
        for i in range(0, len(table.rows), INSERT_BATCH):
            yield (
                f"INSERT INTO {target} VALUES "
                + ", ".join(
                    "(" + ", ".join(literal(v) for v in row) + ")"
                    for row in table.rows[i : i + INSERT_BATCH]
                )
            )


def string_literal(text: str) -> str:
    """A quoted ClickHouse string literal."""
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def literal(value: Any) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, decimal.Decimal):
        return format(value, "f")
    if isinstance(value, dt.datetime | dt.date):
        return string_literal(values.temporal(value).iso)
    return string_literal(str(value))


@dataclasses.dataclass(frozen=True)
class _Materialised:
    database: str


# --- errors ---------------------------------------------------------------------------------------

_CODE = re.compile(r"Code:\s*(\d+)")
_SYNTAX_CODES = {62}  # SYNTAX_ERROR
_NOT_STREAMABLE = "Streaming query is not supported"


def _error_code(exc: BaseException) -> int | None:
    m = _CODE.search(str(exc))
    return int(m.group(1)) if m else None


# chdb raises RuntimeError with the server's message; anything else without a code is a crash
ERRORS = st.ErrorTable(
    _error_code,
    timeout=frozenset({159}),  # TIMEOUT_EXCEEDED
    cancelled=frozenset({394}),  # QUERY_WAS_CANCELLED: a timeout when parrot killed it
    syntax=frozenset(_SYNTAX_CODES),
    uncoded_cancel=False,
    driver_errors=(RuntimeError,),
)


def _clean_message(exc: BaseException) -> str:
    text = OUR_DATABASE.sub("parrot_db", str(exc))  # stable across runs; hides the token
    text = re.sub(r"^Streaming query failed:\s*", "", text)
    text = re.sub(r"\s*\(version [0-9.]+\)", "", text)
    return st.trim_message(text)


# --- the adapter ----------------------------------------------------------------------------------


def _chdb() -> Any:
    """chdb, imported on first use (an embedded ClickHouse server: 1 s and ~360 MiB)."""
    import chdb

    return chdb


class ClickHouseEngine(EngineBase[_Materialised]):
    name: ClassVar[str] = "clickhouse"
    dialect: ClassVar[str] = "clickhouse"
    capabilities: ClassVar[Capabilities] = Capabilities(
        booleans=False,  # there is a Bool type, but comparisons return UInt8
        transactional_ddl=False,
        udfs=True,  # CREATE FUNCTION f AS (x) -> ...
        procedures=False,
        decimals=True,
        timestamps_us=True,  # DateTime64(6)
    )

    @staticmethod
    def available() -> str | None:
        """Asked without importing chdb (a main process that only dispatches to engine workers
        never loads it)."""
        return None if importlib.util.find_spec("chdb") else "chdb is not installed"

    def __init__(self) -> None:
        super().__init__()
        self._token = secrets.token_hex(6)
        self._prefix = f"{DB_PREFIX}{self._token}_"
        self._admin = self._connect()
        # loads insert synchronously: chdb's default (async_insert = 1) sends an INSERT through
        # the insert queue and waits for its flush; the same rows are stored either way, 12%
        # sooner (a 3-table suite database of 27 rows a table: 36.7 ms wall against 41.7, chdb
        # 4.4, load 2.3; issue 31). Executions' connections keep the default.
        self._admin.query("SET async_insert = 0")
        self._counter = itertools.count()
        self._server_version: str | None = None
        self._closed = False
        self._reader: Any = None  # the read-only connection executions without SET share
        self._reader_db: str | None = None  # the database it is USE-ing
        self._checked: dict[str, st.Plan] = {}  # statement text -> its plan, guard passed

    @staticmethod
    def _connect() -> Any:
        conn = _chdb().connect(":memory:")
        conn.query("SET session_timezone = 'UTC', format_custom_escaping_rule = 'Quoted'")
        return conn

    # --- identity -----------------------------------------------------------------------------

    def version(self) -> str:
        if self._server_version is None:
            out = self._admin.query("SELECT version()", "CSV").bytes().decode().strip()
            self._server_version = out.strip('"')
        return f"chdb {_chdb().__version__}, ClickHouse {self._server_version}"

    @property
    def label(self) -> str:
        return f"{self.name} ({self.version()})"

    # --- fixtures -----------------------------------------------------------------------------

    def _create(self, fixture: Fixture) -> _Materialised:
        """The database's name only: :meth:`_fill` creates it in its first query."""
        return _Materialised(f"{self._prefix}f{fixture.content_hash}")

    def _fill(self, mat: _Materialised, fixture: Fixture) -> None:
        """The database (afresh: one a failed load left is dropped), every table's DDL and
        rows, sent as multi-statement queries of up to ``FILL_QUERY_BYTES`` each (a small
        fixture, e.g. a suite database: one query in all)."""
        batch: list[str] = [
            f"DROP DATABASE IF EXISTS {ident(mat.database)} SYNC",
            f"CREATE DATABASE {ident(mat.database)} ENGINE = {FIXTURE_DATABASE_ENGINE}",
        ]
        size = sum(map(len, batch))
        for statement in fill_statements(mat.database, fixture):
            if batch and size + len(statement) > FILL_QUERY_BYTES:
                self._admin.query(";\n".join(batch))
                batch, size = [], 0
            batch.append(statement)
            size += len(statement)
        if batch:
            self._admin.query(";\n".join(batch))

    def _discard(self, mat: _Materialised) -> None:
        self._admin.query(f"DROP DATABASE IF EXISTS {ident(mat.database)} SYNC")

    def _read_back(self, mat: _Materialised, fixture: Fixture) -> dict[str, Any]:
        def read(table: Table) -> list[Any]:
            _, types, rows = parse_output(
                self._admin.query(
                    select_all(table, ident, f"{ident(mat.database)}.{ident(table.name)}"),
                    OUTPUT_FORMAT,
                ).bytes()
            )
            return list(canonical_rows(types, rows))

        return st.read_tables(fixture, read, (RuntimeError, ValueError))

    # --- execution ----------------------------------------------------------------------------

    def _execute(self, request: Request) -> Execution:
        fixture = request.fixture
        mat = self.stored(fixture)
        texts = st.splitter("clickhouse").split(request.sql)
        if not texts:
            return Execution(ExecStatus.SYNTAX_ERROR, error=st.NO_STATEMENT)
        plans: list[st.Plan] = []
        for text in texts:
            plan = self._guarded(text)
            if isinstance(plan, str):
                return Execution(ExecStatus.UNSUPPORTED, error=plan)
            plans.append(plan)
        script = st.Script(plans, fixture, st.Deadline(request.timeout), request.max_rows)
        tag = f"parrot-{self._token}-{next(self._counter)}"
        try:
            if not script.writes:
                return self._run_direct(mat, script, tag)
            functions = [f for p in plans if (f := created_function(p))]
            if functions:
                with _UDF_LOCK:
                    return self._run_scratch(mat, script, tag, functions)
            return self._run_scratch(mat, script, tag, functions)
        except RuntimeError as exc:  # the sandbox itself failed (e.g. fixture database gone)
            self._stored.pop(fixture.content_hash, None)  # reload on next use
            return Execution(ExecStatus.ENGINE_ERROR, error=_clean_message(exc))

    def _guarded(self, text: str) -> st.Plan | str:
        """The plan of one statement text, or why it is refused: parrot's guard first, then
        the engine's own parser. A text that passed is remembered (the same translation runs on
        the fixture and on each suite database; both checks depend on the text alone)."""
        known = self._checked.get(text)
        if known is not None:
            return known
        plan = GUARD.check(text)
        if isinstance(plan, str):
            return OUR_DATABASE.sub("parrot_db", plan)
        refusal = _ast_refusal(self._admin, text)  # the engine's own parser, second
        if refusal is not None:
            return refusal
        if len(self._checked) >= CHECKED_TEXTS:
            self._checked.clear()
        self._checked[text] = plan
        return plan

    def _run_direct(self, mat: _Materialised, script: st.Script, tag: str) -> Execution:
        """A read-only execution. Without a SET statement (which would outlive it in the
        connection's session) it runs on the adapter's one shared read-only connection;
        otherwise on a fresh connection closed afterwards."""
        if any(p.first == "SET" for p in script.plans):
            conn = self._connect()
            try:
                conn.query(f"USE {ident(mat.database)}")
                conn.query("SET readonly = 2")  # settings can still change (= 2), writes not
                return self._run(conn, script, tag, f"max_memory_usage = {MEMORY_LIMIT}")
            finally:
                conn.close()
        conn = self._read_only(mat.database)
        execution = Execution(ExecStatus.ENGINE_ERROR, error="execution did not finish")
        try:
            execution = self._run(conn, script, tag)
            return execution
        finally:
            if execution.status not in REUSABLE_AFTER:  # killed, cut short or failed: a new one
                self._drop_reader()

    def _read_only(self, database: str) -> Any:
        """The shared read-only connection, USE-ing ``database``."""
        if self._reader is None:
            conn = self._connect()
            try:
                conn.query(f"SET max_memory_usage = {MEMORY_LIMIT}")
                conn.query("SET readonly = 2")
            except BaseException:
                conn.close()
                raise
            self._reader, self._reader_db = conn, None
        if self._reader_db != database:
            self._reader_db = None
            self._reader.query(f"USE {ident(database)}")
            self._reader_db = database
        return self._reader

    def _drop_reader(self) -> None:
        reader, self._reader, self._reader_db = self._reader, None, None
        if reader is not None:
            with contextlib.suppress(Exception):
                reader.close()

    def _run_scratch(
        self, mat: _Materialised, script: st.Script, tag: str, functions: list[str]
    ) -> Execution:
        scratch = f"{self._prefix}s{next(self._counter)}"
        conn = self._connect()
        before = self._foreign_tables()
        try:
            conn.query(f"CREATE DATABASE {ident(scratch)} ENGINE = Atomic")
            for table in script.fixture.tables:  # CLONE AS shares the immutable parts: cheap, and
                src = f"{ident(mat.database)}.{ident(table.name)}"  # mutations make new ones
                conn.query(f"CREATE TABLE {ident(scratch)}.{ident(table.name)} CLONE AS {src}")
            conn.query(f"USE {ident(scratch)}")
            return self._run(conn, script, tag, f"max_memory_usage = {MEMORY_LIMIT}")
        finally:
            conn.close()
            cleanup = [f"DROP DATABASE IF EXISTS {ident(scratch)} SYNC"]
            cleanup += [f"DROP FUNCTION IF EXISTS {ident(f)}" for f in functions]
            with contextlib.suppress(RuntimeError, ValueError):
                cleanup += [
                    f"DROP TABLE IF EXISTS {ident(db)}.{ident(t)} SYNC"
                    for db, t in self._foreign_tables() - before
                ]
            for statement in cleanup:
                with contextlib.suppress(RuntimeError):
                    self._admin.query(statement)

    def _foreign_tables(self) -> set[tuple[str, str]]:
        """Tables outside system and parrot databases (to drop what an execution leaks)."""
        data = self._admin.query(
            "SELECT database, name FROM system.tables WHERE database NOT IN "
            "('system', 'INFORMATION_SCHEMA', 'information_schema') "
            f"AND NOT startsWith(database, {string_literal(DB_PREFIX)}) AND NOT is_temporary",
            OUTPUT_FORMAT,
        ).bytes()
        _, _, rows = parse_output(data)
        return {(str(db), str(t)) for db, t in rows}

    def _run(self, conn: Any, script: st.Script, tag: str, settings: str = "") -> Execution:
        """Run ``script``'s statements in order on ``conn``. Each statement is preceded by one
        SET of its remaining budget; the first one also carries the execution's ``log_comment``
        (what ``_kill`` finds it by) and ``settings``: a SET is a round trip into chdb that
        costs about what a one-row SELECT costs, so an execution pays for one, not three."""
        first = [f"log_comment = {string_literal(tag)}", *([settings] if settings else [])]

        def run(plan: st.Plan, remaining: float) -> tuple[values.ResultSet, bool] | None:
            budget = f"max_execution_time = {max(remaining, 0.001):.3f}"
            conn.query("SET " + ", ".join([*first, budget]))
            first.clear()
            return self._statement(conn, plan, script.max_rows)

        return st.run_in_order(
            script.plans,
            script.deadline,
            script.max_rows,
            run,
            lambda: self._kill(tag),
            ERRORS,
            _clean_message,
            grace=KILL_GRACE,
        )

    @staticmethod
    def _statement(conn: Any, plan: st.Plan, max_rows: int) -> tuple[values.ResultSet, bool] | None:
        """Run one statement; its (capped) result and whether it overflowed, or None."""
        if plan.words[:1] and plan.words[0] in _QUERY_FIRST:
            raw = conn._conn  # chdb's native connection: its streaming API keeps header chunks
            try:
                handle = raw.send_query(plan.text, OUTPUT_FORMAT, params={})
            except RuntimeError as exc:
                if _NOT_STREAMABLE not in str(exc):
                    raise
            else:
                names: list[str] = []
                types: list[str] = []
                rows: list[list[Any]] = []
                while True:
                    chunk = raw.streaming_fetch_result(handle)
                    if chunk is None:
                        break
                    if chunk.has_error():
                        raise RuntimeError(chunk.error_message())
                    data = chunk.bytes()
                    if not data:
                        break
                    names, types, part = parse_output(data)
                    rows.extend(part)
                    if len(rows) > max_rows:
                        raw.streaming_cancel_query(handle)
                        break
                return _result(names, types, rows, max_rows)
        data = conn.query(plan.text, OUTPUT_FORMAT).bytes()
        if not data:
            return None
        names, types, rows = parse_output(data)
        return _result(names, types, rows, max_rows)

    def _kill(self, tag: str) -> None:
        conn = _chdb().connect(":memory:")
        try:
            conn.query(f"KILL QUERY WHERE Settings['log_comment'] = {string_literal(tag)} ASYNC")
        finally:
            conn.close()

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._drop_reader()
        super().close()
        self._admin.close()


def _result(
    names: list[str], types: list[str], rows: list[list[Any]], max_rows: int
) -> tuple[values.ResultSet, bool]:
    canon = canonical_rows(types, rows[:max_rows])
    return values.ResultSet(tuple(names), canon, tuple(types)), len(rows) > max_rows


# what the ClickHouse server adapter (clickhouse.server) shares with this one
__all__ = [
    "GUARD",
    "OUR_DATABASE",
    "READ_FIRST",
    "CHType",
    "ClickHouseEngine",
    "canonical_rows",
    "clickhouse_type",
    "converter",
    "created_function",
    "dropped_function",
    "format_clause",
    "ident",
    "literal",
    "parse_literal",
    "parse_output",
    "parse_type",
    "string_literal",
    "table_ddl",
]
