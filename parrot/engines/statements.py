"""Helpers the engine adapters share: statement guards, watchdogs, load checks.

Nothing here knows a particular engine. The lexer and the splitter are the dialects' own
(:mod:`parrot.dialects.lexer`, :mod:`parrot.dialects.splitter`), re-exported here: a ``;``
inside a string never splits a statement and a guard never mistakes a string's content for a
keyword.
"""

from __future__ import annotations

import contextlib
import heapq
import itertools
import os
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from parrot.dialects import Lexicon, builtin
from parrot.dialects.lexer import ANSI, Token, TokenKind, tokenize
from parrot.dialects.splitter import (  # noqa: F401 - the one splitter, re-exported
    BODY_STARTS,
    Splitter,
    split_statements,
    splitter,
)
from parrot.engines.base import (  # noqa: F401 - load verification, re-exported
    MESSAGE_LIMIT,
    ExecStatus,
    Execution,
    raise_load_error,
    stored_checksums,
    trim_message,
    verify_load,
)
from parrot.fixtures import Fixture, Table
from parrot.values import ResultSet

R = TypeVar("R")  # a row as an engine returns it
NO_STATEMENT = "no SQL statement to execute (empty text or only comments)"
RESERVED_PREFIX = "parrot_"  # names of parrot's own databases, schemas, users
# bare words that make a statement a write in every dialect with a guard (``Guard.write_words``
# adds a dialect's own: MERGE, REPLACE, GRANT, CALL, ...)
WRITE_WORDS = frozenset({"insert", "update", "delete", "create", "drop", "alter", "truncate"})
ESCALATE_AFTER = 1.0  # seconds a statement may ignore its cancel before its session is ended
STOP_WAIT = 5.0  # seconds a server gets to drop the work of a session parrot ended

# Lexicons are dialect facts (parrot.dialects); these names keep the engines' spelling.
SQLITE = builtin.SQLite.lexicon
DUCKDB = builtin.DuckDB.lexicon
CLICKHOUSE = builtin.ClickHouse.lexicon
POSTGRES = builtin.Postgres.lexicon
MYSQL = builtin.MySQL.lexicon
SPARK = builtin.Spark.lexicon
ORACLE = builtin.Oracle.lexicon
TSQL = builtin.TSQL.lexicon
TRINO = builtin.Trino.lexicon
SNOWFLAKE = builtin.Snowflake.lexicon


def leading_words(
    statement: str | Sequence[Token], n: int = 4, lexicon: Lexicon = ANSI
) -> tuple[str, ...]:
    """The first ``n`` bare words of a statement, upper-cased, skipping opening parentheses
    (``(SELECT 1)`` → ``("SELECT", "1")``); stops at the first token that is not a word."""
    tokens = tokenize(statement, lexicon) if isinstance(statement, str) else statement
    words: list[str] = []
    for tok in tokens:
        if not words and tok.kind is TokenKind.PUNCT and tok.text == "(":
            continue
        if tok.kind is not TokenKind.WORD or len(words) >= n:
            break
        words.append(tok.text.upper())
    return tuple(words)


# --- statement guard ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Plan:
    """One statement as the guard saw it."""

    text: str
    tokens: tuple[Token, ...]
    words: tuple[str, ...]  # leading bare words, upper-cased
    writes: bool

    @property
    def first(self) -> str:
        return self.words[0] if self.words else ""


_DEFAULT_MODIFIERS = frozenset(
    {
        "OR",
        "REPLACE",
        "IF",
        "NOT",
        "EXISTS",
        "TEMP",
        "TEMPORARY",
        "GLOBAL",
        "LOCAL",
        "PRIVATE",
        "SECURE",
        "TRANSIENT",
        "VOLATILE",
        "EDITIONABLE",
        "NONEDITIONABLE",
        "PUBLIC",
        "UNIQUE",
        "MATERIALIZED",
        "RECURSIVE",
        "FORCE",
        "NOFORCE",
        "ALTER",
    }
)


