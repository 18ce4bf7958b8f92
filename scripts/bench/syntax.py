"""How fast is parrot's grammar-only checker, next to sqlglot and next to PARROT's own generated
parsers, on the same real queries in the same run?

For each dialect: up to N real queries (the fidelity corpora: shared corpora + datasets), then in
one process, CPU time: the first parse (cold: module import + the ANTLR prediction cache), warm
queries/s of ``parrot.check`` (best of --repeat passes) and of ``sqlglot.parse``, and — for the
dialects PARROT ships a parser for (SQLite, PostgreSQL, MySQL, ClickHouse) — of PARROT's own
ANTLR-generated Python parsers (``validator/*_parser`` of the PARROT repository, ANTLR 4.13, run
through the same Python runtime, each statement lexed and parsed from the grammar's start rule
until the first syntax error, as PARROT's ``validator/parse_tree.py`` does). PARROT's parsers are
slow (about 1 query/s on MySQL), so they run on the first ``--parrot-n`` of the queries, and the
ratio compares parrot.check on exactly those queries: a cold pass, then the best of --repeat
warm passes for both.

PARROT's parsers are read, never copied: ``--parrot-repo`` names a clone (or bare git directory)
of https://github.com/weAIDB/PARROT; its ``validator/`` folder is extracted with ``git archive``
into a temporary directory and imported from there. Without it the PARROT columns say so.

    python scripts/bench/syntax.py [--dialects sqlite,postgres] [-n 1000] [--repeat 2]
        [--parrot-repo PATH] [--parrot-n 40] [--no-write]

Writes docs/results/syntax.md (unless --no-write).
"""

from __future__ import annotations

import argparse
import importlib
import io
import random
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import sqlglot

sys.path.insert(0, str(Path(__file__).resolve().parent))

from resultsfile import load_average, write_results

from parrot.check import check_sql
from parrot.check.fidelity import DIALECTS, real_queries
from parrot.dialects import resolve

# dialect -> (module under validator/, lexer class, parser class, start rule) in PARROT's repo
PARROT_PARSERS = {
    "sqlite": ("sqlite_parser", "SQLiteLexer", "SQLiteParser", "parse"),
    "postgres": ("pg_parser", "PostgreSQLLexer", "PostgreSQLParser", "root"),
    "mysql": ("mysql_parser", "MySqlLexer", "MySqlParser", "root"),
    "clickhouse": ("clickhouse_parser", "ClickHouseLexer", "ClickHouseParser", "queryStmt"),
}


def _cpu(fn: Callable[[str], bool], items: list[str]) -> tuple[float, int]:
    start = time.process_time()
    ok = sum(1 for q in items if fn(q))
    return time.process_time() - start, ok


def _ours(dialect: str) -> Callable[[str], bool]:
    return lambda q: all(v.ok for v in check_sql(q, dialect))


def _sqlglot(dialect: str) -> Callable[[str], bool]:
    def parse(q: str) -> bool:
        try:
            sqlglot.parse(q, read=dialect)
            return True
        except sqlglot.errors.SqlglotError:
            return False

    return parse


def extract_parrot(repo: Path, into: Path) -> None:
    """PARROT's ``validator/`` package (its parsers of :data:`PARROT_PARSERS`) from the clone or
    git directory ``repo``, into ``into`` (its large data files may be absent from a mirror)."""
    git = ["git", f"--git-dir={repo / '.git'}" if (repo / ".git").exists() else f"--git-dir={repo}"]
    paths = ["validator/__init__.py", *(f"validator/{p[0]}" for p in PARROT_PARSERS.values())]
    tar = subprocess.run([*git, "archive", "HEAD", *paths], capture_output=True, check=True)
    with tarfile.open(fileobj=io.BytesIO(tar.stdout)) as archive:
        archive.extractall(into, filter="data")
    sys.path.insert(0, str(into))


CRASHES: dict[str, int] = {}  # dialect -> statements PARROT's parser crashed on (not a verdict)


def _theirs(dialect: str) -> Callable[[str], bool]:
    """PARROT's parser for ``dialect``: True when the statement parses without a syntax error;
    a crash in its generated actions (its PostgreSQL parser calls an undefined
    ``ParseRoutineBody`` in CREATE FUNCTION) counts as not accepted and in :data:`CRASHES`."""
    from antlr4 import CommonTokenStream, InputStream
    from antlr4.error.ErrorListener import ErrorListener

    package, lexer_name, parser_name, rule = PARROT_PARSERS[dialect]
    lexer_cls = getattr(importlib.import_module(f"validator.{package}.{lexer_name}"), lexer_name)
    parser_cls = getattr(importlib.import_module(f"validator.{package}.{parser_name}"), parser_name)

    class Stop(Exception):
        pass

    class Raise(ErrorListener):  # type: ignore[misc]
        def syntaxError(self, *args: Any) -> None:
            raise Stop

    def parse(q: str) -> bool:
        lexer = lexer_cls(InputStream(q))
        lexer.removeErrorListeners()
        lexer.addErrorListener(Raise())
        parser = parser_cls(CommonTokenStream(lexer))
        parser.removeErrorListeners()
        parser.addErrorListener(Raise())
        try:
            getattr(parser, rule)()
            return True
        except Stop:
            return False
        except Exception:  # a defect of the generated parser: counted, not a verdict
            CRASHES[dialect] = CRASHES.get(dialect, 0) + 1
            return False

    return parse


