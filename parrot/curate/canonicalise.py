"""Stage 1b, canonicalise: undo source-dialect quirks that are not translation problems, using the
schema of the statement's fixture.

Two rewrites, both exactly what the source engine already does when it reads the statement:

* **case** — where the source dialect compares an identifier kind case-insensitively
  (:data:`CASE_INSENSITIVE`; SQLite: tables, columns and aliases), every reference is spelt as
  declared: a table as in the fixture, a column as in its table (or as the derived table / CTE /
  ``AS`` alias that defines it), a table alias or CTE name as in its definition. Spider writes
  ``FROM ref_product_categories`` for ``Ref_Product_Categories``; a case-sensitive target
  (ClickHouse, MariaDB table names on Linux) would otherwise fail on a source-side sloppiness.
* **double-quoted strings** — SQLite reads a double-quoted token that names no column (nor
  alias) in scope as a string literal (``WHERE code = "Herbs"``); such tokens become
  ``'Herbs'``. A double-quoted token that does resolve stays an identifier.

Names are resolved by a scope walk over sqlglot's AST (:func:`sqlglot.optimizer.scope.build_scope`):
the sources of the token's own SELECT, then of enclosing SELECTs for correlated subqueries (not
across derived tables or CTEs), then output aliases. When a name could come from a source whose
columns are unknown (a table missing from the fixture), nothing is rewritten for it. Edits are
applied at the identifiers' token positions, so the rest of the statement keeps its original text.

Every rewritten statement is run, with the original, on the source engine over the fixture; a
rewrite that changes the result (strict comparison) is dropped and counted. Statements that
became duplicates of one another are dropped as in :mod:`parrot.curate.standardise`.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Any

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError
from sqlglot.optimizer.scope import Scope, ScopeType, build_scope

from parrot.compare import Mode, compare
from parrot.curate.anonymise import resolve_fixture
from parrot.curate.stages import Batch, Drop, Record, Stage
from parrot.curate.standardise import deduplicate
from parrot.curate.verify import checker
from parrot.datasets import Item
from parrot.fixtures import Fixture, FixtureError
from parrot.migrate.named import named_fixture

# identifier kinds the source dialect matches case-insensitively (whatever the quoting)
CASE_INSENSITIVE: dict[str, frozenset[str]] = {
    "sqlite": frozenset({"table", "column", "alias"}),
    "duckdb": frozenset({"table", "column", "alias"}),
    "mysql": frozenset({"column"}),  # table names follow lower_case_table_names
}
# dialects that read a double-quoted token naming nothing in scope as a string literal
DOUBLE_QUOTED_FALLBACK = frozenset({"sqlite"})
# implicit columns of every SQLite table
_ROWID = frozenset({"rowid", "oid", "_rowid_"})
# clauses of a SELECT in which SQLite also resolves output aliases (ON: to stay conservative)
_ALIAS_CLAUSES = frozenset({"where", "group", "having", "order", "joins"})


class Unknown(Exception):
    """A name that may come from a source whose columns are unknown."""


@dataclass
class Schema:
    """Declared spellings: table (lower) → name, and table (lower) → column (lower) → name."""

    tables: dict[str, str] = field(default_factory=dict)
    columns: dict[str, dict[str, str]] = field(default_factory=dict)

    @classmethod
    def of(cls, fixture: Fixture) -> Schema:
        out = cls()
        for t in fixture.tables:
            out.tables[t.name.lower()] = t.name
            out.columns[t.name.lower()] = {c.lower(): c for c in t.column_names}
        return out


@dataclass
class Canonical:
    """The canonical statement and what was rewritten (edit kind → count)."""

    sql: str
    edits: Counter[str] = field(default_factory=Counter)
    problem: str | None = None  # why the statement was left alone


@dataclass
class _Source:
    qualifier: str  # how references should spell the source's name
    columns: dict[str, str] | None  # lower → spelling; None: unknown
    rowid: bool = False  # a stored table (rowid, oid, _rowid_ resolve)
    kind: str = "alias"  # what the qualifier spells: "table" (a table's name) or "alias"


class _Resolver:
    """Name resolution over one statement's scopes."""

    def __init__(self, tree: exp.Expr, schema: Schema):
        root = build_scope(tree)
        if root is None:
            raise SqlglotError("no query scope")
        self.schema = schema
        self.scopes: dict[int, Scope] = {id(s.expression): s for s in root.traverse()}
        self.ctes: dict[str, str] = {}  # lower → declared name
        for cte in tree.find_all(exp.CTE):
            name = cte.alias_or_name
            self.ctes.setdefault(name.lower(), name)
        self._sources: dict[int, list[tuple[str, _Source]]] = {}
        self._outputs: dict[int, dict[str, str] | None] = {}

    # --- where a node is --------------------------------------------------------------------------

    def enclosing(self, node: exp.Expr) -> tuple[Scope | None, str]:
        """The scope a node belongs to and the clause (arg key) of its expression it sits in."""
        child, parent = node, node.parent
        while parent is not None:
            scope = self.scopes.get(id(parent))
            if scope is not None:
                return scope, child.arg_key or ""
            child, parent = parent, parent.parent
        return None, ""

    # --- what a scope can see ---------------------------------------------------------------------

    def sources(self, scope: Scope) -> list[tuple[str, _Source]]:
        """The scope's FROM/JOIN sources with their lower-cased reference names (``""`` for a
        derived table without alias, which SQLite allows and sqlglot's scopes refuse)."""
        key = id(scope)
        if key not in self._sources:
            out: list[tuple[str, _Source]] = []
            select = scope.expression
            if isinstance(select, exp.Select):
                from_ = select.args.get("from_") or select.args.get("from")
                nodes = [from_.this] if isinstance(from_, exp.From) else []
                nodes += [j.this for j in select.args.get("joins") or ()]
                for node in nodes:
                    name = node.alias_or_name
                    source: exp.Expr | Scope | None = None
                    if isinstance(node, exp.Table):
                        cte = scope.sources.get(node.name) if not node.args.get("db") else None
                        source = cte if isinstance(cte, Scope) else node
                    elif isinstance(node, exp.Subquery):
                        source = self.scopes.get(id(node.this))
                    out.append((name.lower(), self._source(name, node, source)))
            self._sources[key] = out
        return self._sources[key]

    def _source(self, name: str, node: exp.Expr, source: exp.Expr | Scope | None) -> _Source:
        alias = node.args.get("alias") if isinstance(node, exp.Table | exp.Subquery) else None
        alias_id = alias.this if isinstance(alias, exp.TableAlias) else None
        listed = (
            [c.name for c in alias.columns]
            if isinstance(alias, exp.TableAlias) and alias.columns
            else None
        )
        if isinstance(source, Scope):
            columns = self.outputs(source)
            if isinstance(node, exp.Table) and not alias_id:  # a CTE by its name
                qualifier = self.ctes.get(node.name.lower(), node.name)
            else:
                qualifier = alias_id.name if isinstance(alias_id, exp.Identifier) else name
            if listed is not None:
                columns = {c.lower(): c for c in listed}
            return _Source(qualifier, columns)
        if not isinstance(source, exp.Table):
            return _Source(name, None)
        table = self.schema.tables.get(source.name.lower())
        columns = self.schema.columns.get(source.name.lower()) if table else None
        if listed is not None:
            columns = {c.lower(): c for c in listed}
        if isinstance(alias_id, exp.Identifier):
            return _Source(alias_id.name, columns, rowid=table is not None)
        return _Source(table or source.name, columns, rowid=table is not None, kind="table")

    def outputs(self, scope: Scope) -> dict[str, str] | None:
        """The output column names of a derived table or CTE (lower → spelling), or None."""
        key = id(scope)
        if key in self._outputs:
            return self._outputs[key]
        self._outputs[key] = None  # recursion guard
        select = scope.expression
        while isinstance(select, exp.SetOperation):
            select = select.left
        if not isinstance(select, exp.Select):
            return None
        cte = scope.expression.parent
        if isinstance(cte, exp.CTE) and isinstance(cte.args.get("alias"), exp.TableAlias):
            listed = cte.args["alias"].columns
            if listed:
                self._outputs[key] = {c.name.lower(): c.name for c in listed}
                return self._outputs[key]
        inner = self.scopes.get(id(select))
        out: dict[str, str] = {}
        for proj in select.expressions:
            if isinstance(proj, exp.Star) or (
                isinstance(proj, exp.Column) and isinstance(proj.this, exp.Star)
            ):
                if inner is None:
                    return None
                srcs = self.sources(inner)
                picked = (
                    [dict(srcs).get(proj.table.lower())]
                    if isinstance(proj, exp.Column)
                    else [src for _, src in srcs]
                )
                for src in picked:
                    if src is None or src.columns is None:
                        return None
                    for low, name in src.columns.items():
                        out.setdefault(low, name)
            elif isinstance(proj, exp.Column) and inner is not None:
                spelt = self.spelling(inner, proj) or proj.name
                out.setdefault(spelt.lower(), spelt)
            elif proj.alias_or_name:
                out.setdefault(proj.alias_or_name.lower(), proj.alias_or_name)
        self._outputs[key] = out
        return out

    def aliases(self, scope: Scope) -> dict[str, str]:
        """Output aliases (``AS x``) of a SELECT scope, or the output names of a set operation."""
        select = scope.expression
        if isinstance(select, exp.SetOperation):
            return self.outputs(scope) or {}
        if not isinstance(select, exp.Select):
            return {}
        return {
            p.alias.lower(): p.alias
            for p in select.expressions
            if isinstance(p, exp.Alias) and p.alias
        }

    # --- resolution -------------------------------------------------------------------------------

    def qualifier(self, scope: Scope, name: str) -> _Source | None:
        """The source a qualified reference ``name.x`` names (innermost first)."""
        cur: Scope | None = scope
        while cur is not None:
            for low, src in self.sources(cur):
                if low and low == name.lower():
                    return src
            cur = self._outer(cur)
        return None

    def column(self, scope: Scope, clause: str, name: str) -> str | None:
        """The declared spelling of an unqualified column or alias reference; None when it
        resolves to nothing. Raises :class:`Unknown` when a source of unknown columns may
        hold it."""
        low = name.lower()
        cur: Scope | None = scope
        first = True
        while cur is not None:
            aliases = self.aliases(cur)
            if first and clause in ("order", "group") and low in aliases:
                return aliases[low]  # SQLite: output names first in ORDER BY / GROUP BY
            unknown = False
            for _, src in self.sources(cur):
                if src.columns is None:
                    unknown = True
                elif low in src.columns:
                    return src.columns[low]
                elif low in _ROWID and src.rowid:
                    return name
            if unknown:
                raise Unknown(name)
            if low in aliases and (
                not first
                or clause in _ALIAS_CLAUSES
                or isinstance(cur.expression, exp.SetOperation)
            ):
                return aliases[low]
            cur, first = self._outer(cur), False
        return None

    def spelling(self, scope: Scope, col: exp.Column) -> str | None:
        """The declared spelling of a column reference made in ``scope``'s projections."""
        if col.table:
            src = self.qualifier(scope, col.table)
            return src.columns.get(col.name.lower()) if src and src.columns else None
        try:
            return self.column(scope, "expressions", col.name)
        except Unknown:
            return None

    @staticmethod
    def _outer(scope: Scope) -> Scope | None:
        """The scope whose names a scope also sees (correlated subqueries), or None."""
        if scope.scope_type in (
            ScopeType.DERIVED_TABLE,
            ScopeType.CTE,
            ScopeType.ROOT,
            ScopeType.UDTF,
        ):
            return None
        return scope.parent


