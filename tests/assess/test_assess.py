"""``parrot assess`` end to end on real engines: --db, --schema, template inheritance, resume."""

from __future__ import annotations

from pathlib import Path

import pytest
from assessing import assess, database

from parrot.assess.cli import main as assess_main

QUERIES = """SELECT COUNT(*) FROM t WHERE x > 5;
SELECT COUNT(*) FROM t WHERE x > 7;
SELECT COUNT(*) FROM t WHERE name LIKE 'a%';
SELECT COUNT(*) FROM t WHERE name LIKE '%';
"""
MORE = """SELECT k, name FROM t ORDER BY k LIMIT 3;
INSERT INTO t VALUES (99, 'z', 1);
SELECT * FROM t WHERE k = $1;
SELEC broken;
"""


@pytest.fixture
def workload(tmp_path: Path) -> Path:
    (tmp_path / "q" / "sub").mkdir(parents=True)
    (tmp_path / "q" / "a.sql").write_text(QUERIES)
    (tmp_path / "q" / "sub" / "b.sql").write_text(MORE)
    rows = [(1, "apple", 3), (2, "Avocado", 8), (3, "banana", 6), (4, "Apricot", 9)]
    return database(tmp_path, "k INTEGER PRIMARY KEY, name TEXT, x INTEGER", rows)


def _lines(out: Path) -> dict[str, dict]:
    from parrot.assess.run import read_done

    return read_done(out / "assessment.jsonl")


def _run(workload: Path, out: str, *args: str) -> tuple[int, dict[str, dict]]:
    code = assess(workload, "q", "sqlite", *args, out=out)
    return code, _lines(workload / out)


def test_on_the_users_database(workload):
    code, lines = _run(workload, "out", "--db", str(workload / "app.sqlite"))
    assert code == 1  # not every statement is verified
    verdicts = {i: (x["verdict"], x["reason"]) for i, x in lines.items()}
    assert verdicts == {
        "a.sql:1": ("verified", "match"),
        "a.sql:2": ("verified", "match"),
        # SQLite's LIKE ignores ASCII case, DuckDB's does not: 'Avocado', 'Apricot'
        "a.sql:3": ("review", "value"),
        "a.sql:4": ("verified", "match"),
        "sub/b.sql:1": ("verified", "match"),
        "sub/b.sql:2": ("verified", "match"),  # DML: run on a copy of the database
        "sub/b.sql:3": ("verified", "match"),  # $1 filled with a value of t.k
        # not SQLite SQL (SQLite's own parser agrees with the grammar): not translated as if
        "sub/b.sql:4": ("failed", "source_syntax"),
    }
    assert lines["a.sql:2"]["translated"] == "from template a.sql:1"  # translated once
    witness = lines["a.sql:3"]["witness"]
    assert witness["minimal"] and witness["size"] == 1
    assert witness["tables"]["t"][0][1][0] == "A"  # the row whose case makes the difference
    tree = (workload / "out" / "translated" / "a.sql").read_text()
    assert "-- parrot assess: review: value" in tree and tree.count(";") == 4
    assert (workload / "out" / "translated" / "sub" / "b.sql").is_file()
    html = (workload / "out" / "assessment.html").read_text()
    assert 'id="card-verified"><b>6</b>' in html


def test_from_the_schema_alone_and_a_literal_that_changes_the_verdict(workload):
    code, lines = _run(workload, "out", "--schema", str(workload / "schema.sql"))
    assert code == 1
    assert lines["a.sql:1"]["verdict"] == lines["a.sql:2"]["verdict"] == "verified"
    assert lines["a.sql:1"]["judged"] >= 2  # the empty tables and generated databases
    assert lines["a.sql:3"]["verdict"] == "review"  # found on generated data, no user data
    assert lines["a.sql:3"]["witness"] is not None
    # '%' matches every row in both engines: the template's databases give another verdict,
    # so the statement is judged on databases generated for its own literals
    assert lines["a.sql:4"]["verdict"] == "verified"
    assert "its literals change the verdict" in lines["a.sql:4"]["detail"]


def test_resume_skips_what_was_judged_and_keeps_a_torn_line(workload):
    db = str(workload / "app.sqlite")
    _run(workload, "out", "--db", db)
    results = workload / "out" / "assessment.jsonl"
    kept = results.read_text().splitlines()[:2]
    results.write_text("\n".join(kept) + '\n{"id": "a.sql:3", "verd')  # killed mid-line
    assert assess(workload, "q", "sqlite", "--db", db) == 2  # no --resume
    code, lines = _run(workload, "out", "--db", db, "--resume")
    raw = results.read_text().splitlines()
    assert code == 1 and len(lines) == 8
    assert sum(1 for x in raw if x.startswith('{"id": "a.sql:1"')) == 1
    assert '{"id": "a.sql:3", "verd' in raw  # the damaged line is kept, never deleted


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--db", "/nonexistent.sqlite"], "nonexistent"),
        (["--schema", "/nonexistent.sql"], "nonexistent"),
        (["--timeout", "nan"], "--timeout"),
        (["--model", "nope"], "nope"),
    ],
)
def test_usage_errors_exit_2(workload, capsys, args, message):
    argv = [str(workload / "q"), "--from", "sqlite", "--to", "duckdb", "-o", str(workload / "o")]
    try:
        code = assess_main([*argv, *args])
    except SystemExit as exc:  # refused by the parser itself (a bad --timeout)
        code = exc.code
    assert code == 2
    assert message in capsys.readouterr().err
    assert not (workload / "o" / "assessment.jsonl").exists()
