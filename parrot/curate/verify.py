"""Stage 5, error-guided selection: test data, then syntax and semantic checks of candidates.

* :class:`TestData` builds ``rounds`` fixtures per pair with the query-aware generator
  (:mod:`parrot.testsuite.datagen`); a pair with a named fixture (a Spider database) uses it as
  round 0 and generated data over the same schema for the other rounds.
* :class:`Verify` runs every candidate through the same :class:`~parrot.eval.judge.Judge` that
  ``python -m parrot.eval`` uses: the source on the source engine, the candidate on the target
  engine, strict comparison, on every round. A candidate the engine rejects fails the syntax
  check; one that ever disagrees fails the semantic check. The pair keeps the agreeing candidates
  as its references (first is canonical); a pair with none is dropped or routed to review.
  Pairs with no engine on one side get a grammar-only verdict and are kept, labelled
  ``unverified``, only when asked.

The attached fixture is the one eval will use: the named database, else the first round whose
source result is non-empty. A source whose LIMIT cuts through ties there is rejected.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from typing import TYPE_CHECKING, Any, TypeVar

from parrot.api.records import Outcome
from parrot.curate.anonymise import resolve_fixture
from parrot.curate.stages import (
    ENGINE_CHUNK,
    Batch,
    Candidate,
    Drop,
    Record,
    Stage,
    statement_id,
)
from parrot.datasets import Item
from parrot.eval.judge import EMPTY_FIXTURE, Judge
from parrot.fixtures import Fixture, FixtureError, fixture_from_json
from parrot.migrate.named import named_fixture
from parrot.testsuite.datagen import (
    SchemaError,
    fixture_name,
    order_dependent_window,
    parse_query,
    query_test_data,
    volatile,
)
from parrot.translators.base import Translation, TranslationStatus

if TYPE_CHECKING:
    from parrot.eval.judge import Gold

DEFAULT_ROUNDS = 5
DEFAULT_TIMEOUT = 5.0
DEFAULT_MAX_ROWS = 10_000
ENGINE_RETRIES = 2  # re-judgements of a candidate whose run hit an engine failure
ENGINE_RETRY_PAUSE = 1.0  # seconds before the first (doubling after)
T = TypeVar("T")


@dataclass(frozen=True)
class Agreement:
    """The outcome of checking one SQL text against a pair's source on every round."""

    ok: bool
    reason: str = ""  # the strict verdict's reason code, or a stage-level reason
    detail: str = ""
    round: int | None = None  # the round that exposed the difference
    rounds_compared: int = 0


