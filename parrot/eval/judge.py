"""Dual execution of one item: the source on the source engine, the translation on the target.

A :class:`Judge` owns one engine adapter per dialect (created on first use) and a cache of gold
results, so an item's source runs once however many translations are judged against it. Each
worker process has its own judge.
"""

from __future__ import annotations

import contextlib
import functools
import json
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, cast

from parrot.api.records import (
    ExecutionRecord,
    Outcome,
    SuiteDatabaseRecord,
    SuiteRecord,
    SyntaxRecord,
    VerdictRecord,
    verdict_level,
)
from parrot.api.secrets import redact_url
from parrot.compare import (
    CompareFacts,
    Mode,
    Reason,
    TiePool,
    Verdict,
    compare_all,
    failure,
    sort_keys_tied,
)
from parrot.connect import create_engine
from parrot.datasets import Item
from parrot.engines import (
    DEFAULT_MAX_ROWS,
    DEFAULT_TIMEOUT,
    Engine,
    ExecStatus,
    Execution,
    FixtureLoadError,
    UnknownEngineError,
    engine_class,
    engine_name_for,
    url_from_env,
)
from parrot.engines.base import MAX_TIMEOUT
from parrot.engines.worker import IsolatedEngine
from parrot.eval.suites import Suite, SuiteCache, load_suite
from parrot.eval.syntax import ENGINE_PARSED, keep_warm_grammars, syntax_json
from parrot.fixtures import Fixture
from parrot.sqlfacts import order_facts, sort_key_columns, with_sort_key_columns, without_limit
from parrot.translators.base import Translation, TranslationStatus
from parrot.values import ResultSet, to_json

EMPTY_FIXTURE = Fixture(name="empty", tables=())
PREVIEW_ROWS = 5
TIMEOUT_RERUN = 3.0  # a timed-out execution is re-run once with this many times its budget
PREVIEW_CELL_BYTES = 1_024  # a preview cell's JSON text beyond this is cut (a note says how long)
PREVIEW_BYTES = 8_192  # a preview's cells beyond this many bytes of JSON text become "…"
NO_TIE_KEYS_NOTE = (
    "the source's sort-key values could not be computed: every row was held to "
    "its position, ties included"
)
UNORDERED_NOTE = (
    "the source orders at top level but the translation has no top-level ORDER BY: "
    "its row order is the engine's choice, not guaranteed"
)


@dataclass(frozen=True)
class _Window:
    """The rows a source's LIMIT/OFFSET keeps, [start, end) of its unlimited result ``full``;
    ``edges`` are the window edges inside it, ``keys`` each full row's sort keys (None: the
    source does not order at top level)."""

    full: ResultSet
    start: int
    end: int
    edges: tuple[int, ...]
    keys: list[tuple[Any, ...]] | None


@dataclass(frozen=True)
class Gold:
    """The source query's result and the comparison facts derived from it."""

    execution: Execution
    facts: CompareFacts
    engine: str


