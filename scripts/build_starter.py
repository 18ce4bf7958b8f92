#!/usr/bin/env python3
"""Build PARROT's starter and polyglot benchmarks from the hand-written concepts in ``concepts/``.

The benchmark content is data, not code:

* ``concepts/fixtures/<name>.json`` — five small portable databases (shop, hr, events, texts,
  metrics) whose rows were chosen to separate right translations from plausible wrong ones (NULLs,
  duplicates, ties, mixed case, stray spaces, empty strings, zero divisors, month/leap-day/year
  boundaries, microseconds, negative numbers, two-place decimals);
* ``concepts/starter/NNNN-<id>.toml`` — one query idea each, written by hand for ``sqlite``,
  ``duckdb`` and ``clickhouse`` (and, for the polyglot dataset, ``postgres``, ``mysql`` and
  ``spark``) so that every version returns the same result on the concept's fixture; the number
  fixes the order of the items;
* ``concepts/polyglot/NNNN-<id>.toml`` — concepts of the polyglot dataset only, over the named
  fixtures (``tpch``, ``spider/<db_id>``);
* ``concepts/notes.toml`` — the allowed tags and the README prose (fixture notes, divergences).

A concept file holds ``description``, ``types``, ``tags``, ``difficulty``, ``fixture``, optional
``ordered = false`` (no top-level ORDER BY), ``order_key`` (result columns of a sort key with
ties), ``expect_empty``, and a ``[sql]`` table with one SQL text per dialect (statements separated
by ';', the last one returns).

Every starter concept expands into the six directed pairs between its three dialects (ids
``starter-<concept>-<source>-<target>``); a concept with all six dialects, and every polyglot-only
concept, also expands into the 30 directed pairs of the polyglot dataset
(``polyglot-<concept>-<source>-<target>``). The reference is the concept's SQL in the target
dialect.

Usage::

    python scripts/build_starter.py            # (re)write datasets/starter/** and polyglot/**
    python scripts/build_starter.py --check    # exit 1 if the committed files are stale
    python scripts/build_starter.py --verify   # judge every starter item with parrot's Judge
    python scripts/build_starter.py --verify-polyglot   # the same for every polyglot item

Output is deterministic (byte-identical on rerun).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
import tomllib
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from parrot.datasets import item_line
from parrot.servers import stopping_started
from parrot.testsuite.distill import SIBLINGS

ROOT = Path(__file__).resolve().parent.parent
CONCEPTS_DIR = ROOT / "concepts"
OUT = ROOT / "datasets" / "starter"
DIALECTS = ("sqlite", "duckdb", "clickhouse")
PAIRS = tuple((s, t) for s in DIALECTS for t in DIALECTS if s != t)
ORIGIN = "parrot-starter"

# The polyglot dataset: concepts written for all six dialects, expanded into the 30 pairs.
POLYGLOT_OUT = ROOT / "datasets" / "polyglot"
POLYGLOT_DIALECTS = ("sqlite", "duckdb", "clickhouse", "postgres", "mysql", "spark")
POLYGLOT_PAIRS = tuple((s, t) for s in POLYGLOT_DIALECTS for t in POLYGLOT_DIALECTS if s != t)
POLYGLOT_ORIGIN = "parrot-polyglot"
EXTRA_DIALECTS = POLYGLOT_DIALECTS[len(DIALECTS) :]  # optional on a starter concept


@dataclass(frozen=True)
class Concept:
    id: str
    description: str
    types: tuple[str, ...]  # PARROT translation types this concept exercises
    tags: tuple[str, ...]
    difficulty: str  # easy / medium / hard
    fixture: str
    sql: dict[str, str]  # dialect -> SQL text (statements separated by ';', last one returns)
    ordered: bool  # the queries have a top-level ORDER BY (checked against sqlglot's AST)
    order_key: tuple[int, ...] | None = None  # result columns of the sort key when it has ties
    expect_empty: bool = False


def load_concepts(folder: Path) -> list[Concept]:
    """The concept files of ``folder`` in file-name order (``NNNN-<id>.toml``)."""
    concepts = []
    for path in sorted(folder.glob("*.toml")):
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        key = data.get("order_key")
        concepts.append(
            Concept(
                id=path.stem.split("-", 1)[1],
                description=data["description"],
                types=tuple(data["types"]),
                tags=tuple(data["tags"]),
                difficulty=data["difficulty"],
                fixture=data["fixture"],
                sql={d: t.strip() for d, t in data["sql"].items()},
                ordered=data.get("ordered", True),
                order_key=tuple(key) if key is not None else None,
                expect_empty=data.get("expect_empty", False),
            )
        )
    return concepts


def load_fixtures(folder: Path) -> dict[str, dict[str, Any]]:
    """The authored fixtures (portable JSON, see parrot/fixtures.py) by name."""
    fixtures = {}
    for path in sorted(folder.glob("*.json")):
        raw = json.loads(path.read_text(encoding="utf-8"))
        fixtures[raw["name"]] = raw
    return fixtures


NOTES = tomllib.loads((CONCEPTS_DIR / "notes.toml").read_text(encoding="utf-8"))
TAGS = frozenset(NOTES["tags"])
FIXTURE_NOTES: dict[str, str] = NOTES["fixture_notes"]
NAMED_FIXTURE_NOTES: dict[str, str] = NOTES["named_fixture_notes"]
DIVERGENCES: tuple[str, ...] = tuple(NOTES["starter_divergences"])
POLYGLOT_DIVERGENCES: tuple[str, ...] = tuple(NOTES["polyglot_divergences"])
FIXTURES = load_fixtures(CONCEPTS_DIR / "fixtures")
CONCEPTS = load_concepts(CONCEPTS_DIR / "starter")
POLYGLOT_ONLY = load_concepts(CONCEPTS_DIR / "polyglot")

# ------------------------------------------------------------------------------------------------
# Building the dataset files
# ------------------------------------------------------------------------------------------------


def sqlglot_order(sql: str, dialect: str) -> bool | None:
    """Whether the last statement has a top-level ORDER BY per sqlglot (None: unparseable)."""
    import sqlglot
    from sqlglot import exp

    try:
        statements = [s for s in sqlglot.parse(sql, read=dialect) if s is not None]
    except Exception:
        return None
    if not statements:
        return None
    last = statements[-1]
    if not isinstance(last, exp.Query):
        return None
    return last.args.get("order") is not None


def concept_record(c: Concept, src: str, tgt: str, prefix: str, origin: str) -> dict[str, Any]:
    """The item that translates concept ``c`` from ``src`` to ``tgt``."""
    record: dict[str, Any] = {
        "id": f"{prefix}-{c.id}-{src}-{tgt}",
        "source_dialect": src,
        "target_dialect": tgt,
        "source_sql": c.sql[src],
        "reference_sql": [c.sql[tgt]],
        "fixture": {"name": c.fixture},
        "translation_types": list(c.types),
        "origin": origin,
        "annotation_source": "human",
        "difficulty": c.difficulty,
        "tags": list(c.tags),
        "concept": c.id,
    }
    # The loader derives order sensitivity from the source's AST; state it only where
    # sqlglot cannot see it (unparseable source) or would see it wrongly.
    if sqlglot_order(c.sql[src], src) != c.ordered:
        record["order_sensitive"] = c.ordered
    return record


def build_items() -> list[dict[str, Any]]:
    return [concept_record(c, src, tgt, "starter", ORIGIN) for c in CONCEPTS for src, tgt in PAIRS]


def polyglot_concepts() -> list[Concept]:
    """Starter concepts written for all six dialects, then the polyglot-only ones."""
    return [c for c in CONCEPTS if set(POLYGLOT_DIALECTS) <= set(c.sql)] + POLYGLOT_ONLY


def polyglot_record(c: Concept, src: str, tgt: str) -> dict[str, Any]:
    return concept_record(c, src, tgt, "polyglot", POLYGLOT_ORIGIN)


def build_polyglot_items() -> list[dict[str, Any]]:
    return [
        polyglot_record(c, src, tgt) for c in polyglot_concepts() for src, tgt in POLYGLOT_PAIRS
    ]


def _fixture_json(raw: dict[str, Any]) -> str:
    """Validate a fixture through parrot.fixtures and render it with one row per line."""
    from parrot.fixtures import fixture_from_json, fixture_to_json

    data = fixture_to_json(fixture_from_json(raw))
    out = ["{", f'  "name": {json.dumps(data["name"])},', '  "tables": [']
    for ti, t in enumerate(data["tables"]):
        out.append("    {")
        out.append(f'      "name": {json.dumps(t["name"])},')
        out.append('      "columns": [')
        cols = [json.dumps(c, ensure_ascii=False) for c in t["columns"]]
        out.extend(f"        {c}{',' if i < len(cols) - 1 else ''}" for i, c in enumerate(cols))
        out.append("      ],")
        out.append(f'      "primary_key": {json.dumps(t["primary_key"])},')
        out.append('      "rows": [')
        rows = [json.dumps(r, ensure_ascii=False) for r in t["rows"]]
        out.extend(f"        {r}{',' if i < len(rows) - 1 else ''}" for i, r in enumerate(rows))
        out.append("      ]")
        out.append("    }" + ("," if ti < len(data["tables"]) - 1 else ""))
    out.append("  ]")
    out.append("}")
    return "\n".join(out) + "\n"


def identical_share(items: list[dict[str, Any]]) -> float:
    same = sum(1 for i in items if [i["source_sql"]] == i["reference_sql"])
    return same / len(items) if items else 0.0


def _difficulty_and_tag_tables(diffs: Counter[str], tags: Counter[str]) -> list[str]:
    """The README's concepts by difficulty and by tag (most used first), as Markdown lines."""
    return [
        "| difficulty | concepts |",
        "|---|---:|",
        *[f"| {d} | {diffs[d]} |" for d in ("easy", "medium", "hard")],
        "",
        "| tag | concepts |",
        "|---|---:|",
        *[f"| {t} | {n} |" for t, n in sorted(tags.items(), key=lambda kv: (-kv[1], kv[0]))],
    ]


