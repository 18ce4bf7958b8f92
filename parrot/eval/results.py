"""Run directories: append-only ``results.jsonl`` keyed by id, ``manifest.json``, ``summary.json``.

Each finished item is one line, written to the OS before the next item starts, so a crashed or
killed process loses at most the items in flight; the file is also fsynced at least once a second
(and at the end), so a machine crash loses at most the last second. A torn last line (the process
died mid-write) is cut off on resume.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

FSYNC_INTERVAL = 1.0  # seconds between fsyncs of results.jsonl
RESULTS = "results.jsonl"
MANIFEST = "manifest.json"
SUMMARY = "summary.json"


class RunDirError(RuntimeError):
    """A run directory that cannot be used as asked (exists without --resume, mismatched resume)."""


def read_results(run_dir: Path) -> list[dict[str, Any]]:
    """Every complete outcome line of a run (a torn last line is ignored)."""
    path = run_dir / RESULTS
    if not path.is_file():
        raise RunDirError(f"{run_dir} holds no {RESULTS}: not a parrot run directory")
    return [record for _, record in _complete_lines(path)]


def _complete_lines(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """(byte offset after the line, record) for each complete, valid line."""
    offset = 0
    with path.open("rb") as fh:
        for line in fh:
            if not line.endswith(b"\n"):
                return
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                return
            offset += len(line)
            yield offset, record


class ResultsLog:
    """Append-only writer for ``results.jsonl`` that knows which ids are done."""

    def __init__(self, run_dir: Path):
        self.path = run_dir / RESULTS
        self.done: set[str] = set()
        self.repaired_bytes = 0
        if self.path.exists():
            end = 0
            for offset, record in _complete_lines(self.path):
                self.done.add(str(record["id"]))
                end = offset
            size = self.path.stat().st_size
            if size > end:  # torn or corrupt tail from a crash: cut it off
                self.repaired_bytes = size - end
                with self.path.open("r+b") as fh:
                    fh.truncate(end)
        self._fh = self.path.open("a", encoding="utf-8")
        self._synced = time.monotonic()

    def append(self, record: dict[str, Any]) -> None:
        if record["id"] in self.done:
            raise RunDirError(f"item {record['id']!r} already has a result")
        self._fh.write(json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n")
        self._fh.flush()
        if time.monotonic() - self._synced >= FSYNC_INTERVAL:
            self._sync()
        self.done.add(record["id"])

    def _sync(self) -> None:
        os.fsync(self._fh.fileno())
        self._synced = time.monotonic()

    def close(self) -> None:
        self._sync()
        self._fh.close()


def write_json(path: Path, data: Any) -> None:
    """Write JSON atomically (temp file + rename)."""
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(data, indent=2, ensure_ascii=False, default=str) + "\n",
                   encoding="utf-8")
    os.replace(tmp, path)


def read_json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))
