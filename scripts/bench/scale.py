"""Throughput of the Ray executor against worker count, and what the driver costs.

Starts a Ray head (no CPUs) on this machine and grows it to 1, 2 and 4 one-CPU worker nodes; at
each size it times, through parrot's own executors:

* curation's chunked stages (standardise → normalise → features) over the first ``--statements``
  statements of ``<corpora>/parrot/*.jsonl`` (``RayExecutor``: one task per chunk);
* engine-bound evaluation: ``--items`` starter items (sqlite→duckdb, sqlglot's translations made
  beforehand) judged by one actor per worker (actor start-up included);
* LLM-bound evaluation: the same items behind a simulated model (``--latency`` seconds per call,
  ``--concurrency`` calls at once, on the driver as in a real run), judged the same way.

Then, on the driver alone: appending outcome records to ``results.jsonl`` and pickling curation
records (what shipping a chunk costs the driver). Prints one table; the README's model of 10 M
statements and 1 M items uses these figures.

    PYTHONPATH=. python scripts/bench/scale.py [--workers 1,2,4] [--statements 20000]

The done-when run of curation at 1 M statements (local, then on a cluster; the two sha256s
must be equal):

    PYTHONPATH=. python scripts/bench/scale.py --write-corpus build/bench-1m.jsonl
    PYTHONPATH=. python scripts/bench/scale.py --curate build/bench-1m.jsonl --out local.jsonl
    PYTHONPATH=. python scripts/bench/scale.py --curate build/bench-1m.jsonl --out ray.jsonl \
        --executor ray://HEAD:10001

An eval run locally and on the cluster, compared record by record (timings aside):

    PYTHONPATH=. python scripts/bench/scale.py --compare runs/local runs/ray
"""

from __future__ import annotations

import argparse
import json
import logging
import pickle
import shutil
import sys
import tempfile
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from parrot.api.results import ResultsLog
from parrot.curate.select import Features, Normalise
from parrot.curate.stages import LocalExecutor, Record, run_pipeline
from parrot.curate.standardise import Standardise
from parrot.datasets import Item, load_dataset
from parrot.eval import cluster
from parrot.eval.judge import Judge
from parrot.migrate.named import corpora_root
from parrot.scale import untimed
from parrot.scale.local import start_head
from parrot.translators import create_translator
from parrot.translators.base import Translation

JUDGE: dict[str, Any] = {
    "timeout": 10.0,
    "max_rows": 10_000,
    "urls": {},
    "start": False,
    "syntax": False,
    "suite_dir": None,
}


def corpus(limit: int) -> list[Record]:
    root = corpora_root() / "parrot"
    if not root.is_dir():
        sys.exit(f"no corpus at {root}: set PARROT_CORPORA")
    records: list[Record] = []
    for path in sorted(root.glob("*.jsonl")):
        with path.open(encoding="utf-8") as fh:
            for line in fh:
                row = json.loads(line)
                records.append(Record.of_row(row))
                if len(records) >= limit:
                    return records
    return records


def curation(records: list[Record], chunk: int, address: str | None) -> float:
    """Statements per second through the chunked stages on the cluster (None: this process)."""
    executor = cluster.RayExecutor(address) if address else LocalExecutor(1)
    start = time.perf_counter()
    try:
        run_pipeline(records, [Standardise(), Normalise(), Features()], executor, chunk)
    finally:
        executor.close()
    return len(records) / (time.perf_counter() - start)


def simulated_llm(
    pairs: list[tuple[Item, Translation]], latency: float, concurrency: int
) -> Iterator[tuple[Item, Translation]]:
    def call(pair: tuple[Item, Translation]) -> tuple[Item, Translation]:
        time.sleep(latency)
        return pair

    with ThreadPoolExecutor(concurrency) as pool:
        yield from pool.map(call, pairs)


def evaluation(
    pairs: list[tuple[Item, Translation]],
    address: str,
    actors: int,
    latency: float = 0.0,
    concurrency: int = 1,
) -> float:
    """Items per second judged by ``actors`` actors (translations simulated when latency > 0)."""
    source = simulated_llm(pairs, latency, concurrency) if latency else iter(pairs)
    start = time.perf_counter()
    n = sum(1 for _ in cluster.judged(source, JUDGE, address, actors))
    return n / (time.perf_counter() - start)


def local_evaluation(source: Iterator[tuple[Item, Translation]]) -> float:
    """Items per second judged in this process (``--executor local --jobs 1``)."""
    start = time.perf_counter()
    judge = Judge(**JUDGE)
    n = 0
    try:
        for item, translation in source:
            judge.judge(item, translation)
            n += 1
    finally:
        judge.close()
    return n / (time.perf_counter() - start)