@dataclass(frozen=True)
class Guard:
    """Table-driven statement guard of one dialect (everything upper-case is a leading word or
    an object kind; everything lower-case is a name found anywhere in the statement).

    A statement is refused when its first word is in ``refused_first`` (or not in ``reads`` when
    ``read_only``), when one of ``object_statements`` names an object kind in ``refused_objects``,
    when a sequence of bare words in ``refused_sequences`` or a word in ``refused_words`` appears
    anywhere, when a name in ``refused_calls`` (or starting with ``refused_call_prefixes``) is
    called, when a name in ``refused_qualifiers`` qualifies another (``utl_file.fopen``), when a
    setting statement names a ``protected_settings`` entry or a name starting with
    ``protected_prefixes`` (``setting_statements`` of ``()``: every statement), or when any word,
    identifier or string mentions ``reserved_prefix``. A statement writes unless its first word is
    in ``reads`` (or ``write_exempt``) and none of ``write_words`` appears as a bare word (not
    called as a function). Where a dialect needs them: ``object_kinds``, the words an object kind
    is found among anywhere in the statement (not just after ``object_modifiers``); ``uncalled``,
    the token kinds whose ``refused_calls`` names are refused even when not called;
    ``body_starts``, the words after which (as after ``;`` and ``:``) a statement starts inside a
    routine body, where ``refused_first`` applies and ``SET`` starts a setting statement too;
    ``also``, a second reading of the text checked first (MySQL's backslashes as plain characters);
    ``reserved_starts``, a bare word reserved only when it starts with ``reserved_prefix``.
    """

    lexicon: Lexicon
    reads: frozenset[str]
    refused_first: frozenset[str] = frozenset()
    refused_objects: frozenset[str] = frozenset()
    object_modifiers: frozenset[str] = _DEFAULT_MODIFIERS
    object_statements: frozenset[str] = frozenset({"CREATE", "ALTER", "DROP"})
    refused_sequences: tuple[tuple[str, ...], ...] = ()
    refused_words: frozenset[str] = frozenset()
    refused_calls: frozenset[str] = frozenset()
    refused_call_prefixes: tuple[str, ...] = ()
    call_reason: str = "is not allowed"  # the refusal of a call: "file() <call_reason>"
    refused_qualifiers: frozenset[str] = frozenset()
    protected_settings: frozenset[str] = frozenset()
    protected_prefixes: tuple[str, ...] = ()
    setting_statements: tuple[tuple[str, ...], ...] = (("SET",),)
    write_words: frozenset[str] = frozenset()
    reserved_prefix: str | None = RESERVED_PREFIX
    read_only: bool = False
    read_only_reason: str = "only statements that read are allowed"
    object_kinds: frozenset[str] | None = None
    uncalled: frozenset[TokenKind] = frozenset()
    body_starts: frozenset[str] = frozenset()
    write_exempt: frozenset[str] = frozenset()
    also: Lexicon | None = None
    reserved_starts: bool = False
    extra: Callable[[Plan], str | None] | None = None  # a dialect's own check, after the tables

    def plan(self, texts: Sequence[str]) -> list[Plan] | str:
        """Plans of every statement, or why the first refused one is refused."""
        plans: list[Plan] = []
        for text in texts:
            plan = self.check(text)
            if isinstance(plan, str):
                return plan
            plans.append(plan)
        return plans

    def script(self, texts: Sequence[str]) -> list[Plan] | Execution:
        """Plans of a script's statements, or how it ends before anything runs: a syntax error
        when it has no statement, UNSUPPORTED when one is refused."""
        if not texts:
            return Execution(ExecStatus.SYNTAX_ERROR, error=NO_STATEMENT)
        plans = self.plan(texts)
        return Execution(ExecStatus.UNSUPPORTED, error=plans) if isinstance(plans, str) else plans

    def check(self, text: str) -> Plan | str:
        if self.also is not None and isinstance(why := self._check(text, self.also), str):
            return why
        return self._check(text, self.lexicon)

    def starts_body_statement(self, prev: Token | None) -> bool:
        """Whether the token after ``prev`` starts a statement inside a routine body."""
        return (
            prev is not None
            and bool(self.body_starts)
            and (
                prev.text in (";", ":")
                or (prev.kind is TokenKind.WORD and prev.name in self.body_starts)
            )
        )

    def _refused_shape(self, tokens: tuple[Token, ...], words: tuple[str, ...]) -> str | None:
        """Why the statement's kind is refused: its first word, the kind of object it creates
        or drops, or a refused sequence of consecutive words anywhere; None when none is."""
        first = words[0] if words else ""
        if first in self.refused_first:
            return f"{first} statements are not allowed"
        if first in self.object_statements:
            kind = (
                next((w for w in words[1:] if w not in self.object_modifiers), "")
                if self.object_kinds is None
                else next(
                    (
                        t.text.upper()
                        for t in tokens[1:]
                        if t.kind is TokenKind.WORD and t.text.upper() in self.object_kinds
                    ),
                    "",
                )
            )
            if kind in self.refused_objects:
                return f"{first} {kind} is not allowed"
        bare = [(i, t.text.upper()) for i, t in enumerate(tokens) if t.kind is TokenKind.WORD]
        for seq in self.refused_sequences:
            for pos, (i, word) in enumerate(bare):
                if (
                    word == seq[0]
                    and tuple(w for _, w in bare[pos : pos + len(seq)]) == seq
                    and bare[pos + len(seq) - 1][0] == i + len(seq) - 1
                ):  # consecutive tokens
                    return f"{' '.join(seq)} is not allowed"
        return None

    def _check(self, text: str, lexicon: Lexicon) -> Plan | str:
        tokens = tuple(tokenize(text, lexicon))
        words = leading_words(tokens, 8)
        first = words[0] if words else ""
        refused = self._refused_shape(tokens, words)
        if refused is not None:
            return refused
        setting = any(words[: len(s)] == s for s in self.setting_statements)
        writes = first not in self.reads
        writer = first  # the word that makes the statement write
        for i, tok in enumerate(tokens):
            name = tok.name
            if (
                self.reserved_prefix
                and tok.kind is not TokenKind.PUNCT
                and (
                    name.startswith(self.reserved_prefix)
                    if self.reserved_starts and tok.kind is TokenKind.WORD
                    else self.reserved_prefix in tok.text.lower()
                )
            ):
                return f"{self.reserved_prefix}* names are reserved by the parrot sandbox"
            if self.body_starts and tok.text == ";":
                setting = False
            if tok.kind is TokenKind.STRING or not name:
                continue
            if tok.kind is TokenKind.WORD and i and self.starts_body_statement(tokens[i - 1]):
                if name.upper() in self.refused_first:
                    return f"{name.upper()} statements are not allowed"
                setting = setting or (name.upper(),) in self.setting_statements
            nxt = tokens[i + 1] if i + 1 < len(tokens) else None
            called = nxt is not None and nxt.text == "("
            if (called or tok.kind in self.uncalled) and (
                name in self.refused_calls or name.startswith(self.refused_call_prefixes)
            ):
                return f"{tok.text}() {self.call_reason}"
            if nxt is not None and nxt.text == "." and name in self.refused_qualifiers:
                return f"{tok.text} is not allowed"
            if tok.kind is TokenKind.WORD and name in self.refused_words:
                return f"{tok.text.upper()} is not allowed"
            if setting and (
                name in self.protected_settings or name.startswith(self.protected_prefixes)
            ):
                return f"{tok.text} is reserved by the parrot sandbox"
            if (
                tok.kind is TokenKind.WORD
                and name in self.write_words
                and not called
                and not writes
                and first not in self.write_exempt
            ):
                writes, writer = True, f"{first} ... {tok.text.upper()}"
        if self.read_only and (writes or not words):
            return f"{writer or 'this statement'}: {self.read_only_reason}"
        plan = Plan(text, tokens, words, writes)
        if self.extra is not None and (why := self.extra(plan)):
            return why
        return plan


