"""PostgreSQL-specific behaviour of the adapter: values, isolation layers, caching, identifiers.

The cross-engine files cover what every engine must do; this file covers what only the
PostgreSQL adapter does (runner role, commit trap, shared materialisations, text-protocol value
conversion). Tests run on the suite's shared server (conftest), marked ``server``.
"""

from __future__ import annotations

import math
import time
import uuid
from decimal import Decimal
from typing import Any

import pytest
from engine_fixtures import ALLTYPES, SHOP, col, make_fixture
from patience import within

from parrot.engines import Engine, ExecStatus
from parrot.engines import postgres as pg
from parrot.engines import statements as st
from parrot.fixtures import Fixture
from parrot.values import Nested, Temporal

ONLY_PG = pytest.mark.parametrize("engine_name", ["postgres"], indirect=True)


def rows_of(engine: Engine, sql: str, fixture: Fixture = SHOP, **kw: Any) -> tuple:
    ex = engine.execute(sql, fixture, **kw)
    assert ex.status is ExecStatus.OK, (ex.status, ex.error)
    assert ex.result is not None
    return ex.result.rows


def assert_intact(engine: Engine) -> None:
    assert engine.checksums(SHOP) == SHOP.checksums
    assert rows_of(engine, "SELECT count(*) FROM customers") == ((4,),)


def _unique_fixture(tag: str) -> Fixture:
    """A fixture no other test shares (its own content hash, so its own schema)."""
    return make_fixture(
        f"pg_{tag}",
        [
            {
                "name": "MixedCase",
                "columns": [
                    col("Id", "integer", False),
                    col("SomeCol", "text"),
                    col("order", "bigint"),
                ],
                "primary_key": ["Id"],
                "rows": [[1, tag, 10], [2, uuid.uuid4().hex, None]],
            }
        ],
    )


# --- lexing (no server) ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("sql", "refused"),
    [
        ("SELECT 1", False),
        ("WITH x AS (SELECT 1) SELECT * FROM x", False),
        ("DO $$ BEGIN PERFORM 1; END $$", False),
        ("CALL p()", False),
        ("CREATE OR REPLACE FUNCTION f() RETURNS int LANGUAGE sql RETURN 1", False),
        ("SET search_path = public", False),
        ("SET LOCAL TimeZone = 'UTC'", False),
        ("SELECT 'pg_read_file' AS s", False),
        ("PREPARE q AS SELECT 1", False),
        ("(COMMIT)", True),
        ("commit", True),
        ("Start Transaction", True),
        ("ABORT", True),
        ("PREPARE TRANSACTION 'x'", True),
        ("ROLLBACK PREPARED 'x'", True),
        ("COPY t FROM STDIN", True),
        ("SET SESSION AUTHORIZATION x", True),
        ("SET role x", True),
        ("RESET SESSION AUTHORIZATION", True),
        ("ALTER SYSTEM RESET ALL", True),
        ("CREATE OR REPLACE PROCEDURAL LANGUAGE x", True),
        ("CREATE USER MAPPING FOR x", True),
        ("CREATE FOREIGN TABLE x (a int) SERVER s", True),
        ("DROP OWNED BY x", True),
        ("SELECT * FROM dblink_exec('x')", True),
        ("SELECT \"pg_read_file\"('x')", True),
        ("SELECT lo_export(1, '/tmp/x')", True),
        ("SELECT pg_reload_conf()", True),
    ],
)
def test_guard(sql: str, refused: bool) -> None:
    assert isinstance(pg.GUARD.check(sql), str) == refused


def test_interval_seconds() -> None:
    assert (
        pg.interval_seconds("1 year 2 mons 3 days 04:05:06.789")
        == (14 * 30 + 3) * 86400 + 4 * 3600 + 5 * 60 + 6.789
    )
    assert pg.interval_seconds("-1 days +02:00:00") == -86400 + 7200
    assert pg.interval_seconds("-00:00:01.5") == -1.5
    assert pg.interval_seconds("00:00:00") == 0
    assert pg.interval_seconds("P1Y2M3DT4H5M6.5S") == (14 * 30 + 3) * 86400 + 14706.5
    assert pg.interval_seconds("@ 1 hour") is None  # postgres_verbose: not understood


# --- values ---------------------------------------------------------------------------------------


