"""Table-driven grammar checks: per dialect, statements that must parse and ones that must not."""

from __future__ import annotations

import pytest
from sql_cases import sql_cases

from parrot.check import (
    GRAMMAR_OF,
    UnsupportedDialectError,
    accepts,
    check_many,
    check_sql,
    grammar_for,
)

ACCEPT: dict[str, list[str]] = {
    "sqlite": [
        "SELECT [a], \"b\", `c` FROM t WHERE a GLOB 'x*' AND b == 1 LIMIT 5 OFFSET 2",
        "INSERT OR REPLACE INTO t (a) VALUES (1), (2)",
        "SELECT a FROM t1 JOIN t2 WHERE t1.id = t2.id",
        "WITH c AS (SELECT 1 AS x) SELECT x, COUNT(*) OVER (PARTITION BY x) FROM c",
        "CREATE TABLE t (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL) WITHOUT ROWID",
        "SELECT CAST(a AS REAL) / b, strftime('%Y', d) FROM t WHERE a IS NOT b",
    ],
    "postgres": [
        "CREATE DATABASE chinook",  # (the public Chinook script's first statements)
        "CREATE DATABASE chinook WITH OWNER = me ENCODING = 'UTF8'",
        "INSERT INTO genre (genre_id, name) VALUES (1, N'Rock'), (2, N'Guns N'' Roses')",
        "SELECT 1 /* a /* nested */ still a comment; */ AS x",
        "SELECT DISTINCT ON (a) a::text, b->>'x' FROM t WHERE c ~* 'x' LIMIT 5 OFFSET 1",
        "INSERT INTO t VALUES (1) ON CONFLICT (a) DO NOTHING RETURNING *",
        "SELECT EXTRACT(YEAR FROM d), SUBSTRING(s FROM 2 FOR 3), ARRAY[1, 2][1] FROM t",
        "CREATE FUNCTION f(x int) RETURNS int LANGUAGE sql AS $$ SELECT x + 1 $$",
        "SELECT a FROM t FETCH FIRST 3 ROWS ONLY",
        "SELECT FROM t",
    ],
    "mysql": [
        "SELECT `a`, \"str\", GROUP_CONCAT(DISTINCT b ORDER BY b SEPARATOR ',') FROM t LIMIT 5, 10",
        "SELECT DATE_ADD(d, INTERVAL 1 DAY), a DIV 2, @v FROM t USE INDEX (i) # comment",
        "INSERT INTO t (a) VALUES (1) ON DUPLICATE KEY UPDATE a = a + 1",
        "SELECT a FROM t1 JOIN t2 WHERE t1.id = t2.id",
    ],
    "duckdb": [
        "SELECT * EXCLUDE (a), [1, 2, 3][1:2], {'a': 1}, x -> x + 1 FROM t QUALIFY y = 1",
        "FROM t SELECT a",
        "SELECT a, b, FROM t GROUP BY ALL ORDER BY ALL",
        "SELECT list_transform([1, 2], lambda x: x * 2), 7 // 2, TRY_CAST(a AS INT) FROM t",
    ],
    "clickhouse": [
        "SELECT arrayMap(x -> x + 1, [1, 2]) AS a, b, FROM t ARRAY JOIN arr AS x LIMIT 1 BY b",
        "SELECT quantile(0.5)(x) FROM t FINAL PREWHERE a == 1 SETTINGS max_threads = 1",
        "SELECT TOP 3 a FROM t GLOBAL ANY LEFT JOIN u USING (id)",
        "CREATE TABLE t (a UInt32, b Nullable(String)) ENGINE = MergeTree ORDER BY a",
    ],
    "oracle": [
        "INSERT INTO t (a, b) VALUES (1, 'x'), (2, 'y')",  # 23ai multi-row VALUES
        "SELECT a FROM t WHERE b = c(+) START WITH x = 1 CONNECT BY PRIOR id = pid",
        "SELECT * FROM t FETCH FIRST 5 ROWS ONLY",
        "SELECT a FROM t MINUS SELECT a FROM u",
        "SELECT DATE '2020-01-01', INTERVAL '1' DAY, a || b FROM dual",
        # PL/SQL units: one statement each (the splitter keeps their inner ';')
        "CREATE OR REPLACE FUNCTION f(a IN t.c%TYPE, b IN OUT NUMBER := 1) RETURN VARCHAR2 IS "
        "PRAGMA UDF; x NUMBER(5, 2) := 0; r t%ROWTYPE; CURSOR c1 IS SELECT a FROM t; "
        "BEGIN SELECT COUNT(*) INTO x FROM t WHERE c = a; "
        "IF x > 0 THEN x := x + 1; ELSIF x IS NULL THEN NULL; ELSE RETURN 'n'; END IF; "
        "OPEN c1; LOOP FETCH c1 INTO x; EXIT WHEN c1%NOTFOUND; END LOOP; CLOSE c1; "
        "FOR i IN 1..10 LOOP dbms_output.put_line(i); END LOOP; WHILE x < 3 LOOP x := x + 1; END "
        "LOOP; "
        "CASE x WHEN 1 THEN x := 2; ELSE NULL; END CASE; RETURN 'y'; "
        "EXCEPTION WHEN NO_DATA_FOUND OR TOO_MANY_ROWS THEN RETURN NULL; "
        "WHEN OTHERS THEN RAISE; END f;",
        "CREATE PROCEDURE p (n INT) AS c sys_refcursor; BEGIN OPEN c FOR SELECT a FROM t; "
        "dbms_sql.return_result(c); EXECUTE IMMEDIATE 'DROP TABLE x'; COMMIT; END;",
        "CREATE OR REPLACE TRIGGER tr AFTER DELETE OR UPDATE OF a ON t FOR EACH ROW DECLARE v INT; "
        "BEGIN v := :old.a; INSERT INTO log VALUES (:new.a, DEFAULT); END;",
        "DECLARE x INT := 1; BEGIN BEGIN x := 2; END; UPDATE t SET a = x; END;",
        "CALL p(1)",
        "SELECT JSON_OBJECT(KEY 'a' VALUE b, 'c' VALUE d FORMAT JSON ABSENT ON NULL RETURNING "
        "CLOB), "
        "JSON_ARRAYAGG(x ORDER BY x RETURNING CLOB) FROM t",
        "SELECT * FROM t MATCH_RECOGNIZE (PARTITION BY a ORDER BY b MEASURES FIRST(b) AS s "
        "ONE ROW PER MATCH PATTERN (x y+) DEFINE y AS y.b > PREV(y.b)) m",
        "WITH r (n) AS (SELECT 1 FROM dual UNION ALL SELECT n + 1 FROM r WHERE n < 3) "
        "SEARCH DEPTH FIRST BY n SET o CYCLE n SET c TO 'Y' DEFAULT 'N' SELECT n FROM r",
        "SELECT * FROM (SELECT a, b FROM t) PIVOT (SUM(a) FOR b IN (1 AS one, 2 AS two))",
        "INSERT ALL WHEN a > 1 THEN INTO t1 (a) VALUES (a) ELSE INTO t2 SELECT a FROM t",
        "GRANT SELECT, UPDATE (a) ON t TO u, r WITH GRANT OPTION",
        "ANALYZE TABLE t PARTITION (p1) VALIDATE STRUCTURE CASCADE",
    ],
    "tsql": [
        "IF EXISTS (SELECT name FROM master.dbo.sysdatabases WHERE name = N'Chinook')\nBEGIN\n"
        "  ALTER DATABASE [Chinook] SET OFFLINE WITH ROLLBACK IMMEDIATE;\n"
        "  ALTER DATABASE [Chinook] SET ONLINE;\n  DROP DATABASE [Chinook];\nEND",
        "IF EXISTS (SELECT 1 FROM sys.databases WHERE name = 'x') DROP DATABASE [x]",
        "CREATE DATABASE [Chinook]",
        "SELECT TOP 5 [a], b FROM dbo.t WITH (NOLOCK) CROSS APPLY f(x) AS y WHERE c = N'x'",
        "DECLARE @x INT = 5 SELECT @x",
        "SELECT a FROM t ORDER BY a OFFSET 10 ROWS FETCH NEXT 5 ROWS ONLY",
        "SELECT CONVERT(VARCHAR(10), d, 120), ISNULL(a, 0) + b FROM #tmp",
        "IF EXISTS (SELECT 1 FROM t) BEGIN SELECT 1; SELECT 2; END ELSE PRINT 'no'",
    ],
    "spark": [
        "SELECT a, explode(b) FROM t LATERAL VIEW explode(c) tt AS cc WHERE a RLIKE 'x'",
        "SELECT CAST(x AS ARRAY<INT>), transform(a, x -> x + 1) FROM t LIMIT 3",
        'SELECT `a`, "s" FROM db.t LEFT SEMI JOIN u ON t.id = u.id',
    ],
    "snowflake": [
        "SELECT v:a.b::string FROM t QUALIFY ROW_NUMBER() OVER (PARTITION BY a ORDER BY b) = 1",
        "SELECT * FROM TABLE(FLATTEN(input => x)) f",
        "SELECT TOP 5 a FROM t SAMPLE (10) START WITH x = 1 CONNECT BY PRIOR id = pid",
    ],
    "bigquery": [
        "SELECT * EXCEPT (a) FROM `p.d.t`, UNNEST(arr) AS x WITH OFFSET WHERE d > DATE '2020-1-1'",
        "SELECT a FROM t UNION ALL SELECT b FROM u",
        "SELECT DATE_ADD(d, INTERVAL 1 DAY), arr[OFFSET(0)], STRUCT(1 AS a) FROM t",
    ],
    "trino": [
        "SELECT transform(arr, x -> x * 2), ARRAY[1, 2][1] FROM t CROSS JOIN UNNEST(a) AS u(x)",
        "SELECT CAST(x AS ROW(a INTEGER, b VARCHAR)) FROM t OFFSET 2 LIMIT 3",
        "SELECT DATE '2020-01-01' + INTERVAL '1' DAY, TRY_CAST(a AS BIGINT) FROM t",
        "WITH FUNCTION f(x INTEGER) RETURNS INTEGER RETURN x * 2 WITH t AS (SELECT 3 AS v) "
        "SELECT f(v) FROM t",
        "WITH FUNCTION f(n BIGINT) RETURNS ARRAY(BIGINT) LANGUAGE SQL NOT DETERMINISTIC BEGIN "
        "DECLARE i, j BIGINT DEFAULT 0; top: LOOP IF i >= n THEN LEAVE top; ELSEIF i = 1 THEN "
        "SET j = 1; ELSE ITERATE top; END IF; SET i = i + 1; END LOOP; WHILE i > 0 DO SET i = i "
        "- 1; "
        "END WHILE; REPEAT SET i = i + 1; UNTIL i > 3 END REPEAT; CASE i WHEN 4 THEN RETURN "
        "ARRAY[i]; "
        "END CASE; RETURN ARRAY[j]; END SELECT f(3)",
        "SELECT LISTAGG(a, ',' ON OVERFLOW TRUNCATE '...' WITH COUNT) WITHIN GROUP (ORDER BY a) "
        "FROM t",
        "ALTER TABLE t SET PROPERTIES x = 'y', 'a b' = DEFAULT",
        "START TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ WRITE",
    ],
}

