"""Neighbour queries: one-edit rewrites of a source query that a good suite tells apart from it.

After Zhong, Yu and Klein (2020), "Semantic Evaluation for Text-to-SQL with Distilled Test Suites";
our own implementation on sqlglot's AST. The edits are the operators of the registry in
:mod:`parrot.testsuite.operators` (SQLMutation's categories, Zhong et al.'s span drops, LIMIT
edits), each with its family. Each neighbour carries the operator that made it and is checked to
parse in the source dialect. Edits known to keep the meaning are not made: DISTINCT under a
projection that holds every GROUP BY key, DISTINCT on an aggregate without GROUP BY, a string's
case changed anywhere but where it is compared with data (function arguments such as date
modifiers and format strings are not data).

Edits that are provably equivalent to the source are made but labelled with the rule that proves
it (:attr:`Neighbour.equivalent`), so that kill rates leave them out of the denominator and count
them in a column of their own (:data:`EQUIVALENCE_RULES`):

* ``distinct_in_semijoin``: DISTINCT added to the subquery of EXISTS, IN or a SEMI/ANTI join;
* ``distinct_over_keys``: DISTINCT added over a projection that holds the primary key of every
  table whose rows it returns (only with ``keys``; window functions and scalar subqueries
  multiply no rows), over a grouped projection whose unprojected GROUP BY keys are output aliases
  or columns of a table whose primary key it groups by and projects, over a grouped single table
  whose primary key it projects as bare columns (groups share no row), or over a derived table or
  CTE whose body is a UNION / INTERSECT / EXCEPT without ALL (distinct on all its columns), over
  a recursive CTE that walks a tree (anchor: the rows of a keyed table whose parent column IS
  NULL; step: that table joined on parent = the CTE's key column, projecting the table's key
  there — each row is reached once), or in the recursive step of a CTE whose anchor is one row
  and whose step reads only the CTE (one row per iteration); ClickHouse's ``numbers(N)`` is
  keyed by ``number``, and a constant plus or minus it (``toDate32('2023-12-29') + number``)
  projects that key;
* ``distinct_under_set_op``: DISTINCT added to (or, since rules-v16, dropped from) an operand of
  UNION, INTERSECT or EXCEPT without ALL (the set operation removes duplicates anyway);
  ``distinct_in_semijoin`` too holds both ways;
* ``case_insensitive_collation``: a compared string literal's case changed where the source
  dialect's default collation ignores case (MariaDB's ``utf8mb4_general_ci``), unless the
  comparison names a COLLATE or a CAST;
* ``exists_projection``: a literal of an EXISTS subquery's projection changed;
* ``inner_projection_swap``: two columns of a derived table or CTE swapped, when no ``*`` reads
  them by position;
* ``left_join_null_rejected``: INNER → LEFT JOIN where a WHERE conjunct or a later inner join's ON
  compares a column of the joined table, directly or through NULL-propagating functions
  (arithmetic, CAST, LOWER, YEAR, ...): NULL-extended rows are then filtered out again. In
  ClickHouse (``join_use_nulls = 0``) an unmatched row holds the column type's default (0, '',
  1970-01-01), not NULL: there only a comparison of the column (or its LOWER, UPPER, TRIM) with
  literals that every default fails proves it (``u.k > 3``, ``u.s IN ('a', 'b')``, not
  ``u.k > -1`` nor ``e.salary > a.avg_salary``), and ``toYear(col) = 2023`` (and its other date
  parts, :data:`_CH_DATE_PARTS`) when the literal is not the part of 1970-01-01;
* ``decimal_scale_under_round``: the scale S of ClickHouse's ``toDecimal32/64/128/256(x, S)``
  raised or lowered under ``round(·, N)`` while it stays above N (truncating at any scale past
  N digits leaves the rounding unchanged);
* ``round_beyond_scale``: ROUND's digits raised (or kept), or ROUND dropped, at or above the scale
  of an expression of integer and decimal columns (+, -, *, SUM, MIN, MAX, their window forms,
  and a non-recursive CTE's column read as the expression it projects; only with ``types``);
* ``distinct_aggregate_over_key``: DISTINCT added inside (or dropped from) COUNT / SUM / AVG of
  the single-column key of the only table its SELECT reads, or (since rules-v16) of a source
  its joins do not fan out: the FROM source's key equated with that source's columns in its ON
  and every other joined source's key with earlier sources' columns in its own (a calendar
  LEFT JOIN orders ON o.order_date = days.day; in ClickHouse not when that source is LEFT
  joined, its unmatched key being 0, not NULL); a recursive CTE with a one-row anchor and a step
  reading only itself is keyed by all its columns (a repeated row would recur for ever) (only
  with ``keys``);
* ``ifnull_never_null``: the fallback literal of ``ifNull`` / ``COALESCE`` changed where the first
  argument is never NULL: a COUNT, or in ClickHouse (``join_use_nulls = 0``) a LEFT-joined
  derived table's column that projects a COUNT (an unmatched row holds 0);
* ``union_in_distinct_recursion``: UNION ALL ↔ UNION of a recursive CTE that walks a tree (each
  row reached once), or UNION ALL → UNION of one with a one-row anchor and a step reading only
  itself (a source that ends repeats no row; not the other way: a repeat ends only the UNION);
* ``null_in_filtering_in``: NULL added to the list of an IN that is a conjunct of a WHERE,
  HAVING or JOIN ON (NULL and FALSE drop the same rows there);
* ``order_of_one_row``: the ORDER BY dropped under a LIMIT of an aggregate without GROUP BY;
* ``left_join_null_rejected`` also proves LEFT → INNER JOIN (``left_inner``); an OR rejects when
  each disjunct does, and an unqualified column is the joined table's when no other table read
  has it (only with ``types``);
* ``left_join_under_null_ignoring_aggregates``: INNER ↔ LEFT JOIN under a select list of COUNT,
  SUM, AVG, MIN, MAX (DISTINCT or not) of the joined table's columns only, without GROUP BY,
  HAVING or window: the rows a LEFT JOIN adds hold NULL there and change no aggregate (not in
  ClickHouse, whose unmatched rows hold defaults);
* ``not_in_over_keys``: ``x NOT IN (SELECT k ...)`` → ``NOT EXISTS`` when ``x`` and ``k`` are
  single-column primary keys (never NULL) of the tables they name (only with ``keys``).
"""