@ONLY_PG
def test_postgres_values(engine: Engine, shop: Fixture) -> None:
    row = rows_of(
        engine,
        r"""
        SELECT 7 / 2, 7.0 / 2, 1 = 1, NULL::int, 9223372036854775807::int8, 'NaN'::float8,
               '-Infinity'::float8, 0.1::float4, 1.50::numeric(4,2), 'NaN'::numeric,
               'ab '::char(4), '\x00ff'::bytea, '00000000-0000-0000-0000-000000000001'::uuid,
               DATE '2024-01-05', '0044-03-15 BC'::date, '12345-06-07'::date,
               'infinity'::date, TIMESTAMP '2024-01-05 10:00:00.500',
               TIMESTAMPTZ '2024-01-05 10:00:00.25+05:30', TIME '24:00', '10:00:01.5+02'::timetz,
               INTERVAL '1 day', INTERVAL '1 year', ARRAY[1.50::numeric(4,2), NULL],
               ARRAY[DATE '2024-01-05'], ROW(1, 'x'), '{"b": [1, 2], "a": null}'::jsonb,
               '"s"'::json, '12.5'::money, '10.0.0.0/8'::inet, int4range(1, 5), point(1, 2)
    """,
    )[0]
    expected = [
        3,
        Decimal("3.5000000000000000"),
        True,
        None,
        9223372036854775807,
        None,
        -math.inf,
        0.1,
        Decimal("1.50"),
        None,
        "ab  ",
        b"\x00\xff",
        "00000000-0000-0000-0000-000000000001",
        Temporal("date", "2024-01-05"),
        Temporal("date", "-0043-03-15"),
        Temporal("date", "+12345-06-07"),
        Temporal("date", "infinity"),
        Temporal("timestamp", "2024-01-05 10:00:00.5"),
        Temporal("timestamp", "2024-01-05 04:30:00.25"),
        Temporal("time", "24:00:00"),
        Temporal("time", "08:00:01.5"),
        Nested('{"interval_seconds": 86400.0}'),
        Nested('{"interval_seconds": 31104000.0}'),
        Nested('["1.50",null]'),
        Nested('["2024-01-05"]'),
        Nested('["1","x"]'),
        Nested('{"a":null,"b":[1,2]}'),
        Nested('"s"'),
        Decimal("12.50"),
        "10.0.0.0/8",
        "[1,5)",
        "(1,2)",
    ]
    for i, (got, want) in enumerate(zip(row, expected, strict=True)):
        if want is None and i in (5, 9):  # NaN
            assert isinstance(got, float | Decimal) and got != got, (i, got)
            continue
        assert got == want and type(got) is type(want), (i, got, want)
    assert str(row[8]) == "1.50"


@ONLY_PG
def test_postgres_type_names(engine: Engine, shop: Fixture) -> None:
    ex = engine.execute(
        "SELECT amount, ARRAY[1], 'x'::varchar(3), placed, now() FROM orders LIMIT 1", shop
    )
    assert ex.ok and ex.result is not None
    assert ex.result.types == (
        "numeric(10,2)",
        "integer[]",
        "character varying(3)",
        "timestamp without time zone",
        "timestamp with time zone",
    )


@ONLY_PG
def test_time_zone_is_utc_and_changes_stay_inside(engine: Engine, shop: Fixture) -> None:
    rows = rows_of(
        engine,
        "SET TimeZone = 'Asia/Tokyo'; SELECT TIMESTAMPTZ "
        "'2024-01-05 10:00:00+00', current_setting('TimeZone')",
    )
    assert rows == ((Temporal("timestamp", "2024-01-05 10:00:00"), "Asia/Tokyo"),)
    assert rows_of(engine, "SHOW TimeZone") == (("UTC",),)


@ONLY_PG
def test_null_ordering_is_postgres(engine: Engine, shop: Fixture) -> None:
    assert rows_of(engine, "SELECT city FROM customers ORDER BY city")[-1] == (None,)
    assert rows_of(engine, "SELECT city FROM customers ORDER BY city DESC")[0] == (None,)


# --- identifiers, keys ----------------------------------------------------------------------------