def _concept_sections(concepts: list[Concept], divergences: tuple[str, ...]) -> list[str]:
    """The README's table of concepts, one row each, and the divergences they exercise, as
    Markdown lines."""
    return [
        "## Concepts",
        "",
        "| concept | fixture | difficulty | types | description |",
        "|---|---|---|---|---|",
        *[
            f"| `{c.id}` | {c.fixture} | {c.difficulty} | {', '.join(c.types)} | {c.description} |"
            for c in concepts
        ],
        "",
        "## Divergences the items exercise",
        "",
        *[f"- {t}" for t in divergences],
    ]


def render_readme(items: list[dict[str, Any]]) -> str:
    pairs = Counter(f"{i['source_dialect']} → {i['target_dialect']}" for i in items)
    types = Counter(t for c in CONCEPTS for t in c.types)
    tags = Counter(t for c in CONCEPTS for t in c.tags)
    diffs = Counter(c.difficulty for c in CONCEPTS)
    fixtures = Counter(c.fixture for c in CONCEPTS)
    same = sum(1 for i in items if [i["source_sql"]] == i["reference_sql"])
    lines = [
        "# starter — PARROT's hand-written starter benchmark",
        "",
        "<!-- Generated by scripts/build_starter.py from concepts/; edit those files. -->",
        "",
        f"{len(CONCEPTS)} query **concepts**, each written by hand three times — for SQLite, "
        "DuckDB and ClickHouse — so that the three versions return the same result on the "
        "concept's fixture. Every concept expands into the six directed pairs between the three "
        f"dialects, giving **{len(items)} items** (`starter-<concept>-<source>-<target>`): the "
        "source is the concept's SQL in the source dialect and `reference_sql` is its SQL in the "
        "target dialect. All three engines run in-process (sqlite3, duckdb, chdb), so every "
        "item is scored by dual execution (Acc_EX and strict Acc_RES).",
        "",
        "Items carry `origin: parrot-starter`, `annotation_source: human`, the concept's "
        "`translation_types`, `tags` and `difficulty`, the named `fixture`, and an extra "
        "`concept` field grouping the six items of one concept. `order_sensitive` is written "
        "only where sqlglot cannot read the source's top-level ORDER BY itself.",
        "",
        "## Counts",
        "",
        "| pair | items |",
        "|---|---:|",
        *[f"| {p} | {n} |" for p, n in sorted(pairs.items())],
        "",
        f"Items whose source text equals the reference text: {same} of {len(items)} "
        f"({100 * same / len(items):.1f} %). Literal identity understates portability: some "
        "SQLite sources also run unchanged on DuckDB or ClickHouse with the same result, and "
        "recognising when no rewrite is needed is part of the task.",
        "",
        "| translation type | concepts | items |",
        "|---|---:|---:|",
        *[f"| {t} | {n} | {6 * n} |" for t, n in sorted(types.items())],
        "",
        "No concept is typed `procedure`: none of the three engines has stored procedures.",
        "",
        *_difficulty_and_tag_tables(diffs, tags),
        "",
        "## Fixtures",
        "",
        "Fixtures are authored as data in `concepts/fixtures/` and written to "
        "`fixtures/<name>.json` (portable types, see `parrot/fixtures.py`). They are small "
        "(tens of rows) and built to *separate* a faithful translation from plausible wrong "
        "ones: a translation that drops `NULLS FIRST`, keeps SQLite's integer division, uses "
        "`LIKE` for SQLite's case-insensitive `LIKE`, forgets ClickHouse's `EXCEPT DISTINCT` or "
        "`join_use_nulls`, rounds half-to-even, or cuts microseconds returns a different result.",
        "",
        "| fixture | concepts | contents |",
        "|---|---:|---|",
        *[f"| {name} | {fixtures[name]} | {FIXTURE_NOTES[name]} |" for name in FIXTURES],
        "",
        *_concept_sections(CONCEPTS, DIVERGENCES),
        "",
        "## Rules the SQL follows",
        "",
        "- Results agree strictly: same column count, values (numbers by value, strings "
        "exactly, dates as ISO text), multiplicity, and order wherever the query orders at top "
        "level. Dates come back as dates (SQLite: `YYYY-MM-DD` text), never as midnight "
        "timestamps.",
        "- A `LIMIT` only follows an `ORDER BY` that is unique over the result; window "
        "functions that number rows order by a unique key. Ties in a plain `ORDER BY` are "
        "allowed (the comparator treats tied rows as a multiset).",
        "- NULL placement is explicit wherever it matters (SQLite sorts NULLs first in "
        "ascending order, DuckDB and ClickHouse last).",
        "- Divisions are guarded with `NULLIF(…, 0)`; SQLite divisions of stored decimals cast "
        "to REAL or use `TOTAL()` first (a decimal such as 25.00 may be stored as the integer "
        "25).",
        "- Multi-statement items create a temporary view, macro or function first; the result "
        "is the last statement's. Object names start with `starter_`.",
        "",
        "## Rebuild and check",
        "",
        "```",
        "python scripts/build_starter.py            # rewrite items.jsonl, fixtures/, README.md",
        "python scripts/build_starter.py --check    # exit 1 if the committed files are stale",
        "python scripts/build_starter.py --verify   # judge every item on sqlite3, duckdb, chdb",
        "```",
        "",
        "`--verify` loads each fixture into in-memory SQLite (decimals declared both as "
        "DECIMAL and as REAL), DuckDB (INTEGER and BIGINT) and chdb (Int32 and Int64, "
        "`Nullable(...)` for nullable columns, `Decimal(p,s)`, `Date32`, `DateTime64(6)`, "
        "`Bool`; also with `join_use_nulls = 1`), each in three row orders, and checks that all "
        "versions of a concept return the same rows (in the same order when ordered), that no "
        "result is empty unless the concept says so, that no `LIMIT` cuts a tie, and that "
        "sqlglot sees the same top-level ORDER BY as the concept declares.",
        "",
    ]
    return "\n".join(lines)


