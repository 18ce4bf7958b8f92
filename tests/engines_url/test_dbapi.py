"""The shared machinery of URL engines (parrot.engines.dbapi), without any server.

The execution loop and the verifying loader are exercised through a probe adapter over
``sqlite3`` — a real DB-API driver standing in for nothing: it checks what the shared code does
with a driver (deadline + watchdog cancel, fetchmany cap, error classification, build /
verify / rebuild of per-fixture containers), not what any server does.
"""

from __future__ import annotations

import contextlib
import dataclasses
import sqlite3
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar

import pytest
from engine_fixtures import ALLTYPES, SHOP, SPECIAL_FLOATS
from patience import within

from parrot.engines import ExecStatus, FixtureLoadError
from parrot.engines import statements as st
from parrot.engines.base import Capabilities, Execution
from parrot.engines.dbapi import (
    ContainerExists,
    DriverSpec,
    ServerEngine,
    ServerURL,
    create_table_sql,
    fetch_capped,
    insert_chunks,
    json_value,
    months_interval,
    redact_url,
    values_inserts,
)
from parrot.fixtures import Column, Table
from parrot.values import Nested

# --- URLs -----------------------------------------------------------------------------------------


def test_url_parts_and_parameters() -> None:
    url = ServerURL.parse(
        "Oracle+oracledb://sc%40tt:p%2Fw%3Ad@DB.example:1521/FREEPDB1/x"
        "?Service_Name=S&flag=yes&password=qp",
        ("oracle",),
        "oracle://...",
    )
    assert (url.scheme, url.driver, url.host, url.port) == (
        "oracle",
        "oracledb",
        "db.example",
        1521,
    )
    assert (url.user, url.password, url.path) == ("sc@tt", "p/w:d", ("FREEPDB1", "x"))
    assert url.param("service_name") == "S" and url.param("SERVICE_NAME") == "S"
    assert url.flag("flag", False) is True and url.flag("absent", True) is True
    assert url.address() == "db.example:1521"
    with pytest.raises(ValueError, match="yes/no"):
        ServerURL.parse("x://h/?f=maybe", ("x",), "").flag("f", True)


@pytest.mark.parametrize(
    "bad", ["mysql://u:secret@h/", "oracle://u:secret@:1521/", "oracle://u:secret@h:notaport/"]
)
def test_bad_urls_never_echo_the_password(bad: str) -> None:
    with pytest.raises(ValueError) as err:
        ServerURL.parse(bad, ("oracle",), "oracle://user:password@host:1521/")
    assert "secret" not in str(err.value)


def test_secrets_never_print() -> None:
    url = ServerURL.parse(
        "snowflake://bob:Sup3r%3Bsecret@acct/DB?token=tok123&warehouse=WH", ("snowflake",), ""
    )
    for text in (str(url), repr(url), url.redacted()):
        assert "Sup3r" not in text and "tok123" not in text
        assert "bob" in text and "warehouse=WH" in text
    assert url.secrets == ("Sup3r;secret", "tok123")
    message = "login failed for bob with Sup3r;secret (Sup3r%3Bsecret) token tok123"
    assert url.scrub(message) == "login failed for bob with *** (***) token ***"
    assert (
        redact_url("see trino://a:b@h:1/c?password=x&k=v")
        == "see trino://a:***@h:1/c?password=***&k=v"
    )


# --- guard ----------------------------------------------------------------------------------------

PROBE_GUARD = st.Guard(
    lexicon=st.ANSI,
    reads=frozenset({"SELECT", "WITH"}),
    refused_first=frozenset({"ATTACH"}),
    refused_objects=frozenset({"DATABASE"}),
    refused_sequences=(("BEGIN", "TRAN"),),
    refused_words=frozenset({"commit"}),
    refused_calls=frozenset({"load_extension"}),
    refused_call_prefixes=("readfile",),
    refused_qualifiers=frozenset({"utl_file"}),
    protected_settings=frozenset({"timeout"}),
    write_words=frozenset({"insert"}),
)


