"""The benchmark variants: which corpus each reads, its default targets and its selection.

* ``simple`` — unit-style pairs from sqlglot's own tests (``<corpora>/sqlglot/``): their source
  statements in the five dialects with an engine here besides Spark (SQLite, DuckDB,
  ClickHouse, PostgreSQL, MySQL), paired with every other one; the test's expected output rides
  along as a candidate. Annotated by sqlglot and its rewrite rules, verified by execution on
  generated data.
* ``diverse`` — real benchmark queries of the Spider family (``<corpora>/parrot/*.jsonl``) whose
  Spider database is present, run on that database (``spider/<db_id>``) and on generated data.
* ``main`` — the hard set: long (top token-length quartile) statements with several constructs
  (joins, subqueries, grouping, set operations, windows, CTEs, CASE), from every SQLite-dialect
  benchmark; Spider databases where they exist, generated data otherwise.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from parrot.api import jsonl
from parrot.curate.stages import Batch, Drop, Record, Stage
from parrot.migrate.named import available_named, corpora_root
from parrot.registry import Registry
from parrot.tokens import count_tokens

EMBEDDED = ("sqlite", "duckdb", "clickhouse")
LOCAL = (*EMBEDDED, "postgres", "mysql")  # engines here without Spark's JVM (servers: started)
SPIDER_FAMILY = (
    "Spider",
    "Spider-Syn",
    "Spider-DK",
    "Spider-Realistic",
    "Dr.Spider",
    "sparc",
    "CoSQL",
    "CSpider",
    "PortugueseSpider",
    "Archer",
    "AmbiQT",
    "PAUQ",
)


class CorpusMissing(FileNotFoundError):
    """The shared corpora folder (or a file in it) is absent."""


@dataclass(frozen=True)
class Variant:
    name: str
    load: Callable[[tuple[str, ...]], tuple[list[Record], list[Path]]]  # sources -> records
    sources: tuple[str, ...]  # source dialects read by default
    targets: tuple[str, ...]  # target dialects by default
    limit: int | None  # statements kept by coverage selection, by default
    corpus_targets_only: bool = False
    annotators: tuple[str, ...] = ("sqlglot",)  # --annotator specs, by default
    coverage: str = "sqlglot"  # --coverage, by default
    # the corpus files and a per-row reader, for a variant whose records are one per row (no
    # cross-row merging): what lets a cluster read the corpus in partitions
    rows: Callable[[tuple[str, ...]], tuple[list[Path], RowReader]] | None = None


def _jsonl(path: Path) -> Iterator[dict[str, Any]]:
    if not path.is_file():
        raise CorpusMissing(
            f"{path} not found: set PARROT_CORPORA to the folder holding the "
            "shared corpora (parrot/, sqlglot/, sqlite/)"
        )
    yield from jsonl.objects(path)


def load_simple(sources: tuple[str, ...]) -> tuple[list[Record], list[Path]]:
    """Source statements of sqlglot's tests, with the tests' expected targets attached."""
    root = corpora_root() / "sqlglot"
    paths = [root / "sqlglot_cross_dialect_pairs.jsonl", root / "sqlglot_same_dialect_pairs.jsonl"]
    records: dict[tuple[str, str], Record] = {}
    for path in paths:
        for row in _jsonl(path):
            dialect = row["source_dialect"]
            if dialect not in sources:
                continue
            key = (dialect, row["source_sql"])
            if key not in records:
                records[key] = Record(
                    id=row["id"],
                    dialect=dialect,
                    sql=row["source_sql"],
                    origin=f"sqlglot:{row['test_file']}",
                    info={"references": {}},
                )
            target = row["target_dialect"]
            if target != dialect:
                records[key].info["references"].setdefault(target, row["target_sql"])
    return list(records.values()), paths


@dataclass(frozen=True)
class RowReader:
    """One row of a benchmark corpus (``<corpora>/parrot/*.jsonl``) as a record, or None when
    the variant does not read it; picklable, so cluster workers read partitions with it."""

    sources: tuple[str, ...]
    named: frozenset[str]  # the named fixtures present (spider/<db_id>, …)
    spider_only: bool

    def __call__(self, row: dict[str, Any], path: Path) -> Record | None:
        if row["dialect"] not in self.sources:
            return None
        fixture = f"spider/{row['db_id']}" if row.get("db_id") else None
        if fixture not in self.named:
            if self.spider_only:
                return None
            fixture = None
        return Record.of_row(row, row.get("benchmark", path.stem), fixture)


def _reader(sources: tuple[str, ...], spider_only: bool) -> RowReader:
    return RowReader(sources, frozenset(available_named()), spider_only)


def _benchmark_records(files: list[Path], reader: RowReader) -> list[Record]:
    out = []
    for path in files:
        for row in _jsonl(path):
            record = reader(row, path)
            if record is not None:
                out.append(record)
    return out


def rows_diverse(sources: tuple[str, ...]) -> tuple[list[Path], RowReader]:
    files = [corpora_root() / "parrot" / f"{name}.jsonl" for name in SPIDER_FAMILY]
    return [f for f in files if f.is_file()] or files[:1], _reader(sources, spider_only=True)


def rows_main(sources: tuple[str, ...]) -> tuple[list[Path], RowReader]:
    root = corpora_root() / "parrot"
    if not root.is_dir():
        raise CorpusMissing(f"{root} not found: set PARROT_CORPORA")
    return sorted(root.glob("*.jsonl")), _reader(sources, spider_only=False)


def load_diverse(sources: tuple[str, ...]) -> tuple[list[Record], list[Path]]:
    files, reader = rows_diverse(sources)
    return _benchmark_records(files, reader), files


def load_main(sources: tuple[str, ...]) -> tuple[list[Record], list[Path]]:
    files, reader = rows_main(sources)
    return _benchmark_records(files, reader), files


# other packages add variants through the ``parrot.curation_variants`` entry-point group
VARIANTS: Registry[Variant] = Registry(
    "curation variant",
    group="parrot.curation_variants",
    check=lambda v: isinstance(v, Variant),
    expects="a Variant",
)
for _variant in (
    Variant(
        "simple",
        load_simple,
        LOCAL,
        LOCAL,
        None,
        annotators=("sqlglot", "rules"),
        coverage="statement",
    ),
    Variant("diverse", load_diverse, ("sqlite",), ("duckdb", "clickhouse"), 400, rows=rows_diverse),
    Variant("main", load_main, ("sqlite",), ("duckdb", "clickhouse"), 100, rows=rows_main),
):
    VARIANTS.add(_variant.name, _variant)


# --- the simple variant's grounding -------------------------------------------------------------

GROUND_TABLE = "t"


def ground(sql: str, dialect: str) -> str | None:
    """A test statement that uses columns but reads no table (``SELECT x BETWEEN 2 AND 10``)
    made runnable by reading them from table ``t``; None when it needs nothing or cannot be."""
    import sqlglot
    from sqlglot import exp
    from sqlglot.errors import SqlglotError

    try:
        trees = sqlglot.parse(sql, read=dialect)
    except (SqlglotError, RecursionError, ValueError):
        return None
    if len(trees) != 1 or not isinstance(trees[0], exp.Select):
        return None
    tree = trees[0]
    if tree.args.get("from") or tree.args.get("from_") or tree.find(exp.Table, exp.Subquery):
        return None
    if tree.find(exp.Column) is None:
        return None
    try:
        return tree.from_(GROUND_TABLE).sql(dialect=dialect)
    except SqlglotError:
        return None


class Ground(Stage):
    """Give sqlglot-test statements with free columns a table to read (see :func:`ground`);
    the test's expected targets are grounded the same way."""

    name = "ground"

    def map(self, chunk: list[Record]) -> Batch:
        out = Batch([])
        for r in chunk:
            grounded = ground(r.sql, r.dialect)
            if grounded is None:
                out.records.append(r)
                continue
            refs = {
                t: g
                for t, sql in r.info.get("references", {}).items()
                if (g := ground(sql, t)) is not None
            }
            out.notes["grounded on table t"] += 1
            out.records.append(
                replace(
                    r, sql=grounded, tags=(*r.tags, "grounded"), info={**r.info, "references": refs}
                )
            )
        return out


# --- the main variant's hardness filter -----------------------------------------------------------

_CONSTRUCTS: dict[str, tuple[str, ...]] = {
    "join": ("Join",),
    "subquery": ("Subquery",),
    "group": ("Group",),
    "having": ("Having",),
    "set_operation": ("Union", "Except", "Intersect"),
    "window": ("Window",),
    "cte": ("CTE",),
    "case": ("Case",),
    "order": ("Order",),
    "limit": ("Limit",),
    "distinct": ("Distinct",),
}


def constructs(sql: str, dialect: str) -> set[str]:
    """The constructs (join, subquery, window, …) a statement uses."""
    import sqlglot
    from sqlglot.errors import SqlglotError

    try:
        trees = [t for t in sqlglot.parse(sql, read=dialect) if t is not None]
    except (SqlglotError, RecursionError, ValueError):
        return set()
    kinds = {type(n).__name__ for t in trees for n in t.walk()}
    return {name for name, classes in _CONSTRUCTS.items() if kinds & set(classes)}


class Hard(Stage):
    """Keep statements in the top token-length buckets that use several constructs."""

    name = "hard"

    def __init__(self, quantile: float = 0.75, min_constructs: int = 3):
        self.quantile = quantile
        self.min_constructs = min_constructs

    def params(self) -> dict[str, Any]:
        return {"length_quantile": self.quantile, "min_constructs": self.min_constructs}

    def map(self, chunk: list[Record]) -> Batch:
        out = Batch([])
        for r in chunk:
            found = constructs(r.sql, r.dialect)
            if len(found) < self.min_constructs:
                out.drop(Drop.TOO_FEW_CONSTRUCTS, f"fewer than {self.min_constructs}")
                continue
            out.records.append(
                replace(
                    r,
                    tokens=count_tokens(r.sql),
                    tags=(*r.tags, *(f"construct:{c}" for c in sorted(found))),
                )
            )
        return out

    def reduce(self, batch: Batch) -> Batch:
        lengths = sorted(r.tokens or 0 for r in batch.records)
        if not lengths:
            return batch
        cut = lengths[min(len(lengths) - 1, math.floor(self.quantile * len(lengths)))]
        kept = [r for r in batch.records if (r.tokens or 0) >= cut]
        batch.drop(Drop.BELOW_LENGTH_QUANTILE, n=len(batch.records) - len(kept))
        batch.notes[f"token cut-off: {cut}"] = 1
        return Batch(kept, batch.dropped, batch.notes, batch.routed, batch.details)
