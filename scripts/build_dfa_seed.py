#!/usr/bin/env python3
"""Build the grammars' shipped DFA seed (``parrot/check/dfa/``) so that a first run starts warm.

The Python ANTLR runtime learns its prediction cache (DFA) while it parses; parrot keeps it in
``$PARROT_CACHE/dfa/`` between runs (:mod:`parrot.check.dfacache`), and a new machine starts
from this seed instead of from nothing. The seed is warmed, in a fresh empty cache, on the
shipped datasets: every item's source in its dialect's grammar, its references and sqlglot's
translation in the target's grammar, and sqlglot's translation of each distinct source into
every grammar-only dialect. Verdicts never depend on it (the DFA only caches predictions).
Rerun after regenerating parsers (a seed whose key no longer matches is ignored):

    python scripts/build_dfa_seed.py [--dataset starter --dataset polyglot]
"""

from __future__ import annotations

import argparse
import lzma
import os
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import replace
from pathlib import Path
from typing import Any


def corpus(datasets: list[str]) -> dict[str, list[str]]:
    """Statements per grammar dialect, deduplicated, in a stable order."""
    from parrot.check.parsers import GRAMMAR_OF
    from parrot.datasets import load_dataset
    from parrot.translators import create_translator

    sqlglot = create_translator("sqlglot")
    out: dict[str, dict[str, None]] = defaultdict(dict)
    sources: dict[tuple[str, str], object] = {}
    for name in datasets:
        for item in load_dataset(name, strict=False).items:
            out[item.source_dialect][item.source_sql] = None
            for ref in item.reference_sql:
                out[item.target_dialect][ref] = None
            sql = _translate(sqlglot, item)
            if sql:
                out[item.target_dialect][sql] = None
            sources.setdefault((item.source_dialect, item.source_sql), item)
    shipped = {i.target_dialect for n in datasets for i in load_dataset(n, strict=False).items}
    for item in sources.values():
        for dialect in sorted(set(GRAMMAR_OF) - shipped):
            sql = _translate(sqlglot, replace(item, target_dialect=dialect))  # type: ignore[type-var]
            if sql:
                out[dialect][sql] = None
    return {d: list(s) for d, s in out.items() if d in GRAMMAR_OF}


def _translate(translator: Any, item: Any) -> str | None:
    try:  # sqlglot's generator raises on a few constructs (the eval runner records that)
        tr = translator.translate(item)
    except Exception:
        return None
    return tr.sql if tr.ok and tr.sql else None


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--dataset",
        action="append",
        default=None,
        help="shipped dataset to warm on (repeatable; default starter, polyglot)",
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="parrot-dfa-seed-") as tmp:
        os.environ["PARROT_CACHE"] = tmp  # start cold: nothing from this machine's cache
        from parrot.check import check_sql, dfacache
        from parrot.check.parsers import checker

        statements = corpus(args.dataset or ["starter", "polyglot"])
        dfacache.SEED_DIR.mkdir(exist_ok=True)
        for old in dfacache.SEED_DIR.glob("*.xz"):
            old.unlink()
        total = 0
        for dialect, sqls in sorted(statements.items()):
            started = time.perf_counter()
            for sql in sqls:
                check_sql(sql, dialect)
            parser_cls = checker(dialect)._parser_cls
            data = dfacache.save(parser_cls).read_bytes()
            seed = dfacache.seed_file(parser_cls)
            seed.write_bytes(lzma.compress(data, preset=9))
            total += seed.stat().st_size
            print(
                f"{dialect:12} {len(sqls):5} statements {dfacache.state_count(parser_cls):6} "
                f"states {seed.stat().st_size / 1e3:8.1f} kB "
                f"{time.perf_counter() - started:6.1f} s"
            )
        print(f"seed: {total / 1e6:.2f} MB in {dfacache.SEED_DIR}")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    sys.exit(main())
