"""Stage 3, selection: identifier normalisation, prefix clustering, coverage-guided selection, and
the type-based filter.

* **Normalise**: each statement becomes a token sequence in which table names are ``table``,
  other identifiers ``column``, literals ``value``, keywords and function names upper case, and
  runs such as ``column , column , column`` shrink to one ``column``.
* **Cluster**: statements (of one dialect) sharing the first ``ceil(ratio × length)`` normalised
  tokens form a cluster; inside it the longest statement comes first.
* **Coverage**: cluster by cluster, a statement is kept only if it exercises a parser feature
  no kept statement has exercised; after ``patience`` non-improving statements the rest of the
  cluster is skipped. Features come from a pluggable :class:`CoverageSource` (``sqlglot``:
  expression node types and the parser slots they fill; parrot's ANTLR grammars will provide rule
  coverage through the same interface).
* **Type filter** (after test data exists): a pair whose source already runs on the target engine
  with the same result on every round of test data needs no translation and is dropped.
"""

from __future__ import annotations

import math
import re
import sys
from dataclasses import replace
from typing import Any, Protocol

from parrot.curate.stages import ENGINE_CHUNK, Batch, Drop, Record, Stage

DEFAULT_PREFIX_RATIO = 0.25
DEFAULT_PATIENCE = 5
_TABLE_CONTEXT = frozenset({"FROM", "JOIN", "INTO", "UPDATE", "TABLE"})
_CLAUSE_END = frozenset({"WHERE", "ON", "GROUP", "ORDER", "HAVING", "LIMIT", "UNION", "USING",
                         "SET", "VALUES", "SELECT", "EXCEPT", "INTERSECT", "WINDOW", "QUALIFY",
                         "OFFSET", "FETCH"})
_RUNS = frozenset({"column", "value"})
# the pieces :func:`normalise` reads in a canonical statement. Not the dialect lexer
# (parrot.dialects.lexer): clustering keys were made with this one, and the lexer's pieces differ
# (numbers, runs of punctuation); moving normalise onto it changes which statements selection keeps
_PIECE = re.compile(
    r"""(?P<str>'(?:[^']|'')*'?)"""
    r"""|(?P<qid>"(?:[^"]|"")*"?|`(?:[^`]|``)*`?|\[[^\]\n]*\])"""
    r"""|(?P<line>--[^\n]*|\#[^\n]*)"""
    r"""|(?P<block>/\*.*?(?:\*/|\Z))"""
    r"""|(?P<ws>\s+)"""
    r"""|(?P<semi>;)"""
    r"""|(?P<word>[A-Za-z_][A-Za-z0-9_$]*)"""
    r"""|(?P<other>[^'"`\[\s;A-Za-z_#/-]+|[/#\[-])""", re.DOTALL)


def _keywords() -> frozenset[str]:
    from sqlglot.tokens import Tokenizer

    words = {k for key in Tokenizer.KEYWORDS for k in key.split() if k.isalpha()}
    return frozenset(words | {"LIMIT", "OFFSET", "TOP", "OVER", "PARTITION", "WITH", "RECURSIVE",
                              "QUALIFY", "WINDOW", "ROWS", "RANGE", "PRECEDING", "FOLLOWING",
                              "UNBOUNDED", "CURRENT", "ROW", "INTERVAL"})


_KEYWORDS = _keywords()


def normalise(sql: str) -> tuple[str, ...]:
    """Identifier-normalised tokens of a canonical statement (see the module docstring),
    interned."""
    pieces = [(m.lastgroup, m.group()) for m in _PIECE.finditer(sql)
              if m.lastgroup not in ("ws", "line", "block")]
    out: list[str] = []
    in_from = False
    for i, (kind, text) in enumerate(pieces):
        nxt = pieces[i + 1][1] if i + 1 < len(pieces) else ""
        if kind == "word" and nxt.startswith("("):
            token = text.upper()  # a function name is structure
        elif kind == "word" and text.upper() in _KEYWORDS:
            token = text.upper()
            if token in _TABLE_CONTEXT:
                in_from = True
            elif token in _CLAUSE_END:
                in_from = False
        elif kind in ("word", "qid"):
            token = "table" if in_from and nxt != "." else "column"
        elif kind == "str" or (kind == "other" and text[:1].isdigit()):
            token = "value"
        else:
            token = text.strip()
        if token == "." and out and out[-1] in ("table", "column"):
            out.pop()  # qualified names collapse: t1.id -> column
            continue
        if (token in _RUNS and len(out) >= 2 and out[-1] == "," and out[-2] == token):
            out.pop()  # column , column -> column
            continue
        out.append(token)
    return tuple(map(sys.intern, out))  # one object per token text: a chunk pickles each once