POLYGLOT_LABELS = {
    "sqlite": "SQLite",
    "duckdb": "DuckDB",
    "clickhouse": "ClickHouse",
    "postgres": "PostgreSQL",
    "mysql": "MySQL",
    "spark": "Spark",
}


def _pair_matrix(items: list[dict[str, Any]]) -> list[str]:
    pairs = Counter((i["source_dialect"], i["target_dialect"]) for i in items)
    head = "| source ↓ target → | " + " | ".join(POLYGLOT_LABELS[d] for d in POLYGLOT_DIALECTS)
    rows = [head + " |", "|---|" + "---:|" * len(POLYGLOT_DIALECTS)]
    for s in POLYGLOT_DIALECTS:
        cells = ["—" if s == t else str(pairs[(s, t)]) for t in POLYGLOT_DIALECTS]
        rows.append(f"| {POLYGLOT_LABELS[s]} | " + " | ".join(cells) + " |")
    totals = Counter(i["target_dialect"] for i in items)
    rows.append(
        "| **into the target** | "
        + " | ".join(f"**{totals[t]}**" for t in POLYGLOT_DIALECTS)
        + " |"
    )
    return rows


def _suite_matrix() -> list[str]:
    """Shipped suites (``suites/*.json``; the corpus ones are git-ignored) per source dialect
    and generator."""
    made = Counter(
        (data["source_dialect"], data["generator"])
        for data in (
            json.loads(f.read_text(encoding="utf-8"))
            for f in sorted((POLYGLOT_OUT / "suites").glob("*.json"))
        )
    )
    rows = ["| source | suites | generators |", "|---|---:|---|"]
    for d in POLYGLOT_DIALECTS:
        gens = sorted((g, n) for (s, g), n in made.items() if s == d)
        rows.append(
            f"| {POLYGLOT_LABELS[d]} | {sum(n for _, n in gens)} | "
            + (", ".join(f"{g} ({n})" for g, n in gens) or "—")
            + " |"
        )
    return rows


