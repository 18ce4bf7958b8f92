"""The query-aware test-data generator."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from fixture_json import fixture_json, table_json
from sqlglot import exp

from parrot.connect import create_engine
from parrot.fixtures import fixture_from_json
from parrot.testsuite.datagen import SchemaError, infer_schema, parse_query, query_test_data


def _schema(sql: str, dialect: str = "sqlite") -> dict[str, dict[str, str]]:
    schema = infer_schema(parse_query(sql, dialect))
    return {t: {c.name: c.type for c in cols.values()} for t, cols in schema.tables.items()}


@pytest.mark.parametrize(
    ("sql", "expected"),
    [
        ("SELECT name FROM singer WHERE age > 30", {"singer": {"name": "text", "age": "integer"}}),
        (
            "SELECT T1.a FROM x AS T1 JOIN y AS T2 ON T1.id = T2.xid WHERE T2.d = '2020-01-31'",
            {"x": {"a": "integer", "id": "integer"}, "y": {"xid": "integer", "d": "date"}},
        ),
        ("SELECT count(*) FROM t", {"t": {"id": "integer"}}),
        (
            "SELECT upper(s), v / 2.5 FROM t WHERE flag AND p LIKE 'ab%'",
            {"t": {"s": "text", "v": "integer", "flag": "boolean", "p": "text"}},
        ),
        ("SELECT a AS total FROM t ORDER BY total", {"t": {"a": "integer"}}),
        ("WITH c AS (SELECT k FROM base) SELECT k FROM c", {"base": {"k": "integer"}}),
        ("SELECT 1 + 1", {}),
    ],
)
def test_infer_schema(sql: str, expected: dict[str, dict[str, str]]) -> None:
    assert _schema(sql) == expected


@pytest.mark.parametrize(
    ("sql", "problem"),
    [
        ("SELECT a FROM db.t", "qualified table name"),
        ("SELECT 1; SELECT 2", "not a single query"),
        ("INSERT INTO t VALUES (1)", "not a single query"),
        ("SELECT random() FROM t", "volatile"),
    ],
)
def test_unusable_queries(sql: str, problem: str) -> None:
    with pytest.raises(SchemaError, match=problem):
        query_test_data(sql, "sqlite", rounds=1, seed="0", name="g")


def test_a_comment_after_the_last_semicolon_is_no_statement() -> None:
    # TPC-H FROID's queries end in ";\n--limit -1;": sqlglot parses the comment as an empty
    # Semicolon statement, and the 20 TPC-H sources of parrot-main got no suite
    tree = parse_query("select a from t;\n--limit -1;", "postgres")
    assert isinstance(tree, exp.Select)
    with pytest.raises(SchemaError, match="not a single query"):
        parse_query("select a from t; -- one\nselect b from t;", "postgres")


def test_generation_is_deterministic_and_adversarial() -> None:
    sql = "SELECT name, count(*) FROM t WHERE city = 'Paris' AND n >= 3 GROUP BY name"
    a = query_test_data(sql, "sqlite", rounds=5, seed="7", name="g")
    assert a == query_test_data(sql, "sqlite", rounds=5, seed="7", name="g")
    assert a != query_test_data(sql, "sqlite", rounds=5, seed="8", name="g")
    cells = [v for fx in a[1:] for row in fx["tables"][0]["rows"] for v in row]
    assert None in cells and "" in cells  # NULLs and empty strings after round 0
    rows = [tuple(r) for fx in a[1:] for r in fx["tables"][0]["rows"]]
    assert len(rows) > len(set(rows))  # duplicated rows
    for fx in a:
        fixture_from_json(fx)  # every round is a valid fixture


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT name FROM t WHERE city = 'Paris' AND n >= 3",
        "SELECT a.x FROM a JOIN b ON a.id = b.aid WHERE b.tag IN ('red', 'blue')",
        "SELECT d FROM t WHERE d BETWEEN '2020-01-01' AND '2020-01-31'",
        "SELECT s FROM t WHERE s LIKE '%oo%'",
    ],
)
def test_round_zero_makes_filters_select_rows(sql: str) -> None:
    fixture = fixture_from_json(query_test_data(sql, "sqlite", rounds=1, seed="0", name="g")[0])
    with create_engine("sqlite") as engine:
        engine.load(fixture)
        result = engine.execute(sql, fixture)
    assert result.ok and result.result is not None and result.result.rows


_BASE = fixture_json(
    "shop",
    table_json(
        "orders",
        [[i, ["open", "paid", "shipped"][i % 3], 1_600_000_000 + i, f"n{i}"] for i in range(1, 10)],
        id="integer NOT NULL",
        status="text NOT NULL",
        created="integer NULL",
        note="text NULL",
    ),
)


@pytest.mark.parametrize("dialects", [(), ("mysql",)])
def test_constraints_and_domains(dialects: tuple[str, ...]) -> None:
    base = fixture_from_json(_BASE)
    sql = "SELECT status, count(*) FROM orders WHERE created > 5 AND note <> 'x' GROUP BY status"
    out = query_test_data(sql, "sqlite", rounds=6, seed="s", name="t", base=base, dialects=dialects)
    for data in out:
        table = fixture_from_json(data).table("orders")  # loads: the primary key holds
        ids = [r[0] for r in table.rows]
        assert len(ids) == len(set(ids)) and None not in ids
        assert all(r[1] in ("open", "paid", "shipped") for r in table.rows)
        assert all(r[2] is None or r[2] >= 0 for r in table.rows)
        if dialects:
            notes = [r[3] for r in table.rows if r[3] is not None]
            folded = {n.rstrip(" ").lower() for n in notes}
            assert len(folded) == len(set(notes))


def test_collation_fact() -> None:
    from parrot.testsuite.datagen import folds_text

    assert folds_text(("mysql",)) and not folds_text(("sqlite", "duckdb", "postgres"))


def test_real_text_keeps_its_format() -> None:
    base = fixture_from_json(
        {
            "name": "p",
            "tables": [
                {
                    "name": "people",
                    "columns": [{"name": "phone", "type": "text"}],
                    "rows": [[f"+1 555 01{i:02d}"] for i in range(12)],
                }
            ],
        }
    )
    real = {r[0] for r in base.table("people").rows}
    out = query_test_data(
        "SELECT phone FROM people WHERE phone <> '+1 555 0100'",
        "sqlite",
        rounds=5,
        seed="s",
        name="t",
        base=base,
    )
    for data in out:
        assert {r[0] for r in fixture_from_json(data).table("people").rows} <= real | {None}


def test_keyed_tables_get_twins_that_tie_on_every_other_column() -> None:
    """A keyed table's rows never repeat, so DISTINCT and tie-breakers need rows that differ only
    in their key: some adversarial round holds such twins, and they keep the key unique."""
    table: dict[str, Any] = dict(_BASE["tables"][0])  # type: ignore[arg-type]
    table["rows"] = [
        [i, ["open", "paid", "shipped"][i % 3], 1_600_000_000 + i % 2, f"n{i % 4}"]
        for i in range(1, 10)
    ]
    base = fixture_from_json({"name": "shop", "tables": [table]})
    out = query_test_data(
        "SELECT status, note FROM orders ORDER BY status",
        "sqlite",
        rounds=6,
        seed="s",
        name="t",
        base=base,
    )
    twins = 0
    for data in out[1:]:
        rows = fixture_from_json(data).table("orders").rows  # loads: the key holds
        assert len({r[0] for r in rows}) == len(rows)
        rest = [tuple(r[1:]) for r in rows]
        twins += len(rest) - len(set(rest))
    assert twins > 0


def test_date_literals_anywhere_feed_date_columns() -> None:
    """A calendar built from a literal (not compared with a column) still gets matching rows."""
    base = fixture_from_json(
        fixture_json(
            "b",
            table_json(
                "orders",
                [[i, "2023-12-01" if i < 5 else "2024-01-31"] for i in range(1, 10)],
                id="integer NOT NULL",
                order_date="date NOT NULL",
            ),
        )
    )
    sql = (
        "SELECT d.day, count(o.id) FROM (SELECT DATE '2023-12-29' + x AS day FROM range(5) "
        "AS r(x)) AS d LEFT JOIN orders AS o ON o.order_date = d.day GROUP BY d.day"
    )
    out = query_test_data(sql, "duckdb", rounds=2, seed="s", name="t", base=base)
    dates = {str(r[1]) for data in out for r in fixture_from_json(data).table("orders").rows}
    assert dates & {"2023-12-28", "2023-12-29", "2023-12-30"}


# birth dates 1971-01-01 .. 1979-09-19, none near the leap day 2024-02-29
_EMPLOYEES = fixture_from_json(
    fixture_json(
        "hr",
        table_json(
            "employees",
            [[i, f"19{70 + i}-0{1 + i % 9}-1{i}"] for i in range(1, 10)],
            id="integer NOT NULL",
            birth_date="date NOT NULL",
        ),
    )
)


def test_dates_stay_in_the_real_span_unless_the_query_names_them() -> None:
    """Regression: birth dates after every real one (the leap-day edge 2024-02-29) made ages
    negative, where SQLite's year arithmetic and DuckDB's date_sub disagree."""
    base = _EMPLOYEES
    for sql, allowed in [
        ("SELECT id, birth_date FROM employees", set()),
        (
            "SELECT id FROM employees WHERE birth_date < '2001-05-05'",
            {"2001-05-04", "2001-05-05", "2001-05-06"},
        ),
    ]:
        out = query_test_data(sql, "sqlite", rounds=6, seed="s", name="t", base=base)
        dates = {str(r[1]) for data in out for r in fixture_from_json(data).table("employees").rows}
        assert all("1971-01-01" <= d <= "1979-09-19" or d in allowed for d in dates), dates


def test_dates_named_elsewhere_stay_in_the_span() -> None:
    """Regression: DATE '2024-02-28' as date_sub's other argument put 2024-02-29 (its + 1 day)
    into birth_date, after every real birth date."""
    base = _EMPLOYEES
    sql = "SELECT id, date_sub('year', birth_date, DATE '2024-02-28') FROM employees"
    out = query_test_data(sql, "duckdb", rounds=6, seed="s", name="t", base=base)
    dates = {str(r[1]) for data in out for r in fixture_from_json(data).table("employees").rows}
    assert all("1971-01-01" <= d <= "1979-09-19" for d in dates), dates


def _shop(rows: int = 9) -> dict[str, Any]:
    """Products with an observed-unique name, a decimal price and stock (built by code)."""
    return fixture_json(
        "shop",
        table_json(
            "products",
            [[i, f"p{i}", f"{7 * i + 0.5:.2f}", 3 * i] for i in range(1, rows + 1)],
            id="integer NOT NULL",
            name="text NOT NULL",
            price="decimal(10,2) NOT NULL",
            stock="integer NULL",
        ),
    )


def _values(out: list[dict[str, Any]], column: int, table: str = "products") -> list[Any]:
    return [r[column] for data in out for r in fixture_from_json(data).table(table).rows]


@pytest.mark.parametrize(
    ("sql", "column", "wanted"),
    [
        # a decimal column compared with an integer literal: the literal and its neighbours
        ("SELECT id FROM products WHERE price > 50", 2, {"49.00", "50.00", "51.00"}),
        # a literal compared with an aggregate over the column: one row can hit it exactly
        ("SELECT SUM(stock * price) FROM products HAVING SUM(stock * price) >= 300", 3, {"300"}),
        # an integer divisor (rules-v6): SUM(stock) / 50 against / 49 needs a sum between them
        ("SELECT SUBSTR('#####', 1, SUM(stock) / 50) FROM products", 3, {"49", "50", "51"}),
    ],
)
def test_boundary_values(sql: str, column: int, wanted: set[str]) -> None:
    """Regression (rules-v4 survivors): ``price < 50`` vs ``price < 49`` and ``SUM(...) >= 300``
    vs ``>= 301`` survived, as decimal columns got no literal ± 1 and literals compared with an
    expression over a column never reached it."""
    out = query_test_data(
        sql, "sqlite", rounds=8, seed="s", name="t", base=fixture_from_json(_shop())
    )
    values = {str(v) for v in _values(out, column)}
    assert wanted <= values, sorted(values)


def test_observed_unique_columns_may_repeat_but_keys_never() -> None:
    """Regression: names unique only in the fixture were kept unique, so DISTINCT over a name
    (``GROUP BY p.id, p.name`` projecting only the name) was never tested; the key stays
    unique."""
    out = query_test_data(
        "SELECT name, stock FROM products ORDER BY name",
        "sqlite",
        rounds=8,
        seed="s",
        name="t",
        base=fixture_from_json(_shop()),
    )
    repeated = 0
    for data in out:
        rows = fixture_from_json(data).table("products").rows  # loads: the key holds
        assert len({r[0] for r in rows}) == len(rows)
        repeated += len(rows) - len({r[1] for r in rows})
    assert repeated > 0


def test_time_differences_the_query_measures_occur_exactly() -> None:
    """Regression: a session gap ``... * 86400 > 1800`` was never approached, so ``> 1801``
    survived: some twin lies 1799 or 1801 s after its row — never exactly 1800 s, where SQLite's
    floating-point JULIANDAY difference and integer seconds elsewhere disagree (that falsely
    separated the starter's sessionize references)."""
    base = fixture_from_json(
        fixture_json(
            "ev",
            table_json(
                "events",
                [[i, i % 3, f"2024-01-0{1 + i % 5} 1{i}:00:00"] for i in range(1, 10)],
                id="integer NOT NULL",
                user_id="integer NULL",
                event_ts="timestamp NOT NULL",
            ),
        )
    )
    sql = (
        "SELECT user_id, id, CASE WHEN (JULIANDAY(event_ts) - JULIANDAY(LAG(event_ts) OVER "
        "(PARTITION BY user_id ORDER BY event_ts, id))) * 86400 > 1800 THEN 1 ELSE 0 END "
        "FROM events"
    )
    out = query_test_data(sql, "sqlite", rounds=8, seed="s", name="t", base=base)
    gaps = set()
    for data in out:
        rows = fixture_from_json(data).table("events").rows
        stamps = [dt.datetime.fromisoformat(str(r[2])) for r in rows]
        gaps |= {abs((a - b).total_seconds()) for a in stamps for b in stamps}
    assert gaps & {1799.0, 1801.0} and 1800.0 not in gaps


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT c.id FROM c JOIN (SELECT o.cid FROM o WHERE o.v > 1) AS k ON k.cid = c.id",
        "SELECT c.id FROM c WHERE c.id IN (SELECT o.cid FROM o WHERE o.v > 1)",
    ],
)
def test_join_groups_reach_through_derived_tables_and_in(sql: str) -> None:
    """Regression (rules-v5 survivors): ``k.customer_id = c.id`` over a derived table ``k`` and
    ``c.id IN (SELECT o.customer_id ...)`` left both columns out of one join group, so their
    values were drawn apart and the semi-join came back empty on most databases."""
    schema = infer_schema(parse_query(sql, "sqlite"))
    c, o = schema.tables["c"]["id"], schema.tables["o"]["cid"]
    assert c.group is not None and c.group == o.group


