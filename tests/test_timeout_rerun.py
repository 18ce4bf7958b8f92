"""A timed-out execution is re-run once with TIMEOUT_RERUN times its budget before a timeout is
recorded: a verdict must not depend on how loaded the machine was (real PostgreSQL)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import closing

import pytest

from parrot.engines import ExecStatus, Execution
from parrot.eval.judge import EMPTY_FIXTURE, TIMEOUT_RERUN, Judge
from parrot.fixtures import Fixture
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


def test_the_re_run_arms_the_servers_statement_timeout_with_the_longer_budget(
    judge: Judge,
) -> None:
    """The re-run's budget reaches the server (PostgreSQL's statement_timeout), not only the
    client-side watchdog: the statement that fits it reads 3 s there."""
    execution, _ = judge._run(
        "postgres", "SELECT pg_sleep(1.2), current_setting('statement_timeout') AS t", EMPTY_FIXTURE
    )
    assert execution.status is ExecStatus.OK, execution.error
    assert execution.result is not None
    assert execution.result.rows[0][-1] == f"{TIMEOUT_RERUN:g}s"


def test_the_re_run_sees_nothing_the_first_attempt_left(judge: Judge) -> None:
    """Untrusted SQL: the timed-out first attempt's work (a temporary table) is gone when the
    re-run starts — had it survived, the re-run's CREATE would fail."""
    sql = "CREATE TEMP TABLE x AS SELECT 1 AS a; SELECT pg_sleep(1.2), count(*) AS n FROM x"
    execution, _ = judge._run("postgres", sql, EMPTY_FIXTURE)
    assert execution.status is ExecStatus.OK, execution.error
    assert execution.result is not None and execution.result.rows[0][-1] == 1


def test_the_record_is_the_re_runs_execution_alone(
    judge: Judge, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The recorded execution (its ``elapsed`` in results.jsonl) is the re-run's, as the engine
    returned it: the timed-out first attempt's time is not added to it (nor counted twice)."""
    attempts: list[tuple[float, Execution]] = []
    real = judge._run_once

    def spy(dialect: str, sql: str, fixture: Fixture, timeout: float) -> tuple[Execution, str]:
        execution, label = real(dialect, sql, fixture, timeout)
        attempts.append((timeout, execution))
        return execution, label

    monkeypatch.setattr(judge, "_run_once", spy)
    execution, _ = judge._run("postgres", "SELECT pg_sleep(1.2), 7 AS x", EMPTY_FIXTURE)
    assert [(t, e.status) for t, e in attempts] == [
        (1.0, ExecStatus.TIMEOUT),
        (TIMEOUT_RERUN, ExecStatus.OK),
    ]
    assert execution is attempts[-1][1]
