"""The one SQL lexer: where a dialect's strings, quoted identifiers and comments start and end.

Built once per :class:`~parrot.dialects.base.Lexicon` as a single regular expression (one
alternative per lexical fact), so scanning costs one regex match per piece; nested block
comments, Oracle ``q'...'`` literals and MySQL's executable ``/*! ... */`` comments are the only
pieces finished in Python. :func:`scan` yields every piece (whitespace and comments too: what
curation formats and counts); :func:`tokenize` only the code (what the splitter and the engines'
guards read). Neither ever raises: an unterminated string, identifier or comment runs to the end
of the text (the engine reports the error).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from enum import StrEnum
from typing import NamedTuple

from parrot.dialects.base import Lexicon

ANSI = Lexicon()


class TokenKind(StrEnum):
    WORD = "word"  # keyword, bare identifier or number
    QUOTED = "quoted"  # "identifier", `identifier` or [identifier]
    STRING = "string"  # 'literal', $$literal$$ or r'raw literal'
    PUNCT = "punct"  # one character of punctuation (';' included)
    COMMENT = "comment"  # -- / # / // line comments, /* block */ comments (scan only)
    SPACE = "space"  # a run of whitespace (scan only)


class Token(NamedTuple):  # a tuple: made for every piece of every statement parrot lexes
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


_ESCAPED = r"(?:[^{q}\\]+|{q}{q}|\\[\s\S]?)*{q}?"  # a backslash escapes the next character
_PLAIN = r"(?:[^{q}]+|{q}{q})*{q}?"  # only a doubled quote stands for the quote


def _quoted(quote: str, backslash: bool) -> str:
    return quote + (_ESCAPED if backslash else _PLAIN).format(q=re.escape(quote))


def _line_comments(lex: Lexicon) -> str:
    dash = r"--(?=[\s\x00-\x1f]|\Z)" if lex.dash_comments_need_space else "--"
    alternatives = [dash]
    if lex.slash_comments:
        alternatives.append("//")
    if lex.hash_comments:
        alternatives.append("#" if lex.hash_comments_always else r"\#(?=[! \t\n\r]|\Z)")
    return f"(?:{'|'.join(alternatives)})[^\\n]*"


def _alternatives(lex: Lexicon) -> list[tuple[str, str]]:
    """(group name, pattern) in the order they are tried; the group name is the piece's kind
    or a marker that :func:`scan` finishes by hand."""
    out = [("space", r"\s+"), ("comment", _line_comments(lex))]
    if lex.executable_comments:
        out += [("xopen", r"/\*M?!\d*"), ("xclose", r"\*/")]
    out.append(("nested", r"/\*") if lex.nested_comments else ("comment", r"/\*[\s\S]*?(?:\*/|\Z)"))
    if lex.q_quotes:
        out.append(("q", r"[nN]?[qQ]'(?=\S)"))
    if lex.raw_strings:
        out.append(("string", r"[rR](?:'[^']*'?|\"[^\"]*\"?)"))
    if lex.escape_strings:
        out.append(("string", "[eE]" + _quoted("'", True)))
    out.append(("string", _quoted("'", lex.backslash_escapes)))
    out.append(("quoted", _quoted('"', lex.backslash_escapes and not lex.plain_double_quotes)))
    out.append(("quoted", _quoted("`", lex.backslash_escapes and not lex.plain_backticks)))
    if lex.bracket_identifiers:
        out.append(("quoted", r"\[(?:[^\]]+|\]\])*\]?" if lex.bracket_escapes else r"\[[^\]]*\]?"))
    if lex.dollar_quotes:
        out.append(
            ("string", r"\$(?P<tag>(?:[A-Za-z_][A-Za-z0-9_]*)?)\$[\s\S]*?(?:\$(?P=tag)\$|\Z)")
        )
    out.append(("word", r"[^\W]+[\w$]*|\$[0-9]+" if lex.dollar_identifiers else r"[^\W]+|\$[0-9]+"))
    out.append(("punct", r"\S"))
    return out


_KINDS = {
    "space": TokenKind.SPACE,
    "comment": TokenKind.COMMENT,
    "string": TokenKind.STRING,
    "quoted": TokenKind.QUOTED,
    "word": TokenKind.WORD,
    "punct": TokenKind.PUNCT,
}


@functools.cache
def _pattern(lex: Lexicon) -> tuple[re.Pattern[str], dict[str, TokenKind | str]]:
    """The lexicon's scanner (one named group per alternative, ``kind_N``) and what each group
    is: a kind, or the marker of a piece :func:`_finish` completes. Leading whitespace is
    matched before the group (:func:`scan` cuts it off as a piece of its own)."""
    alternatives = _alternatives(lex)[1:]  # whitespace: the prefix
    groups = [f"(?P<{name}_{i}>{pattern})" for i, (name, pattern) in enumerate(alternatives)]
    kinds = {f"{name}_{i}": _KINDS.get(name, name) for i, (name, _) in enumerate(alternatives)}
    return re.compile(r"\s*(?:" + "|".join(groups) + ")"), kinds


_NESTING = re.compile(r"/\*|\*/")
_Q_CLOSERS = {"[": "]", "{": "}", "(": ")", "<": ">"}


def scan(sql: str, lexicon: Lexicon = ANSI) -> Iterator[Token]:
    """Every piece of ``sql`` in order, whitespace and comments included; the pieces' texts
    joined give ``sql`` back."""
    pattern, kinds = _pattern(lexicon)
    match = pattern.match
    pos, n = 0, len(sql)
    executable = 0  # open /*! ... */ comments whose content is being lexed as code
    while pos < n:
        m = match(sql, pos)
        if m is None:  # only whitespace is left
            yield Token(TokenKind.SPACE, sql[pos:], pos, n)
            return
        group = m.lastgroup
        assert group is not None  # one alternative matched
        start, end = m.start(group), m.end()
        if start > pos:
            yield Token(TokenKind.SPACE, sql[pos:start], pos, start)
        kind = kinds[group]
        if not isinstance(kind, TokenKind):
            kind, end = _finish(kind, sql, start, end, executable)
            if group.startswith("xopen"):
                executable += 1
            elif group.startswith("xclose") and kind is TokenKind.COMMENT:
                executable -= 1
        yield Token(kind, sql[start:end], start, end)
        pos = end


def _finish(name: str, sql: str, pos: int, end: int, executable: int) -> tuple[TokenKind, int]:
    """The kind and end of a piece the pattern only started: ``name`` is its marker group."""
    if name == "xopen":
        return TokenKind.COMMENT, end
    if name == "xclose":  # '*/' closes an executable comment, else it is a '*'
        return (TokenKind.COMMENT, end) if executable else (TokenKind.PUNCT, pos + 1)
    if name == "nested":
        return TokenKind.COMMENT, _nested_comment_end(sql, end)
    q_end = _q_quote_end(sql, pos)  # name == "q"
    if q_end > pos:
        return TokenKind.STRING, q_end
    word = re.compile(r"[^\W]+").match(sql, pos)
    assert word is not None
    return TokenKind.WORD, word.end()


def _nested_comment_end(sql: str, pos: int) -> int:
    """Index just past the nested block comment whose ``/*`` ends at ``pos``."""
    depth = 1
    for m in _NESTING.finditer(sql, pos):
        depth += 1 if m.group() == "/*" else -1
        if depth == 0:
            return m.end()
    return len(sql)


def _q_quote_end(sql: str, i: int) -> int:
    """End of an Oracle ``q'Xtext X'`` (or ``nq'...'``) literal starting at ``i``, else ``i``."""
    j = i + 1 if sql[i] in "nN" else i
    if i and (sql[i - 1].isalnum() or sql[i - 1] in "_$#"):
        return i  # part of a longer word (e.g. the identifier abq'...)
    opener = sql[j + 2]
    close = sql.find(_Q_CLOSERS.get(opener, opener) + "'", j + 3)
    return len(sql) if close < 0 else close + 2


def tokenize(sql: str, lexicon: Lexicon = ANSI) -> list[Token]:
    """Tokens of ``sql`` without whitespace and comments (:func:`scan`'s code pieces; the same
    loop, unrolled: the splitter and the guards lex every statement parrot runs)."""
    pattern, kinds = _pattern(lexicon)
    match = pattern.match
    tokens: list[Token] = []
    append = tokens.append
    pos, n = 0, len(sql)
    executable = 0
    comment = TokenKind.COMMENT
    while pos < n and (m := match(sql, pos)) is not None:
        group = m.lastgroup
        assert group is not None
        start, pos = m.start(group), m.end()
        kind = kinds[group]
        if kind is comment:
            continue
        if not isinstance(kind, TokenKind):
            kind, pos = _finish(kind, sql, start, pos, executable)
            if group.startswith("xopen"):
                executable += 1
            elif group.startswith("xclose") and kind is comment:
                executable -= 1
            if kind is comment:
                continue
        append(Token(kind, sql[start:pos], start, pos))
    return tokens
