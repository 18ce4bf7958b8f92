#!/usr/bin/env python3
"""Build parrot-main (``datasets/main/``): real corpus queries with maintainer-written references.

The content is data, one TOML file per source query under
``concepts/main/<source-dialect>/<corpus>-<db>-NNNN.toml``::

    source = "sqlite"                  # the corpus dialect: items go only from it to the others
    corpus = "Spider"                  # the corpus file under corpora/parrot/ (Spider.jsonl)
    corpus_id = "Spider:dev.json:12"   # optional: the corpus record the source was taken from
    fixture = "spider/concert_singer"  # a named fixture (parrot.migrate.named) or one of
                                       # parrot-main's own, generated from the spec
                                       # concepts/main/fixtures/<name>.toml (main_fixtures.py)
    types = ["function"]               # parrot.datasets.TRANSLATION_TYPES
    tags = ["grouping"]                # free lower-case slugs
    difficulty = "medium"              # easy / medium / hard
    ordered = true                     # optional: override the top-level ORDER BY sqlglot reads
    ambiguity = "..."                  # optional: the decision taken on an engine-quirk meaning
    setup_ids = ["TPC-H_FROID:..."]    # with [setup]: the corpus records of the source's setup

    [setup]    # optional, per dialect: statements run before the query (CREATE FUNCTION ...)
    postgres = '''CREATE FUNCTION ...'''   # the source's: its setup_ids records, in order
    duckdb = '''CREATE MACRO ...'''        # a target's: part of its reference

    [sql]      # the source exactly as in the corpus, and one checked reference per target
    sqlite = '''SELECT ...'''
    postgres = '''SELECT ...'''
    tsql = '''SELECT ...'''          # a grammar-only target: no engine runs it here

    [notes]    # per target: one line saying what the translation had to change (required)
    postgres = "integer division: CAST(... AS REAL) becomes ::float8"

    [sqlglot]  # optional, per target: why sqlglot's own output fails or differs (the selection)
    postgres = "keeps a/b, which PostgreSQL computes as integer division"

Every key of ``[sql]`` other than ``source`` becomes one item ``main-<source>-<stem>-<target>``
with ``annotation_source: "maintainer"``, ``origin: "parrot-main"``, the note, the corpus
provenance, and ``tokens`` (cl100k of the source). With ``[setup]`` the item's source is the
source's setup followed by its query, and each reference the target's setup (if any) followed by
its query: one multi-statement text that the engines run in a throwaway transaction or scratch
database, so a translation must translate the functions as well. The builder validates every
file of every source folder and names the file on any problem.

Targets are the engine dialects (``ENGINE_DIALECTS``) and the grammar-only ones
(``GRAMMAR_DIALECTS``: tsql, oracle, snowflake, bigquery), whose engines are reached by URL only
and absent here. An item into a grammar-only dialect carries ``verification: {"method":
"grammar-only", "verdict": "unverified-execution"}``: its reference parses under parrot's grammar
of the target (``python -m parrot.check``) but was never executed; eval scores it ``no_engine``
with Acc_SYN.

Usage::

    python scripts/build_main.py             # (re)write datasets/main/items.jsonl and README.md
    python scripts/build_main.py --check     # exit 1 if the committed files are stale
    python scripts/build_main.py --verify    # judge every item strictly on the real engines
    python scripts/build_main.py --verify --only sqlite/Spider-concert_singer-0001 --target mysql

``--verify`` runs each source on its engine and each reference on its target engine through
parrot's Judge (strict verdict; managed PostgreSQL / MariaDB servers and Spark are started as
needed), also checks that no LIMIT cuts a tie, checks each grammar-only reference with parrot's
grammar (it must parse), and exits 1 naming every file whose reference does not match or parse.
Output is deterministic.
"""

from __future__ import annotations

import json
import re
import sys
import tomllib
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from parrot.servers import stopping_started

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))

from build_starter import (  # noqa: E402  (shared with the starter builder)
    Tally,
    builder_parser,
    differing,
    items_jsonl,
    judged_problem,
    sqlglot_order,
    write_differing,
)
from main_fixtures import SpecError, build_fixture, render_fixture  # noqa: E402

