"""What witnesses cost and how small they are: ``parrot witness --all`` over a finished run.

Runs ``python -m parrot witness RUN --all`` (unless ``--no-run``: then reads an existing
``RUN/witnesses.jsonl``) and summarises it: how many rejected items got a witness (the rest:
a side did not run, so no data-dependent witness exists), whether each is 1-minimal, the median
and largest witness size in rows beside the size of the database it was shrunk from, and the cost
per item in engine executions and wall seconds. Writes ``docs/results/witness_DATASET.md`` and,
for the polyglot set, the README's line between ``<!-- bench:witness -->`` markers.

    python scripts/bench/witness.py runs/sqlglot-polyglot [--budget 400] [--no-run]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from resultsfile import load_average, write_results


def _quantiles(values: list[float]) -> str:
    if not values:
        return "–"
    values = sorted(values)
    return (
        f"{statistics.median(values):g} (p90 {values[int(0.9 * (len(values) - 1))]:g}, "
        f"max {values[-1]:g})"
    )


def summarise(lines: list[dict]) -> str:
    found = [x for x in lines if x.get("witness")]
    sizes = [x["witness"]["size"] for x in found]
    before = [sum(x["witness"]["rows_before"].values()) for x in found]
    minimal = sum(bool(x["witness"]["minimal"]) for x in found)
    origins: dict[str, int] = {}
    for x in found:
        key = "fixture" if x["witness"]["origin"] == "fixture" else "suite database"
        origins[key] = origins.get(key, 0) + 1
    rows = [
        ("rejected items read", str(len(lines))),
        ("with a witness", f"{len(found)} ({', '.join(f'{k} {v}' for k, v in origins.items())})"),
        ("without (a side did not run there)", str(len(lines) - len(found))),
        ("1-minimal (search finished within the budget)", f"{minimal} of {len(found)}"),
        ("witness rows: median (p90, max)", _quantiles(sizes)),
        ("rows of the database it was shrunk from", _quantiles(before)),
        ("engine executions per witness", _quantiles([x["executions"] for x in found])),
        ("seconds per witness", _quantiles([x["seconds"] for x in found])),
        (
            "seconds per item without a witness",
            _quantiles([x["seconds"] for x in lines if not x.get("witness")]),
        ),
    ]
    return "| | |\n|---|---|\n" + "\n".join(f"| {a} | {b} |" for a, b in rows) + "\n"


README = Path(__file__).resolve().parents[2] / "README.md"
MARKERS = ("<!-- bench:witness -->", "<!-- /bench:witness -->")


def readme_line(lines: list[dict], model: str, name: str) -> str:
    """The README's sentence: median witness size and shrinking cost per item."""
    found = [x for x in lines if x.get("witness")]
    if not found:
        return f"no witness on `{model}` × `{name}`"
    size = statistics.median(x["witness"]["size"] for x in found)
    runs = statistics.median(x["executions"] for x in found)
    secs = statistics.median(x["seconds"] for x in found)
    minimal = sum(bool(x["witness"]["minimal"]) for x in found)
    return (
        f"on `{model}` × `{name}`, {len(found)} rejected items have a witness ({minimal} "
        f"of them 1-minimal), of a median {size:g} row(s), shrunk in a median {runs:g} "
        f"engine executions ({secs:.2g} s) per item "
        f"([figures](docs/results/witness_{name}.md))"
    )


def update_readme(line: str) -> None:
    text = README.read_text(encoding="utf-8")
    start, end = (text.find(m) for m in MARKERS)
    if start < 0 or end < start:
        return
    README.write_text(text[: start + len(MARKERS[0])] + line + text[end:], encoding="utf-8")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run", type=Path, help="a finished parrot eval run directory")
    parser.add_argument("--budget", type=int, default=400, help="engine executions per item")
    parser.add_argument(
        "--no-run", action="store_true", help="summarise RUN/witnesses.jsonl as it is"
    )
    args = parser.parse_args()
    load = load_average()
    if not args.no_run:
        subprocess.run(
            [
                sys.executable,
                "-m",
                "parrot",
                "witness",
                str(args.run),
                "--all",
                "--budget",
                str(args.budget),
            ],
            check=True,
        )
    lines = [
        json.loads(x) for x in (args.run / "witnesses.jsonl").read_text().splitlines() if x.strip()
    ]
    manifest = json.loads((args.run / "manifest.json").read_text())
    name = manifest["dataset"]["name"]
    model = manifest["translator"]["name"]
    body = (
        f"Run: `{model}` on `{name}` ({manifest['dataset']['items']} items), budget "
        f"{args.budget} engine executions per item"
        + (
            " (--no-run: summarised from the run's existing witnesses.jsonl; the seconds are "
            "those of the run that wrote it)"
            if args.no_run
            else ""
        )
        + ".\n\n"
        + summarise(lines)
    )
    print(body)
    path = write_results(
        f"witness_{name}", f"Witness databases: {model} on {name}", body, started_load=load
    )
    print(f"written: {path}", file=sys.stderr)
    if name == "polyglot":
        update_readme(readme_line(lines, model, name))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
