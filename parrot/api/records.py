"""Typed records of a run: what one line of ``results.jsonl`` holds (:class:`Outcome`) and what
:func:`parrot.report.metrics.score` counts (:class:`Summary`).

They are ``TypedDict`` s, not classes: the lines stay plain JSON (written and read as they were),
and mypy checks every key the judge writes and the reports and feedback read. Keys marked
``NotRequired`` are absent from some lines — those of older runs, or of items where the fact does
not apply (no suite, no grammar, no engine missing). No ``from __future__ import annotations``:
the required keys are read at run time (``__required_keys__``).
"""

from typing import NotRequired, TypedDict


class ExecutionRecord(TypedDict):
    """One execution on an engine (``gold``: the source query, ``pred``: the translation)."""

    status: str  # parrot.engines.ExecStatus value
    engine: str  # the engine's label (version included)
    elapsed: float
    error: NotRequired[str]
    columns: NotRequired[list[str]]
    rows: NotRequired[int]
    preview: NotRequired[list[list[object]]]


class CellRecord(TypedDict):
    row: int
    column: int
    gold: object
    pred: object


class VerdictRecord(TypedDict):
    """One comparison mode's verdict (:meth:`parrot.compare.Verdict.to_json`)."""

    mode: str
    match: bool
    reason: str  # parrot.compare.Reason value
    detail: str
    cell: CellRecord | None
    notes: list[str]


class SyntaxRecord(TypedDict):
    """Acc_SYN's check of the translation by parrot's grammar of the target."""

    ok: bool
    error: NotRequired[str]


class SuiteDatabaseRecord(TypedDict):
    """One suite database's compact strict verdict (``match`` None: the source failed there)."""

    index: int
    seed: int
    match: NotRequired[bool | None]
    reason: NotRequired[str]
    detail: NotRequired[str]
    cell: NotRequired[CellRecord | None]


class SuiteRecord(TypedDict):
    """Acc_TS: the translation on every database of the item's test suite."""

    key: str
    databases: list[SuiteDatabaseRecord]
    judged: int
    match: bool
    first_failure: int | None
    elapsed: float
    neighbours: NotRequired[int]  # the suite file's distillation counts (older runs lack them)
    killed: NotRequired[int]


class LevelRecord(TypedDict):
    """What a verdict rests on (:func:`verdict_level`)."""

    name: str  # one of LEVELS
    databases: int  # the databases both queries ran on: the fixture and k suite databases
    # bounded-equivalent: equal on every database up to this bound (a prover's, not written here)
    bound: NotRequired[int]
    # suite: its distillation's neighbours of the source and how many the suite kills (a measure
    # of the suite's strength; absent where the suite file or an older run does not record them)
    neighbours: NotRequired[int]
    killed: NotRequired[int]


LEVELS = ("bounded-equivalent", "suite", "fixture", "not assessed")  # strongest first


class WitnessRecord(TypedDict):
    """A witness database (:meth:`parrot.eval.witness.Witness.to_json`): the smallest database
    found on which the source and the translation still differ, and both results on it."""

    origin: str  # "fixture" or "suite database N"
    rows: dict[str, int]  # table -> rows in the witness
    rows_before: dict[str, int]  # table -> rows of the database it was shrunk from
    size: int  # rows in all
    minimal: bool  # 1-minimal: the search finished within the budget
    executions: int  # engine executions spent shrinking
    reason: str  # the strict verdict on the witness (parrot.compare.Reason value)
    detail: str
    cell: CellRecord | None  # the first differing cell
    gold: ExecutionRecord  # the source on the witness
    pred: ExecutionRecord  # the translation on the witness
    tables: dict[str, list[list[object]]]  # the witness's non-empty tables' rows
    columns: dict[str, list[str]]  # their column names


class ProveRecord(TypedDict):
    """``parrot eval --prove`` on an item judged right on the fixture (and its suite): the
    solver's answer for the source against the translation (:mod:`parrot.eval.prove`)."""

    # bounded-equivalent (equal on every database up to ``bound`` rows a table),
    # counterexample (a k-row database on which the engines disagree: ``witness``), unknown
    # (the solver's budget, ties or a restricted search), unverified (a model the engines do
    # not confirm), unsupported (outside the fragment or the dialect pairs: ``reason``)
    label: str
    reason: NotRequired[str]
    bound: NotRequired[int]
    k: NotRequired[int]
    cpu_s: NotRequired[float]  # the solver's CPU seconds (with the engine checks of a model)
    witness: NotRequired[WitnessRecord]  # counterexample: the database and both results