def test_joined_keys_are_dealt_distinct_and_out_of_order() -> None:
    """Regression: a joined primary key drawn with replacement lost rows to deduplication (and
    twins got keys beyond every reference); now every row keeps a distinct key, and the rows are
    inserted out of key order in some round (insertion-ordered engines then show a dropped
    ORDER BY)."""
    base = fixture_from_json(
        fixture_json(
            "s",
            table_json(
                "c",
                [[i, f"n{i % 3}"] for i in range(1, 9)],
                id="integer NOT NULL",
                name="text NOT NULL",
            ),
            table_json(
                "o",
                [[i, 1 + i % 4] for i in range(1, 9)],
                id="integer NOT NULL",
                cid="integer NULL",
            ),
        )
    )
    sql = "SELECT c.id, c.name FROM c JOIN o ON o.cid = c.id ORDER BY c.id"
    out = query_test_data(sql, "sqlite", rounds=8, seed="s", name="t", base=base)
    unordered = 0
    for data in out:
        ids = [r[0] for r in fixture_from_json(data).table("c").rows]
        assert len(ids) >= 6 and all(1 <= i <= 12 for i in ids)
        unordered += ids != sorted(ids)
    assert unordered >= 4


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT c.Name FROM c JOIN o ON c.Id = o.CId",
        "select c.name from c join o on c.ID = o.CID",  # Spider's golds: not the fixture's spelling
    ],
)
def test_join_groups_match_the_fixture_columns_in_any_case(sql: str) -> None:
    """Regression: a query spelling a column otherwise than its fixture (``t1.stuid`` for
    ``StuID``) lost its join group, so the joined columns were drawn from unrelated real values
    and Spider's joins came back empty on most databases."""
    base = fixture_from_json(
        fixture_json(
            "s",
            table_json("c", [[i, f"n{i}"] for i in range(1, 5)], Id="integer", Name="text"),
            {
                "name": "o",
                "columns": [{"name": "CId", "type": "integer"}],
                "rows": [[1000 + i] for i in range(1, 5)],
            },
        )
    )
    schema = infer_schema(parse_query(sql, "sqlite"), base)
    c, o = schema.tables["c"]["Id"], schema.tables["o"]["CId"]
    assert c.group is not None and c.group == o.group


