"""Boundary candidates: data that does not depend on the neighbour set."""

from __future__ import annotations

from collections import Counter
from contextlib import closing
from typing import Any

import pytest
from fixture_json import fixture_json, table_json

from parrot.connect import create_engine
from parrot.eval.judge import Judge
from parrot.fixtures import fixture_from_json
from parrot.testsuite.boundary import KINDS, LARGE, query_boundary_data
from parrot.testsuite.datagen import query_test_data
from parrot.testsuite.distill import DEFAULT_MIN_DBS, distill

BASE = fixture_from_json(
    fixture_json(
        "shop",
        table_json(
            "orders",
            [
                [1, "ann", 5, "x", 1_600_000_000],
                [2, "bob", 7, None, 1_600_086_400],
                [3, "ann", 2, "y", 1_600_172_800],
                [4, "cy", 9, "z", 1_600_259_200],
            ],
            id="integer NOT NULL",
            cust="text NOT NULL",
            amount="integer",
            note="text",
            placed="integer",
        ),
        {"name": "other", "columns": [{"name": "k", "type": "integer"}], "rows": [[1], [2]]},
    )
)
SQL = "SELECT cust, COUNT(*), SUM(amount) FROM orders WHERE amount > 3 AND note = 'x' GROUP BY cust"


def _rounds() -> dict[str, dict[str, Any]]:
    made = query_boundary_data(SQL, "sqlite", seed="3", name="b", base=BASE)
    assert made == query_boundary_data(SQL, "sqlite", seed="3", name="b", base=BASE)
    return {kind: data for kind, data in made}


def _orders(data: dict[str, Any]) -> list[list[Any]]:
    assert data["tables"][1]["rows"] == [[1], [2]]  # a table the query does not read: as is
    return next(t["rows"] for t in data["tables"] if t["name"] == "orders")


