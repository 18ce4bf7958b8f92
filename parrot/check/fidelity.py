"""Fidelity of parrot's grammars, measured against the engines' real parsers.

    python -m parrot.check.fidelity [--dialects sqlite,postgres] [--per-source 1000]
                                    [--broken 500] [--out grammars/fidelity.md]

For each dialect: real queries from the shared corpora (``$PARROT_CORPORA`` or
``<repo>/../shared/corpora``; read in place, never copied) and the project's datasets, plus a
project-authored set of deliberately broken queries. Both our grammar and the real parser judge
every query; the report counts both accept / both reject / we accept only / we reject only and
lists every disagreement. Dialects with no real parser here are measured against the labels: real
queries should parse, broken ones should not.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import sys
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from parrot.api import jsonl
from parrot.check import check_sql
from parrot.check.parsers import GRAMMAR_OF
from parrot.check.references import Reference, open_reference
from parrot.dialects import DIALECTS as ALL_DIALECTS
from parrot.dialects import UnknownDialectError, resolve

ROOT = Path(__file__).resolve().parents[2]
DIALECTS = (
    "sqlite",
    "postgres",
    "duckdb",
    "clickhouse",
    "mysql",
    "spark",
    "tsql",
    "oracle",
    "snowflake",
    "bigquery",
    "trino",
)
# SEDE's query parameters (##Name##, ##Name:int?default##) are template slots, not T-SQL.
_SEDE_PARAM = re.compile(r"##([A-Za-z_]\w*)[^#\n]*##")


def corpora_dir() -> Path | None:
    """Where the shared corpora are, or None."""
    env = os.environ.get("PARROT_CORPORA")
    path = Path(env) if env else ROOT.parent / "shared" / "corpora"
    return path if path.is_dir() else None


@dataclass(frozen=True)
class Query:
    """One query to judge, with where it came from."""

    id: str
    source: str
    sql: str
    expect_valid: bool = True  # the label (used where no reference parser exists)
    mutation: str = ""


# sqlglot's tests also hold bare expressions (``JSON_QUERY(x, '$.a')``): not statements, skipped
_FIRST_WORD = re.compile(r"^\s*(?:--[^\n]*\n\s*|/\*.*?\*/\s*)*\(*\s*([A-Za-z_]+)", re.S)
# A literal data table of first words, several a line:
# fmt: off
_STATEMENT_WORDS = {
    "SELECT", "WITH", "INSERT", "UPDATE", "DELETE", "MERGE", "CREATE", "DROP", "ALTER", "TRUNCATE",
    "VALUES", "FROM", "TABLE", "EXPLAIN", "DESCRIBE", "DESC", "SHOW", "USE", "SET", "RESET",
    "BEGIN", "START", "COMMIT", "ROLLBACK", "END", "DECLARE", "IF", "WHILE", "EXEC", "EXECUTE",
    "CALL", "GRANT", "REVOKE", "COPY", "PRAGMA", "ATTACH", "DETACH", "ANALYZE", "VACUUM", "CACHE",
    "UNCACHE", "REFRESH", "OPTIMIZE", "SYSTEM", "RENAME", "REPLACE", "LOCK", "UNLOCK", "DO",
    "PIVOT", "UNPIVOT", "SUMMARIZE", "INSTALL", "LOAD", "CHECKPOINT", "PRINT", "GO", "KILL",
    "COMMENT", "UNDROP", "PUT", "GET", "LIST", "REMOVE", "MSCK", "EXCHANGE", "CHECK", "FETCH",
    "CLOSE", "OPEN", "DEALLOCATE", "PREPARE", "SAVEPOINT", "RELEASE", "REINDEX",
}
# fmt: on


def is_statement(sql: str) -> bool:
    """Does ``sql`` start like a statement (rather than a bare expression or fragment)?"""
    m = _FIRST_WORD.match(sql)
    return m is not None and m.group(1).upper() in _STATEMENT_WORDS


def _canon(name: str) -> str | None:
    try:
        return resolve(name.split(",")[0].strip())
    except UnknownDialectError:
        return None


def real_queries(dialect: str, per_source: int, seed: int = 0) -> list[Query]:
    """Real queries of ``dialect``: at most ``per_source`` from each corpus file, deduplicated."""
    by_source: dict[str, dict[str, str]] = {}

    def add(source: str, qid: str, sql: str | None) -> None:
        if isinstance(sql, str) and sql.strip() and is_statement(sql):
            by_source.setdefault(source, {}).setdefault(sql.strip(), qid)

    root = corpora_dir()
    if root is not None:
        for path in sorted((root / "parrot").glob("*.jsonl")):
            for rec in _jsonl(path):
                if _canon(rec.get("dialect", "")) == dialect:
                    src = rec.get("benchmark", path.stem)
                    sql = rec.get("sql")
                    if dialect == "tsql" and isinstance(sql, str):
                        sql = _SEDE_PARAM.sub(r"@\1", sql)
                    add(f"parrot/{src}", rec["id"], sql)
        for path in sorted((root / "sqlglot").glob("*pairs.jsonl")):
            for rec in _jsonl(path):
                for side in ("source", "target"):
                    if _canon(rec.get(f"{side}_dialect", "")) == dialect:
                        add("sqlglot-tests", f"{rec['id']}:{side}", rec.get(f"{side}_sql"))
    for path in sorted((ROOT / "datasets").glob("*/items.jsonl")):
        for rec in _jsonl(path):
            if _canon(rec.get("source_dialect", "")) == dialect:
                add(f"datasets/{path.parent.name}", f"{rec['id']}:source", rec.get("source_sql"))
            if _canon(rec.get("target_dialect", "")) == dialect:
                refs = rec.get("reference_sql")
                for i, ref in enumerate(refs if isinstance(refs, list) else [refs]):
                    add(f"datasets/{path.parent.name}", f"{rec['id']}:reference{i}", ref)
    rng = random.Random(seed)
    out = []
    for source in sorted(by_source):
        items = sorted(by_source[source].items(), key=lambda kv: kv[1])
        if len(items) > per_source:
            items = rng.sample(items, per_source)
        out += [Query(qid, source, sql) for sql, qid in items]
    return out


def _jsonl(path: Path) -> Iterator[dict]:
    yield from jsonl.objects(path)


# ---------------------------------------------------------------- broken queries


# dialects where a construct is legal; a mutation that introduces it is "broken" elsewhere
def _accepting(construct: str) -> set[str]:
    return {k for k in DIALECTS if construct in ALL_DIALECTS[k].constructs}


_TRAILING_COMMA_OK = _accepting("trailing_comma")
_TOP_OK = _accepting("top")
_LIMIT_OK = _accepting("limit")
_QUALIFY_OK = _accepting("qualify")
_DOUBLE_COLON_OK = _accepting("double_colon")

_TYPOS = {
    "SELECT": "SELCT",
    "FROM": "FORM",
    "WHERE": "WHERER",
    "GROUP": "GRUOP",
    "ORDER": "ODRER",
    "JOIN": "JION",
}


def _mutations(sql: str, dialect: str) -> Iterator[tuple[str, str, bool]]:
    """(name, mutated sql, still valid in dialect) for the mutations that apply to ``sql``."""
    upper = sql.upper()
    for word, typo in _TYPOS.items():
        m = re.search(rf"\b{word}\b", upper)
        if m:
            yield f"typo {word}", sql[: m.start()] + typo + sql[m.end() :], False
            break
    if ")" in sql:
        i = sql.rfind(")")
        yield "missing )", sql[:i] + sql[i + 1 :], False
    m = re.search(r"\bFROM\b", upper)
    if m and upper.lstrip().startswith("SELECT") and "(" not in sql[: m.start()]:
        yield (
            "trailing comma",
            sql[: m.start()].rstrip() + ", " + sql[m.start() :],
            dialect in _TRAILING_COMMA_OK,
        )
    body = sql.rstrip().rstrip(";")
    yield "dangling AND", body + " AND", False
    yield "unclosed string", body + " WHERE x = 'abc", False
    if upper.lstrip().startswith("SELECT"):
        i = upper.index("SELECT") + len("SELECT")
        yield "doubled SELECT", sql[:i] + " SELECT" + sql[i:], False
        yield "TOP n (T-SQL)", sql[:i] + " TOP 5" + sql[i:], dialect in _TOP_OK
        m = re.search(r"\bWHERE\b", upper)
        if m:
            yield "empty WHERE", sql[: m.end()], False
    if upper.lstrip().startswith("SELECT") and not re.search(r"\b(LIMIT|ORDER|UNION)\b", upper):
        yield "LIMIT n", body + " LIMIT 5", dialect in _LIMIT_OK
        yield "QUALIFY", body + " QUALIFY x = 1", dialect in _QUALIFY_OK
    m = re.search(r"\bJOIN\s+\w+(\s+(AS\s+)?\w+)?\s+ON\b", upper)
    if m:
        yield "empty ON", sql[: m.end()] + " WHERE 1 = 1", False
    # `::int` after a plain first column (not a function name or a table qualifier)
    m = re.search(r"\bSELECT\s+(\w+)(?=\s*,|\s+(?:FROM|AS)\b|\s*$)", sql, flags=re.I)
    if m and m.group(1).upper() not in {"DISTINCT", "ALL", "TOP", "CASE", "CAST", "NOT"}:
        yield (
            "::type (PostgreSQL)",
            sql[: m.end()] + "::int" + sql[m.end() :],
            dialect in _DOUBLE_COLON_OK,
        )


def broken_queries(real: list[Query], dialect: str, limit: int, seed: int = 0) -> list[Query]:
    """Deliberately broken variants of real queries (one random mutation per query)."""
    rng = random.Random(seed)
    pool = [q for q in real if len(q.sql) < 2000]
    rng.shuffle(pool)
    out = []
    for q in pool[:limit]:
        options = list(_mutations(q.sql, dialect))
        if options:
            name, sql, valid = rng.choice(options)
            out.append(Query(f"{q.id}~{name}", q.source, sql, valid, name))
    return out


# ---------------------------------------------------------------- measuring


@dataclass
class Outcome:
    """Verdicts on one set of queries for one dialect."""

    # both_accept, both_reject, ours_only (we accept only), ref_only (we reject only)
    counts: Counter = field(default_factory=Counter)
    disagreements: list[dict] = field(default_factory=list)
    seconds_ours: float = 0.0
    seconds_ref: float = 0.0

    @property
    def n(self) -> int:
        return sum(self.counts.values())

    def agreement(self) -> float | None:
        n = self.n
        return (self.counts["both_accept"] + self.counts["both_reject"]) / n if n else None

    def on_accepted(self) -> float | None:
        """Share of the queries the reference accepts that our grammar accepts too."""
        acc = self.counts["both_accept"] + self.counts["ref_only"]
        return self.counts["both_accept"] / acc if acc else None


def measure(queries: list[Query], dialect: str, reference: Reference | None) -> Outcome:
    """Judge each query with our grammar and with ``reference`` (or the label when None)."""
    out = Outcome()
    for q in queries:
        t0 = time.process_time()
        verdicts = check_sql(q.sql, dialect)
        ours = bool(verdicts) and all(v.ok for v in verdicts)
        t1 = time.process_time()
        ref = reference.accepts(q.sql) if reference is not None else q.expect_valid
        out.seconds_ours += t1 - t0
        out.seconds_ref += time.process_time() - t1
        key = {
            (True, True): "both_accept",
            (False, False): "both_reject",
            (True, False): "ours_only",
            (False, True): "ref_only",
        }[(ours, ref)]
        out.counts[key] += 1
        if ours != ref:
            bad = next((v for v in verdicts if not v.ok), None)
            where = (
                f"{bad.line}:{bad.column} at {bad.token!r}: {bad.message}" if bad else "accepted"
            )
            out.disagreements.append(
                {
                    "id": q.id,
                    "source": q.source,
                    "kind": key,
                    "mutation": q.mutation,
                    "ours": where,
                    "sql": q.sql,
                }
            )
    return out


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.1f}%"


def _row(dialect: str, ref_name: str, o: Outcome, headline: float | None) -> str:
    c = o.counts
    qps = o.n / o.seconds_ours if o.seconds_ours else 0.0
    return (
        f"| {dialect} | {ref_name} | {o.n} | {c['both_accept']} | {c['both_reject']} | "
        f"{c['ours_only']} | {c['ref_only']} | **{_pct(headline)}** | {_pct(o.agreement())} "
        f"| {qps:.0f} |"
    )


def _sql_cell(sql: str, limit: int = 240) -> str:
    one = " ".join(sql.split())
    one = one if len(one) <= limit else one[:limit] + " …"
    return one.replace("|", "\\|").replace("`", "'")


def write_report(results: dict, path: Path, args: argparse.Namespace) -> None:
    """Markdown with the agreement tables and every disagreement."""
    head = (
        "| dialect | judge | queries | both accept | both reject | we accept only | "
        "we reject only | headline | agreement | our q/s |\n" + "|---" * 10 + "|"
    )
    lines = [
        "# Grammar fidelity (generated by `python -m parrot.check.fidelity`)",
        "",
        f"Sample: at most {args.per_source} real queries per corpus file and dialect; "
        f"{args.broken} broken ones per dialect (seed {args.seed}). Corpora: the shared corpora "
        "(`parrot/`, `sqlglot/` pairs) and `datasets/*/items.jsonl`. SEDE's `##Param##` slots are "
        "replaced by `@Param` before T-SQL checks.",
        "",
        "*Headline* on real queries: of the queries the real parser accepts, the share our grammar "
        "accepts. On broken queries: agreement with the real parser (or, with no real parser, with "
        "the label). *judge* `labels` means no real parser runs here: real queries count as valid, "
        "broken ones as their mutation's label (dialect-aware: a trailing comma is legal in "
        "ClickHouse/DuckDB/BigQuery, TOP in T-SQL/ClickHouse/Snowflake, …).",
        "",
        "## Real queries",
        "",
        head,
    ]
    for d, r in results.items():
        lines.append(_row(d, r["ref"], r["real"], r["real"].on_accepted()))
    lines += ["", "## Deliberately broken queries", "", head]
    for d, r in results.items():
        lines.append(_row(d, r["ref"], r["broken"], r["broken"].agreement()))
    unavailable = [f"- {d}: {r['why']}" for d, r in results.items() if r["why"]]
    if unavailable:
        lines += ["", "## Judged by labels only", "", *unavailable]
    lines += ["", "## Disagreements", ""]
    for d, r in results.items():
        for kind in ("real", "broken"):
            dis = r[kind].disagreements
            if not dis:
                continue
            lines += [
                f"### {d} — {kind} ({len(dis)})",
                "",
                "| id | kind | mutation | ours | sql |",
                "|---|---|---|---|---|",
            ]
            for x in dis:
                lines.append(
                    f"| {x['id']} | {x['kind']} | {x['mutation']} | "
                    f"{_sql_cell(x['ours'], 120)} | {_sql_cell(x['sql'])} |"
                )
            lines.append("")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Measure grammar fidelity against real parsers.")
    ap.add_argument(
        "--dialects",
        default=",".join(DIALECTS),
        help="comma-separated dialects (default: all with a grammar)",
    )
    ap.add_argument(
        "--per-source",
        type=int,
        default=1000,
        help="at most this many real queries per corpus file (default 1000)",
    )
    ap.add_argument(
        "--broken", type=int, default=500, help="broken queries per dialect (default 500)"
    )
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path, default=ROOT / "grammars" / "fidelity.md")
    ap.add_argument(
        "--no-reference",
        default="",
        help="comma-separated dialects to judge by labels even if a parser exists",
    )
    args = ap.parse_args(argv)
    skip_ref = {resolve(d) for d in args.no_reference.split(",") if d.strip()}
    results: dict[str, dict] = {}
    for name in args.dialects.split(","):
        d = resolve(name)
        if d not in GRAMMAR_OF:
            print(f"{d}: no grammar", file=sys.stderr)
            continue
        reference, why = (None, "skipped (--no-reference)") if d in skip_ref else open_reference(d)
        real = real_queries(d, args.per_source, args.seed)
        broken = broken_queries(real, d, args.broken, args.seed)
        try:
            results[d] = {
                "ref": reference.name if reference else "labels",
                "why": why,
                "real": measure(real, d, reference),
                "broken": measure(broken, d, reference),
            }
        finally:
            if reference is not None:
                reference.close()
        r = results[d]
        print(
            f"{d:11} real {r['real'].n:5} on-accepted {_pct(r['real'].on_accepted()):>6}  "
            f"broken {r['broken'].n:4} agreement {_pct(r['broken'].agreement()):>6}  "
            f"[{r['ref']}]",
            file=sys.stderr,
        )
    write_report(results, args.out, args)
    print(f"report: {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
