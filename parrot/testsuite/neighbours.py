"""Neighbour queries: one-edit rewrites of a source query that a good suite tells apart from it.

After Zhong, Yu and Klein (2020), "Semantic Evaluation for Text-to-SQL with Distilled Test Suites";
our own implementation on sqlglot's AST. Each neighbour carries the operator that made it and is
checked to parse in the source dialect. Edits known to keep the meaning are not made: DISTINCT
under a projection that holds every GROUP BY key, ORDER BY removed under a LIMIT (that changes
which rows come back arbitrarily, not meaningfully), a LIMIT on an aggregate without GROUP BY.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

OPERATORS = ("flip_comparison", "and_or", "drop_distinct", "add_distinct", "limit_plus",
             "limit_minus", "drop_conjunct", "count_sum", "min_max", "inner_left",
             "drop_order", "asc_desc", "literal_plus", "literal_minus", "string_case",
             "swap_projection", "group_by_column", "join_key")

_FLIP: dict[type[exp.Expr], type[exp.Expr]] = {
    exp.GT: exp.GTE, exp.GTE: exp.GT, exp.LT: exp.LTE, exp.LTE: exp.LT,
    exp.EQ: exp.NEQ, exp.NEQ: exp.EQ}


@dataclass(frozen=True)
class Neighbour:
    operator: str
    sql: str


def _grouped_fully(select: exp.Select) -> bool:
    """Whether the projection holds every GROUP BY key (DISTINCT is then a no-op)."""
    group = select.args.get("group")
    if group is None:
        return False
    projected = {e.unalias().sql() for e in select.expressions}
    return all(g.sql() in projected for g in group.expressions)


def _single_row(select: exp.Select) -> bool:
    return select.args.get("group") is None and any(
        e.find(exp.AggFunc) is not None for e in select.expressions)


def _columns(tree: exp.Expr) -> list[exp.Column]:
    return [c for c in tree.find_all(exp.Column) if not isinstance(c.this, exp.Star)]


def _edits(node: exp.Expr, root: exp.Expr) -> Iterator[tuple[str, Callable[[], object]]]:
    """The (operator, apply) pairs applicable at ``node`` of ``root`` (a copy, mutated in place)."""
    if type(node) in _FLIP:
        new = _FLIP[type(node)]
        yield "flip_comparison", lambda: node.replace(new(this=node.this.copy(),
                                                          expression=node.expression.copy()))
    if isinstance(node, exp.And | exp.Or):
        other = exp.Or if isinstance(node, exp.And) else exp.And
        yield "and_or", lambda: node.replace(
            exp.Paren(this=other(this=node.this.copy(), expression=node.expression.copy())))
    if isinstance(node, exp.Select):
        distinct = node.args.get("distinct")
        if not _grouped_fully(node) and not _single_row(node):
            if distinct is not None:
                yield "drop_distinct", lambda: node.set("distinct", None)
            else:
                yield "add_distinct", lambda: node.set("distinct", exp.Distinct())
        where = node.args.get("where")
        if where is not None and isinstance(where.this, exp.And):
            conjuncts = list(where.this.flatten())
            for i in range(len(conjuncts)):
                rest = [c.copy() for j, c in enumerate(conjuncts) if j != i]
                yield "drop_conjunct", partial(node.set, "where",
                                               exp.Where(this=exp.and_(*rest)))
        projection = node.expressions
        if len(projection) >= 2 and not any(isinstance(e, exp.Star) for e in projection):
            def swap() -> None:
                a, b = projection[0].copy(), projection[1].copy()
                projection[0].replace(b)
                projection[1].replace(a)
            yield "swap_projection", swap
        group = node.args.get("group")
        if group is not None:
            used = {g.sql() for g in group.expressions}
            candidates = [c for c in _columns(node) if c.sql() not in used
                          and c.find_ancestor(exp.AggFunc) is None]
            for g in group.expressions:
                if isinstance(g, exp.Column):
                    for c in {c.sql(): c for c in candidates if c.table == g.table}.values():
                        yield "group_by_column", partial(g.replace, c.copy())
    if isinstance(node, exp.Limit) and node is root.args.get("limit"):
        value = node.expression
        if isinstance(value, exp.Literal) and value.is_int:
            n = int(value.this)
            yield "limit_plus", lambda: node.set("expression", exp.Literal.number(n + 1))
            if n > 1:
                yield "limit_minus", lambda: node.set("expression", exp.Literal.number(n - 1))
    if isinstance(node, exp.Count) and not isinstance(node.this, exp.Star) \
            and node.this is not None and not node.args.get("distinct") \
            and not isinstance(node.this, exp.Distinct):
        yield "count_sum", lambda: node.replace(exp.Sum(this=node.this.copy()))
    if isinstance(node, exp.Sum):
        yield "count_sum", lambda: node.replace(exp.Count(this=node.this.copy()))
    if isinstance(node, exp.Min | exp.Max):
        other_agg = exp.Max if isinstance(node, exp.Min) else exp.Min
        yield "min_max", lambda: node.replace(other_agg(this=node.this.copy()))
    if isinstance(node, exp.Join) and node.args.get("on") is not None \
            and not node.side and node.kind in ("", "INNER"):
        def left() -> None:
            node.set("side", "LEFT")
            node.set("kind", None)
        yield "inner_left", left
        on = node.args["on"]
        if isinstance(on, exp.EQ) and isinstance(on.expression, exp.Column):
            key = on.expression
            others = {c.sql(): c for c in _columns(root)
                      if c.table == key.table and c.name != key.name}
            for c in others.values():
                yield "join_key", partial(key.replace, c.copy())
    if isinstance(node, exp.Order) and node is root.args.get("order") \
            and root.args.get("limit") is None:
        yield "drop_order", lambda: root.set("order", None)
    if isinstance(node, exp.Ordered):
        desc, first = bool(node.args.get("desc")), bool(node.args.get("nulls_first"))

        def flip() -> None:  # NULLs stay where the engine puts them (smallest or largest)
            node.set("desc", not desc)
            node.set("nulls_first", not first)
        yield "asc_desc", flip
    if isinstance(node, exp.Literal) and not node.is_string and node.is_int \
            and not isinstance(node.parent, exp.Limit | exp.Offset | exp.Ordered | exp.Group):
        n = int(node.this)
        yield "literal_plus", lambda: node.replace(exp.Literal.number(n + 1))
        yield "literal_minus", lambda: node.replace(exp.Literal.number(n - 1))
    if isinstance(node, exp.Literal) and node.is_string and any(ch.isalpha() for ch in node.this):
        text = node.this
        changed = text.lower() if text != text.lower() else text.upper()
        if isinstance(node.parent, exp.Like | exp.ILike) or changed == text:
            return
        yield "string_case", lambda: node.replace(exp.Literal.string(changed))


def neighbours(sql: str, dialect: str, limit: int | None = None) -> list[Neighbour]:
    """The distinct one-edit neighbours of ``sql`` that parse in ``dialect``, in AST order."""
    try:
        tree = sqlglot.parse_one(sql, read=dialect)
    except (SqlglotError, ValueError, RecursionError):
        return []
    if not isinstance(tree, exp.Query):
        return []
    source = tree.sql(dialect=dialect)
    seen = {source}
    out: list[Neighbour] = []
    count = len(list(tree.walk()))
    for index in range(count):
        probe = tree.copy()
        node = list(probe.walk())[index]
        for position, (operator, _) in enumerate(_edits(node, probe)):
            copy = tree.copy()
            target = list(copy.walk())[index]
            edit = list(_edits(target, copy))[position][1]
            edit()
            text = copy.sql(dialect=dialect)
            if text in seen or not _parses(text, dialect):
                continue
            seen.add(text)
            out.append(Neighbour(operator, text))
            if limit is not None and len(out) >= limit:
                return out
    return out


def _parses(sql: str, dialect: str) -> bool:
    try:
        return isinstance(sqlglot.parse_one(sql, read=dialect), exp.Query)
    except (SqlglotError, ValueError, RecursionError):
        return False
