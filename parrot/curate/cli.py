"""``python -m parrot.curate``: build a benchmark variant from raw SQL corpora.

Stages, in order (each prints and records its funnel line): standardise → canonicalise →
anonymise (optional) → [hard: main only] → normalise → cluster → features → coverage → pairs →
testdata → type_filter → annotate → verify → classify, then the dataset, review queue and build
manifest are written.
``python -m parrot.curate review FILE --out DIR`` re-verifies a reviewer's fixes.
"""

from __future__ import annotations

import argparse
import datetime as dt
import logging
import platform
import sys
from pathlib import Path
from typing import Any

from parrot import __version__, dialects
from parrot.cli import RawDescriptionDefaultsHelpFormatter, table_console
from parrot.curate.annotate import Annotate, Pairs
from parrot.curate.anonymise import LEVELS, Anonymise
from parrot.curate.canonicalise import Canonicalise
from parrot.curate.classify import Classify
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
    Executor,
    LocalExecutor,
    Record,
    Stage,
    StageCount,
    run_pipeline,
)
from parrot.curate.standardise import Standardise
from parrot.curate.variants import VARIANTS, CorpusMissing, Ground, Hard
from parrot.curate.verify import (
    DEFAULT_MAX_ROWS,
    DEFAULT_ROUNDS,
    DEFAULT_TIMEOUT,
    TestData,
    Verify,
)
from parrot.pairs import EVERY_PAIR, DialectPairs, combined, parse_pairs
from parrot.scale import EXECUTOR_HELP, ExecutorError, ExecutorSpec, parse_executor


def _dialect_list(text: str) -> tuple[str, ...]:
    return tuple(dialects.resolve(d.strip()) for d in text.split(",") if d.strip())


def _executor(text: str) -> ExecutorSpec:
    try:
        return parse_executor(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m parrot.curate", description=__doc__,
                                formatter_class=RawDescriptionDefaultsHelpFormatter)
    p.add_argument("--variant", choices=VARIANTS.names(), default="simple",
                   help="simple: sqlglot's test statements; diverse: Spider-family queries on "
                        "their databases; main: long multi-construct statements (default: simple)")
    p.add_argument("--output-dir", "--out", dest="out", type=Path,
                   help="output folder (default build/curated-<variant>)")
    p.add_argument("--pairs", default="",
                   help="SOURCE:TARGET dialect pairs to write, comma-separated, * = any "
                        "(eval's syntax), e.g. mysql:duckdb,sqlite:*; default: the variant's "
                        "sources to the embedded engines (postgres and mysql need servers: "
                        "python -m parrot.engines up)")
    p.add_argument("--sources", type=_dialect_list,
                   help="source dialects, comma-separated (shorthand: --sources A --targets B "
                        "is --pairs A:B)")
    p.add_argument("--targets", type=_dialect_list, help="target dialects, comma-separated")
    p.add_argument("--annotator", action="append", default=[],
                   help="a translator spec producing candidates (repeatable; default sqlglot): "
                        "sqlglot, openai/gpt-4o, ensemble:sqlglot,openai/gpt-4o, ...")
    p.add_argument("--anonymise", default="", help=f"levels to apply: {','.join(LEVELS)}")
    p.add_argument("--seed", type=int, default=0,
                   help="seed of anonymisation and generated test data (default: 0)")
    p.add_argument("--rounds", type=int, default=DEFAULT_ROUNDS,
                   help="rounds of test data per pair (k)")
    p.add_argument("--prefix-ratio", type=float, default=DEFAULT_PREFIX_RATIO,
                   help="cluster prefix length as a share of the normalised statement's length "
                        f"(default: {DEFAULT_PREFIX_RATIO})")
    p.add_argument("--patience", type=int, default=DEFAULT_PATIENCE,
                   help="non-improving statements before leaving a cluster")
    p.add_argument("--coverage", default="sqlglot", choices=sorted(COVERAGE_SOURCES),
                   help="parser coverage that selection maximises: sqlglot (expression nodes and "
                        "slots) or grammar (parrot's own grammar rules and alternatives; sqlglot "
                        "for dialects without one) (default: sqlglot)")
    p.add_argument("--keep", dest="limit", type=int, help="statements kept by coverage "
                   "selection (variant default; 0 for no limit)")
    p.add_argument("--limit", "--input-limit", dest="input_limit", type=int,
                   help="read only the first N input statements")
    p.add_argument("--jobs", type=int, default=1, help="worker processes")
    p.add_argument("--executor", type=_executor, default=ExecutorSpec("local"),
                   help=EXECUTOR_HELP + "; on Ray every chunk is a task (Ray's CPUs replace "
                        "--jobs) and the driver writes every output")
    p.add_argument("--chunk-size", type=int, default=DEFAULT_CHUNK,
                   help=f"statements per worker task (default: {DEFAULT_CHUNK})")
    p.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT,
                   help=f"seconds per execution on an engine (default: {DEFAULT_TIMEOUT})")
    p.add_argument("--keep-unverified", action="store_true",
                   help="keep pairs with no engine here, labelled grammar-only")
    p.add_argument("--no-review", action="store_true",
                   help="drop disagreeing pairs instead of routing them to review")
    p.add_argument("--no-suites", action="store_true",
                   help="skip building the distilled test suites (python -m parrot.testsuite "
                        "build) of the written dataset; by default they go to OUT/suites/")
    p.add_argument("--quiet", action="store_true", help="no progress bars and no funnel table")
    return p