def render_polyglot_readme(items: list[dict[str, Any]]) -> str:
    concepts = polyglot_concepts()
    from_starter = [c for c in concepts if c in CONCEPTS]
    named = [c for c in concepts if c.fixture not in FIXTURES]
    n_pairs = len(POLYGLOT_PAIRS)
    types = Counter(t for c in concepts for t in c.types)
    tags = Counter(t for c in concepts for t in c.tags)
    diffs = Counter(c.difficulty for c in concepts)
    fixtures = Counter(c.fixture for c in concepts)
    same = sum(1 for i in items if [i["source_sql"]] == i["reference_sql"])
    per_pair = Counter((i["source_dialect"], i["target_dialect"]) for i in items)
    lines = [
        "# polyglot — PARROT's six-dialect benchmark",
        "",
        "<!-- Generated by scripts/build_starter.py from concepts/; edit those files. -->",
        "",
        f"{len(concepts)} query **concepts**, each written by hand six times — for SQLite, "
        "DuckDB, ClickHouse, PostgreSQL, MySQL and Spark SQL — so that the six versions return "
        "the same result on the concept's fixture. Every concept expands into the "
        f"{n_pairs} directed pairs between the six dialects, giving **{len(items)} items** "
        "(`polyglot-<concept>-<source>-<target>`): the source is the concept's SQL in the "
        "source dialect and `reference_sql` is its SQL in the target dialect.",
        "",
        f"{len(from_starter)} concepts are starter concepts that gained PostgreSQL, MySQL and "
        "Spark versions (their SQLite, DuckDB and ClickHouse text is the starter's, so the "
        f"`starter` items of these concepts are a subset of the pairs here); {len(named)} are "
        "written for polyglot only, over the named fixtures `tpch` and `spider/<db_id>`. All "
        "SQL is this project's own (the Spider and TPC-H queries too: only their data is "
        "reused).",
        "",
        "Items carry `origin: parrot-polyglot`, `annotation_source: human`, the concept's "
        "`translation_types`, `tags` and `difficulty`, the named `fixture`, and an extra "
        f"`concept` field grouping the {n_pairs} items of one concept. `order_sensitive` is "
        "written only where sqlglot cannot read the source's top-level ORDER BY itself.",
        "",
        "The `mysql` dialect is served by **MariaDB 10.11** on these machines (Debian has no "
        "MySQL): the MySQL SQL here is written for and verified on MariaDB, and avoids what the "
        "two disagree on.",
        "",
        "## Counts",
        "",
        f"Items per directed pair (every pair has {min(per_pair.values())}; the pairs PARROT "
        "emphasises — into PostgreSQL, MySQL and DuckDB — are covered by every concept):",
        "",
        *_pair_matrix(items),
        "",
        f"Items whose source text equals the reference text: {same} of {len(items)} "
        f"({100 * same / len(items):.1f} %).",
        "",
        "| translation type | concepts | items |",
        "|---|---:|---:|",
        *[f"| {t} | {n} | {n_pairs * n} |" for t, n in sorted(types.items())],
        "",
        *_difficulty_and_tag_tables(diffs, tags),
        "",
        "## Fixtures",
        "",
        "The five small fixtures are the starter's (authored in `concepts/fixtures/`, "
        "written to `fixtures/<name>.json` here too, byte-identical to "
        "`datasets/starter/fixtures/`). The named fixtures are not stored here: the loader "
        "resolves them through `parrot.migrate.named` (TPC-H needs the `duckdb-extension-tpch` "
        "wheel, Spider databases need the corpus under `$PARROT_CORPORA`). Where one cannot be "
        "resolved the dataset does not load.",
        "",
        "| fixture | concepts | contents |",
        "|---|---:|---|",
        *[
            f"| {name} | {fixtures[name]} | {FIXTURE_NOTES[name]} |"
            for name in FIXTURES
            if fixtures[name]
        ],
        *[
            f"| {name} | {fixtures[name]} | {NAMED_FIXTURE_NOTES.get(name, 'named fixture')} |"
            for name in sorted({c.fixture for c in named})
        ],
        "",
        *_concept_sections(concepts, POLYGLOT_DIVERGENCES),
        "",
        "## Rules the SQL follows",
        "",
        "- The starter's rules (strict agreement, no LIMIT cutting a tie, explicit NULL "
        "placement, guarded divisions) hold for all six dialects.",
        "- Text that MariaDB compares, groups or sorts is free of case/accent/trailing-space "
        "variants on the fixture, or compared with `COLLATE utf8mb4_bin` in the MySQL version, "
        "or the case-insensitive match is the concept's meaning ('delivered' in any letter "
        "case); the MySQL SQL does not rely on `ONLY_FULL_GROUP_BY` being off.",
        "- Results never depend on Spark's non-ANSI legacy behaviour or on a session time zone "
        "(all engines run in UTC; fixture timestamps have no time zone).",
        "- Numbers compare by value (MariaDB's `7/2` = 3.5000 equals 3.5, SQLite's float sum "
        "of decimals equals the exact decimal sum within 1e-9); a value is rounded only where "
        "no engine's floating-point or decimal arithmetic can land on the other side of a "
        "half (sums and averages over TPC-H and Spider data are left unrounded).",
        "",
        "## Test suites",
        "",
        "`suites/` holds the distilled test-suite databases of the source queries "
        "(`python -m parrot.testsuite build polyglot`; the top-level README's *Test suites* "
        "section has the method and the measured kill rates per pair). The three concepts over "
        "Spider fixtures keep theirs in the git-ignored `suites/corpus/`, built where the "
        "corpus is. Spark-sourced queries are distilled from the databases of their "
        "references' own suites (`--from-siblings --no-source-side --timeout spark=600`: the "
        "same concept in the other dialects, checked on Spark and against every reference; "
        f"generator `{SIBLINGS}` when built now, provenance in `databases_from`), as a generated "
        "build runs hundreds of Spark queries per suite. Rebuild one source dialect at a time "
        "with `--source DIALECT`, the Spark sources after the others. The 15 suites of the "
        "non-Spark TPC-H sources were left to their older generator when the others were "
        "rebuilt with `--max-bytes 1000000`: those of `tpch-late-deliveries-by-ship-mode` are "
        "15–19 MB on one line each (rewriting them would cost twice that in diff), and a rebuilt "
        "TPC-H suite holds every TPC-H table in each database; see "
        "docs/test-suites-generator.md.",
        "",
        *_suite_matrix(),
        "",
        "## Rebuild and check",
        "",
        "```",
        "python scripts/build_starter.py                    # rewrite starter and polyglot",
        "python scripts/build_starter.py --check            # exit 1 if either is stale",
        "python scripts/build_starter.py --verify-polyglot  # judge every item on real engines",
        "python -m parrot.eval --model reference --dataset polyglot --output-dir /tmp/poly-ref",
        "```",
        "",
        "`--verify-polyglot` runs every item's source on its engine and its reference on the "
        "target engine through `parrot.eval.judge.Judge` (starting the managed PostgreSQL and "
        "MariaDB servers, and a local Spark session), and requires a strict match and no LIMIT "
        "cutting a tie.",
        "",
    ]
    return "\n".join(lines)