class Normalise(Stage):
    """Attach the normalised token sequence to each statement."""

    name = "normalise"

    def map(self, chunk: list[Record]) -> Batch:
        return Batch([replace(r, norm=normalise(r.sql)) for r in chunk])


class Cluster(Stage):
    """Prefix clustering: the cluster key is the first ``ceil(ratio × n)`` normalised tokens."""

    name = "cluster"
    chunked = False

    def __init__(self, ratio: float = DEFAULT_PREFIX_RATIO):
        if not 0 < ratio <= 1:
            raise ValueError("the prefix ratio must be in (0, 1]")
        self.ratio = ratio

    def params(self) -> dict[str, Any]:
        return {"prefix_ratio": self.ratio}

    def reduce(self, batch: Batch) -> Batch:
        groups: dict[str, list[Record]] = {}
        for r in batch.records:
            n = max(1, math.ceil(self.ratio * len(r.norm)))
            key = r.dialect + "\x1f" + " ".join(r.norm[:n])
            groups.setdefault(key, []).append(r)
        out: list[Record] = []
        for number, members in enumerate(groups.values()):
            members.sort(key=lambda r: (-len(r.sql), r.id))  # longest first
            out.extend(replace(r, cluster=f"c{number}", rank=rank)
                       for rank, r in enumerate(members))
        batch.notes["clusters"] = len(groups)
        return Batch(out, batch.dropped, batch.notes, batch.routed, batch.details)


# --- coverage -------------------------------------------------------------------------------------

class CoverageSource(Protocol):
    """Parser features a statement exercises (None when the parser rejects it)."""

    name: str

    def features(self, sql: str, dialect: str) -> frozenset[str] | None: ...


class SqlglotCoverage:
    """sqlglot's parser: expression node types, which slot of which parent each fills
    (``Select.where>Where``) and under which grandparent, plus data type and unknown-function
    names."""

    name = "sqlglot"

    def features(self, sql: str, dialect: str) -> frozenset[str] | None:
        import sqlglot
        from sqlglot import exp
        from sqlglot.errors import SqlglotError

        try:
            trees = [t for t in sqlglot.parse(sql, read=dialect) if t is not None]
        except (SqlglotError, RecursionError, ValueError):
            return None
        if not trees:
            return None
        found: set[str] = set()
        for tree in trees:
            for node in tree.walk():
                kind = type(node).__name__
                found.add(kind)
                parent = node.parent
                if parent is not None:
                    slot = f"{type(parent).__name__}.{node.arg_key}>{kind}"
                    found.add(slot)
                    if parent.parent is not None:  # paths of three: the context of a slot
                        found.add(f"{type(parent.parent).__name__}>{slot}")
                if isinstance(node, exp.Anonymous):
                    found.add(f"Anonymous:{node.name.upper()}")
                elif isinstance(node, exp.DataType):
                    found.add(f"DataType:{node.this}")
        return frozenset(f"{dialect}:{f}" for f in found)


class GrammarCoverage:
    """parrot's own grammar of the dialect (:mod:`parrot.check`): the rules and alternatives a
    statement's parse tree exercises; sqlglot's features for dialects without a grammar."""

    name = "grammar"

    def __init__(self) -> None:
        self._fallback = SqlglotCoverage()

    def features(self, sql: str, dialect: str) -> frozenset[str] | None:
        from parrot.check import UnsupportedDialectError
        from parrot.check.parsers import checker

        try:
            chk = checker(dialect)
        except UnsupportedDialectError:
            return self._fallback.features(sql, dialect)
        found: set[str] = set()
        statements = chk.split(sql)
        for stmt in statements:
            rules = None if stmt.lexer_problem else chk.rules_used(stmt.tokens)
            if rules is None:
                return None
            found |= rules
        return frozenset(f"{dialect}:{f}" for f in found) if statements else None


