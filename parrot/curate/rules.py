"""Rule evolution (UniQL): per-dialect rewrite rules, as data, applied over sqlglot's output.

Rules live in ``parrot/curate/rules/*.toml`` (one ``[[rule]]`` table each), derived from
sqlglot's failures on the curation review queue. A rule names its pair (``source``, ``target``;
``*`` = any), a case-insensitive regular expression over sqlglot's target SQL and its
replacement (Python ``re.sub`` syntax), why it exists (``why``: the review signal it answers),
and a test pair (``test_source``, ``test_target``) with its engine check: on the real engines,
``test_target`` must return ``test_source``'s result (strict), sqlglot's own translation of
``test_source`` must not, and the rule applied to sqlglot's translation must give
``test_target`` (:func:`check_rule`; ``python -m parrot.curate rules check``).

``--annotator rules`` (also ``--model rules``) is :class:`RulesTranslator`: sqlglot, then every
rule of the pair in file order; a statement no rule changes gets no candidate (sqlglot's own
already is one). Its candidates carry ``annotation_source: "rule"``.
``python -m parrot.curate rules yield DIR/review.jsonl`` measures how many queued pairs the rules
turn into verified items (and with ``-o DIR`` adds them to that dataset).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import time
import tomllib
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path
from typing import Any

from parrot import cli, dialects
from parrot.curate.review import add_items, read_review, record_of
from parrot.curate.serialise import write_review
from parrot.curate.stages import Candidate
from parrot.curate.verify import DEFAULT_MAX_ROWS, Verify
from parrot.datasets import Item
from parrot.eval.judge import EMPTY_FIXTURE, Judge
from parrot.translators.base import Translation, TranslationStatus, Translator
from parrot.translators.registry import register
from parrot.translators.sqlglot_baseline import SqlglotTranslator

RULES_DIR = Path(__file__).with_name("rules")
ANY = "*"


@dataclass(frozen=True)
class Rule:
    name: str
    source: str
    target: str
    pattern: str
    replacement: str
    why: str
    test_source: str
    test_target: str
    file: str = ""

    def applies(self, source: str, target: str) -> bool:
        return self.source in (ANY, source) and self.target in (ANY, target)

    def apply(self, sql: str) -> str:
        return re.sub(self.pattern, self.replacement, sql, flags=re.IGNORECASE)


FIELDS = ("name", "source", "target", "pattern", "replacement", "why", "test_source", "test_target")


def load_rules(folder: Path = RULES_DIR) -> tuple[Rule, ...]:
    """Every rule in ``folder/*.toml``, in file then table order; ValueError on a bad one."""
    rules: list[Rule] = []
    for path in sorted(folder.glob("*.toml")):
        for i, table in enumerate(tomllib.loads(path.read_text(encoding="utf-8")).get("rule", [])):
            missing = [f for f in FIELDS if not isinstance(table.get(f), str)]
            if missing:
                raise ValueError(f"{path.name}: rule {i + 1} lacks {', '.join(missing)}")
            try:
                re.compile(table["pattern"])
            except re.error as exc:
                raise ValueError(f"{path.name}: rule {table['name']}: bad pattern: {exc}") from None
            sides = {
                k: table[k] if table[k] == ANY else dialects.resolve(table[k])
                for k in ("source", "target")
            }
            rules.append(Rule(**{**{f: table[f] for f in FIELDS}, **sides}, file=path.name))
    names = [r.name for r in rules]
    if len(names) != len(set(names)):
        raise ValueError(f"duplicate rule names in {folder}")
    return tuple(rules)


def rules_digest(folder: Path = RULES_DIR) -> str:
    h = hashlib.sha256()
    for path in sorted(folder.glob("*.toml")):
        h.update(path.name.encode() + b"\0" + path.read_bytes())
    return h.hexdigest()[:16]


def rewrite(sql: str, source: str, target: str, rules: tuple[Rule, ...]) -> tuple[str, list[str]]:
    """``sql`` (sqlglot's output) with every applicable rule applied; the rules that changed it."""
    fired = []
    for rule in rules:
        if rule.applies(source, target):
            new = rule.apply(sql)
            if new != sql:
                fired.append(rule.name)
                sql = new
    return sql, fired


@cache
def _sqlglot() -> Translator:
    return SqlglotTranslator()


@register("rules")
class RulesTranslator(Translator):
    """sqlglot's translation rewritten by the rewrite rules of the pair (see module docstring)."""

    name = "rules"

    def __init__(self, folder: str | None = None):
        self.folder = Path(folder) if folder else RULES_DIR
        self.rules = load_rules(self.folder)

    def params(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "rules": len(self.rules),
            "digest": rules_digest(self.folder),
            "base": _sqlglot().params(),
        }

    def translate(self, item: Item) -> Translation:
        start = time.perf_counter()
        base = _sqlglot().translate(item)
        if not (base.ok and base.sql):
            return Translation(
                base.status,
                error=f"sqlglot: {base.error}",
                latency=time.perf_counter() - start,
                annotation_source="rule",
            )
        sql, fired = rewrite(base.sql, item.source_dialect, item.target_dialect, self.rules)
        if not fired:
            return Translation(
                TranslationStatus.UNSUPPORTED,
                error="no rule applies",
                latency=time.perf_counter() - start,
                annotation_source="rule",
            )
        return Translation.from_sql(
            sql,
            raw=json.dumps({"rules": fired}),
            latency=time.perf_counter() - start,
            annotation_source="rule",
        )


# --- the engine check of every rule, and the yield on a review queue ---------------------------


def check_rule(rule: Rule, judge: Any = None) -> list[str]:
    """What is wrong with ``rule`` (empty: it is proven); ``judge=None`` checks only the text
    (the rule turns sqlglot's translation of test_source into test_target), not the engines."""
    problems = []
    sides = [rule.source, rule.target]
    if ANY in sides:
        return [f"{rule.name}: a test needs concrete dialects, not {rule.source}:{rule.target}"]
    item = Item(
        id=rule.name,
        source_dialect=rule.source,
        target_dialect=rule.target,
        source_sql=rule.test_source,
        fixture=EMPTY_FIXTURE,
    )
    base = SqlglotTranslator().translate(item)
    if not (base.ok and base.sql):
        return [f"{rule.name}: sqlglot does not translate the test source ({base.error})"]
    rewritten, fired = rewrite(base.sql, rule.source, rule.target, (rule,))
    if not fired:
        problems.append(f"{rule.name}: the rule does not change sqlglot's output {base.sql!r}")
    if " ".join(rewritten.split()) != " ".join(rule.test_target.split()):
        problems.append(f"{rule.name}: the rule gives {rewritten!r}, not test_target")
    if judge is None:
        return problems
    absent = [d for d in dict.fromkeys(sides) if judge.engine(d) is None]
    if absent:  # not a wrong rule: it cannot be proven here
        return [*problems, f"{rule.name}: not proven: no engine here for {', '.join(absent)}"]

    def match(sql: str) -> bool:
        record = judge.judge(item, Translation(TranslationStatus.OK, sql=sql))
        return bool(record["verdicts"]["strict"]["match"])

    if match(base.sql):
        problems.append(f"{rule.name}: sqlglot's own output already agrees (rule not needed)")
    if not match(rule.test_target):
        problems.append(f"{rule.name}: test_target does not return test_source's result")
    return problems


def measure_yield(
    entries: list[dict[str, Any]], timeout: float
) -> tuple[list[Any], dict[str, Any]]:
    """The review entries the rules turn into verified records, and the counts."""
    from collections import Counter

    translator = RulesTranslator()
    fired: Counter[str] = Counter()
    by_id: dict[str, list[str]] = {}
    records = []
    for entry in entries:
        item = Item(
            id=entry["id"],
            source_dialect=entry["source_dialect"],
            target_dialect=entry["target_dialect"],
            source_sql=entry["source_sql"],
        )
        t = translator.translate(item)
        if not (t.ok and t.sql):
            continue
        by_id[entry["id"]] = json.loads(t.raw or "{}").get("rules", [])
        fired.update(by_id[entry["id"]])
        records.append(
            replace(
                record_of({**entry, "fixed_sql": t.sql}),
                candidates=(Candidate(t.sql, "rules", "rule"),),
            )
        )
    batch = Verify(timeout, DEFAULT_MAX_ROWS, review=True).map(records)
    verified_by: Counter[str] = Counter()
    for r in batch.records:
        verified_by.update(by_id[r.id])
    counts = {
        "queued": len(entries),
        "rewritten": len(records),
        "verified": len(batch.records),
        "rules_fired": dict(fired.most_common()),
        "verified_by_rule": dict(verified_by.most_common()),
    }
    return batch.records, counts


DESCRIPTION = "check the rewrite rules, or measure their yield"


def configure(p: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """Fill ``p`` with the actions of ``parrot curate rules``."""
    cli.configure(p, rules_command, DESCRIPTION)
    sub = p.add_subparsers(dest="rules_action", metavar="ACTION", required=True)
    text = "run every rule's test pair on the engines"
    cli.configure(sub.add_parser("check", help=text, description=text), rules_command)
    text = "queued pairs of a review.jsonl the rules verify"
    y = cli.configure(sub.add_parser("yield", help=text, description=text), rules_command)
    y.add_argument("file", type=Path, help="a curation run's review.jsonl")
    cli.add_output_dir(
        y,
        "a dataset to also add the verified pairs to (taking them out of its review queue)",
        default="none",
        old=("--out",),
        dest="out",
    )
    cli.add_timeout(y, 5.0, "per execution")
    return p


def rules_command(args: argparse.Namespace) -> int:
    """``parrot curate rules check|yield``."""
    if args.rules_action == "check":
        judge = Judge(timeout=10.0)
        try:
            rules = load_rules()
            problems = [msg for rule in rules for msg in check_rule(rule, judge)]
        finally:
            judge.close()
        for msg in problems:
            print(msg)
        print(f"{len(rules)} rules, {len(problems)} problem(s)")
        return 1 if problems else 0

    entries = read_review(args.file)
    records, counts = measure_yield(entries, args.timeout)
    if args.out:
        _add(args.out, records, entries)
    print(json.dumps(counts, indent=1))
    return 0


def _add(out: Path, records: list[Any], entries: list[dict[str, Any]]) -> None:
    """Add verified rule records to ``out``'s items and drop them from its review queue."""
    variant = json.loads((out / "manifest.json").read_text(encoding="utf-8"))["variant"]
    done = set(add_items(out, variant, records))
    write_review(out, [e for e in entries if e["id"] not in done])
