"""Booleans and dates that SQLite stores as INTEGER/TEXT: value-checked candidates, reported and
never applied silently, and ``--type table.column=TYPE`` overrides that every value must fit."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from migrate_helpers import make_sqlite

from parrot.fixtures import fixture_from_json
from parrot.migrate import infer_column, introspect
from parrot.migrate.cli import main
from parrot.migrate.infer import IntrospectionError, parse_override

# declared type, values, inferred type (unchanged), candidate
CANDIDATES = [
    ("INTEGER", [0, 1, None, 1], "integer", "boolean"),
    ("INTEGER", [0, 1, 2], "integer", ""),
    ("", [1, 0], "integer", "boolean"),
    ("TEXT", ["2024-01-05", None, "1999-12-31"], "text", "date"),
    ("TEXT", ["2024-01-05", "2024-1-5"], "text", ""),  # does not print back identically
    ("", ["2024-01-05 10:00:00", "2024-01-06 00:00:00.5"], "text", "timestamp"),
    ("TEXT", ["2024-01-05", "soon"], "text", ""),
    ("BOOL", [0, 1], "boolean", ""),  # already typed
    ("DATE", ["2024-01-05"], "date", ""),
    ("INTEGER", [None], "integer", ""),  # no values, no evidence
]


@pytest.mark.parametrize(("declared", "values", "ptype", "candidate"), CANDIDATES)
def test_candidates_are_checked_on_every_value(
    declared: str, values: list[Any], ptype: str, candidate: str
) -> None:
    inferred = infer_column(declared, values)
    assert (inferred.type, inferred.candidate) == (ptype, candidate)


# declared type, values, override, portable type, fixture values
OVERRIDES = [
    ("INTEGER", [0, 1, None], "boolean", "boolean", [False, True, None]),
    ("TEXT", ["2024-01-05", None], "date", "date", ["2024-01-05", None]),
    (
        "TEXT",
        ["2024-01-05 10:00:00", "2024-01-06"],
        "timestamp",
        "timestamp",
        ["2024-01-05 10:00:00", "2024-01-06 00:00:00"],
    ),
    ("TEXT", ["12.50", "3", None], "decimal(10,2)", "decimal(10,2)", ["12.50", "3.00", None]),
    ("REAL", [12.5, 0.1], "decimal(5,2)", "decimal(5,2)", ["12.50", "0.10"]),
]


@pytest.mark.parametrize(("declared", "values", "override", "ptype", "out"), OVERRIDES)
def test_overrides_force_the_type(
    declared: str, values: list[Any], override: str, ptype: str, out: list[Any]
) -> None:
    inferred = infer_column(declared, values, override=override)
    assert (inferred.type, inferred.values) == (ptype, out)
    assert f"--type {override} applied" in inferred.reason


@pytest.mark.parametrize(
    ("values", "override"),
    [
        ([0, 1, 2], "boolean"),
        (["2024-01-05", "05/01/2024"], "date"),
        (["x"], "timestamp"),
        (["12.345"], "decimal(10,2)"),  # would round
        ([123.0], "decimal(3,2)"),  # too many integer digits
    ],
)
def test_values_that_do_not_fit_an_override_fail_loudly(values: list[Any], override: str) -> None:
    with pytest.raises(IntrospectionError, match=re.escape(f"--type {override}: 1 of")):
        infer_column("TEXT", values, override=override)


@pytest.mark.parametrize(
    ("spec", "parsed"),
    [
        ("users.active=boolean", ("users.active", "boolean")),
        ("a.b=DATE", ("a.b", "date")),
        ("t.c=decimal(10, 2)", ("t.c", "decimal(10,2)")),
        ("s.t.c=timestamp", ("s.t.c", "timestamp")),
    ],
)
def test_parse_override(spec: str, parsed: tuple[str, str]) -> None:
    assert parse_override(spec) == parsed


@pytest.mark.parametrize(
    "spec",
    ["active=boolean", "t.c", "t.c=integer", "t.c=decimal(40,2)", "t.c=decimal(2,3)", ".c=date"],
)
def test_parse_override_rejects(spec: str) -> None:
    with pytest.raises(ValueError, match="--type"):
        parse_override(spec)


SCRIPT = "CREATE TABLE users (id INTEGER PRIMARY KEY, active INTEGER, born TEXT, score TEXT);"
ROWS: dict[str, Sequence[Sequence[Any]]] = {
    "users": [(1, 1, "1990-04-01", "1.5"), (2, 0, "2001-12-31", "2"), (3, None, None, None)]
}


@pytest.fixture
def users_db(tmp_path: Path) -> Path:
    return make_sqlite(tmp_path / "users.sqlite", SCRIPT, ROWS)


def test_introspection_reports_candidates_and_applies_overrides(users_db: Path) -> None:
    plain = introspect(users_db)
    assert {c.column: c.candidate for c in plain.candidates} == {
        "active": "boolean",
        "born": "date",
    }
    assert [c.type for c in plain.fixture.tables[0].columns] == ["integer"] * 2 + ["text"] * 2
    forced = introspect(
        users_db,
        types={"users.active": "boolean", "users.born": "date", "users.score": "decimal(4,1)"},
    )
    assert [c.type for c in forced.fixture.tables[0].columns] == [
        "integer",
        "boolean",
        "date",
        "decimal(4,1)",
    ]
    assert forced.candidates == ()
    with pytest.raises(IntrospectionError, match=r"no such column: users\.nope"):
        introspect(users_db, types={"users.nope": "date"})


def test_cli_prints_candidates_and_takes_type(
    users_db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([str(users_db)]) == 0
    printed = capsys.readouterr().out
    assert "2 type candidate(s)" in printed
    assert (
        "users.active: integer values are all 0/1: boolean candidate, kept integer "
        "(--type users.active=boolean to apply)"
    ) in printed
    assert "users.born: text values are all ISO dates: date candidate" in printed
    out = tmp_path / "users.json"
    assert (
        main(
            [
                str(users_db),
                "--type",
                "users.active=boolean",
                "--type",
                "users.born=date",
                "-o",
                str(out),
                "--load",
                "sqlite,duckdb",
            ]
        )
        == 0
    )
    fixture = fixture_from_json(json.loads(out.read_text()))
    assert [c.type for c in fixture.tables[0].columns][1:3] == ["boolean", "date"]
    assert "--type boolean applied" in capsys.readouterr().out
    assert main([str(users_db), "--type", "users.score=boolean"]) == 1
    assert "--type boolean: 2 of 2 value(s) do not fit" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main([str(users_db), "--type", "users.active"])
