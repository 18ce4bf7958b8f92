"""Which strict rule for decimals from inexact operations matches careful labels?

Engines give averages and quotients at their own scale (MariaDB 4 more decimals than the operand,
PostgreSQL 16 or more, Spark 6 or more, the others doubles). Over the polyglot concepts that
average, divide or round, two labelled sets are built from the concepts' own SQL, per directed
pair of dialects, on the concept's fixture:

* **equivalent** — the source and the target both with every ``ROUND(x, n)`` removed (sqlglot
  rewrites each dialect's text in that dialect): the same unrounded query, so a careful label says
  the target is right whatever scale its engine prints;
* **not equivalent** — the rounded source against the unrounded target, kept only where rounding
  changes the source's result: the translation lost a ROUND the source asked for.

Each pair is compared under three strict rules: ``exact`` (decimals exactly, floats within 1e-9:
parrot before the rule), ``scale`` (parrot's rule: a DECIMAL of 4 or more decimals equals a longer
number that rounds to it) and ``rel-1e-4`` (decimals within relative 1e-4). Printed: equivalent
pairs accepted and not-equivalent pairs rejected under each rule, with denominators, and
the pairs on which the rules disagree.

    python scripts/bench/decimals.py [--dialects sqlite,duckdb,clickhouse,postgres,mysql,spark]
"""

from __future__ import annotations

import argparse
import math
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import replace
from decimal import Decimal
from unittest import mock

import sqlglot
from sqlglot import exp

import parrot.compare as compare
from parrot.datasets import Item, load_dataset
from parrot.eval.judge import Judge
from parrot.values import ResultSet, Value

INEXACT = re.compile(r"\b(round|avg)\s*\(|/", re.IGNORECASE)
DIALECTS = ("sqlite", "duckdb", "clickhouse", "postgres", "mysql", "spark")


def _rel(a: Value, b: Value) -> bool:
    if isinstance(a, int | float | Decimal) and isinstance(b, int | float | Decimal):
        return math.isclose(float(a), float(b), rel_tol=1e-4)
    return False


RULES: dict[str, Callable[[Value, Value], bool]] = {
    "exact": lambda a, b: False,
    "scale": compare._same_at_scale,
    "rel-1e-4": _rel,
}


def unrounded(sql: str, dialect: str) -> str | None:
    """``sql`` with every ROUND(x, n) replaced by x, or None when it has none or fails to parse."""
    try:
        tree = sqlglot.parse_one(sql, read=dialect)
    except sqlglot.errors.ParseError:
        return None
    if not tree.find(exp.Round):
        return None
    return tree.transform(lambda n: n.this if isinstance(n, exp.Round) else n).sql(dialect)


def verdicts(judge: Judge, item: Item, sql: str) -> dict[str, bool] | None:
    """Strict match under each rule of ``sql`` (in the target dialect) against the item's
    source; None when either side fails."""
    gold = judge.gold(item)
    fixture = item.fixture
    assert fixture is not None
    pred, _ = judge._run(item.target_dialect, sql, fixture)
    if gold.execution.result is None or pred.result is None:
        return None
    out = {}
    for name, rule in RULES.items():
        with mock.patch.object(compare, "_same_at_scale", rule):
            out[name] = compare.compare(gold.execution.result, pred.result, gold.facts).match
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dialects", default=",".join(DIALECTS))
    args = parser.parse_args()
    dialects = set(args.dialects.split(","))
    items = [
        i
        for i in load_dataset("polyglot").items
        if {i.source_dialect, i.target_dialect} <= dialects
        and i.reference_sql
        and INEXACT.search(i.source_sql + i.reference_sql[0])
    ]
    judge = Judge(timeout=30, start=True)
    accepted: Counter[str] = Counter()
    rejected: Counter[str] = Counter()
    n_eq = n_ne = skipped = 0
    disagreements: list[str] = []
    try:
        for item in items:
            src = unrounded(item.source_sql, item.source_dialect)
            tgt = unrounded(item.reference_sql[0], item.target_dialect)
            if src is None or tgt is None:
                continue
            same = verdicts(judge, replace(item, source_sql=src), tgt)
            lost = verdicts(judge, item, tgt)
            rounding_matters = _rounding_matters(judge, item, src)
            if same is None or lost is None or rounding_matters is None:
                skipped += 1
                continue
            n_eq += 1
            accepted.update(k for k, v in same.items() if v)
            if rounding_matters:
                n_ne += 1
                rejected.update(k for k, v in lost.items() if not v)
                if len(set(lost.values())) > 1:
                    disagreements.append(
                        f"lost ROUND {item.id}: "
                        + ", ".join(k for k, v in lost.items() if v)
                        + " accept"
                    )
            if len(set(same.values())) > 1:
                disagreements.append(
                    f"equivalent {item.id}: "
                    + ", ".join(k for k, v in same.items() if not v)
                    + " reject"
                )
    finally:
        judge.close()
    print(f"dialects: {', '.join(sorted(dialects))}; {skipped} pairs skipped (a side failed)")
    print(f"{'rule':<10} {'equivalent accepted':>22} {'lost ROUND rejected':>22}")
    for name in RULES:
        print(f"{name:<10} {accepted[name]:>14}/{n_eq:<7} {rejected[name]:>14}/{n_ne:<7}")
    print("pairs the rules disagree on:", *disagreements, sep="\n  ")


def _rank(rs: ResultSet) -> list[tuple[str, ...]]:
    return sorted(tuple(map(repr, row)) for row in rs.rows)


def _rounding_matters(judge: Judge, item: Item, unrounded_source: str) -> bool | None:
    """Whether the source's ROUND changes its result on the fixture (same engine)."""
    rounded = judge.gold(item).execution.result
    plain = judge.gold(replace(item, source_sql=unrounded_source)).execution.result
    if rounded is None or plain is None:
        return None
    return _rank(rounded) != _rank(plain)


if __name__ == "__main__":
    main()