CONCEPTS_DIR = ROOT / "concepts" / "main"
FIXTURES_DIR = CONCEPTS_DIR / "fixtures"  # specs of parrot-main's own fixtures: OUT/fixtures/*.json
OUT = ROOT / "datasets" / "main"
ORIGIN = "parrot-main"
ANNOTATION = "maintainer"
ENGINE_DIALECTS = ("sqlite", "duckdb", "clickhouse", "postgres", "mysql", "spark")
GRAMMAR_DIALECTS = ("tsql", "oracle", "snowflake", "bigquery")  # targets checked by grammar only
UNVERIFIED = "unverified-execution"  # the verdict of a grammar-only item's verification
DIFFICULTIES = ("easy", "medium", "hard")
STEM = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*-[A-Za-z0-9_]+-\d{4}")
SLUG = re.compile(r"[a-z0-9]+([-_][a-z0-9]+)*")
KEYS = {
    "source",
    "corpus",
    "corpus_id",
    "fixture",
    "types",
    "tags",
    "difficulty",
    "ordered",
    "ambiguity",
    "sql",
    "notes",
    "sqlglot",
    "setup",
    "setup_ids",
}


class ConceptError(ValueError):
    """A concept file that cannot become items; the message starts with the file's path."""


@dataclass(frozen=True)
class MainConcept:
    path: Path
    source: str
    corpus: str
    corpus_id: str | None
    fixture: str
    types: tuple[str, ...]
    tags: tuple[str, ...]
    difficulty: str
    sql: dict[str, str]
    notes: dict[str, str]
    sqlglot: dict[str, str]
    ordered: bool | None = None
    ambiguity: str | None = None
    setup: dict[str, str] = field(default_factory=dict)
    setup_ids: tuple[str, ...] = ()

    @property
    def key(self) -> str:
        """``<source folder>/<stem>``: how --only names a file."""
        return f"{self.path.parent.name}/{self.path.stem}"

    @property
    def targets(self) -> list[str]:
        return [d for d in self.sql if d != self.source]

    def text(self, dialect: str) -> str:
        """The dialect's setup (if any) followed by its query: an item's source or reference."""
        setup = self.setup.get(dialect)
        return f"{setup}\n\n{self.sql[dialect]}" if setup else self.sql[dialect]

    def item_id(self, target: str) -> str:
        return f"main-{self.source}-{self.path.stem}-{target}".lower()


def _rel(path: Path) -> Path:
    return path.relative_to(ROOT) if path.is_relative_to(ROOT) else path