@pytest.mark.parametrize(
    ("sql", "refused"),
    [
        ("ATTACH 'x' AS y", "ATTACH statements"),
        ("CREATE OR REPLACE DATABASE d", "CREATE DATABASE"),
        ("DROP DATABASE IF EXISTS d", "DROP DATABASE"),
        ("SELECT begin_tran, tran FROM t", None),
        ("BEGIN TRAN", "BEGIN TRAN"),
        ("SELECT 1 FROM t; BEGIN  TRAN", "BEGIN TRAN"),  # sequences count anywhere
        ("select 1 from t where x = 1 commit", "COMMIT"),
        ("SELECT load_extension('x')", "load_extension()"),
        ("SELECT readfile_bytes('x')", "readfile_bytes()"),
        ("SELECT utl_file.fopen('x')", "utl_file"),
        ("SET timeout = 1", "reserved by the parrot sandbox"),
        ("SELECT * FROM parrot_fx_0123", "reserved by the parrot sandbox"),
        ("SELECT 'parrot_fx_0123'", "reserved by the parrot sandbox"),
        ('SELECT "PARROT_FX_X".a FROM t', "reserved by the parrot sandbox"),
    ],
)
def test_guard_tables(sql: str, refused: str | None) -> None:
    plan = PROBE_GUARD.check(sql)
    if refused is None:
        assert isinstance(plan, st.Plan)
    else:
        assert isinstance(plan, str) and refused in plan


@pytest.mark.parametrize(
    ("sql", "writes"),
    [
        ("SELECT 1", False),
        ("(SELECT 1)", False),
        ("WITH a AS (SELECT 1) SELECT * FROM a", False),
        ("SELECT 'insert' AS commit_word", False),  # strings and longer words are not keywords
        ('SELECT "commit" FROM t', False),  # a quoted identifier is not the keyword
        ("WITH a AS (SELECT 1) INSERT INTO t SELECT * FROM a", True),
        ("UPDATE t SET a = 1", True),
        ("", True),
    ],
)
def test_guard_classifies_writes(sql: str, writes: bool) -> None:
    plan = PROBE_GUARD.check(sql)
    assert isinstance(plan, st.Plan) and plan.writes is writes


BODY_GUARD = st.Guard(  # the options the MySQL guard uses
    lexicon=st.MYSQL,
    also=dataclasses.replace(st.MYSQL, backslash_escapes=False),
    reads=frozenset({"SELECT", "SHOW", "SET"}),
    write_words=frozenset({"create"}),
    write_exempt=frozenset({"SHOW"}),
    refused_first=frozenset({"KILL"}),
    object_statements=frozenset({"CREATE"}),
    refused_objects=frozenset({"USER"}),
    object_kinds=frozenset({"USER", "TABLE"}),
    body_starts=frozenset({"begin"}),
    refused_calls=frozenset({"load_file"}),
    uncalled=frozenset({st.TokenKind.QUOTED}),
    protected_settings=frozenset({"time_zone"}),
    reserved_starts=True,
)


@pytest.mark.parametrize(
    ("sql", "outcome"),
    [
        ("CREATE DEFINER = x USER u", "CREATE USER is not allowed"),  # a kind anywhere
        ("CREATE DEFINER = x TABLE t (a INT)", "writes"),
        ("SHOW CREATE TABLE t", "reads"),  # write words do not make SHOW write
        ("CREATE PROCEDURE p() BEGIN KILL 1; END", "KILL statements are not allowed"),
        ("CREATE PROCEDURE p() BEGIN SET time_zone = 'x'; END", "reserved by the parrot sandbox"),
        ("CREATE PROCEDURE p() BEGIN SELECT time_zone; END", "writes"),  # not a setting
        ("SELECT `load_file` FROM t", "`load_file`() is not allowed"),  # refused uncalled
        ("SELECT load_file FROM t", "reads"),
        ("SELECT 'a\\', load_file('/etc/passwd') -- '", "load_file() is not allowed"),  # 2 readings
        ("SELECT a AS __parrot_key FROM t", "reads"),  # a word starting otherwise
        ("SELECT * FROM parrot_fx_0123", "reserved by the parrot sandbox"),
    ],
)
def test_guard_options(sql: str, outcome: str) -> None:
    plan = BODY_GUARD.check(sql)
    if isinstance(plan, st.Plan):
        assert ("writes" if plan.writes else "reads") == outcome
    else:
        assert outcome in plan


