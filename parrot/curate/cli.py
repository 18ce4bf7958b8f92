"""``python -m parrot.curate``: build a benchmark variant from raw SQL corpora.

Stages, in order (each prints and records its funnel line): standardise → canonicalise →
anonymise (optional) → [hard: main only] → normalise → cluster → features → coverage → pairs →
testdata → type_filter → annotate → verify → classify, then the dataset, review queue and build
manifest are written.
``python -m parrot.curate review FILE -o DIR`` re-verifies a reviewer's fixes.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import logging
import platform
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from parrot import __version__, cli, dialects
from parrot.cli import table_console
from parrot.connect import needs_server
from parrot.curate import review, rules
from parrot.curate.annotate import Annotate, Pairs
from parrot.curate.anonymise import LEVELS, Anonymise
from parrot.curate.canonicalise import Canonicalise
from parrot.curate.classify import Classify
from parrot.curate.difficulty import MODES as DIFFICULTY_MODES
from parrot.curate.difficulty import Difficulty
from parrot.curate.select import (
    COVERAGE_SOURCES,
    DEFAULT_PATIENCE,
    DEFAULT_PREFIX_RATIO,
    Cluster,
    Coverage,
    Features,
    Normalise,
    TypeFilter,
)
from parrot.curate.serialise import (
    file_digest,
    write_dataset,
    write_manifest,
    write_review,
)
from parrot.curate.stages import (
    DEFAULT_CHUNK,
    ENGINE_CHUNK,
    Executor,
    LocalExecutor,
    Progress,
    Record,
    Stage,
    StageCount,
    run_pipeline,
)
from parrot.curate.standardise import Standardise
from parrot.curate.stream import StreamSettings, file_ranges, run_stream, streamable
from parrot.curate.variants import VARIANTS, CorpusMissing, Ground, Hard
from parrot.curate.verify import (
    DEFAULT_MAX_ROWS,
    DEFAULT_ROUNDS,
    DEFAULT_TIMEOUT,
    TestData,
    Verify,
    checker,
)
from parrot.engines import url_from_env
from parrot.pairs import EVERY_PAIR, DialectPairs, combined, parse_pairs
from parrot.scale import EXECUTOR_HELP, ExecutorError, ExecutorSpec, parse_executor
from parrot.scale.cluster import RayExecutor
from parrot.scale.partitions import PartitionExecutor, run_partitioned, split
from parrot.testsuite import cli as testsuite_cli
from parrot.translators.llm import options as llm_options

STREAM_BYTES = 1 << 30  # corpus files at least this large stream by default (--stream)


OnStage = Callable[[StageCount], None]


def _dialect_list(text: str) -> tuple[str, ...]:
    return tuple(dialects.resolve(d.strip()) for d in text.split(",") if d.strip())


def _executor(text: str) -> ExecutorSpec:
    try:
        return parse_executor(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def configure(p: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """Fill ``p`` with curate's flags and its ``review`` and ``rules`` subcommands (also
    ``parrot curate``'s subparser)."""
    cli.configure(p, curate, __doc__, raw=True)
    _curate_flags(p)
    sub = p.add_subparsers(
        title="other commands (without one: curate)", dest="command", metavar="[review|rules]"
    )
    review.configure(sub.add_parser("review", help=review.DESCRIPTION))
    rules.configure(sub.add_parser("rules", help=rules.DESCRIPTION))
    return p


build_parser, main = cli.entry_points("python -m parrot.curate", configure)


def _curate_flags(p: argparse.ArgumentParser) -> None:
    _input_flags(p)
    _annotation_flags(p)
    _selection_flags(p)
    _run_flags(p)


