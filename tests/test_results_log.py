import json

import pytest

from parrot.eval.results import ResultsLog, RunDirError, read_results


def test_resume_skips_done_ids_and_cuts_a_torn_tail(tmp_path):
    log = ResultsLog(tmp_path)
    log.append({"id": "a", "x": 1})
    log.append({"id": "b", "x": 2})
    log.close()
    with (tmp_path / "results.jsonl").open("a") as fh:
        fh.write('{"id": "c", "x"')  # the process died mid-write
    log = ResultsLog(tmp_path)
    assert log.done == {"a", "b"} and log.repaired_bytes > 0
    log.append({"id": "c", "x": 3})
    log.close()
    assert [r["id"] for r in read_results(tmp_path)] == ["a", "b", "c"]
    lines = (tmp_path / "results.jsonl").read_text().splitlines()
    assert all(json.loads(line) for line in lines)


def test_an_id_is_never_written_twice(tmp_path):
    log = ResultsLog(tmp_path)
    log.append({"id": "a"})
    with pytest.raises(RunDirError):
        log.append({"id": "a"})
    log.close()
