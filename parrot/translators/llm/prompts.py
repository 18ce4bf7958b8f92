"""Prompts from versioned templates (``templates/<name>-v<version>.toml``): chat messages for an
item, with optional dialect hints, worked examples and the fixture's schema as DDL."""

from __future__ import annotations

import hashlib
import json
import tomllib
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from string import Template
from typing import Any

from parrot import dialects
from parrot.datasets import Item
from parrot.fixtures import Fixture
from parrot.translators.schema import target_ddl

Message = dict[str, str]


class PromptError(ValueError):
    """An unknown or malformed prompt template."""


@dataclass(frozen=True)
class PromptTemplate:
    """One versioned template; ``sha256`` (of the file) goes into the run manifest."""

    name: str
    version: str
    sha256: str
    parts: dict[str, str]

    @property
    def id(self) -> str:
        return f"{self.name}-v{self.version}"

    def render(self, part: str, **values: object) -> str:
        return Template(self.parts[part]).substitute(values)


@dataclass(frozen=True)
class Example:
    source_dialect: str
    target_dialect: str
    source: str
    answer: str
    reasoning: str
    confidence: float


@dataclass(frozen=True)
class Hint:
    fact: str
    check: str
    expect: tuple[Any, ...]


PARTS = ("system", "user", "hints", "schema", "feedback_errors", "feedback_results", "unparseable")


def _text(name: str) -> str:
    path = resources.files("parrot.translators.llm").joinpath("templates", name)
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise PromptError(
            f"no prompt template {name!r}; available: {', '.join(available_templates())}"
        ) from None


def available_templates() -> list[str]:
    folder = resources.files("parrot.translators.llm").joinpath("templates")
    return sorted(
        p.name.removesuffix(".toml")
        for p in folder.iterdir()
        if p.name.endswith(".toml") and "-v" in p.name
    )


def parse_template(
    spec: str, text: str, parts: tuple[str, ...] = PARTS, kind: str = "prompt template"
) -> PromptTemplate:
    """A versioned prompt file's text as a template: ``name``/``version`` must match ``spec``
    (``NAME-vVERSION``) and every part in ``parts`` must be a string (one format for every
    prompt parrot sends: translation, text-to-SQL, test-data generation)."""
    data = tomllib.loads(text)
    missing = [p for p in parts if not isinstance(data.get(p), str)]
    if missing or f"{data.get('name')}-v{data.get('version')}" != spec:
        raise PromptError(
            f"{kind} {spec!r} is malformed (missing {missing} or a name/"
            "version that does not match its file name)"
        )
    return PromptTemplate(
        str(data["name"]),
        str(data["version"]),
        hashlib.sha256(text.encode()).hexdigest()[:16],
        {k: v for k, v in data.items() if isinstance(v, str)},
    )


@lru_cache(maxsize=8)
def load_template(spec: str) -> PromptTemplate:
    """The template ``NAME-vVERSION`` (e.g. ``parrot-v1``)."""
    return parse_template(spec, _text(f"{spec}.toml"))


@lru_cache(maxsize=1)
def hints() -> dict[str, tuple[Hint, ...]]:
    """Verified facts per target dialect."""
    data = tomllib.loads(_text("hints.toml"))
    return {
        d: tuple(Hint(h["fact"], h["check"], tuple(h["expect"])) for h in entries)
        for d, entries in data.items()
    }


@lru_cache(maxsize=1)
def examples() -> tuple[Example, ...]:
    return tuple(Example(**e) for e in tomllib.loads(_text("examples.toml"))["example"])


def choose_examples(item: Item, n: int) -> list[Example]:
    """Up to ``n`` examples: the item's dialect pair first, then its target, then the rest."""

    def rank(e: Example) -> int:
        if (e.source_dialect, e.target_dialect) == (item.source_dialect, item.target_dialect):
            return 0
        return 1 if e.target_dialect == item.target_dialect else 2

    return sorted(examples(), key=rank)[:n]


