"""Verifying one template on every database: dual execution, generated databases, witnesses.

A query template is judged on its databases — the user's database (``--db``), test-suite
databases generated from the schema (and the database's rows, when both are given) and the
statements' own literals (``--schema``) — under the strict comparator. Outcomes:

* ``verified`` — the source ran on at least one database and the translation agreed on all;
* ``review`` — they disagree on some database: the first such database is shrunk to a minimal
  witness (:mod:`parrot.eval.witness`);
* ``failed`` — no translation, or the translation fails where the source runs;
* ``not_assessed`` — nothing could be judged (no engine, the source fails on every database).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from parrot.api.records import VerdictRecord
from parrot.datasets import Item
from parrot.eval.judge import Judge
from parrot.eval.witness import witness
from parrot.fixtures import Fixture
from parrot.translators.base import Translation

VERIFIED, REVIEW, FAILED, NOT_ASSESSED = "verified", "review", "failed", "not_assessed"
_FAILED_REASONS = frozenset({"pred_error", "timeout"})


@dataclass(frozen=True)
class Outcome:
    """The verdict of one statement's translation on its databases."""

    verdict: str
    reason: str = ""  # the strict reason of the first failing database, or why not assessed
    detail: str = ""
    judged: int = 0  # databases on which both sides were compared
    databases: int = 0
    witness: dict[str, Any] | None = None
    per_database: tuple[bool | None, ...] = field(default=(), compare=False)

    def to_json(self) -> dict[str, Any]:
        """Every field but ``per_database``."""
        return {k: v for k, v in asdict(self).items() if k != "per_database"}


def judge_on(
    judge: Judge,
    item: Item,
    translation: Translation,
    databases: Sequence[tuple[str, Fixture]],
    witness_budget: int = 0,
) -> Outcome:
    """Judge ``translation`` of ``item``'s source on each (origin, database)."""
    if not translation.ok or translation.sql is None:
        return Outcome(
            FAILED,
            "not_translated",
            f"{translation.status}: {translation.error or ''}".strip(),
            databases=len(databases),
        )
    marks: list[bool | None] = []
    first: tuple[str, VerdictRecord, Fixture] | None = None
    why_not = ""
    for origin, db in databases:
        record = judge.judge(replace(item, fixture=db), translation)
        strict = record["verdicts"]["strict"]
        if strict["reason"] in ("gold_error", "no_engine"):
            marks.append(None)
            why_not = why_not or f"{strict['reason']}: {' '.join(strict['detail'].split())}"
            continue
        marks.append(bool(strict["match"]))
        if not strict["match"] and first is None:
            first = (origin, strict, db)
    judged = sum(m is not None for m in marks)
    if first is None:
        if judged == 0:
            return Outcome(
                NOT_ASSESSED,
                why_not.split(":")[0] or "no_database",
                why_not,
                0,
                len(databases),
                per_database=tuple(marks),
            )
        return Outcome(VERIFIED, "match", "", judged, len(databases), per_database=tuple(marks))
    origin, strict, db = first
    verdict = FAILED if strict["reason"] in _FAILED_REASONS else REVIEW
    found = None
    if verdict == REVIEW and witness_budget > 0:
        shrunk = witness(
            item,
            translation.sql,
            [(origin, db)],
            budget=witness_budget,
            timeout=judge.timeout,
            start=judge.start,
            urls=judge.urls,
        )
        found = shrunk.to_json() if shrunk is not None else None
    return Outcome(
        verdict,
        strict["reason"],
        f"on {origin}: " + " ".join(strict["detail"].split()),
        judged,
        len(databases),
        found,
        tuple(marks),
    )
