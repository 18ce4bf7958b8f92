"""Acc_SYN: each translation checked by parrot's own grammar of the target dialect.

The check needs no engine, so it scores targets that have none here (Oracle, T-SQL, ...) and is
reported beside Acc_EX for every target that has a grammar (:mod:`parrot.check`).
"""

from __future__ import annotations

import sys
from collections.abc import Iterable

from parrot.api.records import SyntaxRecord
from parrot.engines.base import ExecStatus
from parrot.translators.base import Translation

# execution statuses after which the target engine had parsed the translation: a runtime or binder
# error, a timeout or a too-large result came after the parse, so Acc_SYN's fallback (a grammar
# check where no engine judged the text) skips them and loads no parser for them
ENGINE_PARSED = frozenset(
    s.value
    for s in (ExecStatus.OK, ExecStatus.RUNTIME_ERROR, ExecStatus.TIMEOUT, ExecStatus.TOO_LARGE)
)


def has_grammar(dialect: str) -> bool:
    # deferred: ANTLR's runtime and generated parsers (loaded only on this path)
    from parrot.check import UnsupportedDialectError, grammar_for

    try:
        grammar_for(dialect)
    except UnsupportedDialectError:
        return False
    return True


def preload_grammars(dialects: Iterable[str]) -> None:
    """Start loading the grammars of ``dialects`` in a background thread (Acc_SYN will need
    them; the load overlaps the engines' work)."""
    # deferred: ANTLR's runtime and generated parsers (loaded only on this path)
    from parrot.check.parsers import preload

    preload(dialects)


def keep_warm_grammars() -> None:
    """Save the grammars' prediction caches this process warmed, for the next run to start
    warm (:mod:`parrot.check.dfacache`); nothing when no grammar was loaded."""
    parsers = sys.modules.get("parrot.check.parsers")
    if parsers is not None:
        parsers.persist()


def syntax_json(dialect: str, translation: Translation) -> SyntaxRecord | None:
    """The grammar verdict on a translation, or None when ``dialect`` has no grammar.

    A missing or empty translation fails the check; otherwise every statement must parse, and the
    first failing one is described (statement number, line:column, offending token, message).
    """
    if not has_grammar(dialect):
        return None
    if not translation.ok or not translation.sql:
        return {"ok": False, "error": f"no translation ({translation.status})"}
    # deferred: ANTLR's runtime and generated parsers (loaded only on this path)
    from parrot.check import check_sql

    verdicts = check_sql(translation.sql, dialect)
    bad = next((v for v in verdicts if not v.ok), None)
    if not verdicts:
        return {"ok": False, "error": "no statement"}
    if bad is None:
        return {"ok": True}
    return {
        "ok": False,
        "error": f"statement {bad.index}, {bad.line}:{bad.column} near "
        f"{bad.token!r}: {bad.message}",
    }
