"""``python -m parrot.text2sql build QUESTIONS --output-dir DIR``: a cross-dialect text-to-SQL
dataset from natural-language questions with SQLite golds (``$PARROT_CORPORA/nl/*.jsonl``).
(``align`` and ``taxonomy``, the other commands: :mod:`parrot.text2sql.align`,
:mod:`parrot.text2sql.taxonomy`.)

One item per question × target dialect (``<question id>-<target>``): the question, the gold as
``source_sql`` on the question's Spider database (named fixture ``spider/<db_id>``), and
``reference_sql`` only where a gold exists in the target dialect (the SQLite target). Golds whose
result is not determined by the question are found and tagged, never silently kept:
``gold:limit-ties`` (a LIMIT cuts rows tied on the sort keys), ``gold:order-missing`` (the question
asks for an order the gold does not impose) and ``gold:error`` (the gold fails on SQLite).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from parrot import cli, dialects
from parrot.datasets import item_line, parse_items
from parrot.eval.judge import Judge
from parrot.migrate.named import corpora_root as root
from parrot.sqlfacts import order_facts
from parrot.textfiles import read_utf8

LOCAL_TARGETS = ("sqlite", "duckdb", "clickhouse", "postgres", "mysql", "spark")
GRAMMAR_TARGETS = ("tsql", "oracle", "snowflake", "bigquery", "trino")  # scored by Acc_SYN
ORDER_WORDS = re.compile(
    r"\b(in (\w+ )?order|sort(ed)?|ascending|descending|alphabetical(ly)?|ranked|"
    r"from (the )?(highest|lowest|largest|smallest|most|least|oldest|youngest|newest))\b",
    re.I,
)


class BuildError(Exception):
    """A question file or output directory that cannot be used."""


def corpora_root() -> Path:
    return root()


def questions_path(spec: str) -> Path:
    """A question file: a path, or a name in ``$PARROT_CORPORA/nl/`` (``spider_dev``, …)."""
    path = Path(spec)
    if path.is_file():
        return path
    named = corpora_root() / "nl" / f"{spec}.jsonl"
    if named.is_file():
        return named
    raise BuildError(
        f"{spec}: no such question file, and not a name in {named.parent} "
        "(set PARROT_CORPORA to the public corpora folder)"
    )


def read_questions(path: Path) -> list[dict[str, Any]]:
    out = []
    for n, line in enumerate(read_utf8(path).splitlines(), 1):
        if not line.strip():
            continue
        try:
            q = json.loads(line)
            missing = [k for k in ("id", "db_id", "question", "gold_sql") if k not in q]
        except (json.JSONDecodeError, TypeError) as exc:
            raise BuildError(f"{path}:{n}: not a JSON object: {exc}") from None
        if missing:
            raise BuildError(f"{path}:{n}: missing {', '.join(missing)}")
        out.append(q)
    return out


def order_missing(question: str, gold: str, dialect: str) -> bool:
    """The question asks for an order that the gold's top-level query does not impose."""
    return bool(ORDER_WORDS.search(question)) and not order_facts(gold, dialect).ordered


def item_record(q: dict[str, Any], target: str, origin: str) -> dict[str, Any]:
    source = dialects.resolve(q.get("gold_dialect", "sqlite"))
    record: dict[str, Any] = {
        "id": f"{q['id']}-{target}",
        "question_id": str(q["id"]),
        "source_dialect": source,
        "target_dialect": target,
        "source_sql": q["gold_sql"].strip(),
        "question": q["question"],
        "fixture": {"name": f"spider/{q['db_id']}"},
        "origin": origin,
        "annotation_source": "human",
        "tags": ["text2sql"],
    }
    if q.get("evidence"):
        record["evidence"] = q["evidence"]
    if target == source:
        record["reference_sql"] = [record["source_sql"]]
    return record


def gold_flags(records: list[dict[str, Any]], check: bool) -> dict[str, list[str]]:
    """Tags per question id: order words without ORDER BY, and (``check``) the golds run on
    the source engine — failures and LIMITs that cut ties (questions whose database cannot be
    resolved here are not run)."""
    firsts = {r["question_id"]: r for r in reversed(records)}
    flags: dict[str, list[str]] = {}
    for qid, r in firsts.items():
        if order_missing(r["question"], r["source_sql"], r["source_dialect"]):
            flags.setdefault(qid, []).append("gold:order-missing")
    if not check:
        return flags

    skipped: list[tuple[str, str]] = []
    items = parse_items(
        [json.dumps(r) for r in firsts.values()], Path("questions.jsonl"), skipped=skipped
    )
    judge = Judge(timeout=30)
    try:
        for item in items:
            qid = str(item.extra["question_id"])
            if not judge.gold(item).execution.ok:
                flags.setdefault(qid, []).append("gold:error")
            elif judge.limit_cuts_ties(item):
                flags.setdefault(qid, []).append("gold:limit-ties")
    finally:
        judge.close()
    return flags


