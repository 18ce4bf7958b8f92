"""Keep a generated parser's warm prediction cache (ANTLR's DFA) between processes.

The Python ANTLR runtime builds its DFA while it parses: the first statements a process checks
cost seconds each (nearly all of Acc_SYN's time), later ones milliseconds. :func:`save` writes the
DFA of a parser class as plain data (``marshal``: numbers, lists and tuples, nothing executable)
to ``$PARROT_CACHE/dfa/``; :func:`load` rebuilds it in a fresh process through the runtime's own
classes, so every hash is recomputed here. The DFA only caches predictions the ATN implies, so a
loaded cache changes how fast a statement is checked, never its verdict. The file is keyed by the
runtime version and the generated parser's source hash: a regenerated grammar starts cold.

A first run on a new machine starts from the *seed* shipped in ``parrot/check/dfa/`` (the same
data, xz-compressed, warmed by ``scripts/build_dfa_seed.py`` on the shipped datasets' sources,
references and sqlglot's translations of them), when its key matches the installed parser.
"""

from __future__ import annotations

import hashlib
import inspect
import lzma
import marshal
import os
import threading
from collections.abc import Callable
from functools import cache
from importlib.metadata import version
from pathlib import Path
from typing import Any

from antlr4.atn.ATNConfig import ATNConfig  # type: ignore[import-untyped]
from antlr4.atn.ATNConfigSet import ATNConfigSet  # type: ignore[import-untyped]
from antlr4.atn.ATNSimulator import ATNSimulator  # type: ignore[import-untyped]
from antlr4.atn.SemanticContext import (  # type: ignore[import-untyped]
    AND,
    OR,
    PrecedencePredicate,
    Predicate,
    SemanticContext,
)
from antlr4.dfa.DFA import DFA  # type: ignore[import-untyped]
from antlr4.dfa.DFAState import DFAState, PredPrediction  # type: ignore[import-untyped]
from antlr4.PredictionContext import (  # type: ignore[import-untyped]
    ArrayPredictionContext,
    EmptyPredictionContext,
    PredictionContext,
    SingletonPredictionContext,
)

from parrot.servers.base import cache_dir

FORMAT = 1
MAX_STATES = 20_000  # a parser's DFA larger than this (about 100 MB on disk) is not kept
SEED_DIR = Path(__file__).with_name("dfa")


@cache
def _runtime() -> str:
    return version("antlr4-python3-runtime")


def cache_file(parser_cls: type[Any]) -> Path:
    """Where the DFA of ``parser_cls`` is kept (per runtime version and generated source)."""
    source = inspect.getsourcefile(parser_cls)
    digest = hashlib.sha256(Path(source or "").read_bytes()).hexdigest()[:16]
    return cache_dir() / "dfa" / f"{parser_cls.__name__}-{_runtime()}-{FORMAT}-{digest}.marshal"


def seed_file(parser_cls: type[Any]) -> Path:
    """The shipped seed of ``parrot/check/dfa/`` for ``parser_cls`` (same key as its cache)."""
    return SEED_DIR / f"{cache_file(parser_cls).name}.xz"


def state_count(parser_cls: type[Any]) -> int:
    """DFA states the class holds now (to tell whether parsing added any since a load)."""
    return sum(
        dfa.kept
        if getattr(dfa, "pending", None) is not None or getattr(dfa, "unlisted", None) is not None
        else len(dfa._states)
        for dfa in parser_cls.decisionsToDFA
    )


class _Writer:
    """Numbers the shared objects (contexts, semantic contexts, DFA states) of one parser."""

    def __init__(self) -> None:
        self.contexts: list[Any] = []
        self._context_ids: dict[int, int] = {}
        self.semantics: list[Any] = []
        self._semantic_ids: dict[int, int] = {}
        self._keep: list[Any] = []  # the objects numbered by id(): alive while numbering

    def _numbered(
        self, ids: dict[int, int], table: list[Any], obj: Any, entry: Callable[[Any], Any]
    ) -> int:
        """``obj``'s number in ``table``: the first time, ``entry(obj)`` (which numbers what it
        refers to first) is appended."""
        key = id(obj)
        if key not in ids:
            made = entry(obj)
            ids[key] = len(table)
            table.append(made)
            self._keep.append(obj)
        return ids[key]

    def context(self, ctx: Any) -> int:
        if ctx is None:
            return -1
        if isinstance(ctx, EmptyPredictionContext):
            return -2
        return self._numbered(self._context_ids, self.contexts, ctx, self._context_entry)

    def _context_entry(self, ctx: Any) -> Any:
        if isinstance(ctx, ArrayPredictionContext):
            return ("a", [self.context(p) for p in ctx.parents], list(ctx.returnStates))
        if isinstance(ctx, SingletonPredictionContext):
            return ("s", self.context(ctx.parentCtx), ctx.returnState)
        raise TypeError(f"unknown prediction context {type(ctx).__name__}")

    def semantic(self, sem: Any) -> int:
        if sem is SemanticContext.NONE:
            return -1
        return self._numbered(self._semantic_ids, self.semantics, sem, self._semantic_entry)

    def _semantic_entry(self, sem: Any) -> Any:
        if isinstance(sem, Predicate):
            return ("p", sem.ruleIndex, sem.predIndex, sem.isCtxDependent)
        if isinstance(sem, PrecedencePredicate):
            return ("r", sem.precedence)
        if isinstance(sem, AND | OR):
            return ("&" if isinstance(sem, AND) else "|", [self.semantic(o) for o in sem.opnds])
        raise TypeError(f"unknown semantic context {type(sem).__name__}")

    def configs(self, configs: Any) -> Any:
        return (
            configs.fullCtx,
            configs.readonly,
            configs.uniqueAlt,
            sorted(configs.conflictingAlts) if configs.conflictingAlts is not None else None,
            configs.hasSemanticContext,
            configs.dipsIntoOuterContext,
            [
                (
                    c.state.stateNumber,
                    c.alt,
                    self.context(c.context),
                    self.semantic(c.semanticContext),
                    c.reachesIntoOuterContext,
                    c.precedenceFilterSuppressed,
                )
                for c in configs.configs
            ],
        )


