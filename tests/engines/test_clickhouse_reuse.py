"""The ClickHouse adapter's shared read-only connection, one-query fixture fill and remembered
guard verdicts (issue 31): cheaper, with the same isolation between executions."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("chdb")

from parrot.engines import ExecStatus
from parrot.engines import clickhouse as ch
from tests.engines.engine_fixtures import col, make_fixture

FIXTURE = make_fixture(
    "reuse",
    [
        {
            "name": "t",
            "columns": [col("id", "integer"), col("s", "text")],
            "rows": [[1, "a; DROP DATABASE x; --"], [2, "it's ; \\ \n"], [3, None]],
        },
        {"name": "u", "columns": [col("k", "integer")], "rows": [[1], [2]]},
    ],
)


@pytest.fixture()
def engine() -> Iterator[ch.ClickHouseEngine]:
    adapter = ch.ClickHouseEngine()
    try:
        yield adapter
    finally:
        adapter.close()


def test_fill_in_one_query_keeps_every_value(engine: ch.ClickHouseEngine) -> None:
    report = engine.load(FIXTURE)  # verified by checksum: a value cut at a ';' would fail
    assert report.row_counts == {"t": 3, "u": 2} and not report.mismatches
    run = engine.execute("SELECT s FROM t ORDER BY id", FIXTURE)
    assert run.ok and run.result is not None
    assert [r[0] for r in run.result.rows] == ["a; DROP DATABASE x; --", "it's ; \\ \n", None]


def test_fill_splits_big_fixtures(
    engine: ch.ClickHouseEngine, monkeypatch: pytest.MonkeyPatch
) -> None:
    sent: list[str] = []
    query = engine._admin.query
    monkeypatch.setattr(ch, "FILL_QUERY_BYTES", 80)

    def spy(text: str, *args: Any) -> Any:
        sent.append(text)
        return query(text, *args)

    monkeypatch.setattr(engine._admin, "query", spy)
    engine.load(FIXTURE)
    fills = [q for q in sent if "CREATE TABLE" in q or "INSERT INTO" in q]
    assert len(fills) > 1  # several queries, each within the budget unless one statement
    assert engine.execute("SELECT count() FROM t", FIXTURE).result.rows == ((3,),)  # type: ignore[union-attr]


def test_a_set_does_not_outlive_its_execution(engine: ch.ClickHouseEngine) -> None:
    first = engine.execute("SET join_use_nulls = 1; SELECT getSetting('join_use_nulls')", FIXTURE)
    assert first.ok and first.result is not None and first.result.rows[0][0] in (1, True)
    after = engine.execute("SELECT getSetting('join_use_nulls')", FIXTURE)
    assert after.ok and after.result is not None and after.result.rows[0][0] in (0, False)


def test_the_shared_connection_stays_read_only(engine: ch.ClickHouseEngine) -> None:
    assert engine.execute("SELECT 1", FIXTURE).ok
    assert engine._reader is not None
    bad = engine.execute("SELECT no_such_column FROM t", FIXTURE)
    assert bad.status is ExecStatus.RUNTIME_ERROR
    assert engine.execute("SELECT count() FROM u", FIXTURE).ok  # the same connection, still fine
    refused = engine.execute("SET readonly = 0", FIXTURE)
    assert refused.status is ExecStatus.UNSUPPORTED
    assert engine.execute("SELECT getSetting('readonly')", FIXTURE).result.rows[0][0] == 2  # type: ignore[union-attr]


def test_a_timeout_replaces_the_shared_connection(engine: ch.ClickHouseEngine) -> None:
    assert engine.execute("SELECT 1", FIXTURE).ok
    reader = engine._reader
    slow = engine.execute("SELECT count() FROM numbers(100000000000)", FIXTURE, timeout=0.3)
    assert slow.status is ExecStatus.TIMEOUT
    assert engine._reader is None or engine._reader is not reader
    assert engine.execute("SELECT count() FROM t", FIXTURE).ok


def test_a_text_is_explained_once(
    engine: ch.ClickHouseEngine, monkeypatch: pytest.MonkeyPatch
) -> None:
    explained: list[str] = []
    real = ch._ast_refusal

    def counting(conn: Any, text: str) -> str | None:
        explained.append(text)
        return real(conn, text)

    monkeypatch.setattr(ch, "_ast_refusal", counting)
    other = make_fixture("other", [{"name": "t", "columns": [col("id", "integer")], "rows": [[7]]}])
    assert engine.execute("SELECT max(id) FROM t", FIXTURE).result.rows == ((3,),)  # type: ignore[union-attr]
    assert engine.execute("SELECT max(id) FROM t", other).result.rows == ((7,),)  # type: ignore[union-attr]
    assert explained == ["SELECT max(id) FROM t"]
    refused = "SELECT * FROM file('/etc/passwd')"
    for _ in range(2):  # refusals are not remembered as passes
        assert engine.execute(refused, FIXTURE).status is ExecStatus.UNSUPPORTED


def _sets_sent(engine: ch.ClickHouseEngine, monkeypatch: pytest.MonkeyPatch, sql: str) -> list[str]:
    """The SET statements ``sql``'s execution sends on the shared read-only connection."""
    assert engine.execute("SELECT 1", FIXTURE).ok  # the shared connection exists, USE-ing FIXTURE
    sent: list[str] = []
    query = engine._reader.query

    def spy(text: str, *args: Any) -> Any:
        sent.append(text)
        return query(text, *args)

    monkeypatch.setattr(engine._reader, "query", spy)
    assert engine.execute(sql, FIXTURE).ok
    return [q for q in sent if q.startswith("SET ")]


