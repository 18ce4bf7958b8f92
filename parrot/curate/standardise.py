"""Stage 1, standardise: split multi-statement inputs, format canonically, deduplicate.

Canonical formatting is lexical and never changes what a statement means: comments are removed
(and counted), runs of whitespace outside string literals and quoted identifiers become one
space, trailing semicolons go. Procedural inputs (``CREATE PROCEDURE``, ``BEGIN … END``) are kept
whole instead of being split at their inner semicolons.

Two records are exact duplicates when their canonical text (and dialect) is equal, normalised
duplicates when they are equal after case-folding keywords and unquoted identifiers. String
literals and quoted identifiers keep their case in both keys.
"""

from __future__ import annotations

import bisect
import functools
import re
import string
from collections import Counter
from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from parrot import dialects
from parrot.curate.stages import Batch, Drop, Record, Stage
from parrot.dialects import Lexicon
from parrot.dialects.lexer import Token, TokenKind, scan, tokenize
from parrot.dialects.splitter import splitter

_PROCEDURAL = re.compile(
    r"\b(?:BEGIN|CREATE\s+(?:OR\s+REPLACE\s+)?(?:PROCEDURE|PROC|FUNCTION|TRIGGER)|DECLARE)\b",
    re.IGNORECASE,
)


@functools.cache
def lexicon(dialect: str) -> Lexicon:
    """The dialect's lexical facts; for a dialect parrot does not define, sqlglot's tokenizer
    settings (string escapes, comment styles) stand in."""
    try:
        return dialects.get(dialect).lexicon
    except dialects.UnknownDialectError:
        from sqlglot.dialects.dialect import Dialect as SqlglotDialect

        try:
            tokenizer = SqlglotDialect.get_or_raise(dialect).tokenizer_class
        except ValueError:
            return Lexicon()
        comments = {c if isinstance(c, str) else c[0] for c in tokenizer.COMMENTS}
        return Lexicon(
            backslash_escapes="\\" in tokenizer.STRING_ESCAPES,
            hash_comments="#" in comments,
            slash_comments="//" in comments,
        )


# where a statement boundary, a comment or a DELIMITER line could begin (else: one statement)
_MAY_SPLIT = re.compile(r"[;#/]|--|delimiter", re.IGNORECASE)
_FOLDS = re.compile(r"[^\S ]|  ")  # whitespace that canonical formatting would change
# where a string, quoted identifier or dollar quote could begin (else whitespace is only space)
_MAY_QUOTE = re.compile(r"['\"`\[$]")
_SPACES = re.compile(r"\s+")


def single_statement(sql: str, dialect: str) -> str | None:
    """The canonical statement of an input with no ``;`` (but a last one), no comment and no
    ``DELIMITER`` line, without lexing it: what :func:`split_and_format` gives (one statement,
    or none for an empty text; no comments). None for any other input, which needs the
    splitter and the lexer."""
    body = sql.strip()
    if body.endswith(";"):
        body = body[:-1].rstrip()
    if _MAY_SPLIT.search(body) or _PROCEDURAL.search(body):
        return None
    if not _FOLDS.search(body):
        return body
    if not _MAY_QUOTE.search(body):  # every whitespace run is a space piece of the lexer's
        return _SPACES.sub(" ", body)
    return _format(scan(body, lexicon(dialect)))


def split_and_format(sql: str, dialect: str) -> tuple[list[str], int]:
    """Canonical statements of one input, and how many comments were removed. The input is
    split by the dialect's one splitter (:func:`parrot.engines.statements.splitter`);
    procedural inputs stay whole."""
    if (single := single_statement(sql, dialect)) is not None:
        return ([single] if single else []), 0
    return lexed_split_and_format(sql, dialect)


def lexed_split_and_format(sql: str, dialect: str) -> tuple[list[str], int]:
    """:func:`split_and_format` by the splitter and the lexer, for any input."""
    lex = lexicon(dialect)
    # statements, not T-SQL batches: a GO line stays text, as any other word
    statements = splitter(dialect).statements()
    script = statements.script(sql)  # DELIMITER lines blanked
    pieces = list(scan(script, lex))
    comments = sum(t.kind is TokenKind.COMMENT and t.text != "*/" for t in pieces)
    spans = statements.spans(script)
    if _PROCEDURAL.search(sql):  # kept whole
        spans = [(spans[0][0], spans[-1][1])] if spans else []
    starts = [t.start for t in pieces]
    out = [
        _format(pieces[bisect.bisect_left(starts, a) : bisect.bisect_left(starts, b)])
        for a, b in spans
    ]
    return [s for s in out if s], comments


