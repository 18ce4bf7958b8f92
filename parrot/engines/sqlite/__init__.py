"""SQLite adapter (stdlib ``sqlite3``).

Isolation: every fixture is materialised once in a private in-memory database (the *master*).
Each :meth:`SQLiteEngine.execute` copies the master with ``Connection.backup`` into a fresh
in-memory database and runs the SQL there, so whatever the SQL does (DROP, DELETE, PRAGMA,
BEGIN/COMMIT, views, temp tables, triggers) dies with the copy. An authorizer refuses ATTACH and
DETACH (they would open files) and ``load_extension``; ``VACUUM INTO`` (writes a file) is refused
before running. A progress handler stops statements at the deadline; a string or blob longer
than ``MAX_VALUE_BYTES`` (100 MB) fails at once ("string or blob too big": one function call
such as ``hex(randomblob(499999999))`` never reaches the progress handler).

Type map (declared types give SQLite's usual affinities): integer → INTEGER, bigint → BIGINT,
double → REAL, decimal(p,s) → DECIMAL(p,s) (NUMERIC affinity: stored as integer or float, lossy
beyond 15 significant digits — a load of such a value fails verification), text → TEXT,
boolean → BOOLEAN (0/1), date → DATE (ISO text ``YYYY-MM-DD``), timestamp → TIMESTAMP (ISO text
as :func:`parrot.values.temporal` writes it, e.g. ``2024-01-05 10:00:00.5``). SQLite has no NaN:
a NaN double becomes NULL, which load verification reports.

Results are returned as SQLite stores them: 0/1 stay ints, dates stay strings.

A fixture's primary key becomes a UNIQUE index on the key columns (``<table>__pkey``): lookups
and joins by key use it, and a duplicate key fails as on PostgreSQL and MariaDB, while the key
is never the rowid (an INTEGER PRIMARY KEY would make every scan return key order instead of
insertion order, which the test-suite order probes rely on).
"""

from __future__ import annotations

import datetime as dt
import sqlite3
from decimal import Decimal
from typing import Any, ClassVar

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
    quote_ident,
    select_all,
)
from parrot.fixtures import Fixture

MAX_VALUE_BYTES = 100_000_000  # SQLITE_LIMIT_LENGTH of an execution's connection
PROGRESS_STEPS = 2_000  # SQLite VM instructions between deadline checks

_SYNTAX_MARKERS = ("syntax error", "incomplete input", "unrecognized token")
_DENIED_FUNCTIONS = frozenset({"load_extension"})


sqlite_type = TypeMap.standard(double="REAL", text="TEXT")