def read_tables(
    fixture: Fixture,
    read: Callable[[Table], list[R]],
    missing: type[BaseException] | tuple[type[BaseException], ...],
) -> dict[str, list[R]]:
    """Every fixture table's rows as ``read`` returns them, for :func:`verify_load`; none for a
    table that ``read`` fails on with ``missing`` (it is not there)."""
    out: dict[str, list[R]] = {}
    for table in fixture.tables:
        try:
            out[table.name] = read(table)
        except missing:
            out[table.name] = []
    return out


def close_quietly(*things: Any) -> None:
    """Close each of ``things`` that is not None, ignoring its failure (clean-up)."""
    for thing in things:
        if thing is not None:
            with contextlib.suppress(Exception):
                thing.close()


# --- time -----------------------------------------------------------------------------------------


class Deadline:
    """A per-execution time budget shared by all its statements."""

    def __init__(self, seconds: float) -> None:
        self.seconds = max(float(seconds), 0.0)
        self.at = time.monotonic() + self.seconds

    def remaining(self) -> float:
        return self.at - time.monotonic()

    @property
    def expired(self) -> bool:
        return self.remaining() <= 0


@dataclass(frozen=True)
class Script:
    """One execution once its statements are planned: what an adapter's isolation hooks run
    (the plans, against the fixture, under the deadline, returning at most ``max_rows``)."""

    plans: Sequence[Plan]
    fixture: Fixture
    deadline: Deadline
    max_rows: int

    @property
    def writes(self) -> bool:
        """Whether any statement writes (and so needs a scratch copy or a rollback)."""
        return any(p.writes for p in self.plans)