def schema_ddl(fixture: Fixture) -> str:
    """``CREATE TABLE`` statements for the fixture's tables, with portable column types."""
    statements = []
    for table in fixture.tables:
        columns = [
            f"  {c.name} {c.type.upper()}{'' if c.nullable else ' NOT NULL'}" for c in table.columns
        ]
        if table.primary_key:
            columns.append(f"  PRIMARY KEY ({', '.join(table.primary_key)})")
        statements.append(f"CREATE TABLE {table.name} (\n" + ",\n".join(columns) + "\n);")
    return "\n".join(statements)


def answer_json(sql: str, reasoning: str, confidence: float) -> str:
    return json.dumps(
        {"Answer": sql, "Reasoning": reasoning, "Confidence": confidence}, ensure_ascii=False
    )


def target_hints(dialect: str) -> tuple[Hint, ...]:
    """The verified facts for a target dialect (its class's ``hints`` section)."""
    try:
        section = dialects.get(dialect).hints
    except dialects.UnknownDialectError:
        return ()
    return hints().get(section, ()) if section else ()


def _label(dialect: str) -> str:
    try:
        return dialects.get(dialect).label
    except dialects.UnknownDialectError:
        return dialect


def _user(
    template: PromptTemplate, source: str, target: str, sql: str, hint: str = "", schema: str = ""
) -> str:
    return template.render(
        "user",
        source=_label(source),
        target=_label(target),
        sql=sql.strip(),
        hints=hint,
        schema=schema,
    )


def _hint_text(template: PromptTemplate, dialect: str) -> str:
    """The prompt's verified facts about ``dialect`` ('' when it has none)."""
    facts = target_hints(dialect)
    if not facts:
        return ""
    return template.render(
        "hints", target=_label(dialect), facts="\n".join(f"- {h.fact}" for h in facts)
    )


def build_messages(
    item: Item,
    template: PromptTemplate,
    *,
    use_hints: bool = True,
    shots: int = 0,
    use_schema: bool = True,
) -> list[Message]:
    """System message, worked examples as earlier turns, then the item's request."""
    source, target = _label(item.source_dialect), _label(item.target_dialect)
    messages = [
        {"role": "system", "content": template.render("system", source=source, target=target)}
    ]
    for example in choose_examples(item, shots):
        messages.append(
            {
                "role": "user",
                "content": _user(
                    template, example.source_dialect, example.target_dialect, example.source
                ),
            }
        )
        messages.append(
            {
                "role": "assistant",
                "content": answer_json(example.answer, example.reasoning, example.confidence),
            }
        )
    hint_text = _hint_text(template, item.target_dialect) if use_hints else ""
    schema_text = ""
    if use_schema and item.fixture is not None and item.fixture.tables:
        schema_text = template.render("schema", ddl=schema_ddl(item.fixture))
    messages.append(
        {
            "role": "user",
            "content": _user(
                template,
                item.source_dialect,
                item.target_dialect,
                item.source_sql,
                hint_text,
                schema_text,
            ),
        }
    )
    return messages


TEXT2SQL_PROMPT = "text2sql-v1"
SAMPLE_ROWS = 3  # rows per table shown with a text-to-SQL schema


def build_text2sql_messages(
    item: Item, template: PromptTemplate, *, use_hints: bool = True, use_schema: bool = True
) -> list[Message]:
    """The request for a text-to-SQL item: its question (and evidence), the schema as the target
    engine holds it (``CREATE TABLE`` in the target dialect, a few rows as comments), hints."""
    target = _label(item.target_dialect)
    hint_text = _hint_text(template, item.target_dialect) if use_hints else ""
    schema_text = ""
    if use_schema and item.fixture is not None and item.fixture.tables:
        schema_text = template.render(
            "schema", target=target, ddl=target_ddl(item.fixture, item.target_dialect, SAMPLE_ROWS)
        )
    evidence = template.render("evidence", text=item.evidence.strip()) if item.evidence else ""
    user = template.render(
        "user",
        target=target,
        hints=hint_text,
        schema=schema_text,
        question=(item.question or "").strip(),
        evidence=evidence,
    )
    return [
        {"role": "system", "content": template.render("system", target=target)},
        {"role": "user", "content": user},
    ]


def feedback_message(template: PromptTemplate, item: Item, mode: str, message: str) -> str:
    """The follow-up turn of a reflection round (``mode``: errors or results)."""
    return template.render(
        f"feedback_{mode}", target=_label(item.target_dialect), message=message.strip()
    )