def chosen_pairs(args: argparse.Namespace) -> DialectPairs:
    """``--pairs``, or the pairs ``--sources``/``--targets`` stand for."""
    if args.pairs and (args.sources or args.targets):
        raise ValueError("--pairs replaces --sources/--targets: give one or the other")
    return parse_pairs(args.pairs) if args.pairs else combined(args.sources or (),
                                                               args.targets or ())


def build_stages(args: argparse.Namespace, targets: tuple[str, ...], limit: int | None,
                 corpus_targets_only: bool, pairs: DialectPairs = EVERY_PAIR) -> list[Stage]:
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
        Features(args.coverage, args.patience + 1),
        Coverage(args.coverage, args.patience, limit),
        Pairs(targets, corpus_targets_only, pairs),
        TestData(args.rounds, args.seed, args.timeout),
        TypeFilter(args.timeout, DEFAULT_MAX_ROWS),
        Annotate(args.annotator or ["sqlglot"]),
        Verify(args.timeout, DEFAULT_MAX_ROWS, review=not args.no_review,
               keep_unverified=args.keep_unverified),
        Classify(),
    ]
    return stages


def make_executor(spec: ExecutorSpec, jobs: int) -> Executor:
    """The executor ``--executor`` names (Ray is imported only when it names Ray)."""
    if spec.kind == "local" or spec.address is None:
        return LocalExecutor(jobs)
    from parrot.scale.cluster import RayExecutor

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
        table.add_row(c.stage, str(c.records_in), str(c.records_out), why or "–",
                      f"{c.seconds:.1f}", f"{c.rate:,.0f}" if c.seconds > 0 else "–")
    return table


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["review"]:
        from parrot.curate.review import main as review_main

        return review_main(argv[1:])
    args = build_parser().parse_args(argv)
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
        records, inputs = variant.load(sources)
    except CorpusMissing as exc:
        errors.print(f"[red]{exc}[/red]")
        return 2
    if args.input_limit:
        records = records[:args.input_limit]
    console.print(f"{args.variant}: {len(records)} input statements from "
                  f"{len(inputs)} file(s); sources {','.join(sources)} → targets "
                  f"{','.join(targets)}")
    try:
        stages = build_stages(args, targets, limit, variant.corpus_targets_only, pairs)
    except (ValueError, LookupError) as exc:
        errors.print(f"[red]{exc}[/red]")
        return 2
    try:
        executor = make_executor(args.executor, args.jobs)
    except ExecutorError as exc:
        errors.print(f"[red]{exc}[/red]")
        return 2
    try:
        kept, funnel, routed = _run(records, stages, executor, args.chunk_size, console,
                                    args.quiet)
    finally:
        executor.close()
    n_items, n_fixtures = write_dataset(out, args.variant, kept)
    write_review(out, routed)
    manifest = build_manifest(args, argv, sources, targets, limit, inputs, stages, funnel,
                              started, n_items, n_fixtures, len(routed), len(records))
    if n_items and not args.no_suites:
        manifest["suites"] = build_suites(out, args.seed, args.jobs)
    write_manifest(out, manifest)
    console.print(funnel_table(funnel))
    console.print(f"{n_items} items ({n_fixtures} generated fixtures) → {out}/items.jsonl; "
                  f"{len(routed)} pairs in review.jsonl; manifest: {out}/manifest.json")
    console.print(f"check it: python -m parrot.eval --model reference --dataset {out}")
    return 0 if n_items else 1


