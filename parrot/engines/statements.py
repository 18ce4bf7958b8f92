"""Helpers the engine adapters share: lexing and splitting SQL texts, watchdogs, load checks.

Nothing here knows a particular engine. The lexer only needs to know where strings, quoted
identifiers and comments start and end (per :class:`Lexicon`), so that a ``;`` inside a string
never splits a statement and a guard never mistakes a string's content for a keyword.
"""

from __future__ import annotations

import contextlib
import json
import re
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, NoReturn

from parrot.dialects import Lexicon, builtin
from parrot.engines.base import ExecStatus, Execution, FixtureLoadError, LoadReport
from parrot.fixtures import Fixture, cell_text, table_checksum
from parrot.values import ResultSet

MESSAGE_LIMIT = 1000  # characters of an engine message kept in Execution.error
NO_STATEMENT = "no SQL statement to execute (empty text or only comments)"


# --- lexing ---------------------------------------------------------------------------------------

# Lexicons are dialect facts (parrot.dialects); these names keep the engines' spelling.
ANSI = Lexicon()
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


class TokenKind(StrEnum):
    WORD = "word"  # keyword, bare identifier or number
    QUOTED = "quoted"  # "identifier", `identifier` or [identifier]
    STRING = "string"  # 'literal', $$literal$$ or r'raw literal'
    PUNCT = "punct"  # one character of punctuation (';' included)


@dataclass(frozen=True)
class Token:
    kind: TokenKind
    text: str  # the token's source text (quotes included)
    start: int
    end: int

    @property
    def name(self) -> str:
        """Lower-cased identifier or keyword text without its quotes ('' for strings/punct)."""
        if self.kind is TokenKind.WORD:
            return self.text.lower()
        if self.kind is TokenKind.QUOTED:
            return self.text[1:-1].lower()
        return ""


_WORD = re.compile(r"[^\W]+|\$[0-9]+", re.UNICODE)  # letters, digits, '_', and $1 parameters
_DOLLAR_WORD = re.compile(r"[^\W]+[\w$]*|\$[0-9]+", re.UNICODE)  # ... and a$b identifiers
_DOLLAR_TAG = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)?\$")
_EXECUTABLE_COMMENT = re.compile(r"/\*M?!\d*")  # /*!50100 ... */, /*M!100301 ... */


