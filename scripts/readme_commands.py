"""The README's runnable commands, read from the README itself so CI runs them as written.

A command is the first fenced code block after a marker line ``<!-- command:NAME -->``; its
lines other than blank lines and ``#`` comments are the command. ``.ci/run`` runs them in a fresh
virtual environment:

    python3 scripts/readme_commands.py main-job     # prints the README's command 1
    python3 scripts/readme_commands.py --list       # the names of every marked command

Standard library only: it runs before anything is installed.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"
MARKER = re.compile(r"^<!-- command:([a-z0-9-]+) -->\s*$")
FENCE = re.compile(r"^(```|~~~)")


def readme_commands(text: str) -> dict[str, str]:
    """Every marked command, by name: the lines of the fenced block after its marker.

    ValueError when a marker is not followed by a fenced block, the block is empty or not
    closed, or a name is marked twice."""
    lines = text.splitlines()
    commands: dict[str, str] = {}
    for number, line in enumerate(lines):
        found = MARKER.match(line)
        if not found:
            continue
        name = found.group(1)
        if name in commands:
            raise ValueError(f"README line {number + 1}: command {name!r} is marked twice")
        commands[name] = _block_after(lines, number, name)
    return commands


def _block_after(lines: list[str], marker: int, name: str) -> str:
    start = marker + 1
    while start < len(lines) and not lines[start].strip():
        start += 1
    if start >= len(lines) or not FENCE.match(lines[start]):
        raise ValueError(f"README line {marker + 1}: no fenced block after command {name!r}")
    body: list[str] = []
    for line in lines[start + 1 :]:
        if FENCE.match(line):
            command = "\n".join(body).strip()
            if not command:
                raise ValueError(f"README line {marker + 1}: command {name!r} is empty")
            return command
        if line.strip() and not line.lstrip().startswith("#"):
            body.append(line)
    raise ValueError(f"README line {start + 1}: the block of command {name!r} is not closed")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("name", nargs="?", help="the command's name in its marker")
    parser.add_argument("--list", action="store_true", help="print the marked names")
    parser.add_argument("--readme", type=Path, default=README, help="the README to read")
    args = parser.parse_args(argv)
    try:
        commands = readme_commands(args.readme.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        print(f"readme_commands: {exc}", file=sys.stderr)
        return 2
    if args.list or not args.name:
        print("\n".join(commands))
        return 0
    if args.name not in commands:
        print(
            f"readme_commands: no command {args.name!r} in {args.readme} "
            f"(marked: {', '.join(commands) or 'none'})",
            file=sys.stderr,
        )
        return 2
    print(commands[args.name])
    return 0


if __name__ == "__main__":
    sys.exit(main())