def load_concept(path: Path) -> MainConcept:
    """One concept file, validated; raises ConceptError naming the file."""
    from parrot.datasets import TRANSLATION_TYPES

    rel = _rel(path)

    def fail(msg: str) -> ConceptError:
        return ConceptError(f"{rel}: {msg}")

    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise fail(f"not valid TOML: {exc}") from None
    unknown = sorted(set(data) - KEYS)
    if unknown:
        raise fail(f"unknown key(s) {unknown} (known: {sorted(KEYS)})")
    for key in ("source", "corpus", "fixture", "types", "tags", "difficulty", "sql", "notes"):
        if key not in data:
            raise fail(f"missing {key!r}")
    source = data["source"]
    if source not in ENGINE_DIALECTS:
        raise fail(f"source {source!r} is not one of {ENGINE_DIALECTS}")
    if path.parent.name != source:
        raise fail(f"source {source!r} but the file is under concepts/main/{path.parent.name}/")
    if not STEM.fullmatch(path.stem):
        raise fail("file name is not <corpus>-<db>-NNNN.toml")
    if not path.stem.startswith(f"{data['corpus']}-"):
        raise fail(f"file name does not start with the corpus {data['corpus']!r}")
    sql = data["sql"]
    if not isinstance(sql, dict) or not all(isinstance(v, str) and v.strip() for v in sql.values()):
        raise fail("[sql] must map dialects to non-empty SQL text")
    if source not in sql:
        raise fail(f"[sql] has no {source!r} source text")
    bad = [d for d in sql if d not in ENGINE_DIALECTS + GRAMMAR_DIALECTS]
    if bad:
        raise fail(
            f"[sql] dialect(s) {bad} have no engine here and no grammar-only target "
            f"(known: {ENGINE_DIALECTS + GRAMMAR_DIALECTS})"
        )
    if len(sql) < 2:
        raise fail("[sql] has no target")
    notes, glot = data["notes"], data.get("sqlglot", {})
    targets = [d for d in sql if d != source]
    for name, table in (("notes", notes), ("sqlglot", glot)):
        if not isinstance(table, dict) or not all(
            isinstance(v, str) and v.strip() for v in table.values()
        ):
            raise fail(f"[{name}] must map targets to non-empty one-line text")
        stray = sorted(set(table) - set(targets))
        if stray:
            raise fail(f"[{name}] has target(s) {stray} with no [sql] reference")
        if any("\n" in v.strip() for v in table.values()):
            raise fail(f"[{name}] entries must be one line")
    setup, setup_ids = data.get("setup", {}), data.get("setup_ids", [])
    if not isinstance(setup, dict) or not all(
        isinstance(v, str) and v.strip() for v in setup.values()
    ):
        raise fail("[setup] must map dialects to non-empty SQL text")
    if sorted(set(setup) - set(sql)):
        raise fail(f"[setup] has dialect(s) {sorted(set(setup) - set(sql))} with no [sql] text")
    if not isinstance(setup_ids, list) or not all(isinstance(i, str) for i in setup_ids):
        raise fail("setup_ids must be a list of corpus ids")
    if bool(setup_ids) != (source in setup):
        raise fail(f"setup_ids and [setup].{source} go together (the source's setup records)")
    missing = [t for t in targets if t not in notes]
    if missing:
        raise fail(f"[notes] lacks the target(s) {missing}")
    types = data["types"]
    if not isinstance(types, list) or not types or any(t not in TRANSLATION_TYPES for t in types):
        raise fail(f"types {types!r} (known: {TRANSLATION_TYPES})")
    tags = data["tags"]
    if not isinstance(tags, list) or any(
        not isinstance(t, str) or not SLUG.fullmatch(t) for t in tags
    ):
        raise fail(f"tags {tags!r} must be lower-case slugs")
    if data["difficulty"] not in DIFFICULTIES:
        raise fail(f"difficulty {data['difficulty']!r} (known: {DIFFICULTIES})")
    ordered = data.get("ordered")
    if ordered is not None and not isinstance(ordered, bool):
        raise fail("ordered must be true or false")
    return MainConcept(
        path=path,
        source=source,
        corpus=str(data["corpus"]),
        corpus_id=data.get("corpus_id"),
        fixture=str(data["fixture"]),
        types=tuple(types),
        tags=tuple(tags),
        difficulty=data["difficulty"],
        sql={d: t.strip() for d, t in sql.items()},
        notes={d: " ".join(t.split()) for d, t in notes.items()},
        sqlglot={d: " ".join(t.split()) for d, t in glot.items()},
        ordered=ordered,
        ambiguity=data.get("ambiguity"),
        setup={d: t.strip() for d, t in setup.items()},
        setup_ids=tuple(setup_ids),
    )


def load_concepts(folder: Path = CONCEPTS_DIR) -> tuple[list[MainConcept], list[str]]:
    """Every concept file under ``folder/<source>/`` (sorted by source, then name), and the
    problems (each naming its file)."""
    concepts, problems = [], []
    for path in sorted(folder.glob("*/*.toml")):
        if path.parent.name == FIXTURES_DIR.name:  # fixture specs, not source queries
            continue
        try:
            concepts.append(load_concept(path))
        except ConceptError as exc:
            problems.append(str(exc))
    seen: dict[str, Path] = {}
    for c in concepts:
        for t in c.targets:
            first = seen.setdefault(c.item_id(t), c.path)
            if first != c.path:
                problems.append(
                    f"{_rel(c.path)}: item id {c.item_id(t)} clashes with {_rel(first)}"
                )
    return concepts, problems


def corpus_sources(corpus: str) -> dict[str, str] | None:
    """id -> SQL of a corpus file under the corpora's parrot/ folder; None when absent."""
    from parrot.migrate.named import corpora_root

    path = corpora_root() / "parrot" / f"{corpus}.jsonl"
    if not path.is_file():
        return None
    out = {}
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            rec = json.loads(line)
            out[rec["id"]] = rec["sql"]
    return out