class Overflow(Exception):
    """More rows than the cap: raised by a statement that stops the script at its overflow
    (having stopped the engine's stream); :func:`run_in_order` reports TOO_LARGE at once."""


class Failed(Exception):
    """A statement the engine reported as failed, with the engine's own message and ``code``
    (a SQLSTATE, an error number): the message is kept as it is, never prefixed."""

    def __init__(self, message: str, code: int | str | None = None) -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class ErrorTable:
    """Which engine error codes mean what: every engine's classification as data. ``code``
    extracts a code from an exception (an error number, a SQLSTATE, an error name, an
    exception type's name, a message marker); codes absent from every set are runtime errors.

    In order: ``timeout`` (the engine's own limit fired), ``cancelled`` (a cancel: TIMEOUT when
    parrot sent it, else a runtime error), ``syntax``, ``denied`` (privileges, read-only mode:
    UNSUPPORTED), ``runtime`` (a query's own error although its class is lost: RUNTIME_ERROR),
    ``lost`` codes, codes starting with ``lost_prefixes`` (SQLSTATE classes) and
    ``lost_types`` (connection or engine failure: ENGINE_ERROR); then a failure without a code
    is a TIMEOUT when parrot cancelled it and ``uncoded_cancel``, else ``uncoded`` when set;
    anything not one of ``driver_errors`` is an ENGINE_ERROR (a broken connection, a bug).
    """

    code: Callable[[BaseException], int | str | None]
    syntax: frozenset[int | str] = frozenset()
    timeout: frozenset[int | str] = frozenset()
    cancelled: frozenset[int | str] = frozenset()
    denied: frozenset[int | str] = frozenset()
    runtime: frozenset[int | str] = frozenset()
    lost: frozenset[int | str] = frozenset()
    lost_prefixes: tuple[str, ...] = ()
    lost_types: tuple[type[BaseException], ...] = ()
    uncoded_cancel: bool = True
    uncoded: ExecStatus | None = None
    driver_errors: tuple[type[BaseException], ...] | None = None  # None: given to classify

    def classify(
        self,
        exc: BaseException,
        *,
        cancelled: bool,
        driver_errors: tuple[type[BaseException], ...] = (),
    ) -> ExecStatus:
        code = self.code(exc)
        if code is not None:
            if code in self.timeout:
                return ExecStatus.TIMEOUT
            if code in self.cancelled:
                return ExecStatus.TIMEOUT if cancelled else ExecStatus.RUNTIME_ERROR
            if code in self.syntax:
                return ExecStatus.SYNTAX_ERROR
            if code in self.denied:
                return ExecStatus.UNSUPPORTED
            if code in self.runtime:
                return ExecStatus.RUNTIME_ERROR
            if code in self.lost or str(code).startswith(self.lost_prefixes):
                return ExecStatus.ENGINE_ERROR
        if isinstance(exc, self.lost_types):
            return ExecStatus.ENGINE_ERROR
        if code is None and cancelled and self.uncoded_cancel:
            return ExecStatus.TIMEOUT  # parrot cancelled it; the driver reported that its way
        if code is None and self.uncoded is not None:
            return self.uncoded
        if not isinstance(
            exc, self.driver_errors if self.driver_errors is not None else driver_errors
        ):
            return ExecStatus.ENGINE_ERROR
        return ExecStatus.RUNTIME_ERROR

    def __call__(self, exc: BaseException, cancelled: bool) -> ExecStatus:
        """``classify`` with the table's own ``driver_errors``, as :func:`run_in_order` calls it."""
        return self.classify(exc, cancelled=cancelled)


def typed_message(exc: BaseException) -> str:
    """What an engine error says: a :class:`Failed` statement's own message, anything else's
    exception type and message."""
    return trim_message(exc if isinstance(exc, Failed) else f"{type(exc).__name__}: {exc}")


