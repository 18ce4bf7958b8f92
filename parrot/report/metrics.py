"""Metrics over outcome records: Acc_EX, Acc_RES (strict, normalized, multiset), Acc_SYN and
breakdowns.

Denominators are explicit: items whose *source* failed (``gold_error``) are excluded from every
execution accuracy and counted; items with an engine missing here (``no_engine``) are excluded
from Acc_RES and counted, and from Acc_EX only when the *target* engine is the missing one
(``ex_items`` is Acc_EX's denominator: a translation runs without its source engine);
``strict_nonempty`` restricts Acc_RES to items whose source
returned rows. Acc_SYN (the translation parses under parrot's grammar of the target dialect) needs
no engine: its denominator is every item whose target has a grammar (``syn_checked``). Acc_TS
(strict on the fixture and on every database of the item's test suite) counts only items with a
suite (``ts_items``); ``ts_strict`` is strict Acc_RES over those same items, so the two compare on
one denominator, and ``suite_only`` lists the items that pass on the fixture but fail on a suite
database.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from parrot.api.records import (
    LEVELS,
    ExecutionRecord,
    LevelRecord,
    Outcome,
    Summary,
    WitnessLine,
    verdict_level,
)
from parrot.api.results import SUMMARY, WITNESSES, read_json, read_witnesses, witness_summary
from parrot.compare import Mode
from parrot.datasets import DatasetError, load_dataset
from parrot.registry import Registry
from parrot.report.features import features
from parrot.report.stats import wilson


@dataclass(frozen=True)
class ComparisonProfile:
    """A comparison mode as the reports count it: ``acc_<name>`` in every summary."""

    mode: Mode
    label: str  # a report's column heading
    summary: str  # what a match in this mode means


COMPARISON_MODES: Registry[ComparisonProfile] = Registry("comparison mode")
for _profile in (
    ComparisonProfile(
        Mode.STRICT,
        "strict",
        "Acc_RES: columns by position, exact values "
        "bridged across type families, order where the source orders",
    ),
    ComparisonProfile(
        Mode.NORMALIZED,
        "normalized",
        "PolySQL's Algorithm 1: lower-cased names, "
        "extra prediction columns allowed, stripped strings, numbers within 1e-5",
    ),
    ComparisonProfile(Mode.MULTISET, "multiset", "UniQL's protocol: numbers rounded to 3 decimals"),
):
    COMPARISON_MODES.add(_profile.mode.value, _profile)
MODES = tuple(COMPARISON_MODES)  # the modes every summary counts, in report order
# accuracy -> (hits key, denominator key) of a Summary: each gets a 95% Wilson interval (ci95)
ACCURACIES = {
    "ex": ("ex", "ex_items"),
    **{m: (m, "evaluated") for m in MODES},
    "strict_nonempty": ("strict_nonempty", "nonempty"),
    "ts": ("ts", "ts_items"),
    "syn": ("syn", "syn_checked"),
}
# Fixed token-length ranges (tiktoken cl100k), comparable across datasets and runs.
TOKEN_RANGES = ((0, 50), (50, 100), (100, 200), (200, 500), (500, 1000), (1000, None))

Record = Outcome


def _gold_ok(r: Record) -> bool:
    return bool(r["gold"]["status"] == "ok")


def _missing(r: Record) -> set[str]:
    """Dialects of the item with no engine here (records before ``no_engine`` existed: read
    from the executions' status)."""
    missing = set(r.get("no_engine") or ())
    for execution, dialect in (
        (r.get("gold"), r.get("source_dialect", "?")),
        (r.get("pred"), r.get("target_dialect", "?")),
    ):
        if status(execution) == "no_engine":
            missing.add(dialect)
    return missing


def status(execution: ExecutionRecord | None) -> str | None:
    """An execution's status, None when it did not run."""
    return execution["status"] if execution else None


def gold_error(r: Record) -> bool:
    """The source ran on its engine and failed: the item judges nothing."""
    return not _gold_ok(r) and r.get("source_dialect", "?") not in _missing(r)


def no_engine(r: Record) -> bool:
    """An engine of the item is missing here (and its source did not fail): not judged."""
    return not gold_error(r) and bool(_missing(r))


def no_reference(r: Record) -> bool:
    """The ``reference`` translator had no reference in the item's target dialect (and the item
    is neither a gold error nor missing an engine): not judged, counted apart."""
    return bool(r.get("no_reference")) and not gold_error(r) and not no_engine(r)


def evaluated(r: Record) -> bool:
    """Judged by Acc_RES: both engines ran here, the source succeeded and there is a
    translation to judge."""
    return _gold_ok(r) and not _missing(r) and not r.get("no_reference")


def ex_evaluated(r: Record) -> bool:
    """Judged by Acc_EX: the target engine is here and the source did not fail (a missing
    source engine does not stop the translation from running), and there is a translation."""
    return (
        not gold_error(r)
        and r.get("target_dialect", "?") not in _missing(r)
        and not r.get("no_reference")
    )


def right(r: Record, metric: str = "strict") -> bool | None:
    """Whether ``metric`` (``ex``, a comparison mode, or ``ts``) counts the item right; None
    when the metric does not judge it (not in its denominator)."""
    if metric == "ex":
        return status(r.get("pred")) == "ok" if ex_evaluated(r) else None
    if not evaluated(r):
        return None
    if metric == "ts":
        suite = r.get("suite")
        return None if suite is None else bool(suite["match"])
    return bool(r["verdicts"][metric]["match"])


def level(r: Record) -> LevelRecord:
    """What the item's verdict rests on, as the judge recorded it (computed for older runs)."""
    return r.get("level") or verdict_level(r)


def _number(value: object) -> float:
    return value if isinstance(value, int | float) else 0


def share(n: int, d: int) -> float | None:
    """The percentage ``n`` of ``d``, rounded once, from the counts, to the one decimal every
    summary, table and page shows (None without a denominator). Nothing rounds it again: a
    share rounded to two decimals first (210/438 → 47.95) would print as 48.0 where the counts
    give 47.9."""
    return round(100.0 * n / d, 1) if d else None


def score(records: Iterable[Record]) -> Summary:
    """Counts and accuracies (percent) of one group of outcome records."""
    records = list(records)
    judged = [r for r in records if evaluated(r)]
    nonempty = [r for r in judged if (r["gold"].get("rows") or 0) > 0]
    ran = [r for r in records if ex_evaluated(r)]
    ex = sum(1 for r in ran if status(r.get("pred")) == "ok")
    out: dict[str, Any] = {
        "items": len(records),
        "gold_error": sum(1 for r in records if gold_error(r)),
        "no_engine": sum(1 for r in records if no_engine(r)),
        "no_reference": sum(1 for r in records if no_reference(r)),
        "evaluated": len(judged),
        "nonempty": len(nonempty),
        "ex_items": len(ran),
        "ex": ex,
        "acc_ex": share(ex, len(ran)),
    }
    for mode in MODES:
        n = sum(1 for r in judged if r["verdicts"][mode]["match"])
        out[mode] = n
        out[f"acc_{mode}"] = share(n, len(judged))
    missed = [r for r in judged if not r["verdicts"]["strict"]["match"]]
    out["timeout"] = sum(1 for r in missed if r["verdicts"]["strict"]["reason"] == "timeout")
    out["wrong"] = len(missed) - out["timeout"]
    n = sum(1 for r in nonempty if r["verdicts"]["strict"]["match"])
    out["strict_nonempty"] = n
    out["acc_strict_nonempty"] = share(n, len(nonempty))
    suited = [r for r in judged if r.get("suite") is not None]
    out["ts_items"] = len(suited)
    out["ts"] = sum(1 for r in suited if r["suite"]["match"])
    out["acc_ts"] = share(out["ts"], len(suited))
    out["ts_strict"] = sum(1 for r in suited if r["verdicts"]["strict"]["match"])
    checked = [r for r in records if r.get("syntax") is not None]
    out["syn_checked"] = len(checked)
    out["syn"] = sum(1 for r in checked if r["syntax"]["ok"])
    out["acc_syn"] = share(out["syn"], len(checked))
    out["ci95"] = {
        name: (None if (ci := wilson(out[hits], out[total])) is None else list(ci))
        for name, (hits, total) in ACCURACIES.items()
    }
    return cast(Summary, out)


def _group(
    records: list[Record], key: Callable[[Record], Iterable[str]], order: list[str] | None = None
) -> dict[str, Summary]:
    groups: dict[str, list[Record]] = {}
    for r in records:
        for k in key(r):
            groups.setdefault(k, []).append(r)
    keys = order if order is not None else sorted(groups)
    return {k: score(groups[k]) for k in keys if k in groups}


def token_quartiles(records: list[Record]) -> list[float]:
    tokens = [t for r in records if (t := r.get("tokens")) is not None]
    if len(tokens) < 2:
        return []
    return [float(q) for q in statistics.quantiles(tokens, n=4, method="inclusive")]


def _quartile_label(tokens: int | None, cuts: list[float]) -> str:
    if tokens is None or not cuts:
        return "unknown"
    bounds = [0.0, *cuts]
    for i, upper in enumerate(cuts):
        if tokens <= upper:
            return f"Q{i + 1} ({bounds[i]:g}–{upper:g}]" if i else f"Q1 (≤{upper:g})"
    return f"Q4 (>{cuts[-1]:g})"


def _range_label(tokens: int | None) -> str:
    if tokens is None:
        return "unknown"
    for low, high in TOKEN_RANGES:
        if high is None or tokens < high:
            return f"{low}–{high - 1}" if high is not None else f"{low}+"
    raise AssertionError("unreachable")


def translator_specs(params: dict[str, Any] | None) -> set[str]:
    """The ``--model`` specs a run's translator answers to (its name, its model, its members),
    as curation records them in an item's ``annotators``."""
    if not params:
        return set()
    specs = {str(params[k]) for k in ("name", "model") if params.get(k)}
    for member in params.get("members") or []:
        specs |= translator_specs(member if isinstance(member, dict) else {"name": member})
    return specs


def _total(records: list[Record], keys: tuple[str, ...]) -> float | None:
    """The sum of the translations' ``keys`` (None when no translation records any of them:
    a translator that does not count tokens or prices calls)."""
    values = [
        v for r in records for k in keys if isinstance(v := r["translation"].get(k), int | float)
    ]
    return float(sum(values)) if values else None


def verified_cost(records: list[Record]) -> dict[str, Any]:
    """Tokens (in + out), money (USD) and translation latency (seconds) per item and per
    strictly-right item (strict Acc_RES): what one verified translation costs."""
    strict = sum(1 for r in records if right(r) is True)
    totals = {
        "tokens": _total(records, ("tokens_in", "tokens_out")),
        "cost": _total(records, ("cost",)),
        "latency": _total(records, ("latency",)),
    }

    def per(n: int) -> dict[str, float | None]:
        return {
            k: None if v is None or not n else round(v / n, 10 if k == "cost" else 4)
            for k, v in totals.items()
        }

    return {
        "items": len(records),
        "strict": strict,
        "total": totals,
        "per_item": per(len(records)),
        "per_strict": per(strict),
    }


def constructs(r: Record, sources: dict[str, str] | None = None) -> list[str]:
    """The constructs an item exercises: its translation types, tags and, when its source SQL
    is known (``sources``: id → source SQL), the SQL features sqlglot finds in it."""
    sql = (sources or {}).get(str(r["id"]))
    return (
        [f"type: {t}" for t in r.get("translation_types") or []]
        + [f"tag: {t}" for t in r.get("tags") or []]
        + ([f"feature: {f}" for f in features(sql, r["source_dialect"])] if sql else [])
    )


def reliability(
    records: list[Record], sources: dict[str, str] | None = None
) -> dict[str, dict[str, dict[str, Any]]]:
    """Construct → dialect pair → strict Acc_RES's ``evaluated`` and ``strict`` counts with the
    95% Wilson interval (``ci95``) over the items judged; cells without a judged item left out."""
    cells: dict[str, dict[str, list[int]]] = {}
    for r in records:
        if (ok := right(r)) is None:
            continue
        pair = f"{r['source_dialect']}→{r['target_dialect']}"
        for construct in constructs(r, sources):
            cell = cells.setdefault(construct, {}).setdefault(pair, [0, 0])
            cell[0] += 1
            cell[1] += ok
    kinds = ("type", "tag", "feature")
    return {
        c: {
            pair: {
                "evaluated": n,
                "strict": k,
                "ci95": None if (ci := wilson(k, n)) is None else list(ci),
            }
            for pair, (n, k) in sorted(cells[c].items())
        }
        for c in sorted(cells, key=lambda c: (kinds.index(c.split(":")[0]), c))
    }


def levels(records: list[Record]) -> dict[str, dict[str, Any]]:
    """What the strong levels rest on: for ``suite``, the items whose suite records its
    neighbours and the share of those neighbours the suites kill (pooled, with its Wilson
    interval); for ``bounded-equivalent``, the items by bound."""
    suite = [lv for r in records if (lv := level(r))["name"] == "suite"]
    measured = [lv for lv in suite if "neighbours" in lv]
    neighbours = sum(lv["neighbours"] for lv in measured)
    killed = sum(lv.get("killed", 0) for lv in measured)
    ci = wilson(killed, neighbours)
    bounded = Counter(
        str(lv.get("bound", "?"))
        for r in records
        if (lv := level(r))["name"] == "bounded-equivalent"
    )
    return {
        "suite": {
            "items": len(suite),
            "measured": len(measured),
            "neighbours": neighbours,
            "killed": killed,
            "kill_rate": share(killed, neighbours),
            "ci95": None if ci is None else list(ci),
        },
        "bounded-equivalent": {
            "items": sum(bounded.values()),
            "by_bound": dict(sorted(bounded.items())),
        },
    }


def suite_only(records: Iterable[Record]) -> list[dict[str, Any]]:
    """Items that match on the fixture but not on their suite: the first database that separates
    them (index, seed), its reason, first differing cell and detail."""
    out = []
    for r in records:
        suite = r.get("suite")
        first = None if suite is None else suite.get("first_failure")
        if (
            not evaluated(r)
            or suite is None
            or suite["match"]
            or not r["verdicts"]["strict"]["match"]
            or first is None
        ):
            continue
        db = suite["databases"][first]
        out.append(
            {
                "id": r["id"],
                "pair": f"{r['source_dialect']}→{r['target_dialect']}",
                "database": db["index"],
                "seed": db.get("seed"),
                "reason": db["reason"],
                "cell": db.get("cell"),
                "detail": db.get("detail", ""),
            }
        )
    return out


def circularity(records: list[Record], translator: dict[str, Any] | None) -> dict[str, Any] | None:
    """When the translator under test produced some items' references (curation's
    ``annotators``): how many, and the scores on the items it did not annotate."""
    specs = translator_specs(translator)
    annotated = [r for r in records if specs & set(r.get("annotators") or ())]
    if not annotated:
        return None
    rest = [r for r in records if not specs & set(r.get("annotators") or ())]
    return {"annotated_by_translator": len(annotated), "items": len(records), "rest": score(rest)}


def summarize(
    records: list[Record],
    translator: dict[str, Any] | None = None,
    *,
    witnesses: dict[str, WitnessLine] | None = None,
    sources: dict[str, str] | None = None,
) -> dict[str, Any]:
    """The whole summary of a run, as written to summary.json (``translator``: the manifest's
    translator parameters, for the circularity check; ``witnesses``: RUN/witnesses.jsonl's
    lines, counted when given; ``sources``: id → source SQL, whose sqlglot features join the
    reliability matrix's constructs)."""
    cuts = token_quartiles(records)
    quartile_order = sorted(
        {_quartile_label(r.get("tokens"), cuts) for r in records}, key=lambda s: (s == "unknown", s)
    )
    range_order = [f"{lo}–{hi - 1}" if hi else f"{lo}+" for lo, hi in TOKEN_RANGES] + ["unknown"]
    judged = [r for r in records if evaluated(r)]
    suited = [r for r in judged if r.get("suite") is not None]
    translation = Counter(r["translation"]["status"] for r in records)
    execution = Counter(status(r.get("pred")) or "not_run" for r in records if ex_evaluated(r))
    usage = {
        k: sum(_number(r["translation"].get(k)) for r in records)
        for k in ("tokens_in", "tokens_out", "cost", "calls", "cache_hits")
    }
    usage["cost"] = round(usage["cost"], 10)
    usage["unpriced"] = sum(
        1
        for r in records
        if _number(r["translation"].get("calls")) and r["translation"].get("cost") is None
    )
    circular = circularity(records, translator)
    return {
        **({"circular": circular} if circular else {}),
        "overall": score(records),
        "reasons": {
            m: dict(Counter(r["verdicts"][m]["reason"] for r in judged).most_common())
            for m in MODES
        },
        "translation_status": dict(translation.most_common()),
        "execution_status": dict(execution.most_common()),
        "usage": usage,
        "verified_cost": verified_cost(records),
        "suite_cost": {
            "databases": sum(len(r["suite"]["databases"]) for r in suited),
            "seconds": round(sum(r["suite"]["elapsed"] for r in suited), 3),
        },
        "suite_only": suite_only(records),
        "token_quartiles": cuts,
        "by_pair": _group(records, lambda r: [f"{r['source_dialect']}→{r['target_dialect']}"]),
        "by_type": _group(records, lambda r: r.get("translation_types") or ["(none)"]),
        "reliability": reliability(records, sources),
        "by_level": _group(records, lambda r: [level(r)["name"]], list(LEVELS)),
        "levels": levels(records),
        **({"witnesses": witness_summary(records, witnesses)} if witnesses is not None else {}),
        "by_tokens_quartile": _group(
            records, lambda r: [_quartile_label(r.get("tokens"), cuts)], quartile_order
        ),
        "by_tokens_range": _group(records, lambda r: [_range_label(r.get("tokens"))], range_order),
    }


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


def run_summary(
    run_dir: Path,
    manifest: dict[str, Any],
    records: list[Record],
    sources: dict[str, str] | None = None,
) -> dict[str, Any]:
    """:func:`summarize` of a run directory as the reports show it: with its witnesses (when
    ``parrot witness --all`` wrote RUN/witnesses.jsonl) and its sources' SQL features (read
    from the run's dataset file unless ``sources`` is given)."""
    if sources is None:
        sources, _ = source_sql(manifest)
    witnesses = read_witnesses(run_dir) if (run_dir / WITNESSES).is_file() else None
    return summarize(records, manifest.get("translator"), witnesses=witnesses, sources=sources)


def finished_summary(
    run_dir: Path, manifest: dict[str, Any], records: list[Record], sources: dict[str, str]
) -> dict[str, Any]:
    """:func:`run_summary` of a run that has just finished: the summary.json it wrote (the
    same records, translator and sources), unless witnesses were added to the run directory,
    whose summary is then computed again with them."""
    if (run_dir / WITNESSES).is_file():
        return run_summary(run_dir, manifest, records, sources)
    return cast(dict[str, Any], read_json(run_dir / SUMMARY))
