"""``parrot translate``: a .sql file or one query, translated and checked on the user's database
(SQLite → DuckDB on real engines, with a SQLite file built here)."""

from __future__ import annotations

import io
import re
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
    con.executemany(
        "INSERT INTO t VALUES (?, ?, ?)", [(1, "a", 1.5), (2, "b", None), (3, "c", 3.25)]
    )
    con.commit()
    con.close()
    return path


def test_file_translated_and_every_statement_matches_on_the_database(tmp_path, app_db, capsys):
    sql = tmp_path / "q.sql"
    sql.write_text(QUERIES, encoding="utf-8")
    out = tmp_path / "q.duckdb.sql"
    assert (
        main(["--from", "sqlite", "--to", "duckdb", "--db", str(app_db), str(sql), "-o", str(out)])
        == 0
    )
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
    monkeypatch.setattr(
        "sys.stdin",
        io.StringIO("SELECT name FROM t WHERE id = 1; SELECT strftime('%Y', '2020-01-02') AS y"),
    )
    assert (
        main(
            ["--from", "sqlite", "--to", "duckdb", "--model", "identity", "--db", str(app_db), "-"]
        )
        == 1
    )
    err = capsys.readouterr().err
    assert "statement 1: strict match" in err
    line = next(x for x in err.splitlines() if x.startswith("statement 2:"))
    assert line.startswith("statement 2: strict pred_error, normalized pred_error, ")
    assert "translation runtime_error on duckdb" in line and "strftime" in line
    assert "1/2 statements match" in err


def test_a_target_without_an_engine_is_not_judged_not_a_mismatch(monkeypatch, app_db, capsys):
    monkeypatch.delenv("PARROT_TSQL_URL", raising=False)
    monkeypatch.setattr("sys.stdin", io.StringIO("SELECT name FROM t WHERE id = 1"))
    assert main(["--from", "sqlite", "--to", "tsql", "--no-start", "--db", str(app_db), "-"]) == 1
    err = capsys.readouterr().err
    assert "no tsql engine here: its side of every statement is not judged (" in err
    assert "statement 1: not judged (no tsql engine); the source ran on sqlite" in err
    assert "pred_error" not in err


def test_a_missing_source_engine_is_said_once_and_the_target_side_still_runs(
    monkeypatch, app_db, capsys
):
    # no MariaDB on this machine, as far as parrot can tell (the way the server tests hide it)
    monkeypatch.setattr("parrot.servers.mariadb.find_binary", lambda *names: None)
    monkeypatch.delenv("PARROT_MYSQL_URL", raising=False)
    monkeypatch.setattr("parrot.servers.mariadb.MariaDBServer.state", lambda self: None)
    monkeypatch.setattr(
        "sys.stdin",
        io.StringIO(
            "SELECT id FROM t ORDER BY id; SELECT name FROM t WHERE id = 1; SELECT IFNULL(score, 0)"
            " AS s FROM t; SELECT nosuchcolumn FROM t"
        ),
    )
    assert main(["--from", "mysql", "--to", "duckdb", "--db", str(app_db), "-"]) == 1
    err = capsys.readouterr().err.splitlines()
    assert sum("no mysql engine here" in line for line in err) == 1
    lines = [
        re.sub(r"on duckdb [0-9.]+:", "on duckdb:", x) for x in err if x.startswith("statement ")
    ]  # (the engine's label carries its version)
    assert lines[:3] == [
        "statement 1: not judged (no mysql engine); the translation ran on duckdb: ok (3 rows)",
        "statement 2: not judged (no mysql engine); the translation ran on duckdb: ok (1 row)",
        "statement 3: not judged (no mysql engine); the translation ran on duckdb: ok (3 rows)",
    ]
    assert (
        lines[3].startswith(
            "statement 4: not judged (no mysql engine); the translation ran "
            "on duckdb: runtime_error: "
        )
        and "nosuchcolumn" in lines[3]
    )
    assert "0/4 statements match" in err[-1]