class Judge:
    """Runs sources and translations on real engines and compares the results."""

    def __init__(
        self,
        timeout: float = DEFAULT_TIMEOUT,
        max_rows: int = DEFAULT_MAX_ROWS,
        urls: dict[str, str] | None = None,
        start: bool = False,
        syntax: bool = False,
        suite_dir: Path | None = None,
        syntax_fallback: bool = True,
        timeouts: dict[str, float] | None = None,
    ):
        self.timeout = timeout
        self.timeouts = dict(timeouts or {})  # dialect -> seconds, overriding ``timeout``
        self.syntax = syntax  # Acc_SYN on every translation, not only where no engine accepted it
        self.syntax_fallback = syntax_fallback  # False: no Acc_SYN at all (curation needs none)
        self.max_rows = max_rows
        self.urls = dict(urls or {})  # dialect -> server URL (--engine DIALECT=URL)
        self.start = start  # start (and restart) managed servers on demand
        self._engines: dict[str, Engine | None] = {}
        self._engine_errors: list[str] = []  # engine failures retried during the current item
        self._missing: dict[str, str] = {}
        self._gold: dict[tuple[str, str, str, bool | None], Gold] = {}
        self.suite_dir = suite_dir  # the dataset directory whose suites/ judge every item
        self._suites = SuiteCache()  # the suites judged lately (bounded: KEPT_SUITE_ROWS)
        # eval --prove: called on each finished record (parrot.eval.prove.attach sets it)
        self.prover: Callable[[Item, Translation, Outcome], None] | None = None

    def engine(self, dialect: str) -> Engine | None:
        if dialect not in self._engines:
            try:
                self._engines[dialect] = create_engine(
                    dialect, url=self.urls.get(dialect), start=self.start
                )
            except UnknownEngineError as exc:
                self._engines[dialect] = None
                self._missing[dialect] = str(exc)
        return self._engines[dialect]

    def warm(self, dialects: Iterable[str]) -> list[threading.Thread]:
        """Start the engine workers of the embedded engines among ``dialects`` now, side by
        side, each in a thread of its own (returned, already started): their start-up (a
        Python process, the engine's import, chdb's connection) overlaps each other and this
        process's work instead of running one after another at each engine's first item.
        Server engines are left to their first use (starting a server is not warming). A
        worker that fails to start here is started again at first use, which reports it."""
        threads = []
        for dialect in sorted(set(dialects)):
            name = engine_name_for(dialect)
            if dialect in self.urls or url_from_env(dialect) is not None or name is None:
                continue
            try:
                if engine_class(name).is_server():
                    continue
                engine = self.engine(dialect)
            except Exception:  # unknown or unavailable: the first item records why
                continue
            if isinstance(engine, IsolatedEngine):
                thread = threading.Thread(
                    target=_warm_one, args=(engine,), name=f"parrot-warm-{dialect}", daemon=True
                )
                thread.start()
                threads.append(thread)
        return threads

    def _run(
        self, dialect: str, sql: str, fixture: Fixture, timeout: float | None = None
    ) -> tuple[Execution, str]:
        """Execute once within ``timeout`` (default: the judge's for ``dialect``); after an
        engine failure (a server died, a connection broke, a driver
        error while loading the fixture) reconnect — restarting a managed server when allowed —
        and retry once; after a timeout re-run once with TIMEOUT_RERUN times the budget (a
        verdict must not depend on the machine's load: only what times out twice is a
        timeout)."""
        budget = self._timeout(dialect, timeout)
        execution, label = self._run_once(dialect, sql, fixture, budget)
        engine = self._engines.get(dialect)
        if execution.status is ExecStatus.ENGINE_ERROR and (
            dialect not in self._engines  # its adapter could not even connect
            or (engine is not None and engine.is_server())
        ):
            self._engine_errors.append(f"{dialect}: {execution.error}")
            self._engines.pop(dialect, None)
            if engine is not None:
                with contextlib.suppress(Exception):  # closing a dead connection may fail
                    engine.close()
            execution, label = self._run_once(dialect, sql, fixture, budget)
        if execution.status is ExecStatus.TIMEOUT:  # a loaded machine, or a query that never ends
            longer = min(budget * TIMEOUT_RERUN, MAX_TIMEOUT)
            execution, label = self._run_once(dialect, sql, fixture, longer)
            if execution.status is ExecStatus.TIMEOUT:
                execution = replace(
                    execution,
                    error=f"timed out at {budget:g} s, and again when re-run with {longer:g} s",
                )
        return execution, label

    def _timeout(self, dialect: str, timeout: float | None = None) -> float:
        """``timeout`` if given, else the judge's for ``dialect``."""
        return timeout if timeout is not None else self.timeouts.get(dialect, self.timeout)

    def _run_once(
        self, dialect: str, sql: str, fixture: Fixture, timeout: float
    ) -> tuple[Execution, str]:
        try:
            engine = self.engine(dialect)
        except Exception as exc:  # a driver error while connecting: the engine failed
            return Execution(
                ExecStatus.ENGINE_ERROR, error=f"connect: {_driver_error(exc)}"
            ), dialect
        if engine is None:
            return Execution(ExecStatus.NO_ENGINE, error=self._missing[dialect]), "none"
        try:
            engine.load(fixture)
        except FixtureLoadError as exc:
            return Execution(ExecStatus.ENGINE_ERROR, error=f"fixture load: {exc}"), engine.label
        except Exception as exc:  # a driver error (the server died mid-load, a lost connection)
            return (
                Execution(ExecStatus.ENGINE_ERROR, error=f"fixture load: {_driver_error(exc)}"),
                engine.label,
            )
        return engine.execute(sql, fixture, timeout=timeout, max_rows=self.max_rows), engine.label

    def gold(self, item: Item, fixture: Fixture | None = None) -> Gold:
        """The source's result on ``fixture`` (default: the item's fixture), cached."""
        fixture = fixture or item.fixture or EMPTY_FIXTURE
        key = (item.source_dialect, fixture.content_hash, item.source_sql, item.order_sensitive)
        # tolerance is applied per item in judge(); the cached facts carry the default
        if key in self._gold:
            return self._gold[key]
        execution, label = self._run(item.source_dialect, item.source_sql, fixture)
        gold = Gold(execution, self._facts(item, execution, fixture), label)
        if execution.status is not ExecStatus.ENGINE_ERROR:  # an engine failure is not the gold
            self._gold[key] = gold
        return gold

    def _facts(self, item: Item, execution: Execution, fixture: Fixture) -> CompareFacts:
        order = order_facts(item.source_sql, item.source_dialect)
        ordered = item.order_sensitive if item.order_sensitive is not None else order.ordered
        if not order.ordered and execution.result is not None:  # LIMIT without ORDER BY
            return CompareFacts(
                order_sensitive=ordered, tie_pools=self._unordered_pool(item, fixture, execution)
            )
        if not ordered or not order.ordered or execution.result is None:
            return CompareFacts(order_sensitive=ordered)
        keys = self._sort_key_values(
            item.source_sql, item.source_dialect, fixture, execution.result
        )
        return CompareFacts(
            order_sensitive=True,
            sort_keys=tuple(keys) if keys is not None else None,
            tie_pools=self._tie_pools(item, fixture, execution),
        )

    def limit_cuts_ties(self, item: Item) -> str | None:
        """Why the source's result is not deterministic (its LIMIT/OFFSET window cuts through
        rows tied on the sort keys, or it limits without ORDER BY), or None. Datasets must not
        contain such items; eval accepts any choice among the cut ties (:meth:`_tie_pools`)."""
        gold = self.gold(item).execution
        fixture = item.fixture or EMPTY_FIXTURE
        window = self._window(item, fixture, gold)
        if window is None or isinstance(window, str):
            return window
        if window.keys is None:
            return (
                f"LIMIT/OFFSET keeps rows {window.start}–{window.end - 1} of "
                f"{len(window.full.rows)} without a top-level ORDER BY"
            )
        for edge in window.edges:
            if sort_keys_tied(window.keys[edge - 1], window.keys[edge]):
                return (
                    f"the LIMIT/OFFSET window [{window.start}, {window.end}) cuts through "
                    f"rows tied on the sort keys {window.keys[edge]}"
                )
        return None

    def limit_unjudgeable(self, item: Item) -> str | None:
        """Why the source's LIMIT/OFFSET window cannot be judged on the item's fixture (the
        unlimited source fails, or its sort keys cannot be read), else None: the rows a window
        cuts from ties, or from a result it does not order, are judged as tie pools."""
        gold = self.gold(item).execution
        window = self._window(item, item.fixture or EMPTY_FIXTURE, gold)
        return window if isinstance(window, str) else None

    def _window(self, item: Item, fixture: Fixture, gold: Execution) -> _Window | str | None:
        """The source's LIMIT/OFFSET window over its unlimited result on ``fixture``; None when
        the source has no limit or the window has no edge inside the result; a message when the
        unlimited source or its sort keys cannot be read."""
        return self._limit_window(item.source_sql, item.source_dialect, fixture, gold)

    def _limit_window(
        self,
        sql: str,
        dialect: str,
        fixture: Fixture,
        gold: Execution,
        timeout: float | None = None,
    ) -> _Window | str | None:
        """:meth:`_window` of any query ``sql`` whose result on ``fixture`` is ``gold`` (its
        executions within ``timeout``, default the judge's)."""
        unlimited = without_limit(sql, dialect)
        if not gold.ok or gold.result is None or not gold.result.rows or unlimited is None:
            return None
        full, _ = self._run(dialect, unlimited.sql, fixture, timeout)
        if not full.ok or full.result is None:
            return f"the query without its LIMIT failed: {full.error}"
        start, end = unlimited.offset, unlimited.offset + len(gold.result.rows)
        edges = tuple(i for i in (start, end) if 0 < i < len(full.result.rows))
        if not edges:
            return None
        keys = None
        if order_facts(unlimited.sql, dialect).ordered:
            keys = self._sort_key_values(unlimited.sql, dialect, fixture, full.result, timeout)
            if keys is None:
                return "cannot read the sort keys to check the LIMIT for ties"
        return _Window(full.result, start, end, edges, keys)

    def _unordered_pool(self, item: Item, fixture: Fixture, gold: Execution) -> tuple[TiePool, ...]:
        """For a source whose LIMIT/OFFSET keeps some rows of a result it does not order: every
        row of the unlimited result is a valid pick (the row count must still match)."""
        window = self._window(item, fixture, gold)
        if window is None or isinstance(window, str) or gold.result is None:
            return ()
        return (TiePool(0, len(gold.result.rows), tuple(window.full.rows)),)

    def _tie_pools(self, item: Item, fixture: Fixture, gold: Execution) -> tuple[TiePool, ...]:
        """For an ordered source whose LIMIT/OFFSET cuts a tie group: the window positions of
        each cut group with all of its rows, so the comparator accepts any of them there."""
        return self._pools(item.source_sql, item.source_dialect, fixture, gold)

    def _pools(
        self,
        sql: str,
        dialect: str,
        fixture: Fixture,
        execution: Execution,
        timeout: float | None = None,
    ) -> tuple[TiePool, ...]:
        """:meth:`_tie_pools` of any query ``sql`` whose result on ``fixture`` is ``execution``
        (the prediction's own: the comparator then checks that every choice is right)."""
        window = self._limit_window(sql, dialect, fixture, execution, timeout)
        if window is None or isinstance(window, str) or window.keys is None:
            return ()
        keys, rows = window.keys, window.full.rows
        pools = []
        for edge in window.edges:
            if not sort_keys_tied(keys[edge - 1], keys[edge]):
                continue
            first = edge
            while first > 0 and sort_keys_tied(keys[first - 1], keys[first]):
                first -= 1
            last = edge
            while last < len(rows) and sort_keys_tied(keys[last - 1], keys[last]):
                last += 1
            lo, hi = max(first, window.start), min(last, window.end)
            pool = TiePool(lo - window.start, hi - window.start, tuple(rows[first:last]))
            if pool not in pools:  # a window inside one group meets it at both edges
                pools.append(pool)
        return tuple(pools)

    def _sort_key_values(
        self,
        sql: str,
        dialect: str,
        fixture: Fixture,
        result: ResultSet,
        timeout: float | None = None,
    ) -> list[tuple[Any, ...]] | None:
        """The sort-key values of every row of ``result`` (the result of ``sql``): read from
        its columns, or from ``sql`` rewritten to output keys that are not among them. None
        when neither works (the comparator then holds every row to its position)."""
        order = order_facts(sql, dialect)
        columns = sort_key_columns(order, result.columns)
        if columns is not None:
            return [tuple(row[i] for i in columns) for row in result.rows]
        rewritten = with_sort_key_columns(sql, dialect)
        keyed = self._run(dialect, rewritten, fixture, timeout)[0] if rewritten else None
        width = len(result.columns)
        if (
            keyed is None
            or keyed.result is None
            or [row[:width] for row in keyed.result.rows] != list(result.rows)
        ):
            return None  # not the same rows in the same order
        return [tuple(row[width:]) for row in keyed.result.rows]

    def judge(self, item: Item, translation: Translation, timeout: float | None = None) -> Outcome:
        """The full outcome record of one item, as written to results.jsonl; ``timeout``: the
        seconds each of the translation's executions may take on this call (default: the
        judge's for the target dialect; the source's gold keeps the judge's own)."""
        record, check = self.judge_later(item, translation, timeout)
        return with_syntax(record, check() if check is not None else None)

    def judge_later(
        self, item: Item, translation: Translation, timeout: float | None = None
    ) -> tuple[Outcome, Callable[[], SyntaxRecord | None] | None]:
        """The outcome record of one item but for its Acc_SYN grammar check, and that check
        (None when the item needs none), to be run later — in another thread, overlapping the
        engines' work — and put in by :func:`with_syntax`."""
        self._engine_errors = []
        gold = self.gold(item)
        missing = self._missing_engines(item)
        record = _record_head(item, translation, gold, missing)  # verdicts, syntax follow
        verdicts = self._verdicts_of(item, translation, gold, missing, record, timeout)
        record["verdicts"] = {
            m.value: cast(VerdictRecord, v.to_json()) for m, v in verdicts.items()
        }
        parsed = record["pred"] is not None and record["pred"]["status"] in ENGINE_PARSED
        unjudged = record.get("no_reference", False)
        needed = not unjudged and (self.syntax or (not parsed and self.syntax_fallback))
        record["syntax_checked"] = False  # set, with "syntax" after it, by with_syntax()
        if self.suite_dir is not None and not missing and not unjudged and gold.execution.ok:
            self._suite_verdict(item, translation, record, timeout)
        if self._engine_errors:
            record["engine_errors_retried"] = list(self._engine_errors)
        record["level"] = verdict_level(record)
        if self.prover is not None and translation.ok:
            self.prover(item, translation, record)
        return record, (
            functools.partial(syntax_json, item.target_dialect, translation) if needed else None
        )

    def _verdicts_of(
        self,
        item: Item,
        translation: Translation,
        gold: Gold,
        missing: dict[str, str],
        record: Outcome,
        timeout: float | None = None,
    ) -> dict[Mode, Verdict]:
        """Every mode's verdict on the fixture; runs the translation (``record["pred"]``)."""
        verdicts: dict[Mode, Verdict]
        no_engine = {
            m: failure(
                m,
                Reason.NO_ENGINE,
                "no engine here for " + "; ".join(f"{d} ({why})" for d, why in missing.items()),
            )
            for m in Mode
        }
        source_ran = item.source_dialect not in missing
        if source_ran and not gold.execution.ok:
            detail = (
                f"source failed on {gold.engine}: {gold.execution.status}: "
                f"{gold.execution.error or ''}"
            ).strip()
            verdicts = {m: failure(m, Reason.GOLD_ERROR, detail) for m in Mode}
        elif not translation.ok or translation.sql is None:
            detail = f"no translation ({translation.status}): {translation.error or ''}".strip()
            verdicts = (
                no_engine
                if item.target_dialect in missing
                else {m: failure(m, Reason.PRED_ERROR, detail) for m in Mode}
            )
            if translation.status is TranslationStatus.NO_REFERENCE:
                record["no_reference"] = True  # nothing to judge or parse: counted apart
        else:  # the translation runs even without a source engine: Acc_EX needs only its target
            fixture = item.fixture or EMPTY_FIXTURE
            pred, label = self._run(item.target_dialect, translation.sql, fixture, timeout)
            record["pred"] = execution_json(pred, label)
            verdicts = (
                no_engine
                if missing
                else _verdicts(
                    item,
                    gold,
                    pred,
                    label,
                    self._pred_pools(item, translation.sql, fixture, pred, timeout),
                )
            )
            if (
                pred.ok
                and pred.result is not None
                and gold.execution.result is not None
                and gold.facts.order_sensitive
            ):
                notes: tuple[str, ...] = ()
                if gold.facts.sort_keys is None:
                    notes += (NO_TIE_KEYS_NOTE,)
                if not order_facts(translation.sql, item.target_dialect).ordered:
                    notes += (UNORDERED_NOTE,)
                notes += tuple(map(_cut_ties_note, gold.facts.tie_pools))
                verdicts = {m: replace(v, notes=(*v.notes, *notes)) for m, v in verdicts.items()}
        return verdicts

    def _suite_verdict(
        self, item: Item, translation: Translation, record: Outcome, timeout: float | None = None
    ) -> None:
        """``record["suite"]``: the translation judged on its item's suite, if it has one."""
        suite = self._suite(item)
        if suite is not None and translation.ok and translation.sql is not None:
            record["suite"] = self._judge_suite(
                item, translation.sql, suite, record["verdicts"]["strict"]["match"], timeout
            )
        elif suite is not None:  # no SQL to run (unsupported, error): fails Acc_TS, in TS n
            record["suite"] = {
                "key": suite.key,
                "databases": [],
                "judged": 0,
                "match": False,
                "first_failure": None,
                "elapsed": 0.0,
            }
        if suite is not None and suite.neighbours:  # the suite's strength, for its level
            record["suite"].update({"neighbours": suite.neighbours, "killed": suite.killed})

    def _missing_engines(self, item: Item) -> dict[str, str]:
        """dialect → why, for the item's source and target dialects that have no engine here."""
        missing = {}
        for dialect in dict.fromkeys((item.source_dialect, item.target_dialect)):
            try:
                if self.engine(dialect) is None:
                    missing[dialect] = self._missing[dialect]
            except Exception:  # there but not answering: _run() makes it an engine_error
                continue
        return missing

    def _suite(self, item: Item) -> Suite | None:
        assert self.suite_dir is not None
        fixture = item.fixture or EMPTY_FIXTURE
        key = (item.source_dialect, item.source_sql, fixture.content_hash)
        if key in self._suites:
            return self._suites.get(key)
        suite = load_suite(self.suite_dir, item.source_dialect, item.source_sql, item.fixture)
        suite = suite and _named(suite, fixture.name)
        self._suites.put(key, suite)
        return suite

    def _judge_suite(
        self,
        item: Item,
        sql: str,
        suite: Suite,
        fixture_match: bool,
        timeout: float | None = None,
    ) -> SuiteRecord:
        """Dual execution on every suite database: one compact strict verdict per database.
        The test-suite verdict matches when the fixture and every judged database match; a
        database on which the source itself fails judges nothing (``match`` null)."""
        started = time.perf_counter()
        databases: list[SuiteDatabaseRecord] = []
        for index, db in enumerate(suite.databases):
            out: SuiteDatabaseRecord = {"index": index, "seed": db.seed}
            fixture = db.fixture  # named as the item's fixture (_suite)
            gold = self.gold(item, fixture)
            if not gold.execution.ok or gold.execution.result is None:
                out.update(
                    {
                        "match": None,
                        "reason": Reason.GOLD_ERROR.value,
                        "detail": f"source {gold.execution.status} on {gold.engine}: "
                        f"{gold.execution.error or ''}".strip(),
                    }
                )
                databases.append(out)
                continue
            pred, label = self._run(item.target_dialect, sql, fixture, timeout)
            pools = self._pred_pools(item, sql, fixture, pred, timeout)
            verdict = _verdicts(item, gold, pred, label, pools)[Mode.STRICT]
            full = verdict.to_json()
            out.update({"match": verdict.match, "reason": full["reason"]})
            if not verdict.match:
                out.update({"detail": full["detail"], "cell": full["cell"]})
            databases.append(out)
        judged = [d for d in databases if d["match"] is not None]
        failed = next((d for d in judged if not d["match"]), None)
        return {
            "key": suite.key,
            "databases": databases,
            "judged": len(judged),
            "match": fixture_match and failed is None,
            "first_failure": failed["index"] if failed is not None else None,
            "elapsed": round(time.perf_counter() - started, 6),
        }

    def _pred_pools(
        self, item: Item, sql: str, fixture: Fixture, pred: Execution, timeout: float | None = None
    ) -> tuple[TiePool, ...]:
        """The tie groups the translation's own ORDER BY … LIMIT cuts (one more execution, of
        the translation without its LIMIT, only for a translation that has one)."""
        if not pred.ok or pred.result is None or not pred.result.rows:
            return ()
        return self._pools(sql, item.target_dialect, fixture, pred, timeout)

    def close(self) -> None:
        for engine in self._engines.values():
            if engine is not None:
                engine.close()
        self._engines.clear()
        keep_warm_grammars()


