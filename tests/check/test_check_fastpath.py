"""The fast paths (parrot/check/fastpath.py) give the ANTLR runtime's own tokens and verdicts."""

from __future__ import annotations

import os
from typing import Any

import pytest
from antlr4 import CommonTokenStream, InputStream, Token  # type: ignore[import-untyped]
from antlr4.error.Errors import ParseCancellationException  # type: ignore[import-untyped]
from antlr4.ListTokenSource import ListTokenSource  # type: ignore[import-untyped]

from parrot.check import GRAMMAR_OF
from parrot.check.fidelity import real_queries
from parrot.check.parsers import _Collect, checker

# inputs where the DFA alone cannot decide: non-ASCII characters, a comment or a string at the
# end of the input, a character no token starts with, an unterminated string, several lines
TRICKY = [
    "SELECT 'café', \"naïve\" FROM t -- done",
    "SELECT a FROM t /* trailing */",
    "SELECT a\nFROM t\n  WHERE b = 'x\ny' -- c\n",
    "SELECT 1 ~~ 2 § 3",
    "SELECT 'unterminated",
    'SELECT\t1\r\n, 2e10, 0x1F, .5, 1.e3 FROM `q` [r] "s"',
    "SELECT a FROM t WHERE b = ?",
    "",
    "   ",
    "SELECT 数据 FROM 表",
]
# one dialect per grammar (aliases share one)
GRAMMARS = sorted({g.lower() for g in GRAMMAR_OF.values()})
# per source file; PARROT_FASTPATH_ALL=1 compares every corpus query (the slow test; an hour)
PER_SOURCE = 100_000 if os.environ.get("PARROT_FASTPATH_ALL") else 10


def _shape(token: Any) -> tuple[Any, ...]:
    return (
        token.type,
        token.channel,
        token.start,
        token.stop,
        token.line,
        token.column,
        token.text,
    )


def _runtime_tokens(chk: Any, text: str, line: int, column: int) -> tuple[list, Any]:
    """The runtime's ``nextToken`` loop: what the checker lexed with before the fast path."""
    listener = _Collect()
    lexer = chk._lexer
    lexer.removeErrorListeners()
    lexer.addErrorListener(listener)
    lexer.inputStream = InputStream(text)
    lexer.line, lexer.column = line, column
    tokens = []
    while (tok := lexer.nextToken()).type != Token.EOF:
        if tok.channel == Token.DEFAULT_CHANNEL:
            tokens.append(tok)
    return tokens, listener.first


def _runtime_parse(chk: Any, tokens: list[Any]) -> Any:
    """The checker's two-stage parse over the runtime's own token stream."""
    parser = chk._parser
    original = parser.setTokenStream

    def through_runtime(_stream: Any) -> None:
        original(CommonTokenStream(ListTokenSource([t.clone() for t in tokens])))

    parser.setTokenStream = through_runtime
    try:
        return chk.parse(tokens)
    except ParseCancellationException:  # pragma: no cover - parse() catches it
        raise
    finally:
        del parser.setTokenStream


def _compare(dialect: str, sql: str) -> None:
    chk = checker(dialect)
    for stmt in chk.split(sql):
        before = sql[: stmt.start]
        line, column = before.count("\n") + 1, stmt.start - (before.rfind("\n") + 1)
        tokens, problem = _runtime_tokens(chk, sql[stmt.start : stmt.end], line, column)
        assert [_shape(t) for t in stmt.tokens] == [_shape(t) for t in tokens], sql
        assert stmt.lexer_problem == problem, sql
        if problem is None:
            assert chk.parse(stmt.tokens) == _runtime_parse(chk, tokens), sql


@pytest.mark.parametrize("dialect", GRAMMARS)
def test_fast_tokens_and_verdicts_are_the_runtimes_on_tricky_inputs(dialect: str) -> None:
    for sql in [*TRICKY, *TRICKY]:  # the second round: a warmer DFA, the same answers
        _compare(dialect, sql)


def test_fast_tokens_and_verdicts_are_the_runtimes_on_some_sqlite_queries() -> None:
    for sql in [q.sql for q in real_queries("sqlite", per_source=3)]:
        _compare("sqlite", sql)


@pytest.mark.slow
@pytest.mark.parametrize("dialect", GRAMMARS)
def test_fast_tokens_and_verdicts_are_the_runtimes_on_real_queries(dialect: str) -> None:
    for sql in [q.sql for q in real_queries(dialect, per_source=PER_SOURCE)]:
        _compare(dialect, sql)
