"""The datasets ship inside the wheel (``parrot/_datasets/``) and are found there when no
checkout ``datasets/`` is beside the package."""

from __future__ import annotations

import shutil

import pytest
from built_wheel import REPO, wheel_names

import parrot.datasets as ds


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
    names = wheel_names(tmp_path)
    expected = {
        f"parrot/_datasets/{p.relative_to(REPO / 'datasets').as_posix()}"
        for p in (REPO / "datasets").rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    }
    assert expected - names == set()
    assert "parrot/_datasets/starter/items.jsonl" in names
