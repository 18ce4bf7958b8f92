"""The datasets ship inside the wheel (``parrot/_datasets/``) and are found there when no
checkout ``datasets/`` is beside the package."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import parrot.datasets as ds

REPO = Path(__file__).resolve().parents[1]


def test_datasets_root_falls_back_to_packaged_copy(tmp_path, monkeypatch):
    monkeypatch.delenv("PARROT_DATASETS", raising=False)
    pkg = tmp_path / "site" / "parrot"
    (pkg / "_datasets").mkdir(parents=True)
    monkeypatch.setattr(ds, "__file__", str(pkg / "datasets.py"))
    assert ds.datasets_root() == pkg / "_datasets"
    (tmp_path / "site" / "datasets").mkdir()
    assert ds.datasets_root() == tmp_path / "site" / "datasets"


@pytest.mark.slow
def test_wheel_contains_every_dataset_file(tmp_path):
    if not (REPO / "setup.py").is_file() or shutil.which("git") is None:
        pytest.skip("needs the source checkout (setup.py) and git")
    build = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", str(REPO), "--no-deps", "-w", str(tmp_path), "-q"],
        capture_output=True,
        text=True,
    )
    if build.returncode != 0:
        pytest.skip(f"wheel build unavailable here: {build.stderr.strip()[-300:]}")
    (wheel,) = tmp_path.glob("*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    expected = {
        f"parrot/_datasets/{p.relative_to(REPO / 'datasets').as_posix()}"
        for p in (REPO / "datasets").rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    }
    assert expected - names == set()
    assert "parrot/_datasets/starter/items.jsonl" in names