def _format(pieces: Iterable[Token]) -> str:
    """One statement's pieces with its comments removed and its whitespace runs folded
    (strings, quoted identifiers and the code inside MySQL's ``/*! ... */`` kept as written)."""
    current: list[str] = []
    space = False
    for tok in pieces:
        if tok.kind is TokenKind.COMMENT or tok.kind is TokenKind.SPACE:
            space = True
        else:
            if space and current:
                current.append(" ")
            current.append(tok.text)
            space = False
    return "".join(current).strip().rstrip(";").rstrip()


_ASCII_LOWER = str.maketrans(string.ascii_uppercase, string.ascii_lowercase)  # words are ASCII


def normalised_key(sql: str, dialect: str = "") -> str:
    """``sql`` (canonical) with keywords and unquoted identifiers case-folded: the ASCII letters
    outside strings, quoted identifiers and comments (as ``dialect`` lexes them) lower-cased."""
    return normalised_key_of(sql, tokenize(sql, lexicon(dialect)))


_MAY_COMMENT = re.compile(r"/\*|--|#|//")  # where a comment could begin


def normalised_key_of(sql: str, tokens: list[Token]) -> str:
    """:func:`normalised_key` from the statement's :func:`~parrot.dialects.lexer.tokenize`
    tokens (its dialect's lexicon), without lexing it again: between strings and quoted
    identifiers everything is folded, unless a comment (which keeps its case) may be there."""
    parts: list[str] = []
    last = 0
    if _MAY_COMMENT.search(sql):  # only the words folded, the rest (comments too) as written
        for kind, text, start, end in tokens:
            if kind is TokenKind.WORD:
                parts += (sql[last:start], text.translate(_ASCII_LOWER))
                last = end
        parts.append(sql[last:])
        return "".join(parts)
    for kind, text, start, end in tokens:
        if kind is TokenKind.STRING or kind is TokenKind.QUOTED:
            parts += (sql[last:start].translate(_ASCII_LOWER), text)
            last = end
    if not parts:
        return sql.translate(_ASCII_LOWER)
    parts.append(sql[last:].translate(_ASCII_LOWER))
    return "".join(parts)


def deduplicate(batch: Batch, detail: str = "") -> Batch:
    """``batch`` without exact and normalised duplicates (per dialect and fixture; the first one
    wins); ``detail`` goes with the funnel's drop codes."""
    exact: set[tuple[str, str, str | None]] = set()
    normal: set[tuple[str, str, str | None]] = set()
    kept: list[Record] = []
    out = Batch(kept, Counter(batch.dropped), batch.notes, batch.routed, Counter(batch.details))
    for r in batch.records:
        key = (r.dialect, r.sql, r.fixture)
        if key in exact:
            out.drop(Drop.DUPLICATE, detail)
            continue
        exact.add(key)
        nkey = (r.dialect, normalised_key(r.sql, r.dialect), r.fixture)
        if nkey in normal:
            out.drop(Drop.NORMALISED_DUPLICATE, detail)
            continue
        normal.add(nkey)
        kept.append(r)
    return out


def canonical_statements(record: Record, out: Batch) -> list[tuple[str, str]]:
    """(id, canonical text) of each statement of ``record`` (``id#N`` when it splits); its
    drop (NUL character, empty) or notes (comments removed, inputs split) counted in ``out``."""
    if "\x00" in record.sql:  # no engine driver accepts it in a statement
        out.drop(Drop.NUL_CHARACTER)
        return []
    statements, comments = split_and_format(record.sql, record.dialect)
    if comments:
        out.notes["comments removed"] += comments
    if not statements:
        out.drop(Drop.EMPTY)
        return []
    if len(statements) == 1:
        return [(record.id, statements[0])]
    out.notes["inputs split"] += 1
    return [(f"{record.id}#{i}", sql) for i, sql in enumerate(statements, 1)]


class Standardise(Stage):
    """Split, format canonically and drop exact and normalised duplicates (first one wins)."""

    name = "standardise"

    def map(self, chunk: list[Record]) -> Batch:
        out = Batch([])
        for record in chunk:
            for rid, sql in canonical_statements(record, out):
                out.records.append(replace(record, id=rid, sql=sql))
        return out

    def reduce(self, batch: Batch) -> Batch:
        return deduplicate(batch)

    def params(self) -> dict[str, Any]:
        return {
            "comments": "removed",
            "dedup": ["exact", "normalised"],
            "dedup_scope": "dialect + fixture",
        }
