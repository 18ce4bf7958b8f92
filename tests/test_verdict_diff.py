"""scripts/verdict_diff.py: two runs compared by id, whatever order their lines are in."""

from parrot.api.results import ResultsLog
from tests.script_modules import SCRIPTS, load_script

verdict_diff = load_script(SCRIPTS / "verdict_diff.py")


def _record(item_id, match=True, suite=True):
    return {
        "id": item_id,
        "translation": {"status": "ok"},
        "gold": {"status": "ok"},
        "pred": {"status": "ok"},
        "elapsed": 0.5 if match else 9.0,
        "verdicts": {
            m: {"match": match, "reason": "match" if match else "row_count"}
            for m in ("strict", "normalized", "multiset")
        },
        "suite": {"match": suite},
    }


def _run(path, records):
    path.mkdir()
    log = ResultsLog(path)
    for record in records:
        log.append(record)
    log.close()
    return path


def test_same_verdicts_in_another_order_and_other_timings_are_no_difference(tmp_path, capsys):
    a = _run(tmp_path / "a", [_record("x"), _record("y", match=False)])
    b = _run(tmp_path / "b", [dict(_record("y", match=False), elapsed=1.0), _record("x")])
    assert verdict_diff.main([str(a), str(b)]) == 0
    assert "differing verdicts: 0 of 2" in capsys.readouterr().out


def test_a_changed_match_or_suite_verdict_is_listed_by_id(tmp_path, capsys):
    a = _run(tmp_path / "a", [_record("x"), _record("y"), _record("z")])
    b = _run(tmp_path / "b", [_record("x"), _record("y", match=False), _record("z", suite=False)])
    assert verdict_diff.main([str(a), str(b)]) == 1
    out = capsys.readouterr().out
    assert "differing verdicts: 2 of 3" in out and "  y\n" in out and "  z\n" in out
    assert verdict_diff.main([str(a), str(b), "--no-suite"]) == 1
    assert "differing verdicts: 1 of 3" in capsys.readouterr().out


def test_ids_only_in_one_run_fail_the_comparison(tmp_path, capsys):
    a = _run(tmp_path / "a", [_record("x"), _record("y")])
    b = _run(tmp_path / "b", [_record("x")])
    assert verdict_diff.main([str(a), str(b)]) == 1
    assert "only in A 1" in capsys.readouterr().out