def check_provenance(concepts: list[MainConcept]) -> list[str]:
    """Each source must be a query of its corpus (whitespace-normalised; with ``corpus_id`` that
    very record), and its setup the ``setup_ids`` records in order. Corpora absent here are
    skipped."""
    problems = []
    cache: dict[str, dict[str, str] | None] = {}
    norm = {}
    for c in concepts:
        if c.corpus not in cache:
            cache[c.corpus] = corpus_sources(c.corpus)
            if cache[c.corpus] is not None:
                norm[c.corpus] = {" ".join(s.split()) for s in cache[c.corpus].values()}
        records = cache[c.corpus]
        if records is None:
            continue
        text = " ".join(c.sql[c.source].split())
        rel = _rel(c.path)
        if c.corpus_id is not None:
            if c.corpus_id not in records:
                problems.append(f"{rel}: corpus_id {c.corpus_id!r} is not in {c.corpus}.jsonl")
            elif " ".join(records[c.corpus_id].split()) != text:
                problems.append(f"{rel}: the source differs from {c.corpus_id} in the corpus")
        elif text not in norm[c.corpus]:
            problems.append(f"{rel}: the source is not a query of {c.corpus}.jsonl")
        absent = [i for i in c.setup_ids if i not in records]
        if absent:
            problems.append(f"{rel}: setup_ids {absent} are not in {c.corpus}.jsonl")
        elif c.setup_ids and (
            " ".join(" ".join(records[i].split()) for i in c.setup_ids)
            != " ".join(c.setup[c.source].split())
        ):
            problems.append(f"{rel}: [setup].{c.source} differs from its setup_ids records")
    return problems


def verification(c: MainConcept, target: str) -> dict[str, Any]:
    """How the item's reference was checked: dual execution, or the target's grammar only."""
    if target in GRAMMAR_DIALECTS:
        return {
            "method": "grammar-only",
            "verdict": UNVERIFIED,
            "grammar": target,
            "fixture": c.fixture,
        }
    return {
        "method": "dual-execution",
        "verdict": "strict",
        "engines": [c.source, target],
        "fixture": c.fixture,
    }


def grammar_problem(sql: str, dialect: str) -> str | None:
    """Why parrot's grammar of ``dialect`` rejects ``sql`` (the first bad statement), or None."""
    from parrot.check import check_sql

    verdicts = check_sql(sql, dialect)
    if not verdicts:
        return "no statement"
    bad = next((v for v in verdicts if not v.ok), None)
    if bad is None:
        return None
    return f"line {bad.line}:{bad.column} at {bad.token!r}: {bad.message}"


def build_items(concepts: list[MainConcept]) -> list[dict[str, Any]]:
    from parrot.tokens import count_tokens

    items = []
    for c in concepts:
        src = c.text(c.source)
        tokens = count_tokens(src)
        order = None
        if c.ordered is not None and sqlglot_order(c.sql[c.source], c.source) != c.ordered:
            order = c.ordered
        for t in c.targets:
            record: dict[str, Any] = {
                "id": c.item_id(t),
                "source_dialect": c.source,
                "target_dialect": t,
                "source_sql": src,
                "reference_sql": [c.text(t)],
                "fixture": {"name": c.fixture},
                "translation_types": list(c.types),
                "tokens": tokens,
                "origin": ORIGIN,
                "annotation_source": ANNOTATION,
                "difficulty": c.difficulty,
                "tags": list(c.tags),
                "note": c.notes[t],
                "corpus": c.corpus,
                **({"corpus_id": c.corpus_id} if c.corpus_id else {}),
                "concept": c.key,
                "verification": verification(c, t),
            }
            if c.sqlglot.get(t):
                record["sqlglot"] = c.sqlglot[t]
            if c.ambiguity:
                record["ambiguity"] = c.ambiguity
            if order is not None:
                record["order_sensitive"] = order
            if c.setup_ids:
                record["setup_ids"] = list(c.setup_ids)
            items.append(record)
    return items


