"""Render summaries as tables: Markdown, CSV, JSON, or rich tables on a terminal."""

from __future__ import annotations

import csv
import io
import itertools
import json
from dataclasses import dataclass
from typing import Any

from parrot.api.records import Outcome
from parrot.report.metrics import right, share, summarize
from parrot.report.stats import ALPHA, interval_text, mcnemar_exact, wilson

# (summary key of the interval, heading): the 95% Wilson interval of each accuracy of a row
INTERVALS = (
    ("ex", "EX 95% CI"),
    ("strict", "strict 95% CI"),
    ("ts", "TS 95% CI"),
    ("normalized", "norm 95% CI"),
    ("multiset", "multiset 95% CI"),
    ("strict_nonempty", "strict≠∅ 95% CI"),
    ("syn", "SYN 95% CI"),
)
# shown in summary.json and the report's md/csv/json, not on a terminal (80 columns; there the
# strict-verdicts-by-reason table has the timeouts on a line of their own)
TERMINAL_HIDDEN = (
    "EX n",
    "RES n",
    "wrong",
    "timeout",
    "strict≠∅ %",
    "≠∅ n",
    "TS n",
    "SYN n",
    "detail",
    *(heading for _, heading in INTERVALS),
)
TERMINAL_NAMES = {
    "gold err": "gold\nerr",
    "no engine": "no\nengine",  # two-line headers
    "no ref": "no\nref",
}
# The score columns of a row of results, after its name; a literal table of headings:
# fmt: off
_SCORE_COLUMNS = (
    "items", "gold err", "no engine", "no ref",
    "EX %", "EX n", "strict %", "RES n", "wrong", "timeout",
    "TS %", "TS n", "norm %", "multiset %", "strict≠∅ %", "≠∅ n", "SYN %", "SYN n",
)
# fmt: on
SCORE_HEADERS = ("group", *_SCORE_COLUMNS, *(heading for _, heading in INTERVALS))
# Each share's subset and denominator, said under every table of SCORE_HEADERS.
SCORE_NOTE = (
    "Each % has its own subset: EX % of EX n (translations that could run: target "
    "engine here, source did not fail); strict, norm and multiset % of RES n (judged "
    "on both engines); TS % of TS n (those of RES n with a test suite); strict≠∅ % of "
    "≠∅ n (those of RES n whose source returned rows); wrong and timeout split the "
    "items of RES n not strictly right: a different answer, or a translation that "
    "timed out (its budget, then 3× it on the re-run); SYN % of SYN n (translations "
    "checked by the target's grammar: by default only those no engine ran). gold err, "
    "no engine and no ref items are in no denominator. The 95% CI columns are "
    "Wilson intervals of each %."
)


@dataclass(frozen=True)
class Table:
    title: str
    headers: tuple[str, ...]
    rows: list[tuple[Any, ...]]
    note: str = ""  # the subset and denominator of its shares, when the title does not say


def _fmt(pct: float | None) -> str:
    return "–" if pct is None else f"{pct:.1f}"


def _score_cells(s: dict[str, Any]) -> dict[str, Any]:
    """A summary's cells under each of _SCORE_COLUMNS. The leaderboard also reads summaries
    written before some counts existed: a count the summary lacks shows as "–", never as 0."""
    cells = (
        s["items"],
        s["gold_error"],
        s["no_engine"],
        s.get("no_reference", "–"),
        _fmt(s["acc_ex"]),
        s["ex_items"],
        _fmt(s["acc_strict"]),
        s["evaluated"],
        s.get("wrong", "–"),
        s.get("timeout", "–"),
        _fmt(s.get("acc_ts")),
        s.get("ts_items", "–"),
        _fmt(s["acc_normalized"]),
        _fmt(s["acc_multiset"]),
        _fmt(s.get("acc_strict_nonempty")),
        s.get("nonempty", "–"),
        _fmt(s.get("acc_syn")),
        s.get("syn_checked", "–"),
    )
    return dict(zip(_SCORE_COLUMNS, cells, strict=True))


