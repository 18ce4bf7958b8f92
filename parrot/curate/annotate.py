"""Stages 3½ and 4: form pairs (statement × target dialect), then ensemble annotation.

:class:`Pairs` turns each statement into one record per target dialect (the corpus's own target,
such as the expected output of a sqlglot test, rides along as a candidate). :class:`Annotate`
asks every annotator — any ``--model`` spec :func:`parrot.translators.create_translator`
understands: ``sqlglot``, ``openai/gpt-4o``, ``ensemble:…`` — for a candidate, each labelled with
its ``annotation_source``. Translators are created once per worker process.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from parrot.curate.stages import Batch, Candidate, Drop, Record, Stage
from parrot.curate.verify import no_test_data
from parrot.datasets import ANNOTATION_SOURCES, Item
from parrot.pairs import EVERY_PAIR, DialectPairs
from parrot.translators import Translator, create_translator

CORPUS_ANNOTATOR = "corpus"  # a target the input corpus itself recorded


class Pairs(Stage):
    """One record per (statement, target); ids become ``<statement id>~<target>``. A statement
    no test data can be made for (not one query, or volatile: what :class:`~parrot.curate.verify.
    TestData` would drop for every target) is dropped here, once, before it becomes pairs."""

    name = "pairs"

    def __init__(
        self,
        targets: Sequence[str],
        corpus_targets_only: bool = False,
        pairs: DialectPairs = EVERY_PAIR,
    ):
        self.targets = tuple(targets)
        self.corpus_targets_only = corpus_targets_only
        self.pairs = pairs

    def params(self) -> dict[str, Any]:
        return {
            "targets": list(self.targets),
            "corpus_targets_only": self.corpus_targets_only,
            **({"pairs": str(self.pairs)} if self.pairs.patterns else {}),
        }

    def map(self, chunk: list[Record]) -> Batch:
        out = Batch([])
        for r in chunk:
            why = no_test_data(r.sql, r.dialect)
            if why is not None:
                out.drop(Drop.NO_TEST_DATA, why)
                continue
            known: dict[str, str] = r.info.get("references", {})
            targets = [
                t
                for t in self.targets
                if t != r.dialect
                and (not self.corpus_targets_only or t in known)
                and self.pairs.allows(r.dialect, t)
            ]
            if not targets:
                out.drop(Drop.NO_TARGET)
                continue
            for t in targets:
                candidates = (Candidate(known[t], CORPUS_ANNOTATOR, "tool"),) if t in known else ()
                info = {k: v for k, v in r.info.items() if k != "references"}
                out.records.append(
                    replace(r, id=f"{r.id}~{t}", target=t, candidates=candidates, info=info)
                )
        return out


_TRANSLATORS: dict[tuple[str, Any], Translator] = {}


def translator(spec: str, llm: Any = None) -> Translator:
    """The translator ``spec`` names (``llm``: LLMOptions for model specs), once per process."""
    key = (spec, llm)
    if key not in _TRANSLATORS:
        _TRANSLATORS[key] = create_translator(spec, llm=llm)
    return _TRANSLATORS[key]


class Annotate(Stage):
    """Candidates from every annotator, in the order given (the first verified one wins)."""

    name = "annotate"

    def __init__(self, annotators: Sequence[str], llm: Any = None):
        if not annotators:
            raise ValueError("at least one annotator is needed (e.g. --annotator sqlglot)")
        self.annotators = tuple(annotators)
        self.llm = llm  # LLMOptions (frozen, picklable) or None
        for spec in self.annotators:  # fail fast on an unknown spec, in the parent process
            translator(spec, llm)

    def params(self) -> dict[str, Any]:
        return {"annotators": [translator(s, self.llm).params() for s in self.annotators]}

    def map(self, chunk: list[Record]) -> Batch:
        out = Batch([])
        items = [
            Item(
                id=r.id,
                source_dialect=r.dialect,
                target_dialect=r.target or r.dialect,
                source_sql=r.sql,
            )
            for r in chunk
        ]
        found: dict[str, list[Candidate]] = {r.id: [] for r in chunk}
        for spec in self.annotators:
            for item, t in translator(spec, self.llm).translate_all(items):
                if t.ok and t.sql:
                    source = (
                        t.annotation_source if t.annotation_source in ANNOTATION_SOURCES else "tool"
                    )
                    found[item.id].append(Candidate(t.sql, t.member or spec, source))
                else:
                    out.notes[f"{spec}: {t.status}"] += 1
        for r in chunk:
            candidates = (*found[r.id], *r.candidates)  # annotators first, the corpus's last
            if not candidates:
                out.drop(Drop.NO_ANNOTATION)
                continue
            out.records.append(replace(r, candidates=candidates))
        return out
