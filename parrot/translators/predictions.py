"""Score someone's predictions: ``--model file:<path>``.

Accepted files, matched to items strictly by ``id`` (never by position):

* PARROT's submission format: a JSON array (or JSONL) of
  ``{id, source_dialect, source_sql, target_dialect, translated_sql}``;
* parrot JSONL: ``{id, translated_sql}`` lines, or a previous run's ``results.jsonl``
  (``{id, translation: {status, sql}}``);
* BIRD / Spider text-to-SQL style: one JSON object ``{question_id: sql}`` (BIRD's
  ``"sql\t----- bird -----\tdb_id"`` values are accepted), matched to text-to-SQL items by their
  ``question_id``. Such a file answers each question once, so it scores one target dialect per run
  (choose it with ``--pairs``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from parrot import dialects
from parrot.datasets import Item
from parrot.textfiles import read_utf8
from parrot.translators.base import Translation, TranslationStatus, Translator
from parrot.translators.registry import register


class PredictionsFileError(ValueError):
    """A predictions file that cannot be scored (unreadable, duplicate ids, no SQL field)."""


@register("file")
class FileTranslator(Translator):
    """Looks up each item's translation by id in a predictions file."""

    name = "file"

    def __init__(self, path: str):
        self.path = Path(path)
        self.records, self.by_question = load_predictions(self.path)
        self.targets: set[str] = set()

    def params(self) -> dict[str, Any]:
        return {"name": self.name, "path": str(self.path), "predictions": len(self.records)}

    def _key(self, item: Item) -> str:
        return str(item.extra.get("question_id", item.id)) if self.by_question else item.id

    def check_items(self, items: Iterable[Item]) -> list[str]:
        items = list(items)
        self.targets = {item.target_dialect for item in items}
        ids = {self._key(item) for item in items}
        missing = sorted(ids - self.records.keys())
        unknown = sorted(self.records.keys() - ids)
        warnings = []
        if missing:
            warnings.append(
                f"{len(missing)} item(s) have no prediction in {self.path} "
                f"(scored as missing): {_preview(missing)}"
            )
        if unknown:
            warnings.append(
                f"{len(unknown)} prediction id(s) in {self.path} match no item "
                f"(ignored): {_preview(unknown)}"
            )
        if self.by_question and len(self.targets) > 1:
            warnings.append(
                f"{self.path} holds one SQL per question but the run asks for "
                f"{len(self.targets)} target dialects: every item is scored as "
                "missing; choose one target with --pairs SOURCE:TARGET"
            )
        return warnings

    def translate(self, item: Item) -> Translation:
        if self.by_question and len(self.targets) > 1:
            return Translation(
                TranslationStatus.MISSING, error=f"{self.path} answers one target dialect per run"
            )
        key = self._key(item)
        record = self.records.get(key)
        if record is None:
            return Translation(
                TranslationStatus.MISSING, error=f"no prediction with id {key!r} in {self.path}"
            )
        for key, expected in (
            ("source_dialect", item.source_dialect),
            ("target_dialect", item.target_dialect),
        ):
            given = record.get(key)
            if given is not None and _dialect(given) != expected:
                return Translation(
                    TranslationStatus.ERROR,
                    error=f"prediction {item.id!r} is for {key}={given!r}, "
                    f"the item has {expected!r}",
                )
        translation = record.get("translation")
        if isinstance(translation, dict):  # a parrot results.jsonl line
            status = TranslationStatus(translation.get("status", "ok"))
            if status is not TranslationStatus.OK:
                return Translation(status, error=translation.get("error"))
            return Translation.from_sql(translation.get("sql"))
        return Translation.from_sql(record.get("translated_sql"))


_JSON_TYPES = {list: "array", dict: "object", int: "number", float: "number", bool: "boolean"}


def _dialect(name: Any) -> str | None:
    try:
        return dialects.resolve(str(name))
    except dialects.UnknownDialectError:
        return None


def _preview(ids: list[str], n: int = 5) -> str:
    return ", ".join(ids[:n]) + (" ..." if len(ids) > n else "")


BIRD_SEPARATOR = "\t----- bird -----\t"


def load_predictions(path: Path) -> tuple[dict[str, dict[str, Any]], bool]:
    """Prediction records keyed by id, and whether the keys are question ids (a BIRD-style
    ``{question_id: sql}`` object); raises PredictionsFileError with file:line reasons."""
    if not path.is_file():
        raise PredictionsFileError(f"predictions file not found: {path}")
    text = read_utf8(path)
    stripped = text.lstrip()
    records: list[tuple[str, Any]] = []
    if stripped.startswith("{") and "\n{" not in stripped.rstrip():
        try:
            data = json.loads(text)
        except json.JSONDecodeError:
            data = None  # one JSONL line, read below
        if (
            isinstance(data, dict)
            and data
            and not {"id", "translated_sql"} & data.keys()
            and all(isinstance(v, str) for v in data.values())
        ):
            return {
                str(k): {"id": str(k), "translated_sql": v.split(BIRD_SEPARATOR)[0]}
                for k, v in data.items()
            }, True
    if stripped.startswith("["):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise PredictionsFileError(f"{path}:{exc.lineno}: invalid JSON ({exc.msg})") from None
        records = [(f"{path}[{i}]", r) for i, r in enumerate(data)]
    else:
        for lineno, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                records.append((f"{path}:{lineno}", json.loads(line)))
            except json.JSONDecodeError as exc:
                raise PredictionsFileError(f"{path}:{lineno}: invalid JSON ({exc.msg})") from None
    by_id: dict[str, dict[str, Any]] = {}
    for where, record in records:
        if not isinstance(record, dict) or "id" not in record:
            raise PredictionsFileError(f"{where}: each prediction is an object with an 'id'")
        if "translated_sql" not in record and not isinstance(record.get("translation"), dict):
            raise PredictionsFileError(f"{where}: no 'translated_sql' field")
        sql = (
            record["translated_sql"]
            if "translated_sql" in record
            else record["translation"].get("sql")
        )
        if sql is not None and not isinstance(sql, str):
            raise PredictionsFileError(
                f"{where}: the translated SQL is a JSON "
                f"{_JSON_TYPES.get(type(sql), type(sql).__name__)}, "
                "not a string"
            )
        key = str(record["id"])
        if key in by_id:
            raise PredictionsFileError(f"{where}: duplicate prediction id {key!r}")
        by_id[key] = record
    return by_id, False
