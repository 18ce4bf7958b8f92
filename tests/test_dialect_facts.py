"""The facts of every Dialect class, checked on the dialect's engine where one runs here and
against sqlglot's own dialect settings (one table, one probe per fact)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from sqlglot.dialects.dialect import Dialect as SqlglotDialect

from parrot import dialects
from parrot.engines import Engine
from parrot.eval.judge import Judge
from parrot.fixtures import fixture_from_json

FIXTURE = fixture_from_json(
    json.loads((Path(__file__).parent / "data" / "dialect_facts.json").read_text(encoding="utf-8"))
)


def _division(rows: list[tuple[Any, ...]] | None) -> str | None:
    value = rows[0][0] if rows else None
    if isinstance(value, int):
        return "integer"
    return "decimal" if isinstance(value, Decimal) else "float"


def _nulls(rows: list[tuple[Any, ...]] | None) -> str:
    return "first" if rows and rows[0][0] is None else "last"


def _runs(rows: list[tuple[Any, ...]] | None) -> bool:
    return rows is not None


def _count(rows: list[tuple[Any, ...]] | None) -> bool:
    return bool(rows and rows[0][0])


# fact -> (probe SQL, what its rows say (None: the query failed), the fact's value from that);
# identifier folding needs two probes, combined below
PROBES: dict[str, tuple[str, Callable[[Any], Any]]] = {
    "nulls_in_asc": ("SELECT a FROM t ORDER BY a", _nulls),
    "nulls_in_desc": ("SELECT a FROM t ORDER BY a DESC", _nulls),
    "integer_division": ("SELECT 7 / 2", _division),
    "case_sensitive_strings": ("SELECT COUNT(*) FROM t WHERE s = 'A'", lambda r: not _count(r)),
    "pad_space": ("SELECT COUNT(*) FROM t WHERE s = 'a '", _count),
    # column ``a``: ``A`` fails where names match exactly; where it runs, ``"A"`` fails where
    # unquoted names fold to lower case and quoted ones match exactly (and runs where names
    # match in any case, or where "A" is a string)
    "unquoted_identifiers": ("SELECT A FROM t", _runs),
    "quoted_upper": ('SELECT "A" FROM t', _runs),
}
FACTS = [f for f in PROBES if f != "quoted_upper"]

ENGINE_DIALECTS = [d for d in dialects.DIALECTS.values() if d.engine]
_MARKS = {
    "postgres": [pytest.mark.server],
    "mysql": [pytest.mark.server],
    "spark": [pytest.mark.spark],
    "hive": [pytest.mark.spark],
    "databricks": [pytest.mark.spark],
}


@pytest.fixture(scope="module")
def judge() -> Iterator[Judge]:
    j = Judge(timeout=60, start=True)
    yield j
    j.close()


def _run(engine: Engine, sql: str) -> list[tuple[Any, ...]] | None:
    """The rows, None when the query failed."""
    engine.load(FIXTURE)
    execution = engine.execute(sql, FIXTURE, timeout=60, max_rows=10)
    if not execution.ok or execution.result is None:
        return None
    return [tuple(r) for r in execution.result.rows]


@pytest.mark.parametrize(
    "dialect", [pytest.param(d, id=d.key, marks=_MARKS.get(d.key, [])) for d in ENGINE_DIALECTS]
)
@pytest.mark.parametrize("fact", FACTS)
def test_facts_hold_on_the_engine(judge: Judge, dialect: type[dialects.Dialect], fact: str):
    expected = getattr(dialect, fact)
    if expected is None:
        pytest.skip(f"{dialect.key}.{fact} is not stated")
    engine = judge.engine(dialect.key)
    if engine is None:
        pytest.skip(f"no {dialect.key} engine here")
    sql, reading = PROBES[fact]
    rows = _run(engine, sql)
    seen = reading(rows)
    if fact == "unquoted_identifiers":
        quoted = _run(engine, PROBES["quoted_upper"][0])
        seen = "sensitive" if not seen else "insensitive" if _runs(quoted) else "lower"
    assert seen == expected, f"{dialect.key}: {fact} is {seen!r} on {engine.label}"


_SQLGLOT_NULLS = {
    "nulls_are_small": ("first", "last"),
    "nulls_are_large": ("last", "first"),
    "nulls_are_last": ("last", "last"),
}
_SQLGLOT_FOLDING = {
    "LOWERCASE": "lower",
    "UPPERCASE": "upper",
    "CASE_SENSITIVE": "sensitive",
    "CASE_INSENSITIVE": "insensitive",
}
# parrot's fact differs from sqlglot's setting, and parrot's is the one the engine shows
DISAGREE = {
    ("mysql", "unquoted_identifiers"): "sqlglot says CASE_SENSITIVE (MySQL table names follow "
    "the file system on Linux); column names, which parrot's fact is about, match in any case "
    "on MariaDB (checked on the engine above)",
}


def _sqlglot_fact(key: str, fact: str) -> Any:
    d = SqlglotDialect.get_or_raise(key)
    if fact == "nulls_in_asc":
        return _SQLGLOT_NULLS[d.NULL_ORDERING][0]
    if fact == "nulls_in_desc":
        return _SQLGLOT_NULLS[d.NULL_ORDERING][1]
    if fact == "integer_division":  # TYPED_DIVISION: int / int stays an integer
        return "integer" if d.TYPED_DIVISION else "not integer"
    return _SQLGLOT_FOLDING[d.NORMALIZATION_STRATEGY.name]


@pytest.mark.parametrize(
    "dialect",
    [d for d in dialects.DIALECTS.values() if d.nulls_in_asc is not None],
    ids=lambda d: d.key,
)
@pytest.mark.parametrize(
    "fact", ["nulls_in_asc", "nulls_in_desc", "integer_division", "unquoted_identifiers"]
)
def test_facts_agree_with_sqlglot(dialect: type[dialects.Dialect], fact: str):
    ours = getattr(dialect, fact)
    if ours is None:
        pytest.skip(f"{dialect.key}.{fact} is not stated")
    if fact == "integer_division" and ours != "integer":
        ours = "not integer"
    why = DISAGREE.get((dialect.key, fact))
    if why:
        pytest.xfail(why)
    assert ours == _sqlglot_fact(dialect.key, fact)


# --- lexical facts against sqlglot's tokenizer settings ---------------------------------------

# parrot's lexical fact differs from sqlglot's tokenizer, deliberately
LEXICON_DISAGREE = {
    ("athena", "backslash_escapes"): "sqlglot tokenizes Athena as Hive (its DDL); its queries "
    "run on Trino, where a backslash in a string is a plain character",
    ("athena", "nested_comments"): "as above: Trino's block comments do not nest",
}


def _sqlglot_lexical(key: str, fact: str) -> bool:
    tokenizer = SqlglotDialect.get_or_raise(key).tokenizer_class
    comments = {c if isinstance(c, str) else c[0] for c in tokenizer.COMMENTS}
    return {
        "backslash_escapes": "\\" in tokenizer.STRING_ESCAPES,
        "hash_comments": "#" in comments,
        "slash_comments": "//" in comments,
        "nested_comments": bool(getattr(tokenizer, "NESTED_COMMENTS", False)),
    }[fact]


@pytest.mark.parametrize(
    "dialect", [d for d in dialects.DIALECTS.values() if d.grammar or d.engine], ids=lambda d: d.key
)
@pytest.mark.parametrize(
    "fact", ["backslash_escapes", "hash_comments", "slash_comments", "nested_comments"]
)
def test_lexical_facts_agree_with_sqlglots_tokenizer(dialect: type[dialects.Dialect], fact: str):
    why = LEXICON_DISAGREE.get((dialect.key, fact))
    if why:
        pytest.xfail(why)
    assert getattr(dialect.lexicon, fact) == _sqlglot_lexical(dialect.key, fact)