TYPE_ORDER = ("syntax", "keyword", "data_type", "function", "procedure", "udf", "other")


def render_readme(concepts: list[MainConcept], items: list[dict[str, Any]]) -> str:
    pairs = Counter(f"{i['source_dialect']} → {i['target_dialect']}" for i in items)
    types = Counter(t for i in items for t in i["translation_types"])
    corpora = Counter(c.corpus for c in concepts)
    fixtures = Counter(c.fixture for c in concepts)
    diffs = Counter(c.difficulty for c in concepts)
    tags = Counter(t for c in concepts for t in c.tags)
    ambiguous = [c for c in concepts if c.ambiguity]
    n_glot = sum(1 for i in items if "sqlglot" in i)
    grammar = Counter(i["target_dialect"] for i in items if i["target_dialect"] in GRAMMAR_DIALECTS)
    n_grammar = sum(grammar.values())
    own = sorted(p.stem for p in FIXTURES_DIR.glob("*.toml"))
    lines = [
        "# main — parrot-main: real corpus queries, references written by the maintainers",
        "",
        "<!-- Generated by scripts/build_main.py from concepts/main/; edit those files. -->",
        "",
        f"**{len(items)} items** from {len(concepts)} real source queries of the public corpora "
        "(`corpora/parrot/<corpus>.jsonl`), each translated from the corpus' own dialect into "
        "other engines' dialects. The queries were selected for translation difficulty: "
        "sqlglot's translation fails or returns a different result on an engine pair (the "
        f"`sqlglot` field says how, on {n_glot} items). Every reference was written and "
        'checked by a maintainer (`annotation_source: "maintainer"`, a one-line `note` of '
        "what the translation had to change); the "
        f"{len(items) - n_grammar} into an engine dialect were verified by dual execution with "
        "parrot's Judge (strict verdict) on the item's fixture (`verification`). sqlglot did "
        "not annotate any item, so its score here is not circular.",
        "",
        f"**{n_grammar} items are grammar-only** ("
        + ", ".join(f"{d} {grammar[d]}" for d in GRAMMAR_DIALECTS if grammar[d])
        + "): "
        "their targets' engines (SQL Server, Oracle, Snowflake, BigQuery) are reached by URL "
        "only and do not run here, so the reference was checked by parrot's own grammar of the "
        "target (`python -m parrot.check`; `--verify` fails on one that does not parse), never "
        'executed: `verification: {"method": "grammar-only", '
        f'"verdict": "{UNVERIFIED}"}}`. '
        "`python -m parrot.eval` scores them `no_engine` (excluded from Acc_EX and Acc_RES, "
        "counted in their own column, never a translator failure) with Acc_SYN, the "
        "translation's grammar check; given `--engine DIALECT=URL` they are judged like the "
        "others. sqlglot's Acc_SYN on them is in the README's parrot-main section.",
        "",
        "Fixtures are named fixtures resolved through `parrot.migrate.named`: Spider databases "
        "(`spider/<db_id>`) and GeoQuery's `text2sql/geography` need the corpora under "
        "`$PARROT_CORPORA` (without them those items are skipped with that reason); `tpch` is "
        "generated by DuckDB's TPC-H extension. BIRD_Critic's sources run on parrot-main's own "
        f"fixtures ({', '.join(f'`{n}`' for n in own)}; `fixtures/<name>.json`, generated "
        "by `scripts/main_fixtures.py` from the seeded specs `concepts/main/fixtures/<name>.toml`"
        "): BIRD's databases are not among the corpora, so the "
        "maintainers built one fixture per BIRD database a query reads (`bird_<db>`), plus "
        "`bird_critic_issues` for the tables the BIRD-Critic issues define themselves, with the "
        "columns the queries read and synthetic rows (no corpus data) chosen so that each "
        "result is determined (no tie under a LIMIT or a ROW_NUMBER).",
        "",
        "Translation types are PARROT's seven. `procedure`: the source's procedural code (a "
        "stored procedure, or a PL/pgSQL routine whose loop builds the result) becomes the "
        "target's procedure (MariaDB or PL/pgSQL `CREATE PROCEDURE` + `CALL`, the item's result "
        "being what the final SELECT or CALL returns) or, where the target has none (DuckDB, "
        "SQLite, ClickHouse), set-based SQL: INSERT ... SELECT over a series, a recursive CTE, "
        "a table macro. `udf`: scalar user functions. `other`, as parrot's classifier "
        "(`parrot.curate.classify`) defines it, is a change outside functions, types, keywords "
        "and the query's shape: quoting (a reserved word), a session variable or setting (`SET "
        "@x`, ClickHouse's `join_use_nulls`), a pagination idiom (`FETCH FIRST ... WITH "
        "TIES`); items list every type their translation needed.",
        "",
        "| pair | items | verification |",
        "|---|---:|---|",
        *[
            f"| {p} | {n} | {UNVERIFIED if p.split(' → ')[1] in GRAMMAR_DIALECTS else 'strict'} |"
            for p, n in sorted(pairs.items())
        ],
        "",
        "| translation type | items |",
        "|---|---:|",
        *[f"| {t} | {types[t]} |" for t in TYPE_ORDER if types[t]],
        "",
        "| corpus | source queries |",
        "|---|---:|",
        *[f"| {k} | {n} |" for k, n in sorted(corpora.items())],
        "",
        "| difficulty | source queries |",
        "|---|---:|",
        *[f"| {d} | {diffs[d]} |" for d in DIFFICULTIES if diffs[d]],
        "",
        "| tag | source queries |",
        "|---|---:|",
        *[f"| {t} | {n} |" for t, n in sorted(tags.items(), key=lambda kv: (-kv[1], kv[0]))],
        "",
        f"{len(ambiguous)} source queries carry an `ambiguity` label: their meaning rests on an "
        "SQLite quirk (text comparison of a TEXT column with a number, 'null' text averaged as "
        "0) that the references reproduce faithfully rather than guess the author's intent. "
        "Queries whose result depends on an arbitrary choice (a LIMIT cutting a tie, a bare "
        "column not determined by the group key) were dropped; `concepts/main/DROPPED.md` "
        "lists them.",
        "",
        f"Fixtures: {len(fixtures)} databases ("
        + ", ".join(f"{k} {n}" for k, n in sorted(fixtures.items()))
        + ").",
        "",
        "Test suites (Acc_TS): `suites/` holds the suites of the committed fixtures (`tpch`, "
        "`bird_*`); those of the corpus fixtures (`spider/*`, `text2sql/*`) hold corpus values, "
        "so they are built where the corpora are, into the git-ignored `suites/corpus/`. A "
        "source of several statements (a UDF or procedure setup, `SET @x`) gets no suite: its "
        "items are scored on the fixture only.",
        "",
        "## Rebuild and check",
        "",
        "```",
        "python scripts/build_main.py            # rewrite items.jsonl and this README",
        "python scripts/build_main.py --check    # exit 1 if stale",
        "python scripts/build_main.py --verify   # judge every item strictly on the real engines",
        "python -m parrot.testsuite build main   # suites (Acc_TS); --fixture NAME for one",
        "python -m parrot.eval --model reference --dataset main",
        "```",
        "",
    ]
    return "\n".join(lines)