def _score_row(label: str, s: dict[str, Any]) -> tuple[Any, ...]:
    return (label, *_score_cells(s).values(), *_intervals(s, [key for key, _ in INTERVALS]))


def _intervals(s: dict[str, Any], keys: list[str]) -> list[str]:
    """The 95% Wilson intervals of a summary's accuracies (``–`` when not measured, or for a
    summary.json written before intervals were)."""
    cis = s.get("ci95") or {}
    return [interval_text(cis.get(key)) for key in keys]


def _circular_flag(circular: dict[str, Any]) -> str:
    return (
        f"circular: annotated {circular['annotated_by_translator']}/{circular['items']} "
        f"references; strict {_fmt(circular['rest']['acc_strict'])}% on the rest"
    )


def _value(v: Any) -> str:
    """A result value as the verdicts record it (``{"decimal": "1.50"}`` → ``1.50``)."""
    if isinstance(v, dict) and len(v) == 1:
        return str(next(iter(v.values())))
    return (
        "NULL"
        if v is None
        else json.dumps(v, ensure_ascii=False)
        if isinstance(v, list | dict)
        else str(v)
    )


def _share(n: int, d: int) -> str:
    """``n`` of ``d`` as a percentage, rounded as summary.json rounds it (:func:`share`)."""
    return _fmt(share(n, d))


def _cell(cell: dict[str, Any] | None) -> str:
    if not cell:
        return "–"
    return (
        f"row {cell.get('row')}, column {cell.get('column')}: "
        f"{_value(cell.get('gold'))} vs {_value(cell.get('pred'))}"
    )


def _rate_row(label: str, passed: int, n: int, counts: str) -> tuple[Any, ...]:
    """A row of passed of n: the share, its 95% Wilson interval, and what n counts."""
    return (label, passed, n, _share(passed, n), interval_text(wilson(passed, n)), counts)


def suite_tables(summary: dict[str, Any]) -> list[Table]:
    """Acc_RES beside Acc_TS with their denominators, and the items that pass on the fixture but
    fail on a suite database when there are any (no table when the run judged no suite)."""
    o = summary["overall"]
    if not o.get("ts_items"):
        return []
    ts_n, ev = o["ts_items"], o["evaluated"]
    ts_strict = o.get("ts_strict", 0)
    counts = Table(
        "Acc_RES and Acc_TS: Acc_TS counts only the items with a suite (TS n); the rest have "
        "none (a multi-statement source, or no suite built)",
        ("metric", "passed", "n", "%", "95% CI", "n counts"),
        [
            _rate_row("Acc_RES strict", o["strict"], ev, "items judged on the fixture"),
            _rate_row("Acc_RES strict, items with a suite", ts_strict, ts_n, "the items of TS n"),
            _rate_row(
                "Acc_TS",
                o["ts"],
                ts_n,
                "items with a suite: the fixture and every suite database match",
            ),
            ("without a suite", ev - ts_n, ev, _share(ev - ts_n, ev), "–", "not in TS n"),
        ],
    )
    only = summary.get("suite_only", [])
    failed = Table(
        f"Passed on the fixture, failed on the suite ({len(only)} items)",
        ("item", "pair", "database", "seed", "reason", "first differing cell", "detail"),
        [
            (
                f["id"],
                f["pair"],
                f["database"],
                "–" if f["seed"] is None else f["seed"],
                f["reason"],
                _cell(f["cell"]),
                f["detail"],
            )
            for f in only
        ],
    )
    return [counts, failed] if only else [counts]  # "(0 items)" in a title says enough


BREAKDOWNS = (
    ("by_pair", "By dialect pair"),
    ("by_type", "By translation type"),
    (
        "by_level",
        "By verdict level (bounded-equivalent: proved equal up "
        "to a bound; suite: the fixture and k generated databases; "
        "fixture: one database; not assessed: no engine or the "
        "source failed)",
    ),
    ("by_tokens_quartile", "By token length (quartiles of this run's items)"),
    ("by_tokens_range", "By token length (fixed ranges, tiktoken cl100k)"),
)


