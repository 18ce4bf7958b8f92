"""Self-contained HTML reports: one page per run (headline, manifest, plots with their tables,
a drill-down item table and an item view) and one page per leaderboard.

Everything is inlined (styles, scripts, SVG plots and the items), so a page opens from disk with
no network. The items travel gzip-compressed and base64-encoded; the browser's own
``DecompressionStream`` unpacks them, and the item table shows one page of rows at a time, so
runs of 50 000 items stay usable.
"""

from __future__ import annotations

import base64
import gzip
import json
from collections import Counter
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import quote

import jinja2
from markupsafe import escape

from parrot.api.records import Outcome, WitnessRecord
from parrot.api.results import read_witnesses
from parrot.report import html_plots as plots
from parrot.report.analysis import analysis_tables, run_context
from parrot.report.metrics import constructs, right, run_summary, source_sql
from parrot.report.render import (
    Table,
    leaderboard_groups,
    leaderboard_table,
    suite_tables,
    summary_tables,
)
from parrot.report.stats import interval_text, wilson

REPORT = "report.html"
Record = Outcome
Run = tuple[str, dict[str, Any], list[Record]]  # (run dir, manifest, records)
WORST = 10  # constructs in the "wrong most often" table
WORST_ITEMS = 5  # wrong items linked per construct


@dataclass(frozen=True)
class Metric:
    """One headline number: its summary key, value (percent) and denominator."""

    key: str
    label: str
    value: float | None
    hits: int
    total: int
    subset: str  # what the denominator counts

    @property
    def ci(self) -> str:
        """The 95% Wilson interval of ``hits``/``total`` (``–`` without a denominator)."""
        return interval_text(wilson(self.hits, self.total))


@dataclass(frozen=True)
class Section:
    """A plot with the tables it shows; ``link`` (a format string of the first cell) makes each
    row's label a filter of the item table."""

    title: str
    svg: str
    tables: tuple[Table, ...]
    link: str | None = None


def _numeric(value: Any) -> bool:
    """A table cell that is a number, or the "–" of one not measured (aligned right)."""
    if isinstance(value, int | float) or value == "–":
        return True
    try:
        float(str(value))
    except ValueError:
        return False
    return True


