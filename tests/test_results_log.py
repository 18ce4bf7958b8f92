import json

import pytest

from parrot.api.results import (
    DAMAGED,
    DamagedResultsError,
    ResultsLog,
    RunDirError,
    read_results,
)
from parrot.report.cli import main as report_main
from parrot.report.metrics import MODES


def _record(item_id):
    """A minimal outcome record with the fields the report reads."""
    return {
        "id": item_id,
        "source_dialect": "sqlite",
        "target_dialect": "duckdb",
        "gold": {"status": "ok", "rows": 1},
        "pred": {"status": "ok", "rows": 1},
        "translation": {"status": "ok"},
        "tokens": 5,
        "verdicts": {m: {"match": True, "reason": "match"} for m in MODES},
    }


def _write(tmp_path, ids):
    log = ResultsLog(tmp_path)
    for i in ids:
        log.append(_record(i))
    log.close()


def _damage_line(tmp_path, number, text='{"id": "broken", "x"\n'):
    path = tmp_path / "results.jsonl"
    lines = path.read_text().splitlines(keepends=True)
    lines[number - 1] = text
    path.write_text("".join(lines))


def test_resume_skips_done_ids_and_sets_aside_a_torn_tail(tmp_path):
    _write(tmp_path, ["a", "b"])
    with (tmp_path / "results.jsonl").open("a") as fh:
        fh.write('{"id": "c", "x"')  # the process died mid-write
    log = ResultsLog(tmp_path)
    assert log.done == {"a", "b"} and log.repaired == [3]
    log.append({"id": "c", "x": 3})
    log.close()
    assert [r["id"] for r in read_results(tmp_path)] == ["a", "b", "c"]
    lines = (tmp_path / "results.jsonl").read_text().splitlines()
    assert all(json.loads(line) for line in lines)
    assert json.loads((tmp_path / DAMAGED).read_text()) == {"line": 3, "text": '{"id": "c", "x"'}


def test_a_damaged_mid_file_line_is_reported_by_number(tmp_path):
    _write(tmp_path, [f"i{n}" for n in range(1, 11)])
    _damage_line(tmp_path, 4)
    with pytest.raises(DamagedResultsError, match="line number\\(s\\) 4"):
        read_results(tmp_path)
    assert [r["id"] for r in read_results(tmp_path, skip_bad=True)] == [
        f"i{n}" for n in range(1, 11) if n != 4
    ]


def test_report_fails_on_a_damaged_line_unless_skip_bad(tmp_path, capsys):
    _write(tmp_path, [f"i{n}" for n in range(1, 11)])
    _damage_line(tmp_path, 4)
    assert report_main([str(tmp_path), "--format", "json"]) != 0
    assert "4" in capsys.readouterr().err
    assert report_main([str(tmp_path), "--format", "json", "--skip-bad"]) == 0
    captured = capsys.readouterr()
    assert "skipped 1 damaged line" in captured.err
    assert '"items": 9' in captured.out


def test_resume_keeps_every_valid_line_after_a_damaged_one(tmp_path):
    ids = [f"i{n}" for n in range(1, 11)]
    _write(tmp_path, ids)
    before = (tmp_path / "results.jsonl").read_text().splitlines(keepends=True)
    _damage_line(tmp_path, 4)
    log = ResultsLog(tmp_path)
    assert log.repaired == [4]
    assert log.done == set(ids) - {"i4"}  # only the damaged id is re-run
    log.append(_record("i4"))
    log.close()
    after = (tmp_path / "results.jsonl").read_text().splitlines(keepends=True)
    assert after[:3] + after[3:9] == before[:3] + before[4:]  # valid lines kept byte for byte
    assert sorted(r["id"] for r in read_results(tmp_path)) == sorted(ids)
    assert json.loads((tmp_path / DAMAGED).read_text())["line"] == 4


def test_an_id_is_never_written_twice(tmp_path):
    log = ResultsLog(tmp_path)
    log.append({"id": "a"})
    with pytest.raises(RunDirError):
        log.append({"id": "a"})
    log.close()
