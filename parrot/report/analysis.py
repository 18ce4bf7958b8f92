"""Cross-dialect analysis of runs: how a translator's answers hold up from one dialect to another.

The measures PolySQL and UniQL publish, over outcome records of any task (SQL-to-SQL or
text-to-SQL), computed per *question*: the items that ask the same thing in different target
dialects (one concept from one source dialect, or one natural-language question).

* accuracy per target dialect and its drop from a **base** dialect (PolySQL: SQLite);
* **Dialect Robustness Score** ``DRS = 1 − (Acc_base − mean Acc_other) / Acc_base``;
* per-question agreement of each dialect with the base (**Cohen's κ**) and, over several runs,
  **Spearman ρ / Pearson r** between the runs' accuracies on the base and on each dialect;
* UniQL's **cross-dialect consistency**: mean dialects answered correctly per question, the share
  right in all of them (All-N), and base→rest (of the questions right in the base dialect, the share
  right in every other);
* a **failure taxonomy** of the items right in the base dialect but wrong in another, by rules over
  the engine outcome, the comparator's reason and an AST diff against the gold
  (:func:`failure_class`, :mod:`parrot.report.astdiff`), with an LLM judge's labels beside them
  when ``python -m parrot.text2sql taxonomy RUN --judge MODEL`` stored some;
* accuracy by the ``annotation_source`` of the items' references (UniQL: golds from later
  curation stages are harder).

Only items that could be judged count: a gold error or a missing engine (``no_engine``) is left
out of every measure here, as in the headline metrics.
"""

from __future__ import annotations

import json
import re
import statistics
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from parrot import dialects
from parrot.api import jsonl
from parrot.api.records import Outcome
from parrot.report import astdiff
from parrot.report.metrics import status as execution_status
from parrot.report.render import Table

Record = Outcome

TAXONOMY = (
    "syntax",
    "schema_type",
    "runtime",
    "resource",
    "no_sql",
    "projection",
    "filtering_logic",
    "aggregation_grouping",
    "ordering",
    "formatting_precision",
)
_SCHEMA_WORDS = re.compile(
    r"column|table|relation|identifier|type|cast|convert|function|does not exist|unknown|"
    r"not found|no such|ambiguous|cannot be applied|mismatch",
    re.I,
)
_FORMAT_REASONS = frozenset(
    {"precision", "whitespace", "case", "null_vs_empty", "temporal_format", "type_family"}
)


@dataclass(frozen=True)
class Answer:
    """One judged item reduced to what the analysis needs."""

    question: str
    dialect: str  # the target dialect the answer was written in
    correct: bool


def question_of(r: Record) -> str:
    """The question an item belongs to: its ``question`` key when the record has one, else its
    id without the ``-<source>-<target>`` (or ``-<target>``) suffix both shipped datasets use."""
    if r.get("question_id"):
        return str(r["question_id"])
    rid = str(r["id"])
    for suffix in (f"-{r['source_dialect']}-{r['target_dialect']}", f"-{r['target_dialect']}"):
        if rid.endswith(suffix):
            return f"{rid[: -len(suffix)]}@{r['source_dialect']}"
    return rid


def judged(r: Record) -> bool:
    """Whether the item could be judged: its source ran, its target had an engine and there was
    a translation (``reference`` has none where the item has no reference)."""
    if r["gold"]["status"] != "ok" or r.get("no_reference"):
        return False
    return execution_status(r.get("pred")) != "no_engine"


def answers(records: Iterable[Record], mode: str = "strict") -> list[Answer]:
    return [
        Answer(question_of(r), r["target_dialect"], bool(r["verdicts"][mode]["match"]))
        for r in records
        if judged(r)
    ]


def accuracy(answers_: Iterable[Answer]) -> dict[str, tuple[int, int]]:
    """(correct, judged) per dialect."""
    out: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for a in answers_:
        out[a.dialect][0] += a.correct
        out[a.dialect][1] += 1
    return {d: (c, n) for d, (c, n) in sorted(out.items())}


def _pct(c: int, n: int) -> float | None:
    return 100.0 * c / n if n else None


