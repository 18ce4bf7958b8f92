"""MySQL adapter (MariaDB serving the dialect): lexicon, splitter, guard, values, sandbox."""

from __future__ import annotations

import threading
import time
from decimal import Decimal
from pathlib import Path

import pymysql
import pytest
from engine_fixtures import ALLTYPES, SHOP, col, make_fixture, run
from patience import within

from parrot.connect import default_url
from parrot.engines import Engine, ExecStatus, FixtureLoadError
from parrot.engines import statements as st
from parrot.engines.mysql import (
    GUARD,
    MySQLEngine,
    _Target,
    _time,
    create_table_sql,
    database_name,
    qualify,
)
from parrot.fixtures import Fixture
from parrot.values import Nested, Temporal

# --- lexicon and splitting (no server) ------------------------------------------------------------


def test_mysql_lexicon() -> None:
    m = st.MYSQL
    # /*! ... */ is code MySQL runs, so the guard must see it
    words = [t.name for t in st.tokenize("SELECT 1 /*!50000 INTO OUTFILE 'x' */", m)]
    assert "outfile" in words
    assert [t.name for t in st.tokenize("SELECT /*M!100100 2, */ 1", m)] == ["select", "2", "", "1"]
    assert [t.name for t in st.tokenize("SELECT /* plain */ 1", m)] == ["select", "1"]


# --- the guard (no server) ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("sql", "writes"),
    [
        ("SELECT * FROM t", False),
        ("WITH x AS (SELECT 1) SELECT * FROM x", False),
        ("SHOW TABLES", False),
        ("DESCRIBE t", False),
        ("EXPLAIN SELECT 1", False),
        ("SET @x = 1", False),
        ("SET SESSION sql_mode = 'ANSI_QUOTES'", False),
        ("DO sleep(1)", False),
        ("SELECT REPLACE(name, 'a', 'b'), INSERT('abc', 1, 1, 'x') FROM t", False),
        ("VALUES (1, 2)", False),
        ("SHOW CREATE TABLE t", False),
        ("START TRANSACTION", False),
        ("COMMIT", False),
        ("SELECT @names", False),
        ("INSERT INTO t VALUES (1)", True),
        ("CREATE VIEW v AS SELECT 1", True),
        ("DROP TABLE t", True),
        ("CALL p()", True),
        ("SELECT * FROM t FOR UPDATE", True),
        ("SET STATEMENT sql_mode = '' FOR DELETE FROM t", True),
        ("LOCK TABLES t WRITE", True),
        ("UPDATE t SET password = 'x', names = 1", True),
        ("ANALYZE TABLE t", True),
        ("REPLACE INTO t VALUES (1)", True),
    ],
)
def test_guard_plans(sql: str, writes: bool) -> None:
    plan = GUARD.check(sql)
    assert isinstance(plan, st.Plan) and plan.writes is writes, plan


