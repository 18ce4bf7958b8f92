"""``parrot translate --from D --to D [--model M] [--db DB] FILE.sql|-``: translate your SQL.

Splits the file (or standard input) into statements, checks that each parses in the source
dialect (parrot's grammar; where it rejects one, the engine's own parser when it runs in this
process), translates each with any ``--model`` spec of ``parrot eval``, and writes the translated
``.sql`` with the input's comments (``-o FILE``, default standard output). Given ``--db`` (a
SQLite/DuckDB file or a SQLAlchemy URL, read as a fixture by ``parrot.migrate``), it runs every
source statement on a source engine and its translation on a target engine over that data, and
prints the verdict per statement on standard error (an engine missing here is said once; the
other side still runs). Servers it started are stopped when it exits.

Exit status: 0 when every statement was translated (and, with ``--db``, matched under the strict
comparator), 1 otherwise, 2 on usage errors and on input that does not parse in the source
dialect.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from parrot import cli, dialects
from parrot.api.records import Outcome
from parrot.datasets import Item
from parrot.engines import DEFAULT_MAX_ROWS, DEFAULT_TIMEOUT, statements
from parrot.eval.judge import Judge
from parrot.fixtures import Fixture, FixtureError
from parrot.migrate.transfer import read_source
from parrot.servers import stopping_started
from parrot.textfiles import read_stdin, read_utf8
from parrot.translators import UnknownTranslatorError, create_translator
from parrot.translators.base import Translation
from parrot.translators.llm import options as llm_options


def configure(p: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """Fill ``p`` with translate's flags (also ``parrot translate``'s subparser)."""
    cli.configure(p, translate, __doc__, raw=True)
    p.add_argument("file", metavar="FILE.sql", help="SQL to translate; '-' reads standard input")
    cli.add_translation(p)
    cli.add_model_args(p)
    p.add_argument(
        "--db",
        metavar="DB",
        help="SQLite/DuckDB file or SQLAlchemy URL: run source and translation on "
        "its data and print a verdict per statement",
    )
    cli.add_output_file(p, "the translated SQL ('-': standard output)", default="-", value="-")
    cli.add_timeout(p, DEFAULT_TIMEOUT)
    cli.add_max_rows(p, DEFAULT_MAX_ROWS)
    cli.add_engine_urls(p)
    cli.add_no_start(p)
    p.add_argument(
        "--no-check",
        action="store_true",
        help="translate even statements that do not parse in the source dialect",
    )
    llm_options.add_arguments(p)
    return p


build_parser, main = cli.entry_points("python -m parrot.translate", configure)


def split(sql: str, dialect: str) -> list[str]:
    """The statements of ``sql``, split with the source dialect's lexical rules."""
    return [s for s in statements.splitter(dialect).split(sql) if s.strip()]


_LINE_COMMENT = ("--", "#", "//")  # every dialect's line comments; written as '-- '


def _comment_chunks(gap: str, dialect: str) -> list[str]:
    """The comments in ``gap`` (text between statements), each run of them as written."""
    chunks, pos = [], 0
    for tok in [*statements.tokenize(gap, statements.splitter(dialect).lexicon), None]:
        chunk = gap[pos : len(gap) if tok is None else tok.start].strip()
        if chunk:
            chunks.append(chunk)
        pos = 0 if tok is None else tok.end
    return chunks


def _portable(chunk: str) -> str:
    """Line comments as ``-- text`` (MySQL needs the space; '#' and '//' are not everyone's)."""
    if "/*" in chunk:
        return chunk
    lines = []
    for line in chunk.splitlines():
        marker = next((m for m in _LINE_COMMENT if line.lstrip().startswith(m)), None)
        body = line.lstrip()[len(marker) :] if marker else ""
        lines.append(f"-- {body.lstrip()}".rstrip() if marker else line)
    return "\n".join(lines)


@dataclass
class Comments:
    """The input's comments around its statements: ``before[i]`` precede statement i (the last
    entry follows the last statement), ``after[i]`` ends statement i's line."""

    before: list[list[str]] = field(default_factory=list)
    after: list[str] = field(default_factory=list)


