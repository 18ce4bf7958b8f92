#!/usr/bin/env python3
"""Selection for parrot-main: which corpus queries does sqlglot translate wrongly?

For each query of a corpus file (``corpora/parrot/<corpus>.jsonl``) in the corpus' own dialect
whose database is present (Spider's ``spider/<db_id>`` or text2sql-data's ``text2sql/<db_id>``),
translate it with parrot's sqlglot baseline into each target and judge that output strictly
against the source with parrot's Judge on that fixture. Writes one
JSON line per (query, target): ``{corpus_id, db_id, target, sql, sqlglot, outcome, detail}``
with outcome ``match`` / ``mismatch`` / ``pred_error`` / ``gold_error`` / ``ties`` (the source's
LIMIT cuts a tie: ambiguous, never selected) / ``empty`` (the source returns no rows: weak).

    python scripts/select_main.py --corpus Spider --targets postgres duckdb --limit 300 \
        --out /tmp/select.jsonl
    python scripts/select_main.py --corpus GeoQuery --source mysql --targets sqlite duckdb \
        --limit 300 --out /tmp/select.jsonl
    python scripts/select_main.py --corpus BIRD_Critic --source mysql --fixture bird_superhero \
        --ids BIRD_Critic:open_sol.jsonl:344 --out /tmp/select.jsonl

``--fixture`` judges every chosen query on one fixture: a named one or parrot-main's own
(``datasets/main/fixtures/<name>.json``, built from ``concepts/main/fixtures/``), for corpora
whose databases are absent (BIRD_Critic).
"""

from __future__ import annotations

import argparse
import json
import re
import sys

from parrot.datasets import item_from_record
from parrot.eval.judge import Judge
from parrot.migrate.named import corpora_root, spider_root, text2sql_ids
from parrot.servers import stopping_started
from parrot.translators import create_translator


@stopping_started()  # servers the verification starts are stopped again
def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", default="Spider")
    ap.add_argument("--source", default="sqlite", help="the corpus dialect to read")
    ap.add_argument("--targets", nargs="+", default=["duckdb", "clickhouse", "postgres", "mysql"])
    ap.add_argument("--dbs", nargs="*", help="only these db_ids")
    ap.add_argument("--ids", nargs="*", help="only these corpus ids")
    ap.add_argument("--fixture", help="judge every query on this fixture (named or parrot-main's)")
    ap.add_argument("--match", help="only queries matching this regular expression (any case)")
    ap.add_argument("--skip", type=int, default=0)
    ap.add_argument("--limit", type=int, default=200)
    ap.add_argument("--out", required=True)
    args = ap.parse_args(argv)

    path = corpora_root() / "parrot" / f"{args.corpus}.jsonl"
    records = [json.loads(line) for line in path.open(encoding="utf-8")]
    text2sql = set(text2sql_ids())

    def fixture(db_id: str | None) -> str | None:
        if args.fixture or db_id is None:
            return args.fixture
        if (spider_root() / db_id / f"{db_id}.sqlite").is_file():
            return f"spider/{db_id}"
        return f"text2sql/{db_id}" if db_id in text2sql else None

    records = [
        r
        for r in records
        if r["dialect"] == args.source
        and fixture(r["db_id"])
        and (not args.ids or r["id"] in args.ids)
        and (not args.dbs or r["db_id"] in args.dbs)
        and (not args.match or re.search(args.match, r["sql"], re.I))
    ]
    records = records[args.skip : args.skip + args.limit]
    from pathlib import Path

    from parrot.datasets import _FixtureStore

    store = _FixtureStore(Path(__file__).resolve().parent.parent / "datasets" / "main" / "fixtures")
    glot = create_translator("sqlglot")
    judge = Judge(timeout=30, start=True)
    n = 0
    try:
        with open(args.out, "a", encoding="utf-8") as out:
            for r in records:
                base = {
                    "id": r["id"],
                    "source_dialect": args.source,
                    "source_sql": r["sql"],
                    "fixture": {"name": fixture(r["db_id"])},
                }
                ties = None
                for tgt in args.targets:
                    try:
                        item = item_from_record({**base, "target_dialect": tgt}, store)
                    except Exception as exc:  # a fixture that does not load
                        print(f"skip {r['id']}: {exc}", file=sys.stderr)
                        break
                    tr = glot.translate(item)
                    rec = judge.judge(item, tr)
                    gold = rec["gold"]
                    strict = rec["verdicts"]["strict"]
                    if gold["status"] != "ok":
                        outcome = "gold_error"
                    elif not gold.get("rows"):
                        outcome = "empty" if not strict["match"] else "match"
                    elif strict["match"]:
                        outcome = "match"
                    elif (rec["pred"] or {}).get("status") != "ok":
                        outcome = "pred_error"
                    else:
                        outcome = "mismatch"
                    if outcome in ("mismatch", "pred_error") and ties is None:
                        ties = judge.limit_cuts_ties(item) or ""
                    if ties and outcome in ("mismatch", "pred_error"):
                        outcome = "ties"
                    out.write(
                        json.dumps(
                            {
                                "corpus_id": r["id"],
                                "db_id": r["db_id"],
                                "target": tgt,
                                "sql": r["sql"],
                                "sqlglot": tr.sql,
                                "outcome": outcome,
                                "detail": (strict.get("detail") or "")[:300],
                                "pred_error": ((rec["pred"] or {}).get("error") or "")[:300],
                            },
                            ensure_ascii=False,
                        )
                        + "\n"
                    )
                    out.flush()
                n += 1
    finally:
        judge.close()
    print(f"judged {n} queries", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
