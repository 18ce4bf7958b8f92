"""DML verified on a copy: ``INSERT``/``UPDATE``/``DELETE`` (and ``MERGE`` where both engines have
it) run on each database, the source on the source engine and the translation on the target
engine, then the tables the statement changes are read back and compared as rows, strictly
(:func:`parrot.engines.readback.run_then_read`: the engines' own copies and rollbacks; the
database itself never changes).

The databases are the user's (``--db``) and, with ``--schema``, the empty tables plus databases
generated for a query that reads the rows the statement touches (:func:`probe`): ``SELECT
<columns> FROM t WHERE <its WHERE>`` for ``UPDATE``/``DELETE``, the ``SELECT`` of an ``INSERT ...
SELECT``, ``SELECT <columns> FROM t`` otherwise. A difference is not shrunk to a witness (the
witness search shrinks queries); the detail names the table and the first difference.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

from parrot.assess.verify import FAILED, NOT_ASSESSED, REVIEW, VERIFIED, Outcome
from parrot.compare import Mode, compare
from parrot.datasets import Item
from parrot.engines.base import Engine, ExecStatus, Execution, FixtureLoadError
from parrot.engines.readback import ReadBack, run_then_read
from parrot.eval.judge import Judge
from parrot.fixtures import Fixture, is_plain

DML = re.compile(r"^\s*(?:INSERT|UPDATE|DELETE|MERGE)\b", re.I)
_WRITES = (exp.Insert, exp.Update, exp.Delete, exp.Merge)


def _tree(sql: str, dialect: str) -> exp.Expr | None:
    try:
        tree = sqlglot.parse_one(sql, read=dialect)
    except SqlglotError:
        return None
    return tree if isinstance(tree, _WRITES) else None


def _target(tree: exp.Expr) -> exp.Table | None:
    node = tree.this
    if isinstance(node, exp.Schema):  # INSERT INTO t (a, b)
        node = node.this
    return node if isinstance(node, exp.Table) else None


def changed_tables(sql: str, dialect: str, fixture: Fixture) -> list[str] | str:
    """The fixture tables ``sql`` writes (its target), or why they are not known."""
    tree = _tree(sql, dialect)
    target = _target(tree) if tree is not None else None
    if target is None:
        return "sqlglot does not find the table the statement writes"
    names = {t.name.lower(): t.name for t in fixture.tables}
    if target.name.lower() not in names:
        return f"table {target.name} is not in the database"
    return [names[target.name.lower()]]


def probe(sql: str, dialect: str, fixture: Fixture) -> str | None:
    """A query over the rows the statement reads or changes (for generating databases), its
    columns named from ``fixture``'s table."""
    tree = _tree(sql, dialect)
    target = _target(tree) if tree is not None else None
    if tree is None or target is None:
        return None
    if isinstance(tree, exp.Insert) and isinstance(tree.expression, exp.Query):
        return tree.expression.sql(dialect)
    table = next((t for t in fixture.tables if t.name.lower() == target.name.lower()), None)
    if table is None:
        return None
    columns = [exp.column(c, quoted=not is_plain(c)) for c in table.column_names]
    query = exp.select(*columns).from_(exp.Table(this=target.this.copy()))
    where = tree.args.get("where") if isinstance(tree, (exp.Update, exp.Delete)) else None
    if where is not None:
        query = query.where(where.this.copy())
    return query.sql(dialect)


def judge_dml(
    judge: Judge, item: Item, sql: str, databases: Sequence[tuple[str, Fixture]]
) -> Outcome:
    """Run ``item``'s source and the translation ``sql`` on a copy of each database and compare
    the tables the source changes."""
    try:
        source, target = judge.engine(item.source_dialect), judge.engine(item.target_dialect)
    except Exception as exc:  # a driver error while connecting to a server
        return Outcome(NOT_ASSESSED, "engine_error", f"connect: {exc}", databases=len(databases))
    if source is None or target is None:
        missing = item.source_dialect if source is None else item.target_dialect
        return Outcome(
            NOT_ASSESSED, "no_engine", f"no {missing} engine here", databases=len(databases)
        )
    judged, why_not = 0, ""
    for origin, db in databases:
        tables = changed_tables(item.source_sql, item.source_dialect, db)
        if isinstance(tables, str):
            return Outcome(
                NOT_ASSESSED, "not_a_query", f"DML not run: {tables}", databases=len(databases)
            )
        src = _run(judge, source, item.source_sql, db, tables)
        if not src.ok:
            why_not = why_not or f"gold_error: the source fails on {origin}: " + " ".join(
                str(src.execution.error).split()
            )
            continue
        judged += 1
        tgt = _run(judge, target, sql, db, tables)
        if not tgt.ok:
            reason = "timeout" if tgt.execution.status is ExecStatus.TIMEOUT else "pred_error"
            return Outcome(
                FAILED,
                reason,
                f"on {origin}: " + " ".join(str(tgt.execution.error).split()),
                judged,
                len(databases),
            )
        for table in tables:
            verdict = compare(src.tables[table], tgt.tables[table], mode=Mode.STRICT)
            if not verdict.match:
                return Outcome(
                    REVIEW,
                    verdict.reason.value,
                    f"on {origin}, table {table} after the statement: "
                    + " ".join(verdict.detail.split()),
                    judged,
                    len(databases),
                )
    if not judged:
        return Outcome(
            NOT_ASSESSED, why_not.split(":")[0] or "no_database", why_not, 0, len(databases)
        )
    return Outcome(
        VERIFIED,
        "match",
        "the changed tables are equal after the statement, run on a copy of each database",
        judged,
        len(databases),
    )


def _run(judge: Judge, engine: Engine, sql: str, db: Fixture, tables: list[str]) -> ReadBack:
    try:
        engine.load(db)
    except FixtureLoadError as exc:
        return ReadBack(Execution(ExecStatus.ENGINE_ERROR, error=f"fixture load: {exc}"))
    timeout = judge.timeouts.get(engine.dialect, judge.timeout)
    return run_then_read(engine, sql, db, tables, timeout=timeout, max_rows=judge.max_rows)