REFUSED_SQL = [
    "USE mysql",
    "LOAD DATA INFILE '/etc/passwd' INTO TABLE customers",
    "LOAD XML INFILE '/etc/passwd' INTO TABLE customers",
    "SELECT 1 INTO OUTFILE '/tmp/parrot-never'",
    "SELECT 1 INTO DUMPFILE '/tmp/parrot-never'",
    "SELECT 1 /*!50000 INTO OUTFILE '/tmp/parrot-never' */",
    "SELECT LOAD_FILE('/etc/passwd')",
    "SHUTDOWN",
    "KILL QUERY 1",
    "KILL 1",
    "GRANT ALL ON *.* TO parrot_ro",
    "REVOKE ALL ON *.* FROM x",
    "CREATE USER x",
    "DROP USER x",
    "RENAME USER a TO b",
    "CREATE ROLE r",
    "SET GLOBAL max_connections = 1",
    "SET @@global.max_connections = 1",
    "SET @x = 1, GLOBAL max_connections = 1",
    "SET PERSIST max_connections = 1",
    "INSTALL PLUGIN x SONAME 'x.so'",
    "UNINSTALL PLUGIN x",
    "FLUSH PRIVILEGES",
    "FLUSH TABLES WITH READ LOCK",
    "CREATE DATABASE x",
    "CREATE SCHEMA x",
    "DROP DATABASE x",
    "CREATE OR REPLACE DATABASE x",
    "ALTER DATABASE x CHARACTER SET latin1",
    "HANDLER customers OPEN",
    "SET SESSION max_statement_time = 0",
    "SET max_statement_time = 0",
    "SET STATEMENT max_statement_time = 0 FOR SELECT sleep(5)",
    "SET @@session.max_statement_time = 0",
    "SET NAMES latin1",
    "SET CHARACTER SET latin1",
    "SET character_set_results = latin1",
    "SET time_zone = '+02:00'",
    "SET PASSWORD = 'x'",
    "SET ROLE r",
    "SET SESSION TRANSACTION READ WRITE",
    "PREPARE s FROM 'SELECT 1'",
    "EXECUTE s",
    "EXECUTE IMMEDIATE 'SELECT 1'",
    "DEALLOCATE PREPARE s",
    "XA START 'x'",
    "SELECT * FROM parrot_x.t",
    "SELECT * FROM `parrot_fx_0123`.t",
    "SELECT 1; DROP DATABASE parrot_x",
    "SELECT 'parrot_fx_0123'",
    "CREATE EVENT e ON SCHEDULE EVERY 1 SECOND DO SELECT 1",
    "CREATE TABLE x (a INT) DATA DIRECTORY = '/tmp'",
    "CREATE SERVER s FOREIGN DATA WRAPPER m",
    "CREATE FUNCTION f RETURNS STRING SONAME 'x.so'",
    "RESET MASTER",
    "PURGE BINARY LOGS",
    "CHANGE MASTER TO MASTER_HOST = 'x'",
    "START SLAVE",
    "STOP SLAVE",
    "BACKUP STAGE START",
    "BINLOG 'x'",
    "CACHE INDEX t IN c",
    "CREATE PROCEDURE p() BEGIN KILL 1; END",
    "CREATE PROCEDURE p() BEGIN SET GLOBAL max_connections = 1; END",
    "CREATE PROCEDURE p() BEGIN SET max_statement_time = 0; SELECT sleep(9); END",
    "CREATE PROCEDURE p() BEGIN PREPARE s FROM @q; EXECUTE s; END",
    "CREATE PROCEDURE p() lbl: BEGIN USE mysql; END",
    "DELIMITER //\nCREATE PROCEDURE p() BEGIN FLUSH LOGS; END //",
]


@pytest.mark.parametrize("sql", REFUSED_SQL)
def test_guard_refuses(sql: str) -> None:
    refused = [p for p in map(GUARD.check, st.splitter("mysql").split(sql)) if isinstance(p, str)]
    assert refused, sql


def test_guard_allows_lookalikes() -> None:
    for sql in [
        "SELECT name AS kill_count FROM t",
        "SELECT x FROM t USE INDEX (i)",
        "SELECT 'kill', 'use' FROM t",
        "SELECT @@time_zone_x",
        "DECLARE CONTINUE HANDLER FOR NOT FOUND SET done = 1",
        "SELECT * FROM t WHERE `global` = 1",
    ]:
        assert isinstance(GUARD.check(sql), st.Plan), sql


# --- values and types (no server) -----------------------------------------------------------------


def test_time_values() -> None:
    assert _time("10:00:01.500000") == Temporal("time", "10:00:01.5")
    assert _time("00:00:00") == Temporal("time", "00:00:00")
    assert _time("100:00:00") == Nested('{"interval_seconds": 360000.0}')
    assert _time("-01:00:00") == Nested('{"interval_seconds": -3600.0}')


