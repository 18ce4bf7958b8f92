"""Stage 3, selection: identifier normalisation, prefix clustering, coverage-guided selection, and
the type-based filter.

* **Normalise**: each statement becomes a token sequence in which table names are ``table``,
  other identifiers ``column``, literals ``value``, keywords and function names upper case, and
  runs such as ``column , column , column`` shrink to one ``column``; the statement is read by
  its dialect's lexer (:mod:`parrot.dialects.lexer`), adjacent punctuation and digits making one
  piece.
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
import sys
from collections.abc import Iterator
from dataclasses import replace
from typing import Any, Protocol

from parrot.curate.stages import ENGINE_CHUNK, Batch, Drop, Record, Stage
from parrot.curate.standardise import lexicon
from parrot.curate.verify import checker
from parrot.dialects.lexer import Token, TokenKind, tokenize

DEFAULT_PREFIX_RATIO = 0.25
DEFAULT_PATIENCE = 5
_TABLE_CONTEXT = frozenset({"FROM", "JOIN", "INTO", "UPDATE", "TABLE"})
_CLAUSE_END = frozenset(
    {
        "WHERE",
        "ON",
        "GROUP",
        "ORDER",
        "HAVING",
        "LIMIT",
        "UNION",
        "USING",
        "SET",
        "VALUES",
        "SELECT",
        "EXCEPT",
        "INTERSECT",
        "WINDOW",
        "QUALIFY",
        "OFFSET",
        "FETCH",
    }
)
_RUNS = frozenset({"column", "value"})
_NAMES = frozenset({"table", "column"})
# characters that end a run of punctuation and digits (one piece of :func:`normalise`'s input)
_RUN_BREAKS = frozenset("'\"`[;#/-")


def _keywords() -> frozenset[str]:
    from sqlglot.tokens import Tokenizer

    words = {k for key in Tokenizer.KEYWORDS for k in key.split() if k.isalpha()}
    return frozenset(
        words
        | {
            "LIMIT",
            "OFFSET",
            "TOP",
            "OVER",
            "PARTITION",
            "WITH",
            "RECURSIVE",
            "QUALIFY",
            "WINDOW",
            "ROWS",
            "RANGE",
            "PRECEDING",
            "FOLLOWING",
            "UNBOUNDED",
            "CURRENT",
            "ROW",
            "INTERVAL",
        }
    )


_KEYWORDS = _keywords()


def _pieces(tokens: list[Token]) -> list[tuple[str, str]]:
    """A statement's tokens (its dialect lexer's) as (kind, text), kind ``str``, ``qid``, ``word``,
    ``semi`` or ``other``; adjacent punctuation and numbers run together into one ``other``
    piece (``(*)``, ``>=``, ``1.5``): the clustering keys parrot has always made, with strings,
    quoted identifiers and comments as the dialect reads them."""
    out: list[tuple[str, str]] = []
    append = out.append
    end = -1
    joins = False  # the last piece is a run that the next token may extend
    string, quoted, word = TokenKind.STRING, TokenKind.QUOTED, TokenKind.WORD
    for kind, text, start, stop in tokens:
        if kind is string:
            append(("str", text))
        elif kind is quoted:
            append(("qid", text))
        elif text == ";":
            append(("semi", text))
        elif kind is word and not text[0].isdigit():
            append(("word", text))
        else:
            runs = text not in _RUN_BREAKS
            if runs and joins and start == end:
                out[-1] = ("other", out[-1][1] + text)
            else:
                append(("other", text))
            joins, end = runs, stop
            continue
        joins = False
    return out


def normalise(sql: str, dialect: str = "") -> tuple[str, ...]:
    """Identifier-normalised tokens of a canonical statement of ``dialect`` (see the module
    docstring), interned."""
    return normalise_tokens(tokenize(sql, lexicon(dialect)))


def normalise_tokens(tokens: list[Token]) -> tuple[str, ...]:
    """:func:`normalise` of a statement's tokens (:func:`parrot.dialects.lexer.tokenize`, with
    the statement's dialect's lexicon): one lexing serves this and the duplicate key."""
    pieces = _pieces(tokens)
    pieces.append(("", ""))  # the piece after the last one: no text
    out: list[str] = []
    append, pop = out.append, out.pop
    in_from = False
    for i in range(len(pieces) - 1):
        kind, text = pieces[i]
        nxt = pieces[i + 1][1]
        if kind == "word":
            upper = text.upper()
            if nxt.startswith("("):
                token = upper  # a function name is structure
            elif upper in _KEYWORDS:
                token = upper
                if token in _TABLE_CONTEXT:
                    in_from = True
                elif token in _CLAUSE_END:
                    in_from = False
            else:
                token = "table" if in_from and nxt != "." else "column"
        elif kind == "qid":
            token = "table" if in_from and nxt != "." else "column"
        elif kind == "str" or (kind == "other" and text[:1].isdigit()):
            token = "value"
        else:
            token = text.strip()
        if token == "." and out and out[-1] in _NAMES:
            pop()  # qualified names collapse: t1.id -> column
            continue
        if token in _RUNS and len(out) >= 2 and out[-1] == "," and out[-2] == token:
            pop()  # column , column -> column
            continue
        append(token)
    return tuple(map(sys.intern, out))  # one object per token text: a chunk pickles each once


class Normalise(Stage):
    """Attach the normalised token sequence to each statement."""

    name = "normalise"

    def map(self, chunk: list[Record]) -> Batch:
        return Batch([replace(r, norm=normalise(r.sql, r.dialect)) for r in chunk])


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
            out.extend(
                replace(r, cluster=f"c{number}", rank=rank) for rank, r in enumerate(members)
            )
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
        # deferred: ANTLR's runtime and generated parsers (loaded only on this path)
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


COVERAGE_SOURCES: dict[str, type[CoverageSource]] = {
    "sqlglot": SqlglotCoverage,
    "grammar": GrammarCoverage,
    "statement": StatementCoverage,
}


def coverage_source(name: str) -> CoverageSource:
    try:
        return COVERAGE_SOURCES[name]()
    except KeyError:
        raise ValueError(
            f"unknown coverage source {name!r} (known: {', '.join(sorted(COVERAGE_SOURCES))})"
        ) from None


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

    def __init__(
        self, source: str = "sqlglot", patience: int = DEFAULT_PATIENCE, limit: int | None = None
    ):
        self.source = source
        self.patience = patience
        self.limit = limit

    def params(self) -> dict[str, Any]:
        return {"coverage_source": self.source, "patience": self.patience, "limit": self.limit}

    def reduce(self, batch: Batch) -> Batch:
        out = Batch([], batch.dropped, batch.notes, batch.routed, batch.details)
        selector = Selector(self.source, self.patience, self.limit, out)
        clusters: dict[str, list[Record]] = {}
        for r in batch.records:
            clusters.setdefault(r.cluster, []).append(r)
        for members in clusters.values():
            members.sort(key=lambda r: r.rank)
            selector.cluster(iter(members), len(members))
        out.notes["coverage features"] = len(selector.covered)
        return out


class Selector:
    """The greedy walk of :class:`Coverage`, one cluster at a time in cluster order: kept
    records go to ``out.records``, the others are counted in ``out``. A cluster's members are
    pulled one by one, and none after its patience has run out (the streaming selection fetches
    them from disk on demand)."""

    def __init__(self, source: str, patience: int, limit: int | None, out: Batch):
        self.cov = coverage_source(source)
        self.patience = patience
        self.limit = limit
        self.out = out
        self.covered: set[str] = set()

    def cluster(self, members: Iterator[Record], size: int) -> None:
        """Walk one cluster of ``size`` members, longest first (``members`` yields them)."""
        out, kept = self.out, self.out.records
        misses = 0
        for position in range(size):
            if misses >= self.patience or (self.limit is not None and len(kept) >= self.limit):
                out.drop(
                    Drop.NOT_REACHED if misses >= self.patience else Drop.OVER_KEEP,
                    n=size - position,
                )
                return
            r = next(members)
            feats = r.features
            if feats is None:
                feats = self.cov.features(r.sql, r.dialect) or _UNPARSEABLE
                out.notes["features computed late"] += 1
            if feats == _UNPARSEABLE:
                out.drop(Drop.UNPARSEABLE)
                misses += 1
                continue
            new = feats - self.covered
            if not new:
                out.drop(Drop.NO_NEW_COVERAGE)
                misses += 1
                continue
            self.covered |= new
            misses = 0
            kept.append(replace(r, features=None))


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
        check = checker(self.timeout, self.max_rows)
        out = Batch([])
        for r in chunk:
            if check.runnable(r) and check.agrees(r, r.sql).ok:
                out.drop(Drop.ALREADY_VALID)
            else:
                out.records.append(r)
        return out
