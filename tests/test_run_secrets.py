"""Nothing a run writes holds a secret it could see, and no preview is unbounded: SQL that
rebuilds an API key (by concatenation, in hex, in base64) or asks for a huge value, and a
server URL with passwords on the command line (real runs on SQLite and DuckDB)."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest
from eval_runs import run_eval

from parrot.api.secrets import (
    allowed_environ,
    encoded_forms,
    redact_argv,
    redact_url,
    scrub,
    secret_values,
)
from parrot.eval.judge import PREVIEW_BYTES, PREVIEW_CELL_BYTES, preview

KEY = "sk-parrot-hostile-0123456789"
PW, QPW = "urlpass-7a7a7a", "querypass-5b5b5b"
URL = f"postgresql://u:{PW}@127.0.0.1:1/db?password={QPW}"
DUCKDB_ITEM = "starter-revenue-per-customer-2024-sqlite-duckdb"
SQLITE_ITEM = "starter-revenue-per-customer-2024-duckdb-sqlite"
PREDICTIONS = {
    DUCKDB_ITEM: "SELECT 'sk-parrot-' || 'hostile-0123456789' AS a, "
    "to_base64(('ab' || 'sk-parrot-' || 'hostile-0123456789')::BLOB) AS b, "
    "to_base64(('sk-parrot-' || 'hostile-0123456789')::BLOB) AS c",
    SQLITE_ITEM: "SELECT hex('sk-parrot-' || 'hostile-0123456789') AS h, "
    "lower(hex('sk-parrot-' || 'hostile-0123456789')) AS l, "
    "replace(hex(zeroblob(300000)), '0', 'x') AS big",
}


def _leaks(run_dir: Path, secret: str) -> list[str]:
    """Files of ``run_dir`` holding ``secret`` in any form, with the form found."""
    forms = [
        secret,
        secret.encode().hex(),
        secret.encode().hex().upper(),
        base64.b64encode(secret.encode()).decode(),
    ]
    forms += [f for f in encoded_forms(secret) if len(f) >= 12]
    found = []
    for path in run_dir.rglob("*"):
        if path.is_file():
            text = path.read_text(errors="replace")
            found += [f"{path.name}: {f}" for f in forms if f in text]
    return found


def test_a_run_writes_no_secret_and_caps_previews(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    preds = tmp_path / "preds.jsonl"
    preds.write_text(
        "".join(
            json.dumps({"id": i, "translated_sql": sql}) + "\n" for i, sql in PREDICTIONS.items()
        )
    )
    out = tmp_path / "run"
    code = run_eval(
        out,
        "--model",
        f"file:{preds}",
        "--limit",
        "3",
        "--allow-missing",
        "--engine",
        f"postgres={URL}",
    )
    assert code == 0
    for secret in (KEY, PW, QPW):
        assert _leaks(out, secret) == [], secret
    records = {r["id"]: r for r in map(json.loads, (out / "results.jsonl").open())}
    assert records[DUCKDB_ITEM]["pred"]["status"] == "ok"
    assert records[DUCKDB_ITEM]["pred"]["preview"][0][0] == "***"
    sqlite = records[SQLITE_ITEM]["pred"]
    assert sqlite["status"] == "ok" and sqlite["preview"][0][:2] == ["***", "***"]
    assert sqlite["preview"][0][2].endswith("…[600000 bytes]")
    assert max(len(line) for line in (out / "results.jsonl").open()) < 4 * PREVIEW_BYTES
    manifest = json.loads((out / "manifest.json").read_text())
    assert f"postgres={redact_url(URL)}" in manifest["command"]
    assert (
        manifest["settings"]["engine_urls"]["postgres"]
        == "postgresql://u:***@127.0.0.1:1/db?password=***"
    )


def test_preview_caps_cells_and_the_whole() -> None:
    rows = [["x" * 5000, 7, "short", "y" * 5000, "z" * 5000]] * 5
    capped = preview(rows)
    assert capped[0] == [
        "x" * PREVIEW_CELL_BYTES + "…[5000 bytes]",
        7,
        "short",
        "y" * PREVIEW_CELL_BYTES + "…[5000 bytes]",
        "z" * PREVIEW_CELL_BYTES + "…[5000 bytes]",
    ]
    assert len(json.dumps(capped).encode()) <= PREVIEW_BYTES + 25 * 40
    assert capped[-1] == ["…", 7, "short", "…", "…"]  # past the budget


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (
            ["--engine", f"postgres={URL}"],
            ["--engine", "postgres=postgresql://u:***@127.0.0.1:1/db?password=***"],
        ),
        (["--api-key", "sk-abc", "--model", "m"], ["--api-key", "***", "--model", "m"]),
        (["--api-key=sk-abc", "--token", "t1"], ["--api-key=***", "--token", "***"]),
    ],
)
def test_redact_argv(argv: list[str], expected: list[str]) -> None:
    assert redact_argv(argv) == expected


def test_scrub_finds_every_form_at_every_alignment() -> None:
    for prefix in ("", "a", "ab", "abc"):
        for encode in (base64.b64encode, base64.urlsafe_b64encode):
            text = encode(f"{prefix}{KEY}tail".encode()).decode()
            scrubbed = scrub(text, [KEY])
            assert "***" in scrubbed, (prefix, text)
            assert len(scrubbed) < len(text) - 20
    assert scrub(f"x{KEY.encode().hex().upper()}y", [KEY]) == "x***y"
    assert (
        scrub("IDENTIFIED BY PASSWORD '*94BDCEBE19083CE2A1F959FD02F964C7AF4CFC29'", [])
        == "IDENTIFIED BY PASSWORD '***'"
    )


def test_secret_values_and_the_child_environment_allow_list() -> None:
    env = {
        "MYSQL_PWD": "mysql-pass-1",
        "DATABASE_URL": "postgres://u:db-pass-22@h/d",
        "GITHUB_PAT": "ghp_0123456789",
        "PARROT_POSTGRES_URL": "postgresql://r@h/d",
        "SOME_TOOL_SETTING": "visible-value",
        "PATH": "/bin",
        "LC_ALL": "C",
    }
    assert set(secret_values(env=env)) == {"mysql-pass-1", "db-pass-22", "ghp_0123456789"}
    assert allowed_environ(env) == {"PATH": "/bin", "LC_ALL": "C"}
