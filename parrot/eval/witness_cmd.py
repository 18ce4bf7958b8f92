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
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from parrot.cli import RawDescriptionDefaultsHelpFormatter
from parrot.datasets import DatasetError, Item, load_dataset
from parrot.engines import DEFAULT_TIMEOUT
from parrot.eval.witness import DEFAULT_BUDGET, Witness, script, witness
from parrot.fixtures import Fixture
from parrot.testsuite.store import load_suite


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="parrot witness",
        description=__doc__,
        formatter_class=RawDescriptionDefaultsHelpFormatter,
    )
    p.add_argument("run", metavar="RUN", type=Path, help="a run directory of parrot eval")
    p.add_argument("item", metavar="ITEM_ID", help="the id of a rejected item in that run")
    p.add_argument(
        "--budget", type=int, default=DEFAULT_BUDGET, help="engine executions the search may spend"
    )
    p.add_argument(
        "-o",
        "--output-dir",
        type=Path,
        default=None,
        metavar="DIR",
        help="folder for the per-dialect scripts (default: RUN/witness/ITEM_ID)",
    )
    p.add_argument(
        "--timeout", type=float, default=DEFAULT_TIMEOUT, help="seconds per SQL execution"
    )
    p.add_argument("--json", action="store_true", help="print the witness as JSON")
    p.add_argument("--no-start", action="store_true", help="do not start local servers")
    return p


class UsageError(Exception):
    """A run or item that cannot be read: exit 2."""


def _record(run: Path, item_id: str) -> dict[str, Any]:
    results = run / "results.jsonl"
    if not results.is_file():
        raise UsageError(f"{run}: no results.jsonl (not a parrot eval run directory)")
    found = None
    with results.open(encoding="utf-8") as fh:
        for line in fh:
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(record, dict) and record.get("id") == item_id:
                found = record  # the last record of an id wins, as in the report
    if found is None:
        raise UsageError(f"{run}: no item {item_id!r} in results.jsonl")
    return found


def _item(run: Path, item_id: str) -> tuple[Item, Path]:
    try:
        manifest = json.loads((run / "manifest.json").read_text(encoding="utf-8"))
        path = Path(manifest["dataset"]["path"])
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise UsageError(f"{run}: cannot read the dataset from manifest.json ({exc})") from None
    try:
        dataset = load_dataset(str(path), count_tokens=False, strict=False)
    except (DatasetError, OSError, ValueError) as exc:
        raise UsageError(f"{run}: dataset {path}: {exc}") from None
    for item in dataset.items:
        if item.id == item_id:
            return item, path.parent
    raise UsageError(f"dataset {path} has no item {item_id!r}")


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


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    from parrot.servers import stopping_started

    try:
        if args.budget < 1:
            raise UsageError("--budget must be at least 1")
        record = _record(args.run, args.item)
        item, dataset_dir = _item(args.run, args.item)
    except UsageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    sql = (record.get("translation") or {}).get("sql")
    where = databases(record, item, dataset_dir)
    if not isinstance(sql, str) or not where:
        print(
            f"{args.item}: no witness: the item was not rejected on a database where its "
            f"translation ran",
            file=sys.stderr,
        )
        return 1
    with stopping_started():
        found = witness(
            item, sql, where, budget=args.budget, timeout=args.timeout, start=not args.no_start
        )
    if found is None:
        print(
            f"{args.item}: no witness: the source and the translation agree on "
            f"{', '.join(o for o, _ in where)} now, or one of them does not run",
            file=sys.stderr,
        )
        return 1
    out = args.output_dir or args.run / "witness" / args.item
    out.mkdir(parents=True, exist_ok=True)
    queries = [
        (item.source_dialect, "the source", item.source_sql),
        (item.target_dialect, "the translation", sql),
    ]
    for dialect in dict.fromkeys((item.source_dialect, item.target_dialect)):
        mine = [(label, text) for d, label, text in queries if d == dialect]
        (out / f"witness.{dialect}.sql").write_text(script(found, dialect, mine), encoding="utf-8")
    print(json.dumps(found.to_json(), default=str) if args.json else describe(found))
    names = ", ".join(f"witness.{d}.sql" for d in dict.fromkeys(d for d, _, _ in queries))
    print(f"scripts in {out}: {names}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