def _warm_one(engine: Engine) -> None:
    """Start ``engine``'s worker and its adapter (the label asks the engine its version)."""
    with contextlib.suppress(Exception):  # the first real call starts it again and says why
        _ = engine.label


def _named(suite: Suite, name: str) -> Suite:
    """``suite`` with every database named ``name``, as the item's fixture is (``FROM
    shop.orders`` names the suite too): renamed once per suite, not per judged translation, so
    each database's content hash and checksums are computed once a run."""
    databases = tuple(replace(db, fixture=replace(db.fixture, name=name)) for db in suite.databases)
    return replace(suite, databases=databases)


def with_syntax(record: Outcome, syntax: SyntaxRecord | None) -> Outcome:
    """``record`` with its Acc_SYN verdict (None: not checked), in the key order results.jsonl
    has always had (``syntax_checked``, then ``syntax``, before the suite)."""
    out: dict[str, Any] = {}
    for key, value in record.items():
        out[key] = value
        if key == "syntax_checked":
            out[key] = syntax is not None
            if syntax is not None:
                out["syntax"] = syntax
    return cast(Outcome, out)


def _verdicts(
    item: Item, gold: Gold, pred: Execution, label: str, pred_pools: tuple[TiePool, ...] = ()
) -> dict[Mode, Verdict]:
    """Every mode's verdict of a translation's execution ``pred`` against a successful gold
    (``pred_pools``: the ties its own LIMIT cuts)."""
    if pred.ok and pred.result is not None and gold.execution.result is not None:
        facts = replace(gold.facts, pred_pools=pred_pools)
        if item.tolerance is not None:
            facts = replace(facts, rel_tol=item.tolerance)
        return compare_all(gold.execution.result, pred.result, facts)
    reason = Reason.TIMEOUT if pred.status is ExecStatus.TIMEOUT else Reason.PRED_ERROR
    detail = f"translation {pred.status} on {label}: {pred.error or ''}".strip()
    return {m: failure(m, reason, detail) for m in Mode}


