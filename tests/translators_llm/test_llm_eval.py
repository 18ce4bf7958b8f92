"""``python -m parrot.eval --model openai/<name> --api-base URL`` end to end on real engines."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from eval_runs import run_served

from parrot.api.results import read_results
from parrot.translators.llm.scripted_server import Reply, ScriptedServer

SECRET = "sk-parrot-fake-0123456789abcdefXYZ"


def test_a_run_accounts_tokens_and_cost_and_a_rerun_costs_nothing(
    server: ScriptedServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    assert run_served(server.url, tmp_path / "first", "--limit", "6") == 0
    assert server.count == 1 + 6 and server.headers[0]["authorization"] == f"Bearer {SECRET}"
    records = read_results(tmp_path / "first")
    assert len(records) == 6
    for r in records:
        t = r["translation"]
        assert t["status"] == "ok" and t["annotation_source"] == "llm"
        assert t["tokens_in"] > 0 and t["tokens_out"] > 0 and t["cost"] > 0
        assert (t["calls"], t["cache_hits"]) == (1, 0)
    usage = json.loads((tmp_path / "first" / "summary.json").read_text())["usage"]
    assert usage["tokens_in"] == sum(r["translation"]["tokens_in"] for r in records)
    assert usage["cost"] == pytest.approx(sum(r["translation"]["cost"] for r in records))
    assert (usage["calls"], usage["cache_hits"]) == (6, 0)
    # the echo server returns the source: the identity translation, judged on real engines
    assert any(r["verdicts"]["strict"]["match"] for r in records)

    assert run_served(server.url, tmp_path / "second", "--limit", "6") == 0
    assert server.count == 1 + 6  # zero HTTP requests: the probe and the items are cached
    usage2 = json.loads((tmp_path / "second" / "summary.json").read_text())["usage"]
    assert usage2["cache_hits"] == 6 and usage2["tokens_in"] == usage["tokens_in"]

    manifest = json.loads((tmp_path / "first" / "manifest.json").read_text())
    assert manifest["translator"]["model"] == "openai/gpt-4o-mini"
    assert manifest["translator"]["prompt"].startswith("parrot-v1 sha256:")
    for path in tmp_path.rglob("*"):
        if path.is_file():
            assert SECRET.encode() not in path.read_bytes(), path


def test_resume_translates_only_the_missing_items(server: ScriptedServer, tmp_path: Path) -> None:
    out = tmp_path / "run"
    assert run_served(server.url, out, "--limit", "7", "--no-cache") == 0
    results = out / "results.jsonl"
    lines = results.read_text().splitlines(keepends=True)
    results.write_text("".join(lines[:3]) + lines[3][:40])  # killed while writing item 4
    assert run_served(server.url, out, "--limit", "7", "--no-cache", "--resume") == 0
    assert server.count == (1 + 7) + (1 + 4)  # a probe, then the items, per run
    ids = [r["id"] for r in read_results(out)]
    assert len(ids) == len(set(ids)) == 7


def test_usage_is_rendered_in_the_report(
    server: ScriptedServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from parrot.report.cli import main as report_main

    assert run_served(server.url, tmp_path / "run", "--limit", "2") == 0
    capsys.readouterr()
    assert report_main([str(tmp_path / "run")]) == 0
    out = capsys.readouterr().out
    assert "Model usage" in out and "| 2 | 0 |" in out


@pytest.mark.parametrize(
    ("flag", "value"),
    [("--concurrency", "0"), ("--price", "cheap"), ("--reflection", "-1"), ("--prompt", "nope-v1")],
)
def test_bad_llm_flags_exit_2(
    server: ScriptedServer, tmp_path: Path, flag: str, value: str
) -> None:
    assert run_served(server.url, tmp_path / "run", flag, value) == 2
    assert server.count == 0


def test_a_sqlglot_run_never_imports_litellm(tmp_path: Path) -> None:
    code = (
        "import sys\n"
        "from parrot.eval.cli import main\n"
        f"assert main(['--quiet', '--model', 'sqlglot', '--limit', '2', '--output-dir', "
        f"{str(tmp_path / 'run')!r}]) == 0\n"
        "assert 'litellm' not in sys.modules, 'litellm imported'\n"
        "assert 'parrot.translators.llm.client' not in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)


def test_rejected_credentials_stop_the_run_before_it_starts(
    server: ScriptedServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server.enqueue(Reply(status=401, content="Incorrect API key provided"))
    assert run_served(server.url, tmp_path / "run", "--limit", "6") == 2
    assert server.count == 1 and not (tmp_path / "run" / "results.jsonl").exists()
    assert "cannot be used" in capsys.readouterr().err


def test_an_unreachable_endpoint_stops_the_run_before_it_starts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed once the block ends: nothing listens there
    unreachable = f"http://127.0.0.1:{port}/v1"
    assert run_served(unreachable, tmp_path / "run", "--limit", "2", "--retries", "4") == 2
    assert not (tmp_path / "run" / "results.jsonl").exists()
    assert "cannot be used" in capsys.readouterr().err
