"""LLM-written test data (PARROT's method): a model writes INSERT rows for a query's tables,
aimed at the neighbours that the current data cannot tell apart from the query.

:func:`augment` takes a suite (the rule-based one, or one with no databases yet), finds the
neighbours that neither the fixture nor a suite database kills, and for up to ``rounds`` requests
shows the model a few of them with the query, its tables (types, keys, NOT NULL and the domains
:mod:`parrot.testsuite.datagen` learns from the fixture) and some current rows. The answer is read
with the translators' parser (:func:`parrot.translators.llm.parsing.parse_answer`) and sqlglot;
every row is validated and a row that breaks a rule is dropped with a typed :class:`Reject`
reason. The database that remains must load on every engine of the item, the source must run on
it without a LIMIT cutting ties, and it is kept only if it kills a neighbour that nothing before
it killed. The prompt is a versioned data file (``prompts/<name>-v<version>.toml``); its name
and SHA-256 are recorded in the suite.
"""

from __future__ import annotations

import re
import time
from collections import Counter
from dataclasses import dataclass, field, replace
from decimal import Decimal, InvalidOperation
from enum import StrEnum
from functools import lru_cache
from importlib import resources
from typing import Any

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

from parrot.datasets import Item
from parrot.eval.judge import EMPTY_FIXTURE, Judge
from parrot.fixtures import Fixture, FixtureError, coerce, fixture_from_json, storage_text
from parrot.testsuite.datagen import (
    ColumnInfo,
    QuerySchema,
    SchemaError,
    folds_text,
    infer_schema,
    parse_query,
    volatile,
)
from parrot.testsuite.distill import neighbour_outcome
from parrot.testsuite.neighbours import Neighbour, neighbours
from parrot.testsuite.store import Suite, SuiteDatabase
from parrot.translators import create_translator
from parrot.translators.llm.client import Completion, LLMError
from parrot.translators.llm.loop import shared_loop
from parrot.translators.llm.parsing import Unparseable, parse_answer
from parrot.translators.llm.prompts import PromptError, PromptTemplate, parse_template
from parrot.translators.llm.translator import LLMTranslator, public_url

DEFAULT_PROMPT = "datagen-v1"
DEFAULT_ROUNDS = 2
SHOWN = 3  # neighbours shown per request
SAMPLE_ROWS = 3  # current rows shown per table
PARTS = ("system", "user", "sample", "neighbour", "example_user", "example_answer")
_INT_LIMIT = 2**31


class Reject(StrEnum):
    """Why a row, a statement or a whole answer was not used."""

    MODEL_ERROR = "model-error"  # the request failed after retries
    UNPARSEABLE = "unparseable"  # no SQL in the answer, or SQL sqlglot cannot read
    NOT_INSERT = "not-insert"  # a statement that is not INSERT ... VALUES
    UNKNOWN_TABLE = "unknown-table"  # a table the query does not read
    UNKNOWN_COLUMN = "unknown-column"
    NOT_LITERAL = "not-literal"  # a function call, a subquery, ... instead of a value
    ARITY = "arity"  # a row with more or fewer values than columns
    TYPE = "type"  # a value its column's type cannot hold
    NOT_NULL = "not-null"  # NULL in a NOT NULL or primary-key column
    DUPLICATE_KEY = "duplicate-key"  # a repeated primary key or unique value
    DOMAIN = "domain"  # outside the column's domain (sign, value list, 32-bit range)
    COLLATION = "collation"  # equal to another value under an engine's case/space folding
    TOO_MANY_ROWS = "too-many-rows"
    NO_ROWS = "no-rows"  # nothing valid was left
    LOAD = "load"  # an engine of the item could not load the database
    SOURCE_FAILS = "source-fails"  # the source query fails on the database
    LIMIT_TIES = "limit-ties"  # the source's LIMIT picks arbitrary rows on it
    NO_NEW_KILLS = "no-new-kills"  # valid, but kills nothing the suite did not already kill


