"""Stage 5½, the difficulty filter (PARROT's small-LLM filter).

:class:`Difficulty` asks one translator — any ``--model`` spec, typically a small model
(``--difficulty-model local``) — to translate every verified pair, with the same prompt input
eval gives it (the item on the fixture eval will attach), and judges its answer with the same
:class:`~parrot.eval.judge.Judge` strict check verification uses, on every round of test data.
A pair the model already solves is *easy*: ``--difficulty drop`` removes it (funnel code
``easy``), ``--difficulty tag`` keeps it tagged ``easy`` (item ``difficulty: "easy"``). Pairs
without an engine on a side (grammar-only) are not judged and pass unchanged.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from parrot.curate.annotate import translator as difficulty_translator
from parrot.curate.stages import ENGINE_CHUNK, Batch, Drop, Record, Stage
from parrot.curate.verify import DEFAULT_MAX_ROWS, DEFAULT_TIMEOUT, checker

MODES = ("drop", "tag")
EASY = "easy"


class Difficulty(Stage):
    """Drop (or tag ``easy``) the verified pairs that ``model`` already translates correctly."""

    name = "difficulty"
    max_chunk = ENGINE_CHUNK

    def __init__(
        self,
        model: str,
        mode: str = "drop",
        llm: Any = None,
        timeout: float = DEFAULT_TIMEOUT,
        max_rows: int = DEFAULT_MAX_ROWS,
    ):
        if mode not in MODES:
            raise ValueError(f"--difficulty must be one of {', '.join(MODES)}, not {mode!r}")
        self.model = model
        self.mode = mode
        self.llm = llm  # LLMOptions (frozen, picklable) or None
        self.timeout = timeout
        self.max_rows = max_rows
        difficulty_translator(model, llm)  # fail fast on an unknown spec, in the parent

    def params(self) -> dict[str, Any]:
        return {
            "model": difficulty_translator(self.model, self.llm).params(),
            "mode": self.mode,
            "solved": "strict match on every round (the Judge verification uses)",
        }

    def map(self, chunk: list[Record]) -> Batch:
        check = checker(self.timeout, self.max_rows)
        out = Batch([])
        judged = {r.id: r for r in chunk if r.references and check.runnable(r)}
        items = {}
        for r in judged.values():
            rounds = check.rounds(r)
            items[r.id] = check.item(r, rounds[min(r.info.get("attach", 0), len(rounds) - 1)])
        solved: set[str] = set()
        for item, t in difficulty_translator(self.model, self.llm).translate_all(
            list(items.values())
        ):
            if not (t.ok and t.sql):
                out.notes[f"{self.model}: {t.status}"] += 1
                continue
            if check.agrees(judged[item.id], t.sql).ok:
                solved.add(item.id)
            else:
                out.notes[f"{self.model}: wrong"] += 1
        for r in chunk:
            if r.id not in items:
                out.notes["not judged (no engine)"] += 1
                out.records.append(r)
            elif r.id not in solved:
                out.records.append(r)
            elif self.mode == "drop":
                out.drop(Drop.EASY, f"solved by {self.model}")
            else:
                out.notes[f"tagged {EASY}"] += 1
                out.records.append(
                    replace(
                        r,
                        tags=(*r.tags, EASY),
                        info={**r.info, "difficulty": EASY, "difficulty_model": self.model},
                    )
                )
        return out
