"""The strong verdict levels, with records built by code: ``bounded-equivalent`` (written by a
prover into the record, with its bound) and ``suite`` (carrying its suite's neighbour kill
counts) — in the level enum, the summary's counts, its tables and the results schema."""

from __future__ import annotations

import copy

import jsonschema
from outcomes import outcome
from schema_validator import schema_validator

from parrot.api.records import LEVELS, level_name, verdict_level
from parrot.report.metrics import summarize
from parrot.report.render import summary_tables


def _bounded(rid: str, bound: int) -> dict:
    return {
        **outcome(rid, True),
        "level": {"name": "bounded-equivalent", "databases": 1, "bound": bound},
    }


def _suited(rid: str, match: bool, neighbours: int, killed: int) -> dict:
    r = outcome(rid, match)
    r["suite"] = {
        "key": "k",
        "databases": [{"index": 0, "seed": 0, "match": match}],
        "judged": 1,
        "match": match,
        "first_failure": None if match else 0,
        "elapsed": 0.0,
        "neighbours": neighbours,
        "killed": killed,
    }
    return r


RECORDS = [
    _bounded("b1", 3),
    _bounded("b2", 3),
    _bounded("b3", 5),
    _suited("s1", True, 9, 7),
    _suited("s2", False, 4, 4),
    outcome("f1", False),
]


def test_bounded_equivalent_is_the_strongest_level() -> None:
    assert LEVELS[0] == "bounded-equivalent"


def test_the_summary_counts_bounded_equivalent_items_with_their_bounds() -> None:
    # before: LEVELS had no bounded-equivalent and by_level dropped these three items
    summary = summarize(RECORDS)
    assert list(summary["by_level"]) == ["bounded-equivalent", "suite", "fixture"]
    assert summary["by_level"]["bounded-equivalent"]["items"] == 3
    assert summary["levels"]["bounded-equivalent"] == {"items": 3, "by_bound": {"3": 2, "5": 1}}
    (table,) = [t for t in summary_tables(summary) if t.title.startswith("By verdict level")]
    assert [row[0] for row in table.rows] == ["bounded-equivalent", "suite", "fixture"]


def test_the_suite_level_carries_its_neighbour_kill_rate() -> None:
    assert verdict_level(RECORDS[3]) == {
        "name": "suite",
        "databases": 2,
        "neighbours": 9,
        "killed": 7,
    }
    assert level_name(verdict_level(RECORDS[3])) == "suite (kills 7/9 neighbours)"
    assert level_name(RECORDS[0]["level"]) == "bounded-equivalent (k=3)"
    suite = summarize(RECORDS)["levels"]["suite"]
    # pooled: 11 of 13 neighbours killed
    assert (suite["items"], suite["measured"], suite["neighbours"], suite["killed"]) == (
        2,
        2,
        13,
        11,
    )
    assert suite["kill_rate"] == 84.6 and suite["ci95"][0] < 84.6 < suite["ci95"][1]
    old = copy.deepcopy(RECORDS[3])
    del old["suite"]["neighbours"]  # a run before the counts: the level without them
    assert verdict_level(old) == {"name": "suite", "databases": 2}


def test_the_results_schema_accepts_the_levels_and_needs_a_bound() -> None:
    validator = schema_validator("results.schema.json")
    level = validator.schema["properties"]["level"]
    ok = {"name": "bounded-equivalent", "databases": 1, "bound": 3}
    assert list(level["properties"]["name"]["enum"]) == list(LEVELS)
    assert jsonschema.Draft202012Validator(level).is_valid(ok)
    assert not jsonschema.Draft202012Validator(level).is_valid(
        {"name": "bounded-equivalent", "databases": 1}
    )
    assert jsonschema.Draft202012Validator(level).is_valid(verdict_level(RECORDS[3]))


def test_the_tables_say_what_the_strong_levels_rest_on() -> None:
    (table,) = [
        t for t in summary_tables(summarize(RECORDS)) if t.title == "What the strong levels rest on"
    ]
    assert table.rows[0][:2] == ("suite", 2)
    assert "11/13 neighbours killed, 84.6%" in table.rows[0][2]
    assert table.rows[1] == ("bounded-equivalent", 3, "k=3: 2, k=5: 1")