def tokenize(sql: str, lexicon: Lexicon = ANSI) -> list[Token]:
    """Tokens of ``sql`` without whitespace and comments. Never raises: an unterminated string,
    identifier or comment simply runs to the end of the text (the engine reports the error)."""
    tokens: list[Token] = []
    i, n = 0, len(sql)
    executable = 0  # open /*! ... */ comments whose content is being tokenized as code
    while i < n:
        c = sql[i]
        if c.isspace():
            i += 1
        elif _line_comment(sql, i, lexicon):
            j = sql.find("\n", i)
            i = n if j < 0 else j + 1
        elif lexicon.executable_comments and (m := _EXECUTABLE_COMMENT.match(sql, i)):
            executable += 1
            i = m.end()
        elif executable and sql.startswith("*/", i):
            executable -= 1
            i += 2
        elif sql.startswith("/*", i):
            i = _skip_block_comment(sql, i, lexicon.nested_comments)
        elif lexicon.q_quotes and (j := _q_quote_end(sql, i)) > i:
            tokens.append(Token(TokenKind.STRING, sql[i:j], i, j))
            i = j
        elif (c in "'\"" and lexicon.raw_strings and tokens and tokens[-1].end == i
              and tokens[-1].kind is TokenKind.WORD and tokens[-1].text in ("r", "R")):
            start = tokens.pop().start  # r'...' is one string token; a backslash is plain
            close = sql.find(c, i + 1)
            j = n if close < 0 else close + 1
            tokens.append(Token(TokenKind.STRING, sql[start:j], start, j))
            i = j
        elif c == "'":
            start, escaped = i, lexicon.backslash_escapes
            if (lexicon.escape_strings and tokens and tokens[-1].end == i
                    and tokens[-1].kind is TokenKind.WORD and tokens[-1].text in ("E", "e")):
                start, escaped = tokens.pop().start, True  # E'...' is one string token
            j = _skip_quoted(sql, i, "'", escaped)
            tokens.append(Token(TokenKind.STRING, sql[start:j], start, j))
            i = j
        elif c in "\"`":
            j = _skip_quoted(sql, i, c, lexicon.backslash_escapes
                             and not (c == "`" and lexicon.plain_backticks)
                             and not (c == '"' and lexicon.plain_double_quotes))
            tokens.append(Token(TokenKind.QUOTED, sql[i:j], i, j))
            i = j
        elif c == "[" and lexicon.bracket_identifiers:
            j = sql.find("]", i + 1)
            while lexicon.bracket_escapes and j >= 0 and sql.startswith("]]", j):
                j = sql.find("]", j + 2)
            j = n if j < 0 else j + 1
            tokens.append(Token(TokenKind.QUOTED, sql[i:j], i, j))
            i = j
        elif c == "$" and lexicon.dollar_quotes and (m := _DOLLAR_TAG.match(sql, i)):
            close = sql.find(m.group(0), m.end())
            j = n if close < 0 else close + len(m.group(0))
            tokens.append(Token(TokenKind.STRING, sql[i:j], i, j))
            i = j
        elif m := (_DOLLAR_WORD if lexicon.dollar_identifiers else _WORD).match(sql, i):
            tokens.append(Token(TokenKind.WORD, m.group(0), i, m.end()))
            i = m.end()
        else:
            tokens.append(Token(TokenKind.PUNCT, c, i, i + 1))
            i += 1
    return tokens


def _line_comment(sql: str, i: int, lexicon: Lexicon) -> bool:
    """Whether a ``--`` or ``#`` comment running to the end of the line starts at ``i``."""
    if sql.startswith("--", i):
        after = sql[i + 2:i + 3]
        return (not lexicon.dash_comments_need_space or after == "" or after.isspace()
                or ord(after) < 32)
    if lexicon.slash_comments and sql.startswith("//", i):
        return True
    if sql[i] == "#" and lexicon.hash_comments:
        return lexicon.hash_comments_always or sql[i + 1:i + 2] in ("", "!", " ", "\t", "\n",
                                                                    "\r")
    return False


_Q_CLOSERS = {"[": "]", "{": "}", "(": ")", "<": ">"}


def _q_quote_end(sql: str, i: int) -> int:
    """End of an Oracle ``q'Xtext X'`` (or ``nq'...'``) literal starting at ``i``, else ``i``."""
    j = i + 1 if sql[i] in "nN" else i
    if sql[j:j + 1] not in ("q", "Q") or sql[j + 1:j + 2] != "'" or j + 2 >= len(sql):
        return i
    if i and (sql[i - 1].isalnum() or sql[i - 1] in "_$#"):
        return i  # part of a longer word (e.g. the identifier abq'...)
    opener = sql[j + 2]
    if opener.isspace():
        return i
    close = sql.find(_Q_CLOSERS.get(opener, opener) + "'", j + 3)
    return len(sql) if close < 0 else close + 2


def _skip_block_comment(sql: str, i: int, nested: bool) -> int:
    depth, i, n = 1, i + 2, len(sql)
    while i < n:
        if sql.startswith("*/", i):
            depth -= 1
            i += 2
            if depth == 0 or not nested:
                return i
        elif nested and sql.startswith("/*", i):
            depth += 1
            i += 2
        else:
            i += 1
    return n


def _skip_quoted(sql: str, i: int, quote: str, backslash: bool) -> int:
    """Index just past the literal or identifier opened by ``quote`` at ``i`` ('' doubles)."""
    j, n = i + 1, len(sql)
    while j < n:
        c = sql[j]
        if backslash and c == "\\":
            j += 2
        elif c == quote:
            if j + 1 < n and sql[j + 1] == quote:
                j += 2
            else:
                return j + 1
        else:
            j += 1
    return n


