"""Distillation and the build CLI, end to end on SQLite and DuckDB."""

from __future__ import annotations

import json
from contextlib import closing
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from fixture_json import fixture_json, table_json
from local_only import engines_or_skip

from parrot.datasets import Item, load_dataset
from parrot.eval.judge import Judge
from parrot.testsuite.cli import _generator, _kept, main
from parrot.testsuite.distill import distill
from parrot.testsuite.store import Suite, load_suite, suite_to_json
from parrot.translators.base import Translation, TranslationStatus

FIXTURE = fixture_json(
    "tiny",
    table_json(
        "t",
        [[1, "a", 5], [2, "a", 7], [3, "b", 2], [4, "b", 9]],
        id="integer NOT NULL",
        grp="text",
        v="integer",
    ),
)
ITEMS = [
    {
        "id": "one",
        "source_dialect": "sqlite",
        "target_dialect": "duckdb",
        "source_sql": "SELECT grp, COUNT(*) FROM t WHERE v > 3 GROUP BY grp ORDER BY grp",
        "reference_sql": "SELECT grp, count(*) FROM t WHERE v > 3 GROUP BY grp ORDER BY grp",
        "fixture": {"name": "tiny"},
    },
    {
        "id": "two",
        "source_dialect": "duckdb",
        "target_dialect": "sqlite",
        "source_sql": "SELECT id FROM t WHERE v >= 7 ORDER BY id",
        "reference_sql": "SELECT id FROM t WHERE v >= 7 ORDER BY id",
        "fixture": {"name": "tiny"},
    },
]


def _one_item(
    tmp_path: Path, rid: str, sql: str, reference: str = "", dialects: str = "sqlite:duckdb"
) -> Item:
    """Item :func:`_item_json` alone in a dataset."""
    root = _dataset(tmp_path, _item_json(rid, sql, reference, dialects))
    return load_dataset(str(root), count_tokens=False).items[0]


def _item_json(rid: str, sql: str, reference: str = "", dialects: str = "sqlite:duckdb") -> dict:
    """The JSON of item ``rid`` on the tiny fixture: ``sql`` for the pair ``dialects``, its
    reference ``sql`` unless given."""
    source, target = dialects.split(":")
    data = {"id": rid, "source_dialect": source, "target_dialect": target, "source_sql": sql}
    return {**data, "reference_sql": reference or sql, "fixture": {"name": "tiny"}}


def _assert_the_reference_agrees(judge: Judge, item: Item, suite: Suite) -> None:
    """The item's (first) reference matches its source on every database of ``suite``."""
    answer = Translation(TranslationStatus.OK, sql=item.reference_sql[0])
    for db in suite.databases:
        verdict = judge.judge(replace(item, fixture=db.fixture), answer)
        assert verdict["verdicts"]["strict"]["match"], db.fixture.name


def _dataset(tmp_path: Path, *items: dict[str, Any]) -> Path:
    """A dataset of the tiny fixture holding ``items`` (ITEMS unless given)."""
    (tmp_path / "fixtures").mkdir()
    (tmp_path / "fixtures" / "tiny.json").write_text(json.dumps(FIXTURE))
    (tmp_path / "items.jsonl").write_text("".join(json.dumps(i) + "\n" for i in items or ITEMS))
    return tmp_path


def test_distill_is_deterministic(tmp_path: Path) -> None:
    engines_or_skip()
    item = load_dataset(str(_dataset(tmp_path)), count_tokens=False).items[0]
    with closing(Judge()) as judge:
        a = distill(item, judge, candidates=6, seed=3).suite
        b = distill(item, judge, candidates=6, seed=3).suite
    assert a is not None and b is not None
    assert json.dumps(suite_to_json(a)) == json.dumps(suite_to_json(b))
    assert 1 <= len(a.databases) <= 8 and a.neighbours > 0
    assert a.killed >= int(a.extra["killed_by_fixture"])