# (dialect, statement, why it is not valid there): each dialect's own cases in a data file
REJECT: list[tuple[str, ...]] = [
    # Spark's default mode lets WHERE be an alias (its own parser accepts this)
    *[
        (d, "SELECT * FROM t WHERE", "WHERE is reserved, not an alias")
        for d in GRAMMAR_OF
        if grammar_for(d) != "Spark"
    ],
    *[(d, "SELECT a FROM t1 JOIN t2 ON", "ON needs a condition") for d in GRAMMAR_OF],
    *[(d, "SELECT (a FROM t", "unbalanced parenthesis") for d in GRAMMAR_OF],
    *[(d, "SELCT a FROM t", "typo") for d in GRAMMAR_OF],
    *[(d, "SELECT a FROM t; DROP TABLE", "trailing junk") for d in GRAMMAR_OF],
    *sql_cases("test_check_grammars.reject.tsv"),
]


@pytest.mark.parametrize(("dialect", "sql"), [(d, q) for d, qs in ACCEPT.items() for q in qs])
def test_accepts(dialect: str, sql: str) -> None:
    verdicts = check_sql(sql, dialect)
    assert verdicts and all(v.ok for v in verdicts), verdicts


@pytest.mark.parametrize(("dialect", "sql", "why"), REJECT)
def test_rejects(dialect: str, sql: str, why: str) -> None:
    assert not accepts(sql, dialect), why


