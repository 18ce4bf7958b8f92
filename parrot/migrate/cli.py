"""``python -m parrot.migrate``: read databases into fixtures, write them, load them on engines.

Examples::

    python -m parrot.migrate path/to/db.sqlite --name shop -o shop.json
    python -m parrot.migrate postgresql://u@127.0.0.1:5432/db --tables a,b -o db.json.gz
    python -m parrot.migrate db.json.gz --load duckdb,clickhouse     # a fixture -o wrote
    python -m parrot.migrate spider/concert_singer --report          # type decisions
    python -m parrot.migrate app.sqlite --type users.active=boolean --type users.born=date
    python -m parrot.migrate --all --load sqlite,duckdb,clickhouse   # time every named fixture
    python -m parrot.migrate --list
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
import time
from pathlib import Path
from typing import Any

from parrot import cli
from parrot.connect import create_engine
from parrot.fixtures import FixtureError
from parrot.migrate import named
from parrot.migrate.infer import parse_override
from parrot.migrate.introspect import Introspection
from parrot.migrate.transfer import read_source


def configure(p: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """Fill ``p`` with migrate's flags (also ``parrot migrate``'s subparser)."""
    cli.configure(p, migrate, __doc__, raw=True)
    p.add_argument(
        "sources",
        nargs="*",
        metavar="SOURCE",
        help="SQLite/DuckDB file, duckdb:/// or SQLAlchemy URL, a named fixture "
        "(spider/<db_id>, text2sql/<db>, tpch), or a fixture file -o wrote "
        "(.json, .json.gz)",
    )
    p.add_argument("--name", help="fixture name (default: the file's stem)")
    cli.add_output_file(
        p,
        "the fixture JSON ('-': standard output; .gz compresses)",
        default="none written",
        old=("--out",),
        dest="out",
    )
    p.add_argument("--tables", help="comma-separated tables to read (default: all)")
    p.add_argument(
        "--blank-as-null",
        action="store_true",
        help="read '' as NULL in non-text columns (changes values; reported)",
    )
    p.add_argument(
        "--type",
        action="append",
        default=[],
        metavar="TABLE.COLUMN=TYPE",
        dest="types",
        help="force a column's type: boolean, date, timestamp or decimal(p,s); every "
        "value must fit it (repeatable). Columns whose values are all 0/1, ISO "
        "dates or ISO timestamps are reported as candidates without it",
    )
    p.add_argument("--report", action="store_true", help="print every column's type decision")
    p.add_argument(
        "--load",
        metavar="DIALECTS",
        help="comma-separated engines (dialects) to load and verify on",
    )
    p.add_argument("--all", action="store_true", help="every available named fixture")
    p.add_argument("--list", action="store_true", help="list named fixtures and exit")
    return p


build_parser, main = cli.entry_points("python -m parrot.migrate", configure)


def migrate(args: argparse.Namespace) -> int:
    """Read, write and load the fixtures ``args`` name."""
    if args.list:
        for n in named.available_named():
            print(n)
        for n, why in named.unavailable_named().items():
            print(f"{n}\tunavailable: {why}", file=sys.stderr)
        return 0
    sources: list[str] = list(args.sources)
    if args.all:
        sources += named.available_named()
    if not sources:
        args._parser.error("give a SOURCE, --all or --list")
    if args.out and len(sources) != 1:
        args._parser.error("-o/--output takes exactly one SOURCE")
    tables = args.tables.split(",") if args.tables else None
    try:
        types = dict(parse_override(spec) for spec in args.types)
    except ValueError as exc:
        args._parser.error(str(exc))
    engines = _engines(args.load)
    totals = {"read": 0.0, **{d: 0.0 for d in engines}}
    failures = 0
    try:
        for source in sources:
            started = time.perf_counter()
            try:
                result = read_source(
                    source,
                    name=args.name,
                    tables=tables,
                    blank_as_null=args.blank_as_null,
                    types=types,
                )
            except (FixtureError, ValueError) as exc:
                print(f"{source}: {exc}", file=sys.stderr)
                failures += 1
                continue
            read = time.perf_counter() - started
            totals["read"] += read
            line = [_summary(result), f"read {read:.2f}s"]
            for dialect, engine in engines.items():
                started = time.perf_counter()
                try:
                    engine.load(result.fixture)
                    took = time.perf_counter() - started
                    totals[dialect] += took
                    line.append(f"{dialect} {took:.2f}s")
                except Exception as exc:
                    failures += 1
                    line.append(f"{dialect} FAILED: {exc}")
            print("  ".join(line))
            if args.report:
                for c in result.columns:
                    why = "".join(f"  — {t}" for t in (c.reason, c.hint) if t)
                    print(f"    {c.table}.{c.column}: {c.declared or '(none)'} → {c.type}{why}")
            else:
                for c in result.columns:
                    for text in (c.reason, c.hint):
                        if text:
                            print(f"    {c.table}.{c.column}: {text}")
            if args.out:
                _write(result, args.out)
    finally:
        for engine in engines.values():
            engine.close()
    if len(sources) > 1:
        print(
            "total: "
            + ", ".join(f"{k} {v:.2f}s" for k, v in totals.items())
            + f"; {failures} failure(s)"
        )
    return 1 if failures else 0


def _engines(spec: str | None) -> dict[str, Any]:
    if not spec:
        return {}

    return {d: create_engine(d) for d in spec.split(",") if d}


def _summary(result: Introspection) -> str:
    rows = result.fixture.row_count
    return (
        f"{result.fixture.name}: {len(result.fixture.tables)} tables, {rows} rows, "
        f"{len(result.dirty)} retyped column(s), {len(result.candidates)} type candidate(s)"
    )


def _write(result: Introspection, out: str) -> None:
    text = json.dumps(result.to_json(), ensure_ascii=False, indent=None, separators=(",", ":"))
    if out == "-":
        sys.stdout.write(text + "\n")
    elif out.endswith(".gz"):
        with gzip.open(out, "wt", encoding="utf-8") as fh:
            fh.write(text)
    else:
        Path(out).write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    raise SystemExit(main())