def summary_tables(summary: dict[str, Any]) -> list[Table]:
    """The tables of one run's summary, in reading order."""
    return [
        *_score_tables(summary),
        *level_tables(summary),
        *_status_tables(summary),
        *_cost_tables(summary),
    ]


def _score_tables(summary: dict[str, Any]) -> list[Table]:
    """The scores: overall, on the suites, without circular items, and by each breakdown."""
    tables = [
        Table("Overall", SCORE_HEADERS, [_score_row("all", summary["overall"])], SCORE_NOTE),
        *suite_tables(summary),
    ]
    circular = summary.get("circular")
    if circular:
        tables.append(
            Table(
                f"Circular: the translator under test wrote {circular['annotated_by_translator']} "
                f"of the {circular['items']} items' references — scores without them",
                SCORE_HEADERS,
                [_score_row("not annotated by it", circular["rest"])],
                SCORE_NOTE,
            )
        )
    for key, title in BREAKDOWNS:
        tables.append(
            Table(
                title,
                SCORE_HEADERS,
                [_score_row(k, v) for k, v in summary.get(key, {}).items()],
                SCORE_NOTE,
            )
        )
    return tables


def _status_tables(summary: dict[str, Any]) -> list[Table]:
    """Strict verdicts by reason, and how translation and execution ended."""
    evaluated = summary["overall"]["evaluated"]
    reasons = summary["reasons"]["strict"]
    ex_items = summary["overall"]["ex_items"]
    return [
        Table(
            f"Strict verdicts by reason (the {evaluated} items of RES n)",
            ("reason", "items", f"% of {evaluated}"),
            [(k, v, _share(v, evaluated)) for k, v in reasons.items()],
        ),
        Table(
            f"Translation status (all {summary['overall']['items']} items)",
            ("status", "items"),
            list(summary["translation_status"].items()),
        ),
        Table(
            f"Execution of translations (the {ex_items} items of EX n)",
            ("status", "items"),
            list(summary["execution_status"].items()),
        ),
    ]


def _cost_tables(summary: dict[str, Any]) -> list[Table]:
    """The suites' engine time, reliability, the cost of a verified translation, model usage."""
    tables = []
    cost = summary.get("suite_cost", {})
    if cost.get("databases"):
        tables.append(
            Table(
                "Test suites (extra engine time)",
                ("databases judged", "seconds"),
                [(cost["databases"], cost["seconds"])],
            )
        )
    if summary.get("reliability"):
        tables.append(reliability_table(summary["reliability"]))
    verified = summary.get("verified_cost")
    if verified:
        tables.append(verified_cost_table(verified))
    usage = summary.get("usage", {})
    if usage.get("calls"):
        tables.append(_usage_table(usage))
    return tables


def _usage_table(usage: dict[str, Any]) -> Table:
    cost = f"{usage['cost']:.6f}"
    if usage.get("unpriced"):
        known = cost if usage["cost"] else "unknown"
        cost = f"{known} ({usage['unpriced']} items without a price; --price IN,OUT)"
    return Table(
        "Model usage (cost in USD at the provider's prices; cache hits were free)",
        ("calls", "cache hits", "tokens in", "tokens out", "cost"),
        [(usage["calls"], usage["cache_hits"], usage["tokens_in"], usage["tokens_out"], cost)],
    )


