"""The neighbour catalogue: a registry of small operator functions, one edit kind each.

Each :class:`Operator` names its ``family`` and where it comes from, and lists the equivalence
rules (:data:`parrot.testsuite.neighbours.EQUIVALENCE_RULES`) that may label one of its edits
provably equal to the source. The families follow the mutation categories of SQLMutation (Tuya,
Suárez-Cabal and de la Riva, "Mutating database queries", IST 49(4), 2007):

* ``SC``, SQL clauses: SELECT / DISTINCT, join type, subquery predicates, GROUP BY, aggregate
  replacement (DISTINCT inside aggregates included), set operators, ORDER BY;
* ``OR``, operators: relational, logical, arithmetic, BETWEEN, LIKE, unary;
* ``NL``, NULLs: IS NULL / IS NOT NULL, NULL in IN lists;
* ``IR``, identifier replacement: columns, constants (± 1) and parameters;

plus the token-span drops of Zhong, Yu and Klein (EMNLP 2020, ``ZYK``) and LIMIT edits. Every
function is ours, written on sqlglot's AST: ``edits(node, root)`` yields callables that apply
one edit in place to ``root`` (a copy) at ``node``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial

from sqlglot import exp

Apply = Callable[[], object]
Edits = Callable[[exp.Expr, exp.Expr], Iterator[Apply]]

SQLMUTATION = "Tuya, Suárez-Cabal, de la Riva 2007 (SQLMutation)"
ZYK = "Zhong, Yu, Klein 2020 (distilled test suites)"
PARROT = "parrot (from measured survivors)"


@dataclass(frozen=True)
class Operator:
    name: str
    family: str  # "SC.aggregate", "OR.relational", "NL.is_null", "IR.constant", "ZYK.span", ...
    origin: str
    edits: Edits
    rules: tuple[str, ...] = ()  # equivalence rules that may label its edits


REGISTRY: dict[str, Operator] = {}

_FLIP: dict[type[exp.Expr], type[exp.Expr]] = {
    exp.GT: exp.GTE,
    exp.GTE: exp.GT,
    exp.LT: exp.LTE,
    exp.LTE: exp.LT,
    exp.EQ: exp.NEQ,
    exp.NEQ: exp.EQ,
}
_REVERSE: dict[type[exp.Expr], type[exp.Expr]] = {
    exp.GT: exp.LT,
    exp.LT: exp.GT,
    exp.GTE: exp.LTE,
    exp.LTE: exp.GTE,
}
# not * -> /: sqlglot writes an untyped division as CAST(a AS REAL) / b in SQLite, another query
_ARITHMETIC: dict[type[exp.Expr], type[exp.Expr]] = {
    exp.Add: exp.Sub,
    exp.Sub: exp.Add,
    exp.Div: exp.Mul,
}
# The comparisons that are false or NULL when an operand is NULL (they reject a NULL row),
# and every comparison of two values
NULL_REJECTING = (
    exp.EQ,
    exp.NEQ,
    exp.GT,
    exp.GTE,
    exp.LT,
    exp.LTE,
    exp.In,
    exp.Between,
    exp.Like,
    exp.ILike,
)
_COMPARED = (*NULL_REJECTING, exp.NullSafeEQ)
# the binary arithmetic operators
ARITHMETIC = (exp.Add, exp.Sub, exp.Mul, exp.Div, exp.Mod, exp.IntDiv)
_SET_OPS = (exp.Union, exp.Intersect, exp.Except)
_UNWRAPPABLE = (exp.Abs, exp.Round, exp.Lower, exp.Upper, exp.Trim, exp.Floor, exp.Ceil)


def register(
    name: str, family: str, origin: str = SQLMUTATION, rules: tuple[str, ...] = ()
) -> Callable[[Edits], Edits]:
    def add(edits: Edits) -> Edits:
        REGISTRY[name] = Operator(name, family, origin, edits, rules)
        return edits

    return add


def grouped_fully(select: exp.Select) -> bool:
    """Whether the projection holds every GROUP BY key (DISTINCT is then a no-op)."""
    group = select.args.get("group")
    if group is None:
        return False
    projected = {e.unalias().sql() for e in select.expressions}
    n = len(select.expressions)
    return all(
        g.sql() in projected or (isinstance(g, exp.Literal) and g.is_int and 1 <= int(g.this) <= n)
        for g in group.expressions
    )


def single_row(select: exp.Select) -> bool:
    """An aggregate without GROUP BY: one row."""
    return select.args.get("group") is None and any(
        e.find(exp.AggFunc) is not None for e in select.expressions
    )


def columns(tree: exp.Expr) -> list[exp.Column]:
    return [c for c in tree.find_all(exp.Column) if not isinstance(c.this, exp.Star)]


def _replace_with(node: exp.Expr, make: Callable[[], exp.Expr]) -> Apply:
    return lambda: node.replace(make())


# --- SC: SQL clauses ---------------------------------------------------------------------------


@register("drop_distinct", "SC.select", rules=("distinct_in_semijoin", "distinct_under_set_op"))
def _drop_distinct(node: exp.Expr, root: exp.Expr) -> Iterator[Apply]:
    if (
        isinstance(node, exp.Select)
        and node.args.get("distinct") is not None
        and not grouped_fully(node)
        and not single_row(node)
    ):
        yield partial(node.set, "distinct", None)


@register(
    "add_distinct",
    "SC.select",
    rules=("distinct_in_semijoin", "distinct_over_keys", "distinct_under_set_op"),
)
def _add_distinct(node: exp.Expr, root: exp.Expr) -> Iterator[Apply]:
    if (
        isinstance(node, exp.Select)
        and node.args.get("distinct") is None
        and not grouped_fully(node)
        and not single_row(node)
    ):
        yield lambda: node.set("distinct", exp.Distinct())


@register("swap_projection", "SC.select", rules=("inner_projection_swap",))
def _swap_projection(node: exp.Expr, root: exp.Expr) -> Iterator[Apply]:
    if not isinstance(node, exp.Select):
        return
    projection = node.expressions
    if len(projection) >= 2 and not any(isinstance(e, exp.Star) for e in projection):

        def swap() -> None:
            a, b = projection[0].copy(), projection[1].copy()
            projection[0].replace(b)
            projection[1].replace(a)

        yield swap


def _rejoin(joins: Callable[[exp.Join], bool], side: str | None) -> Edits:
    """The edits that make a join with an ON condition of the kind ``joins`` accepts a
    ``side`` join (None: inner)."""

    def edits(node: exp.Expr, root: exp.Expr) -> Iterator[Apply]:
        if isinstance(node, exp.Join) and node.args.get("on") is not None and joins(node):

            def rejoin() -> None:
                node.set("side", side)
                node.set("kind", None)

            yield rejoin

    return edits


register(
    "inner_left",
    "SC.join",
    rules=("left_join_null_rejected", "left_join_under_null_ignoring_aggregates"),
)(_rejoin(lambda join: not join.side and join.kind in ("", "INNER"), "LEFT"))
register(
    "left_inner",
    "SC.join",
    rules=("left_join_null_rejected", "left_join_under_null_ignoring_aggregates"),
)(
    _rejoin(
        lambda join: (join.side or "").upper() == "LEFT" and join.kind in ("", "OUTER", None),
        None,
    )
)


@register("negate_subquery", "SC.subquery")
def _negate_subquery(node: exp.Expr, root: exp.Expr) -> Iterator[Apply]:
    """``IN (SELECT ...)`` ↔ ``NOT IN``, ``EXISTS`` ↔ ``NOT EXISTS``."""
    if isinstance(node, exp.Exists) or (isinstance(node, exp.In) and node.args.get("query")):
        if isinstance(node.parent, exp.Not):
            yield _replace_with(node.parent, node.copy)
        else:
            yield _replace_with(node, lambda: exp.Not(this=node.copy()))


@register("group_by_column", "SC.group_by")
def _group_by_column(node: exp.Expr, root: exp.Expr) -> Iterator[Apply]:
    group = node.args.get("group") if isinstance(node, exp.Select) else None
    if group is None:
        return
    used = {g.sql() for g in group.expressions}
    candidates = [
        c for c in columns(node) if c.sql() not in used and c.find_ancestor(exp.AggFunc) is None
    ]
    for g in group.expressions:
        if isinstance(g, exp.Column):
            for c in {c.sql(): c for c in candidates if c.table == g.table}.values():
                yield partial(g.replace, c.copy())


@register("count_sum", "SC.aggregate")
def _count_sum(node: exp.Expr, root: exp.Expr) -> Iterator[Apply]:
    """COUNT(x) ↔ SUM(x); on ``COUNT(CASE WHEN c THEN 1 END)`` this is the SUM that returns
    NULL, not 0, when no row matches."""
    if (
        isinstance(node, exp.Count)
        and not isinstance(node.this, exp.Star)
        and node.this is not None
        and not node.args.get("distinct")
        and not isinstance(node.this, exp.Distinct)
    ):
        yield _replace_with(node, lambda: exp.Sum(this=node.this.copy()))
    if isinstance(node, exp.Sum) and not isinstance(node.this, exp.Distinct):
        yield _replace_with(node, lambda: exp.Count(this=node.this.copy()))


@register("min_max", "SC.aggregate")
def _min_max(node: exp.Expr, root: exp.Expr) -> Iterator[Apply]:
    if isinstance(node, exp.Min | exp.Max):
        other = exp.Max if isinstance(node, exp.Min) else exp.Min
        yield _replace_with(node, lambda: other(this=node.this.copy()))


@register("aggregate_distinct", "SC.aggregate", rules=("distinct_aggregate_over_key",))
def _aggregate_distinct(node: exp.Expr, root: exp.Expr) -> Iterator[Apply]:
    """COUNT(x) ↔ COUNT(DISTINCT x), SUM(x) / AVG(x) → SUM(DISTINCT x) / AVG(DISTINCT x)."""
    if (
        not isinstance(node, exp.Count | exp.Sum | exp.Avg)
        or node.this is None
        or isinstance(node.this, exp.Star)
    ):
        return
    if isinstance(node.this, exp.Distinct):
        if isinstance(node, exp.Count) and len(node.this.expressions) == 1:
            yield _replace_with(node, lambda: exp.Count(this=node.this.expressions[0].copy()))
    else:
        yield _replace_with(
            node, lambda: type(node)(this=exp.Distinct(expressions=[node.this.copy()]))
        )


@register("set_operator", "SC.set_operation", rules=("union_in_distinct_recursion",))
def _set_operator(node: exp.Expr, root: exp.Expr) -> Iterator[Apply]:
    """UNION ↔ UNION ALL; INTERSECT ↔ EXCEPT; UNION ↔ INTERSECT."""
    if not isinstance(node, _SET_OPS):
        return
    distinct = bool(node.args.get("distinct"))
    if isinstance(node, exp.Union):
        yield partial(node.set, "distinct", not distinct)
    swaps = {exp.Union: exp.Intersect, exp.Intersect: exp.Except, exp.Except: exp.Intersect}
    other = swaps[type(node)]
    yield _replace_with(
        node, lambda: other(this=node.this.copy(), expression=node.expression.copy(), distinct=True)
    )


@register("drop_order", "SC.order_by")
def _drop_order(node: exp.Expr, root: exp.Expr) -> Iterator[Apply]:
    if (
        isinstance(node, exp.Order)
        and node is root.args.get("order")
        and root.args.get("limit") is None
    ):
        yield lambda: root.set("order", None)


@register("drop_order_limit", "SC.order_by", PARROT, rules=("order_of_one_row",))
def _drop_order_limit(node: exp.Expr, root: exp.Expr) -> Iterator[Apply]:
    """The top-level ORDER BY dropped under a LIMIT: which rows are kept becomes arbitrary
    (judged with the tie pools: a right pick only by luck)."""
    if (
        isinstance(node, exp.Order)
        and node is root.args.get("order")
        and root.args.get("limit") is not None
    ):
        yield lambda: root.set("order", None)


@register("asc_desc", "SC.order_by")
def _asc_desc(node: exp.Expr, root: exp.Expr) -> Iterator[Apply]:
    if isinstance(node, exp.Ordered):
        desc, first = bool(node.args.get("desc")), bool(node.args.get("nulls_first"))

        def flip() -> None:  # NULLs stay where the engine puts them (smallest or largest)
            node.set("desc", not desc)
            node.set("nulls_first", not first)

        yield flip


# --- OR: operators -----------------------------------------------------------------------------


def _swap_operator(
    table: dict[type[exp.Expr], type[exp.Expr]],
    keep: Callable[[exp.Expr], bool] = lambda node: False,
) -> Edits:
    """The edits that replace a binary operator by its partner in ``table``, operands kept
    (none where ``keep(node)``)."""

    def edits(node: exp.Expr, root: exp.Expr) -> Iterator[Apply]:
        if type(node) in table and not keep(node):
            new = table[type(node)]
            yield _replace_with(
                node, lambda: new(this=node.this.copy(), expression=node.expression.copy())
            )

    return edits


register("flip_comparison", "OR.relational")(_swap_operator(_FLIP))
register("reverse_comparison", "OR.relational")(_swap_operator(_REVERSE))


@register("and_or", "OR.logical")
def _and_or(node: exp.Expr, root: exp.Expr) -> Iterator[Apply]:
    if isinstance(node, exp.And | exp.Or):
        other = exp.Or if isinstance(node, exp.And) else exp.And
        yield _replace_with(
            node,
            lambda: exp.Paren(this=other(this=node.this.copy(), expression=node.expression.copy())),
        )


register("arithmetic", "OR.arithmetic")(
    _swap_operator(_ARITHMETIC, keep=lambda node: isinstance(node.parent, exp.DataTypeParam))
)


@register("between_bounds", "OR.between")
def _between_bounds(node: exp.Expr, root: exp.Expr) -> Iterator[Apply]:
    """``x BETWEEN a AND b`` → ``x > a AND x <= b`` and ``x >= a AND x < b``."""
    if not isinstance(node, exp.Between) or isinstance(node.parent, exp.Not):
        return
    x, low, high = node.this, node.args["low"], node.args["high"]
    for lower, upper in ((exp.GT, exp.LTE), (exp.GTE, exp.LT)):
        yield _replace_with(
            node,
            partial(
                lambda lo, up: exp.Paren(
                    this=exp.And(
                        this=lo(this=x.copy(), expression=low.copy()),
                        expression=up(this=x.copy(), expression=high.copy()),
                    )
                ),
                lower,
                upper,
            ),
        )


@register("like_wildcard", "OR.like")
def _like_wildcard(node: exp.Expr, root: exp.Expr) -> Iterator[Apply]:
    """One ``%`` of a LIKE pattern dropped, or ``_`` widened to ``%``."""
    pattern = node.expression if isinstance(node, exp.Like | exp.ILike) else None
    if not isinstance(pattern, exp.Literal) or not pattern.is_string:
        return
    text = pattern.this
    variants = [text[:i] + text[i + 1 :] for i, ch in enumerate(text) if ch == "%"]
    variants += [text[:i] + "%" + text[i + 1 :] for i, ch in enumerate(text) if ch == "_"]
    for v in dict.fromkeys(variants):
        if v != text:
            yield partial(pattern.replace, exp.Literal.string(v))


@register("drop_not", "OR.unary")
def _drop_not(node: exp.Expr, root: exp.Expr) -> Iterator[Apply]:
    """``NOT p`` → ``p`` (not over IN / EXISTS subqueries: see ``negate_subquery``; nor IS
    NULL: see ``is_null``), and ``-x`` → ``x``."""
    if isinstance(node, exp.Not) and not isinstance(node.this, exp.In | exp.Exists | exp.Is):
        yield _replace_with(node, node.this.copy)
    if isinstance(node, exp.Neg) and not isinstance(node.this, exp.Literal):
        yield _replace_with(node, node.this.copy)


# --- NL: NULLs ---------------------------------------------------------------------------------


@register("is_null", "NL.is_null")
def _is_null(node: exp.Expr, root: exp.Expr) -> Iterator[Apply]:
    if isinstance(node, exp.Is) and isinstance(node.expression, exp.Null):
        if isinstance(node.parent, exp.Not):
            yield _replace_with(node.parent, node.copy)
        else:
            yield _replace_with(node, lambda: exp.Not(this=node.copy()))


@register("null_in_list", "NL.in_list", rules=("null_in_filtering_in",))
def _null_in_list(node: exp.Expr, root: exp.Expr) -> Iterator[Apply]:
    """``x IN (a, b)`` → ``x IN (a, b, NULL)``: no row more where the IN filters, none at all
    under NOT."""
    if (
        isinstance(node, exp.In)
        and node.expressions
        and not any(isinstance(e, exp.Null) for e in node.expressions)
    ):
        yield lambda: node.set("expressions", [*node.expressions, exp.Null()])


def not_in_parts(node: exp.Expr) -> tuple[exp.Column, exp.Select, exp.Column] | None:
    """(outer column, subquery, its projected column) of ``outer.c NOT IN (SELECT inner.k ...)``
    when the outer column's qualifier names no source of the subquery (so that the rewritten
    correlation binds it outside), else None."""
    if not isinstance(node, exp.Not) or not isinstance(node.this, exp.In):
        return None
    member = node.this
    query = member.args.get("query")
    inner = query.this if isinstance(query, exp.Subquery) else query
    outer = member.this
    if (
        not isinstance(inner, exp.Select)
        or not isinstance(outer, exp.Column)
        or not outer.table
        or len(inner.expressions) != 1
        or inner.args.get("group") is not None
        or inner.args.get("limit") is not None
    ):
        return None
    projected = inner.expressions[0].unalias()
    names = {t.alias_or_name.lower() for t in inner.find_all(exp.Table)}
    if not isinstance(projected, exp.Column) or outer.table.lower() in names:
        return None
    return outer, inner, projected


@register("not_in_not_exists", "NL.not_in", rules=("not_in_over_keys",))
def _not_in_not_exists(node: exp.Expr, root: exp.Expr) -> Iterator[Apply]:
    """``x NOT IN (SELECT k FROM ...)`` → ``NOT EXISTS (SELECT k FROM ... WHERE k = x)``: they
    differ when ``k`` holds a NULL (NOT IN keeps no row) or ``x`` is NULL."""
    parts = not_in_parts(node)
    if parts is None:
        return
    outer, inner, projected = parts

    def rewrite() -> exp.Expr:
        body = inner.copy()
        link = exp.EQ(this=projected.copy(), expression=outer.copy())
        where = body.args.get("where")
        body.set("where", exp.Where(this=exp.and_(where.this.copy(), link) if where else link))
        return exp.Not(this=exp.Exists(this=body))

    yield _replace_with(node, rewrite)


# --- IR: identifier replacement ----------------------------------------------------------------


@register("join_key", "IR.column")
def _join_key(node: exp.Expr, root: exp.Expr) -> Iterator[Apply]:
    if not (isinstance(node, exp.Join) and not node.side and node.kind in ("", "INNER")):
        return
    on = node.args.get("on")
    if isinstance(on, exp.EQ) and isinstance(on.expression, exp.Column):
        key = on.expression
        others = {c.sql(): c for c in columns(root) if c.table == key.table and c.name != key.name}
        for c in others.values():
            yield partial(key.replace, c.copy())


@register("projection_column", "IR.column")
def _projection_column(node: exp.Expr, root: exp.Expr) -> Iterator[Apply]:
    """A projected column replaced by another column of the same table the query names."""
    if not isinstance(node, exp.Column) or not node.table or isinstance(node.this, exp.Star):
        return
    select = node.parent.parent if isinstance(node.parent, exp.Alias) else node.parent
    if not isinstance(select, exp.Select) or node.find_ancestor(exp.AggFunc) is not None:
        return
    if node not in select.expressions and node.parent not in select.expressions:
        return
    others = {c.sql(): c for c in columns(select) if c.table == node.table and c.name != node.name}
    for c in others.values():
        yield partial(node.replace, c.copy())


def _literal_number(node: exp.Expr) -> int | None:
    # not a type's size (DECIMAL(20, 6), CHAR(200)): no value within the data's domain sees it
    if (
        isinstance(node, exp.Literal)
        and not node.is_string
        and node.is_int
        and not isinstance(
            node.parent, exp.Limit | exp.Offset | exp.Ordered | exp.Group | exp.DataTypeParam
        )
    ):
        return int(node.this)
    return None


@register(
    "literal_plus",
    "IR.constant",
    rules=(
        "exists_projection",
        "round_beyond_scale",
        "decimal_scale_under_round",
        "ifnull_never_null",
    ),
)
def _literal_plus(node: exp.Expr, root: exp.Expr) -> Iterator[Apply]:
    """A constant + 1; inside a function call it is a parameter (``NULLIF(n, 0)`` →
    ``NULLIF(n, 1)``, ``ROUND(x, 2)`` → ``ROUND(x, 3)``)."""
    n = _literal_number(node)
    if n is not None:
        yield _replace_with(node, lambda: exp.Literal.number(n + 1))


@register(
    "literal_minus",
    "IR.constant",
    rules=("exists_projection", "decimal_scale_under_round", "ifnull_never_null"),
)
def _literal_minus(node: exp.Expr, root: exp.Expr) -> Iterator[Apply]:
    n = _literal_number(node)
    if n is not None:
        yield _replace_with(node, lambda: exp.Literal.number(n - 1))


@register("string_case", "IR.constant", PARROT, rules=("case_insensitive_collation",))
def _string_case(node: exp.Expr, root: exp.Expr) -> Iterator[Apply]:
    """A compared string literal's case changed (not LIKE patterns nor function arguments)."""
    if not (
        isinstance(node, exp.Literal) and node.is_string and any(ch.isalpha() for ch in node.this)
    ):
        return
    text = node.this
    changed = text.lower() if text != text.lower() else text.upper()
    parent = node.parent
    while isinstance(parent, exp.Paren | exp.Tuple):
        parent = parent.parent
    if (
        isinstance(parent, exp.Like | exp.ILike)
        or not isinstance(parent, _COMPARED)
        or changed == text
    ):
        return
    yield _replace_with(node, lambda: exp.Literal.string(changed))


