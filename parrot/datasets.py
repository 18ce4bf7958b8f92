"""Benchmark items and their loading: JSONL in, validated :class:`Item` records out.

A dataset is a directory ``datasets/<name>/`` holding ``items.jsonl`` and
``fixtures/<fixture>.json`` (or any ``.jsonl`` file; fixtures may also be inline in a line).
Loading is all-or-nothing: every bad line is reported as ``file:line: reason`` in one
:class:`DatasetError`.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache
from importlib import metadata
from pathlib import Path
from typing import Any

from parrot import dialects
from parrot.api import schemas
from parrot.cachedir import cache_dir
from parrot.fixtures import Fixture, FixtureError, fixture_from_json
from parrot.migrate.named import named_fixture, spider_root, text2sql_root, tpch_available
from parrot.textfiles import decode_utf8, read_utf8
from parrot.tokens import ENCODING
from parrot.tokens import count_tokens as _count

# PARROT's seven translation types (paper §3): syntax rule, keyword, data type,
# operator & built-in function, stored procedure, UDF, other.
TRANSLATION_TYPES = ("syntax", "keyword", "data_type", "function", "procedure", "udf", "other")
ANNOTATION_SOURCES = ("tool", "llm", "reflection", "rule", "human", "maintainer")
DEFAULT_DATASET = "starter"
KEPT = "datasets"  # under the cache root: what loading a dataset file found, by its digest
# the fields Item has a place for; an item's other non-null fields go to Item.extra
KNOWN = {
    "id",
    "source_dialect",
    "target_dialect",
    "source_sql",
    "reference_sql",
    "fixture",
    "translation_types",
    "tokens",
    "origin",
    "annotation_source",
    "order_sensitive",
    "tolerance",
    "difficulty",
    "tags",
    "question",
    "evidence",
}


class FixtureUnavailable(FixtureError):
    """A named fixture whose source is absent on this machine (the Spider corpus, DuckDB's TPC-H
    extension), as opposed to a wrong one."""

    def __init__(self, name: str, reason: str):
        self.reason = reason
        super().__init__(f"fixture {name!r} is not available here: {reason}")


class DatasetError(ValueError):
    """A dataset that failed validation; ``problems`` lists every ``file:line: reason``."""

    def __init__(self, problems: list[str]):
        self.problems = problems
        shown = "\n  ".join(problems[:20])
        more = f"\n  ... and {len(problems) - 20} more" if len(problems) > 20 else ""
        super().__init__(f"{len(problems)} problem(s) in dataset:\n  {shown}{more}")


@dataclass(frozen=True)
class Item:
    """One benchmark pair: translate ``source_sql`` from the source to the target dialect."""

    id: str
    source_dialect: str
    target_dialect: str
    source_sql: str
    reference_sql: tuple[str, ...] = ()  # acceptable target translations (first is canonical)
    fixture: Fixture | None = None
    translation_types: tuple[str, ...] = ()
    tokens: int | None = None  # tiktoken count of source_sql (filled in by the loader if absent)
    origin: str = ""
    annotation_source: str = "human"
    order_sensitive: bool | None = None  # None: derived from the source's top-level ORDER BY
    tolerance: float | None = None  # relative float tolerance override for the comparator
    difficulty: str | None = None
    tags: tuple[str, ...] = ()
    question: str | None = None  # text-to-SQL items
    evidence: str | None = None
    extra: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    @property
    def pair(self) -> str:
        return f"{self.source_dialect}→{self.target_dialect}"


@dataclass(frozen=True)
class Dataset:
    """A loaded dataset: items in file order, the fixtures they use, and a content hash."""

    name: str
    path: Path
    items: tuple[Item, ...]
    sha256: str
    skipped: tuple[tuple[str, str], ...] = ()  # (item id, reason): fixture unavailable here

    def by_id(self) -> dict[str, Item]:
        return {i.id: i for i in self.items}


@cache
def item_columns() -> tuple[str, ...]:
    """Every column of a dataset line, in order: the properties of ``schemas/item.schema.json``
    (the one place they are listed)."""
    schema = json.loads(read_utf8(Path(__file__).resolve().parent / "schemas" / "item.schema.json"))
    return tuple(schema["properties"])


def item_line(record: dict[str, Any]) -> dict[str, Any]:
    """A dataset line with every column of :func:`item_columns`, in order, an absent optional
    one as null; so any mix of shipped and built datasets loads as one table (Hugging Face's
    ``load_dataset("json", data_files=[...])``, pyarrow) whatever the order of the files. Keys
    outside the schema follow (none in a file parrot writes: a test checks it)."""
    columns = item_columns()
    return {
        **{c: record.get(c) for c in columns},
        **{k: v for k, v in record.items() if k not in columns},
    }


def datasets_root() -> Path:
    """Where named datasets live: ``$PARROT_DATASETS``, the checkout's ``datasets/``, else the
    copy an installed wheel carries (``parrot/_datasets/``)."""
    env = os.environ.get("PARROT_DATASETS")
    if env:
        return Path(env)
    here = Path(__file__).resolve().parent
    checkout = here.parent / "datasets"
    return checkout if checkout.is_dir() else here / "_datasets"


def resolve_dataset(name_or_path: str) -> Path:
    """The ``.jsonl`` file for a dataset name, a directory, or a file path."""
    p = Path(name_or_path)
    if not p.exists():
        p = datasets_root() / name_or_path
    if p.is_dir():
        p = p / "items.jsonl"
    if not p.is_file():
        available = sorted(
            d.name for d in datasets_root().glob("*") if (d / "items.jsonl").is_file()
        )
        raise DatasetError(
            [
                f"{name_or_path}: no such dataset file or directory "
                f"(named datasets: {', '.join(available) or 'none'})"
            ]
        )
    return p


def load_dataset(
    name_or_path: str = DEFAULT_DATASET, *, count_tokens: bool = True, strict: bool = True
) -> Dataset:
    """Load and validate a dataset; raises :class:`DatasetError` listing every bad line.

    With ``strict=False`` items whose fixture is unavailable here (:class:`FixtureUnavailable`)
    are left out and listed in ``Dataset.skipped`` instead of failing the load."""
    path = resolve_dataset(name_or_path)
    raw = path.read_bytes()
    skipped: list[tuple[str, str]] | None = None if strict else []
    kept = _kept(raw)
    text = decode_utf8(raw, path).splitlines()
    items = parse_items(text, path, skipped=skipped, checked=kept is not None)
    counts = (kept or {}).get("tokens")
    if count_tokens and any(i.tokens is None for i in items):
        known = counts or {}
        items = [
            i
            if i.tokens is not None
            else _replace(i, tokens=known[i.id] if i.id in known else _count(i.source_sql))
            for i in items
        ]
        if counts is None or any(i.id not in counts for i in items):
            counts = {**known, **{i.id: i.tokens for i in items if i.tokens is not None}}
            _keep(raw, {"tokens": counts})
    elif kept is None:
        _keep(raw, {})
    digest = hashlib.sha256(raw)
    for fx in sorted((path.parent / "fixtures").glob("*.json")):
        digest.update(fx.read_bytes())
    name = path.parent.name if path.name == "items.jsonl" else path.stem
    return Dataset(
        name=name,
        path=path,
        items=tuple(items),
        sha256=digest.hexdigest(),
        skipped=tuple(skipped or ()),
    )


def _kept_path(raw: bytes) -> Path:
    """Where :func:`load_dataset` keeps what it found in a dataset file of these bytes: the
    digest of the bytes, of the item schema and of the validator's and tokenizer's versions."""
    digest = hashlib.sha256(raw)
    digest.update(schemas.fingerprint().encode())
    digest.update(f"{ENCODING} tiktoken {_version('tiktoken')}".encode())
    return cache_dir() / KEPT / f"{digest.hexdigest()}.json"


def _version(package: str) -> str:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "none"


def _kept(raw: bytes) -> dict[str, Any] | None:
    """What an earlier load of a dataset file of exactly these bytes found (its lines passed
    the item schema; ``tokens``: id → token count, when they were counted), or None."""
    try:
        kept = json.loads(_kept_path(raw).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return kept if isinstance(kept, dict) else None


def _keep(raw: bytes, found: dict[str, Any]) -> None:
    """Keep what a load of a valid dataset file found (best effort: an unwritable cache is
    only slower)."""
    target = _kept_path(raw)
    with contextlib.suppress(OSError):
        target.parent.mkdir(parents=True, exist_ok=True)
        partial = target.with_suffix(f".{os.getpid()}.tmp")
        partial.write_text(json.dumps(found), encoding="utf-8")
        os.replace(partial, target)


def _replace(item: Item, **changes: Any) -> Item:
    from dataclasses import replace

    return replace(item, **changes)


class _FixtureStore:
    """Fixtures by name: the dataset's own ``fixtures/<name>.json`` first, then parrot's named
    fixtures (``tpch``, ``spider/<db_id>``, see :mod:`parrot.migrate.named`); each loaded once."""

    def __init__(self, folder: Path):
        self.folder = folder
        self._cache: dict[str, Fixture] = {}

    def get(self, name: str) -> Fixture:
        if name not in self._cache:
            path = self.folder / f"{name}.json"
            if not path.is_file():
                try:
                    self._cache[name] = named_fixture(name)
                except FixtureError as exc:
                    absent = _source_absent(name)
                    if absent:
                        raise FixtureUnavailable(name, absent) from None
                    raise FixtureError(
                        f"fixture {name!r} is neither in {self.folder} nor a named fixture: {exc}"
                    ) from None
                return self._cache[name]
            try:
                data = json.loads(read_utf8(path))
            except json.JSONDecodeError as exc:
                raise FixtureError(f"{path}: invalid JSON: {exc}") from None
            fixture = fixture_from_json(data)
            if fixture.name != name:
                raise FixtureError(f"{path}: fixture is named {fixture.name!r}, expected {name!r}")
            self._cache[name] = fixture
        return self._cache[name]


def _source_absent(name: str) -> str | None:
    """Why the named fixture ``name`` cannot exist on this machine, or None."""
    if name.startswith("spider/") and not spider_root().is_dir():
        return f"no Spider corpus at {spider_root()} (set PARROT_CORPORA)"
    if name.startswith("text2sql/") and not text2sql_root().is_dir():
        return f"no text2sql-data corpus at {text2sql_root()} (set PARROT_CORPORA)"
    if (name == "tpch" or name.startswith("tpch-sf")) and not tpch_available():
        return "DuckDB's TPC-H extension is not installed"
    return None


def parse_items(
    lines: Iterable[str],
    path: Path,
    *,
    skipped: list[tuple[str, str]] | None = None,
    checked: bool = False,
) -> list[Item]:
    """Validate JSONL lines into items; all problems are collected before raising. Given a
    ``skipped`` list, items whose fixture is unavailable go there as (id, reason) instead.
    ``checked``: these exact lines passed the item schema before (not validated again)."""
    store = _FixtureStore(path.parent / "fixtures")
    items: list[Item] = []
    problems: list[str] = []
    seen: dict[str, int] = {}
    for lineno, line in enumerate(lines, 1):
        if not line.strip():
            continue
        where = f"{path}:{lineno}"
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            problems.append(f"{where}: invalid JSON ({exc.msg} at column {exc.colno})")
            continue
        try:
            item = item_from_record(record, store, checked=checked)
        except FixtureUnavailable as exc:
            if skipped is None:
                problems.append(f"{where}: {exc}")
            else:
                skipped.append((str(record.get("id", where)), exc.reason))
            continue
        except (ValueError, TypeError) as exc:
            problems.append(f"{where}: {exc}")
            continue
        if item.id in seen:
            problems.append(f"{where}: duplicate id {item.id!r} (first on line {seen[item.id]})")
            continue
        seen[item.id] = lineno
        items.append(item)
    if not items and not problems and not skipped:
        problems.append(f"{path}: no items")
    if problems:
        raise DatasetError(problems)
    return items


def _str_tuple(record: dict[str, Any], key: str) -> tuple[str, ...]:
    value = record.get(key)  # the schema let through null, a string or a list of strings
    return () if value is None else (value,) if isinstance(value, str) else tuple(value)


def normalised(record: Any) -> Any:
    """``record`` with the loader's shorthands spelt out as the item schema has them: an integer
    id as a string, a bare-string fixture as ``{"name": ...}``, a bare-string
    ``translation_types`` or ``tags`` as a one-element list (anything else unchanged)."""
    if not isinstance(record, dict):
        return record
    out = dict(record)
    if isinstance(out.get("id"), int) and not isinstance(out["id"], bool):
        out["id"] = str(out["id"])
    if isinstance(out.get("fixture"), str):
        out["fixture"] = {"name": out["fixture"]}
    for key in ("translation_types", "tags"):
        if isinstance(out.get(key), str):
            out[key] = [out[key]]
    return out


class ItemSchemaError(ValueError):
    """An item that ``schemas/item.schema.json`` refuses; ``problems``: one message an error."""

    def __init__(self, record: Any, problems: list[str]):
        self.problems = problems
        item_id = record.get("id") if isinstance(record, dict) else None
        named = f"item {item_id!r}: " if isinstance(item_id, str) and item_id.strip() else ""
        super().__init__(named + "; ".join(problems))


def item_from_record(
    record: Any, store: _FixtureStore | None = None, *, checked: bool = False
) -> Item:
    """Build an :class:`Item` from one JSON object: validated by the shipped item schema
    (:class:`ItemSchemaError`, a ValueError, naming the item, each JSON path and what was
    expected), then its dialects and fixture resolved (ValueError with the reason)."""
    record = normalised(record)
    found = [] if checked else schemas.problems("item.schema.json", record)
    if found:
        raise ItemSchemaError(record, found)
    tolerance = record.get("tolerance")
    return Item(
        id=record["id"],
        source_dialect=dialects.resolve(record["source_dialect"]),
        target_dialect=dialects.resolve(record["target_dialect"]),
        source_sql=record["source_sql"],
        reference_sql=_str_tuple(record, "reference_sql"),
        fixture=_fixture_of(record.get("fixture"), store),
        translation_types=_str_tuple(record, "translation_types"),
        tokens=record.get("tokens"),
        origin=str(record.get("origin") or ""),
        annotation_source=record.get("annotation_source") or "human",
        order_sensitive=record.get("order_sensitive"),
        tolerance=float(tolerance) if tolerance is not None else None,
        difficulty=record.get("difficulty"),
        tags=_str_tuple(record, "tags"),
        question=record.get("question"),
        evidence=record.get("evidence"),
        extra={k: v for k, v in record.items() if k not in KNOWN and v is not None},
    )


def _fixture_of(value: Any, store: _FixtureStore | None) -> Fixture | None:
    if value is None:  # else an object, as the schema has it: a fixture, or a fixture's name
        return None
    if "tables" in value:
        return fixture_from_json(value)
    name = value.get("name")
    if not isinstance(name, str) or store is None:
        raise ValueError(f"fixture reference {value!r} cannot be resolved")
    return store.get(name)
