"""parrot's JSON schemas (``parrot/schemas``) as validators, their references resolved among
themselves offline."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

SCHEMAS = Path(__file__).resolve().parents[1] / "parrot" / "schemas"


def schema_validator(name: str) -> Any:
    """A Draft 2020-12 validator of schema ``name`` (``item.schema.json``, …) whose references
    resolve to the shipped schemas, by file name or ``$id``."""
    # the dev extra, imported here: each test module says itself whether it skips without it
    import jsonschema
    import referencing

    schemas = {p.name: json.loads(p.read_text()) for p in SCHEMAS.glob("*.schema.json")}
    registry = referencing.Registry().with_resources(
        (uri, referencing.Resource.from_contents(s))
        for n, s in schemas.items()
        for uri in (n, s["$id"])
    )
    return jsonschema.Draft202012Validator(schemas[name], registry=registry)