def test_create_table_sql() -> None:
    # a literal fixture table, kept as written
    # fmt: off
    fixture = make_fixture("keys", [{
        "name": "Mixed", "primary_key": ["k", "n"], "rows": [],
        "columns": [col("k", "text", False), col("n", "integer", False), col("d", "decimal(38,10)"),
                    col("b", "boolean"), col("t", "timestamp"), col("s", "text")],
    }])
    # fmt: on
    sql = create_table_sql("db", fixture.tables[0])
    assert sql == (
        "CREATE TABLE `db`.`Mixed` (`k` VARCHAR(766) NOT NULL, `n` INT NOT NULL, "
        "`d` DECIMAL(38,10), `b` BOOLEAN, `t` DATETIME(6), `s` TEXT, "
        "PRIMARY KEY (`k`, `n`)) ENGINE = InnoDB"
    )


def test_url_parsing() -> None:
    t = _Target.parse("mysql://u%40x:p%3Aw@db.example:3307/any?ssl=required")
    assert (t.host, t.port, t.user, t.password, t.ssl) == (
        "db.example",
        3307,
        "u@x",
        "p:w",
        "required",
    )
    local = _Target.parse("mariadb://root@127.0.0.1:3306/")
    assert local.ssl == "disabled" and local.password == ""
    assert _Target.parse("mysql://h/?unix_socket=/run/s.sock").unix_socket == "/run/s.sock"
    with pytest.raises(ValueError):
        _Target.parse("postgres://h/")


# --- against the server ---------------------------------------------------------------------------

MYSQL = pytest.mark.parametrize("engine_name", ["mysql"], indirect=True)


def assert_intact(engine: Engine) -> None:
    assert engine.checksums(SHOP) == SHOP.checksums
    assert run(engine, "SELECT count(*) FROM customers") == ((4,),)


@MYSQL
def test_label_and_users(engine: MySQLEngine) -> None:
    assert engine.label.startswith("mysql (MariaDB 10.") and engine.mariadb
    assert engine.sandboxed
    assert run(engine, "SELECT CURRENT_USER()")[0][0] == "parrot_ro@%"
    assert run(engine, "CREATE VIEW v AS SELECT 1; SELECT CURRENT_USER()")[0][0] == "parrot_rw@%"


@MYSQL
def test_mysql_values(engine: Engine, shop: Fixture) -> None:
    ex = engine.execute(
        """
        SELECT 7 / 2 AS d, 1 = 1 AS cmp, TIME '10:00:01.5' AS t, TIME '-01:00:00' AS nt,
               b'101' AS bits_literal, CAST(b'101' AS UNSIGNED) AS u, X'00ff' AS x,
               JSON_OBJECT('a', 1) AS j, 18446744073709551615 AS u64, 0.1e0 AS f,
               DATE '2024-01-05' AS dt, TIMESTAMP '2024-01-05 10:00:00.5' AS ts,
               CAST('2024-01-05 10:00:00' AS DATETIME) AS ts0, NULL AS n,
               CONVERT_TZ('2024-01-05 10:00:00', '+00:00', '+00:00') AS tz,
               'ünï 🦜' AS s, CAST(1.5 AS DECIMAL(10, 3)) AS d3""",
        shop,
    )
    assert ex.ok and ex.result is not None, ex.error
    row = ex.result.rows[0]
    assert row[0] == Decimal("3.5000") and str(row[0]) == "3.5000"
    assert row[1] == 1 and type(row[1]) is int
    assert row[2] == Temporal("time", "10:00:01.5")
    assert row[3] == Nested('{"interval_seconds": -3600.0}')
    assert row[4] == b"\x05" and row[5] == 5
    assert row[6] == b"\x00\xff"
    assert row[7] == '{"a": 1}'
    assert row[8] == 18446744073709551615
    assert row[9] == 0.1 and type(row[9]) is float
    assert row[10] == Temporal("date", "2024-01-05")
    assert row[11] == Temporal("timestamp", "2024-01-05 10:00:00.5")
    assert row[12] == Temporal("timestamp", "2024-01-05 10:00:00")
    assert row[13] is None
    assert row[15] == "ünï 🦜"
    assert str(row[16]) == "1.500"
    types = ex.result.types
    assert types[0] == "DECIMAL" and types[6] == "VARBINARY" and types[10] == "DATE"