def comments(sql: str, sources: list[str], dialect: str) -> Comments:
    """Where the comments of ``sql`` stand relative to its statements ``sources``."""
    out = Comments()
    pos = 0
    for text in [*sources, None]:
        at = len(sql) if text is None else sql.find(text, pos)
        if at < 0:  # the splitter rewrote this statement (DELIMITER lines): its comments are lost
            out.before.append([])
            out.after.append("")
            continue
        gap = sql[pos:at]
        chunks = _comment_chunks(gap, dialect)
        if (
            out.after
            and chunks
            and "\n" not in gap[: gap.find(chunks[0])]
            and chunks[0].startswith(_LINE_COMMENT)
        ):  # `…; -- note` on the statement's line
            first, _, rest = chunks[0].partition("\n")
            out.after[-1] = _portable(first)
            chunks = [rest.strip(), *chunks[1:]] if rest.strip() else chunks[1:]
        out.before.append([_portable(c) for c in chunks])
        if text is not None:
            out.after.append("")
            pos = at + len(text)
    return out


def render_sql(translations: list[Translation], notes: Comments | None = None) -> str:
    """The translated file: one statement per translation, a failure as a comment, and the
    input's comments where they stood."""
    notes = notes or Comments()
    parts = []
    for i, t in enumerate(translations, 1):
        if t.ok and t.sql is not None:
            stmt = t.sql.strip().rstrip(";") + ";"
        else:
            why = " ".join(f"{t.status}: {t.error or ''}".split())
            stmt = f"-- statement {i}: not translated ({why})"
        after = notes.after[i - 1] if i - 1 < len(notes.after) else ""
        before = notes.before[i - 1] if i - 1 < len(notes.before) else []
        parts.append("\n".join([*before, stmt + (f"  {after}" if after else "")]))
    tail = notes.before[len(translations)] if len(notes.before) > len(translations) else []
    return "\n\n".join([*parts, *(["\n".join(tail)] if tail else [])]) + "\n"


def syntax_problem(sql: str, dialect: str) -> tuple[str, bool] | None:
    """Why ``sql`` is not ``dialect`` SQL: the first statement parrot's grammar rejects, and
    whether that is confirmed — the engine's own parser (where one runs in this process) rejects
    it too. A statement the engine's parser accepts is not a problem (the grammar is stricter
    there); with no engine parser here the grammar's word stands alone (its rejections of real
    queries are not all errors: 2-12% on MySQL, T-SQL and Oracle corpora). None when all parse
    or the dialect has no grammar."""
    # deferred: ANTLR's runtime and generated parsers (loaded only on this path)
    from parrot.check import GRAMMAR_OF, check_sql
    from parrot.check.references import Reference, open_reference

    if dialect not in GRAMMAR_OF:
        return None
    reference: Reference | None = None
    opened = False
    try:
        for v in check_sql(sql, dialect):
            if v.ok:
                continue
            if not opened:
                reference, opened = open_reference(dialect, in_process=True)[0], True
            if reference is not None and reference.accepts(sql[v.start : v.end]):
                continue  # the grammar is stricter than the engine here
            text = statements.trim_message(" ".join(sql[v.start : v.end].split()), 80)
            return (
                f"line {v.line}, column {v.column}: statement {v.index} does not parse as "
                f"{dialect}: near {v.token!r}: {v.message} [{text}]",
                reference is not None,
            )
    finally:
        if reference is not None:
            reference.close()
    return None


def verdict_line(index: int, record: Outcome) -> str:
    """One line: each comparator mode's verdict, then why the strict one failed; a statement
    whose source or target has no engine here is said to be unjudged (the missing engine is
    reported once, by :func:`missing_engine_line`), with what the other side gave."""
    missing = record.get("no_engine") or {}
    if missing:
        ran = [
            f"the {side} ran on {execution['engine']}: {_execution_summary(execution)}"
            for side, execution in (
                ("source", record.get("gold")),
                ("translation", record.get("pred")),
            )
            if execution and execution["status"] != "no_engine"
        ]
        return f"statement {index}: not judged (no {' or '.join(missing)} engine)" + "".join(
            f"; {r}" for r in ran
        )
    verdicts = record["verdicts"]
    marks = ", ".join(
        f"{mode} {'match' if v['match'] else v['reason']}" for mode, v in verdicts.items()
    )
    strict = verdicts["strict"]
    detail = (
        ""
        if strict["match"] or not strict.get("detail")
        else " — " + statements.trim_message(" ".join(strict["detail"].split()), 300)
    )
    return f"statement {index}: {marks}{detail}"