def own_fixtures() -> dict[Path, str]:
    """``OUT/fixtures/<name>.json`` of each spec in FIXTURES_DIR; raises SpecError."""
    return {
        OUT / "fixtures" / f"{p.stem}.json": render_fixture(build_fixture(p))
        for p in sorted(FIXTURES_DIR.glob("*.toml"))
    }


def render_files(concepts: list[MainConcept]) -> dict[Path, str]:
    items = build_items(concepts)
    return {
        OUT / "items.jsonl": items_jsonl(items),
        OUT / "README.md": render_readme(concepts, items),
        **own_fixtures(),
    }


def stale_files(concepts: list[MainConcept]) -> list[Path]:
    """Files to write (missing or different) and fixtures under OUT/fixtures to delete."""
    files = render_files(concepts)
    leftover = [p for p in sorted((OUT / "fixtures").glob("*.json")) if p not in files]
    return differing(files) + leftover


@stopping_started()  # servers the verification starts are stopped again
def verify(
    concepts: list[MainConcept], only: list[str] | None = None, targets: list[str] | None = None
) -> int:
    """Judge every item strictly (grammar-only ones by parrot's grammar); print
    ``FAIL <file> [<target>]: reason`` for each mismatch or reference that does not parse."""
    from parrot.datasets import _FixtureStore, item_from_record  # the loader's own store
    from parrot.eval.judge import Judge
    from parrot.translators.base import Translation

    chosen = [c for c in concepts if not only or c.key in only or c.path.stem in only]
    by_id = {c.item_id(t): c for c in chosen for t in c.targets}
    records = [r for r in build_items(chosen) if not targets or r["target_dialect"] in targets]
    store = _FixtureStore(OUT / "fixtures")
    tally = Tally()  # the clock starts before the judge's engines do
    judge = Judge(timeout=120, start=True)
    parsed: Counter[tuple[str, str]] = Counter()
    try:
        for rec in records:
            c = by_id[rec["id"]]
            rel = _rel(c.path)
            pair = (rec["source_dialect"], rec["target_dialect"])
            if pair[1] in GRAMMAR_DIALECTS:
                problem = grammar_problem(rec["reference_sql"][0], pair[1])
                if problem:
                    tally.fail(f"FAIL {rel} [{pair[1]}]: does not parse: {problem}"[:700])
                else:
                    parsed[pair] += 1
                continue
            try:
                item = item_from_record(rec, store)
            except Exception as exc:  # an unavailable fixture, a bad record
                tally.fail(f"FAIL {rel} [{rec['target_dialect']}]: {exc}")
                continue
            out = judge.judge(item, Translation.from_sql(item.reference_sql[0]))
            if out.get("no_engine"):
                tally.missing.update(out["no_engine"])
                continue
            problem = judged_problem(out) or judge.limit_cuts_ties(item)
            tally.judged(item, problem, f"{rel} [{item.target_dialect}]", 700)
    finally:
        judge.close()
    print(
        f"\n{sum(tally.verified.values())}/{len(records)} items verified strictly and "
        f"{sum(parsed.values())} grammar-only references parse ({UNVERIFIED}) in "
        f"{tally.seconds():.0f}s; {len(tally.failed)} failed"
    )
    for (s, t), n in sorted(tally.verified.items()):
        print(f"  {s} → {t}: {n}")
    for (s, t), n in sorted(parsed.items()):
        print(f"  {s} → {t}: {n} parse ({UNVERIFIED})")
    status = tally.status()
    if tally.failed:
        print(
            "failing files:\n  " + "\n  ".join(sorted({f.split(" ")[1] for f in tally.failed})),
            file=sys.stderr,
        )
    return status