@dataclass(frozen=True)
class Rejection:
    reason: Reject
    detail: str
    table: str = ""
    row: int | None = None  # the row's position in its INSERT statement


@dataclass(frozen=True)
class Written:
    """One INSERT statement as read: table, column list (None: every column), literal rows."""

    table: str
    columns: tuple[str, ...] | None
    rows: tuple[tuple[Any, ...], ...]


# --- the prompt -----------------------------------------------------------------------------------


@lru_cache(maxsize=4)
def load_prompt(spec: str = DEFAULT_PROMPT) -> PromptTemplate:
    """The prompt file ``NAME-vVERSION`` of ``parrot/testsuite/prompts/``."""
    folder = resources.files("parrot.testsuite").joinpath("prompts")
    try:
        text = folder.joinpath(f"{spec}.toml").read_text(encoding="utf-8")
    except FileNotFoundError:
        names = sorted(
            p.name.removesuffix(".toml") for p in folder.iterdir() if p.name.endswith(".toml")
        )
        raise PromptError(f"no datagen prompt {spec!r}; available: {', '.join(names)}") from None
    return parse_template(spec, text, PARTS, "datagen prompt")


def sql_literal(value: Any) -> str:
    """A portable SQL literal for a fixture value in JSON form."""
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, int | float):
        return repr(value)
    return "'" + str(value).replace("'", "''") + "'"


def schema_ddl(schema: QuerySchema) -> str:
    """CREATE TABLE statements of the query's tables, with keys and the learnt domains."""
    out = []
    for table, cols in schema.tables.items():
        lines = []
        for info in cols.values():
            notes = []
            if info.enumeration:
                notes.append("values: " + ", ".join(sql_literal(v) for v in info.enumeration))
            if info.non_negative:
                notes.append(">= 0")
            line = (
                f"  {info.name} {info.type.upper()}{'' if info.nullable else ' NOT NULL'}"
                f"{' UNIQUE' if info.unique else ''},"
            )
            lines.append(line + (f"  -- {'; '.join(notes)}" if notes else ""))
        keys = schema.primary_keys.get(table, ())
        if keys:
            lines.append(f"  PRIMARY KEY ({', '.join(keys)})")
        elif lines:
            head, sep, tail = lines[-1].partition(",")
            lines[-1] = head + tail if sep else head
        out.append(f"CREATE TABLE {table} (\n" + "\n".join(lines) + "\n);")
    return "\n".join(out)


def _sample(schema: QuerySchema, base: Fixture | None) -> str:
    """INSERT statements holding the first rows of each of the query's tables in ``base``."""
    if base is None:
        return ""
    statements = []
    for table, cols in schema.tables.items():
        try:
            real = base.table(next(t.name for t in base.tables if t.name.lower() == table.lower()))
        except (StopIteration, KeyError):
            continue
        if not real.rows:
            continue
        names = [c.name for c in real.columns if c.name in cols]
        index = [real.column_names.index(n) for n in names]
        types = [real.columns[i].type for i in index]
        rows = [
            ", ".join(
                sql_literal(storage_text(row[i], t)) for i, t in zip(index, types, strict=True)
            )
            for row in real.rows[:SAMPLE_ROWS]
        ]
        statements.append(
            f"INSERT INTO {table} ({', '.join(names)}) VALUES\n  (" + "),\n  (".join(rows) + ");"
        )
    return "\n".join(statements)


def build_messages(
    prompt: PromptTemplate, item: Item, schema: QuerySchema, shown: list[Neighbour], max_rows: int
) -> list[dict[str, str]]:
    """System message, the worked example, then the request for ``item``."""
    sample = _sample(schema, item.fixture)
    variants = "".join(
        prompt.render("neighbour", number=i, operator=n.operator, sql=n.sql.strip())
        for i, n in enumerate(shown, 1)
    )
    user = prompt.render(
        "user",
        dialect=item.source_dialect,
        sql=item.source_sql.strip(),
        ddl=schema_ddl(schema),
        neighbours=variants,
        sample=prompt.render("sample", rows=sample) if sample else "",
    )
    return [
        {"role": "system", "content": prompt.render("system", max_rows=max_rows)},
        {"role": "user", "content": prompt.parts["example_user"]},
        {"role": "assistant", "content": prompt.parts["example_answer"]},
        {"role": "user", "content": user},
    ]


