"""``parrot witness RUN ITEM_ID``: the smallest database on which an item's translation differs.

Reads the item and its translation from a finished run (``RUN/results.jsonl`` and the dataset the
run's manifest names), takes the database the rejection was seen on — the fixture, or the first
test-suite database that failed — and shrinks it to a 1-minimal witness on the real engines (see
:mod:`parrot.eval.witness`). Prints the witness (rows per table, both results, the first differing
cell) and writes a runnable script per dialect into ``--output-dir``: ``witness.SOURCE.sql``
(the witness's tables and rows, then the source query) and ``witness.TARGET.sql`` (the same
data, then the translation).

Exit status: 0 when a witness was found, 1 when the item has none (it matched, or a side did not
run), 2 on usage errors (unknown run or item).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from parrot import cli
from parrot.api import jsonl
from parrot.api.results import (
    SUMMARY,
    WITNESSES,
    read_json,
    read_witnesses,
    rejected,
    witness_summary,
    write_json,
)
from parrot.datasets import DatasetError, Item, load_dataset
from parrot.engines import DEFAULT_TIMEOUT
from parrot.eval.suites import load_suite
from parrot.eval.witness import DEFAULT_BUDGET, Witness, counting_judge, script, witness
from parrot.fixtures import Fixture
from parrot.servers import stopping_started


def configure(p: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """Fill ``p`` with witness's flags (also ``parrot witness``'s subparser)."""
    cli.configure(p, run, __doc__, raw=True)
    p.add_argument("run", metavar="RUN", type=Path, help="a run directory of parrot eval")
    p.add_argument(
        "item", metavar="ITEM_ID", nargs="?", help="the id of a rejected item in that run"
    )
    p.add_argument(
        "--all",
        action="store_true",
        help=f"every rejected item of the run, appended to RUN/{WITNESSES} (resumable)",
    )
    p.add_argument(
        "--budget",
        type=int,
        default=DEFAULT_BUDGET,
        metavar="N",
        help="engine executions the search may spend per item",
    )
    cli.add_output_dir(p, "the per-dialect scripts", default="RUN/witness/ITEM_ID")
    cli.add_timeout(p, DEFAULT_TIMEOUT)
    p.add_argument("--json", action="store_true", help="print the witness as JSON")
    cli.add_no_start(p)
    return p


build_parser, main = cli.entry_points("python -m parrot.eval.witness_cmd", configure)


class UsageError(Exception):
    """A run or item that cannot be read: exit 2."""


def _records(run: Path) -> dict[str, dict[str, Any]]:
    """The run's records by id (the last record of an id wins, as in the report)."""
    results = run / "results.jsonl"
    if not results.is_file():
        raise UsageError(f"{run}: no results.jsonl (not a parrot eval run directory)")
    found: dict[str, dict[str, Any]] = {}
    for _, record in jsonl.read(results)[0]:  # damaged lines skipped
        if isinstance(record, dict) and isinstance(record.get("id"), str):
            found[record["id"]] = record
    return found


def _items(run: Path) -> tuple[dict[str, Item], Path]:
    try:
        manifest = json.loads((run / "manifest.json").read_text(encoding="utf-8"))
        path = Path(manifest["dataset"]["path"])
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise UsageError(f"{run}: cannot read the dataset from manifest.json ({exc})") from None
    try:
        dataset = load_dataset(str(path), count_tokens=False, strict=False)
    except (DatasetError, OSError, ValueError) as exc:
        raise UsageError(f"{run}: dataset {path}: {exc}") from None
    return {item.id: item for item in dataset.items}, path.parent


def read_jsonl_ids(path: Path) -> list[str]:
    """The ids of a JSONL file's valid lines (none when it does not exist)."""
    if not path.is_file():
        return []
    ids = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            ids.append(json.loads(line)["id"])
        except (ValueError, KeyError, TypeError):
            continue
    return ids


def databases(record: dict[str, Any], item: Item, dataset_dir: Path) -> list[tuple[str, Fixture]]:
    """Where the rejection was seen: the fixture when strict failed there, then the suite's
    first failing database (the suite databases answer to the fixture's name, as in eval)."""
    fixture = item.fixture or Fixture(name="empty", tables=())
    out: list[tuple[str, Fixture]] = []
    strict = (record.get("verdicts") or {}).get("strict") or {}
    if strict.get("match") is False:
        out.append(("fixture", fixture))
    suite_record = record.get("suite") or {}
    failed = suite_record.get("first_failure")
    if isinstance(failed, int):
        suite = load_suite(dataset_dir, item.source_dialect, item.source_sql, item.fixture)
        if suite is not None and failed < len(suite.databases):
            out.append(
                (
                    f"suite database {failed}",
                    replace(suite.databases[failed].fixture, name=fixture.name),
                )
            )
    return out


