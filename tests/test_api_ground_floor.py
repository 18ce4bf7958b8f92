"""parrot.api is the ground floor: it imports nothing from parrot's other packages, so every
package (engines, servers, eval, report, translators) can use its one redaction module."""

from __future__ import annotations

import ast
from pathlib import Path

import parrot.api

API = Path(parrot.api.__file__).parent


def test_parrot_api_imports_no_other_parrot_package() -> None:
    for path in sorted(API.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else (
                    [node.module or ""]
                    if isinstance(node, ast.ImportFrom) and not node.level
                    else []
                )
            )
            for name in names:
                assert not name.startswith("parrot") or name.startswith("parrot.api"), (
                    f"{path.name} imports {name}"
                )
