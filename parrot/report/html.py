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

import jinja2

from parrot.api.records import Outcome
from parrot.datasets import DatasetError, load_dataset
from parrot.report import html_plots as plots
from parrot.report.analysis import analysis_tables, run_context
from parrot.report.metrics import summarize
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
    env = jinja2.Environment(loader=jinja2.PackageLoader("parrot.report", "templates"),
                             autoescape=True, undefined=jinja2.StrictUndefined,
                             trim_blocks=True, lstrip_blocks=True)
    env.tests["numeric"] = _numeric
    return env


def _asset(name: str) -> str:
    return resources.files("parrot.report").joinpath("templates", name).read_text("utf-8")


def _pack(data: Any) -> str:
    raw = json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    return base64.b64encode(gzip.compress(raw, compresslevel=9, mtime=0)).decode("ascii")


def source_sql(manifest: dict[str, Any]) -> tuple[dict[str, str], str | None]:
    """The source SQL of each item id from the run's dataset file, or a note saying why not
    (the file is gone, or its SHA-256 is no longer the one the run recorded)."""
    ds = manifest.get("dataset", {})
    path = ds.get("path")
    if not path:
        return {}, "the manifest names no dataset file"
    try:
        dataset = load_dataset(path, count_tokens=False, strict=False)
    except (DatasetError, OSError) as exc:
        return {}, f"dataset {path} not readable here: {str(exc).splitlines()[0]}"
    if dataset.sha256 != ds.get("sha256"):
        return {}, f"dataset {path} changed since the run (SHA-256 differs)"
    return {i.id: i.source_sql for i in dataset.items}, None


def headline(overall: dict[str, Any]) -> list[Metric]:
    """Acc_EX, Acc_RES (strict, normalized, multiset, strict on non-empty), Acc_TS and Acc_SYN
    when measured, each with its denominator and the subset it counts."""
    ev = overall["evaluated"]
    judged = "items judged on both engines"
    out = [Metric("acc_ex", "Acc_EX", overall["acc_ex"], overall["ex"], overall["ex_items"],
                  "translations that could run (target engine here, source ok)"),
           Metric("acc_strict", "Acc_RES strict", overall["acc_strict"], overall["strict"], ev,
                  judged)]
    if overall.get("ts_items"):
        out.append(Metric("acc_ts", "Acc_TS", overall["acc_ts"], overall["ts"],
                          overall["ts_items"], "judged items with a test suite"))
    out += [Metric("acc_normalized", "normalized", overall["acc_normalized"],
                   overall["normalized"], ev, judged),
            Metric("acc_multiset", "multiset", overall["acc_multiset"], overall["multiset"], ev,
                   judged),
            Metric("acc_strict_nonempty", "strict, non-empty gold", overall["acc_strict_nonempty"],
                   overall["strict_nonempty"], overall["nonempty"],
                   "judged items whose source returned rows")]
    if overall.get("syn_checked"):
        out.append(Metric("acc_syn", "Acc_SYN", overall["acc_syn"], overall["syn"],
                          overall["syn_checked"],
                          "translations checked by the target's grammar (another subset)"))
    return out


def _reasons_by_pair(records: list[Record]) -> dict[str, dict[str, int]]:
    out: dict[str, Counter[str]] = {}
    for r in records:
        if r["gold"]["status"] == "ok":
            pair = f"{r['source_dialect']}→{r['target_dialect']}"
            out.setdefault(pair, Counter())[r["verdicts"]["strict"]["reason"]] += 1
    return {k: dict(out[k].most_common()) for k in sorted(out)}


def _sections(summary: dict[str, Any], records: list[Record]) -> list[Section]:
    titled = summary_tables(summary)

    def table(start: str) -> Table:  # the run's table whose title starts so (titles carry n)
        return next(t for t in titled if t.title.startswith(start))

    by_reason = _reasons_by_pair(records)
    reasons = sorted({k for c in by_reason.values() for k in c}, key=lambda k: (k != "match", k))
    reason_table = Table("Strict verdicts by reason and dialect pair", ("pair", *reasons),
                         [(p, *(c.get(k, 0) for k in reasons)) for p, c in by_reason.items()])
    out = [
        Section("Strict Acc_RES by dialect pair (source × target; click a cell for its "
                "failing items)", plots.heatmap(summary["by_pair"]),
                (table("By dialect pair"),), "#pair={}&strict=fail"),
        Section("Strict Acc_RES by translation type",
                plots.bars(summary["by_type"], "types", "strict by type"),
                (table("By translation type"),), "#type={}"),
        Section("By verdict level (what each verdict rests on)",
                plots.bars(summary["by_level"], "levels", "strict by verdict level"),
                (table("By verdict level"),), "#level={}"),
        Section("By token length (fixed ranges)",
                plots.bars(summary["by_tokens_range"], "ranges", "strict by token range"),
                (table("By token length (fixed ranges, tiktoken cl100k)"),)),
        Section("By token length (quartiles of this run)",
                plots.bars(summary["by_tokens_quartile"], "quartiles", "strict by quartile"),
                (table("By token length (quartiles of this run's items)"),)),
        Section("Strict verdict reasons", plots.stacked_reasons(by_reason),
                (table("Strict verdicts by reason"), reason_table), "#reason={}"),
        Section("Status", plots.status(summary["translation_status"],
                                       summary["execution_status"]),
                (table("Translation status"), table("Execution of translations"))),
    ]
    suite = suite_tables(summary)
    if suite:  # no plot: the denominators, then the items each with its first separating database
        out.insert(1, Section("Test suites: Acc_RES and Acc_TS", "", (suite[0],)))
        for failed in suite[1:]:
            out.insert(2, Section("Items that fail only on a suite database", "", (failed,),
                                  "#item={}"))
    out += [Section(t.title.split(":")[0], "", (t,)) for t in titled
            if t.title.startswith(("Reliability", "Cost of a verified translation"))]
    usage = summary.get("usage", {})
    latencies = [float(t) for r in records
                 if isinstance(t := r["translation"].get("latency"), int | float)]
    if usage.get("calls") and latencies:
        usage_tables = [t for t in titled if t.title.startswith("Model usage")]
        out.append(Section("Cost and latency", plots.latency(latencies), tuple(usage_tables)))
    return out