def drs(acc: Mapping[str, tuple[int, int]], base: str) -> float | None:
    """PolySQL's Dialect Robustness Score of one run (None without a base or another dialect)."""
    if base not in acc or acc[base][0] == 0:
        return None
    others = [_pct(c, n) for d, (c, n) in acc.items() if d != base and n]
    if not others:
        return None
    base_acc = _pct(*acc[base])
    assert base_acc is not None
    return 1.0 - (base_acc - statistics.fmean(o for o in others if o is not None)) / base_acc


def cohen_kappa(a: Sequence[bool], b: Sequence[bool]) -> float | None:
    """Cohen's κ of two raters' binary labels (None for fewer than two items; 1.0 when both
    raters give one and the same label to everything)."""
    if len(a) != len(b):
        raise ValueError("kappa needs paired labels")
    n = len(a)
    if n < 2:
        return None
    observed = sum(x == y for x, y in zip(a, b, strict=True)) / n
    pa, pb = sum(a) / n, sum(b) / n
    expected = pa * pb + (1 - pa) * (1 - pb)
    if expected == 1.0:
        return 1.0 if observed == 1.0 else 0.0
    return (observed - expected) / (1 - expected)


def _by_question(answers_: Iterable[Answer]) -> dict[str, dict[str, bool]]:
    table: dict[str, dict[str, bool]] = defaultdict(dict)
    for a in answers_:
        table[a.question][a.dialect] = a.correct
    return table


def agreement(answers_: Iterable[Answer], base: str) -> dict[str, tuple[int, float | None]]:
    """Per dialect: (questions answered in both, Cohen's κ with the base dialect)."""
    table = _by_question(answers_)
    dialects = sorted({d for row in table.values() for d in row} - {base})
    out = {}
    for d in dialects:
        pairs = [(row[base], row[d]) for row in table.values() if base in row and d in row]
        out[d] = (len(pairs), cohen_kappa([p[0] for p in pairs], [p[1] for p in pairs]))
    return out


@dataclass(frozen=True)
class Consistency:
    questions: int  # questions judged in two dialects or more
    dialects: int  # the most dialects one question was judged in
    mean_correct: float | None  # dialects answered correctly per question
    all_correct: float | None  # percent of questions right in every one of their dialects (All-N)
    base_right: int  # questions right in the base dialect
    base_to_rest: float | None  # percent of those right in every other dialect


def consistency(answers_: Iterable[Answer], base: str | None) -> Consistency:
    """UniQL's cross-dialect consistency over the questions judged in two dialects or more (in a
    text-to-SQL run every question asks for every dialect; in SQL-to-SQL a concept's question
    from one source asks for the other dialects)."""
    rows = [row for row in _by_question(answers_).values() if len(row) >= 2]
    n = len(rows)
    right = [row for row in rows if base is not None and row.get(base)]
    rest = sum(all(v for d, v in row.items() if d != base) for row in right)
    return Consistency(
        questions=n,
        dialects=max((len(row) for row in rows), default=0),
        mean_correct=statistics.fmean(sum(row.values()) for row in rows) if n else None,
        all_correct=_pct(sum(all(row.values()) for row in rows), n),
        base_right=len(right),
        base_to_rest=_pct(rest, len(right)) if base is not None else None,
    )


def rank_correlation(
    runs: Mapping[str, Mapping[str, tuple[int, int]]], base: str
) -> dict[str, tuple[int, float | None, float | None]]:
    """Per dialect: (runs, Spearman ρ, Pearson r) between the runs' accuracy on the base dialect
    and on that dialect — do the models rank the same? Needs three runs or more."""
    from scipy import stats

    dialects = sorted({d for acc in runs.values() for d in acc} - {base})
    out: dict[str, tuple[int, float | None, float | None]] = {}
    for d in dialects:
        pairs = [
            (_pct(*acc[base]), _pct(*acc[d]))
            for acc in runs.values()
            if base in acc and d in acc and acc[base][1] and acc[d][1]
        ]
        xs = [float(x) for x, _ in pairs if x is not None]
        ys = [float(y) for _, y in pairs if y is not None]
        if len(xs) < 3 or len(set(xs)) < 2 or len(set(ys)) < 2:
            out[d] = (len(xs), None, None)
            continue
        out[d] = (
            len(xs),
            float(stats.spearmanr(xs, ys).statistic),
            float(stats.pearsonr(xs, ys).statistic),
        )
    return out