def test_a_text_column_joined_to_an_integer_key_draws_its_values() -> None:
    """Regression: Spider's ``singer_in_concert.Singer_ID`` is text and joined to the integer
    ``singer.Singer_ID``; it drew 'a'..'d', so the join never matched on generated data."""
    base = fixture_from_json(
        fixture_json(
            "s",
            table_json(
                "singer", [[i, f"n{i}"] for i in range(1, 7)], Singer_ID="integer", Name="text"
            ),
            {
                "name": "sic",
                "columns": [{"name": "Singer_ID", "type": "text"}],
                "rows": [[str(i % 4)] for i in range(1, 9)],
            },
        )
    )
    sql = "SELECT s.Name FROM sic AS t JOIN singer AS s ON t.singer_id = s.singer_id"
    out = query_test_data(sql, "sqlite", rounds=4, seed="s", name="t", base=base)
    matched = 0
    with create_engine("sqlite") as engine:
        for data in out:
            fixture = fixture_from_json(data)
            assert all(v is None or v.isdigit() for (v,) in fixture.table("sic").rows)
            engine.load(fixture)
            result = engine.execute(sql, fixture)
            matched += bool(result.ok and result.result is not None and result.result.rows)
    assert matched >= 3


@pytest.mark.parametrize(
    ("sql", "literal"),
    [
        ('SELECT FlightNo FROM flights WHERE SourceAirport = "APG"', "APG"),
        ("SELECT \"FlightNo\" FROM flights WHERE SourceAirport = 'APG'", "APG"),  # a real column
        ('SELECT FlightNo AS "n" FROM flights WHERE SourceAirport IN ("n", "x")', "x"),
    ],
)
def test_double_quoted_strings_are_literals(sql: str, literal: str) -> None:
    """Regression: SQLite reads ``"APG"`` as a string when no column has that name, sqlglot as
    a column; Spider's golds write strings so, and their values never reached the data (137 of
    the 553 rules-v7 survivors had a source empty on every database)."""
    base = fixture_from_json(
        {
            "name": "f",
            "tables": [
                {
                    "name": "flights",
                    "columns": [
                        {"name": "FlightNo", "type": "integer"},
                        {"name": "SourceAirport", "type": "text"},
                    ],
                    "rows": [[i, f"A{i}"] for i in range(1, 5)],
                }
            ],
        }
    )
    schema = infer_schema(parse_query(sql, "sqlite"), base)
    assert schema.tables["flights"]["SourceAirport"].literals[-1] == literal
    assert schema.tables["flights"]["FlightNo"].literals == []


