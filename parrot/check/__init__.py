"""Grammar-only syntax checks: parrot's own ANTLR grammars (grammars/), no engine needed.

>>> [v.ok for v in check_sql("SELECT 1; SELECT FROM", "postgres")]
[True, False]

:func:`check_sql` splits an input into statements and returns one :class:`Verdict` each;
:func:`check_many` checks many inputs, optionally in worker processes.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass
from typing import Any

from parrot.check.parsers import (
    GRAMMAR_OF,
    UnsupportedDialectError,
    checker,
    grammar_for,
)

__all__ = [
    "GRAMMAR_OF",
    "UnsupportedDialectError",
    "Verdict",
    "accepts",
    "check_many",
    "check_sql",
    "grammar_for",
]


@dataclass(frozen=True)
class Verdict:
    """The grammar's verdict on one statement; position fields are set when ``ok`` is False."""

    index: int  # 1-based statement number within the input
    ok: bool
    start: int  # character span of the statement in the input (end exclusive)
    end: int
    line: int | None = None  # 1-based position of the offending token
    column: int | None = None
    token: str | None = None
    message: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def check_sql(sql: str, dialect: str) -> list[Verdict]:
    """One verdict per statement of ``sql`` under ``dialect``'s grammar (any accepted spelling)."""
    chk = checker(dialect)
    verdicts = []
    for i, stmt in enumerate(chk.split(sql), 1):
        problem = stmt.lexer_problem or chk.parse(stmt.tokens)
        if problem is None:
            verdicts.append(Verdict(i, True, stmt.start, stmt.end))
        else:
            verdicts.append(
                Verdict(
                    i,
                    False,
                    stmt.start,
                    stmt.end,
                    problem.line,
                    problem.column,
                    problem.token,
                    problem.message,
                )
            )
    return verdicts


def accepts(sql: str, dialect: str) -> bool:
    """True when every statement of ``sql`` parses (and there is at least one)."""
    verdicts = check_sql(sql, dialect)
    return bool(verdicts) and all(v.ok for v in verdicts)


def _check_chunk(args: tuple[list[str], str]) -> list[list[Verdict]]:
    sqls, dialect = args
    return [check_sql(s, dialect) for s in sqls]


def check_many(
    sqls: Iterable[str], dialect: str, workers: int = 1, chunk: int = 500
) -> list[list[Verdict]]:
    """Verdicts for many inputs, in order; ``workers`` > 1 spreads chunks over processes.

    Each worker process warms its own parser (the prediction cache is per process), so workers
    pay off only for inputs of thousands of statements.
    """
    items: Sequence[str] = list(sqls)
    grammar_for(dialect)  # fail early on an unknown dialect
    if workers <= 1 or len(items) <= chunk:
        return _check_chunk((list(items), dialect))
    parts = [(list(items[i : i + chunk]), dialect) for i in range(0, len(items), chunk)]
    with ProcessPoolExecutor(max_workers=workers) as pool:
        return [v for part in pool.map(_check_chunk, parts) for v in part]
