"""``python -m parrot.text2sql taxonomy RUN [--judge MODEL]``: the failure taxonomy of a run's
dialect-shift failures, stored per item in ``RUN/taxonomy.jsonl``.

Every item wrong in a dialect whose question the run answered correctly in the base dialect gets
parrot's rule label (:func:`parrot.report.analysis.failure_class`: engine outcome, comparator
reason, AST diff against the gold) and the differing clauses; with ``--judge`` (any ``--model``
spec of an LLM: ``openai/gpt-4o``, ``local``) also the judge's label, stored beside the rule
label — never instead of it. Lines are appended as items are labelled; a rerun with the same
judge skips the items it already labelled. ``python -m parrot.report RUN`` then shows the judge's
labels and their agreement with the rules.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Mapping
from importlib import resources
from pathlib import Path
from typing import Any

from parrot import cli, dialects
from parrot.api.results import read_results
from parrot.report import analysis, astdiff
from parrot.report import cli as report_cli
from parrot.report.analysis import read_labels
from parrot.translators import create_translator
from parrot.translators.llm.client import LLMError
from parrot.translators.llm.loop import shared_loop
from parrot.translators.llm.options import LLMOptions
from parrot.translators.llm.parsing import Unparseable, parse_answer
from parrot.translators.llm.prompts import parse_template
from parrot.translators.llm.translator import LLMTranslator

FILE = analysis.TAXONOMY_FILE
PROMPT = "taxonomy-judge-v1"


def outcome_text(r: analysis.Record) -> str:
    """What happened to the answer, in words, for the judge."""
    pred: Mapping[str, Any] = r.get("pred") or {}
    if pred.get("status") not in (None, "ok"):
        return f"{pred['status']}: {(pred.get('error') or '')[:400]}"
    verdict = r["verdicts"]["strict"]
    return f"it ran, but the result differs ({verdict['reason']}): {verdict.get('detail', '')}"


class LLMJudge:
    """An LLM asked for one :data:`~parrot.report.analysis.TAXONOMY` label per failure."""

    def __init__(self, spec: str, api_base: str | None = None, cache: Path | None = None):
        options = LLMOptions(api_base=api_base, temperature=0.0, cache_path=cache)
        translator = create_translator(spec, llm=options)
        if not isinstance(translator, LLMTranslator):
            raise ValueError(f"--judge {spec}: not an LLM (use PROVIDER/MODEL or local)")
        self.spec = spec
        self.translator = translator
        text = (
            resources.files("parrot.translators.llm")
            .joinpath("templates", f"{PROMPT}.toml")
            .read_text(encoding="utf-8")
        )
        self.template = parse_template(PROMPT, text, ("system", "user"), "judge prompt")

    def label(
        self, r: analysis.Record, gold: analysis.Gold, question: str | None
    ) -> dict[str, Any]:
        user = self.template.render(
            "user",
            question=f"Question: {question}\n" if question else "",
            gold=gold[0],
            gold_dialect=gold[1],
            dialect=r["target_dialect"],
            pred=r["translation"].get("sql") or "",
            outcome=outcome_text(r),
        )
        messages = [
            {"role": "system", "content": self.template.render("system")},
            {"role": "user", "content": user},
        ]
        out: dict[str, Any] = {
            "model": self.spec,
            "prompt": f"{self.template.id} sha256:{self.template.sha256}",
        }
        try:
            completion = shared_loop().run(self.translator.client.complete(messages))
        except LLMError as exc:
            return {**out, "label": None, "error": str(exc)}
        try:
            answer = parse_answer(completion.content)
        except Unparseable:
            return {**out, "label": None, "error": "unparseable", "raw": completion.content}
        label = (answer.sql or "").strip().strip("`'\". ").lower()
        if label not in analysis.TAXONOMY:
            return {**out, "label": None, "error": f"unknown label {label[:40]!r}"}
        return {**out, "label": label, "reasoning": answer.reasoning}

    def close(self) -> None:
        self.translator.close()


def label_run(
    run_dir: Path, base: str | None, judge: LLMJudge | None, progress: bool = True
) -> Counter[str]:
    """Label the run's dialect-shift failures; returns the counts of what was written."""
    manifest = json.loads((run_dir / "manifest.json").read_text(encoding="utf-8"))
    records = read_results(run_dir)
    base = base or analysis.default_base(records)
    if base is None:
        raise ValueError("the run has no base dialect (sqlite) target: give --base")
    golds = analysis.run_golds(manifest)
    questions = analysis.run_questions(manifest)
    done = read_labels(run_dir)
    failures = analysis.shift_failures(records, base)
    counts: Counter[str] = Counter()
    with (run_dir / FILE).open("a", encoding="utf-8") as fh:
        for n, r in enumerate(failures, 1):
            rid = str(r["id"])
            old = done.get(rid)
            if old is not None and (
                judge is None or (old.get("judge") or {}).get("model") == judge.spec
            ):
                counts["kept"] += 1
                continue
            gold = golds.get(rid)
            entry: dict[str, Any] = {
                "id": rid,
                "dialect": r["target_dialect"],
                "base": base,
                "rule": analysis.failure_class(r, gold=gold),
            }
            sql = r["translation"].get("sql")
            if gold is not None and isinstance(sql, str) and sql:
                d = astdiff.diff(sql, r["target_dialect"], *gold)
                entry["ast_diff"] = list(d.parts) if d.comparable else d.problem
            if judge is not None and gold is not None:
                entry["judge"] = judge.label(r, gold, questions.get(rid))
                counts["judged"] += 1
            fh.write(json.dumps(entry, ensure_ascii=False) + "\n")
            fh.flush()
            counts["labelled"] += 1
            if progress and n % 25 == 0:
                print(f"  {n}/{len(failures)} failures labelled", file=sys.stderr)
    return counts


def build_parser(p: argparse.ArgumentParser) -> argparse.ArgumentParser:
    p.add_argument("run_dir", metavar="RUN", type=Path, help="a run directory of parrot.eval")
    p.add_argument(
        "--judge",
        metavar="MODEL",
        default=None,
        help="also ask this LLM (any --model spec: PROVIDER/MODEL, local) for a label",
    )
    cli.add_api_base(p, "the judge's")
    report_cli.add_base(p)
    cli.add_quiet(p, "progress lines")
    return p


def run(args: argparse.Namespace) -> int:
    """The ``taxonomy`` command (arguments from :func:`build_parser`)."""
    judge = None
    try:
        base = dialects.resolve(args.base) if args.base else None
        if args.judge:
            judge = LLMJudge(args.judge, args.api_base)
        counts = label_run(args.run_dir, base, judge, progress=not args.quiet)
    except (ValueError, LookupError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    finally:
        if judge is not None:
            judge.close()
    print(
        f"{args.run_dir / FILE}: {counts['labelled']} failure(s) labelled"
        + (f", {counts['judged']} by {args.judge}" if args.judge else "")
        + f"; {counts['kept']} already there"
    )
    return 0