def test_build_cli_writes_suites_and_is_idempotent(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    engines_or_skip()
    root = _dataset(tmp_path)
    assert main(["build", str(root), "--candidates", "4", "--max-dbs", "2", "--min-dbs", "0"]) == 0
    assert "suites built: 2" in capsys.readouterr().out
    ds = load_dataset(str(root), count_tokens=False)
    for item in ds.items:
        suite = load_suite(root, item.source_dialect, item.source_sql, item.fixture)
        assert suite is not None and len(suite.databases) <= 2
    assert main(["build", str(root), "--candidates", "4"]) == 0
    assert "suites built: 0" in capsys.readouterr().out


def test_build_outdated_rebuilds_other_generators_and_fixture_selects(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--outdated rebuilds only what another generator made (a rerun resumes); --fixture picks
    the sources over one fixture."""
    engines_or_skip()
    root = _dataset(tmp_path)
    assert main(["build", str(root), "--candidates", "2", "--fixture", "other"]) == 0
    assert "suites built: 0" in capsys.readouterr().out
    assert main(["build", str(root), "--candidates", "2", "--fixture", "tiny"]) == 0
    assert "suites built: 2" in capsys.readouterr().out
    path = sorted((root / "suites").glob("*.json"))[0]
    data = json.loads(path.read_text())
    path.write_text(json.dumps({**data, "generator": "rules-v0"}))
    assert main(["build", str(root), "--candidates", "2", "--outdated"]) == 0
    assert "suites built: 1" in capsys.readouterr().out
    assert main(["build", str(root), "--candidates", "2", "--outdated"]) == 0
    assert "suites built: 0" in capsys.readouterr().out


def test_max_bytes_leaves_larger_suites_as_they_are(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--max-bytes N: a stored suite file over N bytes is neither rebuilt by --outdated nor by
    --force, and the build names it; a suite built over N bytes is not written (the shipped
    TPC-H suites, up to 19 MB a line)."""
    engines_or_skip()
    root = _dataset(tmp_path)
    assert main(["build", str(root), "--candidates", "2", "--fixture", "tiny"]) == 0
    capsys.readouterr()
    paths = sorted((root / "suites").glob("*.json"))
    for path in paths:
        path.write_text(json.dumps({**json.loads(path.read_text()), "generator": "rules-v0"}))
    big = paths[0]
    big.write_text(big.read_text() + " " * 5000)
    limit = big.stat().st_size - 1000  # the others are 5000 bytes shorter, before and after
    args = ["build", str(root), "--candidates", "2", "--max-bytes", str(limit)]
    assert main([*args, "--outdated"]) == 0
    captured = capsys.readouterr()
    assert "suites built: 1" in captured.out
    assert f"{big.stem}, {big.stat().st_size} bytes, made by rules-v0" in captured.err
    assert json.loads(big.read_text())["generator"] == "rules-v0"
    assert all(json.loads(p.read_text())["generator"] != "rules-v0" for p in paths[1:])
    assert main([*args, "--force"]) == 0
    assert "suites built: 1" in capsys.readouterr().out
    assert json.loads(big.read_text())["generator"] == "rules-v0"
    assert main(["build", str(root), "--candidates", "2", "--outdated"]) == 0
    assert "suites built: 1" in capsys.readouterr().out
    assert json.loads(big.read_text())["generator"] != "rules-v0"
    # a suite built over N bytes is not written; the older one stays
    paths[1].write_text(json.dumps({**json.loads(paths[1].read_text()), "generator": "rules-v0"}))
    paths[0].unlink()
    assert main(["build", str(root), "--candidates", "2", "--outdated", "--max-bytes", "10"]) == 0
    captured = capsys.readouterr()
    assert "suites built: 0" in captured.out and "no suite (1): over --max-bytes 10" in captured.out
    assert f"{paths[1].stem}, {paths[1].stat().st_size} bytes, made by rules-v0" in captured.err
    assert not paths[0].exists() and json.loads(paths[1].read_text())["generator"] == "rules-v0"


def test_databases_where_an_orderless_limit_cuts_ties_are_kept_and_judged_as_a_pick(
    tmp_path: Path,
) -> None:
    """A LIMIT without ORDER BY keeps arbitrary rows: a suite keeps databases where it cuts
    (else ``LIMIT n`` -> ``n + 1`` is never killed) and judges any pick of the unlimited
    result's rows as right, a wrong row count as wrong."""
    engines_or_skip()
    item = _one_item(tmp_path, "lim", "SELECT grp, v FROM t LIMIT 2")
    with closing(Judge()) as judge:
        suite = distill(item, judge, candidates=8, seed=1).suite
        assert suite is not None
        cut = [
            db
            for db in suite.databases
            if judge.limit_cuts_ties(replace(item, fixture=db.fixture)) is not None
        ]
        assert cut
        assert not any(op == "limit_plus" for op, _ in suite.extra["survivors"])
        other = "SELECT grp, v FROM t ORDER BY grp DESC, v DESC LIMIT 2"
        differs = 0
        for db in cut:
            on_db = replace(item, fixture=db.fixture, target_dialect="sqlite")
            rows = [
                judge.gold(replace(on_db, source_sql=sql)).execution.result
                for sql in (item.source_sql, other)
            ]
            differs += sorted(rows[0].rows) != sorted(rows[1].rows)  # type: ignore[union-attr]
            other_pick = Translation(TranslationStatus.OK, sql=other)
            assert judge.judge(on_db, other_pick)["verdicts"]["strict"]["match"]
            three = Translation(TranslationStatus.OK, sql="SELECT grp, v FROM t LIMIT 3")
            assert not judge.judge(on_db, three)["verdicts"]["strict"]["match"]
        assert differs  # another pick than the source's own is judged


@pytest.mark.parametrize(
    ("name", "corpus"),
    [("spider/car_1", True), ("text2sql/geography", True), ("shop", False), ("tpch", False)],
)
def test_corpus_suites_go_where_git_ignores_them(tmp_path: Path, name: str, corpus: bool) -> None:
    """A suite of a corpus fixture (Spider, text2sql) holds values sampled from it: it is written to
    suites/corpus/ (ignored by git) and still found by load_suite."""
    from parrot.fixtures import fixture_from_json
    from parrot.testsuite.store import Suite, from_corpus, suite_key, write_suite

    fixture = fixture_from_json({**FIXTURE, "name": name})
    sql = "SELECT id FROM t"
    assert from_corpus(fixture) is corpus
    suite = Suite(
        key=suite_key("sqlite", sql, fixture),
        source_dialect="sqlite",
        source_sql=sql,
        fixture_sha256=fixture.content_hash,
        databases=(),
    )
    path = write_suite(tmp_path, suite, from_corpus(fixture))
    assert (path.parent.name == "corpus") is corpus
    assert load_suite(tmp_path, "sqlite", sql, fixture) == suite


@pytest.mark.parametrize(
    ("dialect", "sql", "unkillable"),
    [
        ("sqlite", "SELECT grp, COUNT(*) FROM t GROUP BY grp ORDER BY grp", True),
        ("sqlite", "SELECT id, v FROM t ORDER BY id", False),
        ("duckdb", "SELECT id, v FROM t ORDER BY id", False),
    ],
)
def test_a_dropped_order_by_data_cannot_kill_is_unkillable_not_a_survivor(
    tmp_path: Path, dialect: str, sql: str, unkillable: bool
) -> None:
    """SQLite's GROUP BY returns its groups sorted whatever the insertion order, so no data
    kills a dropped ORDER BY on the group key there (counted apart, with the reason); a plain
    scan returns insertion order (SQLite too: fixtures declare no INTEGER PRIMARY KEY), so the
    fixture's rows inserted in reverse kill it, and that database joins the candidates."""
    from parrot.testsuite.distill import order_probes
    from parrot.testsuite.neighbours import neighbours

    engines_or_skip()
    item = _one_item(tmp_path, "ord", sql, dialects=f"{dialect}:{dialect}")
    assert item.fixture is not None
    dropped = [n for n in neighbours(sql, dialect) if n.operator == "drop_order"]
    with closing(Judge()) as judge:
        usable, kills = [(0, item.fixture)], [set()]  # the fixture: rows in key order
        found = order_probes(judge, item, dropped, {0}, usable, kills)
    if unkillable:
        assert list(found) == [0] and "sqlite returned the ORDER BY's order" in found[0]
        assert len(usable) == 1
    else:
        assert found == {} and kills[-1] == {0} and usable[-1][1].name.endswith("-rev")


def test_databases_where_a_reference_disagrees_are_not_kept(tmp_path: Path) -> None:
    """Regression (rules-v6 rebuild): data the fixture never has (a dangling foreign key, an
    empty ROLLUP) can separate references that agree on the fixture; such a database tests an
    engine or domain edge, not a translation, so distillation leaves it out and says why."""
    engines_or_skip()
    edge = "SELECT count(*) FROM t WHERE v > 3 AND id <= 4"
    item = _one_item(tmp_path, "edge", "SELECT COUNT(*) FROM t WHERE v > 3", edge)
    with closing(Judge()) as judge:
        suite = distill(item, judge, candidates=12, seed=1, references=(item,)).suite
        assert suite is not None and suite.extra["reference_edges"]
        assert "duckdb reference" in suite.extra["reference_edges"][0]
        _assert_the_reference_agrees(judge, item, suite)


@pytest.mark.slow
def test_the_set_cover_also_kills_the_references_neighbours(tmp_path: Path) -> None:
    """Regression (rules-v7, issue 12): suites were chosen to kill the source's neighbours
    only, so near-misses of a reference in the target's own idiom (a literal the source does
    not have) survived on the target side. The references' neighbours on their target engine
    join the set cover; the suite records how many there were and how many it kills."""
    engines_or_skip()
    # the duckdb reference says v >= 8 where the source says v > 7: its literal 8 (and the
    # neighbours v >= 9, v >= 7) are the reference's own
    own = "SELECT id FROM t WHERE v >= 8 ORDER BY id"
    item = _one_item(tmp_path, "own", "SELECT id FROM t WHERE v > 7 ORDER BY id", own)
    with closing(Judge()) as judge:
        suite = distill(item, judge, candidates=12, seed=1, references=(item,)).suite
        assert suite is not None
        assert suite.extra["target_neighbours"] > 0
        assert suite.extra["target_killed"] > 0
        # every database kept still has the reference agree with the source
        _assert_the_reference_agrees(judge, item, suite)
        without = distill(item, judge, candidates=12, seed=1).suite
        assert without is not None and without.extra["target_neighbours"] == 0


def test_references_seed_candidates_of_their_own(tmp_path: Path) -> None:
    """rules-v7: a reference's own literals (v >= 8 for the source's v > 7) get candidate
    databases generated from the reference's SQL, once per distinct reference."""
    from parrot.testsuite.distill import REFERENCE_CANDIDATES, _Draw, _reference_candidates

    own = {
        **ITEMS[1],
        "id": "own",
        "source_sql": "SELECT id FROM t WHERE v > 7 ORDER BY id",
        "source_dialect": "sqlite",
        "target_dialect": "duckdb",
        "reference_sql": "SELECT id FROM t WHERE v >= 8 ORDER BY id",
    }
    twin = {**own, "id": "twin"}  # the same reference again: no more candidates
    root = _dataset(tmp_path, own, twin)
    a, b = load_dataset(str(root), count_tokens=False).items
    out = _reference_candidates(_Draw(a, (a, b), (), seed=0, max_rows=6), start=24)
    assert len(out) == REFERENCE_CANDIDATES and out[0][0] == 24
    assert any(8 in row for _, db in out for t in db.tables for row in t.rows)
    again = _reference_candidates(_Draw(a, (a,), (), seed=0, max_rows=6), start=24)
    assert [db.content_hash for _, db in again] == [db.content_hash for _, db in out]


def test_a_dialect_without_an_engine_is_warned_about(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The build used to skip a MariaDB-sourced query and leave MariaDB references unchecked
    without a word when no server ran; now it starts the servers it needs (unless --no-start)
    and names every dialect it has no engine for."""
    (tmp_path / "ds").mkdir()
    my = {**ITEMS[0], "id": "my", "source_dialect": "mysql", "target_dialect": "sqlite"}
    root = _dataset(tmp_path / "ds", my)
    monkeypatch.setenv("PARROT_CACHE", str(tmp_path / "cache"))  # no server state: none running
    monkeypatch.delenv("PARROT_MYSQL_URL", raising=False)
    assert main(["build", str(root), "--no-start", "--candidates", "2"]) == 0
    err = capsys.readouterr().err
    assert "warning: no engine here for mysql" in err and "its sources get no suite" in err


def _sibling_dataset(tmp_path: Path, slow: str) -> Path:
    """One concept in SQLite and in ``slow``, both directions: the SQLite source's suite is
    built first, the ``slow`` source's is distilled from its databases."""
    fast_sql = "SELECT grp, COUNT(*) FROM t WHERE v > 3 GROUP BY grp ORDER BY grp"
    slow_sql = "SELECT grp, count(*) FROM t WHERE v > 3 GROUP BY grp ORDER BY grp"
    fast = _item_json("fast", fast_sql, slow_sql, f"sqlite:{slow}")
    return _dataset(tmp_path, fast, _item_json("slow", slow_sql, fast_sql, f"{slow}:sqlite"))


def _check_sibling_suite(root: Path, slow: str) -> None:
    from parrot.testsuite.distill import SIBLINGS

    fast, slow_item = load_dataset(str(root), count_tokens=False).items
    sibling = load_suite(root, "sqlite", fast.source_sql, fast.fixture)
    suite = load_suite(root, slow, slow_item.source_sql, slow_item.fixture)
    assert sibling is not None and suite is not None and suite.databases
    assert suite.generator == SIBLINGS and suite.neighbours > 0
    drawn = {d.fixture.content_hash: d for d in sibling.databases}
    came = suite.extra["databases_from"]
    assert len(came) == len(suite.databases)
    for db, origin in zip(suite.databases, came, strict=True):
        assert origin["dialect"] == "sqlite" and origin["suite"] == sibling.key
        if not origin["reversed"]:
            assert drawn[db.fixture.content_hash].seed == origin["seed"]
        assert db.generator == sibling.generator
    # the reference agrees with the source on every database kept; a fresh Spark session is
    # slow under load
    with closing(Judge(timeouts={"spark": 900})) as judge:
        _assert_the_reference_agrees(judge, slow_item, suite)


def test_a_rebuild_that_makes_no_suite_says_the_older_one_is_kept(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A source that gets no suite on a rebuild keeps its older suite file, which eval goes on
    using: the build used to say only "no suite"; it now names the suite it keeps."""
    engines_or_skip()
    root = _sibling_dataset(tmp_path, "duckdb")
    assert main(["build", str(root), "--source", "sqlite", "--candidates", "2"]) == 0
    capsys.readouterr()
    assert main(["build", str(root), "--source", "sqlite", "--from-siblings", "--force"]) == 0
    err = capsys.readouterr().err
    assert "no suite for fast: no stored suite of a reference's own source query" in err
    assert "(its older suite, made by rules-v" in err and "is kept and eval still uses it" in err


def test_a_suite_distilled_from_the_siblings_databases(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--from-siblings (issue 12, for Spark sources): the candidates are the databases of the
    suites of the references' own source queries, each checked as usual; provenance recorded,
    a rerun writes the same file, and without a sibling suite there is none."""
    engines_or_skip()
    root = _sibling_dataset(tmp_path, "duckdb")
    assert main(["build", str(root), "--source", "duckdb", "--from-siblings"]) == 0
    assert (
        "no suite (1): no stored suite of a reference's own source query" in capsys.readouterr().out
    )
    assert main(["build", str(root), "--source", "sqlite", "--candidates", "6"]) == 0
    assert main(["build", str(root), "--source", "duckdb", "--from-siblings"]) == 0
    assert "suites built: 1" in capsys.readouterr().out
    _check_sibling_suite(root, "duckdb")
    written = {p.name: p.read_text() for p in (root / "suites").glob("*.json")}
    assert main(["build", str(root), "--source", "duckdb", "--from-siblings", "--force"]) == 0
    assert {p.name: p.read_text() for p in (root / "suites").glob("*.json")} == written
    assert main(["build", str(root), "--source", "duckdb", "--from-siblings", "--outdated"]) == 0
    assert "suites built: 0" in capsys.readouterr().out
    # --no-source-side: none of the source's neighbours run; the references' ones choose
    assert (
        main(
            [
                "build",
                str(root),
                "--source",
                "duckdb",
                "--from-siblings",
                "--force",
                "--no-source-side",
            ]
        )
        == 0
    )
    slow = load_dataset(str(root), count_tokens=False).items[1]
    suite = load_suite(root, "duckdb", slow.source_sql, slow.fixture)
    assert suite is not None and suite.databases and suite.extra["source_side"] is False
    assert suite.neighbours == 0 and not suite.extra["operators"]
    assert suite.extra["target_neighbours"] > 0


@pytest.mark.spark
@pytest.mark.timeout(1500)  # two Spark sessions start: minutes each on a loaded 2-core box
def test_a_spark_source_gets_a_real_suite_from_its_siblings(tmp_path: Path) -> None:
    """Issue 12: a Spark-sourced item's suite, built for real on Spark from the SQLite
    source's suite (the SQLite build leaves the Spark reference unchecked, as polyglot's did)."""
    from parrot.engines.spark import SparkEngine

    if SparkEngine.available() is not None:
        pytest.skip(str(SparkEngine.available()))
    root = _sibling_dataset(tmp_path, "spark")
    assert (
        main(
            [
                "build",
                str(root),
                "--source",
                "sqlite",
                "--candidates",
                "4",
                "--unchecked-reference",
                "spark",
            ]
        )
        == 0
    )
    # the first queries of a Spark session take longer than the default 10 s under load, and
    # a timeout replaces the worker: a new JVM, slow again
    assert (
        main(["build", str(root), "--source", "spark", "--from-siblings", "--timeout", "spark=900"])
        == 0
    )
    _check_sibling_suite(root, "spark")


def test_timeouts_per_dialect() -> None:
    """--timeout SECONDS and DIALECT=SECONDS (a Spark timeout replaces its JVM: raise Spark's
    alone, not the runaway neighbours' of the other engines)."""
    from parrot.testsuite.cli import parse_timeouts

    assert parse_timeouts([]) == (10.0, {})
    assert parse_timeouts(["30", "spark=600"]) == (30.0, {"spark": 600.0})
    with pytest.raises(ValueError):
        parse_timeouts(["spark=0"])
    with pytest.raises(ValueError):
        parse_timeouts(["spark=soon"])


TWO_TABLES = fixture_json(
    "two",
    table_json(
        "t",
        [[1, "ann", 5], [2, "bob", 7], [3, "cy", 2]],
        id="integer NOT NULL",
        name="text",
        v="integer",
    ),
    table_json("u", [[10, 1], [11, 2], [12, 2]], uid="integer NOT NULL", tid="integer"),
)


def test_a_correct_answer_joining_a_table_the_gold_does_not_read_passes_the_suite(
    tmp_path: Path,
) -> None:
    """Every suite database holds every table of the fixture (those the source does not read
    keep the fixture's rows): a text-to-SQL answer reading ``u`` must not fail "no such table"."""
    engines_or_skip()
    (tmp_path / "fixtures").mkdir()
    (tmp_path / "fixtures" / "two.json").write_text(json.dumps(TWO_TABLES))
    gold = "SELECT name FROM t WHERE v > 3 ORDER BY name"
    item = {
        "id": "g",
        "source_dialect": "sqlite",
        "target_dialect": "sqlite",
        "source_sql": gold,
        "reference_sql": gold,
        "fixture": {"name": "two"},
    }
    (tmp_path / "items.jsonl").write_text(json.dumps(item) + "\n")
    assert main(["build", str(tmp_path), "--candidates", "6"]) == 0
    loaded = load_dataset(str(tmp_path), count_tokens=False).items[0]
    suite = load_suite(tmp_path, loaded.source_dialect, loaded.source_sql, loaded.fixture)
    assert suite is not None and suite.databases
    for db in suite.databases:
        assert {t.name for t in db.fixture.tables} == {"t", "u"}
        assert sorted(db.fixture.table("u").rows) == sorted(loaded.fixture.table("u").rows)
    answer = (
        "SELECT name FROM t WHERE v > 3 AND NOT EXISTS "
        "(SELECT 1 FROM u WHERE u.uid < 0) ORDER BY name"
    )
    with closing(Judge(suite_dir=tmp_path)) as judge:
        record = judge.judge(loaded, Translation(TranslationStatus.OK, sql=answer))
    reasons = [d.get("detail", "") for d in record["suite"]["databases"]]
    assert not any("no such table" in r for r in reasons), reasons
    assert record["suite"]["match"] is True


def test_build_jobs_workers_get_picklable_arguments() -> None:
    # --jobs 2 failed before any worker started: the parsed arguments held the parser
    # (``_parser``, set by parrot.cli.configure), which does not pickle under spawn
    import argparse
    import pickle

    from parrot.testsuite.cli import build_parser, worker_args

    args = build_parser().parse_args(["build", "starter", "--jobs", "2"])
    with pytest.raises((AttributeError, pickle.PicklingError)):
        pickle.dumps(args)
    sent = pickle.loads(pickle.dumps(worker_args(args)))
    assert isinstance(sent, argparse.Namespace)
    assert sent.jobs == 2 and sent.dataset == "starter" and not hasattr(sent, "_parser")


def test_extra_candidates_are_tried_for_the_survivors(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The seam for solver-built witnesses: with no generated candidates every neighbour the
    fixture misses survives, ``extra_candidates`` is asked for databases for them, and a
    database it proposes that kills some is tried and kept like any other."""
    from parrot.fixtures import fixture_from_json
    from parrot.testsuite import distill as distill_module

    engines_or_skip()
    item = load_dataset(str(_dataset(tmp_path)), count_tokens=False).items[0]
    rows = [[1, "a", 3], [2, "a", 4], [3, "b", 3], [4, "c", 10], [5, "c", None]]
    witness = fixture_from_json({**FIXTURE, "tables": [{**FIXTURE["tables"][0], "rows": rows}]})
    asked: list[tuple[int, object]] = []

    def propose(source, survivors, schema):  # type: ignore[no-untyped-def]
        asked.append((len(survivors), schema))
        return [witness]

    monkeypatch.setattr(distill_module, "extra_candidates", propose)
    with closing(Judge()) as judge:
        suite = distill(item, judge, candidates=0, min_dbs=0).suite
    assert suite is not None and len(asked) == 1
    assert asked[0][0] > 0 and asked[0][1] is item.fixture
    assert [d.fixture.content_hash for d in suite.databases] == [witness.content_hash]
    assert suite.killed > int(suite.extra["killed_by_fixture"])


@pytest.mark.slow  # two small builds: ~55 s at load 20
def test_the_build_keeps_one_judge_across_suites_and_builds_the_same_suites(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A judge per suite started and stopped its engine workers for every source query (seconds
    each, more than the suite's own executions): the build now keeps one judge for
    JUDGE_SUITES suites, closes it at the end, and the suites it builds are the same."""
    engines_or_skip()
    from parrot.testsuite import cli

    made: list[Judge] = []
    closed: list[Judge] = []

    class Counted(Judge):
        def __init__(self, *args: object, **kwargs: object) -> None:
            super().__init__(*args, **kwargs)  # type: ignore[arg-type]
            made.append(self)

        def close(self) -> None:
            closed.append(self)
            super().close()

    monkeypatch.setattr(cli, "Judge", Counted)
    files = {}
    for every in (cli.JUDGE_SUITES, 1):
        monkeypatch.setattr(cli, "JUDGE_SUITES", every)
        (tmp_path / str(every)).mkdir()
        root = _dataset(tmp_path / str(every))
        made.clear()
        closed.clear()
        assert main(["build", str(root), "--candidates", "4", "--max-dbs", "2"]) == 0
        assert len(made) == (1 if every > 1 else 2) and closed == made
        files[every] = {p.name: p.read_text() for p in (root / "suites").glob("*.json")}
    assert len(files[1]) == 2 and files[1] == files[cli.JUDGE_SUITES]


def test_a_killed_neighbour_is_not_run_on_later_candidates(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each candidate database ran every neighbour the fixture misses, killed ones included (a
    source with one survivor ran them all on every candidate, the references' on their own
    engines): now a neighbour runs until a database kills it, and the cover counts first kills."""
    engines_or_skip()
    from parrot.testsuite import distill as distill_module

    item = load_dataset(str(_dataset(tmp_path)), count_tokens=False).items[0]
    runs: list[tuple[str, str, str]] = []
    real = distill_module.neighbour_verdict

    def outcome(judge: Judge, probe: object, fixture: object, sql: str) -> str:
        verdict = real(judge, probe, fixture, sql)  # type: ignore[arg-type]
        runs.append((sql, fixture.content_hash, verdict))  # type: ignore[attr-defined]
        return verdict

    monkeypatch.setattr(distill_module, "neighbour_verdict", outcome)
    with closing(Judge()) as judge:
        suite = distill(item, judge, candidates=8, seed=1, min_dbs=0, solver=False).suite
    assert suite is not None
    fixture = item.fixture.content_hash  # type: ignore[union-attr]
    killed_on: dict[str, str] = {}
    for sql, db, verdict in runs:
        if db == fixture:
            continue
        assert sql not in killed_on, f"{sql} ran again after {killed_on[sql]} killed it"
        if verdict == "kill":
            killed_on[sql] = db
    assert killed_on, "no candidate killed anything: the test shows nothing"
    assert sum(d.kills for d in suite.databases) == suite.killed - suite.extra["killed_by_fixture"]


@pytest.mark.parametrize(
    ("stored", "label", "kept"),
    [
        ({"generator": "rules-v15"}, "rules-v15", "made by rules-v15,"),
        ({"generator": ""}, "", "made by ,"),  # a suite only a model's rows made
        ({}, None, "made by ?,"),  # an old suite file names no generator
    ],
)
def test_the_stale_check_and_the_kept_message_read_one_generator_label(
    tmp_path: Path, stored: dict[str, Any], label: str | None, kept: str
) -> None:
    """`_stale` and `_kept` read the suite file's generator label through one helper."""
    path = tmp_path / "suite.json"
    path.write_text(json.dumps(stored), encoding="utf-8")
    assert _generator(path) == label
    assert kept in _kept(path)