def _side_by_side(d: str, queries: list[str], repeat: int) -> str:
    """parrot.check beside PARROT's parser on ``queries``: the table cells."""
    theirs = _theirs(d)
    cold_theirs, ok_theirs = _cpu(theirs, queries)
    warm_theirs = min(_cpu(theirs, queries)[0] for _ in range(repeat))
    warm_ours = min(_cpu(_ours(d), queries)[0] for _ in range(repeat))
    n = len(queries)
    crashed = CRASHES.get(d, 0) // (1 + repeat)  # each pass crashes on the same statements
    accepted = f"{ok_theirs} ({crashed} crashed)" if crashed else f"{ok_theirs}"
    return (
        f"{n} | {accepted} | {n / cold_theirs:,.1f} | {n / warm_theirs:,.1f} | "
        f"{n / warm_ours:,.0f} | **{warm_theirs / warm_ours:,.1f}×**"
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dialects", default=",".join(DIALECTS))
    ap.add_argument("-n", type=int, default=1000, help="queries per dialect (default 1000)")
    ap.add_argument("--repeat", type=int, default=2, help="warm passes; the best counts")
    ap.add_argument("--parrot-repo", type=Path, help="a clone of weAIDB/PARROT (or its git dir)")
    ap.add_argument(
        "--parrot-n",
        type=int,
        default=40,
        help="queries per dialect run through PARROT's parsers (default 40)",
    )
    ap.add_argument("--no-write", action="store_true", help="print only")
    args = ap.parse_args(argv)
    started = load_average()
    with tempfile.TemporaryDirectory(prefix="parrot-bench-syntax-") as tmp:
        if args.parrot_repo:
            extract_parrot(args.parrot_repo, Path(tmp))
        body = _table(args)
    if not args.no_write:
        print(f"wrote {write_results('syntax', 'Grammar check speed', body, started_load=started)}")
    return 0


def _table(args: argparse.Namespace) -> str:
    head = (
        "| dialect | queries | first parse (CPU s) | first pass q/s | parrot.check q/s | "
        "accepted | sqlglot q/s | parrot/sqlglot | PARROT's parser: queries | accepted | "
        "first pass q/s | warm q/s | parrot.check q/s on them | **parrot ÷ PARROT** |"
    )
    rows = [head, "|" + "---|" * 14]
    for name in args.dialects.split(","):
        d = resolve(name)
        queries = [q.sql for q in real_queries(d, per_source=args.n)]
        if len(queries) > args.n:
            queries = random.Random(0).sample(queries, args.n)
        if not queries:
            continue
        start = time.process_time()
        check_sql(queries[0], d)  # imports the generated parser, first prediction-cache fill
        first = time.process_time() - start
        cold, _ = _cpu(_ours(d), queries)
        sec, ok = min(_cpu(_ours(d), queries) for _ in range(args.repeat))
        sg = len(queries) / min(_cpu(_sqlglot(d), queries)[0] for _ in range(args.repeat))
        qps = len(queries) / sec
        if d not in PARROT_PARSERS:
            parrot = "– | – | – | – | – | PARROT ships no parser"
        elif not args.parrot_repo:
            parrot = "– | – | – | – | – | not run (no --parrot-repo)"
        else:
            parrot = _side_by_side(d, queries[: args.parrot_n], args.repeat)
        rows.append(
            f"| {d} | {len(queries)} | {first:.2f} | {len(queries) / cold:,.0f} | "
            f"{qps:,.0f} | {ok} | {sg:,.0f} | {qps / sg:.2f}× | {parrot} |"
        )
        print(rows[-1], file=sys.stderr)
    note = (
        "\nCPU seconds in one process. PARROT's parsers are the generated Python parsers of "
        "weAIDB/PARROT's `validator/` (ANTLR 4.13), run from the start rule until the first "
        "syntax error; both sides warm (best of the passes after a first one)."
    )
    return "\n".join(rows) + "\n" + note


if __name__ == "__main__":
    sys.exit(main())
