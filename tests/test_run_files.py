"""Input and output files that cannot be used give one-line errors naming the file (and line),
exit ≠ 0 and leave nothing half-written: unusable output directories, a file-size limit hit
while appending results (a full disk, by RLIMIT_FSIZE in a subprocess), non-UTF-8 inputs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from eval_runs import run_eval

from parrot.api.results import read_results, scan_results
from parrot.eval.cli import main as eval_main
from parrot.textfiles import NotUTF8Error, decode_utf8
from parrot.translate import main as translate_main


def _items(path: Path, n: int) -> Path:
    path.write_text(
        "".join(
            json.dumps(
                {
                    "id": f"i{k:03d}",
                    "source_dialect": "sqlite",
                    "target_dialect": "duckdb",
                    "source_sql": f"SELECT {k} AS x",
                    "reference_sql": f"SELECT {k} AS x",
                    "translation_types": ["keyword"],
                }
            )
            + "\n"
            for k in range(n)
        )
    )
    return path


def _one_line_error(err: str, *needles: str) -> None:
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    assert lines[0].startswith("error: ") and "Traceback" not in err
    for needle in needles:
        assert needle in lines[0], lines[0]


def _blocked(tmp_path: Path, case: str) -> tuple[Path, str]:
    """An output directory that cannot be used, and what the error must name."""
    if case == "unwritable":
        if not Path("/sys/kernel").is_dir():
            pytest.skip("no /sys here (Linux only): no directory even root cannot write")
        return Path("/sys/parrot-run"), "/sys/parrot-run"
    blocker = tmp_path / "blocker"
    blocker.write_text("not a directory\n")
    out = blocker if case == "a file in the way" else blocker / "run"
    return out, f"{blocker} is a file, not a directory"


@pytest.mark.parametrize("case", ["a file in the way", "a file as parent", "unwritable"])
def test_an_unusable_output_directory_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], case: str
) -> None:
    out, named = _blocked(tmp_path, case)
    items = _items(tmp_path / "items.jsonl", 2)
    code = run_eval(out, "--model", "reference", "--dataset", str(items))
    assert code == 2
    _one_line_error(capsys.readouterr().err, "cannot create the run directory", named)
    if case != "unwritable":
        assert (tmp_path / "blocker").read_text() == "not a directory\n"


FILL = """
import resource, sys
from parrot.eval.cli import main
limit = int(sys.argv.pop(1))
resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))  # Python ignores SIGXFSZ: EFBIG
sys.exit(main(sys.argv[1:]))
"""


def test_a_full_disk_while_appending_results_keeps_every_complete_line(tmp_path: Path) -> None:
    items, out = _items(tmp_path / "items.jsonl", 40), tmp_path / "run"
    args = ["--quiet", "--model", "reference", "--dataset", str(items), "--output-dir", str(out)]
    done = subprocess.run(
        [sys.executable, "-c", FILL, "6000", *args],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONPATH": str(Path.cwd())},
    )
    assert done.returncode == 1, done.stderr
    _one_line_error(
        done.stderr, f"cannot write {out / 'results.jsonl'}: File too large", "--resume"
    )
    records, bad = scan_results(out)
    assert not bad and 0 < len(records) < 40  # whole lines only, nothing half-written
    assert (out / "results.jsonl").stat().st_size <= 6000
    assert not list(out.glob("*.tmp")) and not (out / "summary.json").exists()
    assert eval_main([*args, "--resume"]) == 0  # then every item exactly once
    assert sorted(r["id"] for r in read_results(out)) == [f"i{k:03d}" for k in range(40)]


def test_a_full_tmpfs_is_enospc_with_the_same_guarantees(tmp_path: Path) -> None:
    """A real full disk: a 16 KiB tmpfs mounted in a private mount namespace (root only)."""
    import shutil

    unshare = shutil.which("unshare")
    if unshare is None or os.geteuid() != 0:
        pytest.skip("needs root and unshare(1) to mount a private tmpfs")
    items, disk = _items(tmp_path / "items.jsonl", 40), tmp_path / "disk"
    disk.mkdir()
    script = (
        f"mount -t tmpfs -o size=16k tmpfs {disk} || exit 77; "
        f"{sys.executable} -m parrot.eval --quiet --model reference --dataset {items} "
        f"--output-dir {disk}/run; code=$?; cp -r {disk}/run {tmp_path}/kept; exit $code"
    )
    done = subprocess.run(
        [unshare, "-m", "sh", "-c", script],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONPATH": str(Path.cwd())},
    )
    if done.returncode == 77:
        pytest.skip(f"tmpfs mount refused here: {done.stderr.strip()}")
    assert done.returncode == 1, done.stderr
    _one_line_error(
        done.stderr, f"cannot write {disk / 'run' / 'results.jsonl'}: No space left on device"
    )
    records, bad = scan_results(tmp_path / "kept")
    assert not bad and 0 < len(records) < 40
    assert not list((tmp_path / "kept").glob("*.tmp"))


@pytest.mark.parametrize(
    ("raw", "where"),
    [
        (b"\xff", "f:1:1"),
        (b"ok\nSELECT '\xe9t\xe9'", "f:2:9"),
        (b"\xc3\xa9\xc3", "f:1:3"),  # a sequence cut short at the end
    ],
)
def test_decode_utf8_names_line_and_column(raw: bytes, where: str) -> None:
    with pytest.raises(NotUTF8Error, match=f"^{where}: not UTF-8"):
        decode_utf8(raw, "f")
    assert decode_utf8("é\n".encode(), "f") == "é\n"


def test_a_non_utf8_dataset_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    items = _items(tmp_path / "items.jsonl", 3)
    lines = items.read_bytes().splitlines(keepends=True)
    items.write_bytes(lines[0] + lines[1].replace(b"SELECT 1", b"SELECT '\xe9'") + lines[2])
    assert run_eval(tmp_path / "run", "--model", "reference", "--dataset", str(items)) == 2
    _one_line_error(capsys.readouterr().err, f"{items}:2:", "not UTF-8 (byte 0xe9)")
    assert not (tmp_path / "run").exists()


def test_a_non_utf8_predictions_file_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    preds = tmp_path / "preds.jsonl"
    preds.write_bytes(
        b'{"id": "i000", "translated_sql": "SELECT 0 AS x"}\n'
        b'{"id": "i001", "translated_sql": "SELECT \'\xff\'"}\n'
    )
    items = _items(tmp_path / "items.jsonl", 2)
    assert run_eval(tmp_path / "run", "--model", f"file:{preds}", "--dataset", str(items)) == 2
    _one_line_error(capsys.readouterr().err, f"{preds}:2:", "not UTF-8 (byte 0xff)")


def test_a_non_utf8_sql_file_for_translate_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sql = tmp_path / "q.sql"
    sql.write_bytes(b"SELECT 1;\n\nSELECT '\xe9t\xe9';\n")
    assert translate_main(["--from", "sqlite", "--to", "duckdb", str(sql)]) == 2
    _one_line_error(capsys.readouterr().err, f"{sql}:3:9: not UTF-8 (byte 0xe9)")


def test_a_full_disk_while_repairing_on_resume_changes_nothing(tmp_path: Path) -> None:
    items, out = _items(tmp_path / "items.jsonl", 20), tmp_path / "run"
    args = ["--quiet", "--model", "reference", "--dataset", str(items), "--output-dir", str(out)]
    assert eval_main(args) == 0
    results = out / "results.jsonl"
    lines = results.read_bytes().splitlines(keepends=True)
    results.write_bytes(b"".join([lines[0], b"{torn\n", *lines[1:]]))
    before = results.read_bytes()
    limit = str(len(before) // 2)  # the rewrite without the damaged line cannot fit
    done = subprocess.run(
        [sys.executable, "-c", FILL, limit, *args, "--resume"],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONPATH": str(Path.cwd())},
    )
    assert done.returncode == 2, done.stderr
    _one_line_error(done.stderr, f"cannot write {results}: File too large")
    assert results.read_bytes() == before and not list(out.glob("*.tmp"))