def canonicalise(sql: str, dialect: str, schema: Schema) -> Canonical:
    """``sql`` with identifier case and SQLite's double-quoted strings made explicit."""
    kinds = CASE_INSENSITIVE.get(dialect, frozenset())
    fallback = dialect in DOUBLE_QUOTED_FALLBACK
    if not kinds and not fallback:
        return Canonical(sql, problem="dialect")
    try:
        trees = [t for t in sqlglot.parse(sql, read=dialect) if t is not None]
        if len(trees) != 1 or not isinstance(trees[0], exp.Query):
            return Canonical(sql, problem="not a single query")
        edits = _edits(sql, trees[0], schema, kinds, fallback)
    except (SqlglotError, RecursionError, ValueError, KeyError, AttributeError, TypeError):
        return Canonical(sql, problem="unparseable")
    return _apply(sql, edits)


_Edits = dict[int, tuple[exp.Identifier, str, str]]  # id → (identifier, new text, edit kind)


def _edits(
    sql: str, tree: exp.Expr, schema: Schema, kinds: frozenset[str], fallback: bool
) -> _Edits:
    edits: _Edits = {}
    ctes: dict[str, str] = {}
    for cte in tree.find_all(exp.CTE):
        ctes.setdefault(cte.alias_or_name.lower(), cte.alias_or_name)
    for table in tree.find_all(exp.Table):  # first, so that scopes see the CTE references
        declared = ctes.get(table.name.lower())
        if (
            declared
            and declared != table.name
            and "alias" in kinds
            and isinstance(table.this, exp.Identifier)
            and not table.args.get("db")
        ):
            edits[id(table.this)] = (table.this, declared, "cte name case")
            table.this.set("this", declared)
    resolver = _Resolver(tree, schema)

    def respell(ident: Any, new: str | None, kind: str, rule: str) -> None:
        if (
            rule in kinds
            and isinstance(ident, exp.Identifier)
            and new is not None
            and new != ident.name
            and new.lower() == ident.name.lower()
        ):
            edits[id(ident)] = (ident, new, kind)

    for table in tree.find_all(exp.Table):
        low = table.name.lower()
        if low not in ctes or table.args.get("db"):
            respell(table.this, schema.tables.get(low), "table case", "table")
    for col in list(tree.find_all(exp.Column)):
        scope, clause = resolver.enclosing(col)
        if scope is None:
            continue
        qualifier = col.args.get("table")
        src = resolver.qualifier(scope, col.table) if col.table else None
        if src is not None and isinstance(qualifier, exp.Identifier):
            respell(qualifier, src.qualifier, "qualifier case", src.kind)
        ident = col.this
        if not isinstance(ident, exp.Identifier):
            continue  # t.*
        if col.table:
            if src is not None and src.columns is not None:
                respell(ident, src.columns.get(ident.name.lower()), "column case", "column")
            continue
        try:
            found = resolver.column(scope, clause, ident.name)
        except Unknown:
            continue
        if found is not None:
            respell(ident, found, "column case", "column")
        elif fallback and ident.quoted and _token(sql, ident).startswith('"'):
            edits[id(ident)] = (ident, "'" + ident.name.replace("'", "''") + "'", "\"x\" → 'x'")
    return edits