from __future__ import annotations

import operator as op_
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

from parrot.dialects import DIALECTS
from parrot.testsuite.operators import (
    ARITHMETIC,
    NULL_REJECTING,
    REGISTRY,
    not_in_parts,
    operator_names,
    single_row,
)

OPERATORS = operator_names()  # the registry's operators (parrot.testsuite.operators)

EQUIVALENCE_RULES = (
    "case_insensitive_collation",
    "distinct_aggregate_over_key",
    "distinct_in_semijoin",
    "distinct_over_keys",
    "distinct_under_set_op",
    "decimal_scale_under_round",
    "exists_projection",
    "ifnull_never_null",
    "inner_projection_swap",
    "left_join_null_rejected",
    "left_join_under_null_ignoring_aggregates",
    "not_in_over_keys",
    "null_in_filtering_in",
    "order_of_one_row",
    "round_beyond_scale",
    "union_in_distinct_recursion",
)

_NUMBERS = ("numbers", "numbers_mt")  # ClickHouse's table functions of distinct numbers
_TO_DECIMAL = re.compile(r"toDecimal(32|64|128|256)", re.IGNORECASE)
# ClickHouse's date-part functions and their value at the default date, 1970-01-01
_CH_DATE_PARTS = {
    "toyear": 1970,
    "tomonth": 1,
    "toquarter": 1,
    "todayofmonth": 1,
    "toyyyymm": 197001,
}


@dataclass(frozen=True)
class Neighbour:
    operator: str
    sql: str
    equivalent: str = ""  # the rule of EQUIVALENCE_RULES that proves it equal to the source


def _edits(node: exp.Expr, root: exp.Expr) -> Iterator[tuple[str, Callable[[], object]]]:
    """The (operator, apply) pairs applicable at ``node`` of ``root`` (a copy, mutated in
    place), operator by operator in registry order."""
    for name, op in REGISTRY.items():
        for apply in op.edits(node, root):
            yield name, apply


Keys = dict[str, tuple[str, ...]]  # lower-case table name -> its primary-key columns
Types = dict[str, dict[str, str]]  # lower-case table -> lower-case column -> portable type


def neighbours(
    sql: str,
    dialect: str,
    limit: int | None = None,
    *,
    keys: Keys | None = None,
    types: Types | None = None,
) -> list[Neighbour]:
    """The distinct one-edit neighbours of ``sql`` that parse in ``dialect``, in AST order, each
    labelled when an equivalence rule proves it equal to ``sql`` (``keys`` and ``types``, the
    schema of the tables it reads, enable the rules that need them)."""
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
            rule = _equivalent(operator, target, copy, keys or {}, types or {}, dialect)
            edit = list(_edits(target, copy))[position][1]
            made = edit()  # a replaced root (a set operation's operator) is the new tree
            after = made if target is copy and isinstance(made, exp.Query) else copy
            if rule == "union_in_distinct_recursion" and target.parent is None:
                rule = ""  # UNION -> INTERSECT replaced the node: only the ALL toggle keeps it
            text = after.sql(dialect=dialect)
            if text in seen or not _parses(text, dialect):
                continue
            seen.add(text)
            out.append(Neighbour(operator, text, rule))
            if limit is not None and len(out) >= limit:
                return out
    return out


def _equivalent(
    operator: str, node: exp.Expr, root: exp.Expr, keys: Keys, types: Types, dialect: str = ""
) -> str:
    """The rule proving that ``operator`` at ``node`` keeps the meaning, or ''."""
    if operator == "string_case" and _folds_case(dialect):
        comparison = node.parent
        while isinstance(comparison, exp.Paren | exp.Tuple):
            comparison = comparison.parent
        if comparison is not None and comparison.find(exp.Collate, exp.Cast) is None:
            return "case_insensitive_collation"
    if operator in ("add_distinct", "drop_distinct") and isinstance(node, exp.Select):
        if _in_semijoin(node):
            return "distinct_in_semijoin"
        if isinstance(node.parent, exp.Union | exp.Intersect | exp.Except) and node.parent.args.get(
            "distinct"
        ):
            return "distinct_under_set_op"
    if (
        operator == "add_distinct"
        and isinstance(node, exp.Select)
        and ((keys and _projects_keys(node, keys, types)) or _one_row_per_iteration(node))
    ):
        return "distinct_over_keys"
    if operator in ("literal_plus", "literal_minus") and isinstance(node, exp.Literal):
        select = node.find_ancestor(exp.Select)
        if (
            isinstance(select, exp.Select)
            and isinstance(select.parent, exp.Exists)
            and any(node is e or node in e.find_all(exp.Literal) for e in select.expressions)
        ):
            return "exists_projection"
        if (
            operator == "literal_plus"
            and types
            and isinstance(node.parent, exp.Round)
            and node is node.parent.args.get("decimals")
        ):
            scale = _scale(node.parent.this, root, types)
            if scale is not None and scale <= int(node.this):
                return "round_beyond_scale"
        if _scale_under_round(node, 1 if operator == "literal_plus" else -1):
            return "decimal_scale_under_round"
        if _fallback_never_used(node, dialect):
            return "ifnull_never_null"
    if operator == "drop_function" and isinstance(node, exp.Round) and types:
        digits = node.args.get("decimals")
        scale = _scale(node.this, root, types)
        if (
            isinstance(digits, exp.Literal)
            and digits.is_int
            and scale is not None
            and scale <= int(digits.this)
        ):
            return "round_beyond_scale"
    if operator == "set_operator" and _distinct_recursion(node, keys):
        return "union_in_distinct_recursion"
    if (
        operator == "swap_projection"
        and isinstance(node, exp.Select)
        and (
            isinstance(node.parent, exp.CTE)
            or (
                isinstance(node.parent, exp.Subquery)
                and isinstance(node.parent.parent, exp.From | exp.Join)
            )
        )
        and not any(isinstance(s, exp.Star) for s in root.walk())
    ):
        return "inner_projection_swap"
    if operator in ("inner_left", "left_inner") and isinstance(node, exp.Join):
        owned = _owned(node, types)
        if _null_rejected(node, dialect == "clickhouse", owned):
            return "left_join_null_rejected"
        if dialect != "clickhouse" and _aggregates_ignore_extended(node, owned):
            return "left_join_under_null_ignoring_aggregates"
    return _clause_rule(operator, node, root, keys, dialect)


