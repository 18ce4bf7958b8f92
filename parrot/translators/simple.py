"""The floor and the ceiling: ``identity`` returns the source, ``reference`` the target."""

from __future__ import annotations

from parrot.datasets import Item
from parrot.translators.base import Translation, TranslationStatus, Translator
from parrot.translators.registry import register


@register("identity")
class IdentityTranslator(Translator):
    """Returns the source SQL unchanged: what an item scores without any translation."""

    name = "identity"
    read_ahead = True

    def translate(self, item: Item) -> Translation:
        return Translation.from_sql(item.source_sql, annotation_source="tool")


@register("reference")
class ReferenceTranslator(Translator):
    """Returns the item's reference target SQL: must score 100% on a sound dataset. An item
    with no reference in its target dialect (a text-to-SQL question beyond its gold's dialect)
    answers ``no_reference``: reported apart from the score, like a missing engine."""

    name = "reference"
    read_ahead = True

    def translate(self, item: Item) -> Translation:
        if not item.reference_sql:
            return Translation(
                TranslationStatus.NO_REFERENCE,
                error=f"item has no reference_sql in {item.target_dialect}",
            )
        return Translation.from_sql(item.reference_sql[0], annotation_source=item.annotation_source)
