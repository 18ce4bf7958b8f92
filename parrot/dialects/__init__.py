"""Dialects: one :class:`Dialect` class per dialect holding every per-dialect fact, and the
alias table.

Every dialect name that enters parrot (CLI flags, dataset lines, prediction files) goes through
:func:`resolve`, so ``pg``, ``postgresql`` and ``PostgreSQL`` all become ``postgres``;
:func:`get` returns the class whose attributes are the facts (``get("pg").nulls_in_desc``).
"""

from __future__ import annotations

from importlib.metadata import entry_points

from parrot.dialects import builtin
from parrot.dialects.base import (
    Dialect,
    Division,
    Folding,
    Lexicon,
    NullOrder,
    UnknownDialectError,
)

__all__ = [
    "ALIASES",
    "DIALECTS",
    "Dialect",
    "Division",
    "Folding",
    "Lexicon",
    "NullOrder",
    "UnknownDialectError",
    "builtin",
    "get",
    "resolve",
]

DIALECTS: dict[str, type[Dialect]] = Dialect.registry  # key -> class, in definition order


def _fold(name: str) -> str:
    return name.strip().lower().replace(" ", "").replace("-", "_")


ALIASES: dict[str, str] = {}  # folded spelling -> key; also filled by dialects defined later
_INDEXED: set[str] = set()  # the keys whose names ALIASES holds


def _index() -> dict[str, str]:
    if len(_INDEXED) != len(DIALECTS):  # dialects defined (or dropped) since the last look
        for d in DIALECTS.values():
            if d.key not in _INDEXED:
                for name in (d.key, d.label, *d.aliases):
                    ALIASES.setdefault(_fold(name), d.key)
        _INDEXED.intersection_update(DIALECTS)
        _INDEXED.update(DIALECTS)
    return ALIASES


_index()


ENTRY_POINTS = "parrot.dialects"  # plugins' modules defining Dialect classes
_PLUGINS_LOADED: list[bool] = []


def _load_plugins() -> None:
    """Import the modules other packages declare in the ``parrot.dialects`` entry-point group
    (once; defining a class registers it)."""
    if not _PLUGINS_LOADED:
        _PLUGINS_LOADED.append(True)
        for point in entry_points(group=ENTRY_POINTS):
            point.load()


def resolve(name: str) -> str:
    """The canonical key for ``name`` (a key, an alias or a label, any case)."""
    if not isinstance(name, str):
        key = None
    elif (key := _index().get(_fold(name))) is None:
        _load_plugins()
        key = _index().get(_fold(name))
    if key is None:
        known = ", ".join(sorted(DIALECTS))
        raise UnknownDialectError(
            f"unknown dialect {name!r} (known: {known}; aliases such as "
            "pg, postgresql, sqlserver, mssql, ch are accepted)"
        )
    return key


def get(name: str) -> type[Dialect]:
    """The :class:`Dialect` class for ``name`` (any accepted spelling)."""
    return DIALECTS[resolve(name)]