# --- statements -----------------------------------------------------------------------------------

def statement_spans(sql: str, lexicon: Lexicon = ANSI) -> list[tuple[int, int]]:
    """``(start, end)`` of every statement in ``sql``: split at ``;`` outside strings, identifiers
    and comments; leading/trailing comments, the ``;`` itself and empty statements dropped."""
    spans: list[tuple[int, int]] = []
    first: Token | None = None
    last: Token | None = None
    for tok in tokenize(sql, lexicon):
        if tok.kind is TokenKind.PUNCT and tok.text == ";":
            if first is not None and last is not None:
                spans.append((first.start, last.end))
            first = last = None
        else:
            first = first or tok
            last = tok
    if first is not None and last is not None:
        spans.append((first.start, last.end))
    return spans


def split_statements(sql: str, lexicon: Lexicon = ANSI) -> list[str]:
    """The statements of ``sql`` as texts (see :func:`statement_spans`)."""
    return [sql[a:b] for a, b in statement_spans(sql, lexicon)]


def leading_words(statement: str | Sequence[Token], n: int = 4,
                  lexicon: Lexicon = ANSI) -> tuple[str, ...]:
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


def trim_message(message: object, limit: int = MESSAGE_LIMIT) -> str:
    """An engine message, whitespace-normalised at the ends and cut to ``limit`` characters."""
    text = str(message).strip()
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


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


def run_in_order(steps: Sequence[Any], deadline: Deadline, max_rows: int,
                 run: Callable[[Any, float], tuple[ResultSet, bool] | None],
                 interrupt: Callable[[], object],
                 classify: Callable[[BaseException, bool], ExecStatus],
                 message: Callable[[BaseException], str], grace: float = 0.0) -> Execution:
    """Run an execution's statements one after another under one deadline.

    ``run(step, remaining)`` runs a statement and returns its (capped) result with an overflow
    flag, or None when it returns no rows; a :class:`Watchdog` calls ``interrupt`` ``grace``
    seconds after the budget runs out. The first failure ends the execution, classified by
    ``classify(exc, interrupted)``; an engine error keeps the exception's type in the message.
    A statement that returns at or after the deadline is a timeout, never ``ok``.
    The last statement's rows are the execution's result.
    """
    elapsed = 0.0
    result: ResultSet | None = None
    too_large = False
    for step in steps:
        remaining = deadline.remaining()
        if remaining <= 0:
            return Execution(ExecStatus.TIMEOUT, error="timed out", elapsed=elapsed)
        started = time.perf_counter()
        with Watchdog(remaining + grace, interrupt) as dog:
            try:
                fetched = run(step, remaining)
            except Exception as exc:
                elapsed += time.perf_counter() - started
                status = classify(exc, dog.fired)
                text = (f"{type(exc).__name__}: {exc}" if status is ExecStatus.ENGINE_ERROR
                        else message(exc))
                return Execution(status, error=trim_message(text), elapsed=elapsed)
        elapsed += time.perf_counter() - started
        if dog.fired or deadline.expired:  # stopped at the deadline yet returned: no answer
            return Execution(ExecStatus.TIMEOUT, elapsed=elapsed,
                             error="timed out (stopped at the deadline)")
        if fetched is not None:
            result, too_large = fetched
    if too_large:
        return Execution(ExecStatus.TOO_LARGE, error=f"more than {max_rows} rows",
                         elapsed=elapsed)
    return Execution(ExecStatus.OK, result=result or ResultSet((), ()), elapsed=elapsed)