@MYSQL
def test_mysql_column_values(engine: Engine, shop: Fixture) -> None:
    rows = run(
        engine,
        """
        CREATE TABLE z (b BIT(3), y YEAR, e ENUM('a', 'b'), st SET('x', 'y'), bl BLOB,
                        tx TEXT, ts TIMESTAMP(6), j JSON, fl FLOAT);
        INSERT INTO z VALUES (b'101', 2024, 'b', 'x,y', X'0001', 'text',
                              '2024-01-05 10:00:00.000001', '[1, 2]', 0.5);
        SELECT * FROM z""",
    )
    assert rows == (
        (
            5,
            2024,
            "b",
            "x,y",
            b"\x00\x01",
            "text",
            Temporal("timestamp", "2024-01-05 10:00:00.000001"),
            "[1, 2]",
            0.5,
        ),
    )


@MYSQL
def test_alltypes_values(engine: Engine) -> None:
    ex = engine.execute(
        "SELECT id, i, big, f, `dec`, wide, s, b, d, ts FROM t ORDER BY id", ALLTYPES
    )
    assert ex.ok and ex.result is not None, ex.error
    rows = ex.result.rows
    assert rows[0][7] == 1 and rows[1][7] == 0  # BOOLEAN is TINYINT(1)
    assert rows[3][4] == Decimal("-0.50") and str(rows[3][4]) == "-0.50"
    assert rows[1][9] == Temporal("timestamp", "1900-01-01 00:00:00.000001")
    assert rows[3][6] == "trailing  "
    assert rows[2][5] == Decimal("0.0000000001")


@MYSQL
def test_collation_is_the_server_default(engine: Engine, shop: Fixture) -> None:
    # utf8mb4_general_ci: case- and accent-insensitive, trailing spaces ignored
    assert run(engine, "SELECT 'a' = 'A', 'é' = 'e', 'a ' = 'a'") == ((1, 1, 1),)
    assert run(engine, "SELECT count(*) FROM customers WHERE name = 'ADA'") == ((2,),)
    assert run(engine, "SELECT @@collation_connection, @@time_zone") == (
        ("utf8mb4_general_ci", "+00:00"),
    )


@MYSQL
def test_sql_mode_is_the_server_default(engine: Engine, shop: Fixture) -> None:
    mode = run(engine, "SELECT @@SESSION.sql_mode")[0][0]
    assert mode == run(engine, "SELECT @@GLOBAL.sql_mode")[0][0]
    assert "STRICT_TRANS_TABLES" in mode


MYSQL_HOSTILE = [
    "SELECT * FROM customers INTO OUTFILE '{tmp}/leak.tsv'",
    "SELECT LOAD_FILE('/etc/passwd')",
    "LOAD DATA LOCAL INFILE '/etc/passwd' INTO TABLE customers",
    "USE mysql; DROP TABLE customers",
    "DROP DATABASE {fixture_db}",
    "DROP TABLE {fixture_db}.customers",
    "RENAME TABLE customers TO gone",
    "CREATE TRIGGER t BEFORE INSERT ON orders FOR EACH ROW DELETE FROM customers; "
    "INSERT INTO orders (id) VALUES (1)",
    "CREATE PROCEDURE p() BEGIN DELETE FROM customers; END; CALL p()",
    "/*!50000 DELETE FROM customers */",
    "SELECT 1; /*! DROP TABLE customers */",
    "PREPARE s FROM 'DELETE FROM customers'; EXECUTE s",
    "LOCK TABLES customers WRITE; DELETE FROM customers; UNLOCK TABLES",
    "START TRANSACTION; DELETE FROM customers; COMMIT",
    "SET autocommit = 0; DELETE FROM customers; COMMIT",
    "SELECT * FROM customers FOR UPDATE; DELETE FROM customers",
    "CREATE TABLE t2 (a INT) DATA DIRECTORY = '{tmp}'",
    "CREATE DEFINER = root@localhost VIEW v AS SELECT * FROM mysql.user",
    "CREATE DEFINER = root@localhost PROCEDURE p() DELETE FROM customers; CALL p()",
    "SET @@global.event_scheduler = ON",
    "FLUSH TABLES WITH READ LOCK",
    "GRANT ALL ON *.* TO parrot_rw",
    "ALTER TABLE customers ENGINE = MEMORY",
    "CREATE SEQUENCE s; SELECT NEXTVAL(s)",
    "SELECT * FROM information_schema.USER_PRIVILEGES",
    "KILL CONNECTION_ID()",
    # the fixture's own database name reaches the fixture read-only, a scratch copy for writes
    "DROP TABLE shop.customers",
    "DELETE FROM shop.customers",
    "UPDATE `shop`.customers SET name = 'x'; SELECT * FROM shop.customers",
    "CREATE VIEW shop.v AS SELECT 1; DROP TABLE shop.customers",
    "SELECT * FROM shop.customers INTO OUTFILE '{tmp}/leak.tsv'",
    "SELECT * FROM shop.customers FOR UPDATE; DELETE FROM shop.customers",
]