def test_every_grammar_has_cases() -> None:
    assert {grammar_for(d) for d in ACCEPT} == set(GRAMMAR_OF.values())


def test_verdict_positions_and_statements() -> None:
    verdicts = check_sql("SELECT 1;\n\nSELECT a FROM t WHERE;\nSELECT 2", "postgres")
    assert [v.ok for v in verdicts] == [True, False, True]
    bad = verdicts[1]
    assert (bad.index, bad.line, bad.column, bad.token) == (2, 3, 22, "<EOF>")
    assert (bad.start, bad.end) == (11, 32)
    assert bad.message and "input" in bad.message


def test_aliases_and_unknown_dialects() -> None:
    assert accepts("SELECT TOP 1 a FROM t", "mssql")
    assert accepts("SELECT a FROM t", "pg")
    with pytest.raises(UnsupportedDialectError):
        check_sql("SELECT 1", "teradata")


def test_lexer_error_is_reported_with_its_text() -> None:
    (v,) = check_sql("SELECT a ! b FROM t", "sqlite")
    assert (v.ok, v.line, v.column, v.token) == (False, 1, 10, "!")
    assert v.message and "token recognition error" in v.message


def test_block_statements_are_not_split() -> None:
    sql = "BEGIN SELECT CASE WHEN a THEN 1 END FROM t; SELECT 2; END"
    assert [v.ok for v in check_sql(sql, "tsql")] == [True]
    assert len(check_sql("BEGIN; SELECT 1; COMMIT", "postgres")) == 3


