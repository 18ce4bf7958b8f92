"""Fast paths through the ANTLR Python runtime for a warm checker, with the runtime's own results.

Measured on the SQLite bench queries (issue 31), a warm check spent 44% of its time in the
generated lexer (ANTLR's lexer simulator: a dozen method calls per character) and a fifth of the
parse in the token stream re-buffering tokens that are already a list. Two replacements:

- :class:`FastLexer` walks the lexer's own DFA (the prediction cache the runtime fills as it
  lexes) in one loop over the characters. It takes a token only when every step of it is an edge
  the runtime already cached and its end is decided before the end of the input, and only with
  the actions it reproduces exactly (skip, channel, type); anything else — a missing edge, a
  character above 127 (the runtime never caches those), the end of the input, an error, another
  action — is handed to the runtime's ``nextToken`` from that position, which also warms the
  DFA. The tokens are therefore the runtime's tokens: same types, channels, offsets, lines and
  columns (``tests/check/test_check_fastpath.py`` compares them on every corpus query).
- :class:`TokenList` is a ``CommonTokenStream`` over a finished list of default-channel tokens
  and the end-of-input token ``ListTokenSource`` would make, without the per-look-ahead channel
  scan and lazy fetching.
"""

from __future__ import annotations

from typing import Any

from antlr4 import CommonTokenStream, InputStream, Token  # type: ignore[import-untyped]
from antlr4.atn.LexerAction import (  # type: ignore[import-untyped]
    LexerChannelAction,
    LexerSkipAction,
    LexerTypeAction,
)
from antlr4.atn.LexerATNSimulator import LexerATNSimulator  # type: ignore[import-untyped]
from antlr4.error.Errors import IllegalStateException  # type: ignore[import-untyped]
from antlr4.Lexer import Lexer  # type: ignore[import-untyped]
from antlr4.ListTokenSource import ListTokenSource  # type: ignore[import-untyped]
from antlr4.Token import CommonToken  # type: ignore[import-untyped]

_ERROR = LexerATNSimulator.ERROR  # the lexer's "no token continues with this character" target
_MAX_EDGE = LexerATNSimulator.MAX_DFA_EDGE  # the runtime caches edges for characters 0..127
_DEFAULT = Token.DEFAULT_CHANNEL


def _outcome(state: Any) -> tuple[int, int] | None:
    """(token type, channel) of an accepting lexer DFA state as ``Lexer.nextToken`` would set
    them (type ``Lexer.SKIP`` for a skipped token), or None for actions this module leaves to
    the runtime (more, mode changes, custom actions)."""
    ttype, channel = Token.INVALID_TYPE, _DEFAULT
    executor = state.lexerActionExecutor
    for action in executor.lexerActions if executor is not None else ():
        if isinstance(action, LexerSkipAction):
            ttype = Lexer.SKIP
        elif isinstance(action, LexerTypeAction):
            ttype = action.type
        elif isinstance(action, LexerChannelAction):
            channel = action.channel
        else:
            return None
    return (state.prediction if ttype == Token.INVALID_TYPE else ttype), channel


def _token(pair: tuple[Any, Any], ttype: int, start: int, stop: int, line: int, column: int) -> Any:
    """The ``CommonToken`` the lexer's factory would make (text read from the stream)."""
    token = object.__new__(CommonToken)
    token.source, token.type, token.channel, token.start, token.stop = (
        pair,
        ttype,
        _DEFAULT,
        start,
        stop,
    )
    token.tokenIndex, token.line, token.column, token._text = -1, line, column, None
    return token


class FastLexer:
    """Lexes statements with ``lexer`` (a generated lexer, error listeners already attached),
    its warm DFA first and the runtime wherever the DFA does not decide."""

    def __init__(self, lexer: Any) -> None:
        self.lexer = lexer
        self._outcomes: dict[int, tuple[int, int] | None] = {}  # id(accepting state) -> outcome
        # when no transition of the lexer's ATN matches EOF, nothing continues a token at the end
        # of the input (the runtime's reach there is empty): the last accept state decides
        self._eof_stops = not any(
            t.matches(Token.EOF, 0, Lexer.MAX_CHAR_VALUE)
            for state in lexer.atn.states
            for t in state.transitions
        )

    def _match(self, data: list[int], pos: int) -> tuple[int, tuple[int, int]] | None:
        """(end, outcome) of the token at ``pos`` if the cached DFA decides it alone."""
        state = self.lexer._interp.decisionToDFA[Lexer.DEFAULT_MODE].s0
        if state is None:
            return None
        accept, end, i, n = None, pos, pos, len(data)
        while i < n:
            edges, char = state.edges, data[i]
            if edges is None or char > _MAX_EDGE:
                return None
            state = edges[char]
            if state is None:  # not computed yet: the runtime computes it
                return None
            if state is _ERROR:
                break
            i += 1
            if state.isAcceptState:
                accept, end = state, i
        else:
            if not self._eof_stops:
                return None
        if accept is None or end == pos:
            return None
        key = id(accept)
        if key not in self._outcomes:
            self._outcomes[key] = _outcome(accept)
        outcome = self._outcomes[key]
        return None if outcome is None else (end, outcome)

    def tokens(self, text: str, line: int, column: int) -> list[Any]:
        """The default-channel tokens of ``text``, the first starting at ``line`` (1-based) and
        ``column`` (0-based): what ``nextToken`` returns until the end of the input."""
        lexer = self.lexer
        stream = InputStream(text)
        lexer.inputStream = stream
        pair, data, interp = lexer._tokenFactorySourcePair, stream.data, lexer._interp
        out: list[Any] = []
        pos, n = 0, len(data)
        while pos < n:
            found = self._match(data, pos)
            if found is None:  # the runtime, from here: one token (after any it skips)
                stream.seek(pos)
                interp.line, interp.column, lexer._hitEOF = line, column, False
                token = lexer.nextToken()
                pos, line, column = stream.index, interp.line, interp.column
                if token.type != Token.EOF and token.channel == _DEFAULT:
                    out.append(token)
                continue
            end, (ttype, channel) = found
            if ttype != Lexer.SKIP and channel == _DEFAULT:
                out.append(_token(pair, ttype, pos, end - 1, line, column))
            newlines = text.count("\n", pos, end)
            if newlines:
                line, column = line + newlines, end - text.rfind("\n", pos, end) - 1
            else:
                column += end - pos
            pos = end
        return out


class TokenList(CommonTokenStream):
    """A parser's token stream over ``tokens`` (all on the default channel), ended by the
    end-of-input token ``ListTokenSource`` makes for them."""

    def __init__(self, tokens: list[Any]) -> None:
        source = ListTokenSource(tokens)
        super().__init__(source)
        source.pos = len(tokens)
        self.tokens = [*tokens, source.nextToken()]
        for index, token in enumerate(self.tokens):
            token.tokenIndex = index
        self.fetchedEOF = True
        self.index = 0
        self._last = len(tokens)

    def LT(self, k: int) -> Any:
        if k > 0:
            i = self.index + k - 1
            return self.tokens[i if i < self._last else self._last]
        return None if k == 0 else self.LB(-k)

    def LB(self, k: int) -> Any:
        i = self.index - k
        return None if k == 0 or i < 0 else self.tokens[i]

    def LA(self, k: int) -> int:
        return self.LT(k).type

    def consume(self) -> None:
        if self.index >= self._last:
            raise IllegalStateException("cannot consume EOF")
        self.index += 1

    def seek(self, index: int) -> None:
        self.index = index if index < self._last else self._last
