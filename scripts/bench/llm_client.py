"""LLM client throughput: achieved requests/s against an OpenAI-compatible server with a fixed
latency L, versus the ideal concurrency / L, and a cached rerun's time versus the first run's.

    python scripts/bench/llm_client.py [--latency 2.0] [--waves 4] [--concurrency 1,8,32]

The scripted server runs in its own process (so its threads do not share our interpreter), and
every request goes through the real path: the litellm translator, litellm, HTTP on 127.0.0.1.
Targets: >= 90% of the ideal rate at each concurrency; a cached rerun <= 5% of the first run.
The table is printed and written to docs/results/llm_client.md (scripts/bench/resultsfile.py).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from resultsfile import load_average, write_results

from parrot.datasets import Item, item_from_record
from parrot.translators.llm.options import LLMOptions
from parrot.translators.llm.translator import LLMTranslator


def items(n: int, tag: str) -> list[Item]:
    return [
        item_from_record(
            {
                "id": f"{tag}-{i}",
                "source_dialect": "sqlite",
                "target_dialect": "duckdb",
                "source_sql": f"SELECT {i} AS {tag}",
            }
        )
        for i in range(n)
    ]


def start_server(latency: float) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "parrot.translators.llm.scripted_server", "--latency", str(latency)],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline().split()
    if line[:1] != ["port"]:
        proc.kill()
        raise SystemExit("the scripted server did not start")
    return proc, f"http://127.0.0.1:{line[1]}/v1"


def timed(translator: LLMTranslator, batch: list[Item]) -> float:
    start = time.perf_counter()
    done = sum(1 for _ in translator.translate_all(batch))
    assert done == len(batch)
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=2.0, help="server seconds per reply")
    parser.add_argument(
        "--waves", type=int, default=4, help="requests per run = waves x concurrency"
    )
    parser.add_argument("--concurrency", default="1,8,32")
    args = parser.parse_args(argv)
    started = load_average()
    proc, url = start_server(args.latency)
    rows = []
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for c in (int(x) for x in args.concurrency.split(",")):
                options = LLMOptions(
                    api_base=url,
                    concurrency=c,
                    hints=False,
                    shots=0,
                    schema=False,
                    cache_path=Path(tmp) / f"cache-{c}.sqlite",
                )
                translator = LLMTranslator("openai/bench", options)
                translator.translate(items(1, "warmup")[0])  # litellm's import is not measured
                batch = items(c * args.waves, f"c{c}")
                first = timed(translator, batch)
                cached = timed(translator, batch)
                translator.close()
                achieved, ideal = len(batch) / first, c / args.latency
                rows.append(
                    (
                        c,
                        len(batch),
                        first,
                        achieved,
                        ideal,
                        achieved / ideal,
                        cached,
                        cached / first,
                    )
                )
    finally:
        proc.terminate()
        proc.wait()
    header = (
        "concurrency",
        "requests",
        "first s",
        "req/s",
        "ideal req/s",
        "of ideal",
        "cached s",
        "cached/first",
    )
    lines = [
        f"latency L = {args.latency:g} s per request; ideal rate = concurrency / L\n",
        "| " + " | ".join(header) + " |",
        "|" + "|".join("---:" for _ in header) + "|",
    ]
    lines += [
        f"| {c} | {n} | {first:.2f} | {achieved:.1f} | {ideal:.1f} | {ratio:.1%} "
        f"| {cached:.3f} | {fraction:.2%} |"
        for c, n, first, achieved, ideal, ratio, cached, fraction in rows
    ]
    ok = all(r[5] >= 0.9 and r[7] <= 0.05 for r in rows)
    lines.append(f"\ntargets (>= 90% of ideal, cached rerun <= 5%): {'met' if ok else 'NOT met'}")
    body = "\n".join(lines)
    print(body)
    written = write_results("llm_client", "LLM client throughput", body, started_load=started)
    print(f"\nwritten: {written}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
