"""scripts/bench/testsuite.py: the target side (neighbours of each reference, on the target), the
LLM-data table and the marking of survivors whose source is empty everywhere."""

from __future__ import annotations

import argparse
from contextlib import closing
from dataclasses import replace
from pathlib import Path
from types import ModuleType

import pytest
from fixture_json import fixture_json, table_json
from local_only import engines_or_skip

from parrot.datasets import Item, load_dataset
from parrot.eval.judge import Judge
from parrot.testsuite.cli import main
from parrot.testsuite.store import Suite, load_suite
from parrot.translators.llm.scripted_server import Reply, ScriptedServer
from tests.script_modules import load_bench
from tests.testsuite.test_build import _dataset, _item_json
from tests.testsuite.test_llm_datagen import GOOD
from tests.testsuite.test_llm_datagen import _dataset as _llm_dataset


def _bench() -> ModuleType:
    return load_bench("testsuite")


def test_target_side_counts_neighbours_of_the_reference_on_the_target(tmp_path: Path) -> None:
    """The bench judges neighbours of each reference against it on the target engine, on the
    fixture and the suite (what eval faces), per pair and operator; a dropped ORDER BY over
    SQLite's sorted GROUP BY is unkillable there and left out of the kill rate."""
    engines_or_skip()
    sql = "SELECT grp, count(*) FROM t WHERE v > 3 GROUP BY grp ORDER BY grp"
    reference = "SELECT grp, COUNT(*) FROM t WHERE v > 3 GROUP BY grp ORDER BY grp"
    root = _dataset(tmp_path, _item_json("g", sql, reference, "duckdb:sqlite"))
    assert main(["build", str(root), "--candidates", "6"]) == 0
    item = load_dataset(str(root), count_tokens=False).items[0]
    suite = load_suite(root, item.source_dialect, item.source_sql, item.fixture)
    assert suite is not None
    bench = _bench()
    pair, ops = bench.Tally(), bench.Tally()
    with closing(Judge()) as judge:
        probe = replace(item, source_dialect=item.target_dialect, source_sql=item.reference_sql[0])
        counts = bench._side_counts(judge, probe, suite)
    pair.add_counts(*counts, item.id, item.target_dialect)
    ops.add_counts(*counts, item.id, item.target_dialect)
    n, fixture, killed, _equiv, unkillable = pair.total()
    assert n > 0 and fixture <= killed <= n - unkillable
    assert pair.ops["drop_order"][4] == 1  # SQLite's GROUP BY returns its groups sorted
    assert any(k.startswith("drop_order on sqlite") for k in pair.unkillable)
    assert ops.total() == pair.total()