@MYSQL
@pytest.mark.parametrize("sql", MYSQL_HOSTILE)
def test_mysql_hostile_sql(engine: MySQLEngine, shop: Fixture, sql: str, tmp_path: Path) -> None:
    text = sql.format(tmp=tmp_path, fixture_db=engine.stored(shop).database)
    ex = engine.execute(text, shop, timeout=5)
    assert ex.status is not ExecStatus.ENGINE_ERROR, ex.error
    assert ex.error is None or "parrot_fx_" not in ex.error  # sandbox names are hidden
    assert_intact(engine)
    assert list(tmp_path.iterdir()) == []


@MYSQL
@pytest.mark.parametrize(
    "sql",
    [
        "USE mysql",
        "SELECT LOAD_FILE('/etc/passwd')",
        "SELECT 1 INTO OUTFILE '/tmp/parrot-never'",
        "SET GLOBAL max_connections = 1",
        "SHUTDOWN",
        "SET SESSION max_statement_time = 0",
    ],
)
def test_mysql_refused(engine: Engine, shop: Fixture, sql: str) -> None:
    ex = engine.execute(sql, shop)
    assert ex.status is ExecStatus.UNSUPPORTED, (ex.status, ex.error)
    assert ex.error


@MYSQL
@pytest.mark.parametrize(
    "sql", ["SELECT * FROM mysql.user", "CREATE VIEW v AS SELECT 1; SELECT * FROM mysql.user"]
)
def test_mysql_access_denied_is_a_runtime_error(engine: Engine, shop: Fixture, sql: str) -> None:
    ex = engine.execute(sql, shop)
    assert ex.status is ExecStatus.RUNTIME_ERROR, (ex.status, ex.error)
    assert ex.error and "denied" in ex.error


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("SELECT * FROM shop.orders", "SELECT * FROM `db`.orders"),
        ("SELECT shop.orders.id FROM `shop`.`orders`", "SELECT `db`.orders.id FROM `db`.`orders`"),
        ("SELECT s.shop.x FROM t", "SELECT s.shop.x FROM t"),  # a column of table s.shop
        ("SELECT shop.id FROM customers shop", "SELECT shop.id FROM customers shop"),  # an alias
        ("SELECT 'shop.orders' FROM shop.orders", "SELECT 'shop.orders' FROM `db`.orders"),
        ("SELECT * FROM Shop.orders", "SELECT * FROM Shop.orders"),  # names are case-sensitive
        ("SELECT '\\\\' AS a, shop.x FROM shop.t", "SELECT '\\\\' AS a, `db`.x FROM `db`.t"),
        # the two backslash readings disagree on where the string ends: left alone
        ("SELECT '\\', shop.x FROM shop.t -- '", "SELECT '\\', shop.x FROM shop.t -- '"),
    ],
)
def test_qualify(text: str, expected: str) -> None:
    assert qualify(text, "shop", "db") == expected


