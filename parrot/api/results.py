"""Run directories: append-only ``results.jsonl`` keyed by id, ``manifest.json``, ``summary.json``,
and, after ``parrot witness RUN --all``, the append-only ``witnesses.jsonl`` keyed by id.

Each finished item is one line, written to the OS before the next item starts, so a crashed or
killed process loses at most the items in flight; the file is also fsynced at least once a second
(and at the end), so a machine crash loses at most the last second. A damaged line anywhere (torn
by a crash, or edited) is reported by line number; ``--resume`` moves damaged lines, verbatim with
their line numbers, to ``results.damaged.jsonl``, keeps every valid line and re-runs the ids that
have no valid line.
"""

from __future__ import annotations

import contextlib
import json
import os
import statistics
import time
from pathlib import Path
from typing import Any, cast

from parrot.api import jsonl
from parrot.api.records import Outcome, WitnessLine

FSYNC_INTERVAL = 1.0  # seconds between fsyncs of results.jsonl
RESULTS = "results.jsonl"
MANIFEST = "manifest.json"
SUMMARY = "summary.json"
DAMAGED = "results.damaged.jsonl"
WITNESSES = "witnesses.jsonl"  # one WitnessLine per rejected item (parrot witness RUN --all)


class RunDirError(RuntimeError):
    """A run directory that cannot be used as asked (exists without --resume, mismatched resume)."""


class RunWriteError(RunDirError):
    """A run file could not be written (disk full, file too large, read-only): the items
    already appended are intact and no line or JSON file is left half-written."""


def write_error(path: Path, exc: OSError) -> RunWriteError:
    return RunWriteError(f"cannot write {path}: {exc.strerror or exc}")


class DamagedResultsError(RunDirError):
    """results.jsonl holds lines that are not complete JSON outcome records."""

    def __init__(self, path: Path, bad: list[int]):
        self.bad = bad
        shown = ", ".join(map(str, bad[:10])) + (" …" if len(bad) > 10 else "")
        super().__init__(f"{path}: {len(bad)} damaged line(s), line number(s) {shown}")


def read_results(run_dir: Path, skip_bad: bool = False) -> list[Outcome]:
    """Every valid outcome record; damaged lines raise DamagedResultsError unless skip_bad."""
    records, bad = scan_results(run_dir)
    if bad and not skip_bad:
        raise DamagedResultsError(run_dir / RESULTS, [n for n, _ in bad])
    return records


def scan_results(run_dir: Path) -> tuple[list[Outcome], list[tuple[int, bytes]]]:
    """(valid records, [(1-based line number, raw bytes)] of damaged lines)."""
    path = run_dir / RESULTS
    if not path.is_file():
        raise RunDirError(f"{run_dir} holds no {RESULTS}: not a parrot run directory")
    records: list[Outcome] = []
    bad: list[tuple[int, bytes]] = []
    with path.open("rb") as fh:
        for number, line in enumerate(fh, 1):
            record = _parse(line)
            if record is None:
                bad.append((number, line))
            else:
                records.append(record)
    return records, bad


def _parse(line: bytes) -> Outcome | None:
    """The outcome record on a complete line, or None when the line is damaged."""
    if not line.endswith(b"\n"):
        return None
    try:
        record = json.loads(line)
    except (json.JSONDecodeError, UnicodeDecodeError):
        return None
    return cast(Outcome, record) if isinstance(record, dict) and "id" in record else None


