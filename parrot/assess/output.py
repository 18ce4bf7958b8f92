"""What an assessment writes besides ``assessment.jsonl``: the translated tree and the page."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import sqlglot
from sqlglot.errors import SqlglotError

from parrot.assess.verify import FAILED, NOT_ASSESSED, REVIEW, VERIFIED

VERDICTS = (
    (VERIFIED, "verified on data"),
    (REVIEW, "need review (a database disagrees)"),
    (FAILED, "failed (no translation, or it fails where the source runs)"),
    (NOT_ASSESSED, "could not be assessed"),
)


def _commented(text: str) -> str:
    return "\n".join("-- " + line for line in text.strip().splitlines())


def statement_text(line: dict[str, Any]) -> str:
    """One statement of the translated file: the input's comments before it, the translation
    and a header when it was not verified, or the source commented out with the reason when
    there is no translation; the input's comments after it on its line follow it."""
    why = f"{line['verdict']}: {line['reason']} {line.get('detail') or ''}".strip()
    tail = line.get("trailing_comments") or ""
    if not line.get("translation"):
        kept = (line["comments"] + "\n") if line.get("comments") else ""
        source = _commented(line["source_sql"])
        return f"{kept}-- parrot assess: not translated ({why})\n{source}" + (
            f"\n{tail}" if tail else ""
        )
    head = "" if line["verdict"] == VERIFIED else f"-- parrot assess: {' '.join(why.split())}\n"
    if line.get("parameterised_sql"):  # translated and judged with values in its placeholders
        head += (
            "-- parrot assess: the input has placeholders: "
            + " ".join(line["parameterised_sql"].split())
            + "\n"
        )
    body = line["translation"].strip().rstrip(";") + ";" + (f" {tail}" if tail else "")
    if line.get("comments"):  # the input's, before the statement (translators drop them)
        head = line["comments"] + "\n" + head
    return head + body


def write_tree(lines: list[dict[str, Any]], out: Path) -> list[Path]:
    """``out/<path>`` for every input file, its statements in input order."""
    files: dict[str, list[dict[str, Any]]] = {}
    for line in sorted(lines, key=lambda x: (x["path"], x["index"])):
        files.setdefault(line["path"], []).append(line)
    written = []
    for path, members in files.items():
        target = out / path
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(target.name + ".tmp")
        tmp.write_text("\n\n".join(statement_text(x) for x in members) + "\n", encoding="utf-8")
        tmp.replace(target)
        written.append(target)
    return written


def constructs(sql: str, dialect: str) -> set[str]:
    """The sqlglot node types and function names of ``sql`` (empty when it does not parse)."""
    try:
        tree = sqlglot.parse_one(sql, read=dialect)
    except SqlglotError:
        return set()
    if tree is None:
        return set()
    out = set()
    for node in tree.walk():
        if isinstance(node, sqlglot.exp.Func):
            out.add(
                node.sql_name()
                if not isinstance(node, sqlglot.exp.Anonymous)
                else str(node.this).upper()
            )
        elif type(node).__name__ not in (
            "Column",
            "Identifier",
            "Literal",
            "Table",
            "Star",
            "TableAlias",
            "Alias",
            "Paren",
            "Select",
            "From",
        ):
            out.add(type(node).__name__)
    return out


def failing_constructs(
    lines: list[dict[str, Any]], dialect: str, top: int = 15
) -> list[tuple[str, int, int]]:
    """(construct, statements not verified, statements judged), worst share first."""
    judged, bad = Counter[str](), Counter[str]()
    for line in lines:
        if line["verdict"] == NOT_ASSESSED:
            continue
        found = constructs(line["source_sql"], dialect)
        judged.update(found)
        if line["verdict"] != VERIFIED:
            bad.update(found)
    rows = [(c, bad[c], judged[c]) for c in bad]
    rows.sort(key=lambda r: (-r[1] / r[2], -r[1], r[0]))
    return rows[:top]


def write_html(lines: list[dict[str, Any]], out: Path, meta: dict[str, Any]) -> Path:
    from jinja2 import Environment, PackageLoader, select_autoescape

    env = Environment(
        loader=PackageLoader("parrot.assess", "templates"),
        autoescape=select_autoescape(["html", "j2"]),
    )
    counts = Counter(line["verdict"] for line in lines)
    reasons = Counter(
        (line["verdict"], line["reason"]) for line in lines if line["verdict"] != VERIFIED
    )
    review = {line["template"] for line in lines if line["verdict"] in (REVIEW, FAILED)}
    page = env.get_template("assessment.html.j2").render(
        verdicts=VERDICTS,
        counts=counts,
        statements=len(lines),
        templates=len({line["template"] for line in lines}),
        review_templates=len(review),
        reasons=reasons.most_common(),
        constructs=failing_constructs(lines, meta["source"]),
        rows=sorted(lines, key=lambda x: (x["path"], x["index"])),
        **meta,
    )
    path = out / "assessment.html"
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(page, encoding="utf-8")
    tmp.replace(path)
    return path
