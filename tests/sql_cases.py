"""SQL test-case tables kept as data: ``tests/data/sql_cases/*.tsv``, one case a line, its
fields separated by tabs; a line starting with ``#`` and a last field starting with ``# `` are
comments."""

from __future__ import annotations

from pathlib import Path

CASES = Path(__file__).resolve().parent / "data" / "sql_cases"


def sql_cases(name: str) -> list[tuple[str, ...]]:
    """The cases of ``tests/data/sql_cases/NAME``, each a tuple of its fields."""
    rows = []
    for line in (CASES / name).read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            fields = line.split("\t")
            rows.append(tuple(fields[:-1] if fields[-1].startswith("# ") else fields))
    return rows