class ResultsLog:
    """Append-only writer for ``results.jsonl`` that knows which ids are done."""

    def __init__(self, run_dir: Path):
        self.path = run_dir / RESULTS
        self.done: set[str] = set()
        self.repaired: list[int] = []  # line numbers of damaged lines moved to DAMAGED
        if self.path.exists():
            records, bad = scan_results(run_dir)
            self.done = {str(r["id"]) for r in records}
            if bad:
                try:
                    self._set_aside(run_dir, bad)
                except OSError as exc:
                    raise write_error(self.path, exc) from None
        try:
            self._fh = self.path.open("ab", buffering=0)  # unbuffered: a failed write is undone
        except OSError as exc:
            raise write_error(self.path, exc) from None
        self._size = self._fh.seek(0, os.SEEK_END)  # bytes of complete lines
        self._synced = time.monotonic()

    def _set_aside(self, run_dir: Path, bad: list[tuple[int, bytes]]) -> None:
        """Append the damaged lines, verbatim, to DAMAGED; rewrite RESULTS with the valid lines."""
        with (run_dir / DAMAGED).open("a", encoding="utf-8") as fh:
            for number, raw in bad:
                fh.write(
                    json.dumps(
                        {"line": number, "text": raw.decode("utf-8", "replace")}, ensure_ascii=False
                    )
                    + "\n"
                )
            fh.flush()
            os.fsync(fh.fileno())
        damaged = {n for n, _ in bad}
        tmp = self.path.with_suffix(".jsonl.tmp")
        try:
            with self.path.open("rb") as src, tmp.open("wb") as fh:
                fh.writelines(line for n, line in enumerate(src, 1) if n not in damaged)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, self.path)
        except OSError:
            with contextlib.suppress(OSError):
                tmp.unlink(missing_ok=True)
            raise
        self.repaired = [n for n, _ in bad]

    def append(self, record: Outcome) -> None:
        if record["id"] in self.done:
            raise RunDirError(f"item {record['id']!r} already has a result")
        line = memoryview(_line(record).encode("utf-8"))
        try:
            while line:  # a short write (the disk filled up mid-line) continues or raises
                line = line[os.write(self._fh.fileno(), line) :]
            if time.monotonic() - self._synced >= FSYNC_INTERVAL:
                self._sync()
        except OSError as exc:
            with contextlib.suppress(OSError):  # take back the part of the line written
                os.ftruncate(self._fh.fileno(), self._size)
            raise write_error(self.path, exc) from None
        self._size = self._fh.tell()
        self.done.add(record["id"])

    def _sync(self) -> None:
        os.fsync(self._fh.fileno())
        self._synced = time.monotonic()

    def close(self) -> None:
        try:
            self._sync()
        except OSError as exc:
            raise write_error(self.path, exc) from None
        finally:
            self._fh.close()


def _line(record: Outcome) -> str:
    return json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n"


def write_json(path: Path, data: Any) -> None:
    """Write JSON atomically (temp file + rename)."""
    tmp = path.with_suffix(path.suffix + ".tmp")
    try:
        tmp.write_text(
            json.dumps(data, indent=2, ensure_ascii=False, default=str) + "\n", encoding="utf-8"
        )
        os.replace(tmp, path)
    except OSError as exc:
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)
        raise write_error(path, exc) from None


def read_json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def read_witnesses(run_dir: Path) -> dict[str, WitnessLine]:
    """The witness line of each item in ``RUN/witnesses.jsonl`` (the last line of an id wins;
    damaged lines are skipped; none when the run was never shrunk)."""
    path = run_dir / WITNESSES
    out: dict[str, WitnessLine] = {}
    if not path.is_file():
        return out
    for _, data in jsonl.read(path)[0]:  # damaged lines skipped
        if isinstance(data, dict) and isinstance(data.get("id"), str) and "witness" in data:
            out[data["id"]] = cast(WitnessLine, data)
    return out


def rejected(record: Outcome | dict[str, Any]) -> bool:
    """Whether the item was rejected on the fixture or on a suite database (what
    ``parrot witness --all`` shrinks)."""
    strict = (record.get("verdicts") or {}).get("strict") or {}
    return strict.get("match") is False or isinstance(
        (record.get("suite") or {}).get("first_failure"), int
    )


def _median(values: list[float]) -> float | None:
    return round(float(statistics.median(values)), 3) if values else None


def witness_summary(
    records: list[Outcome] | list[dict[str, Any]], lines: dict[str, WitnessLine]
) -> dict[str, Any]:
    """summary.json's ``witnesses``: of the run's rejected items, how many were shrunk, how many
    have a witness (the rest: a side does not run there, so no data-dependent witness), how many
    are 1-minimal, and the median witness size (rows), engine executions and seconds per item."""
    ids = {str(r["id"]) for r in records if rejected(r)}
    shrunk = [line for i, line in lines.items() if i in ids]
    found = [w for line in shrunk if (w := line["witness"]) is not None]
    return {
        "rejected": len(ids),
        "shrunk": len(shrunk),
        "with_witness": len(found),
        "minimal": sum(1 for w in found if w["minimal"]),
        "median_size": _median([w["size"] for w in found]),
        "median_rows_before": _median([sum(w["rows_before"].values()) for w in found]),
        "median_executions": _median([line["executions"] for line in shrunk]),
        "median_seconds": _median([line["seconds"] for line in shrunk]),
    }