def _clause_rule(
    operator: str, node: exp.Expr, root: exp.Expr, keys: Keys, dialect: str = ""
) -> str:
    """The rules of the aggregate, NULL and ORDER BY operators (see :func:`_equivalent`)."""
    if operator == "aggregate_distinct" and _aggregates_a_key(node, keys, dialect):
        return "distinct_aggregate_over_key"
    if operator == "null_in_list" and isinstance(node, exp.In) and _filters(node):
        return "null_in_filtering_in"
    if operator == "drop_order_limit" and isinstance(root, exp.Select) and single_row(root):
        return "order_of_one_row"
    if operator == "not_in_not_exists" and _not_in_keys(node, root, keys):
        return "not_in_over_keys"
    return ""


def _not_in_keys(node: exp.Expr, root: exp.Expr, keys: Keys) -> bool:
    """Whether both columns of ``x NOT IN (SELECT k ...)`` are single-column primary keys (never
    NULL) of the tables they name: NOT IN and NOT EXISTS then agree."""
    parts = not_in_parts(node)
    if parts is None:
        return False
    tables = {t.alias_or_name.lower(): t.name.lower() for t in root.find_all(exp.Table)}

    def keyed(col: exp.Column, scope: exp.Expr) -> bool:
        own = [t.name.lower() for t in scope.find_all(exp.Table)]
        name = tables.get(col.table.lower()) if col.table else (own[0] if len(own) == 1 else None)
        key = keys.get(name or "") or ()
        return len(key) == 1 and key[0].lower() == col.name.lower()

    outer, inner, projected = parts
    return keyed(outer, root) and keyed(projected, inner)


def _aggregates_a_key(node: exp.Expr, keys: Keys, dialect: str = "") -> bool:
    """Whether ``node`` is COUNT / SUM / AVG (DISTINCT or not) of the single-column key of a
    source of its SELECT whose rows the SELECT's joins do not repeat (:func:`_not_fanned_out`;
    the only source counts): its values are distinct, so DISTINCT inside the aggregate changes
    nothing."""
    arg = (
        node.this.expressions[0]
        if isinstance(node.this, exp.Distinct) and len(node.this.expressions) == 1
        else node.this
    )
    select = node.find_ancestor(exp.Select)
    if not isinstance(arg, exp.Column) or not isinstance(select, exp.Select):
        return False
    sources = _from_tables(select)
    if sources is None or any(kind in ("SEMI", "ANTI") for _, kind in sources):
        return False
    named = [
        (i, t)
        for i, (t, _) in enumerate(sources)
        if arg.table.lower() in ("", t.alias_or_name.lower())
    ]
    if len(named) != 1 or (not arg.table and len(sources) > 1):
        return False
    i, table = named[0]
    if len(sources) == 1 and not isinstance(table, exp.Table):
        return False
    key = _source_key(table, keys, select.root())
    if key != {arg.name.lower()}:
        return False
    # ClickHouse (join_use_nulls = 0) fills an unmatched row's key with 0, not NULL: repeated
    return len(sources) == 1 or (
        not (dialect == "clickhouse" and i > 0 and sources[i][1] in ("LEFT", "FULL"))
        and _not_fanned_out(select, i, keys)
    )


def _not_fanned_out(select: exp.Select, i: int, keys: Keys) -> bool:
    """Whether each row of ``select``'s ``i``-th source meets at most one row of every other
    source: the FROM source (when it is not the ``i``-th) has its key equated in the ``i``-th
    source's ON to that source's columns, and each other joined source its key in its own ON
    to columns of the sources before it."""
    joins = select.args.get("joins") or []
    sources = [(t, kind) for t, kind in _from_tables(select) or []]
    names = [t.alias_or_name.lower() for t, _ in sources]
    root = select.root()
    for k, (t, _) in enumerate(sources):
        if k == i:
            continue
        key = _source_key(t, keys, root)
        if not key:
            return False
        join = joins[(i if k == 0 else k) - 1]
        others = {names[i]} if k == 0 else set(names[:k])
        if not _equates(join, names[k], key, others):
            return False
    return True


def _equates(join: exp.Join, qualifier: str, key: set[str], others: set[str]) -> bool:
    """Whether ``join``'s ON conjuncts equate each ``key`` column of ``qualifier`` with a column
    of one of ``others``."""
    on = join.args.get("on")
    if on is None:
        return False
    equated = set()
    for conjunct in on.flatten() if isinstance(on, exp.And) else [on]:
        if not isinstance(conjunct, exp.EQ):
            continue
        sides = [conjunct.this, conjunct.expression]
        for mine, theirs in (sides, sides[::-1]):
            if (
                isinstance(mine, exp.Column)
                and mine.table.lower() == qualifier
                and isinstance(theirs, exp.Column)
                and theirs.table.lower() in others
            ):
                equated.add(mine.name.lower())
    return key <= equated


def _fallback_never_used(node: exp.Literal, dialect: str) -> bool:
    """Whether ``node`` is the fallback of ``ifNull(x, literal)`` / ``COALESCE`` whose ``x`` is
    never NULL: a COUNT, or in ClickHouse (``join_use_nulls = 0``: an unmatched row holds the
    type's default, not NULL) a column of a derived table that projects a COUNT under it."""
    call = node.parent
    if not isinstance(call, exp.Coalesce) or node not in call.expressions:
        return False
    first = call.this
    if isinstance(first, exp.Count):
        return True
    if dialect != "clickhouse" or not isinstance(first, exp.Column) or not first.table:
        return False
    select = call.find_ancestor(exp.Select)
    for source, _ in (_from_tables(select) or []) if isinstance(select, exp.Select) else []:
        if (
            isinstance(source, exp.Subquery)
            and source.alias_or_name.lower() == first.table.lower()
            and isinstance(source.this, exp.Select)
        ):
            return any(
                e.alias_or_name.lower() == first.name.lower() and isinstance(e.unalias(), exp.Count)
                for e in source.this.expressions
            )
    return False


