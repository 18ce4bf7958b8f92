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
    return sum(len(dfa._states) for dfa in parser_cls.decisionsToDFA)


class _Writer:
    """Numbers the shared objects (contexts, semantic contexts, DFA states) of one parser."""

    def __init__(self) -> None:
        self.contexts: list[Any] = []
        self._context_ids: dict[int, int] = {}
        self.semantics: list[Any] = []
        self._semantic_ids: dict[int, int] = {}
        self._keep: list[Any] = []  # the objects numbered by id(): alive while numbering

    def context(self, ctx: Any) -> int:
        if ctx is None:
            return -1
        if isinstance(ctx, EmptyPredictionContext):
            return -2
        key = id(ctx)
        if key not in self._context_ids:
            if isinstance(ctx, ArrayPredictionContext):
                entry: Any = ("a", [self.context(p) for p in ctx.parents],
                              list(ctx.returnStates))
            elif isinstance(ctx, SingletonPredictionContext):
                entry = ("s", self.context(ctx.parentCtx), ctx.returnState)
            else:
                raise TypeError(f"unknown prediction context {type(ctx).__name__}")
            self._context_ids[key] = len(self.contexts)
            self.contexts.append(entry)
            self._keep.append(ctx)
        return self._context_ids[key]

    def semantic(self, sem: Any) -> int:
        if sem is SemanticContext.NONE:
            return -1
        key = id(sem)
        if key not in self._semantic_ids:
            if isinstance(sem, Predicate):
                entry: Any = ("p", sem.ruleIndex, sem.predIndex, sem.isCtxDependent)
            elif isinstance(sem, PrecedencePredicate):
                entry = ("r", sem.precedence)
            elif isinstance(sem, AND | OR):
                entry = ("&" if isinstance(sem, AND) else "|",
                         [self.semantic(o) for o in sem.opnds])
            else:
                raise TypeError(f"unknown semantic context {type(sem).__name__}")
            self._semantic_ids[key] = len(self.semantics)
            self.semantics.append(entry)
            self._keep.append(sem)
        return self._semantic_ids[key]

    def configs(self, configs: Any) -> Any:
        return (configs.fullCtx, configs.readonly, configs.uniqueAlt,
                sorted(configs.conflictingAlts) if configs.conflictingAlts is not None else None,
                configs.hasSemanticContext, configs.dipsIntoOuterContext,
                [(c.state.stateNumber, c.alt, self.context(c.context),
                  self.semantic(c.semanticContext), c.reachesIntoOuterContext,
                  c.precedenceFilterSuppressed) for c in configs.configs])


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

        dfas.append((ref(dfa.s0), dfa.precedenceDfa, [
            (s.stateNumber, writer.configs(s.configs),
             None if s.edges is None else [ref(e) for e in s.edges],
             s.isAcceptState, s.prediction, s.requiresFullContext,
             None if s.predicates is None else [(writer.semantic(p.pred), p.alt)
                                                for p in s.predicates],
             s in dfa._states)
            for s in states]))
    path = cache_file(parser_cls)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_bytes(marshal.dumps((FORMAT, writer.contexts, writer.semantics, dfas)))
    os.replace(tmp, path)
    return path


def _read(parser_cls: type[Any]) -> Any:
    """The kept DFA of ``parser_cls`` as saved (cache, else shipped seed), or None when neither
    can be read or it was saved for another format or grammar."""
    try:
        data = cache_file(parser_cls).read_bytes()
    except OSError:
        try:
            data = lzma.decompress(seed_file(parser_cls).read_bytes())
        except (OSError, lzma.LZMAError):
            return None
    try:
        version, contexts, semantics, dfas = marshal.loads(data)
    except (ValueError, EOFError, TypeError):
        return None
    if version != FORMAT or len(dfas) != len(parser_cls.decisionsToDFA):
        return None
    return contexts, semantics, dfas


def _contexts(entries: list[Any]) -> Callable[[int], Any]:
    """The prediction contexts, rebuilt; the function maps a saved number to its context."""
    ctx: list[Any] = []

    def context(n: int) -> Any:
        return None if n == -1 else PredictionContext.EMPTY if n == -2 else ctx[n]

    for entry in entries:  # parents are numbered before their children
        if entry[0] == "a":
            ctx.append(ArrayPredictionContext([context(p) for p in entry[1]], entry[2]))
        else:
            ctx.append(SingletonPredictionContext.create(context(entry[1]), entry[2]))
    return context


def _semantics(entries: list[Any]) -> Callable[[int], Any]:
    """The semantic contexts, rebuilt; the function maps a saved number to its context."""
    sem: list[Any] = []

    def semantic(n: int) -> Any:
        return SemanticContext.NONE if n == -1 else sem[n]

    for entry in entries:
        if entry[0] == "p":
            sem.append(Predicate(entry[1], entry[2], entry[3]))
        elif entry[0] == "r":
            sem.append(PrecedencePredicate(entry[1]))
        else:
            combined = object.__new__(AND if entry[0] == "&" else OR)
            combined.opnds = [semantic(o) for o in entry[1]]
            sem.append(combined)
    return semantic


def _configs(data: Any, atn_states: list[Any], context: Callable[[int], Any],
             semantic: Callable[[int], Any]) -> Any:
    """One DFA state's ATN configuration set, rebuilt."""
    full, readonly, unique, conflicting, has_sem, dips, items = data
    out = ATNConfigSet(full)
    built = out.configs
    new = object.__new__
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


def load(parser_cls: type[Any]) -> bool:
    """Replace the (cold) DFA of ``parser_cls`` with its cached one, or else with the shipped
    seed; False when neither can be read (the parser then warms as usual)."""
    kept = _read(parser_cls)
    if kept is None:
        return False
    contexts, semantics, dfas = kept
    atn_states = parser_cls.atn.states
    context, semantic = _contexts(contexts), _semantics(semantics)
    for dfa, (s0, precedence, states) in zip(parser_cls.decisionsToDFA, dfas, strict=True):
        built = []
        for number, data, _edges, accept, prediction, full_ctx, predicates, _kept in states:
            state = DFAState(number, _configs(data, atn_states, context, semantic))
            state.isAcceptState = accept
            state.prediction = prediction
            state.requiresFullContext = full_ctx
            if predicates is not None:
                state.predicates = [PredPrediction(semantic(p), alt) for p, alt in predicates]
            built.append(state)

        def target(n: int, built: list[Any] = built) -> Any:
            return None if n == -1 else ATNSimulator.ERROR if n == -2 else built[n]

        dfa._states = {}
        for state, entry in zip(built, states, strict=True):
            if entry[2] is not None:
                state.edges = [target(e) for e in entry[2]]
            if entry[7]:
                dfa._states[state] = state
        dfa.precedenceDfa = precedence
        dfa.s0 = target(s0)
    return True
