"""Do timeouts stop the work? Resource bombs on every local engine, measured on this machine.

For each engine, each bomb of ``tests/engines/hostile_cases.toml`` whose only accepted outcome is
``timeout`` runs with the timeout requested (``--timeout``, default 2 s), ``--repeat`` times, as an
eval runs it (embedded engines in isolated worker processes, servers parrot starts in a throwaway
cache directory). Columns: the outcome, the time until ``execute`` returned, and the time until
the work had stopped — the worker process that ran it gone (embedded engines), the server no
longer listing the query (PostgreSQL, MariaDB) — each the worst of the repeats, and whether
that stayed within timeout + 2 s (a statement that ignores its cancel gets its
session ended 1 s after the cancel: ``parrot.engines.statements.ESCALATE_AFTER``).

    python scripts/bench/hostile.py [--engines sqlite,...] [--timeout 2] [--repeat 3] [--write]

``--write`` puts the table into ``docs/results/hostile.md`` (date, commit, load, CPU seconds).
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
import time
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table as RichTable

sys.path.insert(0, str(Path(__file__).parent))
from resultsfile import load_average, write_results

CASES = Path(__file__).parents[2] / "tests" / "engines" / "hostile_cases.toml"
LOCAL = ("sqlite", "duckdb", "clickhouse", "postgres", "mysql", "spark")
PATIENCE = 120.0  # seconds to wait for the work to stop before calling it "still running"


@dataclass
class Row:
    engine: str
    bomb: str
    status: str
    returned: float  # seconds until execute() returned (worst of the repeats)
    stopped: float | None  # seconds until the work stopped; None: not within PATIENCE


def _shop() -> Any:
    sys.path.insert(0, str(CASES.parent))
    from engine_fixtures import SHOP  # type: ignore[import-not-found]

    return SHOP


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def _server_lists(dialect: str, url: str) -> bool:
    """The server (asked as its superuser, in its own process list) still runs any client
    statement but this question: the bench's servers are its own, so that is the bomb's work
    (a sub-statement of a compound one included, whatever its text)."""
    if dialect == "postgres":
        import psycopg

        with psycopg.connect(url, autocommit=True, connect_timeout=10) as conn:
            row = conn.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE backend_type = "
                "'client backend' AND state <> 'idle' "
                "AND pid <> pg_backend_pid()"
            ).fetchone()
        return bool(row and row[0])
    from parrot.engines.mysql import _Target

    conn = _Target.parse(url).connect()
    try:
        with conn.cursor() as cur:
            cur.execute(
                "SELECT count(*) FROM information_schema.processlist WHERE command "
                "NOT IN ('Sleep', 'Daemon') AND id <> CONNECTION_ID()"
            )
            found = cur.fetchone()
        return bool(found and found[0])
    finally:
        conn.close()


def _working(engine: Any, sql: str) -> Callable[[], bool]:
    """A check of whether ``engine`` still works on ``sql``, taken before it runs."""
    from parrot.engines.worker import POOL, IsolatedEngine

    if isinstance(engine, IsolatedEngine):
        pid = POOL.get(engine.group).process.pid
        return lambda: _alive(pid)
    from parrot.servers import server_for

    state = server_for(engine.dialect).state()
    assert state is not None
    return lambda: _server_lists(engine.dialect, state.url)


def measure(name: str, bomb: dict[str, Any], timeout: float, repeat: int) -> Row:
    from parrot.connect import create_engine

    shop = _shop()
    engine = create_engine(name, start=True)
    returned: list[float] = []
    stopped: list[float | None] = []
    statuses: set[str] = set()
    try:
        engine.load(shop)
        for attempt in range(repeat):
            working = _working(engine, bomb["sql"])
            started = time.monotonic()
            execution = engine.execute(bomb["sql"], shop, timeout=timeout)
            back = time.monotonic() - started
            while working() and time.monotonic() - started < PATIENCE:
                time.sleep(0.02)
            stopped.append(None if working() else time.monotonic() - started)
            returned.append(back)
            statuses.add(execution.status.value)
            if attempt < repeat - 1:  # a new worker after a kill: load outside the timing
                engine.load(shop)
    finally:
        engine.close()
    worst = None if None in stopped else max(t for t in stopped if t is not None)
    return Row(name, bomb["id"], "/".join(sorted(statuses)), max(returned), worst)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--engines", default=",".join(LOCAL))
    parser.add_argument("--timeout", type=float, default=2.0)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--write",
        action="store_true",
        help="write docs/results/hostile.md (every engine should be available)",
    )
    args = parser.parse_args(argv)
    load = load_average()
    skipped: list[str] = []
    # servers of its own, stopped at the end (never the ones another shell uses)
    os.environ["PARROT_CACHE"] = tempfile.mkdtemp(prefix="parrot-bench-hostile-")
    table = tomllib.loads(CASES.read_text())
    console = Console(width=max(120, Console().width))
    rows: list[Row] = []
    from parrot.engines import engine_class

    for name in args.engines.split(","):
        hint = getattr(engine_class(name), "available", lambda: None)()
        if engine_class(name).url_schemes is not None:
            from parrot.servers import server_for

            hint = server_for(name).available()
        if hint is not None:
            console.print(f"{name}: skipped ({hint})")
            skipped.append(name)
            continue
        for bomb in table[name]["bomb"]:
            if bomb["allowed"] == ["timeout"]:
                console.print(f"{name} {bomb['id']} ...", highlight=False)
                rows.append(measure(name, bomb, args.timeout, args.repeat))
    title = f"Resource bombs, timeout {args.timeout:g} s requested (worst of {args.repeat})"
    out = RichTable(title=title)
    for column in COLUMNS:
        out.add_column(column)
    cells = [_cells(row, args.timeout) for row in rows]
    for row_cells in cells:
        out.add_row(*row_cells)
    console.print(out)
    from parrot.servers import SERVERS, server_for

    for dialect in SERVERS:  # the servers this script started in its throwaway cache
        server_for(dialect).stop()
    if args.write:
        cpu = resource.getrusage(resource.RUSAGE_SELF)
        children = resource.getrusage(resource.RUSAGE_CHILDREN)
        seconds = cpu.ru_utime + cpu.ru_stime + children.ru_utime + children.ru_stime
        held = sum(1 for c in cells if c[-1] == "yes")
        body = (
            f"{title}; engines skipped here: {', '.join(skipped) or 'none'}.\n\n"
            + _markdown(cells)
            + f"\n\n{held} of {len(cells)} bombs stopped within "
            f"timeout + 2 s, the work gone from the worker (embedded engines) or from the "
            f"server's own process list (`pg_stat_activity`, `information_schema."
            f"processlist`: no client statement left but the check's own). CPU: "
            f"{seconds:.0f} s (this process and its children; wall-clock figures above "
            f"depend on the load stated in the header).\n"
        )
        print(
            write_results(
                "hostile",
                "Resource bombs: does the timeout stop the work?",
                body,
                started_load=load,
            )
        )
    return 0


COLUMNS = (
    "engine",
    "bomb",
    "outcome",
    "returned after s",
    "work stopped after s",
    "stopped ≤ timeout + 2 s",
)


def _cells(row: Row, timeout: float) -> tuple[str, ...]:
    ok = row.stopped is not None and row.stopped <= timeout + 2
    return (
        row.engine,
        row.bomb,
        row.status,
        f"{row.returned:.2f}",
        "still running" if row.stopped is None else f"{row.stopped:.2f}",
        "yes" if ok else "NO",
    )


def _markdown(cells: list[tuple[str, ...]]) -> str:
    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    lines += ["| " + " | ".join(c) + " |" for c in cells]
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
