"""``parrot SUBCOMMAND …`` (also ``python -m parrot``): one entry point for parrot's tools.

Each subcommand runs the ``main`` of an existing ``python -m parrot.X`` tool with the remaining
arguments, so ``parrot eval --model sqlglot`` is ``python -m parrot.eval --model sqlglot``.
Also home of what the tools share: the help formatter that shows every default, and the console
that prints tables at full width (and uncut when piped).
"""

from __future__ import annotations

import argparse
import importlib
import subprocess
import sys
from pathlib import Path
from typing import Any

from parrot import __version__

# subcommand -> (module with main(argv), one-line summary)
COMMANDS: dict[str, tuple[str, str]] = {
    "eval": ("parrot.eval.cli", "evaluate a translator on real engines"),
    "report": ("parrot.report.cli", "re-render finished runs, or a leaderboard of several"),
    "compare": ("parrot.report.paired", "compare two runs item by item, with McNemar's test"),
    "curate": ("parrot.curate.cli", "build a benchmark variant from raw SQL corpora"),
    "check": ("parrot.check.cli", "grammar-only syntax checks of SQL files"),
    "migrate": ("parrot.migrate.cli", "read databases into fixtures, load them on engines"),
    "engines": ("parrot.servers.cli", "start, stop and list parrot's local servers"),
    "translate": ("parrot.translate", "translate a .sql file or a query; check it on a database"),
    "testsuite": ("parrot.testsuite.cli", "build test suites (generated databases) for datasets"),
    "text2sql": ("parrot.text2sql.build", "build cross-dialect text-to-SQL datasets"),
}
PIPED_WIDTH = 1000  # columns of a console that is not a terminal: tables are never cut


class DefaultsHelpFormatter(argparse.HelpFormatter):
    """Appends ``(default: …)`` to every option's help that does not already state it."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        if ("default" in text or action.default is argparse.SUPPRESS or action.required
                or not action.option_strings):
            return text
        if action.nargs == 0:  # a switch
            if isinstance(action, argparse.BooleanOptionalAction):
                return f"{text} (default: {'on' if action.default else 'off'})"
            return f"{text} (default: off)" if action.default in (False, None) else text
        if action.default in (None, "", []):
            return f"{text} (default: none)"
        return text + " (default: %(default)s)"


class RawDescriptionDefaultsHelpFormatter(argparse.RawDescriptionHelpFormatter,
                                          DefaultsHelpFormatter):
    """:class:`DefaultsHelpFormatter` keeping the description's own line breaks."""


def table_console(**kwargs: Any) -> Any:
    """A rich console (stdout, or stderr with ``stderr=True``) at the terminal's full width,
    or uncut when piped."""
    from rich.console import Console

    stream = kwargs.get("file") or (sys.stderr if kwargs.get("stderr") else sys.stdout)
    return Console(width=None if stream.isatty() else PIPED_WIDTH, **kwargs)


def git_commit(root: Path | None = None) -> str:
    """The checkout's commit (``-dirty`` with local changes); outside a checkout the commit
    setup.py baked into the built package, else ``unknown``."""
    root = root or Path(__file__).resolve().parent.parent
    if not (root / ".git").exists():
        baked = root / "parrot" / "_commit.txt"
        return baked.read_text(encoding="utf-8").strip() if baked.is_file() else "unknown"
    try:
        out = subprocess.run(["git", "-C", str(root), "describe", "--always", "--dirty",
                              "--abbrev=12", "--exclude=*"],
                             capture_output=True, text=True, timeout=10, check=True)
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return out.stdout.strip() or "unknown"


def version_text() -> str:
    return f"parrot {__version__} (commit {git_commit()})"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="parrot", formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Engine-backed benchmark toolkit for cross-system SQL translation.",
        epilog="subcommands:\n" + "\n".join(f"  {name:<10} {summary}"
                                             for name, (_, summary) in COMMANDS.items())
        + "\n\n`parrot SUBCOMMAND --help` shows a subcommand's flags.")
    parser.add_argument("--version", action="version", version=version_text())
    parser.add_argument("command", choices=COMMANDS, metavar="SUBCOMMAND",
                        help=", ".join(COMMANDS))
    parser.add_argument("args", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] in COMMANDS:  # dispatch before parsing: the tool owns every flag
        command, rest = argv[0], argv[1:]
    else:
        args = build_parser().parse_args(argv)
        command, rest = args.command, args.args
    module = importlib.import_module(COMMANDS[command][0])
    return int(module.main(rest) or 0)


def model_args_flags(text: str, parser: argparse.ArgumentParser) -> list[str]:
    """``--model-args k=v,…`` (lm-evaluation-harness style) as the equivalent translator flags:
    ``temperature=0.2,hints=false`` → ``--temperature 0.2 --no-hints``. A comma followed by no
    ``=`` belongs to the value (``price=2.5,10``). ValueError names the keys accepted."""
    actions = {a.dest: a for g in parser._action_groups if g.title == "LLM translators"
               for a in g._group_actions}
    pairs: list[list[str]] = []
    for chunk in text.split(","):
        if "=" in chunk or not pairs:
            key, _, value = chunk.partition("=")
            pairs.append([key.strip().replace("-", "_"), value.strip()])
        else:
            pairs[-1][1] += "," + chunk
    flags: list[str] = []
    for key, value in pairs:
        if not key:
            continue
        action = actions.get(key)
        if action is None:
            raise ValueError(f"unknown --model-args key {key!r}; known: "
                             f"{', '.join(sorted(actions))}")
        option = action.option_strings[0]
        if action.nargs == 0:
            on = value.lower() in ("", "1", "true", "yes", "on")
            if not on and value.lower() not in ("0", "false", "no", "off"):
                raise ValueError(f"--model-args {key}={value!r}: expected true or false")
            if isinstance(action, argparse.BooleanOptionalAction):
                flags.append(option if on else "--no-" + option[2:])
            elif on:
                flags.append(option)
        else:
            flags += [option, value]
    return flags


def parse_with_model_args(parser: argparse.ArgumentParser,
                          argv: list[str] | None) -> argparse.Namespace:
    """Parse ``argv``; ``--model-args`` expands to flags that explicit flags override."""
    argv = list(sys.argv[1:] if argv is None else argv)
    args = parser.parse_args(argv)
    if not args.model_args:
        return args
    try:
        flags = model_args_flags(args.model_args, parser)
    except ValueError as exc:
        parser.error(str(exc))
    return parser.parse_args(flags + argv)


def add_model_args(parser: argparse.ArgumentParser) -> None:
    """The ``--model-args`` flag (read by :func:`parse_with_model_args`)."""
    parser.add_argument("--model-args", default="", metavar="K=V,…",
                        help="translator parameters as K=V pairs, e.g. temperature=0.2,"
                             "max_tokens=512,hints=false (the LLM flags below; explicit flags "
                             "win)")
