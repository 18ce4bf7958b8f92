"""The JSON Schemas parrot ships (``parrot/schemas/``) as validators, their errors as messages.

Every ``$ref`` resolves among the shipped schemas, by file name or ``$id``, and never over the
network. :func:`problems` turns jsonschema's errors into one line each: the JSON path of the
offending value, what the schema expected there, and what it found, e.g.
``$.reference_sql[1]: expected a non-blank string, got ""``.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from functools import cache
from importlib import metadata
from pathlib import Path
from typing import Any

import jsonschema
import referencing
from jsonschema.exceptions import ValidationError

SCHEMAS = Path(__file__).resolve().parent.parent / "schemas"
TYPE_NAMES = {
    "string": "a string",
    "array": "a list",
    "object": "a JSON object",
    "integer": "an integer",
    "number": "a number",
    "boolean": "a boolean",
    "null": "null",
}
NON_BLANK = "\\S"  # the pattern of text that must hold more than white space
SHOWN = 60  # characters of an offending value quoted in a message


@cache
def validator(name: str) -> jsonschema.Draft202012Validator:
    """The validator of ``parrot/schemas/<name>`` (e.g. ``item.schema.json``)."""
    schemas = {
        p.name: json.loads(p.read_text(encoding="utf-8"))
        for p in sorted(SCHEMAS.glob("*.schema.json"))
    }
    # a Registry without a retrieve function fetches nothing: an unknown $ref is an error
    registry: referencing.Registry[Any] = referencing.Registry().with_resources(
        (uri, referencing.Resource.from_contents(schema))
        for file, schema in schemas.items()
        for uri in (file, schema["$id"])
    )
    return jsonschema.Draft202012Validator(schemas[name], registry=registry)


@cache
def fingerprint() -> str:
    """The digest of every shipped schema's text and of jsonschema's version: what a
    validation's outcome depends on besides the instance."""
    digest = hashlib.sha256(f"jsonschema {metadata.version('jsonschema')}".encode())
    for path in sorted(SCHEMAS.glob("*.schema.json")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def problems(schema: str, instance: Any) -> list[str]:
    """What is wrong with ``instance`` by ``parrot/schemas/<schema>``, one message an error, in
    the order of their JSON paths; empty when it is valid."""
    errors = sorted(validator(schema).iter_errors(instance), key=lambda e: _path(e.absolute_path))
    # jsonschema reports each missing field of one object apart; the message names them all
    return list(dict.fromkeys(describe(error) for error in errors))


def describe(error: ValidationError) -> str:
    """``PATH: expected WHAT, got VALUE`` for one error (the closest branch of a oneOf)."""
    if error.validator in ("oneOf", "anyOf") and error.context:
        alternatives = _alternatives(error)
        if alternatives is not None:
            return (
                f"{_path(error.absolute_path)}: expected {alternatives}, got "
                f"{_shown(error.instance)}"
            )
        error = _closest(error.context)
    where = _path(error.absolute_path)
    if error.validator == "required":
        missing = [k for k in error.validator_value if k not in error.instance]
        plural = "s" if len(missing) > 1 else ""
        return f"{where}: missing required field{plural} {', '.join(map(repr, missing))}"
    if error.validator == "additionalProperties":
        known = set(error.schema.get("properties", {}))
        extra = sorted(k for k in error.instance if k not in known)
        return f"{where}: unexpected field(s) {', '.join(map(repr, extra))}"
    return f"{where}: expected {_expected(error)}, got {_shown(error.instance)}"


def _expected(error: ValidationError) -> str:
    value = error.validator_value
    match error.validator:
        case "type":
            return _types([value] if isinstance(value, str) else value)
        case "enum":
            named = ", ".join(str(v) for v in value if v is not None)
            return f"one of {named}" + (" (or null)" if None in value else "")
        case "minimum":
            return f"a number >= {value}"
        case "minLength":
            return "a non-empty string"
        case "pattern":
            return "a non-blank string" if value == NON_BLANK else f"text matching {value}"
        case "minItems":
            return f"at least {value} item(s)"
    return error.message


def _alternatives(error: ValidationError) -> str | None:
    """When no branch of a oneOf takes the value's type: the types the branches take."""
    branches = error.context or []
    if any(e.validator != "type" or e.absolute_path != error.absolute_path for e in branches):
        return None
    return _types(
        [
            t
            for e in branches
            for t in (
                [e.validator_value] if isinstance(e.validator_value, str) else e.validator_value
            )
        ]
    )


def _closest(errors: Iterable[ValidationError]) -> ValidationError:
    """The error of the branch the value came closest to: a type mismatch says the value was
    not meant for that branch; among the others the deepest, the first branch on a tie."""
    errors = list(errors)
    meant = [e for e in errors if e.validator != "type"] or errors
    return max(meant, key=lambda e: len(e.absolute_path))


def _types(names: Sequence[str]) -> str:
    words = [TYPE_NAMES.get(n, n) for n in dict.fromkeys(names)]
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} or {words[-1]}"


def _path(parts: Iterable[Any]) -> str:
    return "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in parts)


def _shown(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= SHOWN else text[: SHOWN - 1] + "…"
