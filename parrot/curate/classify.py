"""Stage 6a, classify: PARROT's translation types from an AST diff of source and reference, and
tiktoken token counts.

The source (in its dialect) and the canonical reference (in the target's) are parsed and compared
as multisets of facts:

* ``function`` — built-in functions and operators differ (sqlglot function classes, unknown
  function names, operator nodes);
* ``data_type`` — the data types named differ;
* ``keyword`` — the keywords written differ (``LIMIT`` vs ``TOP``, ``ILIKE``, ``INTERVAL`` …);
* ``syntax`` — the tree's shape differs (clauses, joins, subqueries, set operations);
* ``procedure`` / ``udf`` — either side defines or calls a procedure / a user function;
* ``other`` — the texts differ in nothing above (quoting, literals, spacing).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError
from sqlglot.tokens import TokenType

from parrot.curate.stages import Batch, Record, Stage
from parrot.tokens import count_tokens

_STRUCTURE = (
    exp.Select,
    exp.From,
    exp.Join,
    exp.Where,
    exp.Group,
    exp.Having,
    exp.Order,
    exp.Limit,
    exp.Offset,
    exp.Subquery,
    exp.Union,
    exp.Except,
    exp.Intersect,
    exp.CTE,
    exp.With,
    exp.Window,
    exp.Case,
    exp.Values,
    exp.Lateral,
    exp.Unnest,
    exp.Fetch,
)
_OPERATORS = (exp.Binary, exp.Unary, exp.Cast, exp.TryCast)
_NOT_KEYWORDS = frozenset(
    {
        TokenType.VAR,
        TokenType.IDENTIFIER,
        TokenType.STRING,
        TokenType.NUMBER,
        TokenType.COMMA,
        TokenType.DOT,
        TokenType.L_PAREN,
        TokenType.R_PAREN,
        TokenType.STAR,
        TokenType.SEMICOLON,
        TokenType.PARAMETER,
    }
)


def _facts(sql: str, dialect: str) -> dict[str, Counter[str]] | None:
    try:
        trees = [t for t in sqlglot.parse(sql, read=dialect) if t is not None]
        tokens = sqlglot.Dialect.get_or_raise(dialect).tokenize(sql)
    except (SqlglotError, RecursionError, ValueError):
        return None
    facts: dict[str, Counter[str]] = {
        k: Counter() for k in ("function", "data_type", "keyword", "syntax", "procedure", "udf")
    }
    for tree in trees:
        if isinstance(tree, exp.Create):
            kind = str(tree.args.get("kind") or "").upper()
            if kind in ("PROCEDURE", "PROC"):
                facts["procedure"]["create"] += 1
            elif kind in ("FUNCTION", "MACRO"):
                facts["udf"]["create"] += 1
        if isinstance(tree, exp.Command) and tree.name.upper() in ("EXEC", "EXECUTE", "CALL"):
            facts["procedure"]["call"] += 1
        for node in tree.walk():
            if isinstance(node, exp.DataType):
                facts["data_type"][str(node.this)] += 1
            elif isinstance(node, exp.Anonymous):
                facts["function"][node.name.upper()] += 1
            elif isinstance(node, (exp.Func, *_OPERATORS)):
                facts["function"][type(node).__name__] += 1
            elif isinstance(node, _STRUCTURE):
                facts["syntax"][type(node).__name__] += 1
    for tok, nxt in zip(tokens, [*tokens[1:], None], strict=True):
        if nxt is not None and nxt.token_type is TokenType.L_PAREN and tok.text.isidentifier():
            facts["function"][f"name:{tok.text.upper()}"] += 1  # the name as written
        elif tok.token_type not in _NOT_KEYWORDS and tok.text.isalpha():
            facts["keyword"][tok.text.upper()] += 1
    return facts


def translation_types(
    source: str, source_dialect: str, target: str, target_dialect: str
) -> tuple[str, ...]:
    """PARROT's translation types of one pair (see the module docstring)."""
    a, b = _facts(source, source_dialect), _facts(target, target_dialect)
    if a is None or b is None:
        return ("other",)
    types = [
        t
        for t in ("syntax", "keyword", "data_type", "function", "procedure", "udf")
        if (a[t] != b[t]) or (t in ("procedure", "udf") and (a[t] or b[t]))
    ]
    if "function" in types and "keyword" in types:
        # a renamed function shows up among the keywords too; keep keyword only when a
        # keyword differs that is not a function name on either side
        names = {n.removeprefix("name:") for n in (*a["function"], *b["function"])}
        diff = set((a["keyword"] - b["keyword"]) + (b["keyword"] - a["keyword"]))
        if diff <= names:
            types.remove("keyword")
    return tuple(types) or ("other",)


class Classify(Stage):
    """Translation types of every pair and the token count of its source."""

    name = "classify"

    def map(self, chunk: list[Record]) -> Batch:
        out = Batch([])
        for r in chunk:
            reference = r.references[0].sql if r.references else r.sql
            types = translation_types(r.sql, r.dialect, reference, r.target or r.dialect)
            out.notes.update(f"type: {t}" for t in types)
            out.records.append(replace(r, translation_types=types, tokens=count_tokens(r.sql)))
        return out
