"""The one statement splitter: how a dialect's scripts divide into statements, built from the
:class:`~parrot.dialects.base.Dialect` facts (:func:`splitter`) on the one lexer
(:mod:`parrot.dialects.lexer`). The engines, the grammar check, curation, translate and the
suite builder all split with it.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from parrot.dialects.base import Dialect, Lexicon
from parrot.dialects.lexer import ANSI, Token, TokenKind, tokenize

_BLOCK_KEYWORDS = frozenset({"if", "loop", "while", "repeat", "for"})
# words after which END is a name (a column or variable called end), never a block's end
_NAME_BEFORE = frozenset(
    {"declare", "into", "set", "select", "as", "by", "where", "and", "or", "on"}
)
_TRANSACTION_WORDS = frozenset({"work", "transaction", "tran"})  # BEGIN WORK starts no block
BODY_STARTS = frozenset({"begin", "then", "else", "do", "loop", "repeat"})  # a body follows
_DELIMITER_LINE = re.compile(
    r"^[ \t]*delimiter[ \t]+(\S+)[ \t]*(?:\r?\n|$)", re.IGNORECASE | re.MULTILINE
)
_GO_LINE = re.compile(r"^[ \t]*go(?:[ \t]+(\d+))?[ \t]*$", re.IGNORECASE)
# PL/SQL: CREATE [OR REPLACE] [EDITIONABLE] FUNCTION/PROCEDURE/TRIGGER and DECLARE open a unit
# whose declarations (up to its BEGIN) hold ';' that end nothing
_PLSQL_UNITS = frozenset({"function", "procedure", "trigger"})
_CREATE_PREFIX = frozenset({"create", "or", "replace", "editionable", "noneditionable"})


def split_statements(sql: str, lexicon: Lexicon = ANSI) -> list[str]:
    """The statements of ``sql``: split at ``;`` outside strings, identifiers and comments;
    leading/trailing comments, the ``;`` itself and empty statements dropped."""
    return [sql[a:b] for a, b in Splitter(lexicon).spans(sql)]


@dataclass
class _Unit:
    """Where the splitter is in a PL/SQL unit's declarations (see :attr:`Splitter.plsql_units`)."""

    declaring: bool = False  # between the unit's start and its BEGIN
    nested: int = 0  # nested subprograms in the declarations awaiting their BEGIN
    words: list[str] = field(default_factory=list)  # the statement's words so far (up to 6)

    def step(self, tok: Token, prev: Token | None, depth: int) -> None:
        name = tok.name if tok.kind is TokenKind.WORD else tok.text
        if len(self.words) < 6:
            self.words.append(name)
        if (self.words == ["declare"]) or (
            name in _PLSQL_UNITS
            and self.words[0] == "create"
            and all(w in _CREATE_PREFIX for w in self.words[:-1])
        ):
            self.declaring = True
        elif self.declaring and name in ("function", "procedure"):
            self.nested += 1
        elif (
            self.declaring
            and name in ("language", "external")
            and prev is not None
            and prev.name in ("is", "as")
        ):
            self.declaring = False
        elif self.declaring and name == "begin" and depth == 0:
            if self.nested:
                self.nested -= 1
            else:
                self.declaring = False