def test_read_only_guard_names_what_writes() -> None:
    guard = st.Guard(
        lexicon=st.ANSI,
        reads=frozenset({"SELECT"}),
        read_only=True,
        read_only_reason="read-only here",
        write_words=frozenset({"update"}),
    )
    assert guard.check("DELETE FROM t") == "DELETE: read-only here"
    assert guard.check("SELECT * FROM t FOR UPDATE") == "SELECT ... UPDATE: read-only here"
    assert isinstance(guard.check("SELECT 1"), st.Plan)
    assert guard.plan(["SELECT 1", "DELETE FROM t", "DROP x"]) == "DELETE: read-only here"


# --- errors ---------------------------------------------------------------------------------------


class _DriverError(Exception):
    def __init__(self, code: int | None) -> None:
        super().__init__(f"error {code}")
        self.code = code


ERRORS = st.ErrorTable(
    code=lambda e: getattr(e, "code", None),
    syntax=frozenset({1}),
    timeout=frozenset({2}),
    cancelled=frozenset({3}),
    denied=frozenset({4}),
    lost=frozenset({5}),
)


@pytest.mark.parametrize(
    ("code", "cancelled", "status"),
    [
        (1, False, ExecStatus.SYNTAX_ERROR),
        (2, False, ExecStatus.TIMEOUT),
        (3, True, ExecStatus.TIMEOUT),
        (3, False, ExecStatus.RUNTIME_ERROR),
        (4, False, ExecStatus.UNSUPPORTED),
        (5, False, ExecStatus.ENGINE_ERROR),
        (99, False, ExecStatus.RUNTIME_ERROR),
        (99, True, ExecStatus.RUNTIME_ERROR),
        (None, False, ExecStatus.RUNTIME_ERROR),
        (None, True, ExecStatus.TIMEOUT),
    ],
)
def test_error_table(code: int | None, cancelled: bool, status: ExecStatus) -> None:
    got = ERRORS.classify(_DriverError(code), cancelled=cancelled, driver_errors=(_DriverError,))
    assert got is status


def test_errors_that_are_not_the_drivers_are_engine_errors() -> None:
    for exc in (OSError("broken pipe"), RuntimeError("bug"), ConnectionResetError()):
        assert (
            ERRORS.classify(exc, cancelled=False, driver_errors=(_DriverError,))
            is ExecStatus.ENGINE_ERROR
        )


# --- rows, DDL, loading helpers -------------------------------------------------------------------


def test_fetch_capped_stops_at_the_cap() -> None:
    conn = sqlite3.connect(":memory:")
    cur = conn.execute(
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT i FROM n"
    )  # endless: only the cap ends it
    with pytest.raises(st.Overflow):
        fetch_capped(cur, 2500, chunk=1000)
    cur = conn.execute("SELECT 1 UNION ALL SELECT 2")
    assert fetch_capped(cur, 2) == [(1,), (2,)]


def test_ddl_and_inserts() -> None:
    table = SHOP.table("orders")
    sql = create_table_sql(
        '"s"."orders"', table, lambda n: f'"{n.upper()}"', lambda c: c.type.upper()
    )
    assert sql == (
        'CREATE TABLE "s"."orders" ("ID" INTEGER NOT NULL, "CUSTOMER_ID" INTEGER, '
        '"AMOUNT" DECIMAL(10,2), "PLACED" TIMESTAMP)'
    )
    keyed = Table("k", (Column("a", "text", False), Column("b", "integer")), ((None, 1),), ("a",))
    assert create_table_sql("k", keyed, str, lambda c: "T", not_null=False).endswith(
        "(a T, b T, PRIMARY KEY (a))"
    )
    assert [len(c) for c in insert_chunks(table, max_rows=3)] == [3, 1]
    assert [len(c) for c in insert_chunks(table, max_rows=1000, max_params=9)] == [2, 2]
    inserts = values_inserts(table, "INSERT INTO t", lambda v, c: repr(v), max_chars=60)
    assert len(inserts) > 1 and all(s.startswith("INSERT INTO t VALUES (") for s in inserts)