def _distinct_recursion(node: exp.Expr, keys: Keys) -> bool:
    """Whether ``node`` is the UNION [ALL] of a recursive CTE whose rows are distinct anyway:
    a tree walk (:func:`_tree_key`; each row reached once, whichever the source), or, with a
    UNION ALL source, a one-row anchor and a step reading only the CTE (a repeated row would
    recur for ever, so a source that ends repeats none)."""
    cte = node.parent
    if not isinstance(node, exp.Union) or not isinstance(cte, exp.CTE):
        return False
    with_ = cte.parent
    if not isinstance(with_, exp.With) or not with_.args.get("recursive"):
        return False
    walk = cte.copy()
    walk.this.set("distinct", False)
    if _tree_key(walk, keys) is not None:
        return True
    step = node.expression
    return (
        not node.args.get("distinct")
        and isinstance(step, exp.Select)
        and _one_row_per_iteration(step)
    )


def _filters(node: exp.Expr) -> bool:
    """Whether ``node`` is a conjunct of a WHERE, HAVING or JOIN ON (through AND and
    parentheses only): there a NULL and a FALSE drop the same rows."""
    parent = node.parent
    while isinstance(parent, exp.And | exp.Paren):
        parent = parent.parent
    return isinstance(parent, exp.Where | exp.Having | exp.Join)


def _in_semijoin(select: exp.Select) -> bool:
    """Whether ``select`` only tests membership: EXISTS, IN or a SEMI/ANTI join's subquery."""
    parent = select.parent
    if isinstance(parent, exp.Exists):
        return True
    if isinstance(parent, exp.Subquery):
        outer = parent.parent
        if isinstance(outer, exp.In) and outer.args.get("query") is parent:
            return True
        if (
            isinstance(outer, exp.Join)
            and outer.this is parent
            and (outer.kind or "").upper() in ("SEMI", "ANTI")
        ):
            return True
    return False


def _from_tables(select: exp.Select) -> list[tuple[exp.Expr, str]] | None:
    """The FROM and row-contributing JOIN sources of ``select`` with their join kind."""
    source = select.args.get("from_") or select.args.get("from")
    if not isinstance(source, exp.From):
        return None
    out: list[tuple[exp.Expr, str]] = [(source.this, "")]
    for j in select.args.get("joins") or []:
        out.append((j.this, (j.kind or "").upper()))
    return out


def _projects_keys(select: exp.Select, keys: Keys, types: Types | None = None) -> bool:
    """Whether the rows of ``select`` are distinct by construction (see :func:`_select_key`)."""
    return _select_key(select, keys, select.root(), types or {}) is not None


def _select_key(
    select: exp.Select, keys: Keys, root: exp.Expr, types: Types | None = None
) -> set[str] | None:
    """Output names on which the rows of ``select`` are distinct by construction, else None.

    A SELECT without FROM returns one row; a grouped one is distinct on its group keys when
    each is projected (see :func:`_group_key`); otherwise every row-contributing source (a base
    table, a derived table or a non-recursive CTE) must have a key whose columns are projected,
    except a joined source whose key is equated in its ON (it matches each row at most once and
    multiplies nothing)."""
    if select.args.get("group") is not None:
        return _group_key(select, keys, types or {}) or _bare_key(select, keys)
    sources = _from_tables(select)
    if sources is None:
        return (
            set() if select.args.get("from_") is None and select.args.get("from") is None else None
        )
    if any(_aggregates_here(e, select) for e in select.expressions):
        return None
    projected = {}
    for e in select.expressions:
        col = _shifted_number(e.unalias(), sources)
        if isinstance(col, exp.Column):
            projected[(col.table.lower(), col.name.lower())] = e.alias_or_name.lower()
    contributing = [(t, kind) for t, kind in sources if kind not in ("SEMI", "ANTI")]
    joins = {id(j.this): j for j in select.args.get("joins") or []}
    out: set[str] = set()
    for t, _ in contributing:
        key = _source_key(t, keys, root, types or {})
        if key is None:
            return None
        qualifier = t.alias_or_name.lower()
        join = joins.get(id(t))
        if join is not None and key and _key_equated(join, qualifier, key):
            continue
        for k in key:
            name = projected.get((qualifier, k))
            if name is None and len(contributing) == 1:
                name = projected.get(("", k))
            if name is None:
                return None
            out.add(name)
    return out


def _bare_key(select: exp.Select, keys: Keys) -> set[str] | None:
    """Output names on which a grouped ``select`` over one base table (no join) is distinct
    because it projects that table's primary key as bare columns (SQLite's bare columns): each
    group's row comes from a row of its own group, and groups share no row, so no two output
    rows hold one key (``SELECT id FROM t GROUP BY country``); else None."""
    sources = _from_tables(select)
    if sources is None or len(sources) != 1 or not isinstance(sources[0][0], exp.Table):
        return None
    table = sources[0][0]
    key = keys.get(table.name.lower())
    if not key:
        return None
    qualifier = table.alias_or_name.lower()
    bare = {
        e.unalias().name.lower(): e.alias_or_name.lower()
        for e in select.expressions
        if isinstance(e.unalias(), exp.Column) and e.unalias().table.lower() in ("", qualifier)
    }
    names = [bare.get(k.lower()) for k in key]
    return None if None in names else {n for n in names if n}


def _shifted_number(e: exp.Expr, sources: list[tuple[exp.Expr, str]]) -> exp.Expr:
    """The ``number`` column of ``numbers(N) + constant`` (or constant + it, or it - constant)
    when ``sources`` read a ``numbers()`` table function, else ``e`` (an injective shift keeps
    the rows distinct)."""
    if not isinstance(e, exp.Add | exp.Sub) or not any(
        isinstance(t, exp.Table)
        and isinstance(t.this, exp.Anonymous)
        and t.this.name.lower() in _NUMBERS
        for t, _ in sources
    ):
        return e
    sides = [e.this, e.expression] if isinstance(e, exp.Add) else [e.this]
    for col in sides:
        other = e.expression if col is e.this else e.this
        if (
            isinstance(col, exp.Column)
            and col.name.lower() == "number"
            and other.find(exp.Column, exp.AggFunc, exp.Window, exp.Query) is None
        ):
            return col
    return e


