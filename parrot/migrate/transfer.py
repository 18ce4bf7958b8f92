"""Engine-to-engine migration (PolySQL's Φ): source database → portable fixture → target engine.

The portable :class:`~parrot.fixtures.Fixture` is the only intermediate: :func:`migrate` reads
the source with :func:`parrot.migrate.introspect.introspect` (or resolves a named fixture), then
the target adapter's :meth:`~parrot.engines.Engine.load` materialises it and verifies row counts
and checksums, raising :class:`~parrot.engines.FixtureLoadError` when the target cannot store it
faithfully.
"""

from __future__ import annotations

import gzip
import json
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypedDict, Unpack

from parrot.connect import create_engine
from parrot.engines import Engine, LoadReport
from parrot.fixtures import Fixture, FixtureError
from parrot.migrate.introspect import Introspection, introspect
from parrot.migrate.named import named_introspection


@dataclass(frozen=True)
class Migration:
    introspection: Introspection
    report: LoadReport  # what the target verified
    engine: Engine  # the target (created by migrate() when given by name: close it)
    introspect_seconds: float
    load_seconds: float

    @property
    def fixture(self) -> Fixture:
        return self.introspection.fixture


def is_named(source: Any) -> bool:
    """True for names of the named-fixture catalogue (``spider/<db>``, ``tpch``, ``tpch-sfN``)."""
    return (
        isinstance(source, str)
        and not Path(source).exists()
        and (source.startswith("spider/") or source == "tpch" or source.startswith("tpch-sf"))
    )


FIXTURE_SUFFIXES = (".json", ".json.gz")  # what ``--out`` writes


def is_fixture_file(source: Any) -> bool:
    """A fixture file as ``parrot migrate --out`` writes it (``.json``, ``.json.gz``)."""
    return isinstance(source, str | Path) and str(source).endswith(FIXTURE_SUFFIXES)


def read_fixture_file(path: str | Path) -> Introspection:
    """A fixture written by ``--out`` (gzip-compressed when its name ends in ``.gz``), with
    its foreign keys and type report."""
    path = Path(path)
    try:
        raw = path.read_bytes()
        text = (gzip.decompress(raw) if path.name.endswith(".gz") else raw).decode("utf-8")
        return Introspection.from_json(json.loads(text))
    except FileNotFoundError:
        raise FixtureError(f"{path}: no such fixture file") from None
    except (OSError, EOFError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise FixtureError(f"{path}: not a fixture file: {exc}") from None


class SourceOptions(TypedDict, total=False):
    """How :func:`read_source` and :func:`migrate` read a database (the keywords of
    :func:`parrot.migrate.introspect.introspect`, which gives their defaults)."""

    name: str | None
    tables: Sequence[str] | None
    blank_as_null: bool
    types: Mapping[str, str] | None


def read_source(source: Any, **options: Unpack[SourceOptions]) -> Introspection:
    """A named fixture, a fixture file (``--out``'s), a database file, a URL or an open
    connection, read as a fixture; ``types``: ``table.column`` → forced type
    (:func:`parrot.migrate.infer.parse_override`)."""
    name = options.get("name")
    shaped = (
        options.get("tables") is not None or options.get("blank_as_null") or options.get("types")
    )
    if is_fixture_file(source):
        if shaped or name:
            raise ValueError("a fixture file takes no name, tables, blank_as_null or type options")
        return read_fixture_file(source)
    if is_named(source):
        result = named_introspection(source)
        if shaped or (name and name != source):
            raise ValueError("named fixtures take no name, tables, blank_as_null or type options")
        return result
    return introspect(source, **options)


def migrate(source: Any, target: Engine | str, **options: Unpack[SourceOptions]) -> Migration:
    """Copy ``source`` onto ``target`` (an engine, or a dialect name to create one) and verify.

    ``source``: a named fixture, a SQLite/DuckDB file, a ``duckdb:///`` or SQLAlchemy URL, an open
    ``sqlite3``/``duckdb`` connection or a ``sqlalchemy.Engine``; ``name`` names the fixture
    (default: the file's stem); ``options``: as :func:`read_source`'s.
    """
    started = time.perf_counter()
    result = read_source(source, **options)
    read = time.perf_counter() - started
    engine = create_engine(target) if isinstance(target, str) else target
    started = time.perf_counter()
    try:
        report = engine.load(result.fixture)
    except BaseException:
        if isinstance(target, str):
            engine.close()
        raise
    return Migration(result, report, engine, read, time.perf_counter() - started)


__all__ = ["Migration", "SourceOptions", "is_named", "migrate", "read_source"]