Gold = tuple[str, str]  # (SQL, dialect) an item's answer is diffed against


def gold_of(record: Mapping[str, Any]) -> Gold:
    """What an item's answer is diffed against: its canonical reference in the target dialect,
    else its source (the text-to-SQL gold)."""
    refs = record.get("reference_sql")
    if isinstance(refs, str):
        refs = [refs]
    if refs:
        return str(refs[0]), dialects.resolve(record["target_dialect"])
    return str(record["source_sql"]), dialects.resolve(record["source_dialect"])


def _dataset_records(manifest: Mapping[str, Any]) -> Iterable[dict[str, Any]]:
    path = Path(str((manifest.get("dataset") or {}).get("path", "")))
    if not path.is_file():
        return
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            record = json.loads(line) if line.strip() else None
        except json.JSONDecodeError:
            continue
        if isinstance(record, dict) and "id" in record:
            yield record


def run_golds(manifest: Mapping[str, Any]) -> dict[str, Gold]:
    """id → gold of every item of the run's dataset (empty when the dataset is not here)."""
    out = {}
    for r in _dataset_records(manifest):
        try:
            out[str(r["id"])] = gold_of(r)
        except (KeyError, TypeError, ValueError):
            continue
    return out


def run_questions(manifest: Mapping[str, Any]) -> dict[str, str]:
    """id → question of the run's text-to-SQL items."""
    return {
        str(r["id"]): str(r["question"]) for r in _dataset_records(manifest) if r.get("question")
    }


@dataclass(frozen=True)
class RunContext:
    """What the analysis of one run reads beside its results: the golds to diff answers against
    and the labels ``python -m parrot.text2sql taxonomy`` stored (id → entry)."""

    golds: Mapping[str, Gold]
    labels: Mapping[str, Mapping[str, Any]]


TAXONOMY_FILE = "taxonomy.jsonl"  # written by ``python -m parrot.text2sql taxonomy``


def read_labels(run_dir: Path) -> dict[str, dict[str, Any]]:
    """id → the last stored line for it (a torn last line is ignored)."""
    out: dict[str, dict[str, Any]] = {}
    path = run_dir / TAXONOMY_FILE
    if not path.is_file():
        return out
    for _, entry in jsonl.read(path)[0]:  # damaged lines skipped
        try:
            out[str(entry["id"])] = entry
        except (KeyError, TypeError):
            continue
    return out


def run_context(run_dir: Path, manifest: Mapping[str, Any]) -> RunContext:
    return RunContext(run_golds(manifest), read_labels(run_dir))


def judge_agreement(
    labels: Iterable[Mapping[str, Any]],
) -> dict[str, tuple[int, Counter[str], int]]:
    """Per dialect: (failures the judge labelled, its labels, how many equal the rule label)."""
    out: dict[str, tuple[int, Counter[str], int]] = {}
    for e in labels:
        label = (e.get("judge") or {}).get("label")
        if label is None:
            continue
        n, counts, same = out.get(e["dialect"], (0, Counter(), 0))
        counts[label] += 1
        out[e["dialect"]] = (n + 1, counts, same + (label == e["rule"]))
    return dict(sorted(out.items()))


# AST-diff parts → the class they point to, by priority (the first class with a differing part)
_DIFF_CLASSES = (
    ("aggregation_grouping", ("group", "having", "aggregate")),
    ("filtering_logic", ("where", "from", "distinct", "setop")),
    ("ordering", ("order", "limit")),
    ("projection", ("select",)),
)


