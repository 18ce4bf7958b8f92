"""The one JSONL reader and writer: one JSON value a line, UTF-8, lines ended by ``\\n``.

:func:`objects` reads a file that must be whole (a damaged line raises); :func:`read` reads one
that may hold damaged lines (a killed run's torn last line, a hand edit) and reports them by
line number without dropping the valid ones; :func:`appender` appends records, each synced to
disk before it returns.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any


def dumps(record: Any) -> str:
    """One record as its line's text (no newline): non-ASCII kept, unknown types as str."""
    return json.dumps(record, ensure_ascii=False, default=str)


def objects(path: Path) -> Iterator[Any]:
    """The JSON values of ``path``'s lines in order (blank lines skipped); a line that is not
    JSON raises :class:`json.JSONDecodeError`."""
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                yield json.loads(line)


def read(path: Path) -> tuple[list[tuple[int, Any]], list[tuple[int, str]]]:
    """(valid, damaged): the JSON value of every line that holds one, with its 1-based line
    number, and the number and text of every line that does not; blank lines are neither."""
    valid: list[tuple[int, Any]] = []
    damaged: list[tuple[int, str]] = []
    with path.open(encoding="utf-8", errors="replace") as fh:
        for number, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                valid.append((number, json.loads(line)))
            except ValueError:
                damaged.append((number, line))
    return valid, damaged


def appender(path: Path) -> Callable[[Any], None]:
    """Append records to ``path``, each written and synced before the call returns; a torn
    last line (a killed run) is ended first, so it stays a damaged line of its own instead of
    spoiling the next one."""
    if path.is_file() and path.stat().st_size:
        with path.open("rb") as raw:
            raw.seek(-1, os.SEEK_END)
            torn = raw.read(1) != b"\n"
        if torn:
            with path.open("a", encoding="utf-8") as end:
                end.write("\n")
    fh = path.open("a", encoding="utf-8")

    def emit(record: Any) -> None:
        fh.write(dumps(record) + "\n")
        fh.flush()
        os.fsync(fh.fileno())

    return emit
