"""Read a model's answer: the JSON object asked for, or whatever real models send instead.

Tried in order: a JSON object (in a code fence or in prose, raw newlines allowed), the same
object with unescaped quotes repaired, a fenced SQL block, SQL starting a line. An answer value
that is an English sentence with no line starting like SQL is prose, not SQL; a keyword opening
a sentence ("Select the rows ...", "With this query ...") does not count as SQL.
Anything else is :class:`Unparseable`.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from parrot.dialects import DIALECTS

ANSWER_KEYS = ("answer", "sql", "translated_sql", "translation", "query")
_FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_+-]*)[ \t]*\n(.*?)(?:```|\Z)", re.S)
_SQL_START = re.compile(
    r"^[ \t]*(?:SELECT|WITH|INSERT|UPDATE|DELETE|CREATE|DROP|ALTER|VALUES|PRAGMA|SET|EXPLAIN|"
    r"SHOW|DESCRIBE|MERGE|REPLACE|BEGIN|DECLARE|\()\b"
    r"(?![ \t]+(?:the|this|these|that|those|your|my|our|me|us|you|it|is|are|of|to|for|an|we|i)\b)",
    re.I | re.M,
)
_PROSE = re.compile(r"[A-Za-z]+(?:[ \t]+[a-z]+){3,}")
_NEXT_KEY = re.compile(r'"\s*,\s*"(?:Reasoning|Confidence)"\s*:', re.I)


class Unparseable(ValueError):
    """No SQL could be read from the answer."""


@dataclass(frozen=True)
class Answer:
    sql: str
    reasoning: str | None = None
    confidence: float | None = None
    form: str = "json"  # json | repaired-json | sql-block | bare-sql


def parse_answer(text: str) -> Answer:
    """The SQL (and reasoning and confidence) in ``text``; raises Unparseable."""
    for parse in (_from_json, _from_repaired_json, _from_sql_fence, _from_bare_sql):
        answer = parse(text)
        if answer is not None:
            return answer
    raise Unparseable("no JSON answer and no SQL in the reply")


def _sql_or_none(
    sql: str, form: str, reasoning: str | None = None, conf: float | None = None
) -> Answer | None:
    """An Answer unless ``sql`` is prose: a sentence with no line that starts like SQL."""
    sql = _clean_sql(sql)
    if _PROSE.search(sql) and not _SQL_START.search(sql):
        return None
    return Answer(sql, reasoning, conf, form=form)


def _from_json(text: str) -> Answer | None:
    decoder = json.JSONDecoder(strict=False)  # raw newlines inside strings are common
    starts = [m.start() for m in re.finditer(r"\{", text)][:20]
    for start in starts:
        try:
            obj, _ = decoder.raw_decode(text, start)
        except json.JSONDecodeError:
            continue
        if isinstance(obj, dict):
            answer = _from_object(obj)
            if answer is not None:
                return answer
    return None


def _from_object(obj: dict[str, Any]) -> Answer | None:
    lowered = {str(k).lower(): v for k, v in obj.items()}
    for key in ANSWER_KEYS:
        if key in lowered:
            value = lowered[key]
            if isinstance(value, list):
                value = ";\n".join(str(v).strip().rstrip(";") for v in value if str(v).strip())
            if not isinstance(value, str):
                return None
            reasoning = lowered.get("reasoning")
            return _sql_or_none(
                value,
                "json",
                reasoning if isinstance(reasoning, str) else None,
                confidence(lowered.get("confidence")),
            )
    return None


def _from_repaired_json(text: str) -> Answer | None:
    """``{"Answer": "SELECT "a" FROM t", ...}``: the value runs to the next known key."""
    start = re.search(r'"(?:Answer|sql)"\s*:\s*"', text, re.I)
    if start is None:
        return None
    rest = text[start.end() :]
    end = _NEXT_KEY.search(rest)
    if end is not None:
        raw = rest[: end.start()]
    else:
        close = re.search(r'"\s*}\s*(?:```)?\s*$', rest) or re.search(r'"\s*}', rest)
        if close is None:
            return None
        raw = rest[: close.start()]
    sql = raw.replace('\\"', '"').replace("\\n", "\n").replace("\\t", "\t").replace("\\\\", "\\")
    reasoning = re.search(r'"Reasoning"\s*:\s*"(.*?)"\s*(?:,\s*"Confidence"|})', rest, re.I | re.S)
    conf = re.search(r'"Confidence"\s*:\s*"?([0-9.]+)', rest, re.I)
    return _sql_or_none(
        sql,
        "repaired-json",
        reasoning.group(1) if reasoning else None,
        confidence(conf.group(1)) if conf else None,
    )


_SQL_FENCES = frozenset({"", "sql"}.union(*(d.fences for d in DIALECTS.values())))


def _from_sql_fence(text: str) -> Answer | None:
    for lang, body in _FENCE.findall(text):
        if lang.lower() in _SQL_FENCES and _SQL_START.search(body):
            return Answer(_clean_sql(body), form="sql-block")
    return None


def _from_bare_sql(text: str) -> Answer | None:
    """SQL starting a line, up to a blank line followed by prose."""
    match = _SQL_START.search(text)
    if match is None:
        return None
    paragraphs = re.split(r"\n[ \t]*\n", text[match.start() :])
    kept = [paragraphs[0]]
    for paragraph in paragraphs[1:]:
        if not _SQL_START.match(paragraph):
            break
        kept.append(paragraph)
    return Answer(_clean_sql("\n\n".join(kept)), form="bare-sql")


def _clean_sql(sql: str) -> str:
    """Strip fences a model put inside the answer, and surrounding blanks."""
    sql = sql.strip()
    fenced = _FENCE.match(sql)
    if fenced:
        sql = fenced.group(2).strip()
    return sql.strip()


def confidence(value: Any) -> float | None:
    """A confidence in [0, 1]: numbers in (1, 100] are read as percentages; others are None."""
    if isinstance(value, bool):
        return None
    try:
        number = float(str(value).strip().rstrip("%"))
    except ValueError:
        return None
    if 0.0 <= number <= 1.0:
        return number
    if 1.0 < number <= 100.0:
        return number / 100.0
    return None
