"""How long does ``parrot check`` take on a Chinook-size database script, per dialect?

Builds the scripts by code (nothing downloaded): a schema (11 CREATE TABLEs and their indexes),
1,000 single-row INSERTs, 10 INSERTs of 100 rows each, and 1,000 single-row INSERTs whose strings
are national literals (``N'…'``, as the public Chinook scripts write them; PostgreSQL and MySQL
only, SQLite has no such literal). The same statements are checked as postgres, mysql and sqlite,
each by a fresh ``python -m parrot.check`` process (wall time, start-up included) with an empty
``PARROT_CACHE``, then once more with the DFA that first run kept (issue 31). Writes
docs/results/check_scripts.md.

    python scripts/bench/check_scripts.py [--dialects postgres,mysql,sqlite] [--rows 1000]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from resultsfile import ROOT, load_average, write_results

TABLES = {  # name -> column types (i: integer, s: text, d: decimal, t: timestamp)
    "genre": "is",
    "media_type": "is",
    "artist": "is",
    "album": "isi",
    "track": "isiiisiid",
    "employee": "issssittsssssss",
    "customer": "isssssssssssi",
    "invoice": "iitssssd",
    "invoice_line": "iiidi",
    "playlist": "is",
    "playlist_track": "ii",
}
SQL_TYPE = {"i": "INT", "s": "VARCHAR(120)", "d": "NUMERIC(10,2)", "t": "TIMESTAMP"}
NATIONAL = {"postgres", "mysql"}  # dialects with N'…' literals


def _value(kind: str, row: int, col: int, national: bool) -> str:
    if kind == "i":
        return str(row * 7 + col)
    if kind == "d":
        return f"{(row % 100) + 0.99:.2f}"
    if kind == "t":
        return f"'20{9 + row % 4:02d}-0{1 + row % 9}-1{row % 10} 00:00:00'"
    if row % 11 == 0:
        return "NULL"
    prefix = "N" if national else ""
    return f"{prefix}'Name {row}-{col} O''Brien & Co'"


def schema() -> str:
    out = []
    for table, kinds in TABLES.items():
        cols = [
            f"    c{n} {SQL_TYPE[k]}{' NOT NULL' if n == 0 else ''}" for n, k in enumerate(kinds)
        ]
        cols.append(f"    CONSTRAINT {table}_pkey PRIMARY KEY (c0)")
        out.append(f"CREATE TABLE {table}\n(\n" + ",\n".join(cols) + "\n);")
        out.append(f"CREATE INDEX {table}_idx ON {table} (c0);")
    return "\n\n".join(out) + "\n"


def _row(kinds: str, row: int, national: bool) -> str:
    return "(" + ", ".join(_value(k, row, c, national) for c, k in enumerate(kinds)) + ")"


def _columns(kinds: str) -> str:
    return ", ".join(f"c{n}" for n in range(len(kinds)))


def inserts(rows: int, national: bool = False) -> str:
    """``rows`` single-row INSERTs, spread over the tables in turn."""
    names = list(TABLES)
    out = []
    for row in range(rows):
        table = names[row % len(names)]
        kinds = TABLES[table]
        out.append(f"INSERT INTO {table} ({_columns(kinds)}) VALUES {_row(kinds, row, national)};")
    return "\n".join(out) + "\n"


def multirow(statements: int = 10, rows: int = 100) -> str:
    out = []
    for n in range(statements):
        kinds = TABLES["track"]
        values = ",\n    ".join(_row(kinds, n * rows + r, False) for r in range(rows))
        out.append(f"INSERT INTO track ({_columns(kinds)}) VALUES\n    {values};")
    return "\n\n".join(out) + "\n"


def run_check(path: Path, dialect: str, cache: Path) -> tuple[float, int, int]:
    """Wall seconds, statements and failures of one ``python -m parrot.check`` process."""
    env = {**os.environ, "PARROT_CACHE": str(cache), "PYTHONPATH": str(ROOT)}
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "parrot.check", "-d", dialect, "--json", str(path)],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    seconds = time.perf_counter() - start
    if done.returncode not in (0, 1):
        raise SystemExit(f"parrot check -d {dialect} {path.name} failed: {done.stderr.strip()}")
    report = json.loads(done.stdout)
    return seconds, report["statements"], report["failed"]


def measure(scripts: dict[str, str], dialects: list[str], work: Path) -> list[list[str]]:
    rows = []
    for name, text in scripts.items():
        path = work / f"{name}.sql"
        path.write_text(text, encoding="utf-8")
        for dialect in dialects:
            if name == "national" and dialect not in NATIONAL:
                rows.append([name, dialect, "n/a", "n/a", "—"])
                continue
            cache = work / f"cache-{name}-{dialect}"
            first, total, failed = run_check(path, dialect, cache)
            second, _, _ = run_check(path, dialect, cache)
            print(
                f"{name:9} {dialect:9} {first:7.1f} s  {second:7.1f} s  "
                f"{total - failed}/{total} parse",
                flush=True,
            )
            rows.append(
                [name, dialect, f"{first:.1f}", f"{second:.1f}", f"{total - failed}/{total}"]
            )
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dialects", default="postgres,mysql,sqlite")
    ap.add_argument("--rows", type=int, default=1000, help="single-row INSERTs per script")
    ap.add_argument("--no-write", action="store_true", help="print only; keep docs/results as is")
    args = ap.parse_args(argv)
    dialects = [d.strip() for d in args.dialects.split(",") if d.strip()]
    scripts = {
        "schema": schema(),
        "inserts": inserts(args.rows),
        "multirow": multirow(),
        "national": inserts(args.rows, national=True),
    }
    load = load_average()
    with tempfile.TemporaryDirectory(prefix="parrot-check-bench-") as tmp:
        rows = measure(scripts, dialects, Path(tmp))
    body = (
        "Scripts built by code (`schema`: 11 CREATE TABLEs + 11 CREATE INDEXes; `inserts`: "
        f"{args.rows} single-row INSERTs; `multirow`: 10 INSERTs of 100 rows; `national`: "
        f"{args.rows} single-row INSERTs with `N'…'` strings). Wall seconds of one "
        "`python -m parrot.check -d DIALECT --json FILE` process, start-up included: first "
        "with an empty cache (the shipped DFA seed only), then again with the DFA the first "
        "run kept.\n\n"
        "| script | dialect | first run (s) | second run (s) | statements parsed |\n"
        "|---|---|---:|---:|---:|\n" + "\n".join("| " + " | ".join(r) + " |" for r in rows) + "\n"
    )
    if not args.no_write:
        print(
            write_results(
                "check_scripts", "Grammar check of database scripts", body, started_load=load
            )
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