def level_tables(summary: dict[str, Any]) -> list[Table]:
    """What the strong levels rest on (the suites' neighbour kill rate, the bounds proved) and
    the run's witnesses (once ``parrot witness RUN --all`` ran), where the summary has them."""
    out = []
    levels = summary.get("levels")
    if levels and (levels["suite"]["items"] or levels["bounded-equivalent"]["items"]):
        s, b = levels["suite"], levels["bounded-equivalent"]
        kill = (
            "–"
            if s["kill_rate"] is None
            else f"{s['killed']}/{s['neighbours']} neighbours killed, {s['kill_rate']:.1f}% "
            f"{interval_text(s['ci95'])} (the {s['measured']} items whose suite "
            "records them)"
        )
        bounds = ", ".join(f"k={k}: {n}" for k, n in b["by_bound"].items()) or "–"
        out.append(
            Table(
                "What the strong levels rest on",
                ("level", "items", "strength"),
                [("suite", s["items"], kill), ("bounded-equivalent", b["items"], bounds)],
            )
        )
    w = summary.get("witnesses")
    if w:

        def median(key: str) -> str:
            return "–" if w[key] is None else f"{w[key]:g}"

        out.append(
            Table(
                "Witnesses (parrot witness RUN --all: the smallest database on which a rejected "
                "translation still differs)",
                (
                    "rejected",
                    "shrunk",
                    "with a witness",
                    "1-minimal",
                    "median rows",
                    "median rows before",
                    "median executions",
                    "median seconds",
                ),
                [
                    (
                        w["rejected"],
                        w["shrunk"],
                        w["with_witness"],
                        w["minimal"],
                        median("median_size"),
                        median("median_rows_before"),
                        median("median_executions"),
                        median("median_seconds"),
                    )
                ],
            )
        )
    return out


RELIABILITY_TITLE = "Reliability: strictly right / judged [95% CI] by construct and dialect pair"


def reliability_table(matrix: dict[str, dict[str, dict[str, Any]]]) -> Table:
    """Construct × dialect pair: strictly right / judged and the Wilson interval in percent."""
    pairs = sorted({p for cells in matrix.values() for p in cells})
    rows = [
        (
            construct,
            *(
                "–"
                if (c := cells.get(p)) is None
                else f"{c['strict']}/{c['evaluated']} {interval_text(c['ci95'])}"
                for p in pairs
            ),
        )
        for construct, cells in matrix.items()
    ]
    return Table(RELIABILITY_TITLE, ("construct", *pairs), rows)


def _amount(value: float | None, digits: int) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


COST_HEADERS = ("tokens", "USD", "seconds")  # of translating (in + out tokens; latency)


def _costs(row: dict[str, float | None]) -> tuple[str, str, str]:
    return (_amount(row["tokens"], 1), _amount(row["cost"], 6), _amount(row["latency"], 3))


def verified_cost_table(verified: dict[str, Any]) -> Table:
    """Translation tokens, money and latency per item and per strictly-right item."""
    return Table(
        "Cost of a verified translation (– : not recorded by this translator)",
        ("per", "n", *COST_HEADERS),
        [
            ("item", verified["items"], *_costs(verified["per_item"])),
            ("strictly-right item", verified["strict"], *_costs(verified["per_strict"])),
        ],
    )


LEADERBOARD_INTERVALS = ("ex", "strict", "ts", "normalized", "multiset", "syn")
LEADERBOARD_LEFT_OUT = ("wrong", "timeout", "strict≠∅ %", "≠∅ n")  # of the score columns
LEADERBOARD_HEADERS = (
    "rank",
    "model",
    "dataset",
    *(h for h in _SCORE_COLUMNS if h not in LEADERBOARD_LEFT_OUT),
    *(h for k, h in INTERVALS if k in LEADERBOARD_INTERVALS),
    "vs rank above",
    *(f"{h} / strict item" for h in COST_HEADERS),
    "run",
    "flag",
)


Member = tuple[str, dict[str, Any], dict[str, Any]]  # (run dir, manifest, summary)