class Checker:
    """One judge (one set of engines) per process, and the fixtures of the current pairs."""

    def __init__(self, timeout: float, max_rows: int):
        # execution verdicts only: the grammar check of a failing run (Acc_SYN) is unused here
        self.judge = Judge(timeout=timeout, max_rows=max_rows, start=False, syntax_fallback=False)
        self._fixtures: dict[str, Fixture] = {}
        self._ties: dict[tuple[str, str, str], str | None] = {}

    def runnable(self, r: Record) -> bool:
        return (
            r.target is not None
            and self.judge.engine(r.dialect) is not None
            and self.judge.engine(r.target) is not None
        )

    def fixture(self, data: dict[str, Any] | str) -> Fixture:
        if isinstance(data, str):
            key = data
            if key not in self._fixtures:
                self._fixtures[key] = resolve_fixture(data) or named_fixture(data)
        else:
            key = data["name"]
            if key not in self._fixtures:
                if len(self._fixtures) > 2000:
                    self._fixtures.clear()
                self._fixtures[key] = fixture_from_json(data)
        return self._fixtures[key]

    def rounds(self, r: Record) -> list[Fixture]:
        """The fixtures of every round (a query that reads no table: the empty fixture)."""
        out = [self.fixture(r.fixture)] if r.fixture else []
        out.extend(self.fixture(f) for f in r.info.get("rounds", ()))
        return out or [EMPTY_FIXTURE]

    def item(self, r: Record, fixture: Fixture) -> Item:
        assert r.target is not None
        return Item(r.id, r.dialect, r.target, r.sql, fixture=fixture)  # id, source, target, sql

    def attach(self, r: Record) -> tuple[int, str | None]:
        """The round eval will use, and why the source cannot be judged on it (or None)."""
        fixtures = self.rounds(r)
        first_ok = None
        for i, fx in enumerate(fixtures):
            gold = self.gold_retrying(self.item(r, fx)).execution
            if not gold.ok:
                if r.fixture and i == 0:
                    return 0, f"source fails on {r.fixture}: {gold.status}"
                continue
            if first_ok is None:
                first_ok = i
            if (gold.result is not None and gold.result.rows) or r.fixture:
                break
        else:
            i = first_ok if first_ok is not None else -1
        if i < 0:
            return 0, "source fails on every round of test data"
        reason = self.cuts_ties(self.item(r, fixtures[i]))
        return i, (f"nondeterministic source: {reason}" if reason else None)

    def cuts_ties(self, item: Item) -> str | None:
        """The judge's :meth:`~parrot.eval.judge.Judge.limit_cuts_ties`, once per source and
        round (it runs the source without its LIMIT): every target and candidate of a statement
        asks it again. A failed run of that source is not kept (it may be the machine's)."""
        assert item.fixture is not None
        key = (item.source_dialect, item.source_sql, item.fixture.content_hash)
        if key in self._ties:
            return self._ties[key]
        reason = self.judge.limit_cuts_ties(item)
        if reason is None or not reason.startswith("the source without its LIMIT failed"):
            if len(self._ties) > 20_000:
                self._ties.clear()
            self._ties[key] = reason
        return reason

    def judge_retrying(self, item: Item, sql: str) -> Outcome:
        """The judge's record for ``sql``; one whose source or candidate run hit an engine
        failure (an in-process engine that could not start a thread or allocate memory on a
        loaded machine) is judged again (:func:`retrying`), so a transient failure of the
        machine does not send a pair to review as if the translation were wrong."""
        return retrying(
            lambda: self.judge.judge(item, Translation(TranslationStatus.OK, sql=sql)),
            lambda record: any(
                run and run["status"] == "engine_error"
                for run in (record.get("gold"), record.get("pred"))
            ),
        )

    def gold_retrying(self, item: Item) -> Gold:
        """The source's run (the judge's Gold), run again after an engine failure."""
        return retrying(
            lambda: self.judge.gold(item), lambda gold: gold.execution.status == "engine_error"
        )

    def agrees(self, r: Record, sql: str) -> Agreement:
        """Whether ``sql`` on the target gives the source's result on every round."""
        if "\x00" in sql:  # engine drivers refuse it outright
            return Agreement(False, "nul_character", "the candidate contains a NUL character")
        compared = 0
        attached = r.info.get("attach", 0)
        for i, fx in enumerate(self.rounds(r)):
            item = self.item(r, fx)
            record = self.judge_retrying(item, sql)
            strict = record["verdicts"]["strict"]
            if strict["reason"] == "gold_error":
                continue  # the source itself fails on this round's data
            if i != attached and self.cuts_ties(item):
                continue  # ties cut by LIMIT: any choice of rows is right
            compared += 1
            if not strict["match"]:
                pred = record.get("pred")
                reason = (
                    "syntax_error"
                    if pred and pred["status"] == "syntax_error"
                    else strict["reason"]
                )
                return Agreement(False, reason, strict.get("detail", ""), i, compared)
        if not compared:
            return Agreement(False, "gold_error", "the source ran on no round")
        return Agreement(True, "match", rounds_compared=compared)


def retrying(run: Callable[[], T], failed: Callable[[T], bool]) -> T:
    """``run()``, again after a pause (doubling) while ``failed`` says an engine failed, up to
    ``ENGINE_RETRIES`` times."""
    for attempt in range(ENGINE_RETRIES):
        out = run()
        if not failed(out):
            return out
        time.sleep(ENGINE_RETRY_PAUSE * 2**attempt)
    return run()


_CHECKER: dict[tuple[float, int], Checker] = {}


def checker(timeout: float, max_rows: int) -> Checker:
    """This process's checker (created on first use; engines stay open for the process)."""
    key = (timeout, max_rows)
    if key not in _CHECKER:
        _CHECKER[key] = Checker(timeout, max_rows)
    return _CHECKER[key]


@dataclass(eq=False)
class TestData(Stage):
    """Generate the rounds of test data of every pair and pick the round eval will use."""

    name = "testdata"
    max_chunk = ENGINE_CHUNK
    __test__ = False  # not a pytest class, despite its name

    rounds: int = DEFAULT_ROUNDS
    seed: int = 0
    timeout: float = DEFAULT_TIMEOUT
    max_rows: int = DEFAULT_MAX_ROWS

    def params(self) -> dict[str, Any]:
        return {"rounds": self.rounds, "seed": self.seed, "generator": "parrot.testsuite.datagen"}

    def map(self, chunk: list[Record]) -> Batch:
        check = checker(self.timeout, self.max_rows)
        out = Batch([])
        made: dict[tuple[str, str, str, str | None], list[dict[str, Any]] | str] = {}
        for r in chunk:
            rounds = self._data(r, check, made)
            if isinstance(rounds, str):
                out.drop(Drop.NO_TEST_DATA, rounds)
                continue
            r.info["rounds"] = rounds
            if not check.runnable(r):
                out.records.append(r)
                continue
            try:
                attach, problem = check.attach(r)
            except FixtureError as exc:
                out.drop(Drop.NO_TEST_DATA, _reason(exc))
                continue
            if problem:
                out.drop(Drop.SOURCE_UNUSABLE, _reason(problem))
                continue
            r.info["attach"] = attach
            out.records.append(r)
        return out

    def _data(
        self,
        r: Record,
        check: Checker,
        made: dict[tuple[str, str, str, str | None], list[dict[str, Any]] | str],
    ) -> list[dict[str, Any]] | str:
        """The rounds of ``r``'s statement (or why there are none): generated once per statement,
        seeded and named by the statement's id, so every target of a statement is judged on the
        same data (its source runs and loads once per round, and its fixtures are written once).
        """
        statement = statement_id(r.id)
        key = (statement, r.dialect, r.sql, r.fixture)
        if key not in made:
            try:
                base = check.fixture(r.fixture) if r.fixture else None
                generated = self.rounds - (1 if base is not None else 0)
                made[key] = query_test_data(
                    r.sql,
                    r.dialect,
                    rounds=generated,
                    seed=f"{self.seed}:{statement}",
                    name=fixture_name(statement),
                    base=base,
                )
            except (SchemaError, FixtureError) as exc:
                made[key] = _reason(exc)
        return made[key]