@pytest.mark.parametrize(
    ("kind", "check"),
    [
        ("empty", lambda rows: rows == []),
        ("one_row", lambda rows: len(rows) == 1),
        ("single_group", lambda rows: len({r[1] for r in rows}) == 1 and len(rows) > 1),
        (
            "duplicates",  # a few values a column, no two of them as often (AVG is no AVG DISTINCT)
            lambda rows: all(
                1 < len({r[j] for r in rows}) <= 6
                and len({r[j] for r in rows}) < len(rows)
                and len(Counter(Counter(r[j] for r in rows).values())) > 1
                for j in (1, 2)
            ),
        ),
        ("null_only", lambda rows: all(r[2] is None and r[3] is None for r in rows) and rows),
        ("on_literal", lambda rows: all(r[3] == "x" for r in rows) and rows),
        (
            "off_literal",
            lambda rows: all(r[3] != "x" and r[2] not in (2, 3, 4) for r in rows) and rows,
        ),
        ("large", lambda rows: len(rows) >= LARGE // 2 and len({r[0] for r in rows}) == len(rows)),
    ],
)
def test_each_boundary_kind(kind: str, check: Any) -> None:
    rows = _orders(_rounds()[kind])
    assert check(rows), rows
    assert len({r[0] for r in rows}) == len(rows)  # keys stay unique


def test_epoch_seconds_stay_epoch_seconds() -> None:
    """An integer column of epoch seconds gets no 5 or 59 beside 1.6e9."""
    rounds = query_test_data(
        "SELECT id FROM orders WHERE placed > 1600100000",
        "sqlite",
        rounds=6,
        seed="1",
        name="g",
        base=BASE,
    )
    rounds += [
        data
        for _, data in query_boundary_data(
            "SELECT id FROM orders WHERE placed > 1600100000",
            "sqlite",
            seed="1",
            name="b",
            base=BASE,
        )
    ]
    values = [r[4] for data in rounds for r in _orders(data) if r[4] is not None]
    assert values and all(1_500_000_000 < v < 1_700_000_000 for v in values)


def test_a_suite_keeps_diverse_databases_beyond_its_cover() -> None:
    try:
        create_engine("sqlite").close()
    except Exception as exc:
        pytest.skip(f"sqlite unavailable: {exc}")
    from parrot.datasets import Item

    item = Item(
        id="b", source_dialect="sqlite", target_dialect="sqlite", source_sql=SQL, fixture=BASE
    )
    with closing(Judge()) as judge:
        suite = distill(item, judge, candidates=6, seed=0).suite
    assert suite is not None
    kinds = suite.extra["kinds"]
    assert len(kinds) >= DEFAULT_MIN_DBS
    assert "duplicates" in kinds and {"one_row", "empty", "large", "twins"} & set(kinds)
    assert set(kinds) <= {*KINDS, "random", "solver"}


PLAYERS = [[k, 10 - k, 1000 * k + 7] for k in range(1, 9)]
PARENT_CHILD = fixture_from_json(
    fixture_json(
        "pc",
        table_json(
            "parent",
            [[1, "ann", 2], [2, "bob", 5], [3, "cy", 7], [4, "dee", 9]],
            id="integer NOT NULL",
            name="text NOT NULL",
            size="integer",
        ),
        table_json(
            "child",
            [[10, 1, 3], [11, 2, 4], [12, 3, 5], [13, 4, 6]],
            cid="integer NOT NULL",
            pid="integer",
            score="integer",
        ),
        table_json(
            "player", PLAYERS, id="integer NOT NULL", money_rank="integer", earnings="integer"
        ),
    )
)


# (kind, source, a neighbour the kind's database alone kills; the fixture does not)
KILLS = [
    ("duplicates", "SELECT AVG(score) FROM child", "SELECT AVG(DISTINCT score) FROM child"),
    (
        "duplicates",
        "SELECT score FROM child GROUP BY score ORDER BY COUNT(*) DESC LIMIT 1",
        "SELECT score FROM child GROUP BY score ORDER BY COUNT(*) ASC LIMIT 1",
    ),
    (
        "fanout",
        "SELECT c.cid FROM child AS c JOIN parent AS p ON c.pid = p.id",
        "SELECT c.cid FROM child AS c LEFT JOIN parent AS p ON c.pid = p.id",
    ),
    (
        "fanout",
        "SELECT p.name FROM parent AS p JOIN child AS c ON c.pid = p.id",
        "SELECT p.name FROM parent AS p WHERE p.id IN (SELECT pid FROM child)",
    ),
    (
        "twins",
        "SELECT p.name, COUNT(*) FROM child AS c JOIN parent AS p ON c.pid = p.id GROUP BY p.id",
        "SELECT DISTINCT p.name, COUNT(*) FROM child AS c JOIN parent AS p ON c.pid = p.id "
        "GROUP BY p.id",
    ),
    (
        "twins",
        "SELECT p.name FROM child AS c JOIN parent AS p ON c.pid = p.id GROUP BY p.id "
        "ORDER BY COUNT(*) DESC LIMIT 1",
        "SELECT p.name FROM child AS c JOIN parent AS p ON c.pid = p.id GROUP BY p.name "
        "ORDER BY COUNT(*) DESC LIMIT 1",
    ),
    (  # no parent finds a partner: the inner join is empty, the LEFT JOIN is not
        "childless",
        "SELECT p.name FROM parent AS p JOIN child AS c ON c.pid = p.id "
        "ORDER BY c.score DESC LIMIT 1",
        "SELECT p.name FROM parent AS p LEFT JOIN child AS c ON c.pid = p.id "
        "ORDER BY c.score DESC LIMIT 1",
    ),
    (  # Spider dev 529/537 (rules-v16 held-out survivors): only the outer join's lone parent
        "strangers",
        "SELECT p.name FROM parent AS p JOIN child AS c ON c.pid = p.id GROUP BY p.id "
        "ORDER BY COUNT(*) DESC, p.id LIMIT 1",
        "SELECT p.name FROM parent AS p LEFT JOIN child AS c ON c.pid = p.id GROUP BY p.id "
        "ORDER BY COUNT(*) DESC, p.id LIMIT 1",
    ),
    (  # Spider dev 515: the child joined the other way round, grouped by its reference
        "strangers",
        "SELECT p.name, c.pid FROM child AS c JOIN parent AS p ON c.pid = p.id GROUP BY c.pid "
        "ORDER BY COUNT(*) DESC, c.pid LIMIT 1",
        "SELECT p.name, c.pid FROM child AS c LEFT JOIN parent AS p ON c.pid = p.id "
        "GROUP BY c.pid ORDER BY COUNT(*) DESC, c.pid LIMIT 1",
    ),
    (  # Spider dev 611/625: the parent passes its filter and finds no child
        "strangers",
        "SELECT c.score FROM parent AS p JOIN child AS c ON p.id = c.pid WHERE p.name = 'bob'",
        "SELECT c.score FROM parent AS p LEFT JOIN child AS c ON p.id = c.pid WHERE p.name = 'bob'",
    ),
    (  # a copied parent with copies of its children: two entities alike in all but the key
        "mirror",
        "SELECT COUNT(DISTINCT p.id) FROM parent AS p JOIN child AS c ON c.pid = p.id",
        "SELECT COUNT(DISTINCT p.name) FROM parent AS p JOIN child AS c ON c.pid = p.id",
    ),
    (  # equal per-parent totals in one outer group (the running-total SUM(DISTINCT) class)
        "mirror",
        "SELECT COUNT(*) FROM (SELECT p.name, SUM(c.score) AS t FROM parent AS p "
        "JOIN child AS c ON c.pid = p.id GROUP BY p.id, p.name) AS x",
        "SELECT COUNT(*) FROM (SELECT DISTINCT p.name, SUM(c.score) AS t FROM parent AS p "
        "JOIN child AS c ON c.pid = p.id GROUP BY p.id, p.name) AS x",
    ),
    (
        "ordered",
        "SELECT name FROM parent ORDER BY size LIMIT 1",
        "SELECT name FROM parent LIMIT 1",
    ),
    (  # Spider dev 629/655 (rules-v17 held-out SC.select survivors): SQLite keeps the first
        # row of each value, whose rank is no extreme there
        "ordered",
        "SELECT money_rank FROM player ORDER BY earnings DESC LIMIT 1",
        "SELECT DISTINCT money_rank FROM player ORDER BY earnings DESC LIMIT 1",
    ),
    (
        "ordered",
        "SELECT money_rank FROM player ORDER BY earnings LIMIT 1",
        "SELECT DISTINCT money_rank FROM player ORDER BY earnings LIMIT 1",
    ),
    (  # Spider dev 609/623 (rules-v17 held-out SC.select survivors): the join fans out among
        # children that pass the filter
        "fanout",
        "SELECT p.name FROM parent AS p JOIN child AS c ON p.id = c.pid WHERE c.score = 4",
        "SELECT DISTINCT p.name FROM parent AS p JOIN child AS c ON p.id = c.pid WHERE c.score = 4",
    ),
    (
        "ordered",
        "SELECT name, size FROM parent ORDER BY size",
        "SELECT name, size FROM parent",
    ),
]


@pytest.mark.parametrize(("kind", "source", "neighbour"), KILLS)
def test_a_boundary_kind_alone_kills(kind: str, source: str, neighbour: str) -> None:
    try:
        create_engine("sqlite").close()
    except Exception as exc:
        pytest.skip(f"sqlite unavailable: {exc}")
    from dataclasses import replace

    from parrot.datasets import Item
    from parrot.testsuite.distill import neighbour_outcome

    item = Item(
        id="k",
        source_dialect="sqlite",
        target_dialect="sqlite",
        source_sql=source,
        fixture=PARENT_CHILD,
        order_sensitive=True,
    )
    made = dict(query_boundary_data(source, "sqlite", seed="0", name="k", base=PARENT_CHILD))
    db = fixture_from_json(made[kind])
    with closing(Judge()) as judge:
        assert neighbour_outcome(judge, item, PARENT_CHILD, neighbour) == "same"
        assert judge.gold(replace(item, fixture=db)).execution.ok
        assert neighbour_outcome(judge, item, db, neighbour) == "kill", made[kind]
