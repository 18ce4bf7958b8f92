"""The review queue: a human fixes pairs no candidate survived; fixes are verified again.

``python -m parrot.curate review DIR/review.csv -o DIR`` (or the ``.jsonl``): every entry with
a non-empty ``fixed_sql`` is re-verified on the same rounds of test data (the JSONL keeps them;
a CSV is joined to the JSONL beside it by id). Fixes that agree become items with
``annotation_source: human`` in ``DIR/items.jsonl`` (replacing an item with the same id); fixes
that do not stay in the queue with the new failure.
"""

from __future__ import annotations

import argparse
import csv
import json
from pathlib import Path
from typing import Any

from parrot import cli
from parrot.api import jsonl
from parrot.curate.classify import Classify
from parrot.curate.serialise import (
    ITEMS,
    REVIEW,
    attached_fixture,
    item_json,
    write_fixture,
    write_review,
)
from parrot.curate.stages import Candidate, Record
from parrot.curate.verify import DEFAULT_MAX_ROWS, DEFAULT_TIMEOUT, Verify, checker


def read_review(path: Path) -> list[dict[str, Any]]:
    """Review entries from the JSONL, or from a CSV joined to the JSONL next to it."""
    if path.suffix == ".jsonl":
        return list(jsonl.objects(path))
    full = {e["id"]: e for e in read_review(path.with_name(REVIEW))}
    out = []
    with path.open(encoding="utf-8", newline="") as fh:
        for row in csv.DictReader(fh):
            entry = dict(full[row["id"]])
            entry["fixed_sql"] = row.get("fixed_sql", "")
            out.append(entry)
    return out


def record_of(entry: dict[str, Any]) -> Record:
    """The pair of a review entry, with the fix as its only candidate."""
    return Record(
        id=entry["id"],
        dialect=entry["source_dialect"],
        sql=entry["source_sql"],
        origin=entry.get("origin", ""),
        fixture=entry.get("fixture"),
        target=entry["target_dialect"],
        candidates=(Candidate(entry["fixed_sql"].strip(), "review", "human"),),
        info={"rounds": entry.get("rounds", []), "attach": entry.get("attach", 0)},
    )


def import_fixes(
    entries: list[dict[str, Any]], out: Path, variant: str, timeout: float = DEFAULT_TIMEOUT
) -> tuple[int, list[dict[str, Any]]]:
    """Verify the fixed entries; add the agreeing ones to ``out/items.jsonl``. Returns how many
    were added and the entries still waiting (unfixed, or fixed and still disagreeing)."""
    fixed = [e for e in entries if str(e.get("fixed_sql", "")).strip()]
    waiting = [e for e in entries if not str(e.get("fixed_sql", "")).strip()]
    verify = Verify(timeout, DEFAULT_MAX_ROWS, review=True)
    batch = verify.map([record_of(e) for e in fixed])
    for entry in batch.routed:
        entry["fixed_sql"] = ""
    waiting.extend(batch.routed)
    added = add_items(out, variant, batch.records)
    checker(timeout, DEFAULT_MAX_ROWS).judge.close()
    return len(added), waiting


def add_items(out: Path, variant: str, records: list[Record]) -> list[str]:
    """Classify ``records`` and add them to ``out/items.jsonl`` (an item of the same id is
    replaced; fixtures are written beside); the ids added."""
    lines = {}
    items_path = out / ITEMS
    if items_path.is_file():
        for line in items_path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                lines[json.loads(line)["id"]] = line
    added = []
    for r in Classify().map(records).records:
        fixture = attached_fixture(r)
        if fixture is not None:
            write_fixture(out / "fixtures", fixture)
        record = item_json(variant, r)
        lines[record["id"]] = json.dumps(record, ensure_ascii=False)
        added.append(r.id)
    items_path.write_text("".join(f"{line}\n" for line in lines.values()), encoding="utf-8")
    return added


DESCRIPTION = "re-verify reviewed fixes and add them"


def configure(p: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """Fill ``p`` with the flags of ``parrot curate review``."""
    cli.configure(p, review, DESCRIPTION)
    p.add_argument("file", type=Path, help="review.jsonl or review.csv with fixed_sql filled")
    cli.add_output_dir(p, "the dataset to add to", required=True, old=("--out",), dest="out")
    cli.add_timeout(p, DEFAULT_TIMEOUT, "per execution on an engine")
    return p


def review(args: argparse.Namespace) -> int:
    """Re-verify the fixes of ``args.file`` and add them to ``args.out``."""
    manifest = json.loads((args.out / "manifest.json").read_text(encoding="utf-8"))
    added, waiting = import_fixes(
        read_review(args.file), args.out, manifest["variant"], args.timeout
    )
    write_review(args.out, waiting)
    print(
        f"{added} fix(es) verified and added to {args.out / ITEMS}; "
        f"{len(waiting)} entr(ies) left in the review queue"
    )
    return 0
