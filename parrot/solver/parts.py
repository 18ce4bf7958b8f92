"""The fragment's syntax: a query parsed into the parts the encoder reads (FROM slots, joins,
ORDER BY, LIMIT, UNION branches, CTEs), its literals and the finite text domain. Anything
outside the fragment raises ``_Unsupported`` here or in :mod:`parrot.solver.core`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

from parrot.dialects.splitter import splitter
from parrot.solver.logic import _Unsupported


@dataclass
class _Query:
    """The parts of one SELECT the encoder reads."""

    tree: exp.Query
    # (alias, source) in FROM order: a table or CTE name, or a derived table's query
    slots: list[tuple[str, str | _Query]]
    joins: list[tuple[str, exp.Expr | None]]  # per slot after the first: (kind, ON)
    order: list[exp.Ordered]
    limit: int | None
    union: list[_Query] = field(default_factory=list)  # UNION [ALL]'s two SELECTs (or unions)
    # WITH's non-recursive CTEs in order: (name, query, column names or None), inlined
    ctes: list[tuple[str, _Query, list[str] | None]] = field(default_factory=list)


def parse(sql: str, dialect: str) -> exp.Query:
    """One query's AST (the dialect's splitter counts the statements), or _Unsupported."""
    statements = splitter(dialect).split(sql)
    try:
        trees = (
            [
                t
                for t in sqlglot.parse(statements[0], read=dialect)
                if t is not None and not isinstance(t, exp.Semicolon)
            ]
            if len(statements) == 1
            else []
        )
    except (SqlglotError, RecursionError, ValueError):
        trees = []
    if len(trees) != 1 or not isinstance(trees[0], exp.Query):
        raise _Unsupported("not a single query sqlglot parses")
    return trees[0]


def sqlite_strings(tree: exp.Query, sql: str, names: set[str]) -> exp.Query:
    """``tree`` with SQLite's double-quoted strings read as SQLite reads them: a double-quoted
    name that resolves to no column is a string literal (``WHERE continent = "north america"``,
    as many Spider golds write it). Read conservatively: an unqualified name double-quoted in
    ``sql`` that is no column of any table (``names``, lower case), no alias and no derived
    table's column of the query; anything else stays a column (and fails to resolve as before)."""
    declared = {a.alias.lower() for a in tree.find_all(exp.Alias)}
    declared |= {c.name.lower() for t in tree.find_all(exp.TableAlias) for c in t.columns}

    def read(node: exp.Expr) -> exp.Expr:
        if (
            isinstance(node, exp.Column)
            and not node.table
            and isinstance(node.this, exp.Identifier)
            and node.this.quoted
            and node.name.lower() not in names | declared
            and f'"{node.name}"' in sql
        ):
            return exp.Literal.string(node.name)
        return node

    out = tree.transform(read)
    assert isinstance(out, exp.Query)  # only columns below the query are replaced
    return out


def _parts(tree: exp.Expr) -> _Query:
    ctes = _ctes(tree)
    if type(tree) is exp.Union:
        if tree.args.get("offset"):
            raise _Unsupported("OFFSET")
        branches = [_parts(tree.left), _parts(tree.right)]
        if any(b.order or b.limit is not None for b in branches):
            raise _Unsupported("ORDER BY or LIMIT inside a UNION")
        order = list(tree.args["order"].expressions) if tree.args.get("order") else []
        return _Query(tree, [], [], order, _limit(tree), union=branches, ctes=ctes)
    if isinstance(tree, exp.Subquery):
        return _parts(tree.this)
    if not isinstance(tree, exp.Select):
        raise _Unsupported(f"{type(tree).__name__} (not a SELECT or UNION)")
    for key in (
        "windows",
        "offset",
        "qualify",
        "distribute",
        "sort",
        "cluster",
        "into",
        "laterals",
        "pivots",
    ):
        if tree.args.get(key):
            raise _Unsupported(key.rstrip("_").upper())
    if any(isinstance(n, exp.Window) for n in tree.walk()):
        raise _Unsupported("window function")
    source = tree.args.get("from_") or tree.args.get("from")
    if source is None:
        raise _Unsupported("no FROM")
    slots = [_slot(source.this)]
    joins: list[tuple[str, exp.Expr | None]] = []
    for j in tree.args.get("joins") or ():
        side, kind = (j.side or "").upper(), (j.kind or "").upper()
        if j.args.get("using") or j.method:
            raise _Unsupported("JOIN USING / NATURAL")
        if side == "LEFT" and kind in ("", "OUTER"):
            joins.append(("left", j.args.get("on")))
        elif not side and kind in ("", "INNER", "CROSS"):
            joins.append(("inner", j.args.get("on")))
        elif side in ("", "LEFT") and kind in ("SEMI", "ANTI"):  # DuckDB's: EXISTS, NOT EXISTS
            joins.append((kind.lower(), j.args.get("on")))
        else:
            raise _Unsupported(f"{side} {kind} JOIN".strip())
        slots.append(_slot(j.this))
    order = list(tree.args["order"].expressions) if tree.args.get("order") else []
    return _Query(tree, slots, joins, order, _limit(tree), ctes=ctes)


