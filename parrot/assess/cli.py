"""``parrot assess INPUT --from SRC --to TGT``: translate and verify a whole workload.

INPUT is a folder of ``.sql`` files (any depth), one ``.sql`` file, or a query log (one statement
per line or ``;``-separated; a PostgreSQL ``pg_stat_statements`` CSV export; a MySQL/MariaDB
general or slow log). Statements that differ only in literals form a template, translated once
(any ``--model`` spec of ``parrot eval``); the others of a template take its translation with
their own literals where the literals allow, else are translated themselves.

Data: ``--db`` (a SQLite/DuckDB file or a SQLAlchemy URL, read as a fixture), ``--schema`` (DDL
in the source dialect: databases are generated from the schema and the statements' literals by
the test-suite generator — no data needed), or both (the database's rows plus generated
databases). Every query runs on a real source engine and its translation on a real target engine
on every database and is compared strictly: **verified**, **review** (a database disagrees: a
minimal witness database is shown), **failed** or **not assessed** (why). DML (INSERT, UPDATE,
DELETE, MERGE) runs on a copy of each database on both engines and the table it writes is
compared; DDL is checked with the target's grammar only. Placeholders (``$1``, ``?``, ``%s``,
``:name``) are filled with values of the column each is compared with.

Writes into ``--output-dir``: ``translated/`` mirroring the input (a statement that was not
verified carries a comment saying why; one that was not translated is its source, commented
out), ``assessment.jsonl`` (one line per statement, appended as it is judged; ``--resume``
continues) and ``assessment.html``. Exit status: 0 when every statement is verified, 1
otherwise, 2 on usage errors.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from parrot import cli, dialects
from parrot.api.jsonl import appender
from parrot.assess.inputs import FORMATS, InputError, read_workload
from parrot.assess.output import write_html, write_tree
from parrot.assess.run import (
    RESULTS,
    VERIFIED,
    Assessment,
    Settings,
    group,
    read_done,
    with_values,
)
from parrot.assess.schema import SchemaFileError, read_schema
from parrot.engines import DEFAULT_TIMEOUT
from parrot.eval.judge import Judge
from parrot.fixtures import FixtureError
from parrot.migrate.transfer import read_source
from parrot.servers import stopping_started
from parrot.translators import UnknownTranslatorError, create_translator
from parrot.translators.llm import options as llm_options


def configure(p: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """Fill ``p`` with assess's flags (also ``parrot assess``'s subparser)."""
    cli.configure(p, run, __doc__, raw=True)
    p.add_argument("input", metavar="INPUT", type=Path, help="folder, .sql file or query log")
    cli.add_translation(p)
    p.add_argument("--db", metavar="DB", help="SQLite/DuckDB file or SQLAlchemy URL with data")
    p.add_argument(
        "--schema",
        dest="schema_file",
        metavar="FILE",
        type=Path,
        help="DDL in the source dialect: generate the databases from it",
    )
    p.add_argument("--format", choices=FORMATS, help="input format (default: from the input)")
    cli.add_output_dir(p, "translated/, assessment.jsonl and assessment.html", default="assessment")
    p.add_argument(
        "--resume",
        action="store_true",
        help="continue in --output-dir, skipping statements already judged",
    )
    cli.add_timeout(p, DEFAULT_TIMEOUT)
    p.add_argument(
        "--max-dbs", type=int, default=4, metavar="N", help="generated databases kept per template"
    )
    p.add_argument(
        "--no-distill",
        dest="distill",
        action="store_false",
        help="keep a few diverse generated databases per template instead of those "
        "that tell the query from its near-miss neighbours (faster, finds less)",
    )
    cli.add_timeout(
        p,
        2.0,
        flag="--generated-timeout",
        what="per execution while building generated databases; a source that "
        "times out there is not assessed (timeout on generated data), as is "
        "one whose databases take over 2,000 runs to build",
    )
    p.add_argument(
        "--witness-budget",
        type=int,
        default=200,
        metavar="N",
        help="engine executions to shrink a disagreeing database (0: no witness)",
    )
    cli.add_no_start(p)
    cli.add_quiet(p, "progress bar")
    cli.add_model_args(p)
    # the prompt's --prompt-schema only: --schema is this command's DDL file
    llm_options.add_arguments(p, old_schema=False)
    return p


build_parser, main = cli.entry_points("python -m parrot.assess", configure)


def _settings(args: argparse.Namespace) -> Settings:
    source, target = dialects.resolve(args.source), dialects.resolve(args.target)
    db = None
    if args.db:
        db = read_source(args.db).fixture
    schema = read_schema(str(args.schema_file), source).fixture if args.schema_file else None
    return Settings(
        source,
        target,
        args.output_dir,
        db=db,
        schema=schema,
        max_dbs=args.max_dbs,
        distill=args.distill,
        generated_timeout=args.generated_timeout,
        witness_budget=args.witness_budget,
        judge_options={"timeout": args.timeout, "start": not args.no_start},
    )


def _prepare(args: argparse.Namespace) -> tuple[Settings, list, dict]:
    settings = _settings(args)
    workload = read_workload(args.input, settings.source, args.format)
    if not workload:
        raise InputError(f"{args.input}: no SQL statement")
    workload = with_values(workload, settings.source, settings.db or settings.schema)
    results = args.output_dir / RESULTS
    if results.exists() and not args.resume:
        raise InputError(f"{results} exists: use --resume to continue, or another --output-dir")
    args.output_dir.mkdir(parents=True, exist_ok=True)
    return settings, workload, read_done(results)


def run(args: argparse.Namespace) -> int:
    args.output_dir = args.output_dir or Path("assessment")

    try:
        settings, workload, done = _prepare(args)
        translator = create_translator(args.model, llm=llm_options.from_args(args))
    except (
        InputError,
        SchemaFileError,
        FixtureError,
        UnknownTranslatorError,
        ValueError,
        OSError,
    ) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.model_args and not translator.takes_llm_options:
        print(f"warning: {args.model} calls no model: --model-args are ignored", file=sys.stderr)
    templates = group(workload, settings.source)
    todo = sum(st.id not in done for st in workload)
    print(
        f"{len(workload)} statements in {len(templates)} templates; {todo} to judge",
        file=sys.stderr,
    )
    with stopping_started():
        judge = Judge(**settings.judge_options)
        try:
            _run(args, Assessment(settings, translator, judge), templates, set(done), todo)
        finally:
            judge.close()
            translator.close()
    return _finish(args, settings, workload)


def _run(
    args: argparse.Namespace, assessment: Assessment, templates: list, done: set[str], todo: int
) -> None:
    from rich.progress import Progress

    emit = appender(args.output_dir / RESULTS)
    with Progress(disable=args.quiet or not sys.stderr.isatty(), transient=True) as bar:
        task = bar.add_task("assessing", total=todo)
        assessment.run(templates, done, emit, lambda n: bar.advance(task, n))


def _finish(args: argparse.Namespace, settings: Settings, workload: list) -> int:
    lines = list(read_done(args.output_dir / RESULTS).values())
    ids = {st.id for st in workload}
    lines = [line for line in lines if line["id"] in ids]
    write_tree(lines, args.output_dir / "translated")
    data = " + ".join(
        x
        for x in (
            f"--db {args.db}" if args.db else "",
            f"--schema {args.schema_file}" if args.schema_file else "",
        )
        if x
    )
    page = write_html(
        lines,
        args.output_dir,
        {
            "title": str(args.input),
            "source": settings.source,
            "target": settings.target,
            "model": args.model,
            "data": data or "none (translation and syntax only)",
        },
    )
    verified = sum(line["verdict"] == VERIFIED for line in lines)
    print(f"{verified}/{len(workload)} statements verified on data; {page}", file=sys.stderr)
    return 0 if verified == len(workload) else 1


if __name__ == "__main__":
    raise SystemExit(main())