# --- LIMIT and token-span drops ----------------------------------------------------------------


def _limit_by(step: int) -> Edits:
    """The edit that moves the top-level query's integer LIMIT by ``step`` (never below 1)."""

    def edits(node: exp.Expr, root: exp.Expr) -> Iterator[Apply]:
        if (
            isinstance(node, exp.Limit)
            and node is root.args.get("limit")
            and isinstance(node.expression, exp.Literal)
            and node.expression.is_int
            and int(node.expression.this) + step >= 1
        ):
            n = int(node.expression.this)
            yield lambda: node.set("expression", exp.Literal.number(n + step))

    return edits


register("limit_plus", "SC.limit", PARROT)(_limit_by(1))
register("limit_minus", "SC.limit", PARROT)(_limit_by(-1))


@register("drop_conjunct", "ZYK.span", ZYK)
def _drop_conjunct(node: exp.Expr, root: exp.Expr) -> Iterator[Apply]:
    where = node.args.get("where") if isinstance(node, exp.Select) else None
    if where is not None and isinstance(where.this, exp.And):
        conjuncts = list(where.this.flatten())
        for i in range(len(conjuncts)):
            rest = [c.copy() for j, c in enumerate(conjuncts) if j != i]
            yield partial(node.set, "where", exp.Where(this=exp.and_(*rest)))


@register("drop_clause", "ZYK.span", ZYK)
def _drop_clause(node: exp.Expr, root: exp.Expr) -> Iterator[Apply]:
    """A whole WHERE or HAVING dropped."""
    if isinstance(node, exp.Select):
        for clause in ("where", "having"):
            if node.args.get(clause) is not None:
                yield partial(node.set, clause, None)


@register("drop_function", "ZYK.span", ZYK, rules=("round_beyond_scale",))
def _drop_function(node: exp.Expr, root: exp.Expr) -> Iterator[Apply]:
    """``f(x)`` → ``x`` for ABS, ROUND, LOWER, UPPER, TRIM, FLOOR, CEIL."""
    if isinstance(node, _UNWRAPPABLE) and node.this is not None:
        yield _replace_with(node, node.this.copy)


def operator_names() -> tuple[str, ...]:
    return tuple(REGISTRY)


def family_of(operator: str) -> str:
    return REGISTRY[operator].family if operator in REGISTRY else "other"