def leaderboard_groups(
    runs: list[tuple[str, dict[str, Any], list[Outcome]]],
) -> list[tuple[str, list[Member], dict[str, str]]]:
    """(title, members, flags) per comparable group of (run dir, manifest, records) runs.

    Runs are ranked only against runs of the same dataset SHA-256, the same item ids and the
    same verdict rules (the manifest's ``comparator``, :data:`SEMANTICS_VERSION`); a run
    made with ``--limit``/``--pairs`` is titled a subset, and one whose every item failed to
    translate with one error message is flagged (run dir → flag) as a configuration error.
    Each member's summary gets ``versus_above``: McNemar's exact test against the run ranked
    just above it, marked ``not significant`` when p ≥ :data:`~parrot.report.stats.ALPHA`.
    """
    groups: dict[tuple[str, frozenset[str], int], list[Member]] = {}
    flags: dict[str, str] = {}
    for path, manifest, records in runs:
        key = (
            str(manifest.get("dataset", {}).get("sha256", "?")),
            frozenset(str(r["id"]) for r in records),
            int(manifest.get("comparator", 1)),
        )
        summary = summarize(records, manifest.get("translator"))
        groups.setdefault(key, []).append((path, manifest, summary))
        if summary.get("circular"):
            flags[path] = _circular_flag(summary["circular"])
        errors = {
            r["translation"].get("error") for r in records if r["translation"]["status"] == "error"
        }
        failed = sum(1 for r in records if r["translation"]["status"] == "error")
        if records and failed == len(records) and len(errors) == 1:
            flags[path] = f"config error: {str(next(iter(errors)))[:60]}"
    outcomes = {path: records for path, _, records in runs}
    out = []
    several_rules = len({rules for _, _, rules in groups}) > 1
    for (sha, ids, rules), members in groups.items():
        settings = members[0][1].get("settings", {})
        subset = [f"--{k} {settings[k]}" for k in ("limit", "pairs") if settings.get(k)]
        title = (
            f"Leaderboard — dataset sha256 {sha[:12]} — {len(ids)} items"
            + (f" — subset: {' '.join(subset)}" if subset else "")
            + (f" — verdict rules v{rules}" if several_rules else "")
        )
        versus = _versus_above(members, outcomes)
        for path, _, summary in members:  # relative to the group: set here, not by summarize
            summary["versus_above"] = versus.get(path, "–")
        out.append((title, members, flags))
    return out


def _versus_above(members: list[Member], outcomes: dict[str, list[Outcome]]) -> dict[str, str]:
    """Run dir → how it differs from the run ranked just above it in strict Acc_RES: McNemar's
    exact p-value over the items both judged, marked ``not significant`` when p ≥ ALPHA."""
    ranked = [path for path, _, _ in _ranked(members)]
    out = {}
    for above, below in itertools.pairwise(ranked):
        a = {str(r["id"]): right(r) for r in outcomes[above]}
        b = {str(r["id"]): right(r) for r in outcomes[below]}
        pairs = [(a[i], b[i]) for i in a if a[i] is not None and b.get(i) is not None]
        broken = sum(1 for x, y in pairs if x and not y)
        fixed = sum(1 for x, y in pairs if y and not x)
        p = mcnemar_exact(broken, fixed)
        out[below] = (
            f"{'not significant' if p >= ALPHA else 'significant'}: McNemar p={p:.3g} "
            f"({broken} right only above, {fixed} only here, {len(pairs)} paired)"
        )
    return out


def _ranked(members: list[Member]) -> list[Member]:
    """Runs best strict Acc_RES first (the leaderboard's order)."""
    return sorted(members, key=lambda r: -(r[2]["overall"]["acc_strict"] or 0.0))


def leaderboards(runs: list[tuple[str, dict[str, Any], list[Outcome]]]) -> list[Table]:
    """One leaderboard table per comparable group (:func:`leaderboard_groups`)."""
    tables = []
    for title, members, flags in leaderboard_groups(runs):
        table = leaderboard_table(members, flags)
        tables.append(Table(title, table.headers, table.rows, table.note))
    return tables


