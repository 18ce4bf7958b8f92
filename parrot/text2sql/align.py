"""``python -m parrot.text2sql align DATASET --output-dir DIR``: UniQL-style aligned golds — one
verified gold per question and target dialect, built by parrot's curation pipeline.

For every item whose target is not the gold's dialect, candidates come in stages, cheapest first,
and the first one verified wins; its stage is the item's ``annotation_source``:

1. ``tool`` — sqlglot transpiles the gold;
2. ``rule`` — parrot's rewrite rules first (:mod:`parrot.curate.canonicalise`: identifiers spelt
   as the database declares them, SQLite's ``"x"`` strings made ``'x'``), then sqlglot;
3. ``llm`` — every ``--annotator`` (any ``--model`` spec) translates the gold;
4. ``reflection`` — the LLM annotators again with ``--reflection K`` rounds of execution feedback
   (the target engine's error or the result mismatch);
5. ``human`` — the rest goes to ``review.jsonl``/``review.csv``; fixes given back with
   ``--fixes FILE`` are verified like any candidate.

A candidate is verified by dual execution with the judge ``python -m parrot.eval`` uses: the gold
on its engine and the candidate on the target engine over the same database, strict comparison,
and on every database of the item's test suite when the dataset has one. Every item's outcome is
appended to ``DIR/align.jsonl`` as it is decided (a rerun resumes, skipping the ids there), then
``DIR/items.jsonl`` is written: the dataset's items, each aligned one with ``reference_sql`` (the
verified gold first) and its ``annotation_source``; the others keep no target gold (the
dataset's ``fixtures/`` and ``suites/`` are copied beside them).
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from parrot import cli, dialects
from parrot.curate.canonicalise import Schema, canonicalise
from parrot.curate.review import read_review
from parrot.curate.serialise import write_review
from parrot.datasets import Dataset, Item, item_line, load_dataset
from parrot.eval.feedback import EngineFeedback
from parrot.eval.judge import Judge
from parrot.translators import Translator, create_translator
from parrot.translators.base import Translation
from parrot.translators.llm.options import LLMOptions

STAGES = ("tool", "rule", "llm", "reflection", "human")
LOG = "align.jsonl"


@dataclass(frozen=True)
class Attempt:
    """One candidate gold and its verdict."""

    stage: str
    annotator: str
    sql: str
    ok: bool
    reason: str  # the strict verdict's reason, ``suite`` when only a suite database disagreed
    detail: str = ""


@dataclass(frozen=True)
class Outcome:
    """What alignment decided for one item (one line of ``align.jsonl``)."""

    id: str
    target_dialect: str
    gold_sql: str | None  # the verified gold in the target dialect, None: routed to review
    annotation_source: str | None
    annotator: str | None
    attempts: tuple[Attempt, ...]

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "attempts": [asdict(a) for a in self.attempts]}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Outcome:
        return cls(
            data["id"],
            data["target_dialect"],
            data.get("gold_sql"),
            data.get("annotation_source"),
            data.get("annotator"),
            tuple(Attempt(**a) for a in data.get("attempts", ())),
        )


class Verifier:
    """Dual execution (and the test suite) of candidate golds with the eval judge."""

    def __init__(
        self,
        timeout: float,
        max_rows: int,
        suite_dir: Path | None,
        urls: dict[str, str] | None = None,
        start: bool = True,
    ):
        self.judge = Judge(
            timeout=timeout, max_rows=max_rows, urls=urls, start=start, suite_dir=suite_dir
        )

    def runnable(self, item: Item) -> bool:
        return (
            self.judge.engine(item.source_dialect) is not None
            and self.judge.engine(item.target_dialect) is not None
        )

    def check(self, item: Item, sql: str, stage: str, annotator: str) -> Attempt:
        record = self.judge.judge(item, Translation.from_sql(sql))
        strict = record["verdicts"]["strict"]
        suite = record.get("suite")
        if strict["match"] and suite is not None and not suite["match"]:
            return Attempt(
                stage,
                annotator,
                sql,
                False,
                "suite",
                f"database {suite['first_failure']} of the test suite disagrees",
            )
        pred: Mapping[str, Any] = record.get("pred") or {}
        reason = "syntax_error" if pred.get("status") == "syntax_error" else strict["reason"]
        return Attempt(
            stage,
            annotator,
            sql,
            bool(strict["match"]),
            str(reason),
            str(strict.get("detail") or pred.get("error") or "")[:500],
        )

    def close(self) -> None:
        self.judge.close()


def as_translation(item: Item) -> Item:
    """The item as a translation of its gold (annotators translate SQL; they never see the
    question)."""
    return replace(item, question=None, evidence=None, reference_sql=())


def rule_rewrite(item: Item) -> Item | None:
    """The item with its gold rewritten by parrot's canonicalisation rules, or None when no rule
    applies."""
    if item.fixture is None:
        return None
    result = canonicalise(item.source_sql, item.source_dialect, Schema.of(item.fixture))
    if not result.edits or result.sql == item.source_sql:
        return None
    return replace(item, source_sql=result.sql)


Producer = Callable[[list[Item]], list[tuple[Item, Translation, str]]]  # → (item, answer, who)


def translator_stage(spec: str, translator: Translator) -> Producer:
    def produce(items: list[Item]) -> list[tuple[Item, Translation, str]]:
        return [
            (i, t, t.member or spec)
            for i, t in translator.translate_all([as_translation(i) for i in items])
        ]

    return produce


def rule_stage(sqlglot: Translator) -> Producer:
    def produce(items: list[Item]) -> list[tuple[Item, Translation, str]]:
        rewritten = {i.id: r for i in items if (r := rule_rewrite(as_translation(i)))}
        return [
            (i, t, "canonicalise+sqlglot")
            for i, t in sqlglot.translate_all(list(rewritten.values()))
        ]

    return produce


class Aligner:
    """Runs the stages over the items still without a verified gold."""

    def __init__(
        self,
        verifier: Verifier,
        stages: Sequence[tuple[str, Producer]],
        on_outcome: Callable[[Outcome], None],
    ):
        self.verifier = verifier
        self.stages = stages
        self.on_outcome = on_outcome

    def align(self, items: list[Item]) -> list[Outcome]:
        by_id = {i.id: i for i in items}
        attempts: dict[str, list[Attempt]] = {i.id: [] for i in items}
        pending = list(items)
        out = []
        for stage, produce in self.stages:
            if not pending:
                break
            won = set()
            for answered, translation, who in produce(pending):
                item = by_id[answered.id]
                if item.id in won or not (translation.ok and translation.sql):
                    continue
                if any(a.sql == translation.sql for a in attempts[item.id]):
                    continue  # already judged at an earlier stage
                attempt = self.verifier.check(item, translation.sql, stage, who)
                attempts[item.id].append(attempt)
                if attempt.ok:
                    won.add(item.id)
                    outcome = Outcome(
                        item.id,
                        item.target_dialect,
                        attempt.sql,
                        stage,
                        who,
                        tuple(attempts[item.id]),
                    )
                    out.append(outcome)
                    self.on_outcome(outcome)
            pending = [i for i in pending if i.id not in won]
        for item in pending:
            outcome = Outcome(
                item.id, item.target_dialect, None, None, None, tuple(attempts[item.id])
            )
            out.append(outcome)
            self.on_outcome(outcome)
        return out


def read_log(path: Path) -> dict[str, Outcome]:
    """The outcomes logged so far (the last line of an id wins; a torn last line is ignored)."""
    out: dict[str, Outcome] = {}
    if not path.is_file():
        return out
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            outcome = Outcome.from_json(json.loads(line))
        except (json.JSONDecodeError, KeyError, TypeError):
            continue
        out[outcome.id] = outcome
    return out


def review_entry(item: Item, outcome: Outcome) -> dict[str, Any]:
    """A review-queue entry in curation's format (``fixed_sql`` for the reviewer)."""
    return {
        "id": item.id,
        "source_dialect": item.source_dialect,
        "target_dialect": item.target_dialect,
        "source_sql": item.source_sql,
        "question": item.question,
        "origin": item.origin,
        "fixture": item.fixture.name if item.fixture else None,
        "candidates": [
            {
                "candidate": a.sql,
                "annotator": a.annotator,
                "stage": a.stage,
                "reason": a.reason,
                "detail": a.detail,
                "round": None,
            }
            for a in outcome.attempts
        ],
        "fixed_sql": "",
    }


