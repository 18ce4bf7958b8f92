"""Stage 6b, serialise: dataset JSONL (the format :func:`parrot.datasets.load_dataset` reads), the
generated fixtures, and the build manifest.

Layout of ``-o DIR``::

    items.jsonl          one item per line
    fixtures/<name>.json generated fixtures (items on real databases name them: spider/<db_id>)
    manifest.json        inputs, parameters, seeds, versions, funnel counts
    review.jsonl, .csv   pairs no candidate survived, for a human (python -m parrot.curate review)
"""

from __future__ import annotations

import csv
import hashlib
import json
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from parrot.curate.anonymise import ANON_PREFIX, resolve_fixture
from parrot.curate.stages import Record, statement_id
from parrot.datasets import item_line
from parrot.fixtures import fixture_to_json

_UNSAFE = re.compile(r"[^A-Za-z0-9_.:-]+")
ITEMS = "items.jsonl"
MANIFEST = "manifest.json"
REVIEW = "review.jsonl"
REVIEW_CSV = "review.csv"


def item_id(variant: str, r: Record) -> str:
    """A stable, readable dataset id: ``<variant>-<statement id>-<source>-<target>``."""
    base = _UNSAFE.sub("-", statement_id(r.id)).strip("-")
    return f"{variant}-{base}-{r.dialect}-{r.target}"


def attached_fixture(r: Record) -> dict[str, Any] | None:
    """The generated fixture eval will use for ``r`` (None for named or no fixture)."""
    rounds = r.info.get("rounds") or []
    if r.fixture or not rounds or "attach" not in r.info:
        return None
    fixture: dict[str, Any] = rounds[r.info["attach"]]
    return fixture


def _fixture_ref(name: str | None) -> dict[str, str] | None:
    """A fixture reference in the one form every shipped dataset uses: ``{"name": …}``."""
    return {"name": name} if name else None


def item_json(variant: str, r: Record) -> dict[str, Any]:
    """The dataset line of one verified pair."""
    fixture = attached_fixture(r)
    canonical = r.references[0]
    line: dict[str, Any] = {
        "id": item_id(variant, r),
        "source_dialect": r.dialect,
        "target_dialect": r.target,
        "source_sql": r.sql,
        "reference_sql": [c.sql for c in r.references],
        "fixture": _fixture_ref(r.fixture or (fixture["name"] if fixture else None)),
        "translation_types": list(r.translation_types),
        "tokens": r.tokens,
        "origin": r.origin,
        "annotation_source": canonical.annotation_source,
        "tags": [*r.tags, f"variant:{variant}"],
        "annotators": [c.annotator for c in r.references],
    }
    if r.info.get("difficulty"):  # the difficulty filter tagged it (--difficulty tag)
        line["difficulty"] = r.info["difficulty"]
        line["difficulty_model"] = r.info.get("difficulty_model")
    if r.info.get("rejected"):
        line["rejected_candidates"] = len(r.info["rejected"])
    if r.info.get("original_sql"):  # the corpus's text before canonicalisation
        line["original_source_sql"] = r.info["original_sql"]
    return item_line(line)  # every column of every dataset, absent ones null


def write_dataset(out: Path, variant: str, records: Iterable[Record]) -> tuple[int, int]:
    """Write ``items.jsonl`` and the generated fixtures; returns (items, fixture files)."""
    out.mkdir(parents=True, exist_ok=True)
    fixtures_dir = out / "fixtures"
    fixtures_dir.mkdir(exist_ok=True)
    for old in [*fixtures_dir.glob("gen-*.json"), *fixtures_dir.glob(f"{ANON_PREFIX}*.json")]:
        old.unlink()
    n_items = n_fixtures = 0
    written: set[str] = set()
    with (out / ITEMS).open("w", encoding="utf-8") as fh:
        for r in records:
            fixture = attached_fixture(r)
            if r.fixture and r.fixture.startswith(ANON_PREFIX) and r.fixture not in written:
                anonymised = resolve_fixture(r.fixture)
                assert anonymised is not None
                write_fixture(fixtures_dir, fixture_to_json(anonymised))
                written.add(r.fixture)
            if fixture is not None:
                write_fixture(fixtures_dir, fixture)
                n_fixtures += 1
            fh.write(json.dumps(item_json(variant, r), ensure_ascii=False) + "\n")
            n_items += 1
    return n_items, n_fixtures


def write_fixture(folder: Path, fixture: dict[str, Any]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{fixture['name']}.json").write_text(
        json.dumps(fixture, ensure_ascii=False, sort_keys=True) + "\n", encoding="utf-8"
    )


def write_review(out: Path, entries: list[dict[str, Any]]) -> None:
    """The review queue as JSONL (everything) and CSV (what a reviewer edits: ``fixed_sql``)."""
    paths = [out / REVIEW, out / REVIEW_CSV]
    if not entries:
        for p in paths:
            p.unlink(missing_ok=True)
        return
    with paths[0].open("w", encoding="utf-8") as fh:
        for e in entries:
            fh.write(json.dumps(e, ensure_ascii=False) + "\n")
    with paths[1].open("w", encoding="utf-8", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(
            [
                "id",
                "source_dialect",
                "target_dialect",
                "source_sql",
                "fixture",
                "candidate",
                "reason",
                "detail",
                "fixed_sql",
            ]
        )
        for e in entries:
            first = e["candidates"][0] if e["candidates"] else {}
            writer.writerow(
                [
                    e["id"],
                    e["source_dialect"],
                    e["target_dialect"],
                    e["source_sql"],
                    e["fixture"] or "generated (see review.jsonl)",
                    first.get("candidate", ""),
                    first.get("reason", ""),
                    first.get("detail", ""),
                    e.get("fixed_sql", ""),
                ]
            )


def file_digest(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def write_manifest(out: Path, manifest: dict[str, Any]) -> None:
    (out / MANIFEST).write_text(
        json.dumps(manifest, indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
    )