def failure_class(r: Record, mode: str = "strict", gold: Gold | None = None) -> str:
    """Why a judged item failed, by rules over the translation status, the engine outcome, the
    comparator's reason and (given the ``gold``) an AST diff against it (one of
    :data:`TAXONOMY`):

    no translation → ``no_sql``; the engine's parser rejected it → ``syntax``; a runtime error
    naming a column, table, type, cast or function → ``schema_type``, any other → ``runtime``;
    timeout or too many rows → ``resource``; a different column count → ``projection``; the
    same rows in another order → ``ordering``; values that differ only in precision, whitespace,
    case, NULL vs '', temporal format or type family → ``formatting_precision``. Other wrong
    rows or values are classed by the first clause group the AST diff finds different:
    GROUP BY, HAVING or an aggregate call → ``aggregation_grouping``; WHERE, tables and joins,
    DISTINCT or a set operation → ``filtering_logic``; ORDER BY or LIMIT → ``ordering``; only
    the selected expressions → ``projection``; no diff (or no gold) → ``filtering_logic``.
    """
    pred = r.get("pred")
    if r["translation"]["status"] != "ok" or pred is None:
        return "no_sql"
    status = pred["status"]
    if status == "syntax_error":
        return "syntax"
    if status in ("runtime_error", "unsupported", "engine_error"):
        return "schema_type" if _SCHEMA_WORDS.search(pred.get("error") or "") else "runtime"
    if status in ("timeout", "too_large"):
        return "resource"
    reason = r["verdicts"][mode]["reason"]
    if reason == "column_count":
        return "projection"
    if reason == "order":
        return "ordering"
    if reason in _FORMAT_REASONS:
        return "formatting_precision"
    sql = r["translation"].get("sql")
    if gold is not None and isinstance(sql, str) and sql:
        parts = set(astdiff.diff(sql, r["target_dialect"], *gold).parts)
        for label, group in _DIFF_CLASSES:
            if parts & set(group):
                return label
    return "filtering_logic"


def shift_failures(records: Iterable[Record], base: str, mode: str = "strict") -> list[Record]:
    """The items wrong in a dialect whose question the run answered correctly in the base
    dialect (the failures the dialect shift caused)."""
    records = [r for r in records if judged(r)]
    right_in_base = {
        question_of(r)
        for r in records
        if r["target_dialect"] == base and r["verdicts"][mode]["match"]
    }
    return [
        r
        for r in records
        if r["target_dialect"] != base
        and question_of(r) in right_in_base
        and not r["verdicts"][mode]["match"]
    ]


def taxonomy(
    records: Iterable[Record],
    base: str,
    mode: str = "strict",
    golds: Mapping[str, Gold] | None = None,
) -> dict[str, Counter[str]]:
    """Per dialect: the failure classes of the dialect-shift failures (:func:`shift_failures`)."""
    out: dict[str, Counter[str]] = defaultdict(Counter)
    for r in shift_failures(records, base, mode):
        gold = golds.get(str(r["id"])) if golds else None
        out[r["target_dialect"]][failure_class(r, mode, gold)] += 1
    return dict(sorted(out.items()))


def by_annotation_source(
    records: Iterable[Record], mode: str = "strict"
) -> dict[tuple[str, str], tuple[int, int]]:
    """(annotation source of the item's reference, dialect) → (correct, judged); items that
    alignment left without a gold in their dialect (tag ``gold:unaligned``) are ``unaligned``."""
    out: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
    for r in records:
        if judged(r):
            source = (
                "unaligned"
                if "gold:unaligned" in (r.get("tags") or ())
                else str(r.get("annotation_source") or "human")
            )
            cell = out[(source, r["target_dialect"])]
            cell[0] += bool(r["verdicts"][mode]["match"])
            cell[1] += 1
    return {k: (c, n) for k, (c, n) in sorted(out.items())}


def default_base(records: Iterable[Record]) -> str | None:
    """The base dialect when none is given: SQLite if the run has SQLite targets, else None."""
    return "sqlite" if any(r["target_dialect"] == "sqlite" for r in records) else None


def _f(x: float | None, digits: int = 1) -> str:
    return "–" if x is None else f"{x:.{digits}f}"