QUALIFIED = [  # (SQL with database-qualified names, the same without)
    ("SELECT count(*) FROM shop.customers", "SELECT count(*) FROM customers"),
    (
        "SELECT c.name FROM `shop`.`customers` c JOIN shop.orders o ON o.customer_id = c.id "
        "ORDER BY o.id",
        "SELECT c.name FROM customers c JOIN orders o ON o.customer_id = c.id ORDER BY o.id",
    ),
    (
        "SELECT shop.customers.id FROM shop.customers ORDER BY 1",
        "SELECT id FROM customers ORDER BY 1",
    ),
    (
        "CREATE VIEW shop.v AS SELECT id FROM shop.customers; SELECT count(*) FROM shop.v",
        "SELECT count(*) FROM customers",
    ),
    (
        "UPDATE shop.customers SET city = 'x'; SELECT count(*) FROM shop.customers "
        "WHERE city = 'x'",
        "SELECT count(*) FROM customers",
    ),
]


@MYSQL
@pytest.mark.parametrize(("sql", "plain"), QUALIFIED)
def test_database_qualified_names_run(
    engine: MySQLEngine, shop: Fixture, sql: str, plain: str
) -> None:
    assert database_name(shop) == "shop"
    assert run(engine, sql) == run(engine, plain)
    assert_intact(engine)


@pytest.mark.parametrize(
    ("code", "status"),
    [
        (1142, ExecStatus.RUNTIME_ERROR),  # SELECT command denied to user for table
        (1044, ExecStatus.RUNTIME_ERROR),  # access denied to database
        (1370, ExecStatus.RUNTIME_ERROR),  # EXECUTE command denied for routine
        (1146, ExecStatus.RUNTIME_ERROR),  # table doesn't exist
        (1064, ExecStatus.SYNTAX_ERROR),
        (1969, ExecStatus.TIMEOUT),
        (2013, ExecStatus.ENGINE_ERROR),
    ],
)
def test_error_classification(code: int, status: ExecStatus) -> None:
    from parrot.engines.mysql import ERRORS

    exc = pymysql.err.OperationalError(code, "server message")
    assert ERRORS(exc, cancelled=False) is status


@MYSQL
def test_user_variables_and_temporary_tables_vanish(engine: Engine, shop: Fixture) -> None:
    assert run(engine, "SET @leak = 5; SELECT @leak") == ((5,),)
    assert run(engine, "SELECT @leak") == ((None,),)
    assert run(
        engine,
        "CREATE TEMPORARY TABLE tt (a INT); INSERT INTO tt VALUES (1); SELECT count(*) FROM tt",
    ) == ((1,),)
    assert engine.execute("SELECT * FROM tt", shop).status is ExecStatus.RUNTIME_ERROR


@MYSQL
def test_procedures_return_their_last_result(engine: Engine, shop: Fixture) -> None:
    script = (
        "DELIMITER $$\nCREATE PROCEDURE two() BEGIN SELECT 1 AS one; "
        "SELECT name FROM customers WHERE id = 3; END$$\nDELIMITER ;\nCALL two();"
    )
    assert run(engine, script) == (("Linus",),)
    assert engine.execute("CALL two()", shop).status is ExecStatus.RUNTIME_ERROR


@MYSQL
def test_scratch_databases_are_dropped(engine: MySQLEngine, shop: Fixture) -> None:
    def scratch() -> list:
        return engine._admin_rows(
            "SELECT SCHEMA_NAME FROM information_schema.SCHEMATA "
            "WHERE SCHEMA_NAME LIKE 'parrot\\_sx\\_%'"
        )

    before = scratch()
    assert run(engine, "CREATE VIEW v AS SELECT 1 AS x; SELECT x FROM v") == ((1,),)
    ex = engine.execute("CREATE VIEW v AS SELECT 1; SELECT sleep(3)", shop, timeout=0.3)
    assert ex.status is ExecStatus.TIMEOUT
    assert scratch() == before


