"""Stage 3: normalisation, prefix clustering, coverage-guided selection."""

from __future__ import annotations

import pytest

from parrot.curate import select
from parrot.curate.select import Cluster, Coverage, Features, Normalise, normalise
from parrot.curate.stages import LocalExecutor, Record, run_pipeline


@pytest.mark.parametrize(
    ("sql", "tokens"),
    [
        ("SELECT a, b, c FROM t WHERE x = 1", "SELECT column FROM table WHERE column = value"),
        (
            "SELECT T1.name FROM singer AS T1 JOIN concert AS T2 ON T1.id = T2.sid",
            "SELECT column FROM table AS table JOIN table AS table ON column = column",
        ),
        (
            "select count(*) from t where n in ('a', 'b', 'c')",
            "SELECT COUNT (*) FROM table WHERE column IN ( value )",
        ),
    ],
)
def test_normalise(sql: str, tokens: str) -> None:
    assert " ".join(normalise(sql)) == tokens


class CountingCoverage:
    """Features are the words of the statement; counts how often it is asked."""

    name = "words"
    calls = 0

    def features(self, sql: str, dialect: str) -> frozenset[str] | None:
        CountingCoverage.calls += 1
        return frozenset(sql.split())


@pytest.fixture
def words(monkeypatch: pytest.MonkeyPatch) -> type[CountingCoverage]:
    monkeypatch.setitem(select.COVERAGE_SOURCES, "words", CountingCoverage)
    CountingCoverage.calls = 0
    return CountingCoverage


def _select(sqls: list[str], patience: int, ratio: float = 0.25) -> list[str]:
    records = [Record(f"r{i}", "sqlite", s) for i, s in enumerate(sqls)]
    stages = [
        Normalise(),
        Cluster(ratio),
        Features("words", patience + 1),
        Coverage("words", patience),
    ]
    kept, _funnel, _ = run_pipeline(records, stages, LocalExecutor(1))
    return [r.sql for r in kept]


def test_cluster_longest_first_and_prefix_proportional_to_length() -> None:
    # 7 and 8 normalised tokens: both prefixes are 2 tokens long, "SELECT column"
    records = [
        Record("a", "sqlite", "SELECT a FROM t WHERE y = 2"),
        Record("b", "sqlite", "SELECT a FROM t WHERE xx IS NULL"),
        Record("c", "sqlite", "DELETE FROM t"),
    ]
    kept, _, _ = run_pipeline(records, [Normalise(), Cluster(0.25)], LocalExecutor(1))
    by_id = {r.id: r for r in kept}
    assert by_id["a"].cluster == by_id["b"].cluster != by_id["c"].cluster
    assert (by_id["b"].rank, by_id["a"].rank) == (0, 1)  # longest first


def test_coverage_keeps_only_improving_statements(words: type[CountingCoverage]) -> None:
    sqls = ["SELECT a FROM t WHERE x = 1", "SELECT a FROM t", "SELECT b FROM t"]
    assert _select(sqls, patience=5) == ["SELECT a FROM t WHERE x = 1", "SELECT b FROM t"]


def test_patience_leaves_a_cluster_after_non_improving_samples(
    words: type[CountingCoverage],
) -> None:
    # one cluster (prefix of one token); longest first: three add nothing, then z would
    sqls = [
        "SELECT a b c d e FROM t WHERE x",
        "SELECT a b c d FROM t",
        "SELECT a b c FROM t",
        "SELECT a b FROM t",
        "SELECT z FROM t",
    ]
    assert "SELECT z FROM t" not in _select(sqls, patience=3, ratio=0.1)
    assert "SELECT z FROM t" in _select(sqls, patience=5, ratio=0.1)


def test_coverage_limit_and_unparseable(monkeypatch: pytest.MonkeyPatch) -> None:
    records = [
        Record(f"r{i}", "sqlite", s)
        for i, s in enumerate(
            ["SELECT a FROM t", "SELEC oops FROM", "SELECT SUM(b) FROM u GROUP BY c"]
        )
    ]
    stages = [Normalise(), Cluster(1.0), Features("sqlglot"), Coverage("sqlglot", limit=1)]
    kept, funnel, _ = run_pipeline(records, stages, LocalExecutor(1))
    assert len(kept) == 1
    assert funnel[-1].dropped.get("over_keep", 0) + funnel[-1].dropped.get("unparseable", 0) == 2