def _input_flags(p: argparse.ArgumentParser) -> None:
    """The variant, where it goes, and the dialect pairs."""
    p.add_argument(
        "--variant",
        choices=VARIANTS.names(),
        default="simple",
        help="simple: sqlglot's test statements; diverse: Spider-family queries on "
        "their databases; main: long multi-construct statements (default: simple)",
    )
    cli.add_output_dir(
        p,
        "the dataset (items.jsonl, review.jsonl, manifest.json)",
        default="build/curated-<variant>",
        old=("--out",),
        dest="out",
    )
    cli.add_pairs(
        p,
        default="the variant's sources to its targets (simple: sqlite, duckdb, "
        "clickhouse, postgres and mysql, each to every other; diverse and "
        "main: sqlite to duckdb and clickhouse); the postgres and mysql "
        "servers are started for the run",
    )
    p.add_argument(
        "--sources",
        metavar="DIALECTS",
        type=_dialect_list,
        help="source dialects, comma-separated (shorthand: --sources A --targets B is --pairs A:B)",
    )
    p.add_argument(
        "--targets", metavar="DIALECTS", type=_dialect_list, help="target dialects, comma-separated"
    )


def _annotation_flags(p: argparse.ArgumentParser) -> None:
    """Who annotates, how difficulty is judged, what is anonymised."""
    p.add_argument(
        "--annotator",
        metavar="SPEC",
        action="append",
        default=[],
        help="a translator spec producing candidates (repeatable; default: the "
        "variant's, simple: sqlglot and rules, diverse and main: sqlglot): "
        "sqlglot, rules, openai/gpt-4o, ensemble:sqlglot,openai/gpt-4o, ...",
    )
    p.add_argument(
        "--difficulty-model",
        metavar="SPEC",
        help="the difficulty filter's translator (any --model spec, e.g. local, "
        "openai/gpt-4o-mini): it translates every verified pair, judged like "
        "verification (strict, every round); pairs it solves are easy",
    )
    p.add_argument(
        "--difficulty",
        choices=DIFFICULTY_MODES,
        default="drop",
        help="what happens to easy pairs: drop them, or tag them easy (default: drop)",
    )
    p.add_argument(
        "--anonymise", metavar="LEVELS", default="", help=f"levels to apply: {','.join(LEVELS)}"
    )


def _selection_flags(p: argparse.ArgumentParser) -> None:
    """Prefix clustering and coverage selection."""
    p.add_argument(
        "--seed",
        metavar="N",
        type=int,
        default=0,
        help="seed of anonymisation and generated test data (default: 0)",
    )
    p.add_argument(
        "--rounds",
        metavar="N",
        type=int,
        default=DEFAULT_ROUNDS,
        help="rounds of test data per pair (k)",
    )
    p.add_argument(
        "--prefix-ratio",
        metavar="RATIO",
        type=float,
        default=DEFAULT_PREFIX_RATIO,
        help="cluster prefix length as a share of the normalised statement's length "
        f"(default: {DEFAULT_PREFIX_RATIO})",
    )
    p.add_argument(
        "--patience",
        metavar="N",
        type=int,
        default=DEFAULT_PATIENCE,
        help="non-improving statements before leaving a cluster",
    )
    p.add_argument(
        "--coverage",
        choices=sorted(COVERAGE_SOURCES),
        help="parser coverage that selection maximises: sqlglot (expression nodes and "
        "slots), grammar (parrot's own grammar rules and alternatives; sqlglot "
        "for dialects without one) or statement (every parseable statement "
        "counts: no selection) (default: the variant's, simple: statement, "
        "diverse and main: sqlglot)",
    )
    p.add_argument(
        "--keep",
        dest="limit",
        type=int,
        metavar="N",
        help="statements kept by coverage selection, 0 for no limit (default: the variant's)",
    )