# --- reading and validating an answer -------------------------------------------------------------


class _Bad(Exception):
    def __init__(self, reason: Reject, detail: str):
        super().__init__(detail)
        self.reason = reason
        self.detail = detail


def _literal(node: exp.Expr) -> Any:
    """The value of a literal node (numbers as Decimal); _Bad(NOT_LITERAL) otherwise."""
    while isinstance(node, exp.Tuple | exp.Paren) and len(node.expressions or [node.this]) == 1:
        node = node.expressions[0] if node.expressions else node.this  # ClickHouse: ((1), ('x'))
    if isinstance(node, exp.Null):
        return None
    if isinstance(node, exp.Boolean):
        return bool(node.this)
    if isinstance(node, exp.Cast) and isinstance(node.this, exp.Literal) and node.this.is_string:
        return node.this.this  # DATE '2024-01-01', CAST('...' AS TIMESTAMP)
    negative = isinstance(node, exp.Neg)
    inner = node.this if negative else node
    if isinstance(inner, exp.Literal):
        if inner.is_string:
            if not negative:
                return inner.this
        else:
            try:
                number = Decimal(inner.this)
            except InvalidOperation:
                pass
            else:
                return -number if negative else number
    raise _Bad(Reject.NOT_LITERAL, f"not a literal: {node.sql()[:80]}")


def _parse(sql: str, dialect: str) -> list[exp.Expr]:
    """The statements of ``sql`` in ``dialect`` (else sqlglot's generic reader); Unparseable."""
    for read in (dialect, None):
        try:
            return [t for t in sqlglot.parse(sql, read=read) if t is not None]
        except (SqlglotError, ValueError, RecursionError):
            continue
    raise Unparseable(f"sqlglot cannot read: {sql[:120]!r}")


def _cut_off(text: str, dialect: str) -> list[exp.Expr] | None:
    """The complete rows of an INSERT that was cut off: its text up to the last ``)`` that
    leaves a readable INSERT ... VALUES, or None."""
    start = re.search(r"\bINSERT\s+INTO\b", text, re.I)
    if start is None:
        return None
    rest = text[start.start() :].replace('\\"', '"').replace("\\n", "\n")
    ends = [i for i, c in enumerate(rest) if c == ")"]
    for end in reversed(ends[-50:]):
        candidate = rest[: end + 1]
        if not re.search(r"\bVALUES\b", candidate, re.I):
            break
        try:
            trees = _parse(candidate, dialect)
        except Unparseable:
            continue
        if trees and all(isinstance(t, exp.Insert) for t in trees):
            return trees
    return None


def read_inserts(text: str, dialect: str) -> tuple[list[Written], list[Rejection]]:
    """The INSERT statements of a model's answer, and what could not be read."""
    try:
        trees = _parse(parse_answer(text).sql, dialect)
    except Unparseable as exc:
        cut = _cut_off(text, dialect)  # an answer that stopped at --max-tokens mid-row
        if cut is None:
            return [], [Rejection(Reject.UNPARSEABLE, str(exc))]
        trees = cut
    written: list[Written] = []
    problems: list[Rejection] = []
    for tree in trees:
        target = tree.this if isinstance(tree, exp.Insert) else None
        values = tree.expression if isinstance(tree, exp.Insert) else None
        if not isinstance(values, exp.Values):
            problems.append(Rejection(Reject.NOT_INSERT, tree.sql()[:120]))
            continue
        table = target.this if isinstance(target, exp.Schema) else target
        columns = (
            tuple(c.name for c in target.expressions) if isinstance(target, exp.Schema) else None
        )
        name = table.name if isinstance(table, exp.Table) else ""
        rows = []
        for i, row in enumerate(values.expressions):
            cells = row.expressions if isinstance(row, exp.Tuple) else [row]
            try:
                rows.append(tuple(_literal(c) for c in cells))
            except _Bad as bad:
                problems.append(Rejection(bad.reason, bad.detail, name, i))
        written.append(Written(name, columns, tuple(rows)))
    return written, problems


