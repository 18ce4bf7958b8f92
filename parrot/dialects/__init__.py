"""Dialects: one :class:`Dialect` class per dialect holding every per-dialect fact, and the
alias table.

Every dialect name that enters parrot (CLI flags, dataset lines, prediction files) goes through
:func:`resolve`, so ``pg``, ``postgresql`` and ``PostgreSQL`` all become ``postgres``;
:func:`get` returns the class whose attributes are the facts (``get("pg").nulls_in_desc``).
"""

from __future__ import annotations

from parrot.dialects import builtin
from parrot.dialects.base import (
    Dialect,
    Division,
    Folding,
    Lexicon,
    NullOrder,
    UnknownDialectError,
)

__all__ = ["ALIASES", "DIALECTS", "Dialect", "Division", "Folding", "Lexicon", "NullOrder",
           "UnknownDialectError", "builtin", "get", "resolve"]

DIALECTS: dict[str, type[Dialect]] = Dialect.registry  # key -> class, in definition order


def _fold(name: str) -> str:
    return name.strip().lower().replace(" ", "").replace("-", "_")


ALIASES: dict[str, str] = {}  # folded spelling -> key; also filled by dialects defined later
_INDEXED: list[str] = []  # the keys whose names ALIASES holds


def _index() -> dict[str, str]:
    for d in list(DIALECTS.values())[len(_INDEXED):]:  # dialects defined since the last look
        for name in (d.key, d.label, *d.aliases):
            ALIASES.setdefault(_fold(name), d.key)
        _INDEXED.append(d.key)
    return ALIASES


_index()


def resolve(name: str) -> str:
    """The canonical key for ``name`` (a key, an alias or a label, any case)."""
    key = _index().get(_fold(name)) if isinstance(name, str) else None
    if key is None:
        known = ", ".join(sorted(DIALECTS))
        raise UnknownDialectError(f"unknown dialect {name!r} (known: {known}; aliases such as "
                                  "pg, postgresql, sqlserver, mssql, ch are accepted)")
    return key


def get(name: str) -> type[Dialect]:
    """The :class:`Dialect` class for ``name`` (any accepted spelling)."""
    return DIALECTS[resolve(name)]