def _run_flags(p: argparse.ArgumentParser) -> None:
    """Parallelism, engines, review and suites, and the LLM options."""
    cli.add_limit(p, "input statements", dest="input_limit", old=("--input-limit",))
    cli.add_jobs(p)
    p.add_argument(
        "--executor",
        metavar="SPEC",
        type=_executor,
        default=ExecutorSpec("local"),
        help=EXECUTOR_HELP + "; on Ray every chunk is a task (Ray's CPUs replace "
        "--jobs) and the driver writes every output",
    )
    p.add_argument(
        "--partition-bytes",
        metavar="BYTES",
        type=int,
        default=4 * 2**20,
        help="on Ray, bytes of corpus JSONL each task reads for the first stage "
        "(the diverse and main variants; default 4 MiB): the driver never "
        "reads the corpus (not with --limit, which reads it here)",
    )
    p.add_argument(
        "--chunk-size",
        metavar="N",
        type=int,
        default=DEFAULT_CHUNK,
        help=f"statements per worker task (default: {DEFAULT_CHUNK}; the stages that "
        f"run engines, testdata to difficulty, take at most {ENGINE_CHUNK})",
    )
    cli.add_timeout(p, DEFAULT_TIMEOUT, "per execution on an engine")
    p.add_argument(
        "--stream",
        action=argparse.BooleanOptionalAction,
        help="select out of core (parrot.curate.stream): standardise to coverage with the "
        "statements in a DuckDB file, memory bounded whatever the corpus size, the corpus "
        "files read by the workers. The stages between standardise and normalise "
        "(canonicalise, ground) then run on every statement before deduplication, which "
        "sees their output (duplicates are counted at standardise). Not with --anonymise, "
        "the main variant or a Ray executor (their steps need every statement at once); "
        f"default: on when the corpus files hold {STREAM_BYTES >> 30} GiB or more",
    )
    p.add_argument(
        "--keep-unverified",
        action="store_true",
        help="keep pairs with no engine here, labelled grammar-only",
    )
    p.add_argument(
        "--no-review",
        action="store_true",
        help="drop disagreeing pairs instead of routing them to review",
    )
    p.add_argument(
        "--no-suites",
        action="store_true",
        help="skip building the distilled test suites (python -m parrot.testsuite "
        "build) of the written dataset; by default they go to OUT/suites/",
    )
    cli.add_no_start(p, "their pairs are then dropped as no_engine unless a server is up")
    cli.add_quiet(p, "progress bars and no funnel table")
    llm_options.add_arguments(
        p,
        only={"api_base", "concurrency", "request_timeout", "cache", "no_cache", "shots"},
        description="for LLM annotators and --difficulty-model (PROVIDER/MODEL, local, ...)",
    )


def chosen_pairs(args: argparse.Namespace) -> DialectPairs:
    """``--pairs``, or the pairs ``--sources``/``--targets`` stand for."""
    if args.pairs and (args.sources or args.targets):
        raise ValueError("--pairs replaces --sources/--targets: give one or the other")
    return (
        parse_pairs(args.pairs) if args.pairs else combined(args.sources or (), args.targets or ())
    )


def build_stages(
    args: argparse.Namespace,
    targets: tuple[str, ...],
    limit: int | None,
    corpus_targets_only: bool,
    pairs: DialectPairs = EVERY_PAIR,
) -> list[Stage]:
    llm = llm_options.from_args(args)
    variant = VARIANTS.get(args.variant)  # defaults of the options not given
    coverage = args.coverage or variant.coverage
    stages: list[Stage] = [Standardise(), Canonicalise(args.timeout, DEFAULT_MAX_ROWS)]
    levels = tuple(x.strip() for x in args.anonymise.split(",") if x.strip())
    if levels:
        stages.append(Anonymise(levels, args.seed))
    if args.variant == "simple":
        stages.append(Ground())
    if args.variant == "main":
        stages.append(Hard())
    stages += [
        Normalise(),
        Cluster(args.prefix_ratio),
        Features(coverage, args.patience + 1),
        Coverage(coverage, args.patience, limit),
        Pairs(targets, corpus_targets_only, pairs),
        TestData(args.rounds, args.seed, args.timeout),
        TypeFilter(args.timeout, DEFAULT_MAX_ROWS),
        Annotate(args.annotator or variant.annotators, llm),
        Verify(
            args.timeout,
            DEFAULT_MAX_ROWS,
            review=not args.no_review,
            keep_unverified=args.keep_unverified,
        ),
    ]
    if args.difficulty_model:
        stages.append(
            Difficulty(args.difficulty_model, args.difficulty, llm, args.timeout, DEFAULT_MAX_ROWS)
        )
    stages.append(Classify())
    return stages


