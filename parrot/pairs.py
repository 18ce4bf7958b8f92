"""Dialect pairs on the command line — one syntax for every subcommand.

``--pairs SOURCE:TARGET[,SOURCE:TARGET...]``: dialect names or their aliases (``pg``, ``ch``,
...), either side ``*`` for any dialect (``mysql:*`` = every target of MySQL sources). ``eval``
keeps the items of the listed pairs; ``curate`` reads the listed sources and writes the listed
pairs; curate's ``--sources A,B --targets C`` is shorthand for ``A:C,B:C``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from parrot import dialects

ANY = "*"


@dataclass(frozen=True)
class DialectPairs:
    """A set of (source, target) patterns; empty means every pair."""

    patterns: tuple[tuple[str, str], ...] = ()

    def allows(self, source: str, target: str) -> bool:
        return not self.patterns or any(
            s in (ANY, source) and t in (ANY, target) for s, t in self.patterns
        )

    def sides(self, index: int) -> tuple[str, ...] | None:
        """The dialects named on one side (0 source, 1 target) in order; None when any."""
        named = [p[index] for p in self.patterns]
        if not named or ANY in named:
            return None
        return tuple(dict.fromkeys(named))

    def __str__(self) -> str:
        return ",".join(f"{s}:{t}" for s, t in self.patterns)


EVERY_PAIR = DialectPairs()


def parse_pairs(text: str) -> DialectPairs:
    """``"pg:ch, sqlite:*"`` → resolved patterns; ValueError naming the bad part."""
    patterns = []
    for part in filter(None, (p.strip() for p in text.split(","))):
        source, sep, target = (x.strip() for x in part.partition(":"))
        if not sep or not source or not target:
            raise ValueError(
                f"bad pair {part!r}: expected SOURCE:TARGET, e.g. sqlite:duckdb "
                "(either side may be *)"
            )
        patterns.append((_side(source), _side(target)))
    return DialectPairs(tuple(dict.fromkeys(patterns)))


def combined(sources: Sequence[str], targets: Sequence[str]) -> DialectPairs:
    """Every source with every target (an empty side: any dialect)."""
    return DialectPairs(
        tuple((_side(s), _side(t)) for s in sources or (ANY,) for t in targets or (ANY,))
        if sources or targets
        else ()
    )


def _side(name: str) -> str:
    return ANY if name == ANY else dialects.resolve(name)
