"""Suite files: one JSON file per (source dialect, source SQL, fixture) beside a dataset.

A dataset ``D/items.jsonl`` keeps its suites in ``D/suites/<key>.json``; suites generated from a
corpus database (a ``spider/<db_id>`` or ``text2sql/<db>`` fixture: their values are sampled
from it) go to ``D/suites/corpus/<key>.json``, which git ignores, and are rebuilt where the
corpus is present.
The key is a content hash, so items that share a source query and fixture (one concept, many
target dialects) share a suite, and a changed source or fixture never picks up a stale suite.
File shape::

    {"version": 1, "key": "...", "source_dialect": "sqlite", "source_sql": "...",
     "fixture_sha256": "...", "generator": "rules-v7", "neighbours": 40, "killed": 38,
     "databases": [{"seed": 7, "size": 12, "kills": 21, "fixture": {<fixture JSON>}}, ...]}

A database may name its own ``generator`` (``rules-v1``, ``llm:local``) when the suite mixes
generators (``rules-v1+llm:local``); without one it was made by the suite's generator.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from parrot.api.bounded import BoundedCache
from parrot.fixtures import Fixture, fixture_from_json, fixture_to_json
from parrot.migrate.named import CORPUS_FAMILIES

SUITE_VERSION = 1
# The suites a judge keeps loaded (SuiteCache), least recently used dropped first, never the
# newest: kept for the whole polyglot reference run its 168 suites (609,989 rows) were 292 MiB
# of the main process (tracemalloc, issue 31). Items sharing a suite (one concept, many target
# dialects) follow one another in a dataset, so a few suites are all a run reuses; a dropped
# suite is read again from its file (same content, same verdicts).
KEPT_SUITES = 32
KEPT_SUITE_ROWS = 150_000  # rows of all kept suites' databases (polyglot's largest: 133,289)
SUITES_DIR = "suites"
CORPUS_DIR = "corpus"  # D/suites/corpus/: suites holding corpus data (Spider), never committed


@dataclass(frozen=True)
class SuiteDatabase:
    """One distilled database: the generated fixture, how it was made, what it killed."""

    fixture: Fixture
    seed: int = 0
    size: int = 0
    kills: int = 0
    generator: str = ""  # empty: the suite's generator


@dataclass(frozen=True)
class Suite:
    """The suite of one source query: its databases and the neighbour counts of distillation."""

    key: str
    source_dialect: str
    source_sql: str
    fixture_sha256: str
    databases: tuple[SuiteDatabase, ...]
    generator: str = ""
    neighbours: int = 0
    killed: int = 0
    extra: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)


def suite_key(source_dialect: str, source_sql: str, fixture: Fixture | None) -> str:
    """The content key of a suite (24 hex digits of SHA-256)."""
    fx = fixture.content_hash if fixture is not None else ""
    text = f"{source_dialect}\x00{source_sql}\x00{fx}"
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:24]


def suite_path(dataset_dir: Path, key: str, corpus: bool = False) -> Path:
    base = dataset_dir / SUITES_DIR
    return (base / CORPUS_DIR if corpus else base) / f"{key}.json"


def from_corpus(fixture: Fixture | None) -> bool:
    """Whether suites of ``fixture`` hold corpus data (not to be committed): a named fixture of a
    corpus family (``spider/<db>``, ``text2sql/<db>``), whose values the generator samples."""
    return fixture is not None and fixture.name.split("/", 1)[0] in CORPUS_FAMILIES


def suite_to_json(suite: Suite) -> dict[str, Any]:
    return {
        "version": SUITE_VERSION,
        "key": suite.key,
        "source_dialect": suite.source_dialect,
        "source_sql": suite.source_sql,
        "fixture_sha256": suite.fixture_sha256,
        "generator": suite.generator,
        "neighbours": suite.neighbours,
        "killed": suite.killed,
        **suite.extra,
        "databases": [
            {
                "seed": d.seed,
                "size": d.size,
                "kills": d.kills,
                **({"generator": d.generator} if d.generator else {}),
                "fixture": fixture_to_json(d.fixture),
            }
            for d in suite.databases
        ],
    }


def suite_from_json(data: dict[str, Any]) -> Suite:
    known = {
        "version",
        "key",
        "source_dialect",
        "source_sql",
        "fixture_sha256",
        "generator",
        "neighbours",
        "killed",
        "databases",
    }
    if data.get("version") != SUITE_VERSION:
        raise ValueError(f"suite version {data.get('version')!r}, expected {SUITE_VERSION}")
    return Suite(
        key=data["key"],
        source_dialect=data["source_dialect"],
        source_sql=data["source_sql"],
        fixture_sha256=data.get("fixture_sha256", ""),
        generator=data.get("generator", ""),
        neighbours=int(data.get("neighbours", 0)),
        killed=int(data.get("killed", 0)),
        databases=tuple(
            SuiteDatabase(
                fixture=fixture_from_json(d["fixture"]),
                seed=int(d.get("seed", 0)),
                size=int(d.get("size", 0)),
                kills=int(d.get("kills", 0)),
                generator=str(d.get("generator", "")),
            )
            for d in data["databases"]
        ),
        extra={k: v for k, v in data.items() if k not in known},
    )


def load_suite(
    dataset_dir: Path, source_dialect: str, source_sql: str, fixture: Fixture | None
) -> Suite | None:
    """The stored suite of this source query and fixture, or None when none was built."""
    path = suite_path(
        dataset_dir, suite_key(source_dialect, source_sql, fixture), from_corpus(fixture)
    )
    if not path.is_file():
        return None
    return suite_from_json(json.loads(path.read_text(encoding="utf-8")))


def suite_text(suite: Suite) -> str:
    """The text of ``suite``'s file, as :func:`write_suite` writes it (one JSON line)."""
    return json.dumps(suite_to_json(suite), ensure_ascii=False, sort_keys=False) + "\n"


def write_suite(dataset_dir: Path, suite: Suite, corpus: bool = False) -> Path:
    """Write a suite atomically (temp file + rename): never a half-written suite file."""
    path = suite_path(dataset_dir, suite.key, corpus)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".tmp{os.getpid()}")
    tmp.write_text(suite_text(suite), encoding="utf-8")
    os.replace(tmp, path)
    return path


def suite_rows(suite: Suite | None) -> int:
    """Rows of all of ``suite``'s databases (0 for no suite)."""
    if suite is None:
        return 0
    return sum(db.fixture.row_count for db in suite.databases)


class SuiteCache(BoundedCache[tuple[str, str, str], "Suite | None"]):
    """Loaded suites (or None: the item has no suite) by key, at most ``KEPT_SUITES`` entries
    of at most ``KEPT_SUITE_ROWS`` rows in all; the least recently used is dropped first, the
    newest never (a suite larger than the bound is kept alone)."""

    def __init__(self, entries: int | None = None, rows: int | None = None) -> None:
        super().__init__(
            KEPT_SUITES if entries is None else entries,
            KEPT_SUITE_ROWS if rows is None else rows,
            suite_rows,
        )

    @property
    def rows(self) -> int:
        """Rows of the kept suites."""
        return self.size