@dataclass(frozen=True)
class Splitter:
    """How a dialect's scripts divide into statements: the one splitter every part of parrot
    uses, configured by the dialect's facts.

    Statements end at ``;`` outside strings, identifiers and comments (per ``lexicon``); a
    statement starting with ``ELSE`` continues the one before (``IF c SELECT 1; ELSE SELECT 2``).
    With ``blocks``, ``BEGIN ... END`` and ``CASE ... END`` keep their inner ``;`` (routine,
    trigger and script bodies stay whole); ``END IF``, ``END LOOP``, ``END FOR``...
    (``block_keywords``) close blocks that opened none, an ``END`` after an operator, ``,``,
    ``(`` or a word such as ``DECLARE``/``INTO``/``SET`` is a name (``DECLARE end INT``), and a
    ``BEGIN`` that starts a transaction (``BEGIN;``, ``BEGIN WORK``) opens nothing.
    ``begin_anywhere=False`` (Spark) opens a block only where a statement or a block body
    starts, so ``SELECT begin FROM t`` is one plain statement. ``plsql_units``: the
    declarations of a PL/SQL unit (``CREATE FUNCTION ... IS x INT; BEGIN``, ``DECLARE``) keep
    their ``;``.
    ``delimiter_lines``: mysql-client ``DELIMITER x`` lines switch the delimiter.
    ``slash_lines``: a SQL*Plus ``/`` line ends a statement.
    ``go_lines``: the script is cut into batches at ``GO`` lines (as sqlcmd does), each sent
    whole; ``GO n`` with n > 1 becomes a statement of its own for the guard to refuse.
    ``complete`` (SQLite) re-joins pieces until the engine's own check calls them complete.
    """

    lexicon: Lexicon = ANSI
    blocks: bool = False
    begin_anywhere: bool = True
    block_keywords: frozenset[str] = _BLOCK_KEYWORDS
    plsql_units: bool = False
    delimiter_lines: bool = False
    slash_lines: bool = False
    go_lines: bool = False
    complete: Callable[[str], bool] | None = None

    def split(self, sql: str) -> list[str]:
        """The statements of ``sql`` as texts (comments around them and the ``;`` dropped)."""
        if self.go_lines:
            return self._batches(sql)
        if self.delimiter_lines:
            sql = _apply_delimiters(sql, self.lexicon)
        return [sql[a:b] for a, b in self._spans(sql)]

    def spans(self, sql: str) -> list[tuple[int, int]]:
        """Where the statements of ``sql`` are: (start, end) character offsets into ``sql``
        (what :meth:`split` returns is ``sql[start:end]``, but for ``GO n`` markers and
        ``DELIMITER`` rewriting)."""
        if self.go_lines:
            return [(a, b) for a, b, _ in self._batch_spans(sql)]
        return self._spans(self.script(sql))

    def script(self, sql: str) -> str:
        """``sql`` as :meth:`spans` reads it: the same length, with mysql-client ``DELIMITER``
        lines blanked and their delimiters written as ``;`` (``delimiter_lines``)."""
        return _apply_delimiters(sql, self.lexicon) if self.delimiter_lines else sql

    def statements(self) -> Splitter:
        """This splitter for statements rather than batches: T-SQL's GO lines stay words, and
        BEGIN ... END blocks keep their ';' (the grammar check and curation split so)."""
        if not self.go_lines:
            return self
        return replace(self, go_lines=False, blocks=True)

    def _spans(self, sql: str) -> list[tuple[int, int]]:
        tokens = tokenize(sql, self.lexicon)
        spans: list[tuple[int, int]] = []
        first: Token | None = None
        prev: Token | None = None  # the statement's last token so far
        depth = 0
        unit = _Unit()
        for i, tok in enumerate(tokens):
            if tok.kind is TokenKind.PUNCT and (
                (tok.text == ";" and depth == 0 and not unit.declaring)
                or (self.slash_lines and tok.text == "/" and _alone_on_line(sql, tok))
            ):
                if first is not None and prev is not None:
                    spans.append((first.start, prev.end))
                first = prev = None
                depth, unit = 0, _Unit()
                continue
            if first is None and spans and tok.kind is TokenKind.WORD and tok.name == "else":
                first = Token(tok.kind, "", spans.pop()[0], tok.start)  # IF ...; ELSE ...
            if self.plsql_units:
                unit.step(tok, prev, depth)
            if self.blocks and tok.kind is TokenKind.WORD:
                depth = self._depth(tokens, i, prev, depth)
            first = first or tok
            prev = tok
        if first is not None and prev is not None:
            spans.append((first.start, prev.end))
        if self.complete is not None:
            spans = self._joined(sql, spans)
        return spans

    def _depth(self, tokens: Sequence[Token], i: int, prev: Token | None, depth: int) -> int:
        """The block depth after the word ``tokens[i]``."""
        name = tokens[i].name
        nxt = tokens[i + 1] if i + 1 < len(tokens) else None
        if name == "begin":
            if nxt is None or nxt.text == ";" or nxt.name in _TRANSACTION_WORDS:
                return depth  # BEGIN; / BEGIN WORK: a transaction
            if (
                prev is None
                or self.begin_anywhere
                or (depth > 0 and (prev.text in (";", ":") or prev.name in BODY_STARTS))
            ):
                return depth + 1
        elif name == "case":
            if prev is None or prev.kind is not TokenKind.WORD or prev.name != "end":
                return depth + 1  # END CASE closed its block at END
        elif name == "end" and not (
            nxt is not None and nxt.kind is TokenKind.WORD and nxt.name in self.block_keywords
        ):
            if prev is not None and (
                (prev.kind is TokenKind.PUNCT and prev.text not in (";", ")"))
                or (prev.kind is TokenKind.WORD and prev.name in _NAME_BEFORE)
            ):
                return depth  # `(i <= end)`, `DECLARE end INT`: a name, not a block's end
            return max(depth - 1, 0)
        return depth

    def _joined(self, sql: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
        """Pieces re-joined until ``complete`` calls them a whole statement."""
        assert self.complete is not None
        out: list[tuple[int, int]] = []
        start: int | None = None
        for a, b in spans:
            start = a if start is None else start
            if self.complete(sql[start:b] + ";"):
                out.append((start, b))
                start = None
        if start is not None:
            out.append((start, spans[-1][1]))
        return out

    def _batches(self, sql: str) -> list[str]:
        return [f"GO {count}" if count else sql[a:b] for a, b, count in self._batch_spans(sql)]

    def _batch_spans(self, sql: str) -> list[tuple[int, int, str | None]]:
        """The GO batches of ``sql`` (trimmed of comments), and ``GO n`` lines with n > 1 as
        (start, end, n) markers (refused by the guard: a repeated batch)."""
        out: list[tuple[int, int, str | None]] = []
        pos = 0
        plain = Splitter(self.lexicon)
        for start, end, count in [*self._go_lines(sql), (len(sql), len(sql), None)]:
            if spans := plain._spans(sql[pos:start]):
                out.append((pos + spans[0][0], pos + spans[-1][1], None))
            if count is not None and count != "1":
                out.append((start, end, count))
            pos = end
        return out

    def _go_lines(self, sql: str) -> list[tuple[int, int, str | None]]:
        cuts: list[tuple[int, int, str | None]] = []
        for tok in tokenize(sql, self.lexicon):
            if tok.kind is not TokenKind.WORD or tok.name != "go":
                continue
            start = sql.rfind("\n", 0, tok.start) + 1
            end = sql.find("\n", tok.end)
            end = len(sql) if end < 0 else end
            if m := _GO_LINE.match(sql[start:end].rstrip("\r")):
                cuts.append((start, end, m.group(1)))
        return cuts


def _alone_on_line(sql: str, tok: Token) -> bool:
    line_start = sql.rfind("\n", 0, tok.start) + 1
    line_end = sql.find("\n", tok.end)
    line = sql[line_start : len(sql) if line_end < 0 else line_end]
    return line.strip() == "/"


def _apply_delimiters(sql: str, lexicon: Lexicon) -> str:
    """Rewrite a script using mysql-client ``DELIMITER`` lines into one separated by ``;``,
    keeping every character's position: a DELIMITER line becomes blanks, a delimiter ``;``
    and blanks."""
    if not _DELIMITER_LINE.search(sql):
        return sql
    out: list[str] = []
    delimiter = ";"
    pos = 0
    for m in _DELIMITER_LINE.finditer(sql):
        if any(
            t.start < m.start() < t.end
            for t in tokenize(sql[: m.start() + 1], lexicon)
            if t.kind in (TokenKind.STRING, TokenKind.QUOTED)
        ):
            continue  # inside a literal
        out.append(_replace_delimiter(sql[pos : m.start()], delimiter, lexicon))
        out.append(re.sub(r"[^\r\n]", " ", m.group(0)))
        delimiter = m.group(1)
        pos = m.end()
    out.append(_replace_delimiter(sql[pos:], delimiter, lexicon))
    return "".join(out)


def _replace_delimiter(chunk: str, delimiter: str, lexicon: Lexicon) -> str:
    if delimiter == ";":
        return chunk
    code = [
        (t.start, t.end)
        for t in tokenize(chunk, lexicon)
        if t.kind in (TokenKind.WORD, TokenKind.PUNCT)
    ]

    def in_code(a: int, b: int) -> bool:
        return all(any(s <= k < e for s, e in code) for k in range(a, b))

    parts: list[str] = []
    pos = 0
    at = chunk.find(delimiter)
    while at >= 0:
        if in_code(at, at + len(delimiter)):
            parts.append(chunk[pos:at])
            parts.append(";" + " " * (len(delimiter) - 1))
            pos = at + len(delimiter)
            at = chunk.find(delimiter, pos)
        else:
            at = chunk.find(delimiter, at + 1)
    parts.append(chunk[pos:])
    return "".join(parts)


def _sqlite_complete(text: str) -> bool:
    import sqlite3

    return sqlite3.complete_statement(text)


# engines that can tell a complete statement from a piece of one (SQLite's own parser)
_COMPLETE: dict[str, Callable[[str], bool]] = {"sqlite": _sqlite_complete}


@functools.cache
def splitter(dialect: str) -> Splitter:
    """The :class:`Splitter` of ``dialect``, built from its :class:`parrot.dialects.Dialect`
    facts (lexicon, procedural blocks, DELIMITER / ``/`` / GO lines); a dialect parrot does not
    define splits as ANSI SQL."""
    d = Dialect.registry.get(dialect)
    if d is None:
        return _ANSI_SPLITTER
    return Splitter(
        d.lexicon,
        blocks=bool(d.block_ends) or d.plsql_units or d.compound_block_ends,
        begin_anywhere=d.blocks_begin_anywhere,
        block_keywords=d.block_ends or _BLOCK_KEYWORDS,
        plsql_units=d.plsql_units,
        delimiter_lines=d.delimiter_command,
        slash_lines=d.slash_terminator,
        go_lines=d.batch_separator == "GO",
        complete=_COMPLETE.get(d.key),
    )


_ANSI_SPLITTER = Splitter()
