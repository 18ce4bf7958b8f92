"""``parrot SUBCOMMAND …`` (also ``python -m parrot``): one entry point for parrot's tools.

One argparse tree: each subcommand's parser is filled by its module's ``configure(parser)``,
the same function that builds ``python -m parrot.X`` (so ``parrot eval --model sqlglot`` is
``python -m parrot.eval --model sqlglot``), and :func:`dispatch` parses once and runs it.
Also home of what the tools share: the help formatter that shows every default, and the console
that prints tables at full width (and uncut when piped).
"""

from __future__ import annotations

import argparse
import importlib
import subprocess
import sys
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from parrot import __version__
from parrot.engines.base import timeout_arg

# subcommand -> (module whose configure(parser) fills its subparser, one-line summary)
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
    "assess": ("parrot.assess.cli", "translate and verify a whole workload on data"),
    "witness": ("parrot.eval.witness_cmd", "shrink a rejected item's database to a witness"),
}
PIPED_WIDTH = 1000  # columns of a console that is not a terminal: tables are never cut


class DefaultsHelpFormatter(argparse.HelpFormatter):
    """Appends ``(default: …)`` to every option's help that does not already state it."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        if (
            "default" in text.lower()
            or action.default is argparse.SUPPRESS
            or action.required
            or not action.option_strings
        ):
            return text
        if action.nargs == 0:  # a switch
            if isinstance(action, argparse.BooleanOptionalAction):
                return f"{text} (default: {'on' if action.default else 'off'})"
            return f"{text} (default: off)" if action.default in (False, None) else text
        if action.default in (None, "", []):
            return f"{text} (default: none)"
        return text + " (default: %(default)s)"


class RawDescriptionDefaultsHelpFormatter(
    argparse.RawDescriptionHelpFormatter, DefaultsHelpFormatter
):
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
        out = subprocess.run(
            [
                "git",
                "-C",
                str(root),
                "describe",
                "--always",
                "--dirty",
                "--abbrev=12",
                "--exclude=*",
            ],
            capture_output=True,
            text=True,
            timeout=10,
            check=True,
        )
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return out.stdout.strip() or "unknown"


def version_text() -> str:
    return f"parrot {__version__} (commit {git_commit()})"


def model_args_flags(text: str, parser: argparse.ArgumentParser) -> list[str]:
    """``--model-args k=v,…`` (lm-evaluation-harness style) as the equivalent translator flags:
    ``temperature=0.2,hints=false`` → ``--temperature 0.2 --no-hints``. A comma followed by no
    ``=`` belongs to the value (``price=2.5,10``). ValueError names the keys accepted."""
    actions = {
        a.dest: a
        for g in parser._action_groups
        if g.title == "LLM translators"
        for a in g._group_actions
    }
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
            raise ValueError(
                f"unknown --model-args key {key!r}; known: {', '.join(sorted(actions))}"
            )
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


def parse_with_model_args(
    parser: argparse.ArgumentParser, argv: list[str] | None
) -> argparse.Namespace:
    """Parse ``argv``; ``--model-args`` expands to flags that explicit flags override. The flags
    go right after the subcommand words (``parrot testsuite build``): the subcommand's parser
    is the one :func:`configure` recorded as ``_parser``."""
    argv = list(sys.argv[1:] if argv is None else argv)
    args = parser.parse_args(argv)
    leaf = getattr(args, "_parser", parser)
    depth = len(leaf.prog.split()) - len(parser.prog.split())
    args.argv = argv[depth:]  # what the subcommand itself was given (recorded in manifests)
    if not getattr(args, "model_args", ""):
        return args
    try:
        flags = model_args_flags(args.model_args, leaf)
    except ValueError as exc:
        leaf.error(str(exc))
    args = parser.parse_args(argv[:depth] + flags + argv[depth:])
    args.argv = argv[depth:]
    return args


def configure(
    parser: argparse.ArgumentParser,
    run: Callable[[argparse.Namespace], int],
    description: str | None = None,
    raw: bool = False,
) -> argparse.ArgumentParser:
    """Make ``parser`` a subcommand's: ``run(args)`` handles it (see :func:`dispatch`); its
    help shows every default (``raw``: keeping the description's line breaks)."""
    parser.formatter_class = RawDescriptionDefaultsHelpFormatter if raw else DefaultsHelpFormatter
    if description is not None:
        parser.description = description
    parser.set_defaults(_run=run, _parser=parser)
    return parser


def dispatch(parser: argparse.ArgumentParser, argv: list[str] | None = None) -> int:
    """Parse ``argv`` once with ``parser`` (a tree of subcommands) and run the chosen one."""
    args = parse_with_model_args(parser, argv)
    return int(args._run(args) or 0)


def prog_name(module_prog: str) -> str:
    """The name a tool was called by: ``parrot-eval`` from that script, else ``python -m X``."""
    name = Path(sys.argv[0]).name if sys.argv and sys.argv[0] else ""
    return name if name.startswith("parrot-") else module_prog


def standalone(prog: str) -> argparse.ArgumentParser:
    """The root parser of a ``python -m parrot.X`` tool (or its ``parrot-X`` script)."""
    parser = argparse.ArgumentParser(prog=prog_name(prog))
    parser.add_argument("--version", action="version", version=version_text())
    return parser


def entry_points(
    prog: str, configure: Callable[[argparse.ArgumentParser], argparse.ArgumentParser]
) -> tuple[Callable[[], argparse.ArgumentParser], Callable[..., int]]:
    """A tool module's ``build_parser()`` (its :func:`standalone` parser, filled by the module's
    ``configure``) and ``main(argv=None)`` (parse and run it), for ``python -m parrot.X``."""

    def build_parser() -> argparse.ArgumentParser:
        return configure(standalone(prog))

    def main(argv: list[str] | None = None) -> int:
        return dispatch(build_parser(), argv)

    build_parser.__doc__ = f"``{prog}``."
    return build_parser, main


def build_parser(prog: str = "parrot", only: str | None = None) -> argparse.ArgumentParser:
    """The ``parrot`` command: one parser, a subparser per subcommand filled by its module's
    ``configure``. ``only``: fill that subcommand alone (the others keep their one-line
    summary), so running one does not import every tool."""
    parser = argparse.ArgumentParser(
        prog=prog,
        formatter_class=partial(argparse.RawDescriptionHelpFormatter, max_help_position=20),
        description="Engine-backed benchmark toolkit for cross-system SQL translation.",
        epilog="`parrot SUBCOMMAND --help` shows a subcommand's flags.",
    )
    parser.add_argument("--version", action="version", version=version_text())
    sub = parser.add_subparsers(
        title="subcommands", metavar="SUBCOMMAND", dest="command", required=True
    )
    for name, (module, summary) in COMMANDS.items():
        child = sub.add_parser(name, help=summary, description=summary)
        if only in (None, name):
            importlib.import_module(module).configure(child)
    return parser


def main(argv: list[str] | None = None, prog: str = "parrot") -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    only = argv[0] if argv and argv[0] in COMMANDS else ""  # "": no subcommand runs
    return dispatch(build_parser(prog, only=only), argv)


class Renamed(argparse.Action):
    """Mixin of an argparse action whose ``old`` spellings still parse, with a warning on stderr
    naming the new one (:meth:`new_spelling`); put it before the action class it warns for."""

    old: tuple[str, ...] = ()

    def new_spelling(self, option_string: str) -> str:
        return "/".join(self.option_strings)

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        if option_string is not None and option_string in self.old:
            print(
                f"warning: {option_string} is deprecated: use {self.new_spelling(option_string)}",
                file=sys.stderr,
            )
        super().__call__(parser, namespace, values, option_string)


class Store(Renamed, argparse._StoreAction):
    """A flag's value, stored; its ``old`` spellings still parse, with a warning on stderr,
    and are left out of the help (see :func:`add_flag`)."""

    def __init__(
        self, option_strings: list[str], dest: str, old: tuple[str, ...] = (), **kwargs: Any
    ) -> None:
        self.old = old
        super().__init__(option_strings, dest, **kwargs)


def add_flag(
    parser: argparse.ArgumentParser, *flags: str, old: tuple[str, ...] = (), **kwargs: Any
) -> argparse.Action:
    """``parser.add_argument(*flags, **kwargs)``, also parsing the ``old`` spellings."""
    action = parser.add_argument(*flags, *old, action=Store, old=old, **kwargs)
    action.option_strings = list(flags)  # shown in help and errors; the old ones still parse
    return action


# The flags several tools share: each one's name, metavar, help and default stated here once.
def add_limit(
    parser: argparse.ArgumentParser, what: str, dest: str = "limit", old: tuple[str, ...] = ()
) -> None:
    """``--limit N``: only the first N ``what``."""
    add_flag(
        parser,
        "--limit",
        old=old,
        dest=dest,
        type=int,
        default=None,
        metavar="N",
        help=f"only the first N {what} (default: all)",
    )


def add_timeout(
    parser: argparse.ArgumentParser,
    default: float,
    what: str = "per SQL execution",
    flag: str = "--timeout",
) -> None:
    """``--timeout SECONDS`` (or another ``flag``), its default printed as ``10 s``; ``nan``,
    ``inf``, ``0`` and more than a day are refused with a one-line usage error (exit 2)."""
    parser.add_argument(
        flag,
        type=_timeout,
        default=default,
        metavar="SECONDS",
        help=f"seconds {what} (default: {seconds(default)})",
    )


def add_max_rows(parser: argparse.ArgumentParser, default: int) -> None:
    parser.add_argument(
        "--max-rows",
        type=int,
        default=default,
        metavar="N",
        help=f"result-size cap per execution (default: {default})",
    )


def add_engine_urls(parser: argparse.ArgumentParser) -> None:
    """``--engine DIALECT=URL`` (repeatable): a server of the caller's for a dialect."""
    parser.add_argument(
        "--engine",
        action="append",
        default=[],
        metavar="DIALECT=URL",
        help="run DIALECT on the server at URL, e.g. mysql=mysql://u@host:3306/ "
        "(repeatable; also read from $PARROT_<DIALECT>_URL; default: none)",
    )


def _timeout(text: str) -> float:
    return timeout_arg(text)


def seconds(value: float) -> str:
    """A duration in help texts: ``10 s``, ``2.5 s``."""
    return f"{value:g} s"


def add_jobs(parser: argparse.ArgumentParser, what: str = "worker processes") -> None:
    parser.add_argument("--jobs", type=int, default=1, metavar="N", help=f"{what} (default: 1)")


def add_quiet(parser: argparse.ArgumentParser, hides: str) -> None:
    """``--quiet``: hides progress output; errors always reach stderr."""
    parser.add_argument(
        "--quiet", action="store_true", help=f"no {hides} (errors are still printed)"
    )


def add_pairs(parser: argparse.ArgumentParser, default: str = "every pair of the dataset") -> None:
    parser.add_argument(
        "--pairs",
        default="",
        metavar="SRC:TGT,…",
        help="comma-separated SOURCE:TARGET dialect pairs to keep, e.g. "
        "sqlite:duckdb,duckdb:* (aliases like pg, ch; * = any dialect; "
        f"default: {default})",
    )


def add_output_dir(
    parser: argparse.ArgumentParser,
    what: str,
    required: bool = False,
    default: str = "",
    old: tuple[str, ...] = (),
    dest: str = "output_dir",
) -> None:
    """``-o/--output-dir DIR``: where a tool that writes a folder writes it."""
    add_flag(
        parser,
        "-o",
        "--output-dir",
        old=old,
        dest=dest,
        type=Path,
        required=required,
        metavar="DIR",
        help=f"folder to write: {what}" + (f" (default: {default})" if default else ""),
    )


def add_output_file(
    parser: argparse.ArgumentParser,
    what: str,
    default: str,
    old: tuple[str, ...] = (),
    dest: str = "output",
    value: Any = None,
    **kwargs: Any,
) -> None:
    """``-o/--output FILE``: where a tool whose product is one file writes it (``value``: the
    default, ``default`` says what it means)."""
    add_flag(
        parser,
        "-o",
        "--output",
        old=old,
        dest=dest,
        metavar="FILE",
        default=value,
        help=f"file to write: {what} (default: {default})",
        **kwargs,
    )


def add_translation(parser: argparse.ArgumentParser) -> None:
    """``--from DIALECT --to DIALECT --model SPEC``: what translates your SQL, and between which
    dialects (``parrot translate``, ``parrot assess``)."""
    parser.add_argument(
        "--from", metavar="DIALECT", dest="source", required=True, help="source dialect (or alias)"
    )
    parser.add_argument(
        "--to", metavar="DIALECT", dest="target", required=True, help="target dialect (or alias)"
    )
    parser.add_argument(
        "--model", metavar="SPEC", default="sqlglot", help="translator spec, as in parrot eval"
    )


def add_no_start(parser: argparse.ArgumentParser, then: str = "") -> None:
    """``--no-start``: use only servers already running (``then``: what happens without one)."""
    parser.add_argument(
        "--no-start",
        action="store_true",
        help="do not start the local PostgreSQL / MariaDB servers parrot manages"
        + (f" ({then})" if then else ""),
    )


def add_api_base(parser: Any, whose: str = "an") -> None:
    """``--api-base URL``: where a tool's LLM requests go (``parser``: a parser or a group)."""
    parser.add_argument(
        "--api-base",
        default=None,
        metavar="URL",
        help=f"{whose} OpenAI-compatible endpoint, e.g. http://127.0.0.1:8000/v1",
    )


def add_model_args(parser: argparse.ArgumentParser) -> None:
    """The ``--model-args`` flag (read by :func:`parse_with_model_args`)."""
    parser.add_argument(
        "--model-args",
        default="",
        metavar="K=V,…",
        help="translator parameters as K=V pairs, e.g. temperature=0.2,"
        "max_tokens=512,hints=false (the LLM flags below; explicit flags "
        "win)",
    )