def driver_costs(
    records: list[Record], pairs: list[tuple[Item, Translation]], address: str, temp: Path
) -> tuple[float, float]:
    """Microseconds per appended outcome record, and per curation record pickled and back."""
    record = next(iter(cluster.judged(iter(pairs[:1]), JUDGE, address, 1)))
    (temp / "append").mkdir()
    log = ResultsLog(temp / "append")
    n = 5000
    start = time.perf_counter()
    for i in range(n):
        log.append({**record, "id": f"{record['id']}#{i}"})
    log.close()
    append = (time.perf_counter() - start) / n * 1e6
    start = time.perf_counter()
    pickle.loads(pickle.dumps(records, protocol=5))
    ship = (time.perf_counter() - start) / len(records) * 1e6
    return append, ship


def write_corpus(path: Path, size: int) -> None:
    """The benchmark corpus of ``scripts/bench/curate.py`` (the 79 k statements replicated with
    perturbed literals to ``size``), written as one corpus JSONL file."""
    sys.path.insert(0, str(Path(__file__).parent))
    from curate import load_corpus, replicate  # scripts/bench/curate.py

    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    with tmp.open("w", encoding="utf-8") as out:
        for r in replicate(load_corpus(), size):
            out.write(
                json.dumps(
                    {"id": r.id, "dialect": r.dialect, "sql": r.sql, "benchmark": r.origin},
                    ensure_ascii=False,
                )
                + "\n"
            )
    tmp.replace(path)


def curate_corpus(path: Path, executor: str, chunk: int, partition_bytes: int, out: Path) -> int:
    """Curation's corpus-scale stages (standardise → normalise → cluster → features →
    coverage, as ``scripts/bench/curate.py``) over the corpus file ``path``: on this machine
    (``--jobs 2``, the driver reads the file) or on the Ray cluster ``executor`` names (the
    tasks read it in partitions). Writes the kept records to ``out`` and prints its sha256."""
    import dataclasses
    import hashlib

    from parrot.curate.select import Cluster, Coverage
    from parrot.curate.variants import RowReader
    from parrot.scale import parse_executor
    from parrot.scale.partitions import read_records, run_partitioned, split

    stages = [Standardise(), Normalise(), Cluster(), Features(), Coverage()]
    dialects = {json.loads(line)["dialect"] for line in path.open(encoding="utf-8")}
    reader = RowReader(tuple(sorted(dialects)), frozenset(), spider_only=False)
    spec = parse_executor(executor)
    start = time.perf_counter()
    if spec.kind == "local":
        local = LocalExecutor(2)
        try:
            records = [r for part in split([path], 2**62) for r in read_records(part, reader)]
            kept, funnel, _ = run_pipeline(records, stages, local, chunk)
        finally:
            local.close()
        read = len(records)
    else:
        assert spec.address is not None
        ray_executor = cluster.RayExecutor(spec.address)
        try:
            kept, funnel, _, read = run_partitioned(
                split([path], partition_bytes), reader, stages, ray_executor, chunk
            )
        finally:
            ray_executor.close()
    seconds = time.perf_counter() - start
    with out.open("w", encoding="utf-8") as fh:
        for r in kept:
            fh.write(
                json.dumps(dataclasses.asdict(r), sort_keys=True, ensure_ascii=False, default=str)
                + "\n"
            )
    digest = hashlib.sha256(out.read_bytes()).hexdigest()
    print(
        f"{executor}: {read:,} statements → {len(kept):,} kept in {seconds:,.0f} s "
        f"({read / seconds:,.0f} stmts/s); sha256 {digest}"
    )
    for c in funnel:
        print(f"  {c.stage:<12} {c.records_in:>9,} → {c.records_out:>9,}  {c.seconds:8.1f} s")
    return 0


def compare_runs(first: Path, second: Path) -> int:
    """Whether two eval runs' ``results.jsonl`` hold the same records per id, timings aside:
    prints the counts and the ids that differ or are missing; 0 when identical."""
    runs = []
    for run in (first, second):
        with (run / "results.jsonl").open(encoding="utf-8") as fh:
            records = [json.loads(line) for line in fh if line.strip()]
        runs.append({r["id"]: untimed(r) for r in records})
        print(f"{run}: {len(records)} records, {len(runs[-1])} ids")
    a, b = runs
    differ = sorted(i for i in a.keys() & b.keys() if a[i] != b[i])
    only = sorted(a.keys() ^ b.keys())
    print(
        f"equal per id (timings aside): {len(a.keys() & b.keys()) - len(differ)} of "
        f"{len(a.keys() | b.keys())}; differ: {len(differ)}; in one run only: {len(only)}"
    )
    for i in (differ + only)[:20]:
        print(f"  {i}")
    return 0 if not differ and not only else 1