def leaderboard_table(runs: list[Member], flags: dict[str, str] | None = None) -> Table:
    """One row per run (run dir, manifest, summary), best strict Acc_RES first."""

    def model(manifest: dict[str, Any]) -> str:
        t = manifest.get("translator", {})
        extra = ", ".join(f"{k}={v}" for k, v in t.items() if k != "name")
        return str(t.get("name", "?")) + (f" ({extra})" if extra else "")

    rows = []
    keys = [k for k, _ in INTERVALS if k in LEADERBOARD_INTERVALS]
    for rank, (path, manifest, summary) in enumerate(_ranked(runs), 1):
        s = summary["overall"]
        per_strict = summary.get("verified_cost", {}).get(
            "per_strict", dict.fromkeys(("tokens", "cost", "latency"))
        )
        rows.append(
            (
                rank,
                model(manifest),
                manifest.get("dataset", {}).get("name", "?"),
                *(v for h, v in _score_cells(s).items() if h not in LEADERBOARD_LEFT_OUT),
                *_intervals(s, keys),
                summary.get("versus_above", "–"),
                *_costs(per_strict),
                path,
                (flags or {}).get(path, ""),
            )
        )
    return Table("Leaderboard", LEADERBOARD_HEADERS, rows, SCORE_NOTE)


def to_markdown(tables: list[Table]) -> str:
    out = []
    noted: set[str] = set()  # a note is said under the first table that has it
    for t in tables:
        out.append(f"### {t.title}\n")
        if t.note and t.note not in noted:
            out.append(f"{t.note}\n")
            noted.add(t.note)
        out.append("| " + " | ".join(t.headers) + " |")
        out.append("|" + "|".join("---" for _ in t.headers) + "|")
        out.extend("| " + " | ".join(str(c) for c in row) + " |" for row in t.rows)
        out.append("")
    return "\n".join(out)


def to_csv(tables: list[Table]) -> str:
    """Long CSV: each table starts with a header row; every row starts with its table title."""
    buf = io.StringIO()
    writer = csv.writer(buf)
    for t in tables:
        writer.writerow((t.title, *t.headers))
        for row in t.rows:
            writer.writerow((t.title, *row))
    return buf.getvalue()


def to_json(tables: list[Table]) -> str:
    return json.dumps(
        [
            {
                "title": t.title,
                **({"note": t.note} if t.note else {}),
                "rows": [dict(zip(t.headers, r, strict=True)) for r in t.rows],
            }
            for t in tables
        ],
        indent=2,
        ensure_ascii=False,
    )


def print_rich(tables: list[Table], console: Any) -> None:
    """Rich tables for a terminal: the group column (a dialect pair, a type) is never cut,
    percentages are said once in the title, each note of subsets and denominators once, and the
    n columns are left to ``python -m parrot.report``, so 80 columns suffice."""
    from rich.table import Table as RichTable

    noted: set[str] = set()  # a note is said under the first table that has it
    for t in tables:
        if t.title == RELIABILITY_TITLE:  # a matrix wider than a terminal: left to the report
            continue
        keep = [i for i, h in enumerate(t.headers) if h not in TERMINAL_HIDDEN]
        percent = any(t.headers[i].endswith(" %") for i in keep[1:])
        rt = RichTable(
            title=t.title + (" (%)" if percent else ""),
            title_justify="left",
            box=None,
            pad_edge=False,
            padding=(0, 1, 0, 0),
            header_style="bold underline",
            caption=(t.note + " (the n columns: --format md)")
            if t.note and t.note not in noted
            else None,
            caption_justify="left",
        )
        noted.add(t.note)
        for i in keep:
            h = TERMINAL_NAMES.get(t.headers[i], t.headers[i].removesuffix(" %"))
            if i == 0:
                width = max([len(h), *(len(str(row[0])) for row in t.rows)])
                rt.add_column(h, justify="left", no_wrap=True, min_width=min(width, 32))
            else:
                rt.add_column(h, justify="right", no_wrap=True)
        for row in t.rows:
            rt.add_row(*(str(row[i]) for i in keep))
        console.print(rt)


def render(tables: list[Table], fmt: str) -> str:
    return {"md": to_markdown, "csv": to_csv, "json": to_json}[fmt](tables)