def test_value_helpers() -> None:
    assert json_value('{"b": [1, 2.5], "a": null}') == Nested('{"a":null,"b":[1,2.5]}')
    assert json_value('"x"') == Nested('"x"') and json_value("not json") == "not json"
    assert months_interval(1, 2) == Nested('{"interval_seconds": 36288000.0}')


# --- a probe adapter over sqlite3 -----------------------------------------------------------------

PROBE_ERRORS = st.ErrorTable(
    code=lambda e: "syntax" if "syntax error" in str(e) else getattr(e, "sqlite_errorname", None),
    syntax=frozenset({"syntax"}),
    cancelled=frozenset({"SQLITE_INTERRUPT"}),
    denied=frozenset({"SQLITE_READONLY"}),
)


class Probe(ServerEngine):
    """Containers are SQLite files in a directory; executions open the container read-only."""

    name: ClassVar[str] = "probe"
    dialect: ClassVar[str] = "sqlite"
    url_schemes: ClassVar[tuple[str, ...] | None] = ("probe",)
    capabilities: ClassVar[Capabilities] = Capabilities(True, False, False, False, False, True)
    url_example: ClassVar[str] = "probe://localhost/"
    driver_spec = DriverSpec("sqlite3", "sqlite3", "none")
    guard: ClassVar[st.Guard] = PROBE_GUARD
    errors: ClassVar[st.ErrorTable] = PROBE_ERRORS

    def __init__(self, directory: Path) -> None:
        super().__init__("probe://localhost/")
        self.directory = directory
        self.builds = 0
        self.cancels = 0
        self.race: threading.Event | None = None

    def _ask_version(self) -> str:
        return sqlite3.sqlite_version

    def _file(self, container: str) -> Path:
        return self.directory / f"{container}.db"

    def _container_exists(self, container: str) -> bool:
        return self._file(container).exists()

    def _create_container(self, container: str) -> None:
        if self.race is not None and not self.race.is_set():  # another process was quicker
            self.race.set()
            Probe(self.directory).load(SHOP)
            raise ContainerExists(container)
        self.builds += 1
        sqlite3.connect(self._file(container)).close()

    def _drop_container(self, container: str) -> None:
        self._file(container).unlink(missing_ok=True)

    def _create_table(self, container: str, table: Table) -> None:
        with contextlib.closing(sqlite3.connect(self._file(container))) as conn:
            conn.execute(
                create_table_sql(self.ident(table.name), table, self.ident, lambda c: "ANY")
            )

    def _insert(self, container: str, table: Table) -> None:
        marks = ", ".join("?" for _ in table.columns)
        with contextlib.closing(sqlite3.connect(self._file(container))) as conn, conn:
            conn.executemany(
                f"INSERT INTO {self.ident(table.name)} VALUES ({marks})",
                [
                    tuple(str(v) if not isinstance(v, int | float | str | None) else v for v in r)
                    for r in table.rows
                ],
            )

    def _read_table(self, container: str, table: Table) -> list[Sequence[Any]]:
        with contextlib.closing(sqlite3.connect(self._file(container))) as conn:
            return conn.execute(f"SELECT * FROM {self.ident(table.name)}").fetchall()

    def _execute_plans(self, script: st.Script, container: str) -> Execution:
        uri = f"file:{self._file(container)}?mode=ro"
        with contextlib.closing(sqlite3.connect(uri, uri=True, check_same_thread=False)) as conn:
            return self._run(conn.cursor(), script)

    def _arm_timeout(self, cursor: Any, seconds: float) -> None:
        pass

    def _cancel(self, cursor: Any) -> None:
        self.cancels += 1
        cursor.connection.interrupt()


@pytest.fixture
def probe(tmp_path: Path) -> Probe:
    return Probe(tmp_path)