def aligned_records(
    raw: list[dict[str, Any]], outcomes: dict[str, Outcome]
) -> list[dict[str, Any]]:
    """The dataset's item records with the verified golds written in."""
    out = []
    for r in raw:
        o = outcomes.get(r["id"])
        if o is not None and o.gold_sql is not None:
            r = {
                **r,
                "reference_sql": [o.gold_sql],
                "annotation_source": o.annotation_source,
                "annotators": [o.annotator],
                "tags": [*(r.get("tags") or []), "gold:aligned"],
            }
        elif o is not None:
            r = {**r, "tags": [*(r.get("tags") or []), "gold:unaligned"]}
        out.append(r)
    return out


def card(
    name: str,
    source: str,
    records: list[dict[str, Any]],
    outcomes: dict[str, Outcome],
    skipped: Counter[str],
) -> str:
    targets = sorted({o.target_dialect for o in outcomes.values()})
    table = Counter((o.target_dialect, o.annotation_source or "review") for o in outcomes.values())
    cols = [*STAGES[:-1], "human", "review"]
    lines = [
        f"# {name} — aligned per-dialect golds",
        "",
        f"Built by `python -m parrot.text2sql align` from `{source}`: per question and "
        "target dialect, the first verified candidate of sqlglot (tool) → rewrite rules + "
        "sqlglot (rule) → annotators (llm) → reflection with execution feedback → human "
        "review. Each gold agrees with the SQLite gold by dual execution (and on the item's "
        "test suite where one exists).",
        "",
        f"{len(records)} items; {len(outcomes)} aligned or queued for review.",
        "",
        "| target | " + " | ".join(cols) + " | total |",
        "|---|" + "---:|" * (len(cols) + 1),
        *[
            f"| {t} | "
            + " | ".join(str(table[(t, c)]) for c in cols)
            + f" | {sum(table[(t, c)] for c in cols)} |"
            for t in targets
        ],
        "",
    ]
    if skipped:
        lines += [
            "| not aligned | items |",
            "|---|---:|",
            *[f"| {k} | {v} |" for k, v in sorted(skipped.items())],
            "",
        ]
    return "\n".join(lines)