def _token(sql: str, ident: exp.Identifier) -> str:
    meta = ident.meta
    if "start" not in meta or "end" not in meta:
        return ""
    return sql[meta["start"] : meta["end"] + 1]


def _apply(sql: str, edits: _Edits) -> Canonical:
    """Replace each edited identifier's token, keeping its quotes (a string: the new quotes)."""
    if not edits:
        return Canonical(sql)
    spans: list[tuple[int, int, str, str]] = []
    for ident, new, kind in edits.values():
        token = _token(sql, ident)
        if not token:
            return Canonical(sql, problem="token positions unknown")
        if kind.startswith('"'):
            text = new
        elif token[0] in '"`[':
            close = {"[": "]"}.get(token[0], token[0])
            if (
                token[1:-1].replace(close * 2, close).lower() != new.lower()
                and token[1:-1].lower() != new.lower()
            ):
                return Canonical(sql, problem="token positions unknown")
            text = token[0] + (new.replace(close, close * 2) if close != "]" else new) + close
        else:
            if token.lower() != new.lower():
                return Canonical(sql, problem="token positions unknown")
            text = new
        spans.append((ident.meta["start"], ident.meta["end"] + 1, text, kind))
    spans.sort()
    out: list[str] = []
    pos = 0
    counts: Counter[str] = Counter()
    for start, end, text, kind in spans:
        if start < pos:
            return Canonical(sql, problem="overlapping tokens")
        out.append(sql[pos:start])
        out.append(text)
        pos = end
        counts[kind] += 1
    out.append(sql[pos:])
    return Canonical("".join(out), counts)