@ONLY_PG
def test_unquoted_identifiers_fold_to_lower_case(engine: Engine) -> None:
    fixture = _unique_fixture("idents")
    assert engine.load(fixture).verified
    assert rows_of(engine, "SELECT SomeCol FROM MixedCase WHERE Id = 1", fixture) == (("idents",),)
    assert rows_of(engine, 'SELECT somecol, "order" FROM mixedcase WHERE id = 1', fixture) == (
        ("idents", 10),
    )
    ex = engine.execute('SELECT "SomeCol" FROM "MixedCase"', fixture)
    assert ex.status is ExecStatus.RUNTIME_ERROR  # as on a database built with unquoted DDL


@ONLY_PG
def test_primary_key_is_declared(engine: Engine) -> None:
    # functional dependency on the primary key: valid in PostgreSQL only with the key declared
    rows = rows_of(engine, "SELECT id, s FROM t GROUP BY id ORDER BY id LIMIT 1", ALLTYPES)
    assert rows == ((1, "plain"),)


# --- isolation layers -----------------------------------------------------------------------------


@ONLY_PG
def test_runner_role_does_not_own_the_fixture(engine: Engine, shop: Fixture) -> None:
    rows = rows_of(
        engine,
        """
        SELECT current_user, r.rolsuper, r.rolcreaterole, r.rolcreatedb, t.tableowner,
               has_table_privilege('customers', 'TRUNCATE'), has_table_privilege('customers',
               'TRIGGER'), pg_has_role('pg_read_server_files', 'USAGE')
        FROM pg_roles r, pg_tables t
        WHERE r.rolname = current_user AND t.tablename = 'customers'
          AND t.schemaname = (current_schemas(false))[2]""",
    )
    user, superuser, createrole, createdb, owner, truncate, trigger, files = rows[0]
    assert user == pg.RUNNER and owner != pg.RUNNER
    assert not any((superuser, createrole, createdb, truncate, trigger, files))