def build_parser(p: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """Fill ``p`` with the flags of ``parrot text2sql align``."""
    p.add_argument(
        "dataset",
        metavar="DATASET",
        help="a text-to-SQL dataset (directory or items.jsonl) from `build`",
    )
    cli.add_output_dir(
        p, "the aligned dataset (align.jsonl, items.jsonl, review.jsonl, README.md)", required=True
    )
    p.add_argument(
        "--annotator",
        metavar="SPEC",
        action="append",
        default=[],
        help="an LLM stage: any --model spec (repeatable; tried in order)",
    )
    cli.add_api_base(p, "the annotators'")
    p.add_argument(
        "--reflection",
        metavar="K",
        type=int,
        default=2,
        help="rounds of execution feedback for the LLM annotators (0: no reflection stage)",
    )
    p.add_argument(
        "--fixes",
        metavar="FILE",
        type=Path,
        default=None,
        help="a review.jsonl or review.csv with fixed_sql filled in: verify the fixes "
        "(annotation_source human)",
    )
    p.add_argument(
        "--targets",
        metavar="DIALECTS",
        default=None,
        help="only these target dialects (comma-separated)",
    )
    cli.add_limit(p, "items to align")
    cli.add_timeout(p, 10.0, "per execution")
    cli.add_max_rows(p, 100_000)
    cli.add_quiet(p, "progress lines")
    return p


def stages(
    annotators: Sequence[str],
    reflection: int,
    verifier: Verifier,
    timeout: float,
    max_rows: int,
    api_base: str | None = None,
) -> tuple[list[tuple[str, Producer]], list[Any]]:
    """The producers of every stage, and what to close after the run."""
    sqlglot = create_translator("sqlglot")
    out: list[tuple[str, Producer]] = [
        ("tool", translator_stage("sqlglot", sqlglot)),
        ("rule", rule_stage(sqlglot)),
    ]
    closing: list[Any] = []
    for spec in annotators:
        t = create_translator(spec, llm=LLMOptions(api_base=api_base))
        closing.append(t)
        out.append(("llm", translator_stage(spec, t)))
    if reflection > 0:
        for spec in annotators:
            t = create_translator(
                spec, llm=LLMOptions(api_base=api_base, reflection=reflection, feedback="results")
            )
            if t.feedback_mode is None:
                t.close()
                continue  # not an LLM: nothing to reflect
            feedback = EngineFeedback(
                "results",
                timeout=timeout,
                max_rows=max_rows,
                urls=verifier.judge.urls,
                start=verifier.judge.start,
            )
            t.attach_feedback(feedback)
            closing += [t, feedback]
            out.append(("reflection", translator_stage(spec, t)))
    return out, closing


def fixes_stage(path: Path) -> Producer:
    fixed = {
        e["id"]: e["fixed_sql"].strip()
        for e in read_review(path)
        if str(e.get("fixed_sql", "")).strip()
    }

    def produce(items: list[Item]) -> list[tuple[Item, Translation, str]]:
        return [(i, Translation.from_sql(fixed[i.id]), "review") for i in items if i.id in fixed]

    return produce


def _todo(
    args: argparse.Namespace, dataset: Dataset, outcomes: dict[str, Outcome], verifier: Verifier
) -> tuple[list[Item], Counter[str]]:
    """The items to align (at most ``--limit``), and why the others cannot be aligned here."""
    wanted = (
        {dialects.resolve(t) for t in args.targets.split(",") if t.strip()}
        if args.targets
        else None
    )
    skipped: Counter[str] = Counter()
    todo = []
    for item in dataset.items:
        if item.target_dialect == item.source_dialect or (
            wanted and item.target_dialect not in wanted
        ):
            continue
        if "gold:error" in item.tags:
            skipped["gold fails on its own engine"] += 1
        elif not verifier.runnable(item):
            skipped[f"no engine for {item.target_dialect}"] += 1
        elif args.fixes is not None or item.id not in outcomes:
            todo.append(item)
    return todo[: args.limit], skipped


def _align(
    args: argparse.Namespace,
    todo: list[Item],
    outcomes: dict[str, Outcome],
    verifier: Verifier,
    log_path: Path,
) -> bool:
    """Align ``todo``, appending each outcome to the log; False (the error printed, the
    verifier closed) when the stages cannot start."""
    try:
        if args.fixes is not None:
            queued = {o.id for o in outcomes.values() if o.gold_sql is None}
            todo = [i for i in todo if i.id in queued]
            producers: list[tuple[str, Producer]] = [("human", fixes_stage(args.fixes))]
            closing: list[Any] = []
        else:
            producers, closing = stages(
                args.annotator,
                args.reflection,
                verifier,
                args.timeout,
                args.max_rows,
                args.api_base,
            )
    except (ValueError, LookupError, OSError) as exc:
        verifier.close()
        print(f"error: {exc}", file=sys.stderr)
        return False
    done = Counter[str]()
    with log_path.open("a", encoding="utf-8") as log:

        def record(o: Outcome) -> None:
            if args.fixes is not None and o.gold_sql is None:
                return  # a fix that still disagrees: the queued entry stays as it was
            log.write(json.dumps(o.to_json(), ensure_ascii=False) + "\n")
            log.flush()
            outcomes[o.id] = o
            done[o.annotation_source or "review"] += 1
            if not args.quiet and sum(done.values()) % 50 == 0:
                print(f"  {sum(done.values())}/{len(todo)} items: {dict(done)}", file=sys.stderr)

        try:
            Aligner(verifier, producers, record).align(todo)
        finally:
            for c in closing:
                c.close()
            verifier.close()
    return True


def _write(
    args: argparse.Namespace,
    dataset: Dataset,
    raw: list[dict[str, Any]],
    outcomes: dict[str, Outcome],
    skipped: Counter[str],
) -> None:
    """The aligned dataset (items, fixtures, suites), its review queue and its card."""
    out: Path = args.output_dir
    records = aligned_records(raw, outcomes)
    for folder in ("fixtures", "suites"):  # the aligned dataset judges items as the source did
        if (dataset.path.parent / folder).is_dir():
            shutil.copytree(dataset.path.parent / folder, out / folder, dirs_exist_ok=True)
    items_path = out / "items.jsonl"
    tmp = items_path.with_suffix(".jsonl.tmp")
    tmp.write_text(
        "".join(json.dumps(item_line(r), ensure_ascii=False) + "\n" for r in records),
        encoding="utf-8",
    )
    tmp.replace(items_path)
    by_id = dataset.by_id()
    write_review(
        out,
        [
            review_entry(by_id[o.id], o)
            for o in outcomes.values()
            if o.gold_sql is None and o.id in by_id
        ],
    )
    (out / "README.md").write_text(
        card(out.name, str(args.dataset), records, outcomes, skipped), encoding="utf-8"
    )
    sources = Counter(o.annotation_source or "review" for o in outcomes.values())
    print(
        f"wrote {items_path}: {sum(v for k, v in sources.items() if k != 'review')} of "
        f"{len(outcomes)} items aligned ({', '.join(f'{k} {v}' for k, v in sources.items())}); "
        f"{sources['review']} in {out / 'review.jsonl'}; "
        f"{sum(skipped.values())} not alignable here"
    )


def run(args: argparse.Namespace) -> int:
    """The ``align`` command (arguments from :func:`build_parser`): read the dataset and the
    log, align what is left (:func:`_align`), write the aligned dataset (:func:`_write`)."""
    try:
        dataset = load_dataset(args.dataset, count_tokens=False)
        raw = [
            json.loads(line)
            for line in dataset.path.read_text(encoding="utf-8").splitlines()
            if line.strip()
        ]
    except (ValueError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    out: Path = args.output_dir
    out.mkdir(parents=True, exist_ok=True)
    log_path = out / LOG
    outcomes = read_log(log_path)
    suite_dir = dataset.path.parent if (dataset.path.parent / "suites").is_dir() else None
    verifier = Verifier(args.timeout, args.max_rows, suite_dir)
    todo, skipped = _todo(args, dataset, outcomes, verifier)
    if not _align(args, todo, outcomes, verifier, log_path):
        return 2
    _write(args, dataset, raw, outcomes, skipped)
    return 0