class Canonicalise(Stage):
    """Canonicalise statements that have a named fixture (see the module docstring) and check
    each rewrite on the source engine."""

    name = "canonicalise"

    def __init__(self, timeout: float = 5.0, max_rows: int = 10_000):
        self.timeout = timeout
        self.max_rows = max_rows

    def params(self) -> dict[str, Any]:
        return {
            "case": {d: sorted(k) for d, k in CASE_INSENSITIVE.items()},
            "double_quoted_strings": sorted(DOUBLE_QUOTED_FALLBACK),
            "check": "same strict result on the source engine over the fixture",
        }

    def map(self, chunk: list[Record]) -> Batch:
        out = Batch([])
        known: dict[str, tuple[Fixture, Schema] | None] = {}
        for r in chunk:
            if not r.fixture or (
                r.dialect not in CASE_INSENSITIVE and r.dialect not in DOUBLE_QUOTED_FALLBACK
            ):
                out.records.append(r)
                continue
            if r.fixture not in known:
                fixture = named(r.fixture)
                known[r.fixture] = (fixture, Schema.of(fixture)) if fixture else None
            entry = known[r.fixture]
            if entry is None:
                out.records.append(r)
                continue
            result = canonicalise(r.sql, r.dialect, entry[1])
            if not result.edits:
                out.records.append(r)
                continue
            verdict = same_result(
                r.dialect, r.sql, result.sql, entry[0], self.timeout, self.max_rows
            )
            if verdict is None:
                out.notes["not canonicalised: the source fails on its fixture"] += 1
                out.records.append(r)
                continue
            if verdict:
                out.drop(Drop.CANONICAL_CHANGES_RESULT, str(verdict))
                continue
            for kind, n in result.edits.items():
                out.notes[f"canonicalised: {kind}"] += n
            out.notes["canonicalised statements"] += 1
            out.records.append(
                replace(
                    r,
                    sql=result.sql,
                    tags=(*r.tags, "canonicalised"),
                    info={**r.info, "original_sql": r.sql},
                )
            )
        return out

    def reduce(self, batch: Batch) -> Batch:
        return deduplicate(batch, "after canonicalisation")


def named(name: str) -> Fixture | None:
    """The named (or anonymised named) fixture, or None when it does not resolve."""
    try:
        return resolve_fixture(name) or named_fixture(name)
    except FixtureError:
        return None


def same_result(
    dialect: str,
    original: str,
    rewritten: str,
    fixture: Fixture,
    timeout: float = 5.0,
    max_rows: int = 10_000,
) -> str | None:
    """'' when ``rewritten`` returns what ``original`` returns on ``fixture`` (strict
    comparison on the ``dialect`` engine), the reason code when it does not, None when the
    original cannot run there."""
    judge = checker(timeout, max_rows).judge
    before = judge.gold(Item("original", dialect, dialect, original, fixture=fixture))
    if not before.execution.ok or before.execution.result is None:
        return None
    after = judge.gold(Item("rewritten", dialect, dialect, rewritten, fixture=fixture)).execution
    if not after.ok or after.result is None:
        return f"rewrite fails: {after.status}"
    verdict = compare(before.execution.result, after.result, before.facts, Mode.STRICT)
    return "" if verdict.match else str(verdict.reason)
