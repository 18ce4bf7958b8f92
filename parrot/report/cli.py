"""``python -m parrot.report RUN_DIR [RUN_DIR ...] [--format md|csv|json|html] [-o FILE]``.

One run directory: its tables (overall; when suites ran, Acc_RES beside Acc_TS and the items
that pass on the fixture but fail on a suite database; by dialect pair, translation type, token
length, failure reasons), or with ``--format html`` a self-contained page with plots and every
item. Several: a leaderboard, one row per run. Summaries are recomputed from results.jsonl, so a
report never disagrees with the per-item outcomes.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from parrot import cli
from parrot.api.results import (
    MANIFEST,
    RESULTS,
    DamagedResultsError,
    RunDirError,
    read_json,
    scan_results,
)
from parrot.dialects import UnknownDialectError, resolve
from parrot.report.analysis import analysis_tables, run_context
from parrot.report.metrics import run_summary
from parrot.report.render import leaderboards, render, summary_tables


def configure(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """Fill ``parser`` with report's flags (also ``parrot report``'s subparser)."""
    cli.configure(
        parser, report, "Re-render the tables of finished parrot runs, or a leaderboard of several."
    )
    parser.add_argument(
        "run_dirs",
        nargs="+",
        type=Path,
        metavar="RUN_DIR",
        help="run directories written by python -m parrot.eval",
    )
    parser.add_argument(
        "--format",
        choices=("md", "csv", "json", "html"),
        default="md",
        help="output format; html is one self-contained page (plots, item "
        "drill-down) that opens offline (default: md)",
    )
    cli.add_output_file(
        parser,
        "the tables, or the html page",
        type=Path,
        default="standard output; for html: RUN_DIR/report.html for one run, "
        "leaderboard.html in the current directory for several",
    )
    parser.add_argument(
        "--analysis",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="cross-dialect tables (accuracy drop, κ, consistency, DRS, failure "
        "taxonomy, rank correlation) when a run answers questions in "
        "several dialects",
    )
    add_base(parser)
    parser.add_argument(
        "--skip-bad",
        action="store_true",
        help="skip damaged lines of results.jsonl (counted on stderr) instead of "
        "failing (default: fail, naming their line numbers)",
    )
    return parser


def add_base(parser: argparse.ArgumentParser) -> None:
    """``--base DIALECT``: the dialect the cross-dialect analysis compares the others with
    (also ``parrot text2sql taxonomy``'s)."""
    parser.add_argument(
        "--base",
        metavar="DIALECT",
        default=None,
        help="base dialect of the analysis (default: sqlite when it is a target)",
    )


build_parser, main = cli.entry_points("python -m parrot.report", configure)


def report(args: argparse.Namespace) -> int:
    """Print or write the report ``args`` describe."""
    try:
        runs = []
        for run_dir in args.run_dirs:
            manifest = read_json(run_dir / MANIFEST) if (run_dir / MANIFEST).is_file() else {}
            records, bad = scan_results(run_dir)
            if bad and not args.skip_bad:
                raise DamagedResultsError(run_dir / RESULTS, [n for n, _ in bad])
            if bad:
                print(
                    f"warning: {run_dir}: skipped {len(bad)} damaged line(s), line number(s) "
                    f"{', '.join(str(n) for n, _ in bad)}",
                    file=sys.stderr,
                )
            runs.append((str(run_dir), manifest, records))
    except (RunDirError, OSError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    analysis = []
    if args.analysis:
        try:
            base = resolve(args.base) if args.base else None
        except UnknownDialectError as exc:
            print(f"error: --base: {exc}", file=sys.stderr)
            return 2
        context = {name: run_context(Path(name), manifest) for name, manifest, _ in runs}
        analysis = analysis_tables(
            [(name, records) for name, _, records in runs], base, context=context
        )
    if args.format == "html":
        # deferred: matplotlib, jinja2 (loaded only on this path)
        from parrot.report.html import leaderboard_page, write_run_report

        if len(runs) == 1:
            target = write_run_report(
                args.run_dirs[0], runs[0][1], runs[0][2], args.output, analysis
            )
        else:
            target = args.output or Path("leaderboard.html")
            target.write_text(leaderboard_page(runs, analysis), encoding="utf-8")
        print(f"report: {target}", file=sys.stderr)
        return 0
    tables = (
        summary_tables(run_summary(Path(runs[0][0]), runs[0][1], runs[0][2]))
        if len(runs) == 1
        else leaderboards(runs)
    ) + analysis
    text = render(tables, args.format)
    if args.output:
        args.output.write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0