class Watchdog:
    """Runs ``action`` once, from a timer thread, if still armed after ``seconds``.

    Leaving the ``with`` block disarms it and waits for an action already running, so the caller
    never races a late interrupt into its own clean-up. ``fired`` says whether it ran.
    """

    def __init__(self, seconds: float, action: Callable[[], object]) -> None:
        self._seconds = max(seconds, 0.0)
        self._action = action
        self._lock = threading.Lock()
        self._armed = True
        self.fired = False
        self._timer = threading.Timer(self._seconds, self._fire)
        self._timer.daemon = True

    def _fire(self) -> None:
        with self._lock:
            if not self._armed:
                return
            self.fired = True
            with contextlib.suppress(Exception):
                self._action()

    def __enter__(self) -> Watchdog:
        self._timer.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._timer.cancel()
        with self._lock:  # waits for a running action
            self._armed = False


# --- fixture load verification --------------------------------------------------------------------

def verify_load(fixture: Fixture, stored: Mapping[str, Iterable[Sequence[Any]]], *,
                seconds: float = 0.0) -> LoadReport:
    """Compare the rows read back from an engine with the fixture's declared rows.

    ``stored`` maps every table name to the rows as the engine returns them (any stand-in values
    :func:`parrot.fixtures.cell_text` understands). Returns the :class:`LoadReport` when row
    counts and checksums match; raises :class:`FixtureLoadError` naming every mismatch (with a
    sample of differing rows) otherwise.
    """
    row_counts: dict[str, int] = {}
    checksums: dict[str, str] = {}
    mismatches: list[str] = []
    for table in fixture.tables:
        rows = [tuple(r) for r in stored.get(table.name, ())]
        row_counts[table.name] = len(rows)
        checksums[table.name] = table_checksum(table, rows)
        if len(rows) != len(table.rows):
            mismatches.append(f"{table.name}: {len(rows)} rows stored, {len(table.rows)} declared")
        if checksums[table.name] != fixture.checksums[table.name]:
            mismatches.append(f"{table.name}: checksum {checksums[table.name]} != declared "
                              f"{fixture.checksums[table.name]}"
                              + _row_diff(table.rows, rows, [c.type for c in table.columns]))
    report = LoadReport(fixture=fixture.name, row_counts=row_counts, checksums=checksums,
                        seconds=seconds, mismatches=tuple(mismatches))
    if mismatches:
        raise FixtureLoadError(f"fixture {fixture.name!r} is not stored faithfully: "
                               + "; ".join(mismatches))
    return report


def raise_load_error(fixture: Fixture, engine: str, exc: BaseException) -> NoReturn:
    """Re-raise a failure while materialising ``fixture``: verification failures and
    interrupts as they are, engine errors (a value out of a type's range, ...) as
    :class:`FixtureLoadError`."""
    if isinstance(exc, FixtureLoadError) or not isinstance(exc, Exception):
        raise exc
    raise FixtureLoadError(f"fixture {fixture.name!r} could not be stored on {engine}: "
                           f"{trim_message(exc)}") from exc


def stored_checksums(fixture: Fixture,
                     stored: Mapping[str, Iterable[Sequence[Any]]]) -> dict[str, str]:
    """Checksums of the rows as stored (a missing table checksums as empty)."""
    return {t.name: table_checksum(t, [tuple(r) for r in stored.get(t.name, ())])
            for t in fixture.tables}


def _row_diff(declared: Iterable[Sequence[Any]], stored: Iterable[Sequence[Any]],
              types: Sequence[str], sample: int = 2) -> str:
    def texts(rows: Iterable[Sequence[Any]]) -> Counter[str]:
        out: Counter[str] = Counter()
        for row in rows:
            try:
                out[json.dumps([cell_text(v, t) for v, t in zip(row, types, strict=True)],
                               ensure_ascii=False)] += 1
            except (TypeError, ValueError, ArithmeticError):
                out[repr(tuple(row))] += 1
        return out

    want, got = texts(declared), texts(stored)
    missing = list((want - got).elements())[:sample]
    extra = list((got - want).elements())[:sample]
    parts = []
    if missing:
        parts.append("declared but not stored: " + ", ".join(missing))
    if extra:
        parts.append("stored but not declared: " + ", ".join(extra))
    return f" ({'; '.join(parts)})" if parts else ""