def no_test_data(sql: str, dialect: str) -> str | None:
    """Why no test data can be made for ``sql`` whatever its target (not one query, a volatile
    function), or None: the check :func:`query_test_data` starts with."""
    try:
        tree = parse_query(sql, dialect)
    except SchemaError as exc:
        return _reason(exc)
    if volatile(tree):
        return "volatile function"
    return "order-dependent window function" if order_dependent_window(tree) else None


def _reason(exc: BaseException | str) -> str:
    """A short funnel reason (the first clause of a message)."""
    text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    for sep in (": ", " ("):
        if sep in text and not text.startswith("source fails"):
            text = text.split(sep)[0]
    return text[:80]


@dataclass(eq=False)
class Verify(Stage):
    """Syntax and semantic check of every candidate; see the module docstring."""

    name = "verify"
    max_chunk = ENGINE_CHUNK

    timeout: float = DEFAULT_TIMEOUT
    max_rows: int = DEFAULT_MAX_ROWS
    review: bool = True
    keep_unverified: bool = False

    def params(self) -> dict[str, Any]:
        return {**asdict(self), "comparison": "strict"}

    def map(self, chunk: list[Record]) -> Batch:
        check = checker(self.timeout, self.max_rows)
        out = Batch([])
        for r in chunk:
            if not r.candidates:
                out.drop(Drop.NO_CANDIDATE)
                continue
            if not check.runnable(r):
                self._unverified(r, out)
                continue
            verified: list[Candidate] = []
            failures: list[dict[str, Any]] = []
            seen: set[str] = set()
            for c in r.candidates:
                if c.sql in seen:
                    continue
                seen.add(c.sql)
                agreement = check.agrees(r, c.sql)
                if agreement.ok:
                    verified.append(c)
                else:
                    failures.append(
                        {
                            "candidate": c.sql,
                            "annotator": c.annotator,
                            "reason": agreement.reason,
                            "detail": agreement.detail,
                            "round": agreement.round,
                        }
                    )
            for f in failures:
                out.notes[f"candidate failed: {f['reason']}"] += 1
            if verified:
                out.records.append(
                    replace(
                        r,
                        references=tuple(verified),
                        tags=(*r.tags, "verified:execution"),
                        info={**r.info, "rejected": failures},
                    )
                )
            elif self.review:
                out.routed.append(review_entry(r, failures))
                out.drop(Drop.NO_AGREEMENT, "routed to review")
            else:
                out.drop(Drop.NO_AGREEMENT)
        return out

    def _unverified(self, r: Record, out: Batch) -> None:
        if not self.keep_unverified or r.target is None:
            out.drop(Drop.NO_ENGINE)
            return
        good = [c for c in r.candidates if grammar_accepts(c.sql, r.target)]
        if not good:
            out.drop(Drop.NO_ENGINE_GRAMMAR_FAILS)
            return
        out.records.append(
            replace(
                r, references=tuple(good), tags=(*r.tags, "unverified", "verified:grammar-only")
            )
        )


def grammar_accepts(sql: str, dialect: str) -> bool:
    """Grammar-only syntax verdict: parrot's ANTLR grammar when it covers the dialect, else
    sqlglot's parser."""
    # deferred: ANTLR's runtime and generated parsers (loaded only on this path)
    from parrot.check import UnsupportedDialectError, accepts

    try:
        return accepts(sql, dialect)
    except UnsupportedDialectError:
        pass
    import sqlglot
    from sqlglot.errors import SqlglotError

    try:
        return bool(sqlglot.parse(sql, read=dialect))
    except (SqlglotError, RecursionError, ValueError):
        return False


def review_entry(r: Record, failures: list[dict[str, Any]]) -> dict[str, Any]:
    """Everything a reviewer needs to fix one pair (see :mod:`parrot.curate.review`)."""
    return {
        "id": r.id,
        "source_dialect": r.dialect,
        "target_dialect": r.target,
        "source_sql": r.sql,
        "origin": r.origin,
        "fixture": r.fixture,
        "rounds": r.info.get("rounds", []),
        "attach": r.info.get("attach", 0),
        "candidates": failures,
        "fixed_sql": "",
    }