def test_input_that_does_not_parse_in_the_source_dialect_is_a_usage_error(monkeypatch, capsys):
    # DuckDB's own parser runs here and confirms the grammar: a usage error, nothing written
    monkeypatch.setattr("sys.stdin", io.StringIO("SELECT 1;\nSELEC broken"))
    assert cli.main(["translate", "--from", "duckdb", "--to", "sqlite", "-"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""  # nothing translated, nothing half-written
    assert (
        "error: line 2, column 1: statement 2 does not parse as duckdb: near 'SELEC': "
        in captured.err
    )
    monkeypatch.setattr("sys.stdin", io.StringIO("SELECT 1;\nSELEC broken"))
    assert main(["--from", "duckdb", "--to", "sqlite", "--no-check", "-"]) == 0


def test_a_rejection_only_parrots_grammar_makes_warns_translates_and_exits_1(monkeypatch, capsys):
    # no MySQL parser runs in this process: the grammar's word is said, not enforced (its
    # rejections of real MySQL queries are not all errors)
    monkeypatch.setattr("sys.stdin", io.StringIO("SELECT 1;\nSELEC broken"))
    assert cli.main(["translate", "--from", "mysql", "--to", "duckdb", "-"]) == 1
    captured = capsys.readouterr()
    assert "warning: line 2, column 1: statement 2 does not parse as mysql" in captured.err
    assert "translated anyway, exit status 1" in captured.err
    assert captured.out.startswith("SELECT 1;")


def test_a_statement_the_grammar_rejects_but_the_engines_parser_accepts_is_translated(
    monkeypatch, capsys
):
    # the grammar is stricter than DuckDB's own parser here: the engine's parser decides
    from parrot.check import accepts

    sql = "SELECT {'a': 1}.a AS x"
    if accepts(sql, "duckdb"):
        pytest.skip("the DuckDB grammar accepts this statement now: pick another")
    monkeypatch.setattr("sys.stdin", io.StringIO(sql))
    assert main(["--from", "duckdb", "--to", "duckdb", "--model", "identity", "-"]) == 0


COMMENTED = """-- header: my report queries
# a MySQL hash comment
SELECT IFNULL(score, 0) AS s  -- inline note
FROM t ORDER BY id; -- trailing note
/* between
   statements */
SELECT COUNT(*) FROM t;
-- the end
"""


def test_output_keeps_the_inputs_comments_and_still_parses(tmp_path):
    from parrot.check import accepts

    sql = tmp_path / "q.sql"
    sql.write_text(COMMENTED, encoding="utf-8")
    out = tmp_path / "q.duckdb.sql"
    assert main(["--from", "mysql", "--to", "duckdb", str(sql), "-o", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    assert text.startswith("-- header: my report queries\n-- a MySQL hash comment\nSELECT ")
    assert "inline note" in text
    assert re.search(r"FROM t ORDER BY id[A-Z ]*;  -- trailing note\n", text)  # its line
    assert "/* between\n   statements */\nSELECT COUNT(*) FROM t;" in text
    assert text.endswith("\n-- the end\n")
    assert accepts(text, "duckdb")


@pytest.mark.server
def test_servers_it_started_are_stopped_when_it_exits(tmp_path, monkeypatch, app_db, capsys):
    from parrot.servers import server_for
    from parrot.servers.postgres import PostgresServer

    hint = PostgresServer(root=tmp_path / "probe").available()
    if hint is not None:
        pytest.skip(f"postgres cannot run here: {hint}")
    monkeypatch.setenv("PARROT_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("PARROT_POSTGRES_URL", raising=False)
    monkeypatch.setattr("sys.stdin", io.StringIO("SELECT name FROM t WHERE id = 2"))
    assert server_for("postgres").state() is None
    assert main(["--from", "sqlite", "--to", "postgres", "--db", str(app_db), "-"]) == 0
    assert "statement 1: strict match" in capsys.readouterr().err
    assert server_for("postgres").state() is None


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--from", "sqlite", "--to", "duckdb", "--model", "nope", "-"], "unknown model"),
        (["--from", "sqlite", "--to", "nodialect", "-"], "unknown dialect"),
        (
            ["--from", "sqlite", "--to", "duckdb", "--db", "/nonexistent/x.sqlite", "-"],
            "no such database file",
        ),
        (["--from", "sqlite", "--to", "duckdb", "/nonexistent/q.sql"], "No such file"),
    ],
)
def test_usage_errors_exit_2_with_a_message(monkeypatch, capsys, argv, message):
    monkeypatch.setattr("sys.stdin", io.StringIO("SELECT 1"))
    assert main(argv) == 2
    assert message in capsys.readouterr().err


def test_empty_input_is_a_usage_error(monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", io.StringIO("  -- nothing\n"))
    assert main(["--from", "sqlite", "--to", "duckdb", "-"]) == 2
    assert "no SQL statement" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("sql", "dialect", "count"),
    [
        ("SELECT 1; SELECT 2;", "sqlite", 2),
        ("SELECT ';'; SELECT 2", "duckdb", 2),
        ("SELECT 1 # a;b\n; SELECT 2", "mysql", 2),  # MySQL's '#' comment hides its ';'
        ("SELECT 1", "oracle", 1),
    ],
)
def test_split_uses_the_source_dialects_lexical_rules(sql, dialect, count):
    assert len(split(sql, dialect)) == count


def test_an_untranslated_statement_stays_visible_in_the_output():
    text = render_sql(
        [
            Translation.from_sql("SELECT 1"),
            Translation(TranslationStatus.ERROR, error="parse\nerror"),
        ]
    )
    assert text == "SELECT 1;\n\n-- statement 2: not translated (error: parse error)\n"


def test_model_args_reach_the_translator(monkeypatch, capsys):
    seen = {}

    def create(spec, llm=None):
        seen.update(spec=spec, temperature=llm.temperature, hints=llm.hints)
        raise ValueError("stop here")

    monkeypatch.setattr("parrot.translate.create_translator", create)
    monkeypatch.setattr("sys.stdin", io.StringIO("SELECT 1"))
    assert (
        main(
            [
                "--from",
                "sqlite",
                "--to",
                "duckdb",
                "--model",
                "openai/x",
                "--model-args",
                "temperature=0.3,hints=false",
                "-",
            ]
        )
        == 2
    )
    assert seen == {"spec": "openai/x", "temperature": 0.3, "hints": False}


def test_model_args_for_a_translator_that_calls_no_model_are_said_to_be_ignored(
    monkeypatch, capsys
):
    monkeypatch.setattr("sys.stdin", io.StringIO("SELECT 1"))
    assert main(["--from", "sqlite", "--to", "duckdb", "--model-args", "temperature=0.3", "-"]) == 0
    assert "warning: sqlglot calls no model: --model-args are ignored" in capsys.readouterr().err