def test_statement_coverage_keeps_every_parseable_statement() -> None:
    """``--coverage statement`` (the simple variant's): no statement is dropped for adding no
    sqlglot feature, unparseable ones still are."""
    sqls = [
        "SELECT a FROM t WHERE x = 1",
        "SELECT a FROM t WHERE x = 2",
        "SELECT a FROM t",
        "SELEC oops FROM",
    ]
    for source, kept in (("sqlglot", 1), ("statement", 3)):
        records = [Record(f"r{i}", "sqlite", s) for i, s in enumerate(sqls)]
        stages = [Normalise(), Cluster(1.0), Features(source), Coverage(source)]
        out, funnel, _ = run_pipeline(records, stages, LocalExecutor(1))
        assert len(out) == kept, source
        assert funnel[-1].dropped["unparseable"] == 1


def test_unknown_coverage_source() -> None:
    with pytest.raises(ValueError, match="unknown coverage source"):
        select.coverage_source("nope")


@pytest.mark.parametrize(
    ("dialect", "richer", "poorer"),
    [
        ("sqlite", "SELECT a FROM t JOIN u ON t.id = u.id WHERE b > 1", "SELECT a FROM t"),
        ("tsql", "SELECT TOP 5 a FROM t CROSS APPLY f(t.id) x", "SELECT a FROM t"),
        ("oracle", "SELECT a FROM t CONNECT BY PRIOR id = parent_id", "SELECT a FROM t"),
    ],
)
def test_grammar_coverage_counts_rules_and_alternatives(
    dialect: str, richer: str, poorer: str
) -> None:
    source = select.coverage_source("grammar")
    rich, poor = source.features(richer, dialect), source.features(poorer, dialect)
    assert rich is not None and poor is not None
    rules = [{f for f in found if ">" not in f} for found in (poor, rich)]
    assert rules[0] < rules[1]  # the richer statement exercises every rule of the other, and more
    assert any(">" in f for f in rich)  # alternatives, not only rule names
    assert source.features("SELECT FROM WHERE", dialect) is None


def test_grammar_coverage_falls_back_to_sqlglot_without_a_grammar() -> None:
    found = select.coverage_source("grammar").features("SELECT a FROM t", "teradata")
    assert found == select.coverage_source("sqlglot").features("SELECT a FROM t", "teradata")


def test_grammar_coverage_drives_selection() -> None:
    records = [
        Record(f"r{i}", "postgres", s)
        for i, s in enumerate(["SELECT a FROM t", "SELECT a FROM t WHERE b = 1", "SELEC oops FROM"])
    ]
    stages = [Normalise(), Cluster(1.0), Features("grammar"), Coverage("grammar")]
    kept, funnel, _ = run_pipeline(records, stages, LocalExecutor(1))
    assert {r.id for r in kept} == {"r0", "r1"}
    assert funnel[-1].dropped.get("unparseable", 0) == 1


def test_normalised_tokens_are_shared_objects_so_chunks_pickle_each_once() -> None:
    a, b = normalise("SELECT a FROM t WHERE x = 1"), normalise("SELECT b FROM u WHERE y = 2")
    assert a == b and all(x is y for x, y in zip(a, b, strict=True))


@pytest.mark.parametrize(
    ("sql", "dialect", "tokens"),
    [
        # a T-SQL placeholder is not a '#' comment: the regex dropped the rest of the statement
        (
            "SELECT TOP ##num?500## c.id FROM posts c",
            "tsql",
            "SELECT TOP # # column ?500 # # column FROM table table",
        ),
        # non-ASCII identifiers are one word, not cut at every accented letter
        ("select tên_thí_sinh from thí_sinh", "sqlite", "SELECT column FROM table"),
        # a dollar-quoted body is one string; a subscript is not a [quoted identifier]
        (
            "SELECT f($$ a; b $$), x[1] FROM t",
            "postgres",
            "SELECT F ( value ), column [ value FROM table",
        ),  # runs of punctuation and digits stay one piece (``),``, ``1]``)
    ],
)
def test_normalise_reads_the_dialect_lexer(sql: str, dialect: str, tokens: str) -> None:
    assert " ".join(normalise(sql, dialect)) == tokens
