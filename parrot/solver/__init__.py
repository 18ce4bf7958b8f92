"""Bounded equivalence and witnesses with a solver (z3, optional: ``pip install
'parrot-sql[solver]'``): two queries over a symbolic database of a few rows a table, a model
where they differ (checked on the real engines by the caller), or UNSAT up to the bound
(``bounded-equivalent``). :mod:`parrot.solver.core` encodes queries (and imports z3),
:mod:`parrot.solver.logic` SQL's three-valued values, :mod:`parrot.solver.functions` CAST and
string functions. This package module stays light (no z3 import): callers that only ask whether
the solver is there, or read its defaults, do not pay for loading z3."""

from importlib import metadata
from importlib.util import find_spec

NEED_Z3 = "solver witnesses need z3-solver: pip install 'parrot-sql[solver]'"
DEFAULT_BOUND = 3  # rows per table tried: 1 .. bound
DEFAULT_TIMEOUT_MS = 2000  # per z3 check
DIALECTS = frozenset({"sqlite", "duckdb", "postgres"})


def available() -> bool:
    """Whether z3-solver is importable."""
    return find_spec("z3") is not None


def z3_version() -> str | None:
    """The installed z3-solver's version (None without it)."""
    try:
        return metadata.version("z3-solver")
    except metadata.PackageNotFoundError:
        return None