def make_executor(spec: ExecutorSpec, jobs: int) -> Executor:
    """The executor ``--executor`` names (Ray is imported only when it names Ray)."""
    if spec.kind == "local" or spec.address is None:
        return LocalExecutor(jobs)
    return RayExecutor(spec.address)


def funnel_table(funnel: list[StageCount]) -> Any:
    from rich.table import Table

    table = Table(title="funnel")
    for col in ("stage", "in", "out", "dropped (why)", "s", "stmts/s"):
        table.add_column(col, justify="right" if col in ("in", "out", "s", "stmts/s") else "left")
    for c in funnel:
        why = "; ".join(f"{k} {v}" for k, v in list(c.dropped.items())[:4])
        if c.routed:
            why += f"; → review {c.routed}"
        table.add_row(
            c.stage,
            str(c.records_in),
            str(c.records_out),
            why or "–",
            f"{c.seconds:.1f}",
            f"{c.rate:,.0f}" if c.seconds > 0 else "–",
        )
    return table


def curate(args: argparse.Namespace) -> int:
    """Build the dataset ``args`` describe."""
    argv = args.argv
    logging.getLogger("sqlglot").setLevel(logging.ERROR)  # "falling back to Command" noise
    console = table_console(stderr=True, quiet=args.quiet)
    errors = table_console(stderr=True)  # --quiet hides progress and tables, never errors
    variant = VARIANTS.get(args.variant)
    try:
        pairs = chosen_pairs(args)
    except ValueError as exc:
        errors.print(f"[red]error:[/] {exc}", highlight=False)
        return 2
    sources = pairs.sides(0) or variant.sources
    targets = pairs.sides(1) or variant.targets
    limit = variant.limit if args.limit is None else (args.limit or None)
    out: Path = args.out or Path("build") / f"curated-{args.variant}"
    started = dt.datetime.now(dt.UTC)
    try:
        stages = build_stages(args, targets, limit, variant.corpus_targets_only, pairs)
        streamed = streams(args, variant, sources, stages)
    except (ValueError, LookupError) as exc:
        errors.print(f"[red]{exc}[/red]")
        return 2
    read = _read_inputs(args, variant, sources, targets, console, errors, streamed)
    if read is None:
        return 2
    records, inputs, parts, reader = read
    partitioned = reader is not None and not streamed
    try:
        executor = make_executor(args.executor, args.jobs)
    except ExecutorError as exc:
        errors.print(f"[red]{exc}[/red]")
        return 2
    servers = [] if args.no_start else start_local_servers((*sources, *targets), console)
    try:
        try:
            kept, funnel, routed, n_inputs = _run(
                records,
                stages,
                executor,
                args.chunk_size,
                console,
                args.quiet,
                (parts, reader) if reader is not None else None,
                streamed,
            )
        finally:
            executor.close()
        n_items, n_fixtures = write_dataset(out, args.variant, kept)
        write_review(out, routed)
        manifest = build_manifest(
            args,
            argv,
            sources,
            targets,
            limit,
            inputs,
            stages,
            funnel,
            started,
            n_items,
            n_fixtures,
            len(routed),
            n_inputs,
        )
        if partitioned:
            manifest["corpus_read"] = {"partitions": len(parts), "bytes": args.partition_bytes}
        manifest["parameters"]["streamed"] = streamed
        if n_items and not args.no_suites:
            manifest["suites"] = build_suites(out, args.seed, args.jobs, quiet=args.quiet)
    finally:
        if servers:
            # deferred: scipy, numpy, rich (loaded only on this path)
            from parrot.eval.cli import stop_servers

            stop_servers(servers)
    write_manifest(out, manifest)
    return _finish(console, errors, out, manifest, funnel, n_items, n_fixtures, len(routed))