def build(
    questions: list[dict[str, Any]], targets: list[str], origin: str, check: bool = True
) -> tuple[list[dict[str, Any]], Counter[str]]:
    """The dataset's item records and the counts of what was left out or tagged."""
    spider = corpora_root() / "sqlite" / "spider"
    counts: Counter[str] = Counter()
    kept = []
    for q in questions:
        if spider.is_dir() and not (spider / q["db_id"]).exists():
            counts["skipped: database not in the corpora"] += 1
            continue
        kept.append(q)
    records = [item_record(q, t, origin) for q in kept for t in targets]
    flags = gold_flags(records, check)
    for r in records:
        r["tags"] = [*r["tags"], *flags.get(r["question_id"], [])]
    for tags in flags.values():
        counts.update(tags)
    counts["questions"] = len(kept)
    return records, counts


def card(
    name: str, source: Path, targets: list[str], records: list[dict[str, Any]], counts: Counter[str]
) -> str:
    per_target = Counter(r["target_dialect"] for r in records)
    lines = [
        f"# {name} — cross-dialect text-to-SQL",
        "",
        f"Built by `python -m parrot.text2sql build` from `{source.name}` "
        "(questions with SQLite golds; Spider: CC BY-SA 4.0). Not shipped with parrot: "
        "rebuild it from the public corpora.",
        "",
        f"{counts['questions']} questions × {len(targets)} target dialects = "
        f"{len(records)} items. The gold is `source_sql` (SQLite) on the question's Spider "
        "database; `reference_sql` exists only for the SQLite target. Targets without an "
        "engine here ("
        + ", ".join(t for t in targets if t in GRAMMAR_TARGETS)
        + ") are scored by Acc_SYN.",
        "",
        "| target | items |",
        "|---|---:|",
        *[f"| {t} | {per_target[t]} |" for t in targets],
        "",
        "| gold flag / left out | questions |",
        "|---|---:|",
        *[f"| {k} | {v} |" for k, v in sorted(counts.items()) if k != "questions"],
        "",
    ]
    return "\n".join(lines)


def configure(p: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """Fill ``p`` with the build, align and taxonomy commands (also ``parrot text2sql``'s)."""
    cli.configure(p, build_command, "Build cross-dialect text-to-SQL datasets.")
    sub = p.add_subparsers(title="commands", dest="command", metavar="COMMAND", required=True)
    text = "a dataset of question × target dialect items"
    b = cli.configure(sub.add_parser("build", help=text, description=text), build_command)
    b.add_argument(
        "questions",
        metavar="QUESTIONS",
        help="a JSONL of {id, db_id, question, gold_sql[, gold_dialect, evidence]}, "
        "or a name in $PARROT_CORPORA/nl/ (spider_dev, spider_syn_dev, "
        "spider_realistic, spider_dk)",
    )
    b.add_argument(
        "--targets",
        metavar="DIALECTS",
        default=",".join(LOCAL_TARGETS + GRAMMAR_TARGETS),
        help="target dialects, comma-separated",
    )
    cli.add_limit(b, "questions")
    b.add_argument(
        "--no-check",
        dest="check",
        action="store_false",
        help="do not run the golds on SQLite (skips the gold:error and gold:limit-ties checks)",
    )
    cli.add_output_dir(b, "the dataset (items.jsonl, README.md)", required=True)
    # deferred: scipy, numpy (loaded only on this path)
    from parrot.text2sql import align, taxonomy

    text = (
        "UniQL-style aligned golds: per question and dialect, verified candidates from "
        "sqlglot, rewrite rules, --annotator models, reflection, then human review"
    )
    align.build_parser(
        cli.configure(sub.add_parser("align", help=text, description=text), align.run)
    )
    text = (
        "label a run's dialect-shift failures (rules + AST diff, optional --judge LLM) "
        "into RUN/taxonomy.jsonl"
    )
    taxonomy.build_parser(
        cli.configure(sub.add_parser("taxonomy", help=text, description=text), taxonomy.run)
    )
    return p


build_parser, main = cli.entry_points("python -m parrot.text2sql", configure)


def build_command(args: argparse.Namespace) -> int:
    """``build``: write the dataset ``args`` describe."""
    try:
        targets = [dialects.resolve(t) for t in args.targets.split(",") if t.strip()]
        source = questions_path(args.questions)
        questions = read_questions(source)[: args.limit]
        name = args.output_dir.name or source.stem
        records, counts = build(questions, targets, origin=source.stem, check=args.check)
        args.output_dir.mkdir(parents=True, exist_ok=True)
        items = args.output_dir / "items.jsonl"
        tmp = items.with_suffix(".jsonl.tmp")
        tmp.write_text(
            "".join(json.dumps(item_line(r), ensure_ascii=False) + "\n" for r in records),
            encoding="utf-8",
        )
        tmp.replace(items)
        (args.output_dir / "README.md").write_text(
            card(name, source, targets, records, counts), encoding="utf-8"
        )
    except (BuildError, ValueError, OSError) as exc:  # ValueError: unknown dialect, not UTF-8
        print(f"error: {exc}", file=sys.stderr)
        return 2
    flagged = sum(v for k, v in counts.items() if k.startswith("gold:"))
    print(
        f"wrote {items}: {counts['questions']} questions × {len(targets)} targets = "
        f"{len(records)} items; {flagged} gold flag(s); "
        f"{counts['skipped: database not in the corpora']} question(s) left out "
        "(database not in the corpora)"
    )
    return 0