def _cell(value: Any, info: ColumnInfo) -> Any:
    """``value`` in the JSON form of ``info``'s column, type-checked; raises _Bad."""
    ptype = info.type
    json_value: Any = value
    if value is None:
        json_value = None
    elif isinstance(value, Decimal):
        if ptype in ("integer", "bigint") and value == value.to_integral_value():
            json_value = int(value)
        elif ptype == "double":
            json_value = float(value)
        elif ptype.startswith("decimal"):
            json_value = str(value)
        elif ptype == "boolean" and value in (0, 1):
            json_value = bool(value)
        else:
            raise _Bad(Reject.TYPE, f"{info.name}: {value} is not a {ptype}")
    elif isinstance(value, bool) and ptype != "boolean":
        raise _Bad(Reject.TYPE, f"{info.name}: {value} is not a {ptype}")
    elif isinstance(value, str) and ptype not in ("text", "date", "timestamp"):
        raise _Bad(Reject.TYPE, f"{info.name}: {value!r} is not a {ptype}")
    try:
        typed = coerce(json_value, ptype)
    except FixtureError as exc:
        raise _Bad(Reject.TYPE, f"{info.name}: {exc}") from None
    if typed is None:
        if not info.nullable:
            raise _Bad(Reject.NOT_NULL, f"NULL in NOT NULL column {info.name}")
        return None
    if ptype in ("integer", "bigint") and abs(typed) >= _INT_LIMIT:
        raise _Bad(Reject.DOMAIN, f"{info.name}: {typed} outside the 32-bit range")
    if info.non_negative and typed < 0:
        raise _Bad(Reject.DOMAIN, f"{info.name}: {typed} is negative; its values are >= 0")
    if info.enumeration:
        allowed = set(info.enumeration) | {v for v in info.literals if isinstance(v, str)}
        if typed not in allowed:
            raise _Bad(Reject.DOMAIN, f"{info.name}: {typed!r} is not one of its values")
    return storage_text(typed, ptype)


def validate(
    written: list[Written],
    schema: QuerySchema,
    *,
    name: str,
    max_rows: int,
    dialects: tuple[str, ...],
) -> tuple[dict[str, Any] | None, list[Rejection]]:
    """A fixture (JSON form) of the query's tables holding every valid row, or None when none
    is valid; and a typed rejection for everything dropped."""
    fold = folds_text(dialects)
    tables = {t.lower(): t for t in schema.tables}
    rows: dict[str, list[list[Any]]] = {t: [] for t in schema.tables}
    seen: dict[tuple[str, str], set[Any]] = {}
    problems: list[Rejection] = []
    for w in written:
        table = tables.get(w.table.lower())
        if table is None:
            problems.append(
                Rejection(Reject.UNKNOWN_TABLE, f"{w.table!r} is not read by the query", w.table)
            )
            continue
        cols = schema.tables[table]
        by_name = {c.lower(): c for c in cols}
        given = w.columns if w.columns is not None else tuple(cols)
        unknown = [c for c in given if c.lower() not in by_name]
        if unknown or len({c.lower() for c in given}) != len(given):
            detail = (
                f"{table} has no column {', '.join(unknown)}"
                if unknown
                else f"a column is named twice in {list(given)}"
            )
            problems.append(Rejection(Reject.UNKNOWN_COLUMN, detail, table))
            continue
        position = {by_name[c.lower()]: i for i, c in enumerate(given)}
        keys = schema.primary_keys.get(table, ())
        for r, row in enumerate(w.rows):
            try:
                if len(row) != len(given):
                    raise _Bad(Reject.ARITY, f"{len(row)} values for {len(given)} columns")
                if len(rows[table]) >= max_rows:
                    raise _Bad(Reject.TOO_MANY_ROWS, f"more than {max_rows} rows")
                cells = [
                    _cell(row[position[c]] if c in position else None, info)
                    for c, info in cols.items()
                ]
                _check_keys(table, cols, keys, cells, seen, fold)
            except _Bad as bad:
                problems.append(Rejection(bad.reason, bad.detail, table, r))
                continue
            rows[table].append(cells)
    if not any(rows.values()):
        if any(w.rows for w in written):  # rows were written, none survived
            problems.append(Rejection(Reject.NO_ROWS, "no valid row in the answer"))
        return None, problems
    return {
        "name": name,
        "tables": [
            {
                "name": t,
                "columns": [
                    {"name": i.name, "type": i.type, "nullable": i.nullable} for i in cols.values()
                ],
                "primary_key": list(schema.primary_keys.get(t, ())),
                "rows": rows[t],
            }
            for t, cols in schema.tables.items()
        ],
    }, problems


