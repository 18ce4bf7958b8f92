"""parrot.api.jsonl: the one JSONL reader and writer."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from parrot.api import jsonl


def test_read_reports_damaged_lines_by_number_and_keeps_the_valid_ones(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    text = '{"id": "a"}\nnot json\n\n{"id": "b", "s": "\u2028"}\n{"id": "c"}'  # no last \\n
    path.write_text(text, encoding="utf-8")
    valid, damaged = jsonl.read(path)
    assert valid == [(1, {"id": "a"}), (4, {"id": "b", "s": "\u2028"}), (5, {"id": "c"})]
    assert damaged == [(2, "not json\n")]


def test_objects_raise_on_a_damaged_line(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    path.write_text('{"a": 1}\n\n[2]\n', encoding="utf-8")
    assert list(jsonl.objects(path)) == [{"a": 1}, [2]]
    path.write_text('{"a": 1}\n{"a": \n', encoding="utf-8")
    with pytest.raises(json.JSONDecodeError):
        list(jsonl.objects(path))


def test_appender_ends_a_torn_line_first(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    path.write_text('{"id": "a"}\n{"id": "b', encoding="utf-8")
    emit = jsonl.appender(path)
    emit({"id": "c", "when": path})  # unknown types are written as text
    valid, damaged = jsonl.read(path)
    assert valid == [(1, {"id": "a"}), (3, {"id": "c", "when": str(path)})]
    assert damaged == [(2, '{"id": "b\n')]