def test_a_suite_built_without_the_source_side_has_it_measured_by_the_bench(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A suite built with ``--no-source-side`` (Spark's) records no source-side counts: the
    bench runs the source's neighbours itself on the fixture and the suite's databases, and
    reports the same source-side row as for a suite built with them."""
    engines_or_skip()
    root = _dataset(tmp_path, _item_json("s", "SELECT grp, v FROM t WHERE v > 3"))
    rows = {}
    for flags in (["--no-source-side"], []):
        assert main(["build", str(root), "--candidates", "6", "--force", *flags]) == 0
        item = load_dataset(str(root), count_tokens=False).items[0]
        suite = load_suite(root, item.source_dialect, item.source_sql, item.fixture)
        assert suite is not None and suite.extra.get("source_side", True) == (not flags)
        assert _bench().main([str(root), "--no-target-side", "--no-write"]) == 0
        out = capsys.readouterr().out
        side = out[out.index("[source side]") :]
        row = next(line.split() for line in side.splitlines() if line.startswith("sqlite→duckdb"))
        rows[bool(flags)] = int(row[1])
    assert rows[True] == rows[False] > 0  # the same neighbours counted, here or at the build


def test_llm_table_counts_fixture_suite_and_model_kills(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--llm MODEL --api-base URL``: per pair and operator, the neighbours killed by the fixture,
    by fixture + suite and with the model's data, and the kills only the model's data adds (here
    a v = 6 row, the boundary the fixture lacks, in a suite built without candidates)."""
    engines_or_skip()
    root = _llm_dataset(tmp_path)
    # --no-solver: z3's witnesses would kill what this suite leaves for the model's data
    assert main(["build", str(root), "--candidates", "0", "--no-solver"]) == 0
    with ScriptedServer(lambda request: Reply(GOOD)) as server:
        assert (
            _bench().main(
                [
                    str(root),
                    "--no-target-side",
                    "--no-write",
                    "--llm",
                    "openai/scripted",
                    "--api-base",
                    server.url,
                    "--cache",
                    str(tmp_path / "c.sqlite"),
                    "--request-timeout",
                    "10",
                ]
            )
            == 0
        )
    out = capsys.readouterr().out
    table = out[out.index("LLM data:") :]
    row = next(line.split() for line in table.splitlines() if line.startswith("sqlite→duckdb"))
    n, fixture, suite, plus, added = int(row[1]), row[2], row[3], row[4], int(row[5])
    assert n > 0 and fixture == suite and added >= 2 and plus != suite
    flip = next(line.split() for line in table.splitlines() if line.startswith("flip_comparison"))
    assert int(flip[5]) == 1
    assert "1 suites, 1 requests" in table


def test_survivors_of_a_source_empty_everywhere_are_marked(tmp_path: Path) -> None:
    """A survivor whose source returns no rows on the fixture and every suite database is
    marked so, and counted in the MISSED line: only data where the source has rows can kill it."""
    engines_or_skip()
    item_json = {
        "id": "e",
        "source_dialect": "sqlite",
        "target_dialect": "duckdb",
        "source_sql": "SELECT grp FROM t WHERE v > 1000",
        "fixture": {"name": "tiny"},
    }
    root = _dataset(tmp_path, item_json)
    item = load_dataset(str(root), count_tokens=False).items[0]
    assert item.fixture is not None
    suite = Suite(
        key="k",
        source_dialect="sqlite",
        source_sql=item.source_sql,
        fixture_sha256=item.fixture.content_hash,
        databases=(),
        extra={
            "operators": {"literal_plus": [1, 0, 0, 0, 0]},
            "survivors": [["literal_plus", "SELECT grp FROM t WHERE v > 1001"]],
        },
    )
    bench = _bench()
    with closing(Judge()) as judge:
        assert bench._source_empty(judge, item, suite)
        assert not bench._source_empty(judge, replace(item, source_sql="SELECT grp FROM t"), suite)
    tally = bench.Tally()
    tally.add(suite, item.id, empty=True)
    assert tally.empty["literal_plus"] == 1
    assert "[source empty everywhere]" in tally.survivors["literal_plus"][0]


def test_source_and_skip_target_select_the_items_measured() -> None:
    """``--source`` keeps only items from those dialects (a per-source rebuild's), before
    ``--skip-target`` and ``--limit``."""
    items = tuple(
        Item(id=f"{s}-{t}", source_dialect=s, target_dialect=t, source_sql="SELECT 1")
        for s in ("mysql", "sqlite")
        for t in ("duckdb", "spark")
    )
    args = argparse.Namespace(source=["mysql"], skip_target=["spark"], limit=None)
    assert [i.id for i in _bench().selected(items, args)] == ["mysql-duckdb"]
    args = argparse.Namespace(source=[], skip_target=[], limit=3)
    assert [i.id for i in _bench().selected(items, args)] == [
        "mysql-duckdb",
        "mysql-spark",
        "sqlite-duckdb",
    ]


def test_leave_one_family_out(tmp_path: Path) -> None:
    """A build blind to a family counts none of its neighbours; the bench counts that family's
    neighbours on the blind build's suite beside the in-sample rate, and renders the table."""
    from parrot.testsuite.distill import distill
    from parrot.testsuite.operators import family_of

    engines_or_skip()
    root = _dataset(tmp_path)
    item = load_dataset(str(root), count_tokens=False).items[0]
    bench = _bench()
    with closing(Judge()) as judge:
        blind = distill(item, judge, candidates=4, exclude=frozenset({"OR.relational"}))
        assert blind.operators and not any(
            family_of(op) == "OR.relational" for op in blind.operators
        )
        families: dict[str, list[int]] = {}
        run = bench.lofo_source(judge, item, (item.source_dialect,), (item,), families)
    assert run["dbs"] >= 1 and run["judged"] == 1 and run["separated"] == 0
    n, killed, left_out, killed_left_out, bounded, _proved = families["OR.relational"]
    assert n == left_out + bounded > 0 and killed <= n and killed_left_out <= left_out
    table = bench.lofo_table(families, [run], "tiny")
    assert "| OR.relational |" in table and "1 suites built" in table


def test_left_out_survivors_the_solver_proves_equal_are_counted_apart() -> None:
    """A left-out neighbour no suite database kills but the solver proves equal to the source on
    every small database is bounded-equivalent (not a survivor); one it separates stays."""
    pytest.importorskip("z3")
    from parrot.fixtures import fixture_from_json
    from parrot.testsuite.neighbours import Neighbour

    engines_or_skip()
    fixture = fixture_from_json(
        fixture_json("b", table_json("t", [[1, 5], [2, 7]], id="integer NOT NULL", a="integer"))
    )
    item = Item(
        id="b",
        source_dialect="sqlite",
        target_dialect="sqlite",
        source_sql="SELECT id FROM t WHERE a > 1",
        fixture=fixture,
    )
    equal = Neighbour("flip_comparison", "SELECT id FROM t WHERE NOT a <= 1")
    other = Neighbour("flip_comparison", "SELECT id FROM t WHERE a >= 1")
    with closing(Judge()) as judge:
        assert _bench()._bounded(judge, item, [equal, other]) == [equal]


def test_a_neighbour_no_data_can_kill_is_left_out_of_the_held_out_count_too(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Regression: the in-sample column left out order-only neighbours no database can kill on
    the source's engine, the held-out column counted them as survivors (polyglot SC.order_by
    87.5% held-out against 100% in sample)."""
    from parrot.eval.suites import Suite, SuiteDatabase
    from parrot.fixtures import fixture_from_json
    from parrot.testsuite.distill import Distilled
    from parrot.testsuite.neighbours import Neighbour

    bench = _bench()
    fixture = fixture_from_json(fixture_json("u", table_json("t", [[1]], id="integer")))
    item = Item(id="u", source_dialect="sqlite", target_dialect="sqlite", source_sql="SELECT 1")
    killable, unkillable = Neighbour("drop_order", "SELECT 2"), Neighbour("drop_order", "SELECT 3")
    suite = Suite(
        "k", "sqlite", "SELECT 1", "", (SuiteDatabase(fixture),),
        extra={"unkillable": [["drop_order", unkillable.sql, "the engine's order"]]},
    )  # fmt: skip
    built = Distilled(suite, operators={"drop_order": [2, 0, 1, 0, 1]})
    monkeypatch.setattr(bench, "distill", lambda *a, **k: built)
    monkeypatch.setattr(bench, "_family_neighbours", lambda *a: [killable, unkillable])
    monkeypatch.setattr(bench, "_killed", lambda _j, _i, found, _s: [killable])
    monkeypatch.setattr(bench, "_bounded", lambda *a: [])
    monkeypatch.setattr(bench, "_separations", lambda *a: (0, []))
    families: dict[str, list[int]] = {}
    bench.lofo_source(None, item, ("sqlite",), (item,), families)
    assert families["SC.order_by"][:4] == [1, 1, 1, 1]
