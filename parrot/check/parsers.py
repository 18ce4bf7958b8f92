"""Load the generated ANTLR parsers (lazily, one dialect at a time) and run two-stage parses.

A :class:`DialectChecker` is built once per dialect per process (:func:`checker`) and reused: the
ANTLR runtime's prediction cache (DFA) lives in the generated module, so warm parses are fast; it
starts from the DFA an earlier process kept (:mod:`parrot.check.dfacache`, saved by
:func:`persist`).
Each statement is parsed with SLL prediction and a bail-out error strategy first; only when that
fails is it parsed again with full LL prediction, which also yields the error position.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from typing import Any

from antlr4 import CommonTokenStream, InputStream, Token  # type: ignore[import-untyped]
from antlr4.atn.PredictionMode import PredictionMode  # type: ignore[import-untyped]
from antlr4.error.ErrorListener import ErrorListener  # type: ignore[import-untyped]
from antlr4.error.Errors import ParseCancellationException  # type: ignore[import-untyped]
from antlr4.error.ErrorStrategy import (  # type: ignore[import-untyped]
    BailErrorStrategy,
    DefaultErrorStrategy,
)
from antlr4.ListTokenSource import ListTokenSource  # type: ignore[import-untyped]
from antlr4.tree.Tree import TerminalNode  # type: ignore[import-untyped]

from parrot.check import dfacache
from parrot.check.fastpath import FastLexer, TokenList
from parrot.dialects import DIALECTS, resolve
from parrot.dialects.splitter import splitter

# canonical dialect key -> grammar (grammars/<Name>.g4, generated into generated/<name>/)
GRAMMAR_OF: dict[str, str] = {k: d.grammar for k, d in DIALECTS.items() if d.grammar}


class UnsupportedDialectError(ValueError):
    """A dialect parrot has no grammar for."""


@dataclass(frozen=True)
class SyntaxProblem:
    """Where and why a statement failed to parse."""

    line: int  # 1-based
    column: int  # 1-based
    token: str  # the offending token's text ('<EOF>' at the end of input)
    message: str


@dataclass(frozen=True)
class Statement:
    """One statement of an input: its tokens (default channel) and its span in the input."""

    tokens: list[Any]
    start: int  # character offsets into the input, end exclusive
    end: int
    lexer_problem: SyntaxProblem | None


class _Collect(ErrorListener):
    """Keeps the first syntax error reported."""

    def __init__(self) -> None:
        self.first: SyntaxProblem | None = None

    def syntaxError(
        self, recognizer: Any, offendingSymbol: Any, line: int, column: int, msg: str, e: Any
    ) -> None:
        if self.first is None:
            if offendingSymbol is None:  # the lexer: "token recognition error at: '…'"
                text = msg.partition("at: ")[2][1:2]  # ANTLR quotes a look-ahead char too
            elif offendingSymbol.type == Token.EOF:
                text = "<EOF>"
            else:
                text = offendingSymbol.text
            self.first = SyntaxProblem(line, column + 1, text, _shorten(msg))


def _shorten(msg: str, keep: int = 8) -> str:
    """ANTLR's message with a long "expecting {…}" set cut to its first ``keep`` items."""
    head, sep, rest = msg.partition("expecting {")
    items = rest.rstrip("}").split(", ")
    if not sep or len(items) <= keep:
        return msg
    return f"{head}expecting one of {', '.join(items[:keep])}, … ({len(items)} in all)"