def _aggregates_here(e: exp.Expr, select: exp.Select) -> bool:
    """Whether projection ``e`` aggregates rows of ``select`` itself or unnests an array (window
    functions and scalar subqueries keep the row count)."""
    for node in e.find_all(exp.AggFunc, exp.Explode, exp.Unnest):
        if node.find_ancestor(exp.Select) is not select:
            continue  # inside a scalar subquery
        if isinstance(node, exp.AggFunc) and node.find_ancestor(exp.Window) is not None:
            continue
        return True
    return False


def _group_key(select: exp.Select, keys: Keys, types: Types) -> set[str] | None:
    """Output names on which a grouped ``select`` is distinct, else None: every GROUP BY key is
    projected (as an expression, a position, or an output alias that no read table has as a
    column), or is a column of a table whose primary key is grouped by and projected."""
    group = select.args["group"]
    if any(group.args.get(k) for k in ("rollup", "cube", "grouping_sets", "totals")):
        return None
    by_sql = {e.unalias().sql(): e.alias_or_name.lower() for e in select.expressions}
    aliases = {
        e.alias.lower(): e.alias.lower() for e in select.expressions if isinstance(e, exp.Alias)
    }
    read = {t.name.lower() for t in select.find_all(exp.Table)}
    real = {c for t in read for c in types.get(t, {})}
    out: set[str] = set()
    rest: list[exp.Expr] = []
    n = len(select.expressions)
    for g in group.expressions:
        if g.sql() in by_sql:
            out.add(by_sql[g.sql()])
        elif isinstance(g, exp.Literal) and g.is_int and 1 <= int(g.this) <= n:
            out.add(select.expressions[int(g.this) - 1].alias_or_name.lower())
        elif (
            isinstance(g, exp.Column)
            and not g.table
            and g.name.lower() in aliases
            and types
            and g.name.lower() not in real
        ):
            out.add(aliases[g.name.lower()])
        else:
            rest.append(g)
    if not rest:
        return out
    tables = {t.alias_or_name.lower(): t.name.lower() for t in select.find_all(exp.Table)}
    grouped = {g.sql() for g in group.expressions}
    for g in rest:
        if not isinstance(g, exp.Column) or not g.table:
            return None
        key = keys.get(tables.get(g.table.lower(), ""))
        if not key or not all(
            exp.column(k, table=g.table).sql() in grouped
            and exp.column(k, table=g.table).sql() in by_sql
            for k in key
        ):
            return None
    return out


def _set_op_names(body: exp.Expr) -> set[str] | None:
    """The output names of a UNION / INTERSECT / EXCEPT without ALL (distinct on all of them)."""
    if not isinstance(body, exp.Union | exp.Intersect | exp.Except) or not body.args.get(
        "distinct"
    ):
        return None
    left = body
    while isinstance(left, exp.Union | exp.Intersect | exp.Except | exp.Subquery):
        left = left.this
    if not isinstance(left, exp.Select) or any(isinstance(e, exp.Star) for e in left.expressions):
        return None
    return {e.alias_or_name.lower() for e in left.expressions}


def _source_key(
    source: exp.Expr, keys: Keys, root: exp.Expr, types: Types | None = None
) -> set[str] | None:
    """A key (lower-case column names) of a FROM source's rows, else None."""
    if isinstance(source, exp.Subquery) and isinstance(source.this, exp.Select):
        return _select_key(source.this, keys, root, types)
    if isinstance(source, exp.Subquery):
        return _set_op_names(source.this)
    if not isinstance(source, exp.Table):
        return None
    if isinstance(source.this, exp.Anonymous) and source.this.name.lower() in _NUMBERS:
        return {"number"}
    with_ = root.args.get("with_") or root.args.get("with")
    if with_ is None:
        with_ = exp.With(expressions=[])
    for cte in with_.expressions:
        if cte.alias_or_name.lower() == source.name.lower():
            alias = cte.args.get("alias")
            if with_.args.get("recursive"):
                return _tree_key(cte, keys) or _iteration_key(cte)
            if alias is not None and alias.columns:
                return None
            if not isinstance(cte.this, exp.Select):
                return _set_op_names(cte.this)
            return _select_key(cte.this, keys, root, types)
    key = keys.get(source.name.lower())
    return {k.lower() for k in key} if key else None


def _tree_key(cte: exp.CTE, keys: Keys) -> set[str] | None:
    """The key of a recursive CTE that walks a tree (see ``distinct_over_keys``), else None."""
    body = cte.this
    if (
        not isinstance(body, exp.Union)
        or body.args.get("distinct")
        or not isinstance(body.this, exp.Select)
        or not isinstance(body.expression, exp.Select)
    ):
        return None
    anchor, step = body.this, body.expression
    alias = cte.args.get("alias")
    names = (
        [c.name.lower() for c in alias.columns]
        if alias is not None and alias.columns
        else [e.alias_or_name.lower() for e in anchor.expressions]
    )
    a_sources, s_sources = _from_tables(anchor), _from_tables(step)
    if (
        a_sources is None
        or s_sources is None
        or len(a_sources) != 1
        or len(s_sources) != 2
        or any(
            s.args.get("group") or any(_aggregates_here(e, s) for e in s.expressions)
            for s in (anchor, step)
        )
    ):
        return None
    table = a_sources[0][0]
    pk = keys.get(table.name.lower()) if isinstance(table, exp.Table) else None
    if not pk or len(pk) != 1 or len(anchor.expressions) != len(names):
        return None
    key = pk[0].lower()
    p = _key_position(anchor, key, table.alias_or_name.lower())
    walked = [
        t
        for t, kind in s_sources
        if isinstance(t, exp.Table)
        and t.name.lower() == table.name.lower()
        and kind in ("", "INNER")
    ]
    selves = [
        t
        for t, _ in s_sources
        if isinstance(t, exp.Table) and t.name.lower() == cte.alias_or_name.lower()
    ]
    if (
        p is None
        or len(walked) != 1
        or len(selves) != 1
        or _key_position(step, key, walked[0].alias_or_name.lower()) != p
    ):
        return None
    child, parent = walked[0].alias_or_name.lower(), selves[0].alias_or_name.lower()
    return (
        {names[p]} if _joins_child_to_parent(anchor, step, (child, parent), names[p], key) else None
    )