def judged_problem(record: dict[str, Any], where: str = "") -> str | None:
    """Why a reference judged against its source is not verified (``where``: which run, in the
    message), or None when the two agree strictly."""
    gold, pred = record["gold"], record["pred"] or {}
    verdict = record["verdicts"]["strict"]
    if gold["status"] != "ok":
        return f"source failed{where}: {gold.get('error')}"
    if pred.get("status") != "ok":
        return f"reference failed{where}: {pred.get('error')}"
    if not verdict["match"]:
        return f"{verdict['reason']}{where}: {verdict.get('detail')}"
    return None


def items_jsonl(items: list[dict[str, Any]]) -> str:
    """A dataset's items.jsonl: one item a line."""
    return "".join(json.dumps(item_line(i), ensure_ascii=False) + "\n" for i in items)


def differing(files: dict[Path, str]) -> list[Path]:
    """The files to write: missing, or with other text."""
    return [
        p for p, text in files.items() if not p.is_file() or p.read_text(encoding="utf-8") != text
    ]


def write_differing(files: dict[Path, str]) -> None:
    """Write the files whose text changed (the others keep their modification time)."""
    for path in differing(files):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(files[path], encoding="utf-8")


def builder_parser(doc: str, verify_help: str) -> tuple[argparse.ArgumentParser, Any]:
    """A dataset builder's command line: rewrite the files, or ``--check`` them, or
    ``--verify`` the items (the group of these modes is returned to add more)."""
    ap = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument(
        "--check",
        action="store_true",
        help="exit 1 if the committed files differ from what would be written",
    )
    mode.add_argument("--verify", action="store_true", help=verify_help)
    return ap, mode


