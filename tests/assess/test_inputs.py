"""Workload formats of ``parrot assess``: each with a small example."""

from __future__ import annotations

import pytest

from parrot.assess.inputs import InputError, detect, read_workload

SLOW_LOG = """/usr/sbin/mariadbd, Version: 10.11.6-MariaDB (Debian). started with:
Tcp port: 3306  Unix socket: /run/mysqld/mysqld.sock
Time                Id Command  Argument
# Time: 241201 10:00:00
# User@Host: app[app] @ localhost []
# Query_time: 2.5  Lock_time: 0.0 Rows_sent: 1  Rows_examined: 100
use shop;
SET timestamp=1733047200;
SELECT COUNT(*) FROM orders
WHERE status = 'open';
# Time: 241201 10:00:05
# User@Host: app[app] @ localhost []
# Query_time: 3.1  Lock_time: 0.0 Rows_sent: 3  Rows_examined: 300
SET timestamp=1733047205;
SELECT id FROM orders WHERE total > 100;
"""

GENERAL_LOG = """/usr/sbin/mariadbd, Version: 10.11.6-MariaDB (Debian). started with:
Tcp port: 3306  Unix socket: /run/mysqld/mysqld.sock
Time\t\t    Id Command\tArgument
241201 10:00:00\t    5 Connect\tapp@localhost on shop using Socket
\t\t    5 Query\tSELECT 1
241201 10:00:01\t    5 Query\tSELECT id,
  name FROM customers
\t\t    5 Quit\t
2024-12-01T10:00:00.123456Z\t    8 Query\tSELECT 2
"""

PGSS = (
    "userid,dbid,queryid,query,calls\n"
    '10,5,123,"SELECT * FROM t WHERE a = $1",42\n'
    '10,5,124,"select 1",3\n'
)


@pytest.mark.parametrize(
    ("name", "text", "fmt", "sqls"),
    [
        (
            "slow.log",
            SLOW_LOG,
            "mysql-slow",
            [
                "SELECT COUNT(*) FROM orders\nWHERE status = 'open'",
                "SELECT id FROM orders WHERE total > 100",
            ],
        ),
        (
            "general.log",
            GENERAL_LOG,
            "mysql-general",
            ["SELECT 1", "SELECT id,\n  name FROM customers", "SELECT 2"],
        ),
        ("stats.csv", PGSS, "pgss", ["SELECT * FROM t WHERE a = $1", "select 1"]),
        (
            "queries.txt",
            "SELECT 1\n\nSELECT 'a;b' AS x\n",
            "lines",
            ["SELECT 1", "SELECT 'a;b' AS x"],
        ),
        ("queries.log", "SELECT 1;\nSELECT\n  2;\n", "lines", ["SELECT 1", "SELECT\n  2"]),
        (
            "one.sql",
            "-- a comment\nSELECT 1; SELECT ';' AS s;\n/* only a comment */",
            "sql",
            ["SELECT 1", "SELECT ';' AS s"],
        ),
    ],
)
def test_each_format_reads_its_statements(tmp_path, name, text, fmt, sqls):
    path = tmp_path / name
    path.write_text(text)
    assert detect(path) == fmt
    got = read_workload(path, "mysql")
    assert [s.sql for s in got] == sqls
    assert [s.id for s in got] == [f"{name}:{i}" for i in range(1, len(sqls) + 1)]


def test_pg_stat_statements_keeps_calls_as_weight(tmp_path):
    path = tmp_path / "pgss.csv"
    path.write_text(PGSS)
    assert [s.weight for s in read_workload(path, "postgres")] == [42, 3]


def test_a_folder_is_read_at_any_depth_in_sorted_order(tmp_path):
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "deep.sql").write_text("SELECT 3;")
    (tmp_path / "a.sql").write_text("SELECT 1; SELECT 2;")
    (tmp_path / "notes.txt").write_text("SELECT 99;")
    got = read_workload(tmp_path, "sqlite")
    assert [s.id for s in got] == ["a.sql:1", "a.sql:2", "b/deep.sql:1"]


@pytest.mark.parametrize(
    ("setup", "message"),
    [
        (lambda p: p / "missing.sql", "no such file"),
        (lambda p: p, "no .sql file"),
    ],
)
def test_unreadable_inputs_say_why(tmp_path, setup, message):
    with pytest.raises(InputError, match=message):
        read_workload(setup(tmp_path), "sqlite")


def test_a_csv_without_a_query_column_is_refused(tmp_path):
    path = tmp_path / "x.csv"
    path.write_text("a,b\n1,2\n")
    with pytest.raises(InputError, match="'query' column"):
        read_workload(path, "postgres")


def test_a_comment_after_a_statement_on_its_line_stays_with_it(tmp_path):
    # regression: "SELECT 1; -- one" gave "-- one" to the next statement as its leading comment
    path = tmp_path / "c.sql"
    path.write_text(
        "SELECT 1; -- one\n-- about two\nSELECT 2; /* two */ -- end\n"
        "SELECT 3;\n\n-- a file footer\n"
    )
    got = read_workload(path, "postgres")
    assert [(s.comments, s.trailing) for s in got] == [
        ("", "-- one"),
        ("-- about two", "/* two */ -- end"),
        ("", ""),
    ]


def test_trailing_comments_follow_the_translation_in_the_tree():
    from parrot.assess.output import statement_text

    line = {
        "verdict": "verified",
        "reason": "match",
        "translation": "SELECT 1",
        "comments": "-- before",
        "trailing_comments": "-- one",
        "source_sql": "SELECT 1",
    }
    assert statement_text(line) == "-- before\nSELECT 1; -- one"
    failed = {**line, "translation": None, "verdict": "failed", "reason": "not_translated"}
    assert statement_text(failed).endswith("-- SELECT 1\n-- one")