def witnesses(run_dir: Path) -> dict[str, dict[str, Any]]:
    """The witness of each item ``parrot witness --all`` wrote into ``RUN/witnesses.jsonl``
    (the last line of an id wins; damaged lines and items without a witness are skipped)."""
    path = run_dir / "witnesses.jsonl"
    out: dict[str, dict[str, Any]] = {}
    if not path.is_file():
        return out
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            data = json.loads(line)
        except ValueError:
            continue
        if isinstance(data, dict) and isinstance(data.get("witness"), dict):
            out[str(data.get("id"))] = data["witness"]
    return out


def run_page(path: str, manifest: dict[str, Any], records: list[Record],
             analysis: list[Table] | None = None) -> str:
    """The HTML page of one run; ``analysis`` defaults to the cross-dialect tables of
    :mod:`parrot.report.analysis` (none unless the run answers questions in several dialects)."""
    summary = summarize(records, manifest.get("translator"))
    sources, missing = source_sql(manifest)
    found = witnesses(Path(path))
    items = [{**r, "source_sql": sources.get(str(r["id"])),
              **({"witness": found[str(r["id"])]} if str(r["id"]) in found else {})}
             for r in records]
    return _env().get_template("run.html.j2").render(
        title=f"parrot — {manifest.get('translator', {}).get('name', '?')} on "
              f"{manifest.get('dataset', {}).get('name', '?')}",
        path=path, manifest=manifest, overall=summary["overall"],
        metrics=headline(summary["overall"]), sections=_sections(summary, records),
        source_missing=missing, data=_pack({"items": items}),
        analysis=(analysis_tables([(path, records)],
                                  context={path: run_context(Path(path), manifest)})
                  if analysis is None else analysis),
        css=_asset("report.css"), js=_asset("sortable.js") + _asset("run.js"))


def _score_columns(members: list[tuple[str, dict[str, Any], dict[str, Any]]], key: str,
                   ranked: list[str]) -> Table:
    """Strict Acc_RES per group (pair or type) for each run, rows in leaderboard order."""
    by_path = {p: s for p, _, s in members}
    groups = sorted({g for _, _, s in members for g in s[key]})
    rows = []
    for path in ranked:
        scores = by_path[path][key]
        rows.append((path, *("–" if g not in scores or scores[g]["acc_strict"] is None
                             else f"{scores[g]['acc_strict']:.1f}" for g in groups)))
    return Table(f"strict % by {'dialect pair' if key == 'by_pair' else 'translation type'}",
                 ("run", *groups), rows)


def leaderboard_page(runs: list[Run], analysis: list[Table] | None = None) -> str:
    """The HTML leaderboard of several runs: one section per comparable group (the groups and
    rows of ``python -m parrot.report … --format md``), each with per-pair and per-type
    columns, then the cross-dialect analysis (κ, ρ, DRS, consistency) when there is one."""
    groups = []
    for title, members, flags in leaderboard_groups(runs):
        table = leaderboard_table(members, flags)
        ranked = [str(row[table.headers.index("run")]) for row in table.rows]
        groups.append((title, table, _score_columns(members, "by_pair", ranked),
                       _score_columns(members, "by_type", ranked)))
    return _env().get_template("leaderboard.html.j2").render(
        title="parrot leaderboard", groups=groups, css=_asset("report.css"),
        analysis=(analysis_tables([(p, r) for p, _, r in runs]) if analysis is None
                  else analysis),
        js=_asset("sortable.js"))


def write_run_report(run_dir: Path, manifest: dict[str, Any], records: list[Record],
                     out: Path | None = None, analysis: list[Table] | None = None) -> Path:
    """Write a run's page (default ``RUN_DIR/report.html``) and return its path."""
    target = out or run_dir / REPORT
    target.write_text(run_page(str(run_dir), manifest, records, analysis), encoding="utf-8")
    return target
