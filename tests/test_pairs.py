"""One dialect-pair syntax for eval and curate (parrot.pairs)."""

import pytest

from parrot.curate.cli import build_parser, chosen_pairs
from parrot.curate.variants import VARIANTS
from parrot.pairs import combined, parse_pairs


@pytest.mark.parametrize(
    "text, allowed, refused",
    [
        (
            "pg:ch, sqlite:duckdb",
            [("postgres", "clickhouse"), ("sqlite", "duckdb")],
            [("postgres", "duckdb"), ("clickhouse", "postgres")],
        ),
        ("mysql:*", [("mysql", "duckdb"), ("mysql", "spark")], [("sqlite", "duckdb")]),
        ("*:ch", [("sqlite", "clickhouse"), ("postgres", "clickhouse")], [("sqlite", "duckdb")]),
        ("", [("sqlite", "duckdb"), ("mysql", "spark")], []),
    ],
)
def test_patterns_resolve_aliases_and_wildcards(text, allowed, refused):
    pairs = parse_pairs(text)
    assert all(pairs.allows(s, t) for s, t in allowed)
    assert not any(pairs.allows(s, t) for s, t in refused)


@pytest.mark.parametrize("text", ["sqlite", "sqlite:", ":duckdb", "sqlite:nosuch"])
def test_bad_pairs_name_the_part(text):
    with pytest.raises(ValueError):
        parse_pairs(text)


def test_sides_are_the_named_dialects_in_order():
    pairs = parse_pairs("pg:ch,sqlite:ch,pg:duckdb")
    assert pairs.sides(0) == ("postgres", "sqlite")
    assert pairs.sides(1) == ("clickhouse", "duckdb")
    assert parse_pairs("mysql:*").sides(1) is None


@pytest.mark.parametrize(
    "argv, expected",
    [
        (["--pairs", "mysql:duckdb,sqlite:ch"], "mysql:duckdb,sqlite:clickhouse"),
        (["--sources", "mysql,sqlite", "--targets", "duckdb"], "mysql:duckdb,sqlite:duckdb"),
        (["--sources", "mysql"], "mysql:*"),
        ([], ""),
    ],
)
def test_curate_sources_and_targets_are_shorthand_for_pairs(argv, expected):
    assert str(chosen_pairs(build_parser().parse_args(argv))) == expected


def test_curate_refuses_pairs_beside_sources_or_targets():
    with pytest.raises(ValueError, match="--pairs"):
        chosen_pairs(build_parser().parse_args(["--pairs", "mysql:duckdb", "--targets", "ch"]))


def test_curate_pairs_choose_sources_targets_and_filter():
    variant = VARIANTS["simple"]
    pairs = combined(("mysql",), ())
    assert (pairs.sides(0) or variant.sources) == ("mysql",)
    assert (pairs.sides(1) or variant.targets) == variant.targets
