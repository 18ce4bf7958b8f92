"""``parrot assess`` as the tests run it: to DuckDB, quietly, into ``out`` beside the workload."""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from pathlib import Path

from parrot.assess.cli import main as assess_main


def database(work: Path, columns: str, rows: list[tuple]) -> Path:
    """``work/app.sqlite`` holding ``rows`` in a table ``t`` of ``columns``, and
    ``work/schema.sql`` creating that table: the user's database and its schema."""
    create = f"CREATE TABLE t ({columns})"
    (work / "schema.sql").write_text(create + ";\n")
    with closing(sqlite3.connect(work / "app.sqlite")) as con:
        con.execute(create)
        con.executemany(f"INSERT INTO t VALUES ({', '.join('?' * len(rows[0]))})", rows)
        con.commit()
    return work


def assess(work: Path, source: str, dialect: str, *args: str, out: str = "out") -> int:
    """``parrot assess work/SOURCE --from DIALECT --to duckdb --quiet ARGS -o work/OUT``."""
    argv = [str(work / source), "--from", dialect, "--to", "duckdb", "--quiet", *args]
    return assess_main([*argv, "-o", str(work / out)])


def assess_pg_stats(work: Path, rows: str) -> int:
    """``parrot assess`` of a pg_stat_statements export (``rows`` under its ``query,calls``
    header) from PostgreSQL, on ``work/schema.sql`` alone."""
    (work / "stats.csv").write_text("query,calls\n" + rows)
    return assess(
        work, "stats.csv", "postgres", "--schema", str(work / "schema.sql"), "--no-distill"
    )


def results(out: Path) -> list[dict]:
    """The lines of ``out/assessment.jsonl``, in order."""
    return [json.loads(x) for x in (out / "assessment.jsonl").read_text().splitlines()]
