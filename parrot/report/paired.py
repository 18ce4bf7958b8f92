"""``parrot compare RUN_A RUN_B``: two runs over the same items, compared item by item.

Each item judged by the metric in both runs is *fixed* (wrong in A, right in B), *broken* (right
in A, wrong in B), *both right* or *both wrong*. Overall, per dialect pair and per translation
type: both accuracies with their 95% Wilson intervals, the difference B − A with its 95% paired
bootstrap interval (seeded), and McNemar's exact test on the discordant pairs
(:mod:`parrot.report.stats`). Runs over different items, datasets or verdict rules are refused.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from parrot import cli
from parrot.api.records import Outcome
from parrot.api.results import MANIFEST, RunDirError, read_json, read_results
from parrot.report.metrics import MODES, right
from parrot.report.render import Table, to_markdown
from parrot.report.stats import ALPHA, mcnemar_exact, paired_difference, wilson

METRICS = ("strict", *(m for m in MODES if m != "strict"), "ts", "ex")
OUTCOMES = ("fixed", "broken", "both_right", "both_wrong")
ROW_HEADERS = (
    "group",
    "paired",
    "both right",
    "fixed",
    "broken",
    "both wrong",
    "A %",
    "A 95% CI",
    "B %",
    "B 95% CI",
    "B − A",
    "B − A 95% CI (bootstrap)",
    "McNemar p",
)


class CompareError(ValueError):
    """The two runs cannot be compared item by item (exit 2)."""


@dataclass(frozen=True)
class Run:
    path: str
    manifest: dict[str, Any]
    records: dict[str, Outcome]  # by item id (a resumed run's later line wins)


def load_run(path: Path) -> Run:
    manifest = read_json(path / MANIFEST) if (path / MANIFEST).is_file() else {}
    return Run(str(path), manifest, {str(r["id"]): r for r in read_results(path)})


def check_comparable(a: Run, b: Run) -> None:
    """CompareError naming the first difference: item ids, dataset, verdict rules."""
    only_a, only_b = (
        sorted(set(a.records) - set(b.records)),
        sorted(set(b.records) - set(a.records)),
    )
    if only_a or only_b:
        example = ", ".join(
            f"{side}: {ids[0]}" for side, ids in (("A", only_a), ("B", only_b)) if ids
        )
        raise CompareError(
            f"the runs cover different items ({len(only_a)} only in A, "
            f"{len(only_b)} only in B; e.g. {example}): compare runs of the same "
            "items"
        )
    sha = [r.manifest.get("dataset", {}).get("sha256") for r in (a, b)]
    if None not in sha and sha[0] != sha[1]:
        raise CompareError(
            f"the runs score different dataset files (sha256 {sha[0][:12]} and "
            f"{sha[1][:12]}): their references may differ"
        )
    rules = [int(r.manifest.get("comparator", 1)) for r in (a, b)]
    if rules[0] != rules[1]:
        raise CompareError(
            f"the runs were judged under different verdict rules (comparator "
            f"v{rules[0]} and v{rules[1]}): re-run one of them"
        )


def outcome(a: bool, b: bool) -> str:
    return ("both_right" if b else "broken") if a else ("fixed" if b else "both_wrong")


def group_row(pairs: list[tuple[bool, bool]]) -> dict[str, Any]:
    """Counts, accuracies with Wilson intervals, B − A with its bootstrap interval, McNemar."""
    counts = {k: 0 for k in OUTCOMES}
    for a, b in pairs:
        counts[outcome(a, b)] += 1
    n = len(pairs)
    hits_a, hits_b = counts["both_right"] + counts["broken"], counts["both_right"] + counts["fixed"]
    diff = paired_difference([a for a, _ in pairs], [b for _, b in pairs])
    return {
        "paired": n,
        **counts,
        "acc_a": round(100.0 * hits_a / n, 2) if n else None,
        "ci_a": wilson(hits_a, n),
        "acc_b": round(100.0 * hits_b / n, 2) if n else None,
        "ci_b": wilson(hits_b, n),
        "diff": round(100.0 * (hits_b - hits_a) / n, 2) if n else None,
        "diff_ci": diff,
        "mcnemar_p": mcnemar_exact(counts["broken"], counts["fixed"]),
    }


def _by(
    a: Run,
    ids: list[str],
    key: Callable[[Outcome], Iterable[str]],
    verdicts: dict[str, tuple[bool, bool]],
) -> dict[str, dict[str, Any]]:
    groups: dict[str, list[tuple[bool, bool]]] = {}
    for item in ids:
        for label in key(a.records[item]):
            groups.setdefault(label, []).append(verdicts[item])
    return {label: group_row(groups[label]) for label in sorted(groups)}


def compare(a: Run, b: Run, metric: str = "strict", alpha: float = ALPHA) -> dict[str, Any]:
    """The whole comparison, as ``--json`` prints it (runs checked by check_comparable)."""
    check_comparable(a, b)
    verdicts: dict[str, tuple[bool, bool]] = {}
    not_judged = []
    for item, record in a.records.items():
        x, y = right(record, metric), right(b.records[item], metric)
        if x is None or y is None:
            not_judged.append(item)
        else:
            verdicts[item] = (x, y)
    ids = sorted(verdicts)
    items = {k: [i for i in ids if outcome(*verdicts[i]) == k] for k in OUTCOMES}
    overall = group_row([verdicts[i] for i in ids])
    return {
        "a": a.path,
        "b": b.path,
        "metric": metric,
        "alpha": alpha,
        "regression": regression(overall, alpha),
        "overall": overall,
        "by_pair": _by(
            a, ids, lambda r: [f"{r['source_dialect']}→{r['target_dialect']}"], verdicts
        ),
        "by_type": _by(a, ids, lambda r: r.get("translation_types") or ["(none)"], verdicts),
        "items": {**items, "not_judged": sorted(not_judged)},
    }


def regression(row: dict[str, Any], alpha: float = ALPHA) -> bool:
    """B is significantly worse than A: more items broken than fixed, and McNemar's exact test
    rejects equal accuracy at ``alpha``."""
    return bool(row["broken"] > row["fixed"] and row["mcnemar_p"] < alpha)


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{value:.1f}"


def _ci(ci: tuple[float, float] | list[float] | None, signed: bool = False) -> str:
    if ci is None:
        return "–"
    fmt = "{:+.1f}" if signed else "{:.1f}"
    return f"[{fmt.format(ci[0])}, {fmt.format(ci[1])}]"


def _row(label: str, r: dict[str, Any]) -> tuple[Any, ...]:
    diff = "–" if r["diff"] is None else f"{r['diff']:+.1f}"
    return (
        label,
        r["paired"],
        r["both_right"],
        r["fixed"],
        r["broken"],
        r["both_wrong"],
        _pct(r["acc_a"]),
        _ci(r["ci_a"]),
        _pct(r["acc_b"]),
        _ci(r["ci_b"]),
        diff,
        _ci(r["diff_ci"], signed=True),
        f"{r['mcnemar_p']:.3g}",
    )


AGREEING_SHOWN = 10  # ids listed for both-right / both-wrong (fixed and broken: every one)


def _ids(outcome: str, ids: list[str]) -> str:
    """The ids of one outcome: every fixed and broken one, the first few of the others."""
    if not ids:
        return "–"
    if outcome in ("fixed", "broken") or len(ids) <= AGREEING_SHOWN:
        return " ".join(ids)
    return " ".join(ids[:AGREEING_SHOWN]) + f" … ({len(ids) - AGREEING_SHOWN} more)"


def tables(result: dict[str, Any]) -> list[Table]:
    """The comparison as tables: overall, by dialect pair, by translation type, the items."""
    metric = result["metric"]
    out = [
        Table(
            f"{metric}: A = {result['a']}, B = {result['b']} (items judged in both runs)",
            ROW_HEADERS,
            [_row("all", result["overall"])],
        ),
        Table(
            f"{metric} by dialect pair",
            ROW_HEADERS,
            [_row(k, v) for k, v in result["by_pair"].items()],
        ),
        Table(
            f"{metric} by translation type",
            ROW_HEADERS,
            [_row(k, v) for k, v in result["by_type"].items()],
        ),
    ]
    items = result["items"]
    out.append(
        Table(
            f"Items (the agreeing outcomes list their first {AGREEING_SHOWN} ids; --json has all)",
            ("outcome", "n", "ids"),
            [
                (k.replace("_", " "), len(items[k]), _ids(k, items[k]))
                for k in (*OUTCOMES, "not_judged")
            ],
        )
    )
    return out


def verdict_line(result: dict[str, Any]) -> str:
    o = result["overall"]
    word = (
        "significantly worse"
        if result["regression"]
        else (
            "not significantly different"
            if o["mcnemar_p"] >= result["alpha"]
            else "significantly better"
        )
    )
    return (
        f"B is {word} than A on {result['metric']} (McNemar exact p={o['mcnemar_p']:.3g}, "
        f"alpha {result['alpha']}; {o['fixed']} fixed, {o['broken']} broken of "
        f"{o['paired']} paired items)"
    )


DESCRIPTION = (
    "Compare two runs over the same items, item by item: fixed, broken, both-right and "
    "both-wrong items; McNemar's exact test and a paired bootstrap interval of the accuracy "
    "difference B − A, overall, per dialect pair and per translation type. Refuses runs over "
    "different items, dataset files or verdict rules (exit 2)."
)


def configure(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """Fill ``parser`` with compare's flags (also ``parrot compare``'s subparser)."""
    cli.configure(parser, run, DESCRIPTION)
    parser.epilog = (
        "Exit status: 0 compared; 1 with --fail-on-regression when B is significantly worse; "
        "2 bad input (a missing or damaged run, runs not comparable, --alpha outside (0, 1))."
    )
    parser.add_argument("run_a", type=Path, metavar="RUN_A", help="the baseline run directory")
    parser.add_argument("run_b", type=Path, metavar="RUN_B", help="the candidate run directory")
    parser.add_argument(
        "--metric",
        choices=METRICS,
        default="strict",
        help="what counts an item right: a comparison mode of Acc_RES, ts "
        "(Acc_TS: items with a suite) or ex (the translation runs)",
    )
    parser.add_argument(
        "--alpha", type=float, default=ALPHA, help="significance level of McNemar's exact test"
    )
    parser.add_argument(
        "--fail-on-regression",
        action="store_true",
        help="exit 1 when B is significantly worse: more items broken than "
        "fixed and McNemar's exact p < --alpha (for a translator's CI)",
    )
    parser.add_argument(
        "--json",
        action="store_true",
        help="print the comparison as JSON instead of Markdown tables",
    )
    return parser


build_parser, main = cli.entry_points("python -m parrot.report.paired", configure)


def run(args: argparse.Namespace) -> int:
    """Compare the two runs ``args`` name and print the result."""
    if not 0.0 < args.alpha < 1.0:
        print(f"error: --alpha {args.alpha}: expected a level between 0 and 1", file=sys.stderr)
        return 2
    try:
        result = compare(load_run(args.run_a), load_run(args.run_b), args.metric, args.alpha)
    except (CompareError, RunDirError, OSError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(result, indent=2, ensure_ascii=False))
    else:
        print(to_markdown(tables(result)))
        print(verdict_line(result))
    return 1 if args.fail_on_regression and result["regression"] else 0
