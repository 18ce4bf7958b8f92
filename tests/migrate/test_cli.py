"""``python -m parrot.migrate``: write a fixture file, load it on engines, list names."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from parrot.fixtures import fixture_from_json
from parrot.migrate.cli import main


def test_writes_a_fixture_that_the_dataset_loader_reads(
    dirty_db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "shop.json"
    assert main([str(dirty_db), "--name", "shop", "-o", str(out), "--load", "sqlite"]) == 0
    fx = fixture_from_json(json.loads(out.read_text()))
    assert fx.name == "shop" and [t.name for t in fx.tables] == ["station", "weather"]
    printed = capsys.readouterr().out
    assert "shop: 2 tables, 7 rows, 5 retyped column(s)" in printed and "sqlite " in printed
    assert "weather.temp: declared INTEGER" in printed


def test_gzip_output_and_report(
    dirty_db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "f.json.gz"
    assert main([str(dirty_db), "--tables", "station", "--report", "-o", str(out)]) == 0
    data = json.loads(gzip.decompress(out.read_bytes()))
    assert [t["name"] for t in data["tables"]] == ["station"]
    assert "station.lat: REAL → double" in capsys.readouterr().out


def test_bad_source_fails(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([str(tmp_path / "missing.db")]) == 1
    assert "no such database file" in capsys.readouterr().err


def test_list(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--list"]) == 0
    listed = capsys.readouterr().out.split()
    assert listed == sorted(listed)


@pytest.mark.parametrize("suffix", [".json", ".json.gz"])
def test_load_reads_what_out_wrote(
    dirty_db: Path, tmp_path: Path, suffix: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A fixture written by ``--out x.json.gz`` was not a source ``--load`` could read
    ("neither a SQLite nor a DuckDB database file")."""
    out = tmp_path / f"shop{suffix}"
    assert main([str(dirty_db), "--name", "shop", "--out", str(out)]) == 0
    written = capsys.readouterr().out.splitlines()[0].split("  ")[0]
    assert main([str(out), "--load", "sqlite,duckdb"]) == 0
    line = capsys.readouterr().out.splitlines()[0]
    assert line.startswith(written) and "sqlite " in line and "duckdb " in line
    assert "FAILED" not in line


def test_a_fixture_file_that_is_not_one_fails_clearly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "x.json.gz"
    bad.write_bytes(b"not gzip")
    assert main([str(bad), "--load", "sqlite"]) == 1
    assert "not a fixture file" in capsys.readouterr().err
