"""Run-then-read-back (:mod:`parrot.engines.readback`): DML on a copy, the fixture untouched."""

from __future__ import annotations

import pytest
from engine_fixtures import SHOP

from parrot.engines import Engine, ExecStatus
from parrot.engines.readback import run_then_read
from parrot.fixtures import Fixture

SPARK_DML = "Spark's built-in tables have no UPDATE or DELETE (Delta and Iceberg tables do)"


@pytest.mark.notimpl(
    ["clickhouse"],
    raises=AssertionError,
    reason="chdb's copies of the tables refuse lightweight UPDATE",
)
@pytest.mark.notimpl(["spark"], raises=AssertionError, reason=SPARK_DML)
def test_the_changed_tables_are_read_back_and_the_fixture_is_unchanged(
    engine: Engine, shop: Fixture
) -> None:
    got = run_then_read(
        engine, "UPDATE customers SET city = 'Paris' WHERE id = 1;", shop, ["customers", "items"]
    )
    assert got.ok, got.execution.error
    customers = sorted(got.tables["customers"].rows, key=lambda r: r[0])
    assert customers[0] == (1, "Ada", "Paris")
    assert len(customers) == 4 and customers[1:] == [
        (2, "Grace", None),
        (3, "Linus", "Helsinki"),
        (4, "ada", "london"),
    ]
    assert len(got.tables["items"].rows) == 3
    assert engine.checksums(SHOP) == SHOP.checksums  # the real fixture never changes


@pytest.mark.notimpl(["spark"], raises=AssertionError, reason=SPARK_DML)
def test_a_delete_then_an_insert_on_a_copy(engine: Engine, shop: Fixture) -> None:
    got = run_then_read(
        engine,
        "DELETE FROM items WHERE qty > 1; INSERT INTO customers (id, name) VALUES (9, 'Eve')",
        shop,
        ["items", "customers"],
    )
    assert got.ok, got.execution.error
    assert [r[1] for r in got.tables["items"].rows] == ["B-2"]
    assert sorted(r[0] for r in got.tables["customers"].rows) == [1, 2, 3, 4, 9]
    assert engine.checksums(SHOP) == SHOP.checksums


def test_a_failing_statement_reads_nothing_back(engine: Engine, shop: Fixture) -> None:
    got = run_then_read(engine, "UPDATE no_such_table SET x = 1", shop, ["customers"])
    assert not got.ok and got.tables == {}
    assert got.execution.status in (ExecStatus.RUNTIME_ERROR, ExecStatus.SYNTAX_ERROR)
