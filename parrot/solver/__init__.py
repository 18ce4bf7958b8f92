"""Bounded equivalence and witnesses with a solver (z3, optional: ``pip install
'parrot-sql[solver]'``): two queries over a symbolic database of a few rows a table, a model
where they differ (checked on the real engines by the caller), or UNSAT up to the bound
(``bounded-equivalent``). :mod:`parrot.solver.core` encodes queries, :mod:`parrot.solver.logic`
SQL's three-valued values, :mod:`parrot.solver.functions` CAST and string functions."""

from parrot.solver.core import (
    DEFAULT_BOUND,
    DEFAULT_TIMEOUT_MS,
    DIALECTS,
    NEED_Z3,
    BoundedEquivalent,
    Killed,
    Outcome,
    Unknown,
    Unsupported,
    available,
    label,
    witness,
)

__all__ = ["DEFAULT_BOUND", "DEFAULT_TIMEOUT_MS", "DIALECTS", "NEED_Z3", "BoundedEquivalent",
           "Killed", "Outcome", "Unknown", "Unsupported", "available", "label", "witness"]
