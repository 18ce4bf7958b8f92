"""The rule-based baseline: sqlglot's transpiler with unsupported constructs raised, not warned."""

from __future__ import annotations

import time
from typing import Any

import sqlglot
from sqlglot.errors import ErrorLevel, ParseError, SqlglotError, UnsupportedError

from parrot.datasets import Item
from parrot.translators.base import Translation, TranslationStatus, Translator
from parrot.translators.registry import register


@register("sqlglot")
class SqlglotTranslator(Translator):
    """``sqlglot.transpile(read=source, write=target)``; a construct sqlglot cannot express in
    the target is an ``unsupported`` outcome (by default sqlglot only logs a warning and emits
    the construct untranslated)."""

    name = "sqlglot"
    read_ahead = True

    def __init__(self, pretty: bool = False):
        self.pretty = pretty

    def params(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "sqlglot": sqlglot.__version__,
            "pretty": self.pretty,
            "unsupported_level": "raise",
        }

    def translate(self, item: Item) -> Translation:
        start = time.perf_counter()
        try:
            statements = sqlglot.transpile(
                item.source_sql,
                read=item.source_dialect,
                write=item.target_dialect,
                unsupported_level=ErrorLevel.RAISE,
                error_level=ErrorLevel.RAISE,
                pretty=self.pretty,
            )
        except UnsupportedError as exc:
            return Translation(
                TranslationStatus.UNSUPPORTED,
                error=_first_line(exc),
                latency=time.perf_counter() - start,
                annotation_source="tool",
            )
        except ParseError as exc:
            return Translation(
                TranslationStatus.ERROR,
                error=f"parse error: {_first_line(exc)}",
                latency=time.perf_counter() - start,
                annotation_source="tool",
            )
        except (SqlglotError, RecursionError, ValueError) as exc:
            return Translation(
                TranslationStatus.ERROR,
                error=_first_line(exc),
                latency=time.perf_counter() - start,
                annotation_source="tool",
            )
        except Exception as exc:  # a defect inside sqlglot: this item's failure, not the run's
            return Translation(
                TranslationStatus.ERROR,
                error=f"sqlglot failed: {type(exc).__name__}: {_first_line(exc)}",
                latency=time.perf_counter() - start,
                annotation_source="tool",
            )
        sql = ";\n".join(s for s in statements if s.strip())
        return Translation.from_sql(
            sql, latency=time.perf_counter() - start, annotation_source="tool"
        )


@register("gold-sqlglot")
class GoldSqlglotTranslator(SqlglotTranslator):
    """Text-to-SQL's transpiled-gold baseline (PolySQL's comparison): the question's gold
    (``source_sql``) transpiled by sqlglot into the target dialect — it never reads the question,
    so it measures what rule-based transpilation of a correct answer loses across dialects."""

    name = "gold-sqlglot"


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    return text.splitlines()[0][:500]