def _bind(value: Any) -> Any:
    """The Python value sqlite3 binds for a typed fixture value."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, Decimal):
        if value == value.to_integral_value() and abs(value) < 2**63:
            return int(value)
        return float(value)
    if isinstance(value, dt.date | dt.datetime):
        return values.temporal(value).iso
    return value


def _storage_class(column: list[Any]) -> str:
    for v in column:
        if v is not None:
            return {int: "INTEGER", float: "REAL", str: "TEXT", bytes: "BLOB"}.get(
                type(v), type(v).__name__.upper()
            )
    return "NULL"


class SQLiteEngine(EngineBase[sqlite3.Connection]):
    name: ClassVar[str] = "sqlite"
    dialect: ClassVar[str] = "sqlite"
    capabilities: ClassVar[Capabilities] = Capabilities(
        booleans=False,  # comparisons return 0/1 integers
        transactional_ddl=True,
        udfs=False,  # no CREATE FUNCTION in SQL
        procedures=False,
        decimals=False,  # DECIMAL has NUMERIC affinity: integers or doubles
        timestamps_us=False,  # timestamps are text; date functions keep milliseconds at most
    )

    # --- identity -----------------------------------------------------------------------------

    def version(self) -> str:
        return sqlite3.sqlite_version

    # --- fixtures -----------------------------------------------------------------------------

    def _create(self, fixture: Fixture) -> sqlite3.Connection:
        return sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)

    def _fill(self, con: sqlite3.Connection, fixture: Fixture) -> None:
        con.execute("BEGIN")
        for table in fixture.tables:
            con.execute(
                create_table_sql(
                    quote_ident(table.name), table, quote_ident, sqlite_type, primary_key=False
                )
            )
            marks = ", ".join("?" * len(table.columns))
            con.executemany(
                f"INSERT INTO {quote_ident(table.name)} VALUES ({marks})",
                ([_bind(v) for v in row] for row in table.rows),
            )
            if table.primary_key:  # the key's index, without making it the rowid (see above)
                con.execute(
                    f"CREATE UNIQUE INDEX {quote_ident(table.name + '__pkey')} ON "
                    f"{quote_ident(table.name)} "
                    f"({', '.join(quote_ident(k) for k in table.primary_key)})"
                )
        con.execute("COMMIT")

    def _discard(self, con: sqlite3.Connection) -> None:
        con.close()

    @staticmethod
    def _read_back(con: sqlite3.Connection, fixture: Fixture) -> dict[str, list[tuple[Any, ...]]]:
        return st.read_tables(
            fixture, lambda t: con.execute(select_all(t, quote_ident)).fetchall(), sqlite3.Error
        )

    # --- execution ----------------------------------------------------------------------------

    def _execute(self, request: Request) -> Execution:
        master = self.stored(request.fixture)
        # the C API reads statements up to a NUL; Python's module refuses them
        if "\x00" in request.sql:
            return Execution(
                ExecStatus.SYNTAX_ERROR,
                error="the SQL contains a NUL character, which SQLite cannot take",
            )
        statements = st.splitter("sqlite").split(request.sql)
        if not statements:
            return Execution(ExecStatus.SYNTAX_ERROR, error=st.NO_STATEMENT)
        for text in statements:  # VACUUM INTO 'file' (the authorizer's ATTACH check agrees)
            words = st.leading_words(text, 3, st.SQLITE)
            if words[:1] == ("VACUUM",) and "INTO" in words:
                return Execution(ExecStatus.UNSUPPORTED, error="VACUUM INTO writes a file")

        work = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
        work.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, MAX_VALUE_BYTES)  # bombs fail at once
        try:
            master.backup(work)
            return self._run(work, statements, st.Deadline(request.timeout), request.max_rows)
        finally:
            work.close()

    def _run(
        self, con: sqlite3.Connection, statements: list[str], deadline: st.Deadline, max_rows: int
    ) -> Execution:
        denied: list[str] = []

        def authorizer(action: int, arg1: str | None, arg2: str | None, *_: object) -> int:
            if action in (sqlite3.SQLITE_ATTACH, sqlite3.SQLITE_DETACH):
                denied.append("ATTACH/DETACH")
                return sqlite3.SQLITE_DENY
            if action == sqlite3.SQLITE_FUNCTION and (arg2 or "").lower() in _DENIED_FUNCTIONS:
                denied.append(f"function {arg2}")
                return sqlite3.SQLITE_DENY
            return sqlite3.SQLITE_OK

        con.set_authorizer(authorizer)
        con.set_progress_handler(lambda: deadline.expired, PROGRESS_STEPS)

        def classify(exc: BaseException, fired: bool) -> ExecStatus:
            if denied and "not authorized" in str(exc).lower():
                return ExecStatus.UNSUPPORTED  # the authorizer refused it
            return ERRORS(exc, fired or deadline.expired)

        return st.run_in_order(
            statements,
            deadline,
            max_rows,
            lambda text, _: _run_statement(con, text, max_rows),
            con.interrupt,
            classify,
            st.trim_message,
        )


def _run_statement(
    con: sqlite3.Connection, text: str, max_rows: int
) -> tuple[values.ResultSet, bool] | None:
    """Run one statement; its (capped) result and whether it overflowed, or None if rowless."""
    cur = con.execute(text)
    if cur.description is None:
        return None
    rows = cur.fetchmany(max_rows + 1)
    return _result_set(cur.description, rows[:max_rows]), len(rows) > max_rows


def _result_set(description: Any, rows: list[tuple[Any, ...]]) -> values.ResultSet:
    columns = tuple(d[0] for d in description)
    canon = tuple(tuple(values.canonical(v) for v in row) for row in rows)
    types = tuple(_storage_class([r[i] for r in rows]) for i in range(len(columns)))
    return values.ResultSet(columns, canon, types)


def _error_code(exc: BaseException) -> str | None:
    """SQLite reports failures by message: the marker of one, or None."""
    message = str(exc).lower()
    if isinstance(exc, sqlite3.OperationalError):
        if "interrupted" in message:
            return "interrupted"
        if any(m in message for m in _SYNTAX_MARKERS):
            return "syntax"
    return "internal" if isinstance(exc, sqlite3.InternalError | MemoryError) else None


ERRORS = st.ErrorTable(
    _error_code,
    cancelled=frozenset({"interrupted"}),
    syntax=frozenset({"syntax"}),
    lost=frozenset({"internal"}),
    uncoded_cancel=False,
    driver_errors=(sqlite3.Error, sqlite3.Warning, ValueError, OverflowError, MemoryError),
)


__all__ = ["SQLiteEngine", "sqlite_type"]
