"""Facts about a SQL text read from its AST (never from searching the text).

The comparator needs to know whether the source query orders its result at the top level and, if
so, which values rows are sorted on, so that rows tied on the sort keys can be compared as a
multiset. ``ORDER BY`` inside window functions, subqueries or CTEs does not count.

Each function is a pure function of its SQL text and dialect and is memoized: a judge asks the
same questions of a source on the fixture and on every database of its test suite. Callers must
not modify the expressions an :class:`OrderFacts` holds.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

SORT_KEY_PREFIX = "__parrot_sort_key_"
MEMO = 4096  # SQL texts remembered per function


@dataclass(frozen=True)
class OrderFacts:
    """Top-level ordering of a query's result."""

    ordered: bool  # the last statement has a top-level ORDER BY
    keys: tuple[exp.Expr, ...] = ()  # its sort expressions, in order
    projections: tuple[exp.Expr, ...] = ()  # the select list (empty for set operations)
    has_star: bool = False
    limited: bool = False  # LIMIT / FETCH / TOP on the ordered query


@lru_cache(maxsize=MEMO)
def _statements(sql: str, dialect: str) -> tuple[exp.Expr, ...]:
    """The parsed statements of ``sql`` (empty when sqlglot cannot parse it), parsed once per
    distinct text: shared by every caller, so read-only — whoever rewrites one copies it."""
    try:
        return tuple(s for s in sqlglot.parse(sql, read=dialect) if s is not None)
    except SqlglotError:
        return ()


def statements(sql: str, dialect: str) -> tuple[exp.Expr, ...]:
    """The parse every fact reads (memoized, read-only), for other readers of the same text: a
    run's report reads its sources' features from the trees its judge parsed."""
    return _statements(sql, dialect)


def _render(statements: tuple[exp.Expr, ...], last: exp.Expr, dialect: str) -> str | None:
    """``statements`` with the last one replaced by ``last``, as SQL text (None on failure)."""
    try:
        return ";\n".join(
            [*(s.sql(dialect=dialect) for s in statements[:-1]), last.sql(dialect=dialect)]
        )
    except SqlglotError:
        return None


def _last_statement(sql: str, dialect: str) -> exp.Expr | None:
    statements = _statements(sql, dialect)
    if not statements:
        return None
    node = statements[-1]
    while isinstance(node, exp.Subquery | exp.Paren) and not node.args.get("order"):
        node = node.this
    return node


@lru_cache(maxsize=MEMO)
def order_facts(sql: str, dialect: str) -> OrderFacts:
    """Whether ``sql`` (its last statement) orders its result at the top level, and by what."""
    node = _last_statement(sql, dialect)
    if node is None:
        return OrderFacts(ordered=False)
    order = node.args.get("order")
    if not isinstance(order, exp.Order) or not order.expressions:
        return OrderFacts(ordered=False)
    keys = tuple(o.this if isinstance(o, exp.Ordered) else o for o in order.expressions)
    projections: tuple[exp.Expr, ...] = ()
    if isinstance(node, exp.Select):
        projections = tuple(node.expressions)
    limited = bool(node.args.get("limit") or node.args.get("fetch"))
    has_star = any(
        isinstance(p, exp.Star) or (isinstance(p, exp.Column) and p.is_star) for p in projections
    )
    return OrderFacts(True, keys, projections, has_star, limited)


def sort_key_columns(facts: OrderFacts, result_columns: tuple[str, ...]) -> tuple[int, ...] | None:
    """Indexes of the result columns holding each sort key, or None if some key is not output.

    A key maps to a column when it is an ordinal (``ORDER BY 2``), names an output alias or
    column, or is the same expression as a projection.
    """
    lowered = [c.lower() for c in result_columns]
    indexes: list[int] = []
    for key in facts.keys:
        index = _key_index(key, facts, lowered)
        if index is None:
            return None
        indexes.append(index)
    return tuple(indexes)