def _check_keys(
    table: str,
    cols: dict[str, ColumnInfo],
    keys: tuple[str, ...],
    cells: list[Any],
    seen: dict[tuple[str, str], set[Any]],
    fold: bool,
) -> None:
    """Primary key, unique columns and collation folding against the rows kept so far; records
    the row's values when it passes."""
    names = list(cols)
    if keys:
        key = tuple(cells[names.index(k)] for k in keys if k in names)
        if None in key:
            raise _Bad(Reject.NOT_NULL, f"NULL in primary key {keys}")
        if key in seen.get((table, "\x00pk"), set()):
            raise _Bad(Reject.DUPLICATE_KEY, f"duplicate primary key {key}")
    for name, info, value in zip(names, cols.values(), cells, strict=True):
        if value is None:
            continue
        if info.unique and value in seen.get((table, name), set()):
            raise _Bad(Reject.DUPLICATE_KEY, f"{name}: {value!r} repeats a unique value")
        if fold and isinstance(value, str):
            folded = {
                v.rstrip(" ").lower(): v
                for v in seen.get((table, name), set())
                if isinstance(v, str)
            }
            other = folded.get(value.rstrip(" ").lower())
            if other is not None and other != value:
                raise _Bad(
                    Reject.COLLATION,
                    f"{name}: {value!r} and {other!r} are equal under an engine's collation",
                )
    if keys:
        seen.setdefault((table, "\x00pk"), set()).add(
            tuple(cells[names.index(k)] for k in keys if k in names)
        )
    for name, value in zip(names, cells, strict=True):
        if value is not None:
            seen.setdefault((table, name), set()).add(value)


# --- the model and the loop -----------------------------------------------------------------------


@dataclass
class Datagen:
    """A model that writes test rows: the translator behind ``--model SPEC`` and a prompt."""

    spec: str  # as given: local, openai/gpt-4o, ...
    translator: LLMTranslator
    prompt: PromptTemplate
    rounds: int = DEFAULT_ROUNDS

    @property
    def label(self) -> str:
        return f"llm:{self.spec}"

    def params(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "model": self.spec,
            "prompt": f"{self.prompt.id} sha256:{self.prompt.sha256}",
            "rounds": self.rounds,
            "temperature": self.translator.options.temperature,
        }
        if self.translator.options.api_base:
            out["api_base"] = public_url(self.translator.options.api_base)
        return out

    def close(self) -> None:
        self.translator.close()


def make_datagen(
    spec: str, options: Any = None, *, prompt: str = DEFAULT_PROMPT, rounds: int = DEFAULT_ROUNDS
) -> Datagen:
    """The datagen model of ``--datagen llm:SPEC`` (SPEC: any LLM ``--model`` spec of eval)."""
    translator = create_translator(spec, llm=options)
    if not isinstance(translator, LLMTranslator):
        translator.close()
        raise ValueError(
            f"--datagen llm:{spec}: {spec!r} calls no model (use local, "
            "PROVIDER/MODEL or an OpenAI-compatible server with --api-base)"
        )
    return Datagen(spec, translator, load_prompt(prompt), rounds)


