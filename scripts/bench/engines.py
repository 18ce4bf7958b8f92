"""Engine start-up and fixture migration, measured on this machine.

For every local engine (SQLite, DuckDB, ClickHouse via chdb, PostgreSQL and MariaDB servers that
this script starts in a throwaway cache directory, Spark when installed): the time to bring it up
(server start to ready, or adapter construction plus a first query), then the time to migrate each
named fixture — load into the engine and verify per-table checksums — and rows loaded per second.
Named fixtures are resolved (and their disk cache warmed) before timing starts; every engine gets
a fresh adapter, so no load is a cache hit. Spider is all available databases as one batch.

    python scripts/bench/engines.py [--engines sqlite,duckdb,...] [--fixtures tpch,spider]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from dataclasses import dataclass

from rich.console import Console
from rich.table import Table as RichTable

LOCAL = ("sqlite", "duckdb", "clickhouse", "postgres", "mysql", "spark")


@dataclass
class Measure:
    engine: str
    label: str
    up: float | None
    loads: dict[str, tuple[float, int]]  # fixture group -> (seconds, rows)
    note: str = ""


def _fixtures(groups: list[str]) -> dict[str, list]:  # type: ignore[type-arg]
    from parrot.migrate import named

    out = {}
    for group in groups:
        if group == "spider":
            names = [n for n in named.available_named() if n.startswith("spider/")]
            if not names:
                print(f"spider: no corpus at {named.spider_root()}; skipped", file=sys.stderr)
                continue
        else:
            names = [group]
        out[group] = [named.named_fixture(n) for n in names]
    return out


def _bring_up(dialect: str) -> tuple[float, object]:
    """Seconds to a usable adapter: server start to ready (servers), or construction + SELECT 1."""
    from parrot.connect import create_engine
    from parrot.engines import engine_class, engine_name_for
    from parrot.fixtures import Fixture
    from parrot.servers import server_for

    cls = engine_class(engine_name_for(dialect) or dialect)
    started = time.perf_counter()
    if cls.url_schemes is not None:
        state = server_for(dialect).start()
        up = time.perf_counter() - started
        return up, create_engine(dialect, state.url)
    engine = create_engine(dialect)
    run = engine.execute("SELECT 1", Fixture("empty", ()))
    if not run.ok:
        raise RuntimeError(f"{dialect}: SELECT 1 failed: {run.error}")
    return time.perf_counter() - started, engine


def measure(dialect: str, fixtures: dict[str, list]) -> Measure:  # type: ignore[type-arg]
    from parrot.engines import Engine, engine_class, engine_name_for

    hint = getattr(engine_class(engine_name_for(dialect) or dialect), "available", lambda: None)()
    if hint is not None:
        return Measure(dialect, dialect, None, {}, f"not available: {hint}")
    up, engine = _bring_up(dialect)
    assert isinstance(engine, Engine)
    loads = {}
    try:
        for group, fxs in fixtures.items():
            started = time.perf_counter()
            for fx in fxs:
                if not engine.load(fx).verified:
                    raise RuntimeError(f"{dialect}: {fx.name} did not verify")
            loads[group] = (
                time.perf_counter() - started,
                sum(len(t.rows) for fx in fxs for t in fx.tables),
            )
        return Measure(dialect, engine.label, up, loads)
    finally:
        engine.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engines", default=",".join(LOCAL))
    parser.add_argument(
        "--fixtures",
        default="tpch,spider",
        help="named fixtures (tpch, tpch-sf<N>, spider/<db>) or 'spider' for all",
    )
    args = parser.parse_args()
    os.environ["PARROT_CACHE"] = tempfile.mkdtemp(prefix="parrot-bench-")  # throwaway servers
    for var in [v for v in os.environ if v.startswith("PARROT_") and v.endswith("_URL")]:
        del os.environ[var]  # measure the local engines, not a configured server
    from parrot.servers import SERVERS, server_for

    started = time.perf_counter()
    fixtures = _fixtures([g.strip() for g in args.fixtures.split(",") if g.strip()])
    print(
        f"resolved {sum(len(v) for v in fixtures.values())} fixtures in "
        f"{time.perf_counter() - started:.1f}s (not counted below)",
        file=sys.stderr,
    )
    results = []
    try:
        for dialect in [e.strip() for e in args.engines.split(",") if e.strip()]:
            print(f"{dialect} ...", file=sys.stderr)
            results.append(measure(dialect, fixtures))
    finally:
        for dialect in SERVERS:
            server_for(dialect).stop()
    table = RichTable(title="engine start-up and fixture migration (load + verify)")
    table.add_column("engine")
    table.add_column("up s", justify="right")
    for group in fixtures:
        table.add_column(f"{group} s", justify="right")
        table.add_column(f"{group} rows/s", justify="right")
    for m in results:
        cells = [m.label, "-" if m.up is None else f"{m.up:.2f}"]
        for group in fixtures:
            seconds, rows = m.loads.get(group, (None, 0))
            cells += ["-", "-"] if seconds is None else [f"{seconds:.2f}", f"{rows / seconds:,.0f}"]
        table.add_row(*cells)
    Console(width=140).print(table)
    for m in results:
        if m.note:
            print(f"{m.engine}: {m.note}")


if __name__ == "__main__":
    main()
