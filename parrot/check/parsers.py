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
from parrot.dialects import DIALECTS, resolve

# canonical dialect key -> grammar (grammars/<Name>.g4, generated into generated/<name>/)
GRAMMAR_OF: dict[str, str] = {k: d.grammar for k, d in DIALECTS.items() if d.grammar}

# token texts that open/close a nesting level the statement splitter must not split inside
_OPEN = {"(", "[", "{"}
_CLOSE = {")", "]", "}"}
# after BEGIN, these words mean a transaction statement rather than a BEGIN … END block
_BEGIN_TXN = {";", "TRANSACTION", "TRAN", "WORK", "DEFERRED", "IMMEDIATE", "EXCLUSIVE"}
# grammars whose CREATE FUNCTION/PROCEDURE/TRIGGER and DECLARE open a PL/SQL unit: its
# declarations (before BEGIN) and END IF / END LOOP / END CASE do not end the statement
_PLSQL_GRAMMARS = {d.grammar for d in DIALECTS.values() if d.plsql_units}
_PLSQL_UNITS = {"FUNCTION", "PROCEDURE", "TRIGGER"}
_CREATE_PREFIX = {"CREATE", "OR", "REPLACE", "EDITIONABLE", "NONEDITIONABLE"}
# grammars with procedural blocks where END IF / END LOOP / END WHILE / END REPEAT end a compound
# statement (not the enclosing BEGIN) and END CASE ends a CASE statement
_COMPOUND_END_GRAMMARS = {d.grammar for d in DIALECTS.values() if d.compound_block_ends}
_COMPOUND_ENDS = {"IF", "LOOP", "WHILE", "REPEAT"}


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

    def syntaxError(self, recognizer: Any, offendingSymbol: Any, line: int, column: int,
                    msg: str, e: Any) -> None:
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
        self._lexer_cls = getattr(importlib.import_module(f"{package}.{grammar}Lexer"),
                                  f"{grammar}Lexer")
        self._parser_cls = getattr(importlib.import_module(f"{package}.{grammar}Parser"),
                                   f"{grammar}Parser")
        self._lexer = self._lexer_cls(InputStream(""))
        self._lexer.removeErrorListeners()
        self._parser = self._parser_cls(CommonTokenStream(ListTokenSource([])))
        self._parser.removeErrorListeners()
        self._parser.buildParseTrees = False
        names = list(self._parser_cls.literalNames)
        self._semi = names.index("';'")
        self._open = {names.index(f"'{c}'") for c in _OPEN if f"'{c}'" in names}
        self._close = {names.index(f"'{c}'") for c in _CLOSE if f"'{c}'" in names}
        self._plsql = grammar in _PLSQL_GRAMMARS
        self._compound_end = grammar in _COMPOUND_END_GRAMMARS

    def split(self, sql: str) -> list[Statement]:
        """Lex ``sql`` once and cut it into statements at top-level semicolons."""
        listener = _Collect()
        lexer = self._lexer
        lexer.removeErrorListeners()
        lexer.addErrorListener(listener)
        lexer.inputStream = InputStream(sql)
        statements: list[Statement] = []
        current: list[Any] = []
        problem: SyntaxProblem | None = None
        depth = 0
        blocks: list[str] = []  # open CASE / BEGIN keywords awaiting END
        previous_upper = ""
        last_semi: Any = None  # the ';' that ended the last statement, until the next token
        # PL/SQL: in a unit's declarations until its BEGIN; nested subprograms awaiting theirs
        declaring, nested = False, 0
        popped = ""  # the block the last END closed (END IF / END LOOP reopen it)
        while True:
            if listener.first is not None and problem is None:
                problem = listener.first
            tok = lexer.nextToken()
            if tok.type == Token.EOF:
                break
            if tok.channel != Token.DEFAULT_CHANNEL:
                continue
            if tok.type == self._semi and depth <= 0 and not blocks and not declaring:
                if current or problem:
                    statements.append(self._statement(current, problem, tok.start))
                    last_semi = tok
                current, problem, listener.first = [], None, None
                previous_upper = ";"
                nested = 0
                continue
            upper = tok.text.upper()
            if self._plsql:
                if upper == "/" and not current:  # SQL*Plus: '/' alone ends a unit
                    continue
                if (not current and upper == "DECLARE") or (
                        upper in _PLSQL_UNITS and current and current[0].text.upper() == "CREATE"
                        and all(t.text.upper() in _CREATE_PREFIX for t in current)):
                    declaring = True
                elif declaring and upper in {"FUNCTION", "PROCEDURE"}:
                    nested += 1
                elif declaring and upper in {"LANGUAGE", "EXTERNAL"} and previous_upper in {
                        "IS", "AS"}:
                    declaring = False
                elif declaring and upper == "BEGIN" and depth <= 0 and not blocks:
                    if nested:
                        nested -= 1
                    else:
                        declaring = False
            if self._compound_end:
                if previous_upper == "END" and popped and upper in _COMPOUND_ENDS:
                    blocks.append(popped)  # END IF / END LOOP / … closed no BEGIN or CASE
                popped = ""
            if upper == "ELSE" and last_semi is not None and not current:
                # IF … ; ELSE …: one statement (T-SQL, PL/SQL)
                merged = statements.pop()
                current, problem = [*merged.tokens, last_semi], merged.lexer_problem
            last_semi = None
            if tok.type in self._open:
                depth += 1
            elif tok.type in self._close:
                depth -= 1
            elif upper == "CASE" and not (self._compound_end and previous_upper == "END"):
                blocks.append("CASE")  # (END CASE closes a CASE statement)
            elif upper == "END" and blocks:
                popped = blocks.pop()
            if previous_upper == "BEGIN" and upper not in _BEGIN_TXN and upper != "END":
                blocks.append("BEGIN")
            previous_upper = upper
            current.append(tok)
        if listener.first is not None and problem is None:
            problem = listener.first
        if current or problem:
            statements.append(self._statement(current, problem, len(sql)))
        return statements

    @staticmethod
    def _statement(tokens: list[Any], problem: SyntaxProblem | None, end: int) -> Statement:
        start = tokens[0].start if tokens else end
        stop = tokens[-1].stop + 1 if tokens else end
        return Statement(tokens, start, stop, problem)

    def parse(self, tokens: list[Any]) -> SyntaxProblem | None:
        """None if the tokens form one statement of the grammar, else the first problem."""
        parser = self._parser
        parser._errHandler = BailErrorStrategy()  # stop at the first error: no recovery
        for mode in (PredictionMode.SLL, PredictionMode.LL):
            listener = _Collect()
            if mode == PredictionMode.LL:  # only the full-LL verdict is reported
                parser.addErrorListener(listener)
            parser.setTokenStream(CommonTokenStream(ListTokenSource(tokens)))
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
        symbols = [literals[i] if sym == "<INVALID>" and i < len(literals) else sym
                   for i, sym in enumerate(parser.symbolicNames)]  # keywords: literal tokens
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
    thread = threading.Thread(target=lambda: [_checker(g) for g in grammars], daemon=True,
                              name="parrot-grammar-preload")
    _PRELOADING.update(dict.fromkeys(grammars, thread))
    thread.start()


def checker(dialect: str) -> DialectChecker:
    """The process-wide warm checker for ``dialect``."""
    grammar = grammar_for(dialect)
    preloading = _PRELOADING.get(grammar)
    if preloading is not None:
        preloading.join()
    return _checker(grammar)
