"""Writes docs/cli.md, the command-line reference, from the argparse parsers themselves.

It walks the ``parrot`` umbrella parser and every subcommand's parser (and their own subcommands)
and prints each one's ``--help`` at a fixed width, so the reference cannot drift from the code:

    python scripts/gen_cli_docs.py            # (re)write docs/cli.md
    python scripts/gen_cli_docs.py --check    # exit 1 when docs/cli.md is not what it would write

Subcommand parsers are found through the umbrella parser's subparsers when it has them, else
through ``parrot.cli.COMMANDS`` (subcommand → module) and the module's ``build_parser()`` (or
``_parser()``).
"""

from __future__ import annotations

import argparse
import difflib
import importlib
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "docs" / "cli.md"
WIDTH = "100"  # help text is wrapped at a fixed width, whatever the terminal
FACTORIES = ("build_parser", "_parser", "parser")


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    found: dict[str, argparse.ArgumentParser] = {}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                if sub not in found.values():  # an alias names the same parser again
                    found[name] = sub
    return found


def _module_parser(module_name: str) -> argparse.ArgumentParser:
    module = importlib.import_module(module_name)
    for name in FACTORIES:
        factory: Callable[[], object] | None = getattr(module, name, None)
        if callable(factory):
            made = factory()
            parser = made[0] if isinstance(made, tuple) else made
            if isinstance(parser, argparse.ArgumentParser):
                return parser
    raise LookupError(f"{module_name} exposes no parser ({' / '.join(FACTORIES)})")


def iter_parsers() -> Iterator[tuple[str, argparse.ArgumentParser]]:
    """``("parrot", umbrella)``, then ``("parrot eval", its parser)``, … depth first."""
    import parrot.cli

    umbrella = parrot.cli.build_parser()
    yield "parrot", umbrella
    subs = _subparsers(umbrella)
    if not subs:
        commands = getattr(parrot.cli, "COMMANDS", {})
        subs = {
            name: _module_parser(entry[0] if isinstance(entry, tuple) else entry)
            for name, entry in commands.items()
        }
    for name, sub in subs.items():
        yield from _walk(f"parrot {name}", sub)


def _walk(
    path: str, parser: argparse.ArgumentParser
) -> Iterator[tuple[str, argparse.ArgumentParser]]:
    yield path, parser
    for name, sub in _subparsers(parser).items():
        yield from _walk(f"{path} {name}", sub)


def option_strings() -> set[str]:
    """Every option string (``--model``, ``-o``) any parrot parser accepts."""
    return {
        option
        for _, parser in iter_parsers()
        for action in parser._actions
        for option in action.option_strings
    }


def render() -> str:
    previous = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = WIDTH
    try:
        sections = [_section(path, parser) for path, parser in iter_parsers()]
    finally:
        if previous is None:
            os.environ.pop("COLUMNS", None)
        else:
            os.environ["COLUMNS"] = previous
    index = "\n".join(f"- [`{path}`](#{_anchor(path)})" for path, _ in iter_parsers())
    return (
        "# Command-line reference\n\n"
        "Generated from the argparse parsers by `python scripts/gen_cli_docs.py` — do not "
        "edit by hand;\na test fails when this file is stale. Every `parrot X` is also "
        "`python -m parrot.X`.\n\n" + index + "\n\n" + "\n\n".join(sections) + "\n"
    )


def _anchor(path: str) -> str:
    return path.replace(" ", "-")


def _section(path: str, parser: argparse.ArgumentParser) -> str:
    level = "#" * min(2 + path.count(" ") - 1, 4) if " " in path else "##"
    text = parser.format_help().rstrip()
    return f"{level} {path}\n\n```text\n{text}\n```"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--check",
        action="store_true",
        help="exit 1, showing the difference, when docs/cli.md is stale",
    )
    args = parser.parse_args(argv)
    text = render()
    if args.check:
        current = OUT.read_text(encoding="utf-8") if OUT.exists() else ""
        if current == text:
            return 0
        sys.stdout.writelines(
            difflib.unified_diff(
                current.splitlines(keepends=True),
                text.splitlines(keepends=True),
                "docs/cli.md",
                "generated",
            )
        )
        print("docs/cli.md is stale: run python scripts/gen_cli_docs.py", file=sys.stderr)
        return 1
    OUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
