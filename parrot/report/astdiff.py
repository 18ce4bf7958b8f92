"""Which parts of a query differ from its gold: an AST diff over sqlglot trees, by clause.

Both queries are parsed in their own dialects and reduced to multisets of normalised clause
parts — the selected expressions, tables and join kinds, WHERE conjuncts, GROUP BY keys, HAVING
conjuncts and aggregate calls, ORDER BY keys, LIMIT/OFFSET, DISTINCT — gathered from every
SELECT of the statement (subqueries included). Each part is printed in one neutral dialect with
identifiers lower-cased and unquoted, so ``"Name"`` in PostgreSQL, `` `name` `` in MySQL and
``name`` in SQLite compare equal and only real differences remain.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

PARTS = (
    "select",
    "from",
    "where",
    "group",
    "having",
    "aggregate",
    "order",
    "limit",
    "distinct",
    "setop",
)
NEUTRAL = "duckdb"  # the dialect every part is printed in


@dataclass(frozen=True)
class Diff:
    """The clause parts that differ (empty: the same query up to spelling), or why the two
    could not be compared."""

    parts: tuple[str, ...]
    problem: str | None = None

    @property
    def comparable(self) -> bool:
        return self.problem is None


def _text(node: exp.Expr) -> str:
    node = node.copy()
    for ident in node.find_all(exp.Identifier):
        ident.set("this", ident.name.lower())
        ident.set("quoted", False)
    return node.sql(dialect=NEUTRAL).lower()


def _conjuncts(condition: exp.Expr | None) -> list[exp.Expr]:
    if condition is None:
        return []
    if isinstance(condition, exp.And):
        return [*_conjuncts(condition.left), *_conjuncts(condition.right)]
    if isinstance(condition, exp.Paren):
        return _conjuncts(condition.this)
    return [condition]


def clause_parts(sql: str, dialect: str) -> dict[str, Counter[str]]:
    """The normalised parts of one statement, per clause (raises ``SqlglotError``)."""
    trees = [t for t in sqlglot.parse(sql, read=dialect) if t is not None]
    if len(trees) != 1:
        raise SqlglotError("not one statement")
    parts: dict[str, Counter[str]] = {p: Counter() for p in PARTS}
    tree = trees[0]
    for setop in tree.find_all(exp.SetOperation):
        parts["setop"][
            type(setop).__name__.lower() + (" distinct" if setop.args.get("distinct") else "")
        ] += 1
    for select in tree.find_all(exp.Select):
        for e in select.expressions:
            target = e.this if isinstance(e, exp.Alias) else e
            if not target.find(exp.AggFunc):
                parts["select"][_text(target)] += 1
        for agg in select.find_all(exp.AggFunc):
            if agg.parent_select is select:
                parts["aggregate"][_text(agg)] += 1
        for table in select.find_all(exp.Table):
            if table.parent_select is select:
                parts["from"][table.name.lower()] += 1
        for join in select.args.get("joins") or ():
            parts["from"][f"join {join.side or ''} {join.kind or ''}".strip().lower()] += 1
        where = select.args.get("where")
        parts["where"].update(_text(c) for c in _conjuncts(where.this if where else None))
        group = select.args.get("group")
        if group is not None:
            parts["group"].update(_text(g) for g in group.expressions)
        having = select.args.get("having")
        parts["having"].update(_text(c) for c in _conjuncts(having.this if having else None))
        if select.args.get("distinct"):
            parts["distinct"]["distinct"] += 1
    for order in tree.find_all(exp.Order):
        parts["order"].update(
            _text(o.this) + (" desc" if o.args.get("desc") else "") for o in order.expressions
        )
    for key in ("limit", "offset"):
        for node in tree.find_all(exp.Limit if key == "limit" else exp.Offset):
            parts["limit"][f"{key} {_text(node.expression)}"] += 1
    return parts


def diff(pred: str, pred_dialect: str, gold: str, gold_dialect: str) -> Diff:
    """The clauses in which ``pred`` differs from ``gold``."""
    try:
        a = clause_parts(pred, pred_dialect)
    except (SqlglotError, RecursionError, ValueError, AttributeError):
        return Diff((), "the prediction does not parse")
    try:
        b = clause_parts(gold, gold_dialect)
    except (SqlglotError, RecursionError, ValueError, AttributeError):
        return Diff((), "the gold does not parse")
    return Diff(tuple(p for p in PARTS if a[p] != b[p]))
