"""A timed-out execution is re-run once with TIMEOUT_RERUN times its budget before a timeout is
recorded: a verdict must not depend on how loaded the machine was (real PostgreSQL)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import closing

import pytest

from parrot.engines import ExecStatus
from parrot.eval.judge import EMPTY_FIXTURE, TIMEOUT_RERUN, Judge
from parrot.servers import stopping_started


@pytest.fixture(scope="module")
def judge() -> Iterator[Judge]:
    with stopping_started(), closing(Judge(timeout=1.0, start=True)) as judge:
        yield judge


def test_a_statement_slower_than_its_budget_gets_a_longer_second_run(judge: Judge) -> None:
    # 1.2 s of sleep never fits a 1 s budget; it fits the re-run's 3 s with 1.8 s to spare
    execution, _ = judge._run("postgres", "SELECT pg_sleep(1.2), 7 AS x", EMPTY_FIXTURE)
    assert execution.status is ExecStatus.OK, execution.error
    assert execution.result is not None and execution.result.rows[0][-1] == 7


def test_what_times_out_twice_is_a_timeout_saying_so(judge: Judge) -> None:
    execution, _ = judge._run("postgres", "SELECT pg_sleep(60)", EMPTY_FIXTURE)
    assert execution.status is ExecStatus.TIMEOUT
    assert execution.error == f"timed out at 1 s, and again when re-run with {TIMEOUT_RERUN:g} s"
