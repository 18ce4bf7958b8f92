"""``parrot translate``: a .sql file or one query, translated and checked on the user's database
(SQLite → DuckDB on real engines, with a SQLite file built here)."""

from __future__ import annotations

import io
import sqlite3
from pathlib import Path

import pytest

from parrot import cli
from parrot.translate import main, render_sql, split
from parrot.translators.base import Translation, TranslationStatus

QUERIES = """-- my queries; a ';' inside a string: 'a;b'
SELECT id, name FROM t ORDER BY id;
SELECT COUNT(*) AS n, SUM(score) AS total FROM t WHERE name <> 'a;b';
SELECT IFNULL(score, 0) AS s FROM t ORDER BY id LIMIT 2;
"""


@pytest.fixture
def app_db(tmp_path: Path) -> Path:
    path = tmp_path / "app.sqlite"
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, score REAL)")
    con.executemany("INSERT INTO t VALUES (?, ?, ?)",
                    [(1, "a", 1.5), (2, "b", None), (3, "c", 3.25)])
    con.commit()
    con.close()
    return path


def test_file_translated_and_every_statement_matches_on_the_database(tmp_path, app_db, capsys):
    sql = tmp_path / "q.sql"
    sql.write_text(QUERIES, encoding="utf-8")
    out = tmp_path / "q.duckdb.sql"
    assert main(["--from", "sqlite", "--to", "duckdb", "--db", str(app_db), str(sql),
                 "-o", str(out)]) == 0
    err = capsys.readouterr().err
    for i in (1, 2, 3):
        assert f"statement {i}: strict match, normalized match, multiset match" in err
    assert f"3/3 statements match on {app_db}" in err
    translated = out.read_text(encoding="utf-8")
    assert translated.count(";\n") == 3 and "COALESCE(score, 0)" in translated


def test_one_query_from_stdin_to_stdout_without_a_database(monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", io.StringIO("SELECT IFNULL(a, 0) FROM t"))
    assert cli.main(["translate", "--from", "mysql", "--to", "duckdb", "-"]) == 0
    captured = capsys.readouterr()
    assert captured.out == "SELECT COALESCE(a, 0) FROM t;\n"
    assert "1/1 statements translated (mysql → duckdb, sqlglot)" in captured.err


def test_a_translation_the_target_rejects_is_reported_and_exits_1(monkeypatch, app_db, capsys):
    # identity keeps SQLite's strftime(format, value); DuckDB's takes (value, format)
    monkeypatch.setattr("sys.stdin", io.StringIO(
        "SELECT name FROM t WHERE id = 1; SELECT strftime('%Y', '2020-01-02') AS y"))
    assert main(["--from", "sqlite", "--to", "duckdb", "--model", "identity",
                 "--db", str(app_db), "-"]) == 1
    err = capsys.readouterr().err
    assert "statement 1: strict match" in err
    line = next(x for x in err.splitlines() if x.startswith("statement 2:"))
    assert line.startswith("statement 2: strict pred_error, normalized pred_error, ")
    assert "translation runtime_error on duckdb" in line and "strftime" in line
    assert "1/2 statements match" in err


def test_a_target_without_an_engine_is_not_judged_not_a_mismatch(monkeypatch, app_db, capsys):
    monkeypatch.delenv("PARROT_TSQL_URL", raising=False)
    monkeypatch.setattr("sys.stdin", io.StringIO("SELECT name FROM t WHERE id = 1"))
    assert main(["--from", "sqlite", "--to", "tsql", "--no-start", "--db", str(app_db),
                 "-"]) == 1
    err = capsys.readouterr().err
    assert "statement 1: not judged: no tsql engine here (" in err
    assert "pred_error" not in err


@pytest.mark.parametrize(("argv", "message"), [
    (["--from", "sqlite", "--to", "duckdb", "--model", "nope", "-"], "unknown model"),
    (["--from", "sqlite", "--to", "nodialect", "-"], "unknown dialect"),
    (["--from", "sqlite", "--to", "duckdb", "--db", "/nonexistent/x.sqlite", "-"],
     "no such database file"),
    (["--from", "sqlite", "--to", "duckdb", "/nonexistent/q.sql"], "No such file"),
])
def test_usage_errors_exit_2_with_a_message(monkeypatch, capsys, argv, message):
    monkeypatch.setattr("sys.stdin", io.StringIO("SELECT 1"))
    assert main(argv) == 2
    assert message in capsys.readouterr().err


def test_empty_input_is_a_usage_error(monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", io.StringIO("  -- nothing\n"))
    assert main(["--from", "sqlite", "--to", "duckdb", "-"]) == 2
    assert "no SQL statement" in capsys.readouterr().err


@pytest.mark.parametrize(("sql", "dialect", "count"), [
    ("SELECT 1; SELECT 2;", "sqlite", 2),
    ("SELECT ';'; SELECT 2", "duckdb", 2),
    ("SELECT 1 # a;b\n; SELECT 2", "mysql", 2),  # MySQL's '#' comment hides its ';'
    ("SELECT 1", "oracle", 1),
])
def test_split_uses_the_source_dialects_lexical_rules(sql, dialect, count):
    assert len(split(sql, dialect)) == count


def test_an_untranslated_statement_stays_visible_in_the_output():
    text = render_sql([Translation.from_sql("SELECT 1"),
                       Translation(TranslationStatus.ERROR, error="parse\nerror")])
    assert text == "SELECT 1;\n\n-- statement 2: not translated (error: parse error)\n"


def test_model_args_reach_the_translator(monkeypatch, capsys):
    seen = {}

    def create(spec, llm=None):
        seen.update(spec=spec, temperature=llm.temperature, hints=llm.hints)
        raise ValueError("stop here")

    monkeypatch.setattr("parrot.translate.create_translator", create)
    monkeypatch.setattr("sys.stdin", io.StringIO("SELECT 1"))
    assert main(["--from", "sqlite", "--to", "duckdb", "--model", "openai/x",
                 "--model-args", "temperature=0.3,hints=false", "-"]) == 2
    assert seen == {"spec": "openai/x", "temperature": 0.3, "hints": False}


def test_model_args_for_a_translator_that_calls_no_model_are_said_to_be_ignored(
        monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", io.StringIO("SELECT 1"))
    assert main(["--from", "sqlite", "--to", "duckdb", "--model-args", "temperature=0.3",
                 "-"]) == 0
    assert "warning: sqlglot calls no model: --model-args are ignored" in capsys.readouterr().err