def render_polyglot_files() -> dict[Path, str]:
    items = build_polyglot_items()
    files: dict[Path, str] = {
        POLYGLOT_OUT / "items.jsonl": items_jsonl(items),
        POLYGLOT_OUT / "README.md": render_polyglot_readme(items),
    }
    used = {c.fixture for c in polyglot_concepts()}
    for name, raw in FIXTURES.items():
        if name in used:
            files[POLYGLOT_OUT / "fixtures" / f"{name}.json"] = _fixture_json(raw)
    return files


def render_files() -> dict[Path, str]:
    items = build_items()
    files: dict[Path, str] = {
        OUT / "items.jsonl": items_jsonl(items),
        OUT / "README.md": render_readme(items),
    }
    for name, raw in FIXTURES.items():
        files[OUT / "fixtures" / f"{name}.json"] = _fixture_json(raw)
    return files | render_polyglot_files()


def _id_problems(c: Concept, seen: set[str]) -> list[str]:
    """What is wrong with a concept's id (``seen``: the ids before it; this one is added)."""
    problems = [f"{c.id}: duplicate concept id"] if c.id in seen else []
    seen.add(c.id)
    if not re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", c.id):
        problems.append(f"{c.id}: id is not a lower-case slug")
    return problems


def check_concepts() -> list[str]:
    """Static checks on the authored data (no engine needed)."""
    from parrot.datasets import TRANSLATION_TYPES

    problems = []
    seen = set()
    for c in CONCEPTS:
        problems += _id_problems(c, seen)
        if c.fixture not in FIXTURES:
            problems.append(f"{c.id}: unknown fixture {c.fixture!r}")
        if c.difficulty not in ("easy", "medium", "hard"):
            problems.append(f"{c.id}: difficulty {c.difficulty!r}")
        bad = [t for t in c.types if t not in TRANSLATION_TYPES]
        if bad or not c.types:
            problems.append(f"{c.id}: translation types {c.types}")
        unknown = [t for t in c.tags if t not in TAGS]
        if unknown or not c.tags:
            problems.append(f"{c.id}: tags {unknown or c.tags} (known: {sorted(TAGS)})")
        if c.order_key is not None and not c.ordered:
            problems.append(f"{c.id}: order_key without ORDER BY")
        extra = set(c.sql) - set(DIALECTS)
        if not set(DIALECTS) <= set(c.sql) or extra not in (set(), set(EXTRA_DIALECTS)):
            problems.append(f"{c.id}: needs {DIALECTS}, plus all of {EXTRA_DIALECTS} or none")
    if sum(c.expect_empty for c in CONCEPTS) > 2:
        problems.append("more than two concepts expect an empty result")
    return problems + check_polyglot_concepts(seen)


