"""Processes a test starts: Python run as a command, and the processes found in /proc."""

from __future__ import annotations

import contextlib
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from parrot.eval.judge import Judge


def run_python(
    *args: str, timeout: float = 120, **options: Any
) -> subprocess.CompletedProcess[str]:
    """``python ARGS`` with this interpreter, its output captured as text; ``options`` go to
    :func:`subprocess.run` (``input``, ``cwd``, ``env``)."""
    argv = [sys.executable, *args]
    return subprocess.run(argv, capture_output=True, text=True, timeout=timeout, **options)


def descendants(root: int) -> set[int]:
    """Pids of every descendant of ``root`` (children, their children, ...)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        with contextlib.suppress(OSError, IndexError, ValueError):
            if entry.name.isdigit():
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
                children.setdefault(ppid, []).append(int(entry.name))
    found, todo = set(), [root]
    while todo:
        for child in children.get(todo.pop(), []):
            found.add(child)
            todo.append(child)
    return found


@contextlib.contextmanager
def judge_starting_servers(**kwargs: object) -> Iterator[Judge]:
    """A ``Judge(start=True)`` that starts the managed servers it needs, and stops on exit the
    ones that were not running before (a test must not leave servers behind)."""
    from parrot.eval.judge import Judge
    from parrot.servers import stopping_started

    with stopping_started():
        judge = Judge(start=True, **kwargs)  # type: ignore[arg-type]
        try:
            yield judge
        finally:
            judge.close()