@pytest.mark.parametrize(("round_", "repeated"), [(0, False), (1, True), (2, False), (5, True)])
def test_observed_unique_columns_keep_every_row_and_repeat_in_some_rounds(
    round_: int, repeated: bool
) -> None:
    """Regression (Spider's group_by_column and add_distinct survivors): names unique only by
    observation were drawn with replacement and deduplicated, so tables lost rows, and two keyed
    rows never shared a name outside twins (``GROUP BY name`` for ``GROUP BY stadium_id``
    survived). Now they (and keys not joined) are dealt distinct, and every fourth round from
    round 1 the rows share two names instead; the key stays unique."""
    out = query_test_data(
        "SELECT name, COUNT(*) FROM products GROUP BY name",
        "sqlite",
        rounds=1,
        first_round=round_,
        seed="s",
        name="t",
        base=fixture_from_json(_shop(16)),
    )
    rows = fixture_from_json(out[0]).table("products").rows  # loads: the key holds
    names = [r[1] for r in rows if r[1] is not None]
    assert (len(names) > len(set(names))) == repeated
    if round_ == 0:
        assert len(rows) == 8  # round 0 draws 8 rows; none is lost


@pytest.mark.parametrize(
    ("sql", "at_mean"),
    [
        ("SELECT name FROM products WHERE stock >= (SELECT AVG(stock) FROM products)", True),
        ("SELECT name FROM products WHERE (SELECT avg(stock) FROM products) < stock", True),
        # an average over other rows or of another column: no row of this table can be placed there
        (
            "SELECT name FROM products WHERE stock >= (SELECT AVG(stock) FROM products WHERE "
            "id > 2)",
            False,
        ),
        ("SELECT name FROM products WHERE stock >= (SELECT AVG(id) FROM products)", False),
    ],
)
def test_a_row_sits_at_the_average_it_is_compared_with(sql: str, at_mean: bool) -> None:
    """Regression (Spider's flip_comparison survivors): ``age >= (SELECT AVG(age) ...)`` and
    ``>`` differ only on a row exactly at the average, which random values never hit."""
    out = query_test_data(
        sql, "sqlite", rounds=9, seed="s", name="t", base=fixture_from_json(_shop())
    )
    hits = 0
    for data in out:
        rows = fixture_from_json(data).table("products").rows  # loads: the key holds
        stock = [r[3] for r in rows if r[3] is not None]
        hits += bool(stock) and sum(stock) / len(stock) in stock
    assert (hits >= 2) == at_mean, hits