class Outcome(TypedDict):
    """One item's outcome, as :meth:`parrot.eval.judge.Judge.judge` writes it to results.jsonl."""

    id: str
    source_dialect: str
    target_dialect: str
    tokens: int | None
    translation_types: list[str]
    tags: list[str]
    difficulty: str | None
    order_sensitive: bool
    translation: dict[str, object]  # parrot.translators.base.Translation.to_json()
    gold: ExecutionRecord
    pred: ExecutionRecord | None  # None: the translation did not run
    verdicts: dict[str, VerdictRecord]  # keyed by comparison mode
    syntax_checked: bool
    annotation_source: NotRequired[str]  # who wrote the item's reference (older runs lack it)
    annotators: NotRequired[list[str]]  # curation: the translators behind the reference
    no_engine: NotRequired[dict[str, str]]  # dialect -> why it has no engine here
    no_reference: NotRequired[bool]  # ``reference`` on an item with none in its target dialect
    syntax: NotRequired[SyntaxRecord]
    suite: NotRequired[SuiteRecord]
    engine_errors_retried: NotRequired[list[str]]
    question_id: NotRequired[str]  # text-to-SQL items: the question (report.analysis groups by it)
    level: NotRequired[LevelRecord]  # what the verdict rests on (older runs lack it)
    prove: NotRequired[ProveRecord]  # eval --prove: the solver on an item judged right


class Summary(TypedDict):
    """Counts and accuracies (percent, None without a denominator) of a group of outcomes."""

    items: int
    gold_error: int
    no_engine: int
    no_reference: int  # the reference translator had no reference in the target dialect
    evaluated: int
    nonempty: int
    ex_items: int
    ex: int
    acc_ex: float | None
    strict: int
    acc_strict: float | None
    normalized: int
    acc_normalized: float | None
    multiset: int
    acc_multiset: float | None
    strict_nonempty: int
    acc_strict_nonempty: float | None
    ts_items: int
    ts: int
    acc_ts: float | None
    ts_strict: int  # strict matches on the fixture among the ts_items (one denominator)
    # the judged items not strictly right, apart: a different answer / a translation that timed
    # out (its budget, then the re-run's); summaries before them lack them
    wrong: NotRequired[int]
    timeout: NotRequired[int]
    syn_checked: int
    syn: int
    acc_syn: float | None
    # accuracy (ex, strict, normalized, multiset, strict_nonempty, ts, syn) -> its 95% Wilson
    # interval [low, high] in percent (None without a denominator; summaries before it lack it)
    ci95: NotRequired[dict[str, list[float] | None]]


def level_name(level: LevelRecord) -> str:
    """The level as the tables and the report show it: ``bounded-equivalent (k=3)``,
    ``suite (kills 7/9 neighbours)``, or the bare name."""
    if "bound" in level:
        return f"{level['name']} (k={level['bound']})"
    if "neighbours" in level:
        return f"{level['name']} (kills {level.get('killed', 0)}/{level['neighbours']} neighbours)"
    return level["name"]


def verdict_level(record: Outcome) -> LevelRecord:
    """``suite`` (the fixture and k generated databases, with the neighbours of the source the
    suite kills where its file records them), ``fixture`` (one database: the item's
    fixture, or no database when the translation never ran) or ``not assessed`` (no engine here
    for a dialect of the item, or the source failed: only Acc_SYN, a grammar, judges it).
    ``bounded-equivalent`` is never computed here: a prover writes it into the record."""
    pred = record.get("pred")
    if (
        record.get("no_engine")
        or record["gold"]["status"] != "ok"
        or (pred is not None and pred["status"] == "no_engine")
    ):
        return {"name": "not assessed", "databases": 0}
    suite = record.get("suite")
    judged = len(suite["databases"]) if suite else 0
    if not judged:
        return {"name": "fixture", "databases": 1}
    out: LevelRecord = {"name": "suite", "databases": 1 + judged}
    if suite and "neighbours" in suite and "killed" in suite:
        out.update({"neighbours": suite["neighbours"], "killed": suite["killed"]})
    return out


class WitnessLine(TypedDict):
    """One line of RUN/witnesses.jsonl (``parrot witness RUN --all``; an id's last line wins)."""

    id: str
    witness: WitnessRecord | None  # None: no data-dependent witness (``why``)
    seconds: float  # wall seconds spent on the item
    executions: int  # engine executions spent on the item
    why: NotRequired[str]
