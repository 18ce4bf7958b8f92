"""DML verified on a copy (:mod:`parrot.assess.dml`): run on each database, the changed tables
read back and compared; the user's database never changes."""

from __future__ import annotations

import hashlib
from contextlib import closing
from pathlib import Path

import pytest
from assessing import assess, assess_pg_stats, database, results

from parrot.assess.dml import changed_tables, judge_dml, probe
from parrot.assess.run import kind
from parrot.datasets import Item
from parrot.eval.judge import Judge
from parrot.fixtures import Column, Fixture, Table
from parrot.servers import stopping_started

WORKLOAD = """UPDATE t SET name = 'z' WHERE k > 1;
DELETE FROM t WHERE name LIKE 'A%';
INSERT INTO t (k, name) SELECT k + 10, name || '!' FROM t WHERE k < 3;
CREATE TABLE u (a INT);
"""
ROWS = [(1, "a"), (2, "Ab"), (3, "b")]
FIXTURE = Fixture(
    "app",
    (Table("t", (Column("k", "integer", False), Column("name", "text")), tuple(ROWS), ("k",)),),
)


def _work(tmp_path: Path) -> Path:
    (tmp_path / "w.sql").write_text(WORKLOAD)
    return database(tmp_path, "k INTEGER PRIMARY KEY, name TEXT", ROWS)


def test_dml_kinds_targets_and_probes():
    assert [
        kind(s)
        for s in (
            "UPDATE t SET a = 1",
            "delete from t",
            "MERGE INTO t USING s ON t.k = s.k WHEN MATCHED THEN DELETE",
            "CREATE TABLE u (a INT)",
            "UPDATE t SET a = $1",
        )
    ] == ["dml", "dml", "dml", "other", "parameterised"]
    assert changed_tables("insert into T (k) values (1)", "sqlite", FIXTURE) == ["t"]
    assert "not in the database" in str(changed_tables("DELETE FROM x", "sqlite", FIXTURE))
    assert (
        probe("DELETE FROM t WHERE k > 1", "sqlite", FIXTURE) == "SELECT k, name FROM t WHERE k > 1"
    )
    assert (
        probe("INSERT INTO t SELECT k, name FROM t WHERE k < 3", "sqlite", FIXTURE)
        == "SELECT k, name FROM t WHERE k < 3"
    )


def test_dml_on_your_database_runs_on_a_copy(tmp_path):
    work = _work(tmp_path)
    before = hashlib.sha256((work / "app.sqlite").read_bytes()).hexdigest()
    code = assess(work, "w.sql", "sqlite", "--db", str(work / "app.sqlite"))
    assert code == 1
    lines = results(work / "out")
    assert [(x["kind"], x["verdict"], x["reason"]) for x in lines] == [
        ("dml", "verified", "match"),
        ("dml", "review", "row_count"),  # SQLite's LIKE ignores case, DuckDB's does not
        ("dml", "verified", "match"),
        ("other", "not_assessed", "not_a_query"),  # DDL: the grammar check only
    ]
    assert lines[1]["detail"].startswith("on your database, table t after the statement")
    assert hashlib.sha256((work / "app.sqlite").read_bytes()).hexdigest() == before


def test_dml_from_the_schema_alone(tmp_path):
    work = _work(tmp_path)
    assess(work, "w.sql", "sqlite", "--schema", str(work / "schema.sql"), "--no-distill")
    first = results(work / "out")[0]
    assert (first["verdict"], first["judged"] >= 2) == ("verified", True)  # generated data


@pytest.mark.parametrize(
    "target",
    [
        "duckdb",
        pytest.param("postgres", marks=pytest.mark.server),
        pytest.param("mysql", marks=pytest.mark.server),
    ],
)
def test_the_real_fixture_is_unchanged_after_dml(target):
    item = Item(
        id="1",
        source_dialect="sqlite",
        target_dialect=target,
        source_sql="DELETE FROM t WHERE k > 1",
        fixture=FIXTURE,
    )
    with stopping_started(), closing(Judge(start=True)) as judge:
        if judge.engine(target) is None:  # MariaDB not installed, PostgreSQL not startable
            pytest.skip(f"no {target} engine here: its server could not be started")
        out = judge_dml(judge, item, "DELETE FROM t WHERE k > 1", [("yours", FIXTURE)])
        assert (out.verdict, out.judged) == ("verified", 1)
        for dialect in ("sqlite", target):
            engine = judge.engine(dialect)
            assert engine is not None
            assert engine.checksums(FIXTURE) == FIXTURE.checksums


MERGE = (
    "MERGE INTO t USING s ON t.k = s.k WHEN MATCHED THEN UPDATE SET name = s.name "
    "WHEN NOT MATCHED THEN INSERT (k, name) VALUES (s.k, s.name)"
)
TWO = Fixture(
    "app",
    (
        FIXTURE.tables[0],
        Table(
            "s",
            (Column("k", "integer", False), Column("name", "text")),
            ((2, "B"), (9, "c")),
            ("k",),
        ),
    ),
)


@pytest.mark.server
def test_merge_where_both_engines_have_it():
    with stopping_started(), closing(Judge(start=True)) as judge:

        def run(source: str) -> tuple[str, str]:
            item = Item(
                id="m",
                source_dialect=source,
                target_dialect="duckdb",
                source_sql=MERGE,
                fixture=TWO,
            )
            out = judge_dml(judge, item, MERGE, [("yours", TWO)])
            return out.verdict, out.reason

        assert run("postgres") == ("verified", "match")
        assert run("sqlite") == ("not_assessed", "gold_error")  # SQLite has no MERGE


def test_dml_from_pg_stat_statements_with_placeholders_filled(tmp_path):
    work = _work(tmp_path)
    code = assess_pg_stats(
        work,
        '"INSERT INTO t (k, name) VALUES ($1, $2)",5\n"UPDATE t SET name = $1 WHERE k = $2",3\n',
    )
    lines = results(work / "out")
    assert code == 0 and [x["kind"] for x in lines] == ["dml", "dml"]
    assert lines[0]["source_sql"] == "INSERT INTO t (k, name) VALUES (9100, 'parrot 1')"
    assert all(x["detail"].startswith("placeholders filled with generated values") for x in lines)
