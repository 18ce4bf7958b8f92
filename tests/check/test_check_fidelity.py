"""Fast-tier fidelity spot checks: our grammars vs the real parsers available in-process."""

from __future__ import annotations

import pytest

from parrot.check import accepts
from parrot.check.fidelity import _mutations, broken_queries, corpora_dir, real_queries
from parrot.check.references import open_reference

SAMPLE = 60


def test_mutations_are_dialect_aware() -> None:
    sql = "SELECT a, b FROM t WHERE a = 1"
    duck = {name: valid for name, _, valid in _mutations(sql, "duckdb")}
    pg = {name: valid for name, _, valid in _mutations(sql, "postgres")}
    assert duck["trailing comma"] and not pg["trailing comma"]
    assert not duck["TOP n (T-SQL)"] and not pg["typo SELECT"]


@pytest.mark.parametrize("dialect", ["sqlite", "duckdb", "postgres", "clickhouse"])
def test_agreement_on_a_sample(dialect: str) -> None:
    if corpora_dir() is None:
        pytest.skip("shared corpora not found (set PARROT_CORPORA)")
    reference, why = open_reference(dialect)
    if reference is None:
        pytest.skip(why)
    try:
        real = real_queries(dialect, per_source=SAMPLE // 4)[:SAMPLE]
        broken = broken_queries(real, dialect, SAMPLE // 2)
        agree = sum(accepts(q.sql, dialect) == reference.accepts(q.sql) for q in real + broken)
    finally:
        reference.close()
    assert agree / len(real + broken) >= 0.9, f"{agree}/{len(real + broken)}"