_FLIGHTS = {
    "name": "f",
    "tables": [
        {
            "name": "flights",
            "primary_key": ["Airline", "FlightNo"],  # nullable, as Spider declares
            "columns": [
                {"name": "Airline", "type": "integer"},
                {"name": "FlightNo", "type": "integer"},
                {"name": "SourceAirport", "type": "text"},
            ],
            "rows": [[i % 3, 10 * i, f" A{i % 5}"] for i in range(1, 13)],
        }
    ],
}


@pytest.mark.parametrize(
    ("sql", "check"),
    [
        # a nullable key column got NULLs, and its rows were then dropped: tables shrank
        ("SELECT FlightNo FROM flights WHERE Airline > 1", "keys"),
        # a text literal was one value of three drawn first: one row in nine hit it
        ("SELECT FlightNo FROM flights WHERE SourceAirport = 'APG'", "literal"),
    ],
)
def test_spider_keys_and_text_literals(sql: str, check: str) -> None:
    """Regression (Spider survivors: ``DISTINCT FlightNo ... WHERE SourceAirport = "APG"``)."""
    out = query_test_data(
        sql, "sqlite", rounds=6, seed="s", name="t", base=fixture_from_json(_FLIGHTS)
    )
    rows = [r for data in out for r in fixture_from_json(data).table("flights").rows]
    if check == "keys":
        assert all(r[0] is not None and r[1] is not None for r in rows)
        assert len(rows) >= 48  # 37 before
    else:
        assert sum(r[2] == "APG" for r in rows) >= 18  # 12 of 38 before