def _read_inputs(
    args: argparse.Namespace,
    variant: Any,
    sources: tuple[str, ...],
    targets: tuple[str, ...],
    console: Any,
    errors: Any,
    streamed: bool = False,
) -> tuple[list[Record], list[Path], list[Any], Any] | None:
    """The input records (or, on Ray or streamed, with a corpus of one record per row, the
    partitions the tasks read, and their reader: None otherwise), the files they come from;
    None after printing why the corpus is missing."""
    partitioned = (
        (args.executor.kind == "ray" or streamed)
        and variant.rows is not None
        and not args.input_limit
    )
    records: list[Record] = []
    parts: list[Any] = []
    reader = None
    try:
        if partitioned:
            inputs, reader = variant.rows(sources)
            absent = [p for p in inputs if not p.is_file()]
            if absent:
                raise CorpusMissing(
                    f"{absent[0]} not found: set PARROT_CORPORA to the folder "
                    "holding the shared corpora (parrot/, sqlglot/, sqlite/)"
                )
            parts = file_ranges(inputs) if streamed else split(inputs, args.partition_bytes)
        else:
            records, inputs = variant.load(sources)
    except CorpusMissing as exc:
        errors.print(f"[red]{exc}[/red]")
        return None
    if args.input_limit:
        records = records[: args.input_limit]
    read_where = (
        f"{len(parts)} partition(s) read by the workers"
        if streamed and partitioned
        else f"{len(parts)} partition(s) read on the cluster"
        if partitioned
        else f"{len(records)} input statements"
    )
    if streamed:
        read_where += ", selection streamed"
    console.print(
        f"{args.variant}: {read_where} from {len(inputs)} file(s); sources "
        f"{','.join(sources)} → targets {','.join(targets)}"
    )
    return records, inputs, parts, reader


def _finish(
    console: Any,
    errors: Any,
    out: Path,
    manifest: dict[str, Any],
    funnel: Any,
    n_items: int,
    n_fixtures: int,
    n_routed: int,
) -> int:
    """Print what the run wrote; the exit status (1 when no item was kept or the suites
    failed)."""
    console.print(funnel_table(funnel))
    console.print(
        f"{n_items} items ({n_fixtures} generated fixtures) → {out}/items.jsonl; "
        f"{n_routed} pairs in review.jsonl; manifest: {out}/manifest.json"
    )
    console.print(f"check it: python -m parrot.eval --model reference --dataset {out}")
    suites = manifest.get("suites")
    if suites is not None and suites["exit_status"] != 0:
        tail = "".join(f"\n  {line}" for line in suites.get("output_tail", []))
        errors.print(
            f"[red]error:[/] building the test suites failed (exit status "
            f"{suites['exit_status']}: {' '.join(suites['command'])}); the {n_items} "
            f"items are written, but the dataset has no suites{tail}",
            highlight=False,
            markup=True,
        )
        return 1
    return 0 if n_items else 1


def start_local_servers(dialects_used: tuple[str, ...], console: Any) -> list[str]:
    """Start the local servers (postgres, mysql) the run's dialects need and no URL names;
    returns the ones started here (stopped after the suites are built)."""
    # deferred: scipy, numpy, rich (loaded only on this path)
    from parrot.eval.cli import start_servers

    needed = sorted(d for d in set(dialects_used) if needs_server(d) and url_from_env(d) is None)
    started, failed = start_servers(needed, console)
    for dialect, why in failed.items():
        console.print(
            f"[yellow]warning:[/] {dialect}: {why}; its pairs are dropped as no_engine",
            highlight=False,
        )
    return started


