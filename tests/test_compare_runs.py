"""``parrot compare RUN_A RUN_B`` on real runs: the reference translations of the first starter
items, and runs of predictions files equal to them except for items made wrong on purpose (a
query of a table that does not exist), so every fixed and broken item is known in advance."""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

import pytest
from statsmodels.stats.contingency_tables import mcnemar

from parrot.cli import main as parrot_main
from parrot.eval.cli import main as eval_main

LIMIT = 8
WRONG = "SELECT no_such_column FROM no_such_table"
IDS = [
    json.loads(line)["id"]
    for line in (Path(__file__).resolve().parent.parent / "datasets/starter/items.jsonl")
    .read_text()
    .splitlines()[:LIMIT]
]
# run name -> the items (indexes into IDS) its predictions file gets wrong
BROKEN = {"p": (1, 4), "q": (6,), "w": tuple(range(LIMIT))}


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("compare-runs")
    out = {"ref": base / "ref"}
    common = ["--quiet", "--no-suite", "--limit", str(LIMIT)]
    assert eval_main([*common, "--model", "reference", "--output-dir", str(out["ref"])]) == 0
    reference = {
        r["id"]: r["translation"]["sql"]
        for r in map(json.loads, (out["ref"] / "results.jsonl").read_text().splitlines())
    }
    for name, wrong in BROKEN.items():
        preds = base / f"{name}.jsonl"
        preds.write_text(
            "".join(
                json.dumps({"id": i, "translated_sql": WRONG if n in wrong else reference[i]})
                + "\n"
                for n, i in enumerate(IDS)
            )
        )
        out[name] = base / name
        assert eval_main([*common, "--model", f"file:{preds}", "--output-dir", str(out[name])]) == 0
    return out


def _compare(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = parrot_main(["compare", *argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


# (A, B, fixed, broken): indexes into IDS; both-right and both-wrong are the rest
CASES = [
    ("ref", "p", (), (1, 4)),
    ("p", "ref", (1, 4), ()),
    ("p", "q", (1, 4), (6,)),
    ("ref", "w", (), tuple(range(LIMIT))),
    ("q", "w", (), (0, 1, 2, 3, 4, 5, 7)),
]


@pytest.mark.parametrize(("a", "b", "fixed", "broken"), CASES)
def test_compare_lists_fixed_and_broken_items_and_mcnemar_equals_statsmodels(
    runs, capsys, a, b, fixed, broken
) -> None:
    code, out, _ = _compare(capsys, str(runs[a]), str(runs[b]), "--json")
    assert code == 0
    result = json.loads(out)
    wrong_a, wrong_b = set(BROKEN.get(a, ())), set(BROKEN.get(b, ()))
    expected = {
        "fixed": fixed,
        "broken": broken,
        "both_right": [n for n in range(LIMIT) if n not in wrong_a | wrong_b],
        "both_wrong": sorted(wrong_a & wrong_b),
    }
    for key, indexes in expected.items():
        assert result["items"][key] == sorted(IDS[n] for n in indexes), key
    assert result["items"]["not_judged"] == []
    o = result["overall"]
    table = [[o["both_right"], o["broken"]], [o["fixed"], o["both_wrong"]]]
    assert o["mcnemar_p"] == pytest.approx(mcnemar(table, exact=True).pvalue, rel=1e-12)
    assert o["diff"] == pytest.approx(100.0 * (len(fixed) - len(broken)) / LIMIT, abs=0.01)
    low, high = o["diff_ci"]
    assert low <= o["diff"] <= high
    pairs = {k: v["paired"] for k, v in result["by_pair"].items()}
    assert sum(pairs.values()) == LIMIT and "sqlite→duckdb" in pairs


@pytest.mark.parametrize(
    ("a", "b", "code"), [("ref", "w", 1), ("w", "ref", 0), ("p", "q", 0), ("ref", "p", 0)]
)
def test_fail_on_regression_exits_1_only_when_b_is_significantly_worse(
    runs, capsys, a, b, code
) -> None:
    # ref → w: 8 broken, 0 fixed, p = 2 · 0.5^8 < 0.05; ref → p: 2 broken, p = 0.5
    status, out, _ = _compare(capsys, str(runs[a]), str(runs[b]), "--fail-on-regression")
    assert status == code
    assert ("significantly worse" in out) == (code == 1)
    assert "| fixed |" in out and "McNemar p" in out


def _edited(runs: dict[str, Path], tmp_path: Path, change: dict) -> Path:
    copy = tmp_path / "edited"
    shutil.copytree(runs["p"], copy)
    manifest = json.loads((copy / "manifest.json").read_text())
    for key, value in change.items():
        if isinstance(value, dict):
            manifest[key] = {**manifest.get(key, {}), **value}
        else:
            manifest[key] = value
    (copy / "manifest.json").write_text(json.dumps(manifest))
    return copy


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"comparator": 999}, "different verdict rules (comparator v"),
        ({"dataset": {"sha256": "0" * 64}}, "different dataset files"),
    ],
)
def test_compare_refuses_runs_judged_differently(runs, capsys, tmp_path, change, message) -> None:
    code, out, err = _compare(capsys, str(runs["ref"]), str(_edited(runs, tmp_path, change)))
    assert code == 2 and out == ""
    assert message in err and len(err.strip().splitlines()) == 1


def test_compare_refuses_runs_over_different_items(runs, capsys, tmp_path) -> None:
    fewer = tmp_path / "fewer"
    shutil.copytree(runs["q"], fewer)
    lines = (fewer / "results.jsonl").read_text().splitlines()
    (fewer / "results.jsonl").write_text("\n".join(lines[:-2]) + "\n")
    code, out, err = _compare(capsys, str(runs["ref"]), str(fewer))
    assert code == 2 and out == ""
    assert f"different items (2 only in A, 0 only in B; e.g. A: {sorted(IDS[6:])[0]})" in err
    code, _, err = _compare(capsys, str(runs["ref"]), str(tmp_path / "missing"))
    assert code == 2 and "not a parrot run directory" in err


def test_compare_is_a_parrot_subcommand_whose_help_states_every_default(capsys) -> None:
    from parrot.report.paired import build_parser

    parser = build_parser()
    formatter = parser._get_formatter()
    for action in parser._actions:
        if action.option_strings and action.default is not argparse.SUPPRESS:
            assert "default" in formatter._get_help_string(action), action.option_strings  # type: ignore[attr-defined]
    with pytest.raises(SystemExit):
        parrot_main(["--help"])
    assert "compare" in capsys.readouterr().out
    assert parrot_main(["compare", "a", "b", "--alpha", "2"]) == 2