def _iteration_key(cte: exp.CTE) -> set[str] | None:
    """All output names of a recursive CTE whose anchor is one row and whose step reads only
    the CTE (:func:`_one_row_per_iteration`): under UNION its rows are distinct, and under
    UNION ALL a repeated row would recur for ever, so a recursion that ends repeats none."""
    body = cte.this
    alias = cte.args.get("alias")
    if (
        not isinstance(body, exp.Union)
        or not isinstance(body.this, exp.Select)
        or not isinstance(body.expression, exp.Select)
        or not _one_row_per_iteration(body.expression)
    ):
        return None
    if alias is not None and alias.columns:
        return {c.name.lower() for c in alias.columns}
    return {e.alias_or_name.lower() for e in body.this.expressions}


def _key_position(select: exp.Select, key: str, qualifier: str) -> int | None:
    """Where ``select`` lists the key column (bare or qualified by ``qualifier``), or None."""
    for i, e in enumerate(select.expressions):
        col = e.unalias()
        if (
            isinstance(col, exp.Column)
            and col.name.lower() == key
            and col.table.lower() in ("", qualifier)
        ):
            return i
    return None


def _joins_child_to_parent(
    anchor: exp.Select, step: exp.Select, aliases: tuple[str, str], walked: str, key: str
) -> bool:
    """Whether the step joins the child row's parent column (the one the anchor asks to be
    NULL, not the key) to the CTE's ``walked`` column: the recursion follows parent links."""
    child, parent = aliases
    where = anchor.args.get("where")
    conjuncts = (
        []
        if where is None
        else list(where.this.flatten())
        if isinstance(where.this, exp.And)
        else [where.this]
    )
    roots = [
        c.this
        for c in conjuncts
        if isinstance(c, exp.Is)
        and isinstance(c.this, exp.Column)
        and isinstance(c.expression, exp.Null)
    ]
    links = [
        c
        for j in step.args.get("joins") or []
        if j.args.get("on") is not None
        for c in (j.args["on"].flatten() if isinstance(j.args["on"], exp.And) else [j.args["on"]])
        if isinstance(c, exp.EQ)
    ]
    for link in links:
        sides = {
            (x.table.lower(), x.name.lower())
            for x in (link.this, link.expression)
            if isinstance(x, exp.Column)
        }
        for col in roots:
            if sides == {(child, col.name.lower()), (parent, walked)} and col.name.lower() != key:
                return True
    return False


def _one_row_per_iteration(select: exp.Select) -> bool:
    """Whether ``select`` is the recursive step of a CTE whose anchor returns one row and which
    reads only the CTE itself, without aggregating or unnesting (one row per iteration)."""
    body = select.parent
    cte = body.parent if body is not None else None
    if (
        not isinstance(body, exp.Union)
        or body.expression is not select
        or not isinstance(cte, exp.CTE)
        or not isinstance(body.this, exp.Select)
    ):
        return False
    anchor = body.this
    sources = _from_tables(select)
    return (
        anchor.args.get("from_") is None
        and anchor.args.get("from") is None
        and sources is not None
        and len(sources) == 1
        and isinstance(sources[0][0], exp.Table)
        and sources[0][0].name.lower() == cte.alias_or_name.lower()
        and not any(_aggregates_here(e, select) for e in select.expressions)
        and select.args.get("group") is None
    )


def _folds_case(dialect: str) -> bool:
    """Whether ``dialect``'s default collation compares strings ignoring case."""
    d = DIALECTS.get(dialect)
    return d is not None and d.case_sensitive_strings is False


def _key_equated(join: exp.Join, qualifier: str, key: set[str]) -> bool:
    """Whether ``join``'s ON conjuncts equate every key column of the joined source."""
    on = join.args.get("on")
    if on is None:
        return False
    equated = set()
    for conjunct in on.flatten() if isinstance(on, exp.And) else [on]:
        if isinstance(conjunct, exp.EQ):
            for side in (conjunct.this, conjunct.expression):
                if isinstance(side, exp.Column) and side.table.lower() == qualifier:
                    equated.add(side.name.lower())
    return key <= equated


def _null_rejected(
    join: exp.Join, defaults: bool = False, owned: frozenset[str] = frozenset()
) -> bool:
    """Whether a WHERE conjunct or a later inner join's ON compares a column of ``join``'s table
    directly (the NULL-extended rows of a LEFT JOIN would be filtered out again); an OR does
    when each of its disjuncts does, and an unqualified column is the table's when its name is
    in ``owned`` (no other table read has it). ``defaults``:
    an unmatched row may hold the column type's default instead of NULL (ClickHouse's
    ``join_use_nulls = 0``), so only a comparison with literals that every default fails
    (:func:`_default_rejects`) or :func:`_date_part_rejects` proves it."""
    select = join.parent
    if not isinstance(select, exp.Select):
        return False
    alias = join.this.alias_or_name.lower()
    conditions: list[exp.Expr] = []
    where = select.args.get("where")
    if where is not None:
        conditions.append(where.this)
    joins = select.args.get("joins") or []
    for later in joins[joins.index(join) + 1 :]:
        if (
            not later.side
            and (later.kind or "INNER").upper() == "INNER"
            and later.args.get("on") is not None
        ):
            conditions.append(later.args["on"])
    return any(_rejects(c, alias, defaults, owned) for c in conditions)


def _rejects(condition: exp.Expr, alias: str, defaults: bool, owned: frozenset[str]) -> bool:
    """Whether ``condition`` fails on every NULL-extended row of ``alias`` (see
    :func:`_null_rejected`): a conjunct of it does, or each disjunct of an OR does."""
    while isinstance(condition, exp.Paren):
        condition = condition.this
    if isinstance(condition, exp.And | exp.Or):
        parts = [_rejects(c, alias, defaults, owned) for c in condition.flatten()]
        return any(parts) if isinstance(condition, exp.And) else all(parts)
    if _date_part_rejects(condition, alias):
        return True
    if defaults:
        return _default_rejects(condition, alias)
    if isinstance(condition, exp.Not) and isinstance(condition.this, exp.Is):
        operands = [condition.this.this]
    elif isinstance(condition, NULL_REJECTING):
        operands = [condition.this, condition.args.get("expression")]
    else:
        return False
    return any(_reads_strictly(o, alias, owned) for o in operands)