@ONLY_PG
def test_bypassed_guard_still_cannot_commit(
    engine: Engine, shop: Fixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(
        pg,
        "GUARD",
        st.Guard(
            st.POSTGRES,
            reads=frozenset(),  # both guards,
            reserved_prefix=None,
        ),
    )  # tokens and tree
    monkeypatch.setattr(pg, "_tree_refusal", lambda text: None)
    ex = engine.execute("DELETE FROM customers; COMMIT", shop)
    assert ex.status is ExecStatus.RUNTIME_ERROR and "never committed" in (ex.error or "")
    ex = engine.execute("ROLLBACK; DELETE FROM customers", shop)
    assert ex.status is ExecStatus.UNSUPPORTED  # the DELETE never ran outside the transaction
    ex = engine.execute("DELETE FROM customers; PREPARE TRANSACTION 'p'", shop)
    assert ex.status is ExecStatus.RUNTIME_ERROR
    assert engine.execute("SET ROLE postgres", shop).status is ExecStatus.RUNTIME_ERROR
    monkeypatch.undo()
    assert_intact(engine)


@ONLY_PG
def test_one_statement_per_protocol_message(
    engine: Engine, shop: Fixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A text the splitter failed to split reaches the server whole and is refused there."""
    monkeypatch.setattr(pg.st.Splitter, "split", lambda self, sql: [sql])
    monkeypatch.setattr(pg, "_tree_refusal", lambda text: None)  # it would see the COMMIT
    ex = engine.execute("DELETE FROM customers; COMMIT", shop)
    assert ex.status is ExecStatus.SYNTAX_ERROR
    assert "multiple commands" in (ex.error or "")
    monkeypatch.undo()
    assert_intact(engine)


@ONLY_PG
def test_session_state_is_cleared(engine: Engine, shop: Fixture) -> None:
    assert rows_of(engine, "PREPARE q AS SELECT 41 + 1; EXECUTE q") == ((42,),)
    assert engine.execute("EXECUTE q", shop).status is ExecStatus.RUNTIME_ERROR
    assert rows_of(engine, "SHOW TimeZone") == (("UTC",),)  # DISCARD ALL keeps the session
    assert rows_of(engine, "SELECT current_user") == ((pg.RUNNER,),)
    assert rows_of(engine, "SELECT pg_advisory_lock(4242)") == (("",),)
    assert rows_of(
        engine, "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objid = 4242"
    ) == ((0,),)


@ONLY_PG
def test_a_parameter_placeholder_is_a_query_error(engine: Engine, shop: Fixture) -> None:
    """``$1`` in a source: the server's 08P01 (connection class) "bind message supplies 0
    parameters" is the query's own error, not an engine failure to retry."""
    ex = engine.execute("SELECT $1::int + 1 FROM orders", shop)
    assert ex.status is ExecStatus.RUNTIME_ERROR
    assert "bind message supplies 0 parameters" in (ex.error or "")
    assert rows_of(engine, "SELECT 1") == ((1,),)  # the connection is usable afterwards
    assert pg.ERRORS(st.Failed("protocol violation", "08P01"), False) is ExecStatus.RUNTIME_ERROR


@ONLY_PG
def test_disabled_statement_timeout_still_times_out(engine: Engine, shop: Fixture) -> None:
    started = time.monotonic()
    ex = engine.execute("SET statement_timeout = 0; SELECT pg_sleep(600)", shop, timeout=0.5)
    assert ex.status is ExecStatus.TIMEOUT
    assert within(started, 0.5 + 1)
    assert rows_of(engine, "SELECT 1") == ((1,),)  # the connection is usable afterwards


@ONLY_PG
def test_lost_connection_is_an_engine_error_then_reconnects(fresh_engine: Engine) -> None:
    assert rows_of(fresh_engine, "SELECT 1") == ((1,),)
    runner_pid = fresh_engine._runner.info.backend_pid  # type: ignore[attr-defined]
    fresh_engine._admin_conn().execute(  # type: ignore[attr-defined]
        "SELECT pg_terminate_backend(%s)", [runner_pid]
    )
    time.sleep(0.2)
    ex = fresh_engine.execute("SELECT 1", SHOP)
    assert ex.status is ExecStatus.ENGINE_ERROR and ex.error
    assert rows_of(fresh_engine, "SELECT 2") == ((2,),)


@ONLY_PG
def test_scratch_schema_is_dropped_on_close(fresh_engine: Engine, engine: Engine) -> None:
    rows_of(fresh_engine, "SELECT 1")
    scratch = fresh_engine._scratch  # type: ignore[attr-defined]
    assert scratch and scratch.startswith(pg.SCRATCH_PREFIX)
    fresh_engine.close()
    probe = "SELECT count(*) FROM pg_namespace WHERE nspname = '{}'"
    assert rows_of(engine, probe.format(scratch)) == ((0,),)


# --- materialisations shared across instances and processes ------------------------------------


@ONLY_PG
def test_materialisation_is_reused_by_other_instances(engine: Engine, fresh_engine: Engine) -> None:
    fixture = _unique_fixture("reuse")
    engine.load(fixture)
    schema = engine.schema(fixture)  # type: ignore[attr-defined]
    probe = f"SELECT oid FROM pg_namespace WHERE nspname = '{schema}'"
    oid = rows_of(engine, probe)[0][0]
    report = fresh_engine.load(fixture)  # another instance: verified, not rebuilt
    assert report.verified and not report.cached
    assert rows_of(fresh_engine, probe) == ((oid,),)


@ONLY_PG
def test_corrupted_materialisation_is_rebuilt(engine: Engine, fresh_engine: Engine) -> None:
    fixture = _unique_fixture("corrupt")
    engine.load(fixture)
    schema = engine.schema(fixture)  # type: ignore[attr-defined]
    engine._admin_conn().execute(  # type: ignore[attr-defined]
        f"UPDATE \"{schema}\".mixedcase SET somecol = 'changed' WHERE id = 1"
    )  # committed
    assert engine.checksums(fixture) != fixture.checksums
    report = fresh_engine.load(fixture)  # verification fails → dropped and rebuilt
    assert report.verified
    assert engine.checksums(fixture) == fixture.checksums


@ONLY_PG
def test_failed_load_leaves_nothing(fresh_engine: Engine) -> None:
    fixture = make_fixture(
        "pg_bad", [{"name": "x", "columns": [col("v", "integer")], "rows": [[2**40]]}]
    )
    with pytest.raises(pg.FixtureLoadError):
        fresh_engine.load(fixture)
    schema = pg.FIXTURE_PREFIX + fixture.content_hash
    assert rows_of(
        fresh_engine, f"SELECT count(*) FROM pg_namespace WHERE nspname = '{schema}'"
    ) == ((0,),)
