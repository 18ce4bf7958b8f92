"""Solver-built witnesses for the neighbours distillation leaves alive (issue 28): each
surviving neighbour is handed to :func:`parrot.solver.witness` (the encoder, its fragment and
its bound are described there); a killed one's database joins the suite's candidates, a
bounded-equivalent one is counted apart, never as a survivor."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from parrot.fixtures import Fixture
from parrot.solver import DEFAULT_BOUND, DEFAULT_TIMEOUT_MS, DIALECTS, NEED_Z3, available
from parrot.solver.core import (
    BoundedEquivalent,
    Killed,
    Outcome,
    Unknown,
    Unsupported,
    label,
    witness,
)

__all__ = [
    "DEFAULT_BOUND",
    "DEFAULT_TIMEOUT_MS",
    "DIALECTS",
    "NEED_Z3",
    "Attempt",
    "BoundedEquivalent",
    "Killed",
    "Unknown",
    "Unsupported",
    "available",
    "extra_candidates",
    "label",
    "solve_survivors",
    "witness",
]


@dataclass(frozen=True)
class Attempt:
    """The solver's outcome for one surviving neighbour (``operator``, ``sql``)."""

    operator: str
    sql: str
    outcome: Outcome
    reused: bool = False  # killed by the witness of an earlier neighbour (no solver call)

    def to_json(self) -> dict[str, Any]:
        """The record distillation keeps in ``extra["solver"]``: ``label`` (see :func:`label`)
        and ``k`` (killed), ``bound`` (bounded-equivalent) or ``reason``, and ``cpu_s``."""
        out: dict[str, Any] = {
            "operator": self.operator,
            "sql": self.sql,
            "label": label(self.outcome),
        }
        o = self.outcome
        if isinstance(o, Killed):
            out["k"] = o.k
        elif isinstance(o, BoundedEquivalent):
            out["bound"] = o.bound
        else:
            out["reason"] = o.reason
        if self.reused:
            out["reused"] = True
        elif not isinstance(o, Unsupported):
            out["cpu_s"] = round(o.seconds, 4)
        return out


def extra_candidates(
    source_sql: str,
    dialect: str,
    fixture: Fixture,
    survivors: Sequence[tuple[str, str]],
    verify: Callable[[Fixture, str], bool],
    *,
    bound: int = DEFAULT_BOUND,
    timeout_ms: int = DEFAULT_TIMEOUT_MS,
) -> list[Attempt]:
    """One :class:`Attempt` per surviving neighbour ((operator, sql), in order): the killed
    ones carry a candidate database (:class:`Killed`) distillation can add, checked by
    ``verify(db, neighbour_sql)`` (the neighbour differs from the source there on the engine).
    A neighbour an earlier witness already separates (by ``verify``) reuses that database."""
    out: list[Attempt] = []
    found: list[Killed] = []
    for operator, sql in survivors:
        reused = next((w for w in found if verify(w.fixture, sql)), None)
        if reused is not None:
            out.append(Attempt(operator, sql, reused, reused=True))
            continue
        outcome = witness(
            source_sql,
            sql,
            dialect,
            fixture,
            _bind(verify, sql),
            bound=bound,
            timeout_ms=timeout_ms,
        )
        if isinstance(outcome, Killed):
            found.append(outcome)
        out.append(Attempt(operator, sql, outcome))
    return out


def _bind(verify: Callable[[Fixture, str], bool], sql: str) -> Callable[[Fixture], bool]:
    return lambda db: verify(db, sql)


def solve_survivors(
    source_sql: str,
    dialect: str,
    fixture: Fixture,
    alive: Sequence[tuple[int, str, str]],
    verify: Callable[[Fixture, str], bool],
    fair: Callable[[Fixture], bool],
    usable: list[tuple[int, Fixture]],
    kills: list[set[int]],
) -> tuple[list[Attempt], dict[int, int]]:
    """Distillation's hook: witnesses for the neighbours it leaves alive ((index, operator, sql)).
    Each witness database that ``fair`` accepts (every reference agrees with the source there)
    joins ``usable`` (numbered -1, -2, ...: no seed made it) with the
    indices it kills in ``kills``; one ``fair`` rejects leaves its neighbour alive (relabelled
    unknown). Returns the attempts and the bounded-equivalent neighbours, index -> bound."""
    attempts = extra_candidates(
        source_sql, dialect, fixture, [(op, sql) for _, op, sql in alive], verify
    )
    bounded: dict[int, int] = {}
    added: dict[str, int] = {}  # witness content hash -> its index in usable (None: unfair)
    for n, ((i, _, _), a) in enumerate(zip(alive, attempts, strict=True)):
        o = a.outcome
        if isinstance(o, BoundedEquivalent):
            bounded[i] = o.bound
        if not isinstance(o, Killed):
            continue
        key = o.fixture.content_hash
        if key not in added:
            added[key] = -1
            if fair(o.fixture):
                usable.append((-1 - sum(v >= 0 for v in added.values()), o.fixture))
                kills.append(set())
                added[key] = len(usable) - 1
        if added[key] < 0:
            attempts[n] = Attempt(
                a.operator,
                a.sql,
                Unknown(
                    "a reference translation disagrees with the source on the witness", o.seconds
                ),
            )
            continue
        kills[added[key]].add(i)
    return attempts, bounded
