"""A dataset file's load keeps what it found — every line passed the item schema, each item's
token count — under the cache root by the digest of the file's bytes, the schemas and the
validator's and tokenizer's versions, so loading the same file again validates and counts
nothing (issue 31: 0.4 CPU-s before every starter run). Counted calls, never wall-clock."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from parrot import datasets
from parrot.api import schemas
from parrot.datasets import DatasetError, load_dataset

ITEMS = [
    {
        "id": f"k{n}",
        "source_dialect": "sqlite",
        "target_dialect": "duckdb",
        "source_sql": f"SELECT {n} AS kept_{n}",
    }
    for n in range(3)
]


@pytest.fixture
def calls(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    monkeypatch.setenv("PARROT_CACHE", str(tmp_path / "cache"))
    counted = {"validated": 0, "counted": 0}
    validate, count = schemas.problems, datasets._count

    def validating(*args: object) -> list[str]:
        counted["validated"] += 1
        return validate(*args)  # type: ignore[arg-type]

    def counting(text: str) -> int:
        counted["counted"] += 1
        return count(text)

    monkeypatch.setattr(schemas, "problems", validating)
    monkeypatch.setattr(datasets, "_count", counting)
    return counted


def _write(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def test_a_file_loaded_again_is_neither_validated_nor_counted_again(tmp_path, calls):
    path = _write(tmp_path / "items.jsonl", ITEMS)
    first = load_dataset(str(path))
    assert calls == {"validated": 3, "counted": 3}
    again = load_dataset(str(path))
    assert calls == {"validated": 3, "counted": 3}
    assert again.items == first.items and all(i.tokens for i in again.items)


def test_changed_bytes_are_validated_again_and_a_bad_file_is_never_kept(tmp_path, calls):
    path = _write(tmp_path / "items.jsonl", ITEMS)
    load_dataset(str(path))
    _write(path, [*ITEMS, {**ITEMS[0], "id": "k9", "source_sql": ""}])
    for _ in range(2):  # refused both times: nothing was kept of it
        with pytest.raises(DatasetError, match="k9"):
            load_dataset(str(path))
    assert calls["validated"] == 3 + 4 + 4


def test_a_load_without_token_counts_keeps_the_check_and_counts_later(tmp_path, calls):
    path = _write(tmp_path / "items.jsonl", ITEMS)
    assert [i.tokens for i in load_dataset(str(path), count_tokens=False).items] == [None] * 3
    assert all(i.tokens for i in load_dataset(str(path)).items)
    assert calls == {"validated": 3, "counted": 3}
    load_dataset(str(path))
    assert calls == {"validated": 3, "counted": 3}


def test_an_unwritable_cache_only_costs_time(tmp_path, calls, monkeypatch):
    blocker = tmp_path / "cache-file"
    blocker.write_text("not a directory")
    monkeypatch.setenv("PARROT_CACHE", str(blocker))
    path = _write(tmp_path / "items.jsonl", ITEMS)
    assert len(load_dataset(str(path)).items) == len(load_dataset(str(path)).items) == 3
    assert calls == {"validated": 6, "counted": 6}