def save(parser_cls: type[Any]) -> Path:
    """Write the DFA of ``parser_cls`` to its cache file (atomically); returns the path."""
    writer = _Writer()
    dfas = []
    for dfa in parser_cls.decisionsToDFA:
        states = list(dfa._states)
        if dfa.s0 is not None and dfa.s0 not in dfa._states:  # a precedence DFA's start
            states.append(dfa.s0)
        ids = {id(s): n for n, s in enumerate(states)}
        ids[id(ATNSimulator.ERROR)] = -2

        def ref(state: Any, ids: dict[int, int] = ids) -> int:
            return -1 if state is None else ids[id(state)]

        dfas.append(
            (
                ref(dfa.s0),
                dfa.precedenceDfa,
                [
                    (
                        s.stateNumber,
                        writer.configs(s.configs),
                        None if s.edges is None else [ref(e) for e in s.edges],
                        s.isAcceptState,
                        s.prediction,
                        s.requiresFullContext,
                        None
                        if s.predicates is None
                        else [(writer.semantic(p.pred), p.alt) for p in s.predicates],
                        s in dfa._states,
                    )
                    for s in states
                ],
            )
        )
    path = cache_file(parser_cls)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_bytes(marshal.dumps((FORMAT, writer.contexts, writer.semantics, dfas)))
    os.replace(tmp, path)
    return path


def load(parser_cls: type[Any]) -> bool:
    """Replace the (cold) DFA of ``parser_cls`` with its cached one, or else with the shipped
    seed; False when neither can be read (the parser then warms as usual). The shared prediction
    and semantic contexts are rebuilt now; each decision's DFA states only when the parser first
    predicts that decision (:class:`_LazyDFA`): a run that checks a few statements pays for the
    decisions they reach, not for all of them."""
    try:
        data = cache_file(parser_cls).read_bytes()
    except OSError:
        try:
            data = lzma.decompress(seed_file(parser_cls).read_bytes())
        except (OSError, lzma.LZMAError):
            return False
    try:
        version, contexts, semantics, dfas = marshal.loads(data)
    except (ValueError, EOFError, TypeError):
        return False
    if version != FORMAT or len(dfas) != len(parser_cls.decisionsToDFA):
        return False
    shared = _Shared(parser_cls.atn.states, contexts, semantics)
    table = parser_cls.decisionsToDFA  # the list every parser's simulator indexes
    for index, (dfa, entry) in enumerate(zip(table, dfas, strict=True)):
        table[index] = _LazyDFA(dfa, entry, shared)
    return True


# held while a lazily kept decision or state is rebuilt (re-entrant: building a decision's table of
# states rebuilds its states' configuration sets)
_FILLING = threading.RLock()