class DialectChecker:
    """A warm lexer + parser pair for one grammar; not thread-safe (use one per thread/process)."""

    def __init__(self, grammar: str) -> None:
        package = f"parrot.check.generated.{grammar.lower()}"
        self.grammar = grammar
        self._lexer_cls = getattr(
            importlib.import_module(f"{package}.{grammar}Lexer"), f"{grammar}Lexer"
        )
        self._parser_cls = getattr(
            importlib.import_module(f"{package}.{grammar}Parser"), f"{grammar}Parser"
        )
        self._lexer = self._lexer_cls(InputStream(""))
        self._lexer.removeErrorListeners()
        self._fast = FastLexer(self._lexer)
        self._parser = self._parser_cls(CommonTokenStream(ListTokenSource([])))
        self._parser.removeErrorListeners()
        self._parser.buildParseTrees = False
        # every grammar is named after the dialect it was written for (Spark's serves Hive)
        self._splitter = splitter(grammar.lower())

    def split(self, sql: str) -> list[Statement]:
        """The statements of ``sql`` as the dialect's one splitter cuts them (its statements,
        not T-SQL's GO batches: :meth:`parrot.dialects.splitter.Splitter.statements`), each
        lexed by the grammar's lexer; positions are the input's."""
        statements = self._splitter.statements()
        script = statements.script(sql)  # DELIMITER lines blanked, same positions
        return [self._lex(script, start, end) for start, end in statements.spans(script)]

    def _lex(self, sql: str, start: int, end: int) -> Statement:
        """The default-channel tokens of ``sql[start:end]``, and the lexer's first problem
        (its line and column counted in the whole input)."""
        listener = _Collect()
        lexer = self._lexer
        lexer.removeErrorListeners()
        lexer.addErrorListener(listener)
        line = sql.count("\n", 0, start) + 1
        column = start - (sql.rfind("\n", 0, start) + 1)
        tokens = self._fast.tokens(sql[start:end], line, column)
        return Statement(tokens, start, end, listener.first)

    def parse(self, tokens: list[Any]) -> SyntaxProblem | None:
        """None if the tokens form one statement of the grammar, else the first problem."""
        parser = self._parser
        parser._errHandler = BailErrorStrategy()  # stop at the first error: no recovery
        for mode in (PredictionMode.SLL, PredictionMode.LL):
            listener = _Collect()
            if mode == PredictionMode.LL:  # only the full-LL verdict is reported
                parser.addErrorListener(listener)
            parser.setTokenStream(TokenList(tokens))
            parser._interp.predictionMode = mode
            try:
                parser.statementList()
                return None
            except ParseCancellationException as stop:
                if mode == PredictionMode.LL and listener.first is None and stop.args:
                    # a mismatch raised by match() bypasses reportError: report it here
                    parser.removeErrorListeners()
                    parser.addErrorListener(listener)
                    DefaultErrorStrategy().reportError(parser, stop.args[0])
            finally:
                parser.removeErrorListeners()
        return listener.first or SyntaxProblem(0, 0, "", "syntax error")

    def rules_used(self, tokens: list[Any]) -> frozenset[str] | None:
        """The grammar rules and alternatives a statement exercises, or None if it does not parse.

        An alternative is named by its rule and the kinds of its first two children (rule names,
        or token names for terminals): ``joinPart>JOIN,tablePrimary``.
        """
        parser = self._parser
        parser._errHandler = BailErrorStrategy()
        parser.buildParseTrees = True
        try:
            for mode in (PredictionMode.SLL, PredictionMode.LL):
                parser.setTokenStream(CommonTokenStream(ListTokenSource(tokens)))
                parser._interp.predictionMode = mode
                try:
                    tree = parser.statementList()
                    break
                except ParseCancellationException:
                    continue
            else:
                return None
        finally:
            parser.buildParseTrees = False
        rule_names = parser.ruleNames
        literals = list(parser.literalNames)
        symbols = [
            literals[i] if sym == "<INVALID>" and i < len(literals) else sym
            for i, sym in enumerate(parser.symbolicNames)
        ]  # keywords: literal tokens
        found: set[str] = set()
        stack = [tree]
        while stack:
            node = stack.pop()
            children = list(node.getChildren())
            kinds = []
            for child in children[:2]:
                if isinstance(child, TerminalNode):
                    kind = child.getSymbol().type
                    kinds.append(symbols[kind] if 0 < kind < len(symbols) else "EOF")
                else:
                    kinds.append(rule_names[child.getRuleIndex()])
            rule = rule_names[node.getRuleIndex()]
            found.add(rule)
            found.add(f"{rule}>{','.join(kinds)}")
            stack.extend(c for c in children if not isinstance(c, TerminalNode))
        return frozenset(found)


def grammar_for(dialect: str) -> str:
    """The grammar name for a dialect (any accepted spelling)."""
    key = resolve(dialect)
    if key not in GRAMMAR_OF:
        known = ", ".join(sorted(GRAMMAR_OF))
        raise UnsupportedDialectError(f"no grammar for dialect {key!r} (grammars: {known})")
    return GRAMMAR_OF[key]


_LOADED: dict[type[Any], int] = {}  # parser class -> DFA states it held after its cache was loaded


@cache
def _checker(grammar: str) -> DialectChecker:
    made = DialectChecker(grammar)
    parser_cls = made._parser_cls
    if parser_cls not in _LOADED:
        dfacache.load(parser_cls)
        _LOADED[parser_cls] = dfacache.state_count(parser_cls)
    return made


def persist() -> None:
    """Save the DFA of every grammar this process parsed with and warmed further."""
    for parser_cls, loaded in _LOADED.items():
        count = dfacache.state_count(parser_cls)
        if loaded < count <= dfacache.MAX_STATES:
            dfacache.save(parser_cls)
            _LOADED[parser_cls] = count


_PRELOADING: dict[str, threading.Thread] = {}  # grammar -> the thread building its checker


def preload(dialects: Iterable[str]) -> None:
    """Build the checkers of ``dialects`` (importing the parsers, loading their kept DFA) in a
    background thread, so that the work overlaps an eval's engine executions; :func:`checker`
    waits for it. Dialects without a grammar are ignored."""
    keys = {resolve(d) for d in dialects}
    grammars = sorted({GRAMMAR_OF[k] for k in keys if k in GRAMMAR_OF} - set(_PRELOADING))
    if not grammars:
        return
    thread = threading.Thread(
        target=lambda: [_checker(g) for g in grammars], daemon=True, name="parrot-grammar-preload"
    )
    _PRELOADING.update(dict.fromkeys(grammars, thread))
    thread.start()


def checker(dialect: str) -> DialectChecker:
    """The process-wide warm checker for ``dialect``."""
    grammar = grammar_for(dialect)
    preloading = _PRELOADING.get(grammar)
    if preloading is not None:
        preloading.join()
    return _checker(grammar)