def _limit(tree: exp.Expr) -> int | None:
    if tree.args.get("limit") is None:
        return None
    n = tree.args["limit"].expression
    if not (isinstance(n, exp.Literal) and n.is_int):
        raise _Unsupported("LIMIT that is not an integer literal")
    return int(n.this)


def _ctes(tree: exp.Expr) -> list[tuple[str, _Query, list[str] | None]]:
    """WITH's CTEs (non-recursive), each parsed; inlined where they are read."""
    with_ = tree.args.get("with_") or tree.args.get("with")
    if not with_:
        return []
    if with_.args.get("recursive"):
        raise _Unsupported("WITH RECURSIVE")
    out = []
    for cte in with_.expressions:
        if cte.args.get("materialized") is not None:
            pass  # a planner hint: the same rows either way
        alias = cte.args.get("alias")
        names = [c.name.lower() for c in alias.columns] if alias and alias.columns else None
        out.append((cte.alias_or_name.lower(), _parts(cte.this), names))
    return out


def _slot(node: exp.Expr) -> tuple[str, str | _Query]:
    if isinstance(node, exp.Subquery):
        if not node.alias:
            raise _Unsupported("derived table without an alias")
        if node.args["alias"].columns:
            raise _Unsupported("derived table with a column list")
        return (node.alias.lower(), _parts(node.this))
    if not isinstance(node, exp.Table) or node.args.get("db") or isinstance(node.this, exp.Func):
        raise _Unsupported(f"FROM {type(node).__name__} (not a plain table)")
    return (node.alias_or_name.lower(), node.name.lower())


def _literals(trees: Sequence[exp.Expr]) -> tuple[list[str], list[int]]:
    strings: set[str] = set()
    numbers: list[int] = []
    for tree in trees:
        for lit in tree.find_all(exp.Literal):
            if lit.is_string:
                strings.add(lit.this)
            else:
                try:
                    numbers.append(int(float(lit.this)))
                except (ValueError, OverflowError):
                    raise _Unsupported(f"numeric literal {lit.this}") from None
    return sorted(strings), numbers


def _domain(trees: Sequence[exp.Expr]) -> list[str]:
    """The text values a cell may hold: the literals, a string matching each LIKE pattern, and
    three others."""
    strings, _ = _literals(trees)
    out = set(strings) | {"a", "m", "zz"}
    out |= {
        str(int(lit.this)) for tree in trees for lit in tree.find_all(exp.Literal) if lit.is_int
    }  # SQLite compares text with an integer literal as text
    for tree in trees:
        for like in tree.find_all(exp.Like, exp.ILike):
            pattern = like.expression
            if isinstance(pattern, exp.Literal) and pattern.is_string:
                tokens = _like_tokens(pattern.this, _escape_of(like))
                for hit in (
                    "".join({"%": "", "_": "x"}.get(t, t[-1]) for t in tokens),
                    "".join({"%": "q", "_": "y"}.get(t, t[-1]) for t in tokens),
                ):
                    out |= {hit, hit.swapcase()}  # SQLite's LIKE folds case, the others' not
    return sorted(out)


def _escape_of(like: exp.Expr) -> str:
    """The ESCAPE character of a LIKE (its parent ``Escape`` node), or ''."""
    parent = like.parent
    if isinstance(parent, exp.Escape) and parent.this is like:
        esc = parent.expression
        if not (isinstance(esc, exp.Literal) and esc.is_string and len(esc.this) == 1):
            raise _Unsupported("ESCAPE that is not one character")
        return str(esc.this)
    return ""


def _like_tokens(pattern: str, escape: str) -> list[str]:
    """A LIKE pattern as tokens: '%', '_', or '=' + a literal character."""
    out, i = [], 0
    while i < len(pattern):
        c = pattern[i]
        if escape and c == escape and i + 1 < len(pattern):
            out.append("=" + pattern[i + 1])
            i += 2
            continue
        out.append(c if c in "%_" else "=" + c)
        i += 1
    return out
