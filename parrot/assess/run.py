"""One assessment: translate each template once, verify every statement, write the results.

``assessment.jsonl`` gets one line per statement, appended (and synced) as soon as its verdict is
known, keyed by the statement's id (``<file>:<n>``): ``--resume`` skips the ids already there. The
translated tree and ``assessment.html`` are rebuilt from that file at the end.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, cast

from parrot.api import jsonl
from parrot.assess.budget import BudgetedJudge, GenerationBudget
from parrot.assess.dml import DML, judge_dml, probe
from parrot.assess.inputs import Statement
from parrot.assess.placeholders import Filled, fill
from parrot.assess.templates import Shape, carry_over, shape
from parrot.assess.verify import FAILED, NOT_ASSESSED, VERIFIED, Outcome, judge_on
from parrot.datasets import Item
from parrot.eval.judge import Judge
from parrot.fixtures import Fixture
from parrot.testsuite.distill import distill
from parrot.translate import syntax_problem
from parrot.translators.base import Translation, TranslationStatus, Translator

RESULTS = "assessment.jsonl"
_QUERY = re.compile(r"^\s*(?:\(\s*)*(?:SELECT|WITH|VALUES|TABLE|SHOW|EXPLAIN)\b", re.I)
_PLACEHOLDER = re.compile(r"\$\d+|(?<![\w'])\?(?![\w'])|%s|(?<![:\w]):[A-Za-z_]\w*")  # not ::type


@dataclass
class Settings:
    source: str
    target: str
    output: Path
    db: Fixture | None = None  # the user's data
    schema: Fixture | None = None  # empty tables from --schema
    max_dbs: int = 4
    candidates: int = 40
    distill: bool = True  # keep the generated databases that kill the query's neighbours
    generated_timeout: float = 2.0  # seconds per execution while building generated databases
    generated_budget: int = 2000  # source/neighbour runs to build one template's databases
    witness_budget: int = 200
    judge_options: dict[str, Any] = field(default_factory=dict)


@dataclass
class Template:
    """Statements that differ only in literals; the first one is translated."""

    key: str
    members: list[tuple[Statement, Shape]]
    databases: list[tuple[str, Fixture]] | None = None  # built on first use
    why_fewer: str = ""  # why the generated databases are missing (a budget ran out)
    outcome: Outcome | None = None  # the representative's
    # (source, translation) -> the id judged with them and its outcome: a repeated statement
    # on the same databases is the same evidence, not judged again
    judged: dict[tuple[str, str], tuple[str, Outcome]] = field(default_factory=dict)


def kind(sql: str) -> str:
    """``query`` (runs and returns rows), ``dml`` (INSERT/UPDATE/DELETE/MERGE: run on a copy),
    ``parameterised`` (either, with placeholders without values) or ``other`` (DDL and the rest:
    translated and syntax-checked only)."""
    if not _QUERY.match(sql) and not DML.match(sql):
        return "other"
    if not _QUERY.match(sql):
        return (
            "parameterised" if _PLACEHOLDER.search(re.sub(r"'(?:[^']|'')*'", "''", sql)) else "dml"
        )
    stripped = re.sub(r"'(?:[^']|'')*'", "''", sql)
    return "parameterised" if _PLACEHOLDER.search(stripped) else "query"


def with_values(
    statements: list[Statement], dialect: str, fixture: Fixture | None
) -> list[Statement]:
    """Each statement with placeholders gets values from the columns they are compared with
    (:mod:`parrot.assess.placeholders`), or says why not."""
    out = []
    for st in statements:
        if kind(st.sql) != "parameterised":
            out.append(st)
            continue
        found = fill(st.sql, dialect, fixture)
        if isinstance(found, Filled):
            out.append(replace(st, sql=found.sql, parameterised=st.sql, filled=found.describe()))
        else:
            out.append(replace(st, unfilled=found))
    return out


def group(statements: list[Statement], dialect: str) -> list[Template]:
    """Templates in first-seen order."""
    templates: dict[str, Template] = {}
    for st in statements:
        sh = shape(st.sql, dialect)
        templates.setdefault(sh.key, Template(sh.key, [])).members.append((st, sh))
    return list(templates.values())


def template_id(key: str) -> str:
    import hashlib

    return "t" + hashlib.sha256(key.encode()).hexdigest()[:10]


class NoDatabases(Exception):
    """The generated databases could not be built: why, and the databases left."""

    def __init__(self, why: str, left: list[tuple[str, Fixture]]):
        super().__init__(why)
        self.left = left


class Assessment:
    """Runs the templates of a workload through a translator and the judge."""

    def __init__(self, settings: Settings, translator: Translator, judge: Judge):
        self.s, self.translator, self.judge = settings, translator, judge

    def _item(self, st: Statement, fixture: Fixture | None = None) -> Item:
        return Item(
            id=st.id,
            source_dialect=self.s.source,
            target_dialect=self.s.target,
            source_sql=st.sql,
            fixture=fixture or self.s.db or self.s.schema,
        )

    def translate(self, statements: list[Statement]) -> dict[str, Translation]:
        items = [self._item(st) for st in statements]
        return {item.id: t for item, t in self.translator.translate_all(items)}

    def databases(self, st: Statement) -> list[tuple[str, Fixture]]:
        """The user's database, then test-suite databases generated for ``st`` (with
        ``--schema``: from the schema's empty tables, or from the database's rows)."""
        out: list[tuple[str, Fixture]] = []
        if self.s.db is not None:
            out.append(("your database", self.s.db))
        if self.s.schema is None:
            return out

        base = self.s.db or self.s.schema
        if self.s.db is None:
            out.append(("empty tables", base))
        dialects = (self.s.source, self.s.target)
        budgeted = BudgetedJudge(self.judge, self.s.generated_timeout, self.s.generated_budget)
        try:
            with budgeted.active(dialects):
                distilled = distill(
                    self._item(st, base),
                    cast(Judge, budgeted),  # a Judge in all but its budget
                    dialects=dialects,
                    max_dbs=self.s.max_dbs,
                    candidates=self.s.candidates if self.s.distill else min(self.s.candidates, 12),
                    source_side=self.s.distill,
                )
        except GenerationBudget as exc:
            # the user's database alone, when there is one; else nothing to judge on
            raise NoDatabases(str(exc), out[:1] if self.s.db is not None else []) from None
        if distilled.suite is not None:
            out += [
                (f"generated database {i + 1}", replace(db.fixture, name=base.name))
                for i, db in enumerate(distilled.suite.databases)
            ]
        return out

    def run(
        self,
        templates: list[Template],
        done: set[str],
        emit: Callable[[dict[str, Any]], None],
        tick: Callable[[int], None],
    ) -> None:
        for template in templates:
            todo = [(st, sh) for st, sh in template.members if st.id not in done]
            if todo:
                for line in self._template(template, todo):
                    emit(line)
                    tick(1)

    def _template(
        self, template: Template, todo: list[tuple[Statement, Shape]]
    ) -> Iterator[dict[str, Any]]:
        rep, rep_shape = template.members[0]
        rep_t = self.translate([rep])[rep.id]  # again when resumed past it: the translator's cache
        carried = (
            {
                st.id: carry_over(rep_shape, sh, rep_t.sql, self.s.target)
                for st, sh in todo
                if st.id != rep.id
            }
            if rep_t.ok and rep_t.sql
            else {}
        )
        own = [st for st, _ in todo if st.id != rep.id and carried.get(st.id) is None]
        translated = self.translate(own) if own else {}
        for st, _ in todo:
            sql = carried.get(st.id)
            if st.id == rep.id:
                yield self._statement(template, st, rep_t, "translated", False)
            elif sql is not None:
                t = Translation(TranslationStatus.OK, sql=sql, annotation_source="template")
                yield self._statement(template, st, t, f"from template {rep.id}", True)
            else:
                yield self._statement(template, st, translated[st.id], "translated", False)

    def _statement(
        self, template: Template, st: Statement, t: Translation, how: str, carried: bool
    ) -> dict[str, Any]:
        line: dict[str, Any] = {
            "id": st.id,
            "path": st.path,
            "index": st.index,
            "template": template_id(template.key),
            "kind": kind(st.sql),
            "source_sql": st.sql,
            "parameterised_sql": st.parameterised or None,
            "comments": st.comments,
            "trailing_comments": st.trailing,
            "weight": st.weight,
            "translation": t.sql if t.ok else None,
            "translation_status": str(t.status),
            "translated": how,
        }
        if not t.ok:
            out = Outcome(FAILED, "not_translated", f"{t.status}: {t.error or ''}".strip())
        elif line["kind"] == "dml" and (self.s.db or self.s.schema) is not None:
            out = self._source_problem(st) or self._verify_dml(template, st, t)
        elif line["kind"] != "query":
            out = self._source_problem(st) or self._not_run(line["kind"], t, st.unfilled)
        else:
            out = self._verify(template, st, t, carried)
        if st.filled:
            out = replace(out, detail=f"{st.filled}; {out.detail}".rstrip("; "))
        line.update(out.to_json())
        return line

    def _source_problem(self, st: Statement) -> Outcome | None:
        """A statement that is not source-dialect SQL, when an engine's parser confirms it."""
        found = syntax_problem(st.sql, self.s.source)
        if found is None or not found[1]:
            return None
        return Outcome(FAILED, "source_syntax", found[0])

    def _not_run(self, what: str, t: Translation, unfilled: str = "") -> Outcome:
        if what == "parameterised":
            why = f": {unfilled}" if unfilled else ""
            return Outcome(
                NOT_ASSESSED,
                "parameters",
                f"the statement holds parameter placeholders without values{why}",
            )
        # deferred: ANTLR's runtime and generated parsers (loaded only on this path)
        from parrot.check import check_sql

        try:
            verdicts = check_sql(t.sql or "", self.s.target)
        except Exception as exc:  # no grammar for the target dialect
            return Outcome(NOT_ASSESSED, "not_a_query", f"DDL/DML, not run; no grammar: {exc}")
        bad = [v for v in verdicts if not v.ok]
        if bad:
            return Outcome(FAILED, "syntax_error", f"{self.s.target} grammar: {bad[0].message}")
        return Outcome(
            NOT_ASSESSED, "not_a_query", f"DDL/DML: not run; the {self.s.target} grammar accepts it"
        )

    def _verify(self, template: Template, st: Statement, t: Translation, carried: bool) -> Outcome:
        if template.databases is None:
            try:
                template.databases = self.databases(st)
            except NoDatabases as exc:
                template.databases, template.why_fewer = exc.left, str(exc)
        if not template.databases and template.why_fewer:
            return Outcome(NOT_ASSESSED, "timeout", template.why_fewer)
        if not template.databases:
            return Outcome(NOT_ASSESSED, "no_database", "give --db or --schema to verify on data")
        same = template.judged.get((st.sql, t.sql or ""))
        if same is not None:
            note = f"the same statement as {same[0]}: its outcome"
            return replace(same[1], detail=f"{note}; {same[1].detail}" if same[1].detail else note)
        out = self._judge_new(template, st, t, carried)
        template.judged[(st.sql, t.sql or "")] = (st.id, out)
        return out

    def _verify_dml(self, template: Template, st: Statement, t: Translation) -> Outcome:
        """Run on a copy of each database and compare the changed tables (:mod:`.dml`)."""
        if template.databases is None:
            given = (
                [("your database", self.s.db)]
                if self.s.db
                else [("empty tables", self.s.schema)]
                if self.s.schema
                else []
            )
            query = probe(st.sql, self.s.source, given[0][1]) if given else None
            try:
                template.databases = self.databases(replace(st, sql=query)) if query else given
            except NoDatabases as exc:
                template.databases, template.why_fewer = exc.left, str(exc)
        if not template.databases:
            return Outcome(
                NOT_ASSESSED,
                "timeout" if template.why_fewer else "no_database",
                template.why_fewer or "no database to run the statement on",
            )
        same = template.judged.get((st.sql, t.sql or ""))
        if same is not None:
            return replace(same[1], detail=f"the same statement as {same[0]}: its outcome")
        out = judge_dml(self.judge, self._item(st), t.sql or "", template.databases)
        template.judged[(st.sql, t.sql or "")] = (st.id, out)
        return out

    def _judge_new(
        self, template: Template, st: Statement, t: Translation, carried: bool
    ) -> Outcome:
        assert template.databases is not None
        out = judge_on(self.judge, self._item(st), t, template.databases, self.s.witness_budget)
        if template.why_fewer:  # the user's database only
            out = replace(out, detail=f"{template.why_fewer}; {out.detail}".rstrip("; "))
        if template.outcome is None:
            template.outcome = out
            return out
        if not carried or self.s.schema is None or out.verdict == template.outcome.verdict:
            return out  # on the template's databases: the same evidence as the representative
        try:
            mine = self.databases(st)  # its literals change the verdict: its own databases
        except NoDatabases as exc:
            return replace(out, detail=f"its own databases: {exc}; {out.detail}")
        own = judge_on(self.judge, self._item(st), t, mine, self.s.witness_budget)
        note = (
            f"its literals change the verdict ({out.verdict} on the template's databases, "
            f"where the template is {template.outcome.verdict}): judged on its own databases"
        )
        return replace(own, detail=f"{note}; {own.detail}" if own.detail else note)


def read_done(path: Path) -> dict[str, dict[str, Any]]:
    """The lines already in ``assessment.jsonl`` (damaged lines are skipped, never deleted)."""
    done: dict[str, dict[str, Any]] = {}
    if path.is_file():
        for _, line in jsonl.read(path)[0]:
            try:
                done[line["id"]] = line
            except (KeyError, TypeError):
                continue
    return done


__all__ = [
    "FAILED",
    "NOT_ASSESSED",
    "RESULTS",
    "VERIFIED",
    "Assessment",
    "Settings",
    "Template",
    "group",
    "kind",
    "read_done",
    "with_values",
]
