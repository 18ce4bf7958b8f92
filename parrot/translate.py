"""``parrot translate --from D --to D [--model M] [--db DB] FILE.sql|-``: translate your SQL.

Splits the file (or standard input) into statements, translates each with any ``--model`` spec of
``parrot eval``, and writes the translated ``.sql`` (``-o FILE``, default standard output). Given
``--db`` (a SQLite/DuckDB file or a SQLAlchemy URL, read as a fixture by ``parrot.migrate``), it
runs every source statement on a source engine and its translation on a target engine over that
data, and prints the verdict per statement on standard error.

Exit status: 0 when every statement was translated (and, with ``--db``, matched under the strict
comparator), 1 otherwise, 2 on usage errors.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from parrot import cli, dialects
from parrot.cli import add_model_args, standalone
from parrot.datasets import Item
from parrot.engines import DEFAULT_MAX_ROWS, DEFAULT_TIMEOUT, statements
from parrot.eval.records import Outcome
from parrot.fixtures import Fixture, FixtureError
from parrot.textfiles import read_stdin, read_utf8
from parrot.translators import UnknownTranslatorError, create_translator
from parrot.translators.base import Translation
from parrot.translators.llm import options as llm_options


def build_parser() -> argparse.ArgumentParser:
    """``python -m parrot.translate``."""
    return configure(standalone("python -m parrot.translate"))


def configure(p: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """Fill ``p`` with translate's flags (also ``parrot translate``'s subparser)."""
    cli.configure(p, translate, __doc__, raw=True)
    p.add_argument("file", metavar="FILE.sql", help="SQL to translate; '-' reads standard input")
    p.add_argument("--from", metavar="DIALECT", dest="source", required=True,
                   help="source dialect (or alias)")
    p.add_argument("--to", metavar="DIALECT", dest="target", required=True,
                   help="target dialect (or alias)")
    p.add_argument("--model", metavar="SPEC", default="sqlglot",
                   help="translator spec, as in parrot eval")
    add_model_args(p)
    p.add_argument("--db", metavar="DB",
                   help="SQLite/DuckDB file or SQLAlchemy URL: run source and translation on "
                        "its data and print a verdict per statement")
    cli.add_output_file(p, "the translated SQL ('-': standard output)", default="-",
                        value="-")
    cli.add_timeout(p, DEFAULT_TIMEOUT)
    cli.add_max_rows(p, DEFAULT_MAX_ROWS)
    cli.add_engine_urls(p)
    p.add_argument("--no-start", action="store_true", help="do not start local servers")
    llm_options.add_arguments(p)
    return p


def split(sql: str, dialect: str) -> list[str]:
    """The statements of ``sql``, split with the source dialect's lexical rules."""
    return [s for s in statements.splitter(dialect).split(sql) if s.strip()]


def render_sql(translations: list[Translation]) -> str:
    """The translated file: one statement per translation; a failure becomes a comment."""
    parts = []
    for i, t in enumerate(translations, 1):
        if t.ok and t.sql is not None:
            parts.append(t.sql.strip().rstrip(";") + ";")
        else:
            why = " ".join(f"{t.status}: {t.error or ''}".split())
            parts.append(f"-- statement {i}: not translated ({why})")
    return "\n\n".join(parts) + "\n"


def verdict_line(index: int, record: Outcome) -> str:
    """One line: each comparator mode's verdict, then why the strict one failed; a statement
    whose source or target has no engine here is said to be unjudged, not a mismatch."""
    for execution, dialect in ((record.get("gold"), record["source_dialect"]),
                               (record.get("pred"), record["target_dialect"])):
        if execution and execution["status"] == "no_engine":
            why = statements.trim_message(" ".join(execution.get("error", "").split()), 300)
            return f"statement {index}: not judged: no {dialect} engine here ({why})"
    verdicts = record["verdicts"]
    marks = ", ".join(f"{mode} {'match' if v['match'] else v['reason']}"
                      for mode, v in verdicts.items())
    strict = verdicts["strict"]
    detail = ("" if strict["match"] or not strict.get("detail")
              else " — " + statements.trim_message(" ".join(strict["detail"].split()), 300))
    return f"statement {index}: {marks}{detail}"


def main(argv: list[str] | None = None) -> int:
    return cli.dispatch(build_parser(), argv)


def translate(args: argparse.Namespace) -> int:
    """Translate (and with ``--db`` judge) the file ``args`` name."""
    try:
        source, target = dialects.resolve(args.source), dialects.resolve(args.target)
        from parrot.eval.cli import parse_engine_urls

        urls = parse_engine_urls(args.engine)
        sql = (read_stdin() if args.file == "-"
               else read_utf8(Path(args.file)))
        fixture = _fixture(args.db) if args.db else None
        translator = create_translator(args.model, llm=llm_options.from_args(args))
    except (ValueError, UnknownTranslatorError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.model_args and not translator.takes_llm_options:
        print(f"warning: {args.model} calls no model: --model-args are ignored",
              file=sys.stderr)
    sources = split(sql, source)
    if not sources:
        print("error: no SQL statement in the input", file=sys.stderr)
        return 2
    items = [Item(id=str(i), source_dialect=source, target_dialect=target, source_sql=s,
                  fixture=fixture) for i, s in enumerate(sources, 1)]
    try:
        done = dict((item.id, t) for item, t in translator.translate_all(items))
    finally:
        translator.close()
    translations = [done[item.id] for item in items]
    text = render_sql(translations)
    if args.output == "-":
        sys.stdout.write(text)
    else:
        Path(args.output).write_text(text, encoding="utf-8")
    failed = sum(not t.ok for t in translations)
    if fixture is not None:
        failed = _judge(items, translations, args, urls)
    print(f"{len(items) - failed}/{len(items)} statements "
          f"{'match on ' + args.db if fixture is not None else 'translated'} "
          f"({source} → {target}, {args.model})", file=sys.stderr)
    return 1 if failed else 0


def _fixture(db: str) -> Fixture:
    from parrot.migrate.transfer import read_source

    try:
        return read_source(db).fixture
    except FixtureError as exc:
        raise ValueError(f"--db {db}: {exc}") from None


def _judge(items: list[Item], translations: list[Translation], args: argparse.Namespace,
           urls: dict[str, str]) -> int:
    """Print each statement's verdict; returns how many did not match under strict."""
    from parrot.eval.judge import Judge

    judge = Judge(timeout=args.timeout, max_rows=args.max_rows, urls=urls,
                  start=not args.no_start)
    failed = 0
    try:
        for item, translation in zip(items, translations, strict=True):
            record = judge.judge(item, translation)
            failed += not record["verdicts"]["strict"]["match"]
            print(verdict_line(int(item.id), record), file=sys.stderr)
    finally:
        judge.close()
    return failed


if __name__ == "__main__":
    sys.exit(main())