@MYSQL
def test_timeout_inside_a_procedure(engine: Engine, shop: Fixture) -> None:
    started = time.monotonic()
    ex = engine.execute(
        "CREATE PROCEDURE p() BEGIN DECLARE i INT DEFAULT 0; "
        "WHILE 1 DO SET i = i + 1; END WHILE; END; CALL p()",
        shop,
        timeout=0.5,
    )
    assert ex.status is ExecStatus.TIMEOUT, (ex.status, ex.error)
    assert within(started, 0.5 + 1)  # the loop never ends by itself


@MYSQL
def test_result_cap_stops_streaming(engine: Engine, shop: Fixture) -> None:
    ex = engine.execute(
        "SELECT a.seq FROM seq_1_to_1000000 a, seq_1_to_1000000 b", shop, max_rows=10, timeout=20
    )
    assert ex.status is ExecStatus.TOO_LARGE  # not TIMEOUT: streaming stopped at the cap
    assert run(engine, "SELECT 1") == ((1,),)


@MYSQL
def test_fixture_database_shared_and_verified(engine: MySQLEngine) -> None:
    other = MySQLEngine(default_url("mysql"))
    try:
        report = other.load(SHOP)  # found on the server: verified, not reloaded
        assert report.verified and not report.cached
        assert other.stored(SHOP).database == engine.stored(SHOP).database
    finally:
        other.close()
    assert run(engine, "SELECT count(*) FROM orders") == ((4,),)


@MYSQL
def test_changed_fixture_database_is_dropped_and_reloaded(engine: MySQLEngine) -> None:
    fixture = make_fixture(
        "mutable", [{"name": "m", "columns": [col("a", "integer")], "rows": [[1], [2]]}]
    )
    damaged = MySQLEngine(default_url("mysql"))
    damaged.load(fixture)
    db = damaged.stored(fixture).database
    damaged._admin_sql(f"UPDATE `{db}`.m SET a = 3 WHERE a = 2")
    assert damaged.checksums(fixture) != fixture.checksums
    damaged.close()  # notices the change and drops the database
    assert not engine._admin_rows(
        "SELECT 1 FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = %s", (db,)
    )
    fresh = MySQLEngine(default_url("mysql"))
    try:
        assert fresh.load(fixture).verified
        assert run(fresh, "SELECT sum(a) FROM m", fixture) == ((Decimal(3),),)
    finally:
        fresh.close()


@MYSQL
def test_vanished_fixture_database_is_reloaded(fresh_engine: MySQLEngine) -> None:
    fixture = make_fixture(
        "vanishing", [{"name": "v", "columns": [col("a", "integer")], "rows": [[7]]}]
    )
    fresh_engine.load(fixture)
    fresh_engine._admin_sql(f"DROP DATABASE `{fresh_engine.stored(fixture).database}`")
    assert run(fresh_engine, "SELECT a FROM v", fixture) == ((7,),)
    assert run(fresh_engine, "CREATE VIEW w AS SELECT a FROM v; SELECT a FROM w", fixture) == (
        (7,),
    )


@MYSQL
@pytest.mark.parametrize(
    ("ptype", "value"),
    [
        ("integer", 2**40),
        ("double", "nan"),
        ("double", "-inf"),
        ("text", "x" * 70_000),
    ],
)
def test_unstorable_values_are_load_errors(fresh_engine: Engine, ptype: str, value: object) -> None:
    fixture = make_fixture(
        f"bad_{ptype}", [{"name": "x", "columns": [col("v", ptype)], "rows": [[value]]}]
    )
    with pytest.raises(FixtureLoadError):
        fresh_engine.load(fixture)
    with pytest.raises(FixtureLoadError):  # a failed load is not cached
        fresh_engine.load(fixture)