@pytest.mark.parametrize(
    ("sql", "sizes"),
    [
        ("SELECT Airline FROM flights GROUP BY Airline HAVING COUNT(*) > 20", {20, 21}),
        ("SELECT Airline FROM flights GROUP BY Airline HAVING count(*) BETWEEN 0 AND 14", {14, 15}),
        ("SELECT Airline FROM flights GROUP BY Airline HAVING SUM(FlightNo) > 20", set()),
    ],
)
def test_groups_reach_the_counts_the_query_compares(sql: str, sizes: set[int]) -> None:
    """Regression (Spider's literal ± 1 survivors): ``HAVING COUNT(*) > 10`` against ``> 9``
    differs only on a group of 10 rows, and tables of at most 12 random rows held none: every
    sixth round from round 5 one row gets twins up to the literal's count or one more."""
    out = query_test_data(
        sql, "sqlite", rounds=24, seed="s", name="t", base=fixture_from_json(_FLIGHTS)
    )
    largest = set()
    for data in out:
        rows = fixture_from_json(data).table("flights").rows  # loads: the key holds
        groups: dict[Any, int] = {}
        for r in rows:
            groups[r[0]] = groups.get(r[0], 0) + 1
        largest.add(max(groups.values()))
    assert (max(largest) >= min(sizes)) if sizes else max(largest) <= 12, sorted(largest)