@pytest.mark.parametrize(
    ("sql", "dialect", "oks"),
    [
        ("SELECT 1 /* a /* b; */ c; */; SELECT 2", "postgres", [True, True]),  # comments nest
        ("SELECT 1--1; SELECT 2", "mysql", [True, True]),  # '--' + a digit is no comment: 1 - -1
        ("SELECT 1 -- c;\nSELECT 2", "mysql", [False]),  # '-- ' is one: its ';' ends nothing
        ("SELECT 1 --\n; SELECT 2 --", "mysql", [True, True]),
    ],
)
def test_comments_split_as_the_engines_lex_them(sql: str, dialect: str, oks: list[bool]) -> None:
    assert [v.ok for v in check_sql(sql, dialect)] == oks


@pytest.mark.parametrize(
    ("sql", "oks"),
    [
        # declarations before BEGIN, END IF / END LOOP / END CASE: still one statement
        (
            "CREATE OR REPLACE FUNCTION f RETURN INT IS x INT; y INT; BEGIN IF x > 0 THEN y := 1; "
            "END IF; LOOP EXIT; END LOOP; CASE WHEN y = 1 THEN NULL; END CASE; RETURN y; END;\n"
            "SELECT f FROM dual",
            [True, True],
        ),
        ("CREATE PROCEDURE p IS x INT; BEGIN NULL; END p;\n/\nSELECT 1 FROM dual;", [True, True]),
        (
            "CREATE OR REPLACE TRIGGER t AFTER INSERT ON a FOR EACH ROW DECLARE v INT; BEGIN v "
            ":= 1; "
            "END;\nINSERT INTO a VALUES (1)",
            [True, True],
        ),
        ("DECLARE PROCEDURE q IS BEGIN NULL; END; BEGIN q; END; SELECT 1 FROM dual", [True, True]),
        ("SELECT CASE WHEN a THEN 1 END FROM t; SELECT 2 FROM dual", [True, True]),
    ],
)
def test_plsql_units_are_one_statement(sql: str, oks: list[bool]) -> None:
    assert [v.ok for v in check_sql(sql, "oracle")] == oks


def test_trino_routine_blocks_are_one_statement() -> None:
    sql = (
        "WITH FUNCTION f() RETURNS INT BEGIN DECLARE i INT DEFAULT 0; WHILE i < 3 DO "
        "IF i = 1 THEN SET i = 5; END IF; END WHILE; RETURN i; END SELECT f(); SELECT 1"
    )
    assert [v.ok for v in check_sql(sql, "trino")] == [True, True]


@pytest.mark.parametrize(
    ("dialect", "sql"),
    [
        ("postgres", "INSERT INTO genre (genre_id, name) VALUES (1, N'Rock'), (2, N'Jazz')"),
        ("postgres", "INSERT INTO t (a, b, c) VALUES (1, 'x', 2.5), (2, NULL, '2009-01-01')"),
        ("mysql", "INSERT INTO t (a, b, c) VALUES (1, 'x', 2.5), (2, NULL, '2009-01-01')"),
    ],
)
def test_database_script_inserts_need_no_full_ll_fallback(dialect: str, sql: str) -> None:
    """SLL prediction alone decides these statements: a statement it cannot decide is parsed
    again with full LL, which ANTLR does not cache (PostgreSQL's N'…' did that: Chinook's
    15,000 INSERTs took 780 s against MySQL's 23 s)."""
    from antlr4 import CommonTokenStream
    from antlr4.atn.PredictionMode import PredictionMode
    from antlr4.error.ErrorStrategy import BailErrorStrategy
    from antlr4.ListTokenSource import ListTokenSource

    from parrot.check.parsers import checker

    chk = checker(dialect)
    (stmt,) = chk.split(sql)
    parser = chk._parser
    parser._errHandler = BailErrorStrategy()
    parser.setTokenStream(CommonTokenStream(ListTokenSource(stmt.tokens)))
    parser._interp.predictionMode = PredictionMode.SLL
    parser.statementList()  # raises ParseCancellationException where SLL fails


def test_check_many_in_order_with_workers() -> None:
    sqls = ["SELECT 1", "SELECT FROM WHERE", "SELECT a FROM t", "SELECT (1"]
    expected = [[True], [False], [True], [False]]
    assert [[v.ok for v in vs] for vs in check_many(sqls, "duckdb")] == expected
    parallel = check_many(sqls, "duckdb", workers=2, chunk=2)
    assert [[v.ok for v in vs] for vs in parallel] == expected