def analysis_tables(
    runs: Sequence[tuple[str, Sequence[Record]]],
    base: str | None = None,
    mode: str = "strict",
    context: Mapping[str, RunContext] | None = None,
) -> list[Any]:
    """The analysis as report tables (empty when no run answers a question in two dialects);
    ``context`` (run name → :class:`RunContext`) adds the AST diff to the taxonomy and the
    stored judge labels."""
    if not runs:
        return []
    base = base or default_base(r for _, records in runs for r in records)
    per_run = {name: answers(records, mode) for name, records in runs}
    if not any(len(row) >= 2 for a in per_run.values() for row in _by_question(a).values()):
        return []
    tables = []
    accs = {name: accuracy(a) for name, a in per_run.items()}
    for name, records in runs:
        label = f" — {name}" if len(runs) > 1 else ""
        tables += _accuracy_tables(per_run[name], accs[name], base, mode, label)
        if base:
            tables += _shift_tables(records, base, mode, (context or {}).get(name), label)
        sources = by_annotation_source(records, mode)
        if len({s for s, _ in sources}) > 1:
            tables.append(
                Table(
                    f"By annotation source of the references{label}",
                    ("annotation source", "dialect", "judged", "acc %"),
                    [(s, d, n, _f(_pct(c, n))) for (s, d), (c, n) in sources.items()],
                )
            )
    if base and len(runs) >= 3:
        tables.append(
            Table(
                f"Rank correlation of the runs with {base} ({len(runs)} runs)",
                ("dialect", "runs", "Spearman ρ", "Pearson r"),
                [
                    (d, n, _f(rho, 3), _f(r, 3))
                    for d, (n, rho, r) in rank_correlation(accs, base).items()
                ],
            )
        )
    return tables


def _accuracy_tables(
    run: list[Answer], acc: dict[str, tuple[int, int]], base: str | None, mode: str, label: str
) -> list[Table]:
    """One run's accuracy by target dialect (drop and κ against the base) and its consistency."""
    kappas = agreement(run, base) if base else {}
    base_acc = _pct(*acc[base]) if base and base in acc else None
    rows = []
    for d, (c, n) in acc.items():
        pct = _pct(c, n)
        drop = None if base_acc is None or pct is None or d == base else base_acc - pct
        k = kappas.get(d)
        rows.append((d, n, _f(pct), _f(drop), k[0] if k else "–", _f(k[1], 2) if k else "–"))
    cons = consistency(run, base)
    return [
        Table(
            f"By target dialect ({mode}; base {base or 'none'}){label}",
            ("dialect", "judged", "acc %", "drop from base", "paired n", "κ with base"),
            rows,
        ),
        Table(
            f"Cross-dialect consistency{label}",
            (
                "questions",
                "max dialects",
                "mean correct",
                "All-N %",
                "base right",
                "base→rest %",
                "DRS",
            ),
            [
                (
                    cons.questions,
                    cons.dialects,
                    _f(cons.mean_correct, 2),
                    _f(cons.all_correct),
                    cons.base_right,
                    _f(cons.base_to_rest),
                    _f(drs(acc, base), 3) if base else "–",
                )
            ],
        ),
    ]


def _shift_tables(
    records: Sequence[Record], base: str, mode: str, ctx: RunContext | None, label: str
) -> list[Table]:
    """The failures the dialect shift caused, by rule (and AST diff), and the judge's labels."""
    tables = []
    tax = taxonomy(records, base, mode, ctx.golds if ctx else None)
    if tax:
        how = "rules + AST diff" if ctx and ctx.golds else "rules; no AST diff"
        tables.append(
            Table(
                f"Failures caused by the dialect shift (right in {base}, wrong in the "
                f"dialect; {how}){label}",
                ("dialect", "n", *TAXONOMY),
                [(d, sum(c.values()), *(c.get(k, 0) for k in TAXONOMY)) for d, c in tax.items()],
            )
        )
    judged_labels = judge_agreement(ctx.labels.values()) if ctx else {}
    if judged_labels:
        models = (
            sorted({str(e["judge"]["model"]) for e in ctx.labels.values() if e.get("judge")})
            if ctx
            else []
        )
        tables.append(
            Table(
                f"LLM judge's labels, beside the rule labels ({', '.join(models)}){label}",
                ("dialect", "judged", *TAXONOMY, "same as rule %"),
                [
                    (d, n, *(c.get(k, 0) for k in TAXONOMY), _f(_pct(same, n)))
                    for d, (n, c, same) in judged_labels.items()
                ],
            )
        )
    return tables