def _owned(join: exp.Join, types: Types) -> frozenset[str]:
    """The lower-case column names of ``join``'s table that no other table its SELECT reads has
    (an unqualified one of them is that table's; only with ``types``)."""
    select = join.parent
    if not isinstance(select, exp.Select) or not isinstance(join.this, exp.Table):
        return frozenset()
    others = {
        c
        for t in select.find_all(exp.Table)
        if t is not join.this and t.find_ancestor(exp.Select) is select
        for c in types.get(t.name.lower(), {"": ""})
    }
    if "" in others:  # a table of unknown columns may hold any of them
        return frozenset()
    return frozenset(set(types.get(join.this.name.lower(), {})) - others)


def _aggregates_ignore_extended(join: exp.Join, owned: frozenset[str]) -> bool:
    """Whether ``join``'s SELECT is one row of aggregates that ignore NULLs (COUNT, SUM, AVG,
    MIN, MAX of an expression that is NULL where ``join``'s table's columns are, DISTINCT or
    not), without GROUP BY, HAVING or window: the rows a LEFT JOIN adds hold NULL there, and
    change none of them (``SELECT COUNT(c.x) FROM p LEFT JOIN c ON ...``)."""
    select = join.parent
    if (
        not isinstance(select, exp.Select)
        or select.args.get("group") is not None
        or select.args.get("having") is not None
        or any(e.find(exp.Window) for e in select.expressions)
    ):
        return False
    alias = join.this.alias_or_name.lower()
    found = False
    for e in select.expressions:
        for col in e.find_all(exp.Column, exp.Star):
            agg = col.find_ancestor(exp.AggFunc)
            while agg is not None and agg.find_ancestor(exp.AggFunc) is not None:
                agg = agg.find_ancestor(exp.AggFunc)
            arg = agg.this if agg is not None else None
            if isinstance(arg, exp.Distinct):
                arg = arg.expressions[0] if len(arg.expressions) == 1 else None
            if not isinstance(agg, _IGNORE_NULLS) or not _reads_strictly(arg, alias, owned):
                return False
            found = True
    return found


_IGNORE_NULLS = (exp.Count, exp.Sum, exp.Avg, exp.Min, exp.Max)


# the values a non-Nullable column of an unmatched ClickHouse LEFT JOIN row holds, by whether
# the literal compared is a string: 0 for numbers, '' for strings, the epoch for dates
_DEFAULTS: dict[bool, tuple[float | str, ...]] = {
    False: (0,),
    True: ("", "1970-01-01", "1970-01-01 00:00:00"),
}
_HOLDS: dict[type[exp.Expr], Callable[[Any, Any], bool]] = {
    exp.EQ: op_.eq,
    exp.NEQ: op_.ne,
    exp.GT: op_.gt,
    exp.GTE: op_.ge,
    exp.LT: op_.lt,
    exp.LTE: op_.le,
}
_MIRROR: dict[type[exp.Expr], type[exp.Expr]] = {
    exp.EQ: exp.EQ,
    exp.NEQ: exp.NEQ,
    exp.GT: exp.LT,
    exp.GTE: exp.LTE,
    exp.LT: exp.GT,
    exp.LTE: exp.GTE,
}


def _literal(node: exp.Expr | None) -> tuple[bool, float | str] | None:
    """(is_string, value) of a literal, a negated number included; None otherwise."""
    if isinstance(node, exp.Neg) and isinstance(node.this, exp.Literal) and not node.this.is_string:
        return False, -float(node.this.this)
    if not isinstance(node, exp.Literal):
        return None
    return (True, node.this) if node.is_string else (False, float(node.this))


def _literal_test(
    conjunct: exp.Expr, alias: str
) -> list[list[tuple[type[exp.Expr], tuple[bool, float | str] | None]]]:
    """``conjunct`` as a disjunction of conjunctions of (comparison, literal) on one column of
    ``alias`` (IN: one EQ per value; BETWEEN: GTE and LTE), [] when it is not of that form."""

    def of_alias(node: exp.Expr | None) -> bool:  # LOWER/UPPER/TRIM keep every default
        while isinstance(node, exp.Lower | exp.Upper | exp.Trim):
            node = node.this
        return isinstance(node, exp.Column) and node.table.lower() == alias

    if isinstance(conjunct, exp.In) and of_alias(conjunct.this):
        return [[(exp.EQ, _literal(e))] for e in conjunct.expressions]
    if isinstance(conjunct, exp.Between) and of_alias(conjunct.this):
        return [
            [
                (exp.GTE, _literal(conjunct.args.get("low"))),
                (exp.LTE, _literal(conjunct.args.get("high"))),
            ]
        ]
    if type(conjunct) in _HOLDS:
        op, column, other = type(conjunct), conjunct.this, conjunct.expression
        if not of_alias(column):
            op, column, other = _MIRROR[op], other, column
        return [[(op, _literal(other))]] if of_alias(column) else []
    return []


def _default_rejects(conjunct: exp.Expr, alias: str) -> bool:
    """Whether ``conjunct`` compares a column of ``alias`` (or its LOWER, UPPER, TRIM) with
    literals (=, <>, <, <=, >, >=, IN, BETWEEN) that NULL and every default of
    :data:`_DEFAULTS` fail."""
    test = _literal_test(conjunct, alias)
    literals = [lit for clause in test for _, lit in clause]
    if not literals or None in literals:
        return False
    kinds = {lit[0] for lit in literals if lit is not None}
    if len(kinds) != 1 or any(
        lit is not None and str(lit[1]).startswith("1970-01-01") for lit in literals
    ):
        return False  # mixed kinds, or the epoch itself (a DateTime and a date compare equal)
    return not any(
        all(_HOLDS[op](default, lit[1]) for op, lit in clause if lit is not None)
        for default in _DEFAULTS[kinds.pop()]
        for clause in test
    )