def test_probe_loads_verifies_and_caches(probe: Probe) -> None:
    report = probe.load(SHOP)
    assert report.verified and report.row_counts == {"customers": 4, "orders": 4, "items": 3}
    assert probe.load(SHOP).cached
    assert probe.container(SHOP) == f"parrot_fx_{SHOP.content_hash}"
    other = Probe(probe.directory)  # another instance (or process) verifies instead of loading
    assert not other.load(SHOP).cached and other.builds == 0
    assert other.checksums(SHOP) == SHOP.checksums


def test_probe_rebuilds_a_damaged_container(probe: Probe) -> None:
    probe.load(SHOP)
    with contextlib.closing(sqlite3.connect(probe._file(probe.container(SHOP)))) as conn, conn:
        conn.execute('DELETE FROM "orders"')
    fresh = Probe(probe.directory)
    assert fresh.load(SHOP).verified and fresh.builds == 1
    assert fresh.checksums(SHOP) == SHOP.checksums


def test_probe_waits_for_a_racing_loader(probe: Probe) -> None:
    probe.race = threading.Event()
    assert probe.load(SHOP).verified
    assert probe.race.is_set() and probe.builds == 0  # the other "process" built it


def test_probe_refuses_an_unfaithful_load(probe: Probe) -> None:
    with pytest.raises(FixtureLoadError, match="not stored faithfully"):
        probe.load(SPECIAL_FLOATS)  # SQLite stores NaN as NULL
    assert SPECIAL_FLOATS.content_hash not in probe._stored
    assert probe.load(ALLTYPES).verified


def test_probe_execution_statuses(probe: Probe) -> None:
    ok = probe.execute("SELECT 1; SELECT name FROM customers ORDER BY id", SHOP)
    assert ok.status is ExecStatus.OK and ok.result is not None
    assert ok.result.rows == (("Ada",), ("Grace",), ("Linus",), ("ada",))
    assert probe.execute("SELEC 1", SHOP).status is ExecStatus.SYNTAX_ERROR
    assert probe.execute("SELECT nope FROM customers", SHOP).status is ExecStatus.RUNTIME_ERROR
    assert (
        probe.execute("INSERT INTO customers VALUES (9, 'x', 'y')", SHOP).status
        is ExecStatus.UNSUPPORTED
    )  # the container is read-only: the driver says so
    assert probe.execute("ATTACH 'x' AS y", SHOP).status is ExecStatus.UNSUPPORTED
    assert probe.execute("-- nothing", SHOP).status is ExecStatus.SYNTAX_ERROR
    assert probe.checksums(SHOP) == SHOP.checksums


def test_probe_result_cap_cancels(probe: Probe) -> None:
    endless = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT i FROM n"
    ex = probe.execute(endless, SHOP, max_rows=500)
    assert ex.status is ExecStatus.TOO_LARGE and "500" in (ex.error or "")
    assert probe.cancels == 1


def test_probe_deadline_cancels_through_the_watchdog(probe: Probe) -> None:
    spin = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT count(*) FROM n"
    started = time.monotonic()
    ex = probe.execute(spin, SHOP, timeout=0.5)
    assert ex.status is ExecStatus.TIMEOUT, ex
    assert within(started, 0.5 + probe.cancel_grace + 1.0)  # the recursion never ends
    assert probe.cancels == 1
    assert probe.execute("SELECT count(*) FROM orders", SHOP).ok  # usable afterwards


def test_probe_a_spent_budget_stops_the_script(probe: Probe) -> None:
    probe.load(SHOP)
    ex = probe.execute("SELECT 1; SELECT 2", SHOP, timeout=0.0)
    assert ex.status is ExecStatus.TIMEOUT


def test_probe_missing_driver_is_an_unknown_engine(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from parrot.engines import UnknownEngineError

    missing = DriverSpec("parrot_no_such_driver", "sqlite3", "probe-extra")
    monkeypatch.setattr(Probe, "driver_spec", missing)
    with pytest.raises(UnknownEngineError, match=r"pip install 'parrot-sql\[probe-extra\]'"):
        Probe(tmp_path)