def build_suites(out: Path, seed: int, jobs: int) -> dict[str, Any]:
    """The distilled test suites of the dataset at ``out`` (``OUT/suites/``), built by
    parrot.testsuite's builder; what the manifest records of that build."""
    from parrot.testsuite.cli import main as testsuite_main

    command = ["build", str(out), "--seed", str(seed), "--jobs", str(jobs)]
    rc = testsuite_main(command)
    suites = out / "suites"
    built = sum(1 for _ in suites.rglob("*.json")) if suites.is_dir() else 0
    return {"command": ["python", "-m", "parrot.testsuite", *command], "exit_status": rc,
            "files": built}


def _run(records: list[Record], stages: list[Stage], executor: Executor,
         chunk_size: int, console: Any, quiet: bool
         ) -> tuple[list[Record], list[StageCount], list[dict[str, Any]]]:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(TextColumn("[bold]{task.description:<12}"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), console=console, disable=quiet) as progress:
        tasks: dict[str, Any] = {}

        def on_progress(stage: str, done: int, total: int) -> None:
            if stage not in tasks:
                tasks[stage] = progress.add_task(stage, total=total)
            progress.update(tasks[stage], completed=done, total=total)

        def on_stage(count: StageCount) -> None:
            if count.stage not in tasks:
                tasks[count.stage] = progress.add_task(count.stage, total=count.records_in)
            progress.update(tasks[count.stage], completed=count.records_in,
                            description=f"{count.stage} → {count.records_out}")

        return run_pipeline(records, stages, executor, chunk_size, on_progress, on_stage)


def build_manifest(args: argparse.Namespace, argv: list[str], sources: tuple[str, ...],
                   targets: tuple[str, ...], limit: int | None, inputs: list[Path],
                   stages: list[Stage], funnel: list[StageCount], started: dt.datetime,
                   n_items: int, n_fixtures: int, n_review: int, n_inputs: int
                   ) -> dict[str, Any]:
    import sqlglot

    from parrot.curate.verify import checker

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
        "parameters": {"sources": list(sources), "targets": list(targets), "limit": limit,
                       "seed": args.seed, "rounds": args.rounds, "jobs": args.jobs,
                       "executor": str(args.executor),
                       "chunk_size": args.chunk_size,
                       "stages": {s.name: s.params() for s in stages}},
        "seeds": {"curation": args.seed, "test_data": f"{args.seed}:<pair id>:<round>"},
        "versions": {"parrot": __version__, "sqlglot": sqlglot.__version__,
                     "python": platform.python_version(), "engines": engines},
        "funnel": [c.to_json() for c in funnel],
        "outputs": {"items": n_items, "generated_fixtures": n_fixtures, "review": n_review},
        "seconds": round((dt.datetime.now(dt.UTC) - started).total_seconds(), 1),
    }