class StatementCoverage(SqlglotCoverage):
    """sqlglot's features plus the statement itself: every statement sqlglot parses adds
    coverage, so selection keeps them all (the simple variant's default: many items)."""

    name = "statement"

    def features(self, sql: str, dialect: str) -> frozenset[str] | None:
        found = super().features(sql, dialect)
        return None if found is None else found | {f"{dialect}:statement:{sql}"}


COVERAGE_SOURCES: dict[str, type[CoverageSource]] = {"sqlglot": SqlglotCoverage,
                                                     "grammar": GrammarCoverage,
                                                     "statement": StatementCoverage}


def coverage_source(name: str) -> CoverageSource:
    try:
        return COVERAGE_SOURCES[name]()
    except KeyError:
        raise ValueError(f"unknown coverage source {name!r} "
                         f"(known: {', '.join(sorted(COVERAGE_SOURCES))})") from None


class Features(Stage):
    """Coverage features of the statements the selection will look at first (in workers): the
    first ``window`` of every cluster. Later ones are computed on demand by :class:`Coverage`."""

    name = "features"

    def __init__(self, source: str = "sqlglot", window: int = DEFAULT_PATIENCE + 1):
        self.source = source
        self.window = window

    def params(self) -> dict[str, Any]:
        return {"coverage_source": self.source, "window": self.window}

    def map(self, chunk: list[Record]) -> Batch:
        cov = coverage_source(self.source)
        out = Batch([])
        for r in chunk:
            if r.rank < self.window:
                feats = cov.features(r.sql, r.dialect)
                r = replace(r, features=feats if feats is not None else frozenset({"\x00"}))
            out.records.append(r)
        return out


_UNPARSEABLE = frozenset({"\x00"})


class Coverage(Stage):
    """Greedy coverage-guided selection, cluster by cluster, longest first."""

    name = "coverage"
    chunked = False

    def __init__(self, source: str = "sqlglot", patience: int = DEFAULT_PATIENCE,
                 limit: int | None = None):
        self.source = source
        self.patience = patience
        self.limit = limit

    def params(self) -> dict[str, Any]:
        return {"coverage_source": self.source, "patience": self.patience, "limit": self.limit}

    def reduce(self, batch: Batch) -> Batch:
        cov = coverage_source(self.source)
        covered: set[str] = set()
        kept: list[Record] = []
        out = Batch(kept, batch.dropped, batch.notes, batch.routed, batch.details)
        clusters: dict[str, list[Record]] = {}
        for r in batch.records:
            clusters.setdefault(r.cluster, []).append(r)
        for members in clusters.values():
            members.sort(key=lambda r: r.rank)
            misses = 0
            for position, r in enumerate(members):
                if misses >= self.patience or (self.limit is not None
                                               and len(kept) >= self.limit):
                    out.drop(Drop.NOT_REACHED if misses >= self.patience else Drop.OVER_KEEP,
                             n=len(members) - position)
                    break
                feats = r.features
                if feats is None:
                    feats = cov.features(r.sql, r.dialect) or _UNPARSEABLE
                    out.notes["features computed late"] += 1
                if feats == _UNPARSEABLE:
                    out.drop(Drop.UNPARSEABLE)
                    misses += 1
                    continue
                new = feats - covered
                if not new:
                    out.drop(Drop.NO_NEW_COVERAGE)
                    misses += 1
                    continue
                covered |= new
                misses = 0
                kept.append(replace(r, features=None))
        out.notes["coverage features"] = len(covered)
        return out


# --- type-based filter ----------------------------------------------------------------------------

class TypeFilter(Stage):
    """Drop pairs whose source already behaves the same on the target engine, on every round of
    test data (nothing to translate). Pairs without an engine on either side pass untouched."""

    name = "type_filter"
    max_chunk = ENGINE_CHUNK

    def __init__(self, timeout: float, max_rows: int):
        self.timeout = timeout
        self.max_rows = max_rows

    def params(self) -> dict[str, Any]:
        return {"identity_check": "execution on every round", "timeout": self.timeout}

    def map(self, chunk: list[Record]) -> Batch:
        from parrot.curate.verify import checker

        check = checker(self.timeout, self.max_rows)
        out = Batch([])
        for r in chunk:
            if check.runnable(r) and check.agrees(r, r.sql).ok:
                out.drop(Drop.ALREADY_VALID)
            else:
                out.records.append(r)
        return out