def check_polyglot_concepts(starter_ids: set[str]) -> list[str]:
    """Static checks on the polyglot-only concepts (ids must not clash with starter's)."""
    from parrot.datasets import TRANSLATION_TYPES

    problems = []
    seen = set(starter_ids)
    for c in POLYGLOT_ONLY:
        problems += _id_problems(c, seen)
        if c.fixture not in FIXTURES and not re.fullmatch(r"tpch|spider/[A-Za-z0-9_]+", c.fixture):
            problems.append(f"{c.id}: fixture {c.fixture!r} is not in concepts/fixtures/ nor named")
        if c.difficulty not in ("easy", "medium", "hard"):
            problems.append(f"{c.id}: difficulty {c.difficulty!r}")
        if not c.types or any(t not in TRANSLATION_TYPES for t in c.types):
            problems.append(f"{c.id}: translation types {c.types}")
        if not c.tags or any(t not in TAGS for t in c.tags):
            problems.append(f"{c.id}: tags {c.tags} (known: {sorted(TAGS)})")
        if c.order_key is not None and not c.ordered:
            problems.append(f"{c.id}: order_key without ORDER BY")
        if set(c.sql) != set(POLYGLOT_DIALECTS):
            problems.append(f"{c.id}: needs exactly {POLYGLOT_DIALECTS}")
    return problems


# ------------------------------------------------------------------------------------------------
# Verification on real engines, through parrot's own Judge
# ------------------------------------------------------------------------------------------------


def _reversed_rows(fixture: Any) -> Any:
    """The same fixture with every table's rows in reverse order (a load-order probe)."""
    from dataclasses import replace

    return replace(
        fixture,
        name=f"{fixture.name}-reversed",
        tables=tuple(replace(t, rows=t.rows[::-1]) for t in fixture.tables),
    )


@stopping_started()  # servers the verification starts are stopped again
@dataclass
class Tally:
    """What a ``--verify`` run found: the items verified strictly per (source, target), the
    ``FAIL`` lines (each printed as it comes) and the dialects that had no engine."""

    verified: Counter[tuple[str, str]] = field(default_factory=Counter)
    failed: list[str] = field(default_factory=list)
    missing: dict[str, str] = field(default_factory=dict)
    started: float = field(default_factory=time.monotonic)

    def seconds(self) -> float:
        """Seconds since the run started."""
        return time.monotonic() - self.started

    def fail(self, line: str) -> None:
        self.failed.append(line)
        print(line, flush=True)

    def judged(self, item: Any, problem: str | None, where: str, cut: int) -> None:
        """``item`` verified, or ``FAIL WHERE: PROBLEM`` (at most ``cut`` characters)."""
        if problem:
            self.fail(f"FAIL {where}: {problem}"[:cut])
        else:
            self.verified[(item.source_dialect, item.target_dialect)] += 1

    def status(self) -> int:
        """Print the dialects that had no engine; 1 when an item failed or was not judged."""
        for dialect, error in sorted(self.missing.items()):
            print(f"not verified — no {dialect} engine: {error}")
        return 1 if self.failed or self.missing else 0