@pytest.mark.parametrize(
    ("real", "wanted"),
    [
        ([str(y) for y in range(1990, 2002)], {"2029", "2030", "2031"}),  # many distinct years
        (["2014", "2015"] * 4, {"2029", "2030", "2031"}),  # an enumeration admits them too
    ],
)
def test_a_text_column_compared_with_a_number_gets_its_neighbours(
    real: list[str], wanted: set[str]
) -> None:
    """Regression: Spider's ``concert.Year`` is text; ``Year >= 2030`` against ``>= 2029``
    needs '2029', and only '2030' was drawn (an enumeration kept not even that)."""
    base = fixture_from_json(
        {
            "name": "c",
            "tables": [
                {
                    "name": "concert",
                    "columns": [{"name": "Year", "type": "text"}],
                    "rows": [[y] for y in real],
                }
            ],
        }
    )
    out = query_test_data(
        "SELECT COUNT(*) FROM concert WHERE Year >= 2030",
        "sqlite",
        rounds=8,
        seed="s",
        name="t",
        base=base,
    )
    assert wanted <= set(_values(out, 0, "concert"))


@pytest.mark.parametrize(
    ("sql", "wanted"),
    [
        ("SELECT name FROM products WHERE stock = '80'", {79, 80, 81}),  # SQLite compares as 80
        ('SELECT name FROM products WHERE stock > "80"', {79, 80, 81}),  # Spider's Population
    ],
)
def test_a_number_written_as_a_string_reaches_a_numeric_column(sql: str, wanted: set[int]) -> None:
    """Regression: ``Population = "80000"`` gave the integer column no value: the source was
    empty on every database."""
    out = query_test_data(
        sql, "sqlite", rounds=8, seed="s", name="t", base=fixture_from_json(_shop())
    )
    assert wanted <= set(_values(out, 3))


@pytest.mark.parametrize(
    ("sql", "dependent"),
    [
        ("SELECT NTH_VALUE(a, 2) OVER (PARTITION BY b) FROM t", True),
        ("SELECT LAG(a) OVER (PARTITION BY b) FROM t", True),
        ("SELECT FIRST_VALUE(a) OVER () FROM t", True),
        ("SELECT NTH_VALUE(a, 2) OVER (PARTITION BY b ORDER BY c) FROM t", False),
        ("SELECT ROW_NUMBER() OVER (ORDER BY a) FROM t", False),
        ("SELECT SUM(a) OVER (PARTITION BY b) FROM t", False),  # the whole partition: no order
        ("SELECT RANK() OVER () FROM t", False),  # every row ties: 1
        (
            "SELECT FIRST_VALUE(a) OVER w FROM t WINDOW w AS (ORDER BY a)",
            False,
        ),  # named: not judged
    ],
)
def test_order_dependent_window(sql: str, dependent: bool) -> None:
    from parrot.testsuite.datagen import order_dependent_window

    assert order_dependent_window(parse_query(sql, "duckdb")) is dependent


def test_qualified_and_dual_sources_get_data_over_a_base_fixture() -> None:
    """``db.table`` over a table of the base fixture and MySQL's ``FROM dual`` are readable (they
    got no suite); every table of the base is in every round."""
    base = fixture_from_json(
        fixture_json(
            "shop",
            table_json("t", [[1, 2], [2, 3]], id="integer NOT NULL", a="integer"),
            {"name": "other", "columns": [{"name": "x", "type": "text"}], "rows": [["q"]]},
        )
    )
    for sql in (
        "SELECT a FROM shop.t WHERE a > 2",
        "SELECT (SELECT COUNT(*) FROM t WHERE a > 2) AS n FROM dual",
    ):
        rounds = query_test_data(sql, "mysql", rounds=3, seed="1", name="g", base=base)
        assert len(rounds) == 3
        for data in rounds:
            assert [t["name"] for t in data["tables"]] == ["t", "other"]
            assert data["tables"][1]["rows"] == [["q"]]