def run_in_order(
    steps: Sequence[Any],
    deadline: Deadline,
    max_rows: int,
    run: Callable[[Any, float], tuple[ResultSet, bool] | None],
    interrupt: Callable[[], object],
    classify: Callable[[BaseException, bool], ExecStatus],
    message: Callable[[BaseException], str],
    grace: float = 0.0,
    *,
    before: Callable[[Any, float], str | None] | None = None,
    after: Callable[[], str | None] | None = None,
    engine_message: Callable[[BaseException], str] = typed_message,
    escalate: Callable[[], str | None] | None = None,
) -> Execution:
    """Run an execution's statements one after another under one deadline: the one execution
    loop of every local engine.

    ``run(step, remaining)`` runs a statement and returns its (capped) result with an overflow
    flag, or None when it returns no rows, or raises :class:`Overflow` to end the script as
    TOO_LARGE at once; a :class:`Watchdog` calls ``interrupt`` ``grace`` seconds after the
    budget runs out. ``before(step, remaining)``, outside the watchdog and the time spent, may
    prepare a statement (a session time limit) or refuse it (a returned reason: UNSUPPORTED);
    ``after()`` may stop the script after a statement the same way ("a statement ended
    parrot's transaction").
    The first failure ends the execution, classified by ``classify(exc, interrupted)`` (a
    failure in ``before`` as not interrupted), with ``message(exc)``, or ``engine_message(exc)``
    for an engine error (by default the exception's type and message).
    A statement that returns at or after the deadline is a timeout, never ``ok``.
    ``escalate()``, for a server whose statement can ignore the interrupt (a handler that catches
    the cancel), runs ``ESCALATE_AFTER`` seconds after ``interrupt`` if the statement still has
    not returned: it ends the session (``KILL CONNECTION``, ``pg_terminate_backend``), waits for
    the server to drop the work and returns None, or why the work could not be seen to stop
    (ENGINE_ERROR); a statement stopped that way is a TIMEOUT whatever its exception says.
    The last statement's rows are the execution's result.
    """
    elapsed = 0.0
    result: ResultSet | None = None
    too_large = False

    def failure(exc: BaseException, interrupted: bool) -> Execution:
        status = classify(exc, interrupted)
        text = engine_message(exc) if status is ExecStatus.ENGINE_ERROR else message(exc)
        return Execution(status, error=text, elapsed=elapsed)

    for step in steps:
        remaining = deadline.remaining()
        if remaining <= 0:
            return Execution(ExecStatus.TIMEOUT, error="timed out", elapsed=elapsed)
        if before is not None and (refused := _prepare(before, step, remaining, failure, elapsed)):
            return refused
        started = time.perf_counter()
        with Watchdog(remaining + grace, interrupt, escalate) as dog:
            try:
                fetched = run(step, remaining)
            except Overflow:
                elapsed += time.perf_counter() - started
                return Execution(
                    ExecStatus.TOO_LARGE, error=f"more than {max_rows} rows", elapsed=elapsed
                )
            except Exception as exc:
                elapsed += time.perf_counter() - started
                return _escalated(dog, elapsed) or failure(exc, dog.fired)
        elapsed += time.perf_counter() - started
        if stopped := _escalated(dog, elapsed):
            return stopped
        if dog.fired or deadline.expired:  # stopped at the deadline yet returned: no answer
            return Execution(
                ExecStatus.TIMEOUT, elapsed=elapsed, error="timed out (stopped at the deadline)"
            )
        if fetched is not None:
            result, too_large = fetched
        if after is not None and (why := after()):
            return Execution(ExecStatus.UNSUPPORTED, error=why, elapsed=elapsed)
    if too_large:
        return Execution(ExecStatus.TOO_LARGE, error=f"more than {max_rows} rows", elapsed=elapsed)
    return Execution(ExecStatus.OK, result=result or ResultSet((), ()), elapsed=elapsed)


def _prepare(
    before: Callable[[Any, float], str | None],
    step: Any,
    remaining: float,
    failure: Callable[[BaseException, bool], Execution],
    elapsed: float,
) -> Execution | None:
    """``before(step, remaining)`` run for :func:`run_in_order`: None to go on, else the
    execution it ends in (its failure, or UNSUPPORTED with the reason it returned)."""
    try:
        refusal = before(step, remaining)
    except Exception as exc:
        return failure(exc, False)
    return Execution(ExecStatus.UNSUPPORTED, error=refusal, elapsed=elapsed) if refusal else None


def wait_stopped(still_running: Callable[[], bool], what: str) -> str | None:
    """Poll ``still_running()`` (a server's own process list) for up to ``STOP_WAIT`` seconds:
    None once the work is gone, else why not (for an escalation's ``unstopped``)."""
    give_up = time.monotonic() + STOP_WAIT
    while still_running():
        if time.monotonic() >= give_up:
            return f"{what} still ran {STOP_WAIT:g} s after parrot ended its session"
        time.sleep(0.05)
    return None