def _date_part_rejects(conjunct: exp.Expr, alias: str) -> bool:
    """Whether ``conjunct`` is ClickHouse's ``toYear(alias.col) = literal`` (a part of
    :data:`_CH_DATE_PARTS`) with a literal other than that part of 1970-01-01: it rejects both
    NULL and the default date a non-Nullable column holds in an unmatched LEFT JOIN row."""
    if not isinstance(conjunct, exp.EQ):
        return False
    for part, value in ((conjunct.this, conjunct.expression), (conjunct.expression, conjunct.this)):
        if (
            isinstance(part, exp.Anonymous)
            and part.name.lower() in _CH_DATE_PARTS
            and len(part.expressions) == 1
            and isinstance(part.expressions[0], exp.Column)
            and part.expressions[0].table.lower() == alias
            and isinstance(value, exp.Literal)
            and not value.is_string
        ):
            return value.this != str(_CH_DATE_PARTS[part.name.lower()])
    return False


_STRICT = (
    exp.Paren,
    *ARITHMETIC,
    exp.Neg,
    exp.Cast,
    exp.TryCast,
    exp.Lower,
    exp.Upper,
    exp.Length,
    exp.Substring,
    exp.Trim,
    exp.Abs,
    exp.Round,
    exp.Floor,
    exp.Ceil,
    exp.Year,
    exp.Month,
    exp.Day,
    exp.Quarter,
    exp.Extract,
    exp.DateTrunc,
    exp.TimestampTrunc,
    exp.TsOrDsToDate,
)


def _reads_strictly(node: exp.Expr | None, alias: str, owned: frozenset[str] = frozenset()) -> bool:
    """Whether ``node`` is a column of ``alias`` (or an unqualified one named in ``owned``) or a
    NULL-propagating expression (:data:`_STRICT`) of one: NULL there makes ``node`` NULL."""
    if isinstance(node, exp.Column):
        if not node.table:
            return node.name.lower() in owned
        return node.table.lower() == alias
    if not isinstance(node, _STRICT):
        return False
    return any(
        _reads_strictly(child, alias, owned)
        for child in node.iter_expressions()
        if not isinstance(child, exp.DataType | exp.Literal)
    )


def _scale_under_round(node: exp.Literal, step: int) -> bool:
    """Whether ``node`` is the scale S of ``toDecimalNN(x, S)`` directly under ``round(·, N)``
    and both S and S + ``step`` exceed N."""
    call = node.parent
    if (
        not isinstance(call, exp.Anonymous)
        or not _TO_DECIMAL.fullmatch(call.name)
        or len(call.expressions) != 2
        or call.expressions[1] is not node
    ):
        return False
    wrapper = call.parent
    digits = wrapper.args.get("decimals") if isinstance(wrapper, exp.Round) else None
    if wrapper is None or wrapper.this is not call or digits is None:
        return False
    if not (isinstance(digits, exp.Literal) and digits.is_int):
        return False
    return min(int(node.this), int(node.this) + step) > int(digits.this)


def _scale(node: exp.Expr, root: exp.Expr, types: Types) -> int | None:
    """Digits after the point of an expression of integer and decimal columns, else None."""
    if isinstance(node, exp.Paren):
        return _scale(node.this, root, types)
    if isinstance(node, exp.Column):
        ptype = _column_type(node, root, types)
        if ptype in ("integer", "bigint"):
            return 0
        match = re.fullmatch(r"decimal\(\d+,\s*(\d+)\)", ptype or "")
        if match:
            return int(match.group(1))
        derived = _cte_projection(node, root)
        return None if derived is None else _scale(derived, root, types)
    if isinstance(node, exp.Window) and isinstance(node.this, exp.Sum | exp.Min | exp.Max):
        return _scale(node.this, root, types)
    if isinstance(node, exp.Literal) and not node.is_string:
        return len(node.this.split(".")[1]) if "." in node.this else 0
    if isinstance(node, exp.Sum | exp.Min | exp.Max):
        return _scale(node.this, root, types)
    if isinstance(node, exp.Add | exp.Sub | exp.Mul):
        a, b = _scale(node.this, root, types), _scale(node.expression, root, types)
        if a is None or b is None:
            return None
        return a + b if isinstance(node, exp.Mul) else max(a, b)
    return None


def _cte_projection(col: exp.Column, root: exp.Expr) -> exp.Expr | None:
    """The expression a non-recursive CTE projects as ``col`` (qualified by the CTE's name or
    alias, or bare in a SELECT whose only source is that CTE), else None."""
    select = col.find_ancestor(exp.Select)
    sources = _from_tables(select) if isinstance(select, exp.Select) else None
    if not sources:
        return None
    named = [
        t
        for t, _ in sources
        if isinstance(t, exp.Table)
        and (t.alias_or_name.lower() == col.table.lower() or (not col.table and len(sources) == 1))
    ]
    with_ = root.args.get("with_") or root.args.get("with")
    if len(named) != 1 or not isinstance(with_, exp.With):
        return None
    for cte in with_.expressions:
        body = cte.this
        if (
            cte.alias_or_name.lower() == named[0].name.lower()
            and isinstance(body, exp.Select)
            and not any(
                t.name.lower() == cte.alias_or_name.lower() for t in body.find_all(exp.Table)
            )
        ):
            found = [
                e.unalias() for e in body.expressions if e.alias_or_name.lower() == col.name.lower()
            ]
            return found[0] if len(found) == 1 else None
    return None


def _column_type(col: exp.Column, root: exp.Expr, types: Types) -> str | None:
    """The type of a base-table column (resolved through table aliases), else None."""
    tables = {t.alias_or_name.lower(): t.name.lower() for t in root.find_all(exp.Table)}
    ctes = {c.alias_or_name.lower() for c in root.find_all(exp.CTE)}
    if col.table:
        name = tables.get(col.table.lower())
        candidates = [name] if name and name not in ctes else []
    else:
        candidates = [t for t in set(tables.values()) if t not in ctes]
    found = [
        types[t][col.name.lower()]
        for t in candidates
        if t in types and col.name.lower() in types[t]
    ]
    return found[0] if len(found) == 1 else None


def _parses(sql: str, dialect: str) -> bool:
    try:
        return isinstance(sqlglot.parse_one(sql, read=dialect), exp.Query)
    except (SqlglotError, ValueError, RecursionError):
        return False