def build_suites(out: Path, seed: int, jobs: int, quiet: bool = False) -> dict[str, Any]:
    """The distilled test suites of the dataset at ``out`` (``OUT/suites/``), built by
    parrot.testsuite's builder; what the manifest records of that build. ``quiet``: its
    progress is held back (the last lines are kept for the error message when it fails)."""
    import contextlib
    import io

    command = ["build", str(out), "--seed", str(seed), "--jobs", str(jobs)]
    held = io.StringIO()
    with contextlib.ExitStack() as stack:
        if quiet:
            stack.enter_context(contextlib.redirect_stdout(held))
            stack.enter_context(contextlib.redirect_stderr(held))
        try:
            rc = testsuite_cli.main(command)
        except SystemExit as exc:  # its argument parser refused the command
            rc = exc.code if isinstance(exc.code, int) else 2
        except Exception as exc:  # a defect in the builder: recorded, the items stay written
            print(f"{type(exc).__name__}: {exc}", file=sys.stderr)
            rc = 1
    suites = out / "suites"
    built = sum(1 for _ in suites.rglob("*.json")) if suites.is_dir() else 0
    record: dict[str, Any] = {
        "command": ["python", "-m", "parrot.testsuite", *command],
        "exit_status": rc,
        "files": built,
    }
    if rc != 0 and quiet:
        record["output_tail"] = held.getvalue().splitlines()[-5:]
    return record