def _key_index(key: exp.Expr, facts: OrderFacts, lowered: list[str]) -> int | None:
    if isinstance(key, exp.Literal) and not key.is_string:
        n = int(key.this) if str(key.this).isdigit() else 0
        return n - 1 if 1 <= n <= len(lowered) else None
    if not facts.has_star:
        for i, projection in enumerate(facts.projections):
            inner = projection.this if isinstance(projection, exp.Alias) else projection
            if inner == key:
                return i
            if (
                isinstance(key, exp.Column)
                and not key.table
                and projection.alias_or_name.lower() == key.name.lower()
            ):
                return i
    if isinstance(key, exp.Column):
        name = key.name.lower()
        if lowered.count(name) == 1:
            return lowered.index(name)
    return None


@lru_cache(maxsize=MEMO)
def with_sort_key_columns(sql: str, dialect: str) -> str | None:
    """``sql`` with its sort keys appended to the select list as extra named columns.

    Used when a sort key is not among the output columns: running the rewritten query yields the
    key values needed to find ties. Returns None when the rewrite would change the result (DISTINCT,
    set operations) or cannot be expressed.
    """
    statements = _statements(sql, dialect)
    if not statements:
        return None
    node = statements[-1]
    if not isinstance(node, exp.Select) or node.args.get("distinct"):
        return None
    order = node.args.get("order")
    if not isinstance(order, exp.Order):
        return None
    rewritten = node.copy()
    for i, ordered in enumerate(order.expressions):
        key = ordered.this if isinstance(ordered, exp.Ordered) else ordered
        if isinstance(key, exp.Literal) and not key.is_string:  # ORDER BY <ordinal>
            n = int(key.this) if str(key.this).isdigit() else 0
            if not 1 <= n <= len(node.expressions) or node.expressions[n - 1].is_star:
                return None
            target = node.expressions[n - 1]
            key = target.this if isinstance(target, exp.Alias) else target
        key = _expand_aliases(key, node.expressions)
        rewritten = rewritten.select(exp.alias_(key, f"{SORT_KEY_PREFIX}{i}"), copy=False)
    return _render(statements, rewritten, dialect)


def _expand_aliases(key: exp.Expr, projections: list[exp.Expr]) -> exp.Expr:
    """A copy of ``key`` with unqualified references to select aliases replaced by the aliased
    expressions (``CASE WHEN ratio IS NULL ...`` where ``ratio`` is ``a / b AS ratio``): a select
    list cannot refer to its own aliases."""
    aliases = {p.alias.lower(): p.this for p in projections if isinstance(p, exp.Alias) and p.alias}

    def expand(node: exp.Expr) -> exp.Expr:
        if isinstance(node, exp.Column) and not node.table:
            inner = aliases.get(node.name.lower())
            if inner is not None and not (
                isinstance(inner, exp.Column) and inner.name.lower() == node.name.lower()
            ):
                return exp.paren(inner.copy(), copy=False)
        return node

    return key.copy().transform(expand, copy=False)


@dataclass(frozen=True)
class Unlimited:
    """A query with its top-level LIMIT and OFFSET removed, and the rows the OFFSET skipped."""

    sql: str
    offset: int


@lru_cache(maxsize=MEMO)
def without_limit(sql: str, dialect: str) -> Unlimited | None:
    """``sql`` with the last statement's top-level LIMIT/FETCH/TOP and OFFSET removed, or None
    when it has no limit or its OFFSET is not a plain number. The caller slices the full result
    itself, so both edges of the kept window can be checked for ties."""
    statements = _statements(sql, dialect)
    if not statements:
        return None
    if not isinstance(statements[-1].args.get("limit"), exp.Limit | exp.Fetch):
        return None  # asked of every source and translation: most have none, and need no copy
    node = statements[-1].copy()
    offset = 0
    skip = node.args.get("offset")
    if isinstance(skip, exp.Offset):
        value = skip.expression
        if not (isinstance(value, exp.Literal) and value.is_int):
            return None
        offset = int(value.this)
    node.set("limit", None)
    node.set("offset", None)
    rendered = _render(statements, node, dialect)
    return Unlimited(rendered, offset) if rendered is not None else None


def read_facts(sql: str, dialect: str) -> None:
    """Compute now (memoized) the facts of ``sql`` a judge reads: its order, its unlimited
    form and that form's order. Pure, so another thread may prepare them ahead of the judge."""
    order_facts(sql, dialect)
    unlimited = without_limit(sql, dialect)
    if unlimited is not None:
        order_facts(unlimited.sql, dialect)