@dataclass
class LLMReport:
    """What the model did for one suite (recorded in the suite file as ``llm``)."""

    requests: int = 0
    cache_hits: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    seconds: float = 0.0
    kept: int = 0
    killed: int = 0  # neighbours only a model-written database kills
    rejected: Counter[str] = field(default_factory=Counter)
    operators: Counter[str] = field(default_factory=Counter)  # op -> neighbours newly killed
    unchecked: list[str] = field(default_factory=list)  # engines of the item not available here
    rejections: list[Rejection] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "requests": self.requests,
            "cache_hits": self.cache_hits,
            "tokens_in": self.tokens_in,
            "tokens_out": self.tokens_out,
            "seconds": round(self.seconds, 3),
            "databases_kept": self.kept,
            "killed": self.killed,
            "rejected": dict(sorted(self.rejected.items())),
            "operators": dict(sorted(self.operators.items())),
            **({"unchecked_engines": self.unchecked} if self.unchecked else {}),
        }


@dataclass(frozen=True)
class Augmented:
    suite: Suite
    report: LLMReport


def _loads(
    judge: Judge, fixture: Fixture, dialects: tuple[str, ...], report: LLMReport
) -> Rejection | None:
    """None when every available engine of the item loads ``fixture`` faithfully."""
    for dialect in dialects:
        engine = judge.engine(dialect)
        if engine is None:
            if dialect not in report.unchecked:
                report.unchecked.append(dialect)
            continue
        try:
            engine.load(fixture)
        except Exception as exc:  # any failure to materialise is a rejection
            return Rejection(Reject.LOAD, f"{dialect}: {str(exc).splitlines()[0][:160]}")
    return None


def augment(
    suite: Suite,
    item: Item,
    judge: Judge,
    gen: Datagen,
    *,
    dialects: tuple[str, ...] = (),
    max_rows: int = 12,
) -> Augmented:
    """``suite`` plus the model-written databases that kill neighbours it does not."""
    report = LLMReport()
    dialects = tuple(dict.fromkeys((item.source_dialect, *dialects)))
    try:
        tree = parse_query(item.source_sql, item.source_dialect)
        if volatile(tree):
            raise SchemaError("volatile function")
        schema = infer_schema(tree, item.fixture)
    except SchemaError:
        return Augmented(_merged(suite, [], gen, report), report)
    if not schema.tables:  # nothing to write rows for
        return Augmented(_merged(suite, [], gen, report), report)
    counted, covered = _counted(suite, item, judge)
    added: list[SuiteDatabase] = []
    asked: set[tuple[int, ...]] = set()
    for r in range(gen.rounds):
        survivors = [i for i in range(len(counted)) if i not in covered]
        if not survivors:
            break
        start = (r * SHOWN) % len(survivors)
        shown = tuple((survivors[start:] + survivors[:start])[:SHOWN])
        if shown in asked:
            break  # the same request again would get the same answer
        asked.add(shown)
        messages = build_messages(gen.prompt, item, schema, [counted[i] for i in shown], max_rows)
        completion = _ask(gen, messages, report)
        if completion is None:
            break
        written, problems = read_inserts(completion.content, item.source_dialect)
        name = f"{suite.key[:8]}-llm{r}"
        data, more = validate(written, schema, name=name, max_rows=max_rows, dialects=dialects)
        _reject(report, problems + more)
        if data is None:
            continue
        try:
            db = fixture_from_json(data)
        except FixtureError as exc:
            _reject(report, [Rejection(Reject.TYPE, str(exc))])
            continue
        kills, why = _evaluate(judge, item, db, counted, dialects, report)
        if why is not None:
            _reject(report, [why])
            continue
        new = kills - covered
        if not new:
            _reject(report, [Rejection(Reject.NO_NEW_KILLS, f"kills {len(kills)}, none new")])
            continue
        covered |= new
        report.kept += 1
        report.killed += len(new)
        report.operators.update(counted[i].operator for i in new)
        added.append(
            SuiteDatabase(
                fixture=db,
                seed=r,
                size=db.row_count,
                kills=len(kills),
                generator=gen.label,
            )
        )
    return Augmented(_merged(suite, added, gen, report), report)