def test_an_execution_pays_one_set_per_statement(
    engine: ch.ClickHouseEngine, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a SET is a round trip into chdb that costs about what a one-row SELECT costs: the tag
    # the kill finds an execution by rides on the first statement's budget (was two SETs)
    sets = _sets_sent(engine, monkeypatch, "SELECT count() FROM t")
    assert len(sets) == 1
    assert "log_comment = 'parrot-" in sets[0] and "max_execution_time = " in sets[0]


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT getSetting('log_comment'), getSetting('max_memory_usage')",  # shared, read-only
        "SET join_use_nulls = 1; SELECT getSetting('log_comment'), getSetting('max_memory_usage')",
    ],
)
def test_the_tag_and_the_memory_limit_hold_on_every_path(
    engine: ch.ClickHouseEngine, sql: str
) -> None:
    run = engine.execute(sql, FIXTURE)
    assert run.ok and run.result is not None
    tag, memory = run.result.rows[-1]
    assert str(tag).startswith("parrot-") and int(memory) == ch.MEMORY_LIMIT


def test_a_fixture_is_created_and_filled_in_one_query(
    engine: ch.ClickHouseEngine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A small fixture (a suite database): its database, tables and rows are one query into
    chdb, then one read-back per table for verification (was a DROP and a CREATE DATABASE
    before the fill, issue 31); a database a failed load left behind is dropped first."""
    engine._admin.query(f"CREATE DATABASE {ch.ident(engine._prefix + 'f' + FIXTURE.content_hash)}")
    sent: list[str] = []
    query = engine._admin.query

    def spy(text: str, *args: Any) -> Any:
        sent.append(text)
        return query(text, *args)

    monkeypatch.setattr(engine._admin, "query", spy)
    engine.load(FIXTURE)
    writes = [q for q in sent if not q.startswith("SELECT")]
    assert len(writes) == 1 and len(sent) == 1 + len(FIXTURE.tables)
    assert writes[0].startswith("DROP DATABASE IF EXISTS") and "CREATE DATABASE" in writes[0]
    setting = query("SELECT getSetting('async_insert')", "CSV").bytes().decode().strip()
    assert setting in ("0", "false")  # loads insert synchronously, not through the queue
    assert engine.execute("SELECT count() FROM t", FIXTURE).result.rows == ((3,),)  # type: ignore[union-attr]


def test_a_fixture_database_keeps_its_table_list_in_memory(engine: ch.ClickHouseEngine) -> None:
    """Its tables are MergeTree, as real ones; the database keeps no metadata files (half the
    cost of a suite database's load, issue 31). A writing execution runs on an Atomic scratch
    copy, where DELETE and CREATE OR REPLACE work, and the fixture stays as loaded."""
    engine.load(FIXTURE)
    database = engine._prefix + "f" + FIXTURE.content_hash
    kinds = engine._admin.query(
        f"SELECT engine FROM system.databases WHERE name = '{database}' UNION ALL "
        f"SELECT engine FROM system.tables WHERE database = '{database}'",
        "CSV",
    )
    assert sorted(kinds.bytes().decode().split()) == ['"Memory"', '"MergeTree"', '"MergeTree"']
    writes = engine.execute(
        "DELETE FROM t WHERE id = 1; CREATE OR REPLACE TABLE u (k Int32) ENGINE = MergeTree "
        "ORDER BY tuple(); SELECT (SELECT count() FROM t), (SELECT count() FROM u)",
        FIXTURE,
    )
    assert writes.ok and writes.result is not None and writes.result.rows == ((2, 0),)
    after = engine.execute("SELECT (SELECT count() FROM t), (SELECT count() FROM u)", FIXTURE)
    assert after.result is not None and after.result.rows == ((3, 2),)
    assert engine.checksums(FIXTURE) == FIXTURE.checksums
