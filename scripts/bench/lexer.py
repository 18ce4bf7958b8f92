"""How fast is the one lexer, side by side with the implementation it replaced?

Times, in CPU seconds of one process, over the first ``--n`` statements of
``<corpora>/parrot/*.jsonl`` (each with its own dialect's lexicon): ``tokenize`` (what the
splitter and the engines' guards read), the dialect's splitter, and curation's
``lexed_split_and_format`` (split, comments counted, canonical text). Each figure is measured in
a fresh process on this tree and on ``--ref`` (default: the commit this branch left main at),
unpacked with ``git archive`` into a temporary folder; both read the same statements.

    python scripts/bench/lexer.py [--ref COMMIT] [--n 20000] [--no-write]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from resultsfile import ROOT, load_average, publish

# run inside each tree: prints {"tokenize": s, "split": s, "curate": s, "tokens": n, ...}
_MEASURE = r"""
import json, sys, time
from pathlib import Path
from parrot import dialects
from parrot.curate.standardise import lexed_split_and_format
from parrot.engines.statements import splitter, tokenize
rows = [json.loads(line) for path in sorted(Path(sys.argv[1]).glob("*.jsonl"))
        for line in path.open(encoding="utf-8")][: int(sys.argv[2])]
work = []
for row in rows:
    key = dialects.ALIASES.get(row["dialect"], row["dialect"])
    d = dialects.DIALECTS.get(key)
    work.append((key, row["sql"], d.lexicon if d else dialects.Lexicon()))
out = {"statements": len(work)}
start = time.process_time()
out["tokens"] = sum(len(tokenize(sql, lex)) for _, sql, lex in work)
out["tokenize"] = time.process_time() - start
start = time.process_time()
out["pieces"] = sum(len(splitter(key).split(sql)) for key, sql, _ in work)
out["split"] = time.process_time() - start
start = time.process_time()
out["canonical"] = sum(len(lexed_split_and_format(sql, key)[0]) for key, sql, _ in work)
out["curate"] = time.process_time() - start
print(json.dumps(out))
"""


def measure(tree: Path, corpus: Path, n: int) -> dict[str, float]:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    done = subprocess.run(
        [sys.executable, "-c", _MEASURE, str(corpus), str(n)],
        env=env,
        cwd=tree,
        check=True,
        capture_output=True,
        text=True,
    )
    result: dict[str, float] = json.loads(done.stdout)
    return result


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--ref", help="the commit to compare with (default: merge-base with main)")
    p.add_argument("--n", type=int, default=20000, help="statements to lex (default 20000)")
    p.add_argument("--no-write", action="store_true", help="print, do not write docs/results")
    args = p.parse_args(argv)
    corpus = Path(os.environ.get("PARROT_CORPORA", ROOT.parent / "shared" / "corpora")) / "parrot"
    if not corpus.is_dir():
        sys.exit(f"no corpus at {corpus}: set PARROT_CORPORA")
    git = ["git", "-C", str(ROOT)]
    ref = (
        args.ref
        or subprocess.run(
            [*git, "merge-base", "HEAD", "main"], check=True, capture_output=True, text=True
        ).stdout.strip()
    )
    load = load_average()
    with tempfile.TemporaryDirectory(prefix="parrot-lexer-bench-") as tmp:
        archive = subprocess.run([*git, "archive", ref], check=True, capture_output=True)
        subprocess.run(["tar", "-x", "-C", tmp], input=archive.stdout, check=True)
        before = measure(Path(tmp), corpus, args.n)
    after = measure(ROOT, corpus, args.n)
    rows = [
        (what, f"{before[what]:.2f}", f"{after[what]:.2f}", f"{before[what] / after[what]:.2f}")
        for what in ("tokenize", "split", "curate")
    ]
    counts = ", ".join(
        f"{k}: {before[k]:,} before, {after[k]:,} now" for k in ("tokens", "pieces", "canonical")
    )
    body = (
        f"The first {after['statements']:,} statements of the PARROT corpora, each lexed with "
        f"its dialect's lexicon. CPU seconds of one process; `{ref[:10]}` is the tree "
        "before the one lexer (a char-by-char tokenizer; curation's own regex lexer).\n\n"
        f"| step | before (CPU s) | now (CPU s) | speed-up |\n|---|---:|---:|---:|\n"
        + "\n".join("| " + " | ".join(r) + " |" for r in rows)
        + f"\n\nWhat each produced — {counts}.\n"
    )
    title = "The one lexer, side by side"
    publish("lexer", title, body, started_load=load, write=not args.no_write)
    return 0


if __name__ == "__main__":
    sys.exit(main())