def _counted(suite: Suite, item: Item, judge: Judge) -> tuple[list[Neighbour], set[int]]:
    """The neighbours that run (errors are not counted, as in distillation), and the indexes of
    those the fixture or a database of the suite already kills."""
    fixture = item.fixture or EMPTY_FIXTURE
    counted: list[Neighbour] = []
    covered: set[int] = set()
    for n in neighbours(item.source_sql, item.source_dialect):
        outcome = neighbour_outcome(judge, item, fixture, n.sql)
        if outcome == "error":
            continue
        if outcome == "kill" or any(
            neighbour_outcome(judge, item, db.fixture, n.sql) == "kill" for db in suite.databases
        ):
            covered.add(len(counted))
        counted.append(n)
    return counted, covered


def _ask(gen: Datagen, messages: list[dict[str, str]], report: LLMReport) -> Completion | None:
    """The model's answer, its time, tokens and cache hit counted; None (rejected as a model
    error) when the request failed."""
    begin = time.perf_counter()
    try:
        completion = shared_loop().run(gen.translator.client.complete(messages))
    except LLMError as exc:
        report.seconds += time.perf_counter() - begin
        _reject(report, [Rejection(Reject.MODEL_ERROR, str(exc))])
        return None
    report.seconds += time.perf_counter() - begin
    report.requests += 1
    report.cache_hits += completion.cached
    report.tokens_in += completion.tokens_in
    report.tokens_out += completion.tokens_out
    return completion


def _evaluate(
    judge: Judge,
    item: Item,
    db: Fixture,
    counted: list[Neighbour],
    dialects: tuple[str, ...],
    report: LLMReport,
) -> tuple[set[int], Rejection | None]:
    """The neighbours ``db`` kills, or why ``db`` cannot be used."""
    problem = _loads(judge, db, dialects, report)
    if problem is not None:
        return set(), problem
    probe = replace(item, target_dialect=item.source_dialect, fixture=db)
    gold = judge.gold(probe).execution
    if not gold.ok:
        return set(), Rejection(Reject.SOURCE_FAILS, f"{gold.status}: {(gold.error or '')[:160]}")
    ties = judge.limit_cuts_ties(probe)
    if ties is not None:
        return set(), Rejection(Reject.LIMIT_TIES, ties[:160])
    return {
        i for i, n in enumerate(counted) if neighbour_outcome(judge, item, db, n.sql) == "kill"
    }, None


def _reject(report: LLMReport, problems: list[Rejection]) -> None:
    report.rejections.extend(problems)
    report.rejected.update(p.reason.value for p in problems)


def _merged(suite: Suite, added: list[SuiteDatabase], gen: Datagen, report: LLMReport) -> Suite:
    """``suite`` with the model's databases appended and its counts and generator updated."""
    databases = tuple(
        d if d.generator else replace(d, generator=suite.generator) for d in suite.databases
    )
    operators = {op: list(row) for op, row in suite.extra.get("operators", {}).items()}
    for op, count in report.operators.items():
        if op in operators:
            operators[op][2] += count
    extra = {**suite.extra, "llm": {**gen.params(), **report.to_json()}}
    if operators:
        extra["operators"] = operators
    generator = f"{suite.generator}+{gen.label}" if suite.generator else gen.label
    return replace(
        suite,
        databases=databases + tuple(added),
        generator=generator,
        killed=suite.killed + report.killed,
        extra=extra,
    )