@MYSQL
def test_case_sensitive_table_names(fresh_engine: Engine) -> None:
    fixture = make_fixture(
        "cased", [{"name": "Items", "columns": [col("Qty", "integer")], "rows": [[1]]}]
    )
    assert fresh_engine.load(fixture).verified
    assert run(fresh_engine, "SELECT qty FROM Items", fixture) == ((1,),)  # columns fold
    ex = fresh_engine.execute("SELECT qty FROM items", fixture)  # table names do not
    assert ex.status is ExecStatus.RUNTIME_ERROR


@MYSQL
def test_without_user_privileges_falls_back_to_the_url_user(
    engine: MySQLEngine, shop: Fixture
) -> None:
    engine._admin_sql(
        "CREATE USER IF NOT EXISTS 'parrot_test_limited'@'%%' IDENTIFIED BY %s", ("pw-Limited-1",)
    )
    engine._admin_sql("GRANT ALL PRIVILEGES ON `parrot\\_%`.* TO 'parrot_test_limited'@'%'")
    target = engine._target
    url = f"mysql://parrot_test_limited:pw-Limited-1@{target.host}:{target.port}/" + (
        f"?unix_socket={target.unix_socket}" if target.unix_socket else ""
    )
    limited = MySQLEngine(url)
    try:
        assert not limited.sandboxed
        assert run(limited, "SELECT CURRENT_USER()")[0][0] == "parrot_test_limited@%"
        assert run(limited, "SELECT count(*) FROM customers") == ((4,),)
        assert run(
            limited, "INSERT INTO customers (id) VALUES (9); SELECT count(*) FROM customers"
        ) == ((5,),)
        assert_intact(limited)
    finally:
        limited.close()
        engine._admin_sql("DROP USER IF EXISTS 'parrot_test_limited'@'%'")


@MYSQL
def test_lost_connection_is_an_engine_error(engine: MySQLEngine, shop: Fixture) -> None:
    def killer() -> None:
        conn = engine._target.connect()
        try:
            with conn.cursor() as cur:
                for _ in range(100):
                    cur.execute(
                        "SELECT ID FROM information_schema.PROCESSLIST "
                        "WHERE INFO LIKE 'SELECT sleep(4)%%'"
                    )
                    found = cur.fetchall()
                    if found:
                        cur.execute(f"KILL CONNECTION {int(found[0][0])}")
                        return
                    time.sleep(0.02)
        finally:
            conn.close()

    thread = threading.Thread(target=killer)
    thread.start()
    ex = engine.execute("SELECT sleep(4)", shop, timeout=10)
    thread.join()
    assert ex.status is ExecStatus.ENGINE_ERROR, (ex.status, ex.error)
    assert run(engine, "SELECT count(*) FROM customers") == ((4,),)  # the next call works


@MYSQL
def test_watchdog_kill_query(engine: MySQLEngine, shop: Fixture) -> None:
    creds = engine._reader
    conn = engine._target.connect(creds.user, creds.password, engine.stored(shop).database)
    outcome: list[object] = []

    def slow() -> None:
        try:
            with conn.cursor() as cur:
                cur.execute("SELECT sleep(3)")
                outcome.append(cur.fetchall())
        except pymysql.Error as exc:
            outcome.append(exc.args[0])

    thread = threading.Thread(target=slow)
    thread.start()
    time.sleep(0.3)
    engine._kill(creds, conn.thread_id(), query=True)  # as the same restricted user
    thread.join()
    conn.close()
    assert outcome in ([((1,),)], [1317])  # sleep() returns 1 when interrupted, or 1317


@MYSQL
def test_scratch_copies_what_the_script_names(engine: Engine, shop: Fixture) -> None:
    assert run(
        engine,
        "CREATE VIEW v AS SELECT * FROM `orders`; "
        "SELECT (SELECT count(*) FROM v), (SELECT count(*) FROM items)",
    ) == ((4, 3),)  # quoted names count as mentions
    rows = run(
        engine,
        "CREATE TEMPORARY TABLE x (a INT); SELECT TABLE_NAME FROM "
        "information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() "
        "ORDER BY TABLE_NAME",
    )
    assert rows == (("customers",), ("items",), ("orders",))  # every table exists