def _execution_summary(execution: Any) -> str:
    if execution["status"] == "ok":
        rows = execution.get("rows")
        return "ok" + (f" ({rows} row{'s' if rows != 1 else ''})" if rows is not None else "")
    why = statements.trim_message(" ".join(execution.get("error", "").split()), 200)
    return f"{execution['status']}: {why}"


def missing_engine_line(dialect: str, why: str) -> str:
    """The one line said for an engine this machine does not have."""
    why = statements.trim_message(" ".join(why.split()), 300)
    return f"no {dialect} engine here: its side of every statement is not judged ({why})"


def translate(args: argparse.Namespace) -> int:
    """Translate (and with ``--db`` judge) the file ``args`` name."""
    try:
        source, target = dialects.resolve(args.source), dialects.resolve(args.target)
        # deferred: scipy, numpy, rich (loaded only on this path)
        from parrot.eval.cli import parse_engine_urls

        urls = parse_engine_urls(args.engine)
        sql = read_stdin() if args.file == "-" else read_utf8(Path(args.file))
        sources = split(sql, source)
        if not sources:
            raise ValueError("no SQL statement in the input")
        problem = None if args.no_check else syntax_problem(sql, source)
        if problem is not None and problem[1]:
            raise ValueError(f"{problem[0]} (--no-check translates it anyway)")
        fixture = _fixture(args.db) if args.db else None
        translator = create_translator(args.model, llm=llm_options.from_args(args))
    except (ValueError, UnknownTranslatorError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.model_args and not translator.takes_llm_options:
        print(f"warning: {args.model} calls no model: --model-args are ignored", file=sys.stderr)
    if problem is not None:  # only parrot's grammar rejects it: say so, translate, exit 1
        print(
            f"warning: {problem[0]} — parrot's {source} grammar rejects it and no {source} "
            f"parser runs here to confirm; translated anyway, exit status 1 (--no-check: "
            f"no grammar check)",
            file=sys.stderr,
        )
    items = [
        Item(id=str(i), source_dialect=source, target_dialect=target, source_sql=s, fixture=fixture)
        for i, s in enumerate(sources, 1)
    ]
    try:
        done = dict((item.id, t) for item, t in translator.translate_all(items))
    finally:
        translator.close()
    translations = [done[item.id] for item in items]
    text = render_sql(translations, comments(sql, sources, source))
    if args.output == "-":
        sys.stdout.write(text)
    else:
        Path(args.output).write_text(text, encoding="utf-8")
    failed = sum(not t.ok for t in translations)
    if fixture is not None:
        failed = _judge(items, translations, args, urls)
    print(
        f"{len(items) - failed}/{len(items)} statements "
        f"{'match on ' + args.db if fixture is not None else 'translated'} "
        f"({source} → {target}, {args.model})",
        file=sys.stderr,
    )
    return 1 if failed or problem is not None else 0


def _fixture(db: str) -> Fixture:
    try:
        return read_source(db).fixture
    except FixtureError as exc:
        raise ValueError(f"--db {db}: {exc}") from None


def _judge(
    items: list[Item],
    translations: list[Translation],
    args: argparse.Namespace,
    urls: dict[str, str],
) -> int:
    """Print each statement's verdict; returns how many did not match under strict. Servers
    started on the way are stopped before it returns."""
    failed = 0
    said: set[str] = set()
    with stopping_started():
        judge = Judge(
            timeout=args.timeout, max_rows=args.max_rows, urls=urls, start=not args.no_start
        )
        try:
            for item, translation in zip(items, translations, strict=True):
                record = judge.judge(item, translation)
                failed += not record["verdicts"]["strict"]["match"]
                for dialect, why in (record.get("no_engine") or {}).items():
                    if dialect not in said:
                        said.add(dialect)
                        print(missing_engine_line(dialect, why), file=sys.stderr)
                print(verdict_line(int(item.id), record), file=sys.stderr)
        finally:
            judge.close()
    return failed


if __name__ == "__main__":
    sys.exit(main())
