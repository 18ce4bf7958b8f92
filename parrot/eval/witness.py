"""Witness databases: the smallest database on which a rejected translation still differs.

A rejection on the fixture (or on a test-suite database) says *that* the source and the
translation disagree; a witness shows *why*, on as few rows as possible. :func:`shrink` runs delta
debugging (Zeller and Hildebrandt's *ddmin*) over the database's rows, re-running the source on its
real engine and the translation on its real engine after every cut, and keeps a cut whenever the
two still disagree under the strict comparator:

1. every table is first tried empty as a whole (one cut per table);
2. then ddmin over the remaining rows of all tables: subsets, then complements, doubling the
   granularity until single rows — which ends with a **1-minimal** witness: removing any one
   remaining row makes the source and the translation agree (or makes one of them fail).

Only rejections where both sides ran are shrunk: a translation that does not run (a syntax or
runtime error, a timeout) fails on every database and has no data-dependent witness. The cost is
bounded by ``budget`` engine executions (source and translation each count; a source result
already seen on the same rows is cached and not counted again); a witness found when the budget
ran out is still a disagreeing database, marked ``minimal: false``.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from decimal import Decimal
from typing import Any

from sqlglot import exp

from parrot.api.records import ExecutionRecord
from parrot.compare import Mode, Verdict
from parrot.datasets import Item
from parrot.engines import ExecStatus, Execution
from parrot.eval.judge import Gold, Judge, _verdicts, execution_json
from parrot.fixtures import Fixture, Table

DEFAULT_BUDGET = 400  # engine executions per item
Unit = tuple[int, int]  # (table index, row index) in the database being shrunk


class BudgetSpent(Exception):
    """The execution budget ran out before the search finished."""


@dataclass(frozen=True)
class Witness:
    """A database on which the source and the translation disagree, and both results on it."""

    fixture: Fixture
    origin: str  # "fixture" or "suite database N"
    verdict: Verdict  # the strict verdict on the witness
    gold: ExecutionRecord
    pred: ExecutionRecord
    executions: int  # engine executions spent shrinking
    minimal: bool  # True: 1-minimal (the search finished within the budget)
    rows_before: dict[str, int] = field(default_factory=dict)

    @property
    def rows(self) -> dict[str, int]:
        return {t.name: len(t.rows) for t in self.fixture.tables}

    def to_json(self) -> dict[str, Any]:
        """The compact record results.jsonl and ``parrot witness`` share."""
        strict = self.verdict.to_json()
        return {
            "origin": self.origin,
            "rows": self.rows,
            "rows_before": self.rows_before,
            "size": sum(self.rows.values()),
            "minimal": self.minimal,
            "executions": self.executions,
            "reason": strict["reason"],
            "detail": strict["detail"],
            "cell": strict["cell"],
            "gold": self.gold,
            "pred": self.pred,
            "tables": {
                t.name: [[_json_value(v) for v in row] for row in t.rows]
                for t in self.fixture.tables
                if t.rows
            },
            "columns": {t.name: list(t.column_names) for t in self.fixture.tables if t.rows},
        }


class _CountingJudge(Judge):
    """A judge that counts the engine executions it makes and stops at a budget."""

    def __init__(self, budget: int, **kwargs: Any):
        super().__init__(**kwargs)
        self.budget = budget
        self.executions = 0

    def _run(
        self, dialect: str, sql: str, fixture: Fixture, timeout: float | None = None
    ) -> tuple[Execution, str]:
        if self.executions >= self.budget:
            raise BudgetSpent
        self.executions += 1
        return super()._run(dialect, sql, fixture, timeout)


class Shrinker:
    """Shrinks databases for one item and one translation on a (counting) judge."""

    def __init__(self, judge: _CountingJudge, item: Item, sql: str):
        self.judge, self.item, self.sql = judge, item, sql

    def disagreement(self, fixture: Fixture) -> tuple[Verdict, Gold, Execution, str] | None:
        """The strict verdict when both sides run on ``fixture`` and disagree, else None."""
        return disagreement(self.judge, self.item, self.sql, fixture)

    def shrink(self, fixture: Fixture, origin: str) -> Witness | None:
        """A 1-minimal witness inside ``fixture`` (None when the two agree on it)."""
        first = self.disagreement(fixture)
        if first is None:
            return None
        best = fixture
        minimal = True
        try:
            best = self._drop_tables(best)
            units = [(ti, ri) for ti, t in enumerate(best.tables) for ri in range(len(t.rows))]
            kept = ddmin(units, lambda keep: self.disagreement(subset(best, keep)) is not None)
            best = subset(best, kept)
        except BudgetSpent:
            minimal = False
        self.judge.budget += 4  # the final read of the witness is not part of the search
        found = self.disagreement(best)
        if found is None:  # cannot happen for deterministic engines; keep the evidence honest
            best, found, minimal = fixture, first, False
        verdict, gold, pred, label = found
        return Witness(
            best,
            origin,
            verdict,
            execution_json(gold.execution, gold.engine),
            execution_json(pred, label),
            self.judge.executions,
            minimal,
            {t.name: len(t.rows) for t in fixture.tables},
        )

    def _drop_tables(self, fixture: Fixture) -> Fixture:
        """Empty whole tables while the disagreement stays (the cheap first cut)."""
        for name in [t.name for t in fixture.tables if t.rows]:
            emptied = replace(
                fixture,
                tables=tuple(replace(t, rows=()) if t.name == name else t for t in fixture.tables),
            )
            if self.disagreement(emptied) is not None:
                fixture = emptied
        return fixture


def disagreement(
    judge: Judge, item: Item, sql: str, fixture: Fixture
) -> tuple[Verdict, Gold, Execution, str] | None:
    """The strict verdict when the source and ``sql`` both run on ``fixture`` (each on its
    dialect's engine) and disagree, else None."""
    gold = judge.gold(item, fixture)
    if not gold.execution.ok:
        return None
    pred, label = judge._run(item.target_dialect, sql, fixture)
    if pred.status is not ExecStatus.OK:
        return None
    verdict = _verdicts(item, gold, pred, label)[Mode.STRICT]
    return None if verdict.match else (verdict, gold, pred, label)


def subset(fixture: Fixture, keep: Sequence[Unit]) -> Fixture:
    """``fixture`` with only the rows named in ``keep`` (in their original order)."""
    wanted = set(keep)
    return replace(
        fixture,
        tables=tuple(
            replace(t, rows=tuple(r for ri, r in enumerate(t.rows) if (ti, ri) in wanted))
            for ti, t in enumerate(fixture.tables)
        ),
    )


def ddmin(units: list[Unit], fails: Callable[[list[Unit]], bool]) -> list[Unit]:
    """Zeller's ddmin: a 1-minimal sublist of ``units`` on which ``fails`` still holds
    (``fails(units)`` is assumed). The empty list is tried first."""
    if not units or fails([]):
        return []
    n = 2
    while len(units) >= 2:
        chunks = [units[i * len(units) // n : (i + 1) * len(units) // n] for i in range(n)]
        for chunk in chunks:
            if fails(chunk):
                units, n = chunk, 2
                break
        else:
            for chunk in chunks:
                dropped = set(chunk)
                rest = [u for u in units if u not in dropped]
                if fails(rest):
                    units, n = rest, max(n - 1, 2)
                    break
            else:
                if n >= len(units):
                    break
                n = min(len(units), 2 * n)
    return units


def counting_judge(budget: int = DEFAULT_BUDGET, **judge_options: Any) -> _CountingJudge:
    """A judge for :func:`witness` (reuse one across items: engines stay up)."""
    return _CountingJudge(budget, **judge_options)


def witness(
    item: Item,
    sql: str,
    databases: Sequence[tuple[str, Fixture]],
    *,
    budget: int = DEFAULT_BUDGET,
    judge: _CountingJudge | None = None,
    **judge_options: Any,
) -> Witness | None:
    """Shrink the first of ``databases`` (origin, fixture) on which ``sql`` disagrees with the
    item's source; None when it agrees on all of them or a side does not run. ``judge`` (from
    :func:`counting_judge`) is reused and left open; without one a judge is made and closed."""
    own = judge is None
    judge = judge or _CountingJudge(budget, **judge_options)
    judge.budget, judge.executions = budget, 0
    try:
        shrinker = Shrinker(judge, item, sql)
        for origin, fixture in databases:
            try:
                found = shrinker.shrink(fixture, origin)
            except BudgetSpent:
                return None
            if found is not None:
                return found
        return None
    finally:
        if own:
            judge.close()


# --- runnable scripts ----------------------------------------------------------------------------


def _json_value(value: Any) -> Any:
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, dt.date | dt.datetime):
        return value.isoformat(sep=" ") if isinstance(value, dt.datetime) else value.isoformat()
    return value


def _literal(value: Any, ptype: str) -> exp.Expr:
    if value is None:
        return exp.null()
    if ptype in ("date", "timestamp"):
        return exp.cast(exp.Literal.string(str(_json_value(value))), ptype)
    if isinstance(value, Decimal):
        return exp.Literal.number(str(value))
    return exp.convert(value)


def create_statements(fixture: Fixture, dialect: str) -> list[str]:
    """CREATE TABLE (with the primary key) and INSERT statements that build ``fixture`` in
    ``dialect`` (sqlglot renders the portable column types; ClickHouse tables use the Memory
    engine, without a key)."""
    out = []
    for table in fixture.tables:
        out.append(_create_table(table, dialect))
        if table.rows:
            rows = [
                exp.tuple_(*(_literal(v, c.type) for v, c in zip(row, table.columns, strict=True)))
                for row in table.rows
            ]
            columns = [exp.to_identifier(c.name, quoted=True) for c in table.columns]
            insert = exp.Insert(
                this=exp.Schema(this=exp.to_table(table.name, quoted=True), expressions=columns),
                expression=exp.Values(expressions=rows),
            )
            out.append(insert.sql(dialect))
    return out


def _create_table(table: Table, dialect: str) -> str:
    columns: list[exp.Expr] = [
        exp.ColumnDef(this=exp.to_identifier(c.name, quoted=True), kind=exp.DataType.build(c.type))
        for c in table.columns
    ]
    if table.primary_key and dialect != "clickhouse":  # Memory tables take no key
        columns.append(
            exp.PrimaryKey(
                expressions=[exp.to_identifier(k, quoted=True) for k in table.primary_key]
            )
        )
    properties = (
        exp.Properties(expressions=[exp.EngineProperty(this=exp.var("Memory"))])
        if dialect == "clickhouse"
        else None
    )
    return exp.Create(
        this=exp.Schema(this=exp.to_table(table.name, quoted=True), expressions=columns),
        kind="TABLE",
        properties=properties,
    ).sql(dialect)


def script(found: Witness, dialect: str, queries: Sequence[tuple[str, str]]) -> str:
    """A runnable ``dialect`` script: the witness's tables and rows, then each (label, query)."""
    head = [
        f"-- parrot witness ({found.origin}): {found.verdict.reason.value} — "
        f"{' '.join(found.verdict.detail.split())}",
        f"-- {sum(found.rows.values())} rows: "
        + ", ".join(f"{name} {n}" for name, n in found.rows.items()),
    ]
    body = [s.rstrip(";") + ";" for s in create_statements(found.fixture, dialect)]
    tail = [f"-- {label}\n{sql.strip().rstrip(';')};" for label, sql in queries]
    return "\n".join(head) + "\n\n" + "\n".join(body) + "\n\n" + "\n\n".join(tail) + "\n"