def _env() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("parrot.report", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.tests["numeric"] = _numeric
    return env


def _asset(name: str) -> str:
    return resources.files("parrot.report").joinpath("templates", name).read_text("utf-8")


def _pack(data: Any) -> str:
    raw = json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    return base64.b64encode(gzip.compress(raw, compresslevel=9, mtime=0)).decode("ascii")


def headline(overall: dict[str, Any]) -> list[Metric]:
    """Acc_EX, Acc_RES (strict, normalized, multiset, strict on non-empty), Acc_TS and Acc_SYN
    when measured, each with its denominator and the subset it counts."""
    ev = overall["evaluated"]
    judged = "items judged on both engines"
    out = [
        Metric(
            "acc_ex",
            "Acc_EX",
            overall["acc_ex"],
            overall["ex"],
            overall["ex_items"],
            "translations that could run (target engine here, source ok)",
        ),
        Metric(
            "acc_strict", "Acc_RES strict", overall["acc_strict"], overall["strict"], ev, judged
        ),
    ]
    if overall.get("ts_items"):
        out.append(
            Metric(
                "acc_ts",
                "Acc_TS",
                overall["acc_ts"],
                overall["ts"],
                overall["ts_items"],
                "judged items with a test suite",
            )
        )
    out += [
        Metric(
            "acc_normalized",
            "normalized",
            overall["acc_normalized"],
            overall["normalized"],
            ev,
            judged,
        ),
        Metric(
            "acc_multiset", "multiset", overall["acc_multiset"], overall["multiset"], ev, judged
        ),
        Metric(
            "acc_strict_nonempty",
            "strict, non-empty gold",
            overall["acc_strict_nonempty"],
            overall["strict_nonempty"],
            overall["nonempty"],
            "judged items whose source returned rows",
        ),
    ]
    if overall.get("syn_checked"):
        out.append(
            Metric(
                "acc_syn",
                "Acc_SYN",
                overall["acc_syn"],
                overall["syn"],
                overall["syn_checked"],
                "translations checked by the target's grammar (another subset)",
            )
        )
    return out


def _reasons_by_pair(records: list[Record]) -> dict[str, dict[str, int]]:
    out: dict[str, Counter[str]] = {}
    for r in records:
        if r["gold"]["status"] == "ok":
            pair = f"{r['source_dialect']}→{r['target_dialect']}"
            out.setdefault(pair, Counter())[r["verdicts"]["strict"]["reason"]] += 1
    return {k: dict(out[k].most_common()) for k in sorted(out)}


def worst_constructs(
    records: list[Record],
    sources: dict[str, str],
    witnessed: dict[str, WitnessRecord],
    limit: int = WORST,
) -> str:
    """The constructs the translator gets wrong most often (by the lower bound of the Wilson
    interval of their error rate), each with its counts and interval and links to its wrong
    items, those with a witness first (their size in rows)."""
    wrong: dict[str, list[str]] = {}
    judged: Counter[str] = Counter()
    for r in records:
        if (ok := right(r)) is None:
            continue
        for c in constructs(r, sources):
            judged[c] += 1
            if not ok:
                wrong.setdefault(c, []).append(str(r["id"]))
    bounds = {c: wilson(len(wrong[c]), judged[c]) for c in wrong}
    # most often = the highest error rate the counts support: the Wilson interval's lower bound
    # (a construct wrong on 2 of 2 items ranks below one wrong on 40 of 50)
    ranked = sorted(wrong, key=lambda c: (-(bounds[c] or (0.0, 0.0))[0], -len(wrong[c]), c))
    ranked = ranked[:limit]
    rows = []
    for c in ranked:
        ids = sorted(wrong[c], key=lambda i: (i not in witnessed, i))[:WORST_ITEMS]
        links = ", ".join(
            f'<a href="#item={quote(i)}">{escape(i)}</a>'
            + (f" (witness: {witnessed[i]['size']} rows)" if i in witnessed else "")
            for i in ids
        )
        more = len(wrong[c]) - len(ids)
        kind, _, value = c.partition(": ")
        every = f'<a href="#{kind}={quote(value)}&amp;strict=fail">{more} more</a>'
        rows.append(
            f'<tr><th scope="row">{escape(c)}</th><td class="num">{len(wrong[c])}'
            f'/{judged[c]}</td><td class="num">'
            f"{interval_text(bounds[c])}</td><td>{links}"
            f"{f' and {every}' if more > 0 else ''}</td></tr>"
        )
    if not rows:
        return ""
    return (
        '<div class="scroll"><table id="worst-constructs"><caption>constructs by the '
        "lower bound of their error rate's 95% interval (the highest rate the counts "
        "support); the wrong items with a witness first</caption><thead><tr>"
        "<th>construct</th><th>wrong / judged</th><th>error 95% CI</th><th>wrong items</th>"
        f"</tr></thead><tbody>{''.join(rows)}</tbody></table></div>"
    )


# The strict score by one field, as bars: the section's title, the summary's key, the bars'
# axis and title, how the run's table's title starts, and the item filter a label links to.
# A literal data table, one section per row:
# fmt: off
_BARS = (
    ("Strict Acc_RES by translation type",
     "by_type", "types", "strict by type", "By translation type", "#type={}"),
    ("By verdict level (what each verdict rests on)",
     "by_level", "levels", "strict by verdict level", "By verdict level", "#level={}"),
    ("By token length (fixed ranges)",
     "by_tokens_range", "ranges", "strict by token range",
     "By token length (fixed ranges, tiktoken cl100k)", None),
    ("By token length (quartiles of this run)",
     "by_tokens_quartile", "quartiles", "strict by quartile",
     "By token length (quartiles of this run's items)", None),
)
# fmt: on


def _breakdowns(
    summary: dict[str, Any], titled: list[Table], by_reason: dict[str, dict[str, int]]
) -> list[Section]:
    """The run's strict score by pair, type, level, token length and reason, and its statuses."""

    def table(start: str) -> Table:  # the run's table whose title starts so (titles carry n)
        return next(t for t in titled if t.title.startswith(start))

    reasons = sorted({k for c in by_reason.values() for k in c}, key=lambda k: (k != "match", k))
    reason_table = Table(
        "Strict verdicts by reason and dialect pair",
        ("pair", *reasons),
        [(p, *(c.get(k, 0) for k in reasons)) for p, c in by_reason.items()],
    )
    return [
        Section(
            "Strict Acc_RES by dialect pair (source × target; click a cell for its failing items)",
            plots.heatmap(summary["by_pair"]),
            (table("By dialect pair"),),
            "#pair={}&strict=fail",
        ),
        *(
            Section(title, plots.bars(summary[key], axis, plot), (table(start),), link)
            for title, key, axis, plot, start, link in _BARS
        ),
        Section(
            "Strict verdict reasons",
            plots.stacked_reasons(by_reason),
            (table("Strict verdicts by reason"), reason_table),
            "#reason={}",
        ),
        Section(
            "Status",
            plots.status(summary["translation_status"], summary["execution_status"]),
            (table("Translation status"), table("Execution of translations")),
        ),
    ]


def _closing_sections(
    summary: dict[str, Any], titled: list[Table], records: list[Record]
) -> list[Section]:
    """Strength, witnesses, reliability, cost and (when a model was asked) latency."""
    out = [
        Section("Strength of the suite and bounded-equivalent verdicts", "", (t,))
        for t in titled
        if t.title.startswith("What the strong levels")
    ]
    out += [Section("Witnesses", "", (t,)) for t in titled if t.title.startswith("Witnesses")]
    if summary.get("reliability"):
        out.append(
            Section(
                "Reliability: strict Acc_RES by construct and dialect pair",
                plots.reliability_heatmap(summary["reliability"]),
                (),
            )
        )
    out += [
        Section(t.title.split(":")[0], "", (t,))
        for t in titled
        if t.title.startswith("Cost of a verified translation")
    ]
    usage = summary.get("usage", {})
    latencies = [
        float(t) for r in records if isinstance(t := r["translation"].get("latency"), int | float)
    ]
    if usage.get("calls") and latencies:
        usage_tables = [t for t in titled if t.title.startswith("Model usage")]
        out.append(Section("Cost and latency", plots.latency(latencies), tuple(usage_tables)))
    return out


def _sections(summary: dict[str, Any], records: list[Record]) -> list[Section]:
    titled = summary_tables(summary)
    out = _breakdowns(summary, titled, _reasons_by_pair(records))
    suite = suite_tables(summary)
    if suite:  # no plot: the denominators, then the items each with its first separating database
        out.insert(1, Section("Test suites: Acc_RES and Acc_TS", "", (suite[0],)))
        for failed in suite[1:]:
            out.insert(
                2, Section("Items that fail only on a suite database", "", (failed,), "#item={}")
            )
    return out + _closing_sections(summary, titled, records)


def run_page(
    path: str,
    manifest: dict[str, Any],
    records: list[Record],
    analysis: list[Table] | None = None,
    sources: dict[str, str] | None = None,
    summary: dict[str, Any] | None = None,
) -> str:
    """The HTML page of one run; ``analysis`` defaults to the cross-dialect tables of
    :mod:`parrot.report.analysis` (none unless the run answers questions in several dialects);
    ``sources`` (id → source SQL) defaults to those of the run's dataset file, read again;
    ``summary``: the run's :func:`run_summary` of these records, when the caller has it."""
    lines = read_witnesses(Path(path))
    missing = None
    if sources is None:
        sources, missing = source_sql(manifest)
    if summary is None:
        summary = run_summary(Path(path), manifest, records, sources)
    found = {i: w for i, line in lines.items() if (w := line["witness"]) is not None}
    items = [
        {
            **r,
            "source_sql": sources.get(str(r["id"])),
            "features": [
                c.split(": ", 1)[1] for c in constructs(r, sources) if c.startswith("feature: ")
            ],
            **({"witness": found[str(r["id"])]} if str(r["id"]) in found else {}),
        }
        for r in records
    ]
    sections = _sections(summary, records)
    worst = worst_constructs(records, sources, found)
    if worst:
        sections.append(
            Section("Where the translator is wrong most often, with witnesses", worst, ())
        )
    return (
        _env()
        .get_template("run.html.j2")
        .render(
            title=f"parrot — {manifest.get('translator', {}).get('name', '?')} on "
            f"{manifest.get('dataset', {}).get('name', '?')}",
            path=path,
            manifest=manifest,
            overall=summary["overall"],
            metrics=headline(summary["overall"]),
            sections=sections,
            source_missing=missing,
            data=_pack({"items": items}),
            analysis=(
                analysis_tables(
                    [(path, records)], context={path: run_context(Path(path), manifest)}
                )
                if analysis is None
                else analysis
            ),
            css=_asset("report.css") + plots.heat_css(),
            js=_asset("sortable.js") + _asset("run.js"),
        )
    )


def _score_columns(
    members: list[tuple[str, dict[str, Any], dict[str, Any]]], key: str, ranked: list[str]
) -> Table:
    """Strict Acc_RES per group (pair or type) for each run, rows in leaderboard order."""
    by_path = {p: s for p, _, s in members}
    groups = sorted({g for _, _, s in members for g in s[key]})
    rows = []
    for path in ranked:
        scores = by_path[path][key]
        rows.append(
            (
                path,
                *(
                    "–"
                    if g not in scores or scores[g]["acc_strict"] is None
                    else f"{scores[g]['acc_strict']:.1f}"
                    for g in groups
                ),
            )
        )
    return Table(
        f"strict % by {'dialect pair' if key == 'by_pair' else 'translation type'}",
        ("run", *groups),
        rows,
    )


COST_AXES = (("cost", "USD"), ("latency", "seconds of translation"), ("tokens", "tokens"))


def cost_points(
    members: list[tuple[str, dict[str, Any], dict[str, Any]]], ranked: list[str]
) -> tuple[list[tuple[str, float, Any, float]], str, list[str]]:
    """The accuracy-vs-cost plot's points: per run, strict Acc_RES, its interval and the cost of
    a strictly-right item, in the first unit (USD, then seconds, then tokens) that some run of
    the group records; and the runs left out (no strictly-right item, or that unit unrecorded)."""
    by_path = {p: s for p, _, s in members}

    def per_strict(key: str) -> dict[str, Any]:
        return {
            p: (by_path[p].get("verified_cost") or {}).get("per_strict", {}).get(key)
            for p in ranked
        }

    axis = next(
        ((k, u) for k, u in COST_AXES if any(v is not None for v in per_strict(k).values())), None
    )
    if axis is None:
        return [], "", ranked
    per, unit = per_strict(axis[0]), axis[1]
    points, left = [], []
    for p in ranked:
        o = by_path[p]["overall"]
        if per[p] is None or o["acc_strict"] is None:
            left.append(p)
        else:
            points.append(
                (Path(p).name, o["acc_strict"], (o.get("ci95") or {}).get("strict"), float(per[p]))
            )
    return points, unit, left


def leaderboard_page(runs: list[Run], analysis: list[Table] | None = None) -> str:
    """The HTML leaderboard of several runs: one section per comparable group (the groups and
    rows of ``python -m parrot.report … --format md``), each with per-pair and per-type
    columns, then the cross-dialect analysis (κ, ρ, DRS, consistency) when there is one."""
    groups = []
    for title, members, flags in leaderboard_groups(runs):
        table = leaderboard_table(members, flags)
        ranked = [str(row[table.headers.index("run")]) for row in table.rows]
        points, unit, left = cost_points(members, ranked)
        plot = plots.accuracy_cost(points, unit) if points else ""
        note = (
            (
                f"not plotted (no strictly-right item, or no {unit or 'cost'} recorded): "
                + ", ".join(left)
            )
            if left
            else ""
        )
        groups.append(
            (
                title,
                table,
                _score_columns(members, "by_pair", ranked),
                _score_columns(members, "by_type", ranked),
                plot,
                note,
            )
        )
    return (
        _env()
        .get_template("leaderboard.html.j2")
        .render(
            title="parrot leaderboard",
            groups=groups,
            css=_asset("report.css"),
            analysis=(
                analysis_tables([(p, r) for p, _, r in runs]) if analysis is None else analysis
            ),
            js=_asset("sortable.js"),
        )
    )


def write_run_report(
    run_dir: Path,
    manifest: dict[str, Any],
    records: list[Record],
    out: Path | None = None,
    analysis: list[Table] | None = None,
    sources: dict[str, str] | None = None,
    summary: dict[str, Any] | None = None,
) -> Path:
    """Write a run's page (default ``RUN_DIR/report.html``) and return its path; ``sources``:
    id → source SQL when the caller holds the run's dataset (else its file is read again);
    ``summary``: the run's :func:`run_summary`, when the caller has it (else computed)."""
    target = out or run_dir / REPORT
    page = run_page(str(run_dir), manifest, records, analysis, sources, summary)
    target.write_text(page, encoding="utf-8")
    return target
