"""``python -m parrot.curate`` end to end on a slice of the shared corpora."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from curate_pairs import verified_pair
from processes import judge_starting_servers

from parrot.curate.cli import main
from parrot.datasets import load_dataset
from parrot.migrate.named import corpora_root
from parrot.translators.base import Translation, TranslationStatus

pytestmark = pytest.mark.skipif(
    not (corpora_root() / "sqlglot").is_dir(),
    reason="shared corpora absent: set PARROT_CORPORA or place them at ../shared/corpora",
)


@pytest.mark.slow  # the whole curation pipeline with generated data (tens of seconds)
def test_simple_variant_end_to_end(tmp_path: Path) -> None:
    out = tmp_path / "simple"
    assert main(["--variant", "simple", "--limit", "150", "-o", str(out), "--quiet"]) == 0
    manifest = json.loads((out / "manifest.json").read_text())
    funnel = {line["stage"]: line for line in manifest["funnel"]}
    assert funnel["standardise"]["in"] == 150 == manifest["input_statements"]
    assert funnel["classify"]["out"] == manifest["outputs"]["items"] > 0
    for a, b in zip(manifest["funnel"], manifest["funnel"][1:], strict=False):
        assert b["in"] == a["out"]
    assert manifest["parameters"]["stages"]["annotate"]["annotators"][0]["name"] == "sqlglot"
    assert manifest["suites"]["exit_status"] == 0  # curation builds the suites it can
    assert (out / "suites").is_dir() and manifest["suites"]["files"] > 0
    dataset = load_dataset(str(out))
    with judge_starting_servers() as judge:  # curation stopped the servers it started
        for item in dataset.items:
            record = judge.judge(item, Translation(TranslationStatus.OK, sql=item.reference_sql[0]))
            assert record["verdicts"]["strict"]["match"], record["verdicts"]["strict"]


def test_unknown_annotator_is_refused(tmp_path: Path) -> None:
    assert main(["--variant", "simple", "--annotator", "nope", "-o", str(tmp_path), "--quiet"]) == 2


def test_quiet_still_shows_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``--quiet`` hides progress bars and the funnel, never the reason a run was refused."""
    assert (
        main(
            [
                "--variant",
                "simple",
                "--pairs",
                "sqlite:duckdb",
                "--targets",
                "duckdb",
                "-o",
                str(tmp_path),
                "--quiet",
            ]
        )
        == 2
    )
    assert "--pairs replaces --sources/--targets" in capsys.readouterr().err
    assert main(["--variant", "simple", "--annotator", "nope", "-o", str(tmp_path), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "nope" in err, err


@pytest.mark.slow  # a small curation run (engines, generated data)
def test_no_suites_skips_the_suite_build(tmp_path: Path) -> None:
    out = tmp_path / "simple"
    assert (
        main(["--variant", "simple", "--limit", "150", "-o", str(out), "--no-suites", "--quiet"])
        == 0
    )
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["outputs"]["items"] > 0  # items written, so only --no-suites skipped them
    assert "suites" not in manifest
    assert not (out / "suites").exists()


def _one_verified_pair(monkeypatch: pytest.MonkeyPatch) -> None:
    """The pipeline replaced by one verified pair, so only what follows it runs."""
    from parrot.curate import cli

    pair = verified_pair("p", "SELECT 1 AS a")
    monkeypatch.setattr(cli, "_run", lambda *a, **k: ([pair], [], [], 1))


def test_simple_defaults_pair_five_engines_and_add_the_rules(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without options the simple variant reads and targets the five engines here besides
    Spark, annotates with sqlglot and its rules, and starts (then stops) the two servers."""
    import parrot.eval.cli
    import parrot.testsuite.cli

    calls: list[tuple[str, list[str]]] = []

    def start(needed: list[str], console: object) -> tuple[list[str], dict[str, str]]:
        calls.append(("start", list(needed)))
        return ["mysql"], {"postgres": "its server failed to start: test"}

    monkeypatch.setattr(parrot.eval.cli, "start_servers", start)
    monkeypatch.setattr(
        parrot.eval.cli, "stop_servers", lambda started: calls.append(("stop", list(started)))
    )
    monkeypatch.setattr(parrot.testsuite.cli, "main", _failing_builder(0))
    _one_verified_pair(monkeypatch)
    assert main(["--variant", "simple", "-o", str(tmp_path), "--quiet"]) == 0
    assert calls == [("start", ["mysql", "postgres"]), ("stop", ["mysql"])]
    params = json.loads((tmp_path / "manifest.json").read_text())["parameters"]
    local = ["sqlite", "duckdb", "clickhouse", "postgres", "mysql"]
    assert params["sources"] == local == params["targets"]
    assert [a["name"] for a in params["stages"]["annotate"]["annotators"]] == ["sqlglot", "rules"]
    calls.clear()
    assert (
        main(
            [
                "--variant",
                "simple",
                "-o",
                str(tmp_path),
                "--quiet",
                "--no-start",
                "--annotator",
                "sqlglot",
            ]
        )
        == 0
    )
    assert calls == []
    params = json.loads((tmp_path / "manifest.json").read_text())["parameters"]
    assert [a["name"] for a in params["stages"]["annotate"]["annotators"]] == ["sqlglot"]


def _failing_builder(rc: int) -> object:
    def build(argv: list[str]) -> int:
        import sys

        print("  10/10 (progress)", file=sys.stderr)
        print("suites built: 0")
        if rc == 99:
            raise RuntimeError("builder defect")
        return rc

    return build


@pytest.mark.parametrize("rc", [3, 99])
def test_a_failed_suite_build_is_an_error_and_items_stay(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], rc: int
) -> None:
    import parrot.testsuite.cli

    _one_verified_pair(monkeypatch)
    monkeypatch.setattr(parrot.testsuite.cli, "main", _failing_builder(rc))
    assert (
        main(["--variant", "simple", "--limit", "1", "-o", str(tmp_path), "--quiet", "--no-start"])
        == 1
    )
    captured = capsys.readouterr()
    assert "10/10 (progress)" not in captured.out  # --quiet holds the builder's progress back
    assert "building the test suites failed" in captured.err
    assert "dataset has no suites" in captured.err and "1 items are written" in captured.err
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    assert manifest["suites"]["exit_status"] == (1 if rc == 99 else rc)
    assert len((tmp_path / "items.jsonl").read_text().splitlines()) == 1


def test_a_quiet_suite_build_prints_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import parrot.testsuite.cli

    _one_verified_pair(monkeypatch)
    monkeypatch.setattr(parrot.testsuite.cli, "main", _failing_builder(0))
    assert (
        main(["--variant", "simple", "--limit", "1", "-o", str(tmp_path), "--quiet", "--no-start"])
        == 0
    )
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err == ""


def _selection(stages: list[object]) -> list[object]:
    """``stages`` up to coverage (what the streamed selection replaces)."""
    index = next(i for i, s in enumerate(stages) if type(s).__name__ == "Coverage")
    return stages[: index + 1]


def test_streamed_selection_is_the_in_memory_selection(tmp_path: Path) -> None:
    """``--stream`` on the simple variant (canonicalise and ground between standardise and
    normalise): the statements selected, their clusters, texts and grounding are those of the
    in-memory pipeline."""
    from parrot.cli import table_console
    from parrot.curate import cli
    from parrot.curate.stages import LocalExecutor
    from parrot.curate.variants import VARIANTS

    args = cli.build_parser().parse_args(["--variant", "simple", "--stream", "-o", str(tmp_path)])
    variant = VARIANTS.get("simple")
    records = variant.load(variant.sources)[0][:200]
    stages = _selection(cli.build_stages(args, variant.targets, None, False))
    assert cli.streams(args, variant, variant.sources, stages)
    console = table_console(stderr=True, quiet=True)
    got = cli._run(records, stages, LocalExecutor(1), 50, console, True, streamed=True)
    expected = cli._run(records, stages, LocalExecutor(1), 50, console, True)
    assert [(r.id, r.cluster, r.rank, r.sql, r.tags, r.info) for r in got[0]] == [
        (r.id, r.cluster, r.rank, r.sql, r.tags, r.info) for r in expected[0]
    ]
    assert any("grounded" in r.tags for r in got[0])
    assert got[3] == expected[3] == 200
    assert [c.stage for c in got[1]] == [c.stage for c in expected[1]]


@pytest.mark.parametrize(
    ("argv", "why"),
    [
        (["--variant", "main"], "the hard stage needs every statement"),
        (["--anonymise", "entity"], "the anonymise stage needs every statement"),
    ],
)
def test_stream_refuses_stages_that_need_every_statement(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], why: str
) -> None:
    assert main([*argv, "--stream", "-o", str(tmp_path), "--quiet", "--no-start"]) == 2
    assert why in capsys.readouterr().err


def test_a_large_corpus_streams_by_default(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from parrot.curate import cli
    from parrot.curate.variants import VARIANTS

    def decide(*flags: str, variant: str = "diverse") -> bool:
        args = cli.build_parser().parse_args(["--variant", variant, *flags, "-o", str(tmp_path)])
        chosen = VARIANTS.get(variant)
        stages = cli.build_stages(args, chosen.targets, None, False)
        return cli.streams(args, chosen, chosen.sources, stages)

    assert not decide()  # the corpus is far below the threshold
    monkeypatch.setattr(cli, "STREAM_BYTES", 1)
    assert decide()
    assert not decide("--no-stream")
    assert not decide("--limit", "10")  # a limited input is read here, in memory
    assert not decide(variant="main")  # the hard stage's length cut needs every statement