def verify(dataset: str, only: list[str] | None = None) -> int:
    """Judge every item of ``dataset`` (starter or polyglot) on real engines.

    Each reference must match its source strictly on the fixture and, for authored fixtures, on
    the fixture with its rows reversed (a result that depends on load order is nondeterministic);
    a LIMIT must not cut a tie; sqlglot must see the concept's top-level ORDER BY (or its absence)
    in every dialect that it can parse.
    """
    from dataclasses import replace

    from parrot.datasets import parse_items
    from parrot.eval.judge import Judge
    from parrot.translators.base import Translation

    out, files, dialects = (
        (OUT, render_files(), DIALECTS)
        if dataset == "starter"
        else (POLYGLOT_OUT, render_polyglot_files(), POLYGLOT_DIALECTS)
    )
    stale = [
        p for p, text in files.items() if not p.is_file() or p.read_text(encoding="utf-8") != text
    ]
    if stale:
        print(
            f"datasets/{dataset} is stale: run python scripts/build_starter.py first",
            file=sys.stderr,
        )
        return 1
    concepts = {c.id: c for c in CONCEPTS + POLYGLOT_ONLY}
    path = out / "items.jsonl"
    items = [
        i
        for i in parse_items(path.read_text(encoding="utf-8").splitlines(), path)
        if not only or i.extra.get("concept") in only
    ]
    tally = Tally()  # the clock starts before the judge's engines do
    judge = Judge(timeout=60, start=True)
    checked: set[tuple[str, str]] = set()
    try:
        for item in items:
            concept = concepts[str(item.extra.get("concept"))]
            variants = [item]
            if item.fixture is not None and item.fixture.name in FIXTURES:
                variants.append(replace(item, fixture=_reversed_rows(item.fixture)))
            problem = None
            for variant in variants:
                record = judge.judge(variant, Translation.from_sql(item.reference_sql[0]))
                gold, pred = record["gold"], record["pred"] or {}
                absent = [
                    (d, e.get("error", ""))
                    for d, e in ((item.source_dialect, gold), (item.target_dialect, pred))
                    if e.get("status") == "no_engine"
                ]
                if absent:
                    tally.missing.update(absent)
                    problem = "no engine"
                    break
                problem = judged_problem(record, "" if variant is item else " (rows reversed)")
                if problem:
                    break
            if problem == "no engine":
                continue
            key = (concept.id, item.source_dialect)
            if problem is None and key not in checked:
                checked.add(key)
                seen = sqlglot_order(concept.sql[item.source_dialect], item.source_dialect)
                if seen is not None and seen != concept.ordered:
                    problem = (
                        f"sqlglot sees top-level ORDER BY={seen}, the concept says "
                        f"{concept.ordered}"
                    )
                else:
                    problem = judge.limit_cuts_ties(item)
            tally.judged(item, problem, item.id, 600)
    finally:
        judge.close()
    print(
        f"\n{sum(tally.verified.values())}/{len(items)} items verified strictly in "
        f"{tally.seconds():.0f}s; {len(tally.failed)} failed"
    )
    for s in dialects:
        print(
            f"  {s:10} → " + "  ".join(f"{t}:{tally.verified[(s, t)]}" for t in dialects if t != s)
        )
    return tally.status()


# ------------------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    ap, mode = builder_parser(
        __doc__, "judge every starter item on sqlite3, duckdb and chdb (parrot's Judge)"
    )
    mode.add_argument(
        "--verify-polyglot",
        action="store_true",
        help="judge every polyglot item on real engines (starts the managed "
        "PostgreSQL and MariaDB servers and a Spark session)",
    )
    ap.add_argument(
        "--only", nargs="*", help="with --verify/--verify-polyglot: only these concept ids"
    )
    args = ap.parse_args(argv)

    problems = check_concepts()
    if problems:
        print("\n".join(problems), file=sys.stderr)
        return 1
    if args.verify:
        return verify("starter", args.only)
    if args.verify_polyglot:
        return verify("polyglot", args.only)
    files = render_files()
    if args.check:
        stale = differing(files)
        extra = sorted(
            (
                set((OUT / "fixtures").glob("*.json"))
                | set((POLYGLOT_OUT / "fixtures").glob("*.json"))
            )
            - set(files)
        )
        for p in stale:
            print(f"stale: {p.relative_to(ROOT)}", file=sys.stderr)
        for p in extra:
            print(f"unexpected: {p.relative_to(ROOT)}", file=sys.stderr)
        if stale or extra:
            print("run: python scripts/build_starter.py", file=sys.stderr)
            return 1
        print(
            f"datasets/starter is up to date ({len(CONCEPTS)} concepts, "
            f"{len(CONCEPTS) * len(PAIRS)} items)"
        )
        print(
            f"datasets/polyglot is up to date ({len(polyglot_concepts())} concepts, "
            f"{len(polyglot_concepts()) * len(POLYGLOT_PAIRS)} items)"
        )
        return 0
    write_differing(files)
    items = build_items()
    print(
        f"wrote {OUT.relative_to(ROOT)}: {len(CONCEPTS)} concepts, {len(items)} items, "
        f"{len(FIXTURES)} fixtures; identical source/reference text in "
        f"{100 * identical_share(items):.1f}% of items"
    )
    poly = build_polyglot_items()
    print(
        f"wrote {POLYGLOT_OUT.relative_to(ROOT)}: {len(polyglot_concepts())} concepts, "
        f"{len(poly)} items; identical source/reference text in "
        f"{100 * identical_share(poly):.1f}% of items"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
