"""``python -m parrot.check --dialect D [FILES… | -]``: grammar-only syntax checks.

One verdict per statement: ``FILE:LINE:COLUMN: error …`` for each failing one (``ok`` lines with
``-v``), then a summary; ``--json`` prints one JSON object instead. Exit status: 0 when every
statement parses, 1 when any fails, 2 on usage errors (unknown dialect, unreadable file).
The prediction cache (DFA) the run warmed is kept in ``$PARROT_CACHE/dfa/`` for the next run.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from parrot import cli
from parrot.check import GRAMMAR_OF, UnsupportedDialectError, Verdict, check_sql
from parrot.check.parsers import persist
from parrot.dialects import UnknownDialectError


def configure(ap: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """Fill ``ap`` with check's flags (also ``parrot check``'s subparser)."""
    cli.configure(ap, check, "Check SQL syntax with parrot's own grammars (no engine, no Java).")
    ap.add_argument(
        "--dialect", "-d", required=True, help=f"dialect or alias ({', '.join(sorted(GRAMMAR_OF))})"
    )
    ap.add_argument(
        "files", nargs="*", default=["-"], help="SQL files; '-' or nothing reads standard input"
    )
    ap.add_argument("--json", action="store_true", help="print the verdicts as JSON")
    ap.add_argument("-v", "--verbose", action="store_true", help="also list statements that pass")
    return ap


build_parser, main = cli.entry_points("python -m parrot.check", configure)


def _snippet(sql: str, v: Verdict, width: int = 60) -> str:
    text = " ".join(sql[v.start : v.end].split())
    return text if len(text) <= width else text[: width - 1] + "…"


def check(args: argparse.Namespace) -> int:
    """Check the files ``args`` name; print the verdicts."""
    try:
        return _run(args)
    finally:
        persist()  # the DFA this run warmed, for the next run (issue 31)


def _run(args: argparse.Namespace) -> int:
    results: list[tuple[str, str, list[Verdict]]] = []
    try:
        for name in args.files:
            sql = sys.stdin.read() if name == "-" else Path(name).read_text(encoding="utf-8")
            results.append((name if name != "-" else "<stdin>", sql, check_sql(sql, args.dialect)))
    except (UnknownDialectError, UnsupportedDialectError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"error: cannot read {exc.filename}: {exc.strerror}", file=sys.stderr)
        return 2
    total = sum(len(v) for _, _, v in results)
    failed = sum(1 for _, _, vs in results for v in vs if not v.ok)
    if args.json:
        out = {
            "dialect": args.dialect,
            "statements": total,
            "failed": failed,
            "files": [{"file": f, "verdicts": [v.to_dict() for v in vs]} for f, _, vs in results],
        }
        print(json.dumps(out, indent=2))
    else:
        for name, sql, verdicts in results:
            for v in verdicts:
                if not v.ok:
                    print(
                        f"{name}:{v.line}:{v.column}: error: statement {v.index}: near "
                        f"{v.token!r}: {v.message}  [{_snippet(sql, v)}]"
                    )
                elif args.verbose:
                    print(f"{name}: ok: statement {v.index}  [{_snippet(sql, v)}]")
        print(f"{total - failed}/{total} statements parse as {args.dialect}; {failed} failed")
    return 1 if failed else 0