def main() -> int:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument(
        "--write-corpus",
        type=Path,
        metavar="FILE",
        help="write the 1 M-statement benchmark corpus to FILE (see --size) and stop",
    )
    p.add_argument(
        "--size",
        type=int,
        default=1_000_000,
        help="statements --write-corpus writes: the corpus's first SIZE, or all of "
        "them and perturbed copies up to SIZE",
    )
    p.add_argument(
        "--curate",
        type=Path,
        metavar="FILE",
        help="run curation's corpus-scale stages over the corpus FILE with "
        "--executor, write the kept records to --out, print its sha256",
    )
    p.add_argument(
        "--compare",
        type=Path,
        nargs=2,
        metavar="RUN",
        help="compare two eval run directories' results.jsonl per id (timings "
        "aside) and stop; exit 1 when they differ",
    )
    p.add_argument("--executor", default="local")
    p.add_argument("--partition-bytes", type=int, default=4 * 2**20)
    p.add_argument("--out", type=Path, default=Path("kept.jsonl"))
    p.add_argument("--workers", default="1,2,4", help="worker counts (one-CPU nodes)")
    p.add_argument("--statements", type=int, default=20_000)
    p.add_argument("--chunk-size", type=int, default=1000)
    p.add_argument("--items", type=int, default=24)
    p.add_argument("--latency", type=float, default=2.0, help="simulated seconds per LLM call")
    p.add_argument("--concurrency", type=int, default=4, help="simulated LLM calls at once")
    args = p.parse_args()
    logging.getLogger("sqlglot").setLevel(logging.ERROR)
    if args.compare:
        return compare_runs(*args.compare)
    if args.write_corpus:
        write_corpus(args.write_corpus, args.size)
        return 0
    if args.curate:
        return curate_corpus(
            args.curate, args.executor, args.chunk_size, args.partition_bytes, args.out
        )
    workers = sorted(int(w) for w in args.workers.split(","))
    records = corpus(args.statements)
    dataset = load_dataset("starter")
    items = [
        i for i in dataset.items if (i.source_dialect, i.target_dialect) == ("sqlite", "duckdb")
    ][: args.items]
    translator = create_translator("sqlglot")
    pairs = list(translator.translate_all(items))
    rows: list[tuple[str, float, float, float]] = [
        (
            "local, 1 process",
            curation(records, args.chunk_size, None),
            local_evaluation(iter(pairs)),
            local_evaluation(simulated_llm(pairs, args.latency, args.concurrency)),
        )
    ]
    temp = Path(tempfile.mkdtemp(prefix="parrot-ray-"))
    local = start_head(temp)
    try:
        for w in workers:
            try:
                while len(local.nodes) - 1 < w:
                    local.add_worker()
            except RuntimeError as exc:
                print(f"  {w} worker(s): a node did not start ({str(exc)[-200:]})", file=sys.stderr)
                break
            cur = curation(records, args.chunk_size, local.gcs)
            eng = evaluation(pairs, local.gcs, w)
            llm = evaluation(pairs, local.gcs, w, args.latency, args.concurrency)
            rows.append((f"ray, {w} worker(s)", cur, eng, llm))
            print(
                f"  {w} worker(s): {cur:,.0f} stmts/s, {eng:.2f} items/s, "
                f"LLM-bound {llm:.2f} items/s",
                file=sys.stderr,
            )
        append, ship = driver_costs(records, pairs, local.gcs, temp)
    finally:
        local.stop()
        shutil.rmtree(temp, ignore_errors=True)
    base = rows[0]
    print(
        f"\n{len(records):,} statements, chunk {args.chunk_size}; {len(pairs)} items "
        f"sqlite→duckdb; simulated LLM {args.latency:g} s × {args.concurrency} at once "
        f"(ceiling {args.concurrency / args.latency:.2f} items/s)\n"
    )
    print(
        "| executor | curation stmts/s | × local | eval items/s (engine-bound) | × local "
        "| eval items/s (LLM-bound) | × local |"
    )
    print("|---|---|---|---|---|---|---|")
    for name, cur, eng, llm in rows:
        print(
            f"| {name} | {cur:,.0f} | {cur / base[1]:.2f} | {eng:.2f} | {eng / base[2]:.2f} | "
            f"{llm:.2f} | {llm / base[3]:.2f} |"
        )
    print(
        f"\ndriver: {append:.0f} µs per results.jsonl append, {ship:.1f} µs per curation "
        "record pickled and unpickled"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