def _escalated(dog: Watchdog, elapsed: float) -> Execution | None:
    """The outcome of a statement the watchdog had to stop by ending its session, else None."""
    if not dog.escalated:
        return None
    if dog.unstopped:
        return Execution(ExecStatus.ENGINE_ERROR, error=dog.unstopped, elapsed=elapsed)
    return Execution(
        ExecStatus.TIMEOUT,
        elapsed=elapsed,
        error="timed out (the statement ignored the cancel: its session was ended)",
    )


COMPACT_ALARMS = 1024  # disarmed watchdogs kept at most before the alarm heap is compacted


class _Alarms:
    """One long-lived thread per process that wakes each armed :class:`Watchdog` at its
    deadline, instead of a timer thread started for every statement (most statements end long
    before theirs: starting and ending a thread each time cost more than a small query). A
    watchdog that fires gets a thread of its own then, as a timer's would run ``action``."""

    def __init__(self) -> None:
        self._reset()
        os.register_at_fork(after_in_child=self._reset)

    def _reset(self) -> None:
        """A new process (or a forked child, where the parent's thread does not exist)."""
        self._cond = threading.Condition()
        self._heap: list[tuple[float, int, Watchdog]] = []
        self._order = itertools.count()
        self._thread: threading.Thread | None = None
        self._compact_at = COMPACT_ALARMS

    def arm(self, when: float, dog: Watchdog) -> None:
        """Fire ``dog`` at ``when`` (``time.monotonic()``) unless it is disarmed before."""
        with self._cond:
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._serve, name="parrot-watchdog", daemon=True
                )
                self._thread.start()
            if len(self._heap) >= self._compact_at:  # disarmed ones wait for their deadline
                self._heap = [entry for entry in self._heap if entry[2].armed]
                heapq.heapify(self._heap)
                self._compact_at = max(COMPACT_ALARMS, 2 * len(self._heap))
            heapq.heappush(self._heap, (when, next(self._order), dog))
            if self._heap[0][2] is dog:  # sooner than the thread is waiting for
                self._cond.notify()

    def _serve(self) -> None:
        with self._cond:
            while True:
                while self._heap and not self._heap[0][2].armed:
                    heapq.heappop(self._heap)  # left its block: nothing to do
                if not self._heap:
                    self._cond.wait()
                    continue
                wait = self._heap[0][0] - time.monotonic()
                if wait > 0:
                    self._cond.wait(wait)
                    continue
                dog = heapq.heappop(self._heap)[2]
                threading.Thread(target=dog._fire, name="parrot-watchdog-fire", daemon=True).start()


class Watchdog:
    """Runs ``action`` once, from a thread of its own, if still armed after ``seconds``; then, if
    ``escalate`` is given and the block is still running ``ESCALATE_AFTER`` seconds later,
    ``escalate()`` once (``escalated``; ``unstopped`` holds what it returned).

    Leaving the ``with`` block disarms it and waits for an action already running, so the caller
    never races a late interrupt into its own clean-up. ``fired`` says whether it ran.
    """

    def __init__(
        self,
        seconds: float,
        action: Callable[[], object],
        escalate: Callable[[], str | None] | None = None,
    ) -> None:
        self._seconds = max(seconds, 0.0)
        self._action = action
        self._escalate = escalate
        self._lock = threading.Lock()
        self._left = threading.Event()
        self._armed = True
        self.fired = False
        self.escalated = False
        self.unstopped: str | None = None

    def _fire(self) -> None:
        with self._lock:
            if not self._armed:
                return
            self.fired = True
            with contextlib.suppress(Exception):
                self._action()
        if self._escalate is None or self._left.wait(ESCALATE_AFTER):
            return
        with self._lock:
            if not self._armed:
                return
            self.escalated = True
            try:
                self.unstopped = self._escalate()
            except Exception as exc:
                self.unstopped = (
                    f"could not end the session of a statement that ignored "
                    f"its cancel: {typed_message(exc)}"
                )

    @property
    def armed(self) -> bool:
        """Still inside its block (it may fire)."""
        return self._armed

    def __enter__(self) -> Watchdog:
        ALARMS.arm(time.monotonic() + self._seconds, self)
        return self

    def __exit__(self, *exc: object) -> None:
        self._left.set()
        with self._lock:  # waits for a running action
            self._armed = False
            self._action, self._escalate = _nothing, None  # the connection is not kept alive


def _nothing() -> None:
    return None


ALARMS = _Alarms()  # the process's watchdog thread (started at its first use)
