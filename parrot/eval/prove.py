"""``parrot eval --prove``: the solver on every item judged right, for a stronger level.

An item whose translation matches the source strictly on the fixture (and on every database of
its suite, where it has one) is handed to :func:`parrot.solver.witness` with the source in the
source dialect and the translation in the target dialect, each encoded with its own dialect's
semantics (SQLite, DuckDB and PostgreSQL; any pair of them). The answer goes into the record's
``prove`` field (:class:`parrot.api.records.ProveRecord`):

* **bounded-equivalent** — no database of the fixture's schema with at most ``bound`` rows a
  table separates them: the item's level becomes ``bounded-equivalent`` with its bound;
* **counterexample** — the solver's model, run on both real engines (the source on the source
  engine, the translation on the target engine), really separates them: the model is recorded
  as a witness (the same record as ``parrot witness``), a note says so on the strict verdict,
  and **the item fails Acc_TS** where it has a suite (a database of the fixture's schema on
  which the results differ is what a suite database is for). Acc_EX and strict stay the
  fixture's verdicts;
* **unknown** — z3's per-check timeout (the per-item budget: ``timeout_ms`` for each of the
  bound's checks), ORDER BY ties, or a restricted search (see :mod:`parrot.solver.core`);
  **unverified** — a model the engines do not confirm (an encoding gap); **unsupported** —
  outside the fragment or the dialects. None of these changes the verdict or the level.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, cast

from parrot.api.records import Outcome, ProveRecord, WitnessRecord
from parrot.datasets import Item
from parrot.eval.judge import Judge, execution_json
from parrot.eval.witness import Witness, disagreement
from parrot.fixtures import Fixture
from parrot.solver import DEFAULT_BOUND, DEFAULT_TIMEOUT_MS, DIALECTS, z3_version
from parrot.translators.base import Translation


@dataclass(frozen=True)
class ProveSettings:
    """The solver's bound (rows a table) and its timeout per z3 check."""

    bound: int = DEFAULT_BOUND
    timeout_ms: int = DEFAULT_TIMEOUT_MS

    def manifest(self) -> dict[str, Any]:
        """The run manifest's ``settings.prove``: these and z3's version."""
        return {
            "bound": self.bound,
            "timeout_ms": self.timeout_ms,
            "z3": z3_version(),
            "dialects": sorted(DIALECTS),
        }


def attach(judge: Judge, settings: ProveSettings | None) -> Judge:
    """``judge`` with the prover hooked in (after each item's level), when ``settings``."""
    if settings is not None:
        judge.prover = lambda item, translation, record: prove(
            judge, item, translation, record, settings
        )
    return judge


def prove(
    judge: Judge, item: Item, translation: Translation, record: Outcome, settings: ProveSettings
) -> None:
    """Adds ``prove`` to an item judged right (and, by its answer, the level or the
    counterexample; see the module)."""
    suite = record.get("suite")
    if (
        not record["verdicts"]["strict"]["match"]
        or (suite is not None and not suite["match"])
        or translation.sql is None
        or item.fixture is None
    ):
        return
    # deferred: z3 (parrot.solver.core loads it; an eval without --prove never does)
    from parrot.solver.core import BoundedEquivalent, Killed, Unknown, Unsupported, witness

    found: list[tuple[Fixture, Any]] = []

    def verify(db: Fixture) -> bool:
        hit = disagreement(judge, item, translation.sql or "", db)
        if hit is not None:
            found.append((db, hit))
        return hit is not None

    out = witness(
        item.source_sql,
        translation.sql,
        item.source_dialect,
        item.fixture,
        verify,
        bound=settings.bound,
        timeout_ms=settings.timeout_ms,
        target_dialect=item.target_dialect,
    )
    entry: ProveRecord = {"label": "unsupported"}
    if isinstance(out, BoundedEquivalent):
        entry = {"label": "bounded-equivalent", "bound": out.bound}
        record["level"] = {
            "name": "bounded-equivalent",
            "databases": record.get("level", {}).get("databases", 1),
            "bound": out.bound,
        }
    elif isinstance(out, Killed):
        entry = {"label": "counterexample", "k": out.k, "witness": _witness(found[-1], out.k)}
        _refute(record, out.k)
    elif isinstance(out, Unknown):
        entry = {
            "label": "unverified" if out.reason.startswith("unverified") else "unknown",
            "reason": out.reason,
        }
    else:
        entry["reason"] = out.reason
    if not isinstance(out, Unsupported):
        entry["cpu_s"] = round(out.seconds, 4)
    record["prove"] = entry


def _witness(found: tuple[Fixture, Any], k: int) -> WitnessRecord:
    db, (verdict, gold, pred, label) = found
    found_on = Witness(
        db,
        f"solver (k={k})",
        verdict,
        execution_json(gold.execution, gold.engine),
        execution_json(pred, label),
        executions=2,
        minimal=False,
        rows_before={t.name: len(t.rows) for t in db.tables},
    )
    return cast(WitnessRecord, found_on.to_json())


def _refute(record: Outcome, k: int) -> None:
    """A verified counterexample: a note on the strict verdict, and Acc_TS fails."""
    note = (
        f"solver: the source and the translation differ on a {k}-row-a-table database of "
        "the fixture's schema (prove.witness)"
    )
    strict = record["verdicts"]["strict"]
    strict["notes"] = [*strict.get("notes", []), note]
    suite = record.get("suite")
    if suite is not None:
        suite["match"] = False