class _Shared:
    """The rebuilt prediction and semantic contexts of one parser's cache, which the states of
    every decision refer to by number."""

    def __init__(self, atn_states: list[Any], contexts: list[Any], semantics: list[Any]) -> None:
        self.atn_states = atn_states
        self.ctx: list[Any] = []
        for entry in contexts:  # parents are numbered before their children
            if entry[0] == "a":
                self.ctx.append(
                    ArrayPredictionContext([self.context(p) for p in entry[1]], entry[2])
                )
            else:
                self.ctx.append(SingletonPredictionContext.create(self.context(entry[1]), entry[2]))
        self.sem: list[Any] = []
        for entry in semantics:
            if entry[0] == "p":
                self.sem.append(Predicate(entry[1], entry[2], entry[3]))
            elif entry[0] == "r":
                self.sem.append(PrecedencePredicate(entry[1]))
            else:
                combined = object.__new__(AND if entry[0] == "&" else OR)
                combined.opnds = [self.semantic(o) for o in entry[1]]
                self.sem.append(combined)

    def context(self, n: int) -> Any:
        return None if n == -1 else PredictionContext.EMPTY if n == -2 else self.ctx[n]

    def semantic(self, n: int) -> Any:
        return SemanticContext.NONE if n == -1 else self.sem[n]

    def configs(self, data: Any) -> Any:
        full, readonly, unique, conflicting, has_sem, dips, items = data
        out = ATNConfigSet(full)
        built = out.configs
        new, atn_states, context, semantic = (
            object.__new__,
            self.atn_states,
            self.context,
            self.semantic,
        )
        for state, alt, c, s, reaches, suppressed in items:
            config = new(ATNConfig)
            config.state = atn_states[state]
            config.alt = alt
            config.context = context(c)
            config.semanticContext = semantic(s)
            config.reachesIntoOuterContext = reaches
            config.precedenceFilterSuppressed = suppressed
            built.append(config)
        if readonly:  # the runtime drops the lookup table of a read-only set
            out.setReadonly(True)
        else:
            for config in built:
                out.getOrAdd(config)
        out.uniqueAlt = unique
        out.conflictingAlts = set(conflicting) if conflicting is not None else None
        out.hasSemanticContext = has_sem
        out.dipsIntoOuterContext = dips
        return out

    def fill(self, dfa: Any, entry: Any) -> list[tuple[Any, bool]]:
        """Give ``dfa`` the start state and precedence flag of its cache ``entry``, and its
        states with their edges; returns each state with whether the runtime's table of states
        holds it (that table is built on its first read: :class:`_LazyDFA`). A state's
        configuration set is rebuilt on its first read (:class:`_CachedState`)."""
        s0, precedence, states = entry
        built = []
        for number, data, _edges, accept, prediction, full_ctx, predicates, _kept in states:
            state: Any = _CachedState(number, data, self)
            state.isAcceptState = accept
            state.prediction = prediction
            state.requiresFullContext = full_ctx
            if predicates is not None:
                state.predicates = [PredPrediction(self.semantic(p), alt) for p, alt in predicates]
            built.append(state)

        # a target's number indexes this list: -1 (none) and -2 (the error state) from its end
        target = [*built, ATNSimulator.ERROR, None].__getitem__
        for state, row in zip(built, states, strict=True):
            if row[2] is not None:
                state.edges = list(map(target, row[2]))
        dfa.precedenceDfa = precedence
        dfa.s0 = target(s0)
        return [(state, bool(row[7])) for state, row in zip(built, states, strict=True)]


class _CachedState(DFAState):
    """A DFA state of a kept cache whose configuration set is rebuilt when first read: a
    prediction that follows the kept edges reads none (only a state that needs full context, a
    conflict or a new edge does), and rebuilding every state's set was most of a check's first
    statement (DuckDB: 2.4 of 2.5 CPU-s for the 10 translations a starter run checks)."""

    __slots__ = ("_data", "_shared")

    def __init__(self, number: int, data: Any, shared: _Shared) -> None:
        super().__init__(number, None)
        del self.configs  # unset: its first read rebuilds it (__getattr__)
        self._data = data
        self._shared = shared

    def __getattr__(self, name: str) -> Any:  # only reached while ``configs`` is unset
        if name != "configs":
            raise AttributeError(name)
        with _FILLING:
            try:
                return object.__getattribute__(self, "configs")  # another thread built it
            except AttributeError:
                configs = self._shared.configs(self._data)
                object.__setattr__(self, "configs", configs)
                return configs


class _LazyDFA(DFA):
    """A decision's DFA whose cached states are rebuilt on first use: until then it lacks the
    attributes the runtime reads (``s0``, ``_states``, ``precedenceDfa``). The first read of
    ``s0`` or ``precedenceDfa`` builds the states and their edges; the table of states
    (``_states``, keyed by each state's configuration set, so building it rebuilds every set)
    only when it is read: when a prediction adds a state, or the cache is saved."""

    def __init__(self, cold: Any, entry: Any, shared: _Shared) -> None:  # no DFA.__init__
        self.atnStartState = cold.atnStartState
        self.decision = cold.decision
        self.pending: tuple[Any, _Shared] | None = (entry, shared)
        self.unlisted: list[tuple[Any, bool]] | None = None  # states not yet in ``_states``
        self.kept = sum(1 for state in entry[2] if state[7])

    def __getattr__(self, name: str) -> Any:  # only reached while the attribute is missing
        if name not in ("s0", "_states", "precedenceDfa"):
            raise AttributeError(name)
        with _FILLING:
            pending = self.pending
            if pending is not None:
                self.unlisted = pending[1].fill(self, pending[0])
                self.pending = None
            if name == "_states" and self.unlisted is not None:
                self._states = {state: state for state, kept in self.unlisted if kept}
                self.unlisted = None
        return object.__getattribute__(self, name)  # DFA's attributes are slots
