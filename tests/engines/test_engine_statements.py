"""Shared helpers: lexing, splitting, leading keywords, watchdog, load verification."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from engine_fixtures import SHOP

from parrot.engines import ExecStatus, FixtureLoadError
from parrot.engines import statements as st

SPLIT_CASES = json.loads((Path(__file__).parent / "data" / "split_cases.json").read_text())


@pytest.mark.parametrize(
    "case",
    SPLIT_CASES["cases"],
    ids=[f"{c['dialect']}-{i}" for i, c in enumerate(SPLIT_CASES["cases"])],
)
def test_split(case: dict[str, Any]) -> None:
    """Every splitting case of every dialect, run against the one splitter."""
    assert st.splitter(case["dialect"]).split(case["sql"]) == case["statements"]


def test_clickhouse_dollar_continues_an_identifier() -> None:
    # ClickHouse reads x$$ as one name: no heredoc hides the file() call from the guard
    words = [t.text for t in st.tokenize("SELECT 1 AS x$$, f() AS y$$", st.CLICKHOUSE)]
    assert words == ["SELECT", "1", "AS", "x$$", ",", "f", "(", ")", "AS", "y$$"]
    assert [t.kind for t in st.tokenize("SELECT $$a$$", st.CLICKHOUSE)][1] is st.TokenKind.STRING


def test_spark_raw_strings_end_at_the_next_quote() -> None:
    tokens = st.tokenize("SELECT r'\\', f() -- '", st.SPARK)
    assert [t.text for t in tokens] == ["SELECT", "r'\\'", ",", "f", "(", ")"]
    assert [t.text for t in st.tokenize('SELECT R"a\\", 2', st.SPARK)] == [
        "SELECT",
        'R"a\\"',
        ",",
        "2",
    ]


def test_tokens_and_leading_words() -> None:
    tokens = st.tokenize("((SELECT \"Col\", 'str', x1 FROM `t`))")
    kinds = [t.kind for t in tokens]
    assert st.TokenKind.QUOTED in kinds and st.TokenKind.STRING in kinds
    assert [t.name for t in tokens if t.kind is st.TokenKind.QUOTED] == ["col", "t"]
    assert st.leading_words("((SELECT a FROM t))", 2) == ("SELECT", "A")
    assert st.leading_words("  create or replace view v as select 1", 3) == (
        "CREATE",
        "OR",
        "REPLACE",
    )
    assert st.leading_words("-- c\n/* d */ WITH x AS (SELECT 1) SELECT 1", 1) == ("WITH",)
    assert st.leading_words("", 3) == ()


def test_trim_message() -> None:
    assert st.trim_message("  short \n") == "short"
    long = st.trim_message("x" * 5000)
    assert len(long) == st.MESSAGE_LIMIT and long.endswith("…")


def test_watchdog_fires_once_after_the_delay() -> None:
    hits: list[float] = []
    started = time.monotonic()
    with st.Watchdog(0.1, lambda: hits.append(time.monotonic())) as dog:
        time.sleep(0.3)
    assert dog.fired and len(hits) == 1 and hits[0] - started >= 0.1


def test_watchdog_disarmed_on_exit() -> None:
    hits: list[int] = []
    with st.Watchdog(0.2, lambda: hits.append(1)) as dog:
        pass
    time.sleep(0.3)
    assert not dog.fired and hits == []


def test_watchdog_exit_waits_for_a_running_action() -> None:
    done = threading.Event()

    def slow() -> None:
        time.sleep(0.2)
        done.set()

    with st.Watchdog(0.0, slow):
        time.sleep(0.05)
    assert done.is_set()


def test_watchdog_swallows_action_errors() -> None:
    def boom() -> None:
        raise RuntimeError("engine gone")

    with st.Watchdog(0.0, boom) as dog:
        time.sleep(0.05)
    assert dog.fired


def test_deadline() -> None:
    deadline = st.Deadline(0.05)
    assert not deadline.expired and deadline.remaining() > 0
    time.sleep(0.06)
    assert deadline.expired
    assert st.Deadline(-1).expired


def test_verify_load_accepts_stand_ins() -> None:
    stored = {t.name: [tuple(r) for r in t.rows] for t in SHOP.tables}
    report = st.verify_load(SHOP, stored, seconds=0.5)
    assert report.verified and report.checksums == SHOP.checksums and report.seconds == 0.5
    # SQLite-style stand-ins: floats for decimals, 0/1 for booleans, ISO text for temporals
    items = SHOP.table("items")
    stand_ins = [
        (r[0], r[1], r[2], int(r[3]), None if r[4] is None else r[4].isoformat())
        for r in items.rows
    ]
    assert st.stored_checksums(SHOP, {**stored, "items": stand_ins}) == SHOP.checksums


def test_verify_load_names_every_mismatch() -> None:
    stored = {t.name: [tuple(r) for r in t.rows] for t in SHOP.tables}
    stored["customers"] = stored["customers"][:-1]
    stored["items"] = [(*stored["items"][0][:2], 99, *stored["items"][0][3:])]
    with pytest.raises(FixtureLoadError) as info:
        st.verify_load(SHOP, stored)
    message = str(info.value)
    assert "customers: 3 rows stored, 4 declared" in message
    assert "items: checksum" in message and '"99"' in message
    assert "orders" not in message


def test_raise_load_error_wraps_engine_errors() -> None:
    with pytest.raises(FixtureLoadError, match="could not be stored on duckdb: boom"):
        st.raise_load_error(SHOP, "duckdb", RuntimeError("boom"))
    with pytest.raises(KeyboardInterrupt):
        st.raise_load_error(SHOP, "duckdb", KeyboardInterrupt())


def test_run_in_order_a_statement_returning_after_the_interrupt_is_a_timeout() -> None:
    # BENCHMARK() under KILL QUERY, DuckDB's repeat(): the engine returns instead of failing
    execution = st.run_in_order(
        ["slow"],
        st.Deadline(0.05),
        10,
        lambda _step, _left: (time.sleep(0.4), None)[1],
        lambda: None,
        lambda _exc, _fired: ExecStatus.ENGINE_ERROR,
        str,
    )
    assert execution.status is ExecStatus.TIMEOUT


def test_run_in_order_overflow_ends_the_script_at_once() -> None:
    ran: list[str] = []

    def run(step: str, _left: float) -> None:
        ran.append(step)
        if step == "big":
            raise st.Overflow
        return None

    execution = st.run_in_order(
        ["big", "next"],
        st.Deadline(5),
        3,
        run,
        lambda: None,
        lambda _exc, _fired: ExecStatus.RUNTIME_ERROR,
        str,
    )
    assert (execution.status, execution.error, ran) == (
        ExecStatus.TOO_LARGE,
        "more than 3 rows",
        ["big"],
    )


def test_run_in_order_before_refuses_or_fails_outside_the_watchdog() -> None:
    def classify(exc: BaseException, fired: bool) -> ExecStatus:
        return ExecStatus.TIMEOUT if fired else ExecStatus.RUNTIME_ERROR

    refused = st.run_in_order(
        ["a", "b"],
        st.Deadline(5),
        3,
        lambda _s, _l: None,
        lambda: None,
        classify,
        str,
        before=lambda s, _l: "ended" if s == "b" else None,
    )
    assert (refused.status, refused.error) == (ExecStatus.UNSUPPORTED, "ended")

    def fail(_step: str, _left: float) -> None:
        raise ValueError("limit")

    failed = st.run_in_order(
        ["a"], st.Deadline(5), 3, lambda _s, _l: None, lambda: None, classify, str, before=fail
    )
    assert (failed.status, failed.error) == (ExecStatus.RUNTIME_ERROR, "limit")


def test_run_in_order_engine_messages() -> None:
    def run(step: str, _left: float) -> None:
        raise st.Failed("server said no", code="XX000") if step == "f" else OSError("gone")

    def engine(*_: object) -> ExecStatus:
        return ExecStatus.ENGINE_ERROR

    own = st.run_in_order(["f"], st.Deadline(5), 3, run, lambda: None, engine, str)
    typed = st.run_in_order(["o"], st.Deadline(5), 3, run, lambda: None, engine, str)
    custom = st.run_in_order(
        ["o"],
        st.Deadline(5),
        3,
        run,
        lambda: None,
        engine,
        str,
        engine_message=lambda exc: f"scrubbed {exc}",
    )
    assert [own.error, typed.error, custom.error] == [
        "server said no",
        "OSError: gone",
        "scrubbed gone",
    ]


class _CodedError(Exception):
    def __init__(self, code: str | None) -> None:
        super().__init__(code)
        self.code = code


class _Broken(Exception):
    pass


@pytest.mark.parametrize(
    ("exc", "cancelled", "status"),
    [
        (_CodedError("08006"), False, ExecStatus.ENGINE_ERROR),  # a lost prefix
        (_CodedError("42601"), False, ExecStatus.SYNTAX_ERROR),
        (_CodedError("22012"), False, ExecStatus.RUNTIME_ERROR),
        (_CodedError(None), False, ExecStatus.ENGINE_ERROR),  # uncoded
        (_CodedError(None), True, ExecStatus.ENGINE_ERROR),  # no uncoded_cancel: uncoded rules
        (_Broken("x"), False, ExecStatus.ENGINE_ERROR),  # a lost type
        (ValueError("x"), False, ExecStatus.ENGINE_ERROR),  # not a driver error
    ],
)
def test_error_table_fields(exc: BaseException, cancelled: bool, status: ExecStatus) -> None:
    table = st.ErrorTable(
        lambda e: getattr(e, "code", None),
        syntax=frozenset({"42601"}),
        lost_prefixes=("08",),
        lost_types=(_Broken,),
        uncoded_cancel=False,
        uncoded=ExecStatus.ENGINE_ERROR,
        driver_errors=(_CodedError, _Broken),
    )
    assert table(exc, cancelled) is status


def test_close_quietly_closes_each_and_ignores_failures() -> None:
    closed: list[str] = []

    class Closing:
        def __init__(self, name: str, fails: bool = False) -> None:
            self.name, self.fails = name, fails

        def close(self) -> None:
            closed.append(self.name)
            if self.fails:
                raise OSError("already gone")

    st.close_quietly(Closing("cursor", fails=True), None, Closing("connection"))
    assert closed == ["cursor", "connection"]


def test_read_tables_maps_a_missing_table_to_no_rows() -> None:
    class Missing(Exception):
        pass

    def read(table: Any) -> list[tuple[Any, ...]]:
        if table.name == "orders":
            raise Missing(table.name)
        return [(table.name,)]

    assert st.read_tables(SHOP, read, Missing) == {
        "customers": [("customers",)],
        "orders": [],
        "items": [("items",)],
    }
    with pytest.raises(Missing):
        st.read_tables(SHOP, read, KeyError)  # any other failure is the caller's


def test_watchdogs_share_one_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    """Statements that end before their deadline start no thread each (issue 31: a timer
    thread per statement cost more than a small query); the process's alarm thread wakes them."""
    started: list[str] = []
    real_start = threading.Thread.start

    def counting(self: threading.Thread) -> None:
        started.append(self.name)
        real_start(self)

    with st.Watchdog(30.0, lambda: None):  # the alarm thread exists from here on
        pass
    monkeypatch.setattr(threading.Thread, "start", counting)
    for _ in range(50):
        with st.Watchdog(30.0, lambda: None) as dog:
            pass
        assert not dog.fired
    assert started == []


def test_disarmed_watchdogs_do_not_pile_up() -> None:
    """Watchdogs that left their block long before their deadline are dropped from the alarm
    heap (compacted), not kept until the deadline (a day, at most)."""
    for _ in range(3 * st.COMPACT_ALARMS):
        with st.Watchdog(3600.0, lambda: None):
            pass
    assert len(st.ALARMS._heap) <= 2 * st.COMPACT_ALARMS


def test_a_sooner_watchdog_fires_before_a_later_one() -> None:
    hits: list[str] = []
    fired = threading.Event()
    with st.Watchdog(3600.0, lambda: hits.append("late")):
        with st.Watchdog(0.05, lambda: (hits.append("soon"), fired.set())) as dog:
            assert fired.wait(60)
        assert dog.fired
    assert hits == ["soon"]