def describe(found: Witness) -> str:
    """The witness as text: where it came from, its rows, both results and the difference."""
    data = found.to_json()
    lines = [
        f"witness from the {found.origin}: {data['size']} rows "
        f"({', '.join(f'{t} {n}' for t, n in found.rows.items())}; before: "
        f"{sum(found.rows_before.values())}), "
        f"{'1-minimal' if found.minimal else 'NOT minimal: the budget ran out'}, "
        f"{found.executions} engine executions",
        f"strict verdict: {data['reason']} — {' '.join(str(data['detail']).split())}",
    ]
    if data["cell"]:
        lines.append(f"first differing cell: {json.dumps(data['cell'], default=str)}")
    for name, rows in data["tables"].items():
        lines.append(f"table {name}:")
        lines.extend(f"  {json.dumps(row, default=str)}" for row in rows)
    for side in ("gold", "pred"):
        execution = data[side]
        preview = json.dumps(execution.get("preview", []), default=str)
        lines.append(
            f"{'source' if side == 'gold' else 'translation'} on "
            f"{execution['engine']}: {execution.get('rows', 0)} rows {preview}"
        )
    return "\n".join(lines)


def _load(run: Path) -> tuple[dict[str, dict[str, Any]], dict[str, Item], Path]:
    records = _records(run)
    items, dataset_dir = _items(run)
    return records, items, dataset_dir


def _shrink(
    record: dict[str, Any], item: Item, dataset_dir: Path, args: argparse.Namespace, judge: Any
) -> tuple[Witness | None, str]:
    """The item's witness, or None and why there is none."""
    sql = (record.get("translation") or {}).get("sql")
    where = databases(record, item, dataset_dir)
    if not isinstance(sql, str) or not where:
        return None, "not rejected on a database where its translation ran"
    found = witness(item, sql, where, budget=args.budget, judge=judge)
    if found is None:
        return None, (
            f"the source and the translation agree on {', '.join(o for o, _ in where)} now, "
            "or one of them does not run"
        )
    return found, ""


def _write_scripts(found: Witness, item: Item, sql: str, out: Path) -> str:
    out.mkdir(parents=True, exist_ok=True)
    queries = [
        (item.source_dialect, "the source", item.source_sql),
        (item.target_dialect, "the translation", sql),
    ]
    dialects = list(dict.fromkeys(d for d, _, _ in queries))
    for dialect in dialects:
        mine = [(label, text) for d, label, text in queries if d == dialect]
        (out / f"witness.{dialect}.sql").write_text(script(found, dialect, mine), encoding="utf-8")
    return f"scripts in {out}: " + ", ".join(f"witness.{d}.sql" for d in dialects)


def _one(args: argparse.Namespace, judge: Any) -> int:
    records, items, dataset_dir = _load(args.run)
    if args.item not in records:
        raise UsageError(f"{args.run}: no item {args.item!r} in results.jsonl")
    if args.item not in items:
        raise UsageError(f"the run's dataset has no item {args.item!r}")
    record, item = records[args.item], items[args.item]
    found, why = _shrink(record, item, dataset_dir, args, judge)
    if found is None:
        print(f"{args.item}: no witness: {why}", file=sys.stderr)
        return 1
    out = args.output_dir or args.run / "witness" / args.item
    note = _write_scripts(found, item, record["translation"]["sql"], out)
    print(json.dumps(found.to_json(), default=str) if args.json else describe(found))
    print(note, file=sys.stderr)
    return 0


def _every(args: argparse.Namespace, judge: Any) -> int:
    """Witnesses of every rejected item, appended to RUN/witnesses.jsonl (resumable by id)."""
    records, items, dataset_dir = _load(args.run)
    path = args.run / WITNESSES
    done = set(read_jsonl_ids(path))
    todo = [i for i, r in records.items() if rejected(r) and i in items and i not in done]
    print(f"{len(todo)} rejected items to shrink ({len(done)} already in {path})", file=sys.stderr)
    found_count = 0
    with path.open("a", encoding="utf-8") as fh:
        for n, item_id in enumerate(todo, 1):
            started = time.perf_counter()
            found, why = _shrink(records[item_id], items[item_id], dataset_dir, args, judge)
            line: dict[str, Any] = {
                "id": item_id,
                "witness": found.to_json() if found else None,
                "seconds": round(time.perf_counter() - started, 3),
                "executions": judge.executions,
            }
            if found is None:
                line["why"] = why
            fh.write(json.dumps(line, default=str, ensure_ascii=False) + "\n")
            fh.flush()
            os.fsync(fh.fileno())
            found_count += found is not None
            size = f"{found.to_json()['size']} rows" if found else "none"
            print(f"[{n}/{len(todo)}] {item_id}: {size}", file=sys.stderr)
    print(f"{found_count} witnesses for {len(todo)} items: {path}", file=sys.stderr)
    _summarise(args.run, records)
    return 0


def _summarise(run: Path, records: dict[str, dict[str, Any]]) -> None:
    """summary.json's ``witnesses`` counts, from witnesses.jsonl as it now is."""
    summary_path = run / SUMMARY
    if summary_path.is_file():
        summary = read_json(summary_path)
        summary["witnesses"] = witness_summary(list(records.values()), read_witnesses(run))
        write_json(summary_path, summary)


def run(args: argparse.Namespace) -> int:
    if args.budget < 1:
        print("error: --budget must be at least 1", file=sys.stderr)
        return 2
    if (args.item is None) == (not args.all):
        print("error: give ITEM_ID or --all (not both)", file=sys.stderr)
        return 2
    with stopping_started():
        judge = counting_judge(args.budget, timeout=args.timeout, start=not args.no_start)
        try:
            return _every(args, judge) if args.all else _one(args, judge)
        except UsageError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        finally:
            judge.close()


if __name__ == "__main__":
    raise SystemExit(main())