def main(argv: list[str] | None = None) -> int:
    ap, _ = builder_parser(
        __doc__, "judge every item strictly on the real engines (parrot's Judge)"
    )
    ap.add_argument(
        "--only", nargs="*", help="with --verify: only these files (<source>/<stem> or <stem>)"
    )
    ap.add_argument("--target", nargs="*", help="with --verify: only items into these dialects")
    args = ap.parse_args(argv)

    concepts, problems = load_concepts()
    problems += check_provenance(concepts)
    try:
        own_fixtures()
    except SpecError as exc:
        problems.append(f"{_rel(FIXTURES_DIR)}/{exc}")
    if problems:
        print("\n".join(problems), file=sys.stderr)
        return 1
    if args.verify:
        return verify(concepts, args.only, args.target)
    files = render_files(concepts)
    if args.check:
        stale = stale_files(concepts)
        for p in stale:
            print(f"stale: {p.relative_to(ROOT)}", file=sys.stderr)
        if stale:
            print("run: python scripts/build_main.py", file=sys.stderr)
            return 1
        print(
            f"datasets/main is up to date ({len(concepts)} source queries, "
            f"{sum(len(c.targets) for c in concepts)} items)"
        )
        return 0
    for path in sorted((OUT / "fixtures").glob("*.json")):
        if path not in files:
            path.unlink()  # a fixture with no spec in concepts/main/fixtures
    write_differing(files)
    print(
        f"wrote {OUT.relative_to(ROOT)}: {len(concepts)} source queries, "
        f"{sum(len(c.targets) for c in concepts)} items"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