@contextlib.contextmanager
def _progress_bars(console: Any, quiet: bool) -> Iterator[tuple[Progress, OnStage]]:
    """Progress bars on ``console``: the callbacks for a stage's progress and its end."""
    from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn
    from rich.progress import Progress as Bars

    with Bars(
        TextColumn("[bold]{task.description:<12}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        disable=quiet,
    ) as progress:
        tasks: dict[str, Any] = {}

        def on_progress(stage: str, done: int, total: int) -> None:
            if stage not in tasks:
                tasks[stage] = progress.add_task(stage, total=total)
            progress.update(tasks[stage], completed=done, total=total)

        def on_stage(count: StageCount) -> None:
            if count.stage not in tasks:
                tasks[count.stage] = progress.add_task(count.stage, total=count.records_in)
            progress.update(
                tasks[count.stage],
                completed=count.records_in,
                description=f"{count.stage} → {count.records_out}",
            )

        yield on_progress, on_stage


def _run(
    records: list[Record],
    stages: list[Stage],
    executor: Executor,
    chunk_size: int,
    console: Any,
    quiet: bool,
    partitioned: tuple[Any, Any] | None = None,
    streamed: bool = False,
) -> tuple[list[Record], list[StageCount], list[dict[str, Any]], int]:
    """The pipeline with progress bars; ``partitioned``: (partitions, row reader) of a corpus
    the cluster reads; ``streamed``: standardise to coverage streamed (:func:`_streamed`).
    Returns the kept records, the funnel, the review queue and the number of input records."""
    with _progress_bars(console, quiet) as progress:
        if streamed:
            return _streamed(records, stages, executor, chunk_size, partitioned, progress)
        if partitioned is not None:
            assert isinstance(executor, PartitionExecutor)
            return run_partitioned(*partitioned, stages, executor, chunk_size, *progress)
        kept, funnel, routed = run_pipeline(records, stages, executor, chunk_size, *progress)
        return kept, funnel, routed, len(records)


def streams(
    args: argparse.Namespace, variant: Any, sources: tuple[str, ...], stages: list[Stage]
) -> bool:
    """Whether selection streams (``--stream``; by default when the corpus files are large);
    ValueError when ``--stream`` asks for what cannot stream."""
    if args.stream is False:
        return False
    index = next(i for i, s in enumerate(stages) if isinstance(s, Normalise))
    refused = [s.name for s in stages[1:index] if not streamable(s)]
    why = (
        f"the {', '.join(refused)} stage needs every statement at once"
        if refused
        else "a Ray executor reads the corpus itself"
        if args.executor.kind == "ray"
        else ""
    )
    if args.stream:
        if why:
            raise ValueError(f"--stream: {why}; run without --stream")
        return True
    if why or variant.rows is None or args.input_limit:
        return False
    files, _ = variant.rows(sources)
    return sum(p.stat().st_size for p in files if p.is_file()) >= STREAM_BYTES


def _streamed(
    records: list[Record],
    stages: list[Stage],
    executor: Executor,
    chunk_size: int,
    partitioned: tuple[Any, Any] | None,
    progress: tuple[Progress, OnStage],
) -> tuple[list[Record], list[StageCount], list[dict[str, Any]], int]:
    """:func:`_run` with standardise to coverage streamed (:mod:`parrot.curate.stream`) over
    ``records`` in chunks, or the corpus byte ranges of ``partitioned`` (read by the workers),
    and the stages after coverage run on what it selects."""
    index = next(i for i, s in enumerate(stages) if isinstance(s, Normalise))
    cluster, coverage = stages[index + 1], stages[index + 3]
    assert isinstance(cluster, Cluster) and isinstance(coverage, Coverage)
    settings = StreamSettings(
        prefix_ratio=cluster.ratio,
        coverage=coverage.source,
        patience=coverage.patience,
        limit=coverage.limit,
        jobs=executor.jobs if isinstance(executor, LocalExecutor) else 1,
        stages=tuple(stages[1:index]),
    )
    chunks: list[Any]
    if partitioned is not None:
        ranges, reader = partitioned
        chunks = [(*r, reader) for r in ranges]
    else:
        chunks = [records[i : i + chunk_size] for i in range(0, len(records), chunk_size)]
    on_progress, on_stage = progress
    selected = run_stream(chunks, settings, on_progress, len(chunks))
    for count in selected.funnel:
        on_stage(count)
    kept, funnel, routed = run_pipeline(
        selected.kept, stages[index + 4 :], executor, chunk_size, on_progress, on_stage
    )
    return kept, [*selected.funnel, *funnel], routed, selected.funnel[0].records_in


def build_manifest(
    args: argparse.Namespace,
    argv: list[str],
    sources: tuple[str, ...],
    targets: tuple[str, ...],
    limit: int | None,
    inputs: list[Path],
    stages: list[Stage],
    funnel: list[StageCount],
    started: dt.datetime,
    n_items: int,
    n_fixtures: int,
    n_review: int,
    n_inputs: int,
) -> dict[str, Any]:
    import sqlglot

    check = checker(args.timeout, DEFAULT_MAX_ROWS)
    engines = {}
    for d in sorted(set(sources) | set(targets)):
        engine = check.judge.engine(d)
        engines[d] = engine.label if engine is not None else None
    return {
        "variant": args.variant,
        "command": ["python", "-m", "parrot.curate", *argv],
        "started": started.isoformat(timespec="seconds"),
        "finished": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "inputs": [{"path": str(p), "sha256": file_digest(p)} for p in inputs if p.is_file()],
        "input_statements": n_inputs,
        "parameters": {
            "sources": list(sources),
            "targets": list(targets),
            "limit": limit,
            "seed": args.seed,
            "rounds": args.rounds,
            "jobs": args.jobs,
            "executor": str(args.executor),
            "chunk_size": args.chunk_size,
            "stages": {s.name: s.params() for s in stages},
        },
        "seeds": {"curation": args.seed, "test_data": f"{args.seed}:<statement id>:<round>"},
        "versions": {
            "parrot": __version__,
            "sqlglot": sqlglot.__version__,
            "python": platform.python_version(),
            "engines": engines,
        },
        "funnel": [c.to_json() for c in funnel],
        "outputs": {"items": n_items, "generated_fixtures": n_fixtures, "review": n_review},
        "seconds": round((dt.datetime.now(dt.UTC) - started).total_seconds(), 1),
    }