def _cut_ties_note(pool: TiePool) -> str:
    """The verdict note for a tie group cut by the source's LIMIT/OFFSET."""
    kept = pool.end - pool.start
    return (
        f"the source's LIMIT/OFFSET cuts through {len(pool.rows)} rows tied on the sort "
        f"keys: rows {pool.start}–{pool.end - 1} may be any {kept} of them"
    )


def _driver_error(exc: Exception) -> str:
    """A driver exception as one line without URL secrets, e.g. ``OperationalError: (2003, …)``."""
    text = " ".join(str(exc).split()) or "(no message)"
    return redact_url(f"{type(exc).__name__}: {text}")


def execution_json(execution: Execution, engine: str) -> ExecutionRecord:
    """A compact JSON record of an execution (status, error, size and a short preview)."""
    out: ExecutionRecord = {
        "status": execution.status.value,
        "engine": engine,
        "elapsed": round(execution.elapsed, 6),
    }
    if execution.error:
        out["error"] = execution.error
    if execution.result is not None:
        out["columns"] = list(execution.result.columns)
        out["rows"] = len(execution.result.rows)
        out["preview"] = preview(execution.result.rows[:PREVIEW_ROWS])
    return out


def preview(rows: Sequence[Sequence[Any]]) -> list[list[object]]:
    """JSON values of ``rows``, capped: a cell at PREVIEW_CELL_BYTES, the whole at
    PREVIEW_BYTES (a ``SELECT repeat('x', 200000000)`` must not write a 200 MB line)."""
    budget = PREVIEW_BYTES
    out: list[list[object]] = []
    for row in rows:
        cells: list[object] = []
        for value in row:
            cell = to_json(value)
            text = cell if isinstance(cell, str) else json.dumps(cell, default=str)
            size = len(text.encode())
            if size > PREVIEW_CELL_BYTES:
                cut = text.encode()[:PREVIEW_CELL_BYTES].decode(errors="ignore")
                cell, size = f"{cut}…[{size} bytes]", PREVIEW_CELL_BYTES
            if size > budget:
                cell, size = "…", 0
            budget -= size
            cells.append(cell)
        out.append(cells)
    return out


def _record_head(
    item: Item, translation: Translation, gold: Gold, missing: dict[str, str]
) -> Outcome:
    """An outcome record's fields that come before its verdicts."""
    return cast(
        Outcome,
        {
            "id": item.id,
            "source_dialect": item.source_dialect,
            "target_dialect": item.target_dialect,
            "tokens": item.tokens,
            "translation_types": list(item.translation_types),
            "tags": list(item.tags),
            "difficulty": item.difficulty,
            "annotation_source": item.annotation_source,  # who wrote the item's reference
            **(
                {"annotators": list(item.extra["annotators"])}
                if item.extra.get("annotators")
                else {}
            ),
            **(
                {"question_id": str(item.extra["question_id"])}  # text-to-SQL: one question, many
                if item.extra.get("question_id")
                else {}
            ),  # dialects (report.analysis groups by it)
            "order_sensitive": gold.facts.order_sensitive,
            "translation": translation.to_json(),
            "gold": execution_json(gold.execution, gold.engine),
            "pred": None,
            **({"no_engine": missing} if missing else {}),
        },
    )
