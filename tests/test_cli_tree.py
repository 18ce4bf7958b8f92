"""The ``parrot`` argparse tree: usage lines that match how a command was called, help texts
(defaults stated once, seconds with their unit, every flag and action explained), ``-o`` of one
kind per verb, old spellings that still parse, and no litellm import for translators that call no
model."""

from __future__ import annotations

import argparse
import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from processes import run_python

from parrot import __version__, cli

ROOT = Path(__file__).resolve().parent.parent
# python -m entry points -> the subcommand words under each whose --help is checked
MODULES = {
    "parrot.eval": [[]],
    "parrot.report": [[]],
    "parrot.curate": [[], ["review"], ["rules"], ["rules", "yield"]],
    "parrot.check": [[]],
    "parrot.migrate": [[]],
    "parrot.engines": [[], ["up"], ["status"]],
    "parrot.translate": [[]],
    "parrot.testsuite": [[], ["build"]],
    "parrot.text2sql": [[], ["build"], ["align"], ["taxonomy"]],
}
COMMAND_OF = {"parrot.engines": "engines"}  # module -> its parrot subcommand, where they differ


def _leaves(parser: argparse.ArgumentParser) -> Iterator[argparse.ArgumentParser]:
    """``parser`` and every parser below it."""
    yield parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in action.choices.values():
                yield from _leaves(child)


TREE = list(_leaves(cli.build_parser()))


def _help(argv: list[str], capsys: pytest.CaptureFixture[str], prog: str = "parrot") -> str:
    with pytest.raises(SystemExit) as exc:
        cli.main([*argv, "--help"], prog=prog)
    assert exc.value.code == 0
    return capsys.readouterr().out


@pytest.mark.parametrize("prog", ["parrot", "python -m parrot"])
@pytest.mark.parametrize(
    "words", [[COMMAND_OF.get(m, m.split(".")[1]), *w] for m, ws in MODULES.items() for w in ws]
)
def test_usage_under_parrot_names_the_parrot_subcommand(capsys, prog, words):
    text = _help(words, capsys, prog)
    assert text.startswith(f"usage: {' '.join([prog, *words])} "), text[:200]


def test_usage_under_python_dash_m_names_the_module():
    """Every ``python -m parrot.X [SUB] --help`` (its real __main__), in one interpreter."""
    script = (
        "import contextlib, io, json, runpy, sys\n"
        "out = {}\n"
        "for module, words in json.loads(sys.argv[1]):\n"
        "    sys.argv = ['x', *words, '--help']\n"
        "    buf = io.StringIO()\n"
        "    with contextlib.redirect_stdout(buf):\n"
        "        try:\n"
        "            runpy.run_module(module, run_name='__main__', alter_sys=True)\n"
        "        except SystemExit as exc:\n"
        "            assert exc.code == 0, (module, words, exc.code)\n"
        "    out[' '.join([module, *words])] = buf.getvalue()\n"
        "print(json.dumps(out))\n"
    )
    cases = [[m, w] for m, ws in MODULES.items() for w in ws]
    run = run_python("-W", "ignore", "-c", script, json.dumps(cases), cwd=ROOT, timeout=300)
    assert run.returncode == 0, run.stderr
    for called, text in json.loads(run.stdout).items():
        assert text.startswith(f"usage: python -m {called} "), (called, text[:200])


@pytest.mark.parametrize("script", ["parrot-eval", "parrot-report"])
def test_the_scripts_print_their_version_and_their_own_name(script):
    module = {"parrot-eval": "parrot.eval.cli", "parrot-report": "parrot.report.cli"}[script]
    code = (
        f"import sys; sys.argv[0] = '/usr/local/bin/{script}'; "
        f"from {module} import main; sys.exit(main())"
    )
    version = run_python("-c", code, "--version", cwd=ROOT, timeout=120)
    assert version.returncode == 0, version.stderr  # was: "--model is required"
    assert version.stdout.startswith(f"parrot {__version__} (commit ")
    usage = run_python("-c", code, "--help", cwd=ROOT, timeout=120)
    assert usage.stdout.startswith(f"usage: {script} "), usage.stdout[:200]


def _help_strings() -> Iterator[tuple[str, argparse.Action, str]]:
    for parser in TREE:
        formatter = parser._get_formatter()
        for action in parser._actions:
            if isinstance(
                action, argparse._HelpAction | argparse._VersionAction | argparse._SubParsersAction
            ):
                continue
            text = formatter._get_help_string(action)  # type: ignore[attr-defined]
            yield parser.prog, action, text or ""


def test_no_help_states_a_default_twice():
    """``eval --suite`` said "Default: on when the dataset has suites (default: off)"."""
    twice = [
        (prog, a.option_strings, text)
        for prog, a, text in _help_strings()
        if text.replace("%(default)s", "").lower().count("default") > 1
    ]
    assert not twice


def test_every_flag_action_and_subcommand_has_help():
    """``testsuite --seed`` and the engines actions had none."""
    bare = [
        (prog, a.option_strings or a.dest) for prog, a, text in _help_strings() if not text.strip()
    ]
    assert not bare
    for parser in TREE:
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                assert all(c.help for c in action._choices_actions), parser.prog


def test_every_timeout_default_prints_in_seconds_with_its_unit():
    """Timeouts printed as 10 / 10.0 / 5.0."""
    seen = 0
    for prog, action, text in _help_strings():
        if any("timeout" in flag for flag in action.option_strings):
            seen += 1
            assert re.search(r"\(default: \d+(\.\d+)? s\)", text), (prog, text)
            assert action.metavar in ("SECONDS", "[DIALECT=]SECONDS"), (prog, action.metavar)
    assert seen >= 8


def test_o_is_a_folder_as_output_dir_or_a_file_as_output_and_says_which():
    kinds = {}
    for parser in TREE:
        for action in parser._actions:
            if "-o" in action.option_strings:
                kinds[parser.prog] = (action.option_strings, action.metavar)
                assert (action.option_strings, action.metavar) in (
                    (["-o", "--output-dir"], "DIR"),
                    (["-o", "--output"], "FILE"),
                ), parser.prog
                assert (action.help or "").startswith(
                    "folder to write" if action.metavar == "DIR" else "file to write"
                )
    assert kinds["parrot eval"] == (["-o", "--output-dir"], "DIR")
    assert kinds["parrot text2sql build"] == (["-o", "--output-dir"], "DIR")
    assert kinds["parrot translate"] == (["-o", "--output"], "FILE")
    assert kinds["parrot report"] == (["-o", "--output"], "FILE")
    assert kinds["parrot migrate"] == (["-o", "--output"], "FILE")


@pytest.mark.parametrize(
    ("argv", "dest", "value"),
    [
        (["curate", "--out", "d"], "out", Path("d")),
        (["curate", "--input-limit", "5"], "input_limit", 5),
        (["curate", "review", "f.jsonl", "--out", "d"], "out", Path("d")),  # was required: still is
        (["curate", "rules", "yield", "f.jsonl", "--out", "d"], "out", Path("d")),
        (["migrate", "x.sqlite", "--out", "x.json"], "out", "x.json"),
    ],
)
def test_old_spellings_parse_with_a_deprecation_warning(capsys, argv, dest, value):
    args = cli.build_parser().parse_args(argv)
    assert getattr(args, dest) == value
    assert "is deprecated: use " in capsys.readouterr().err


def test_no_metavar_is_a_python_name():
    """``--limit INPUT_LIMIT``, ``--max-rows MAX_ROWS``: a value is named for what it is."""
    named = [
        (parser.prog, action.option_strings, action.metavar or action.dest.upper())
        for parser in TREE
        for action in parser._actions
        if action.option_strings and action.nargs != 0 and action.choices is None
    ]
    assert not [case for case in named if "_" in str(case[2])]


def test_curate_metavars_are_n():
    curate = next(p for p in TREE if p.prog == "parrot curate")
    metavars = {a.option_strings[0]: a.metavar for a in curate._actions if a.option_strings}
    assert metavars["--keep"] == metavars["--limit"] == "N"


def test_curate_quiet_still_prints_its_errors(capsys):
    assert cli.main(["curate", "--quiet", "--pairs", "sqlite:duckdb", "--targets", "duckdb"]) == 2
    assert "--pairs replaces --sources/--targets" in capsys.readouterr().err


def test_model_args_go_after_the_subcommand_words(tmp_path):
    args = cli.parse_with_model_args(
        cli.build_parser(only="testsuite"),
        [
            "testsuite",
            "build",
            "ds",
            "--datagen",
            "llm:local",
            "--model-args",
            "temperature=0.5,retries=1",
            "--retries",
            "3",
        ],
    )
    assert (args.dataset, args.temperature, args.retries) == ("ds", 0.5, 3)


NO_LITELLM = (
    "import sys\nfrom parrot.cli import main\nrc = main(sys.argv[1:])\n"
    "print('litellm imported' if 'litellm' in sys.modules else 'no litellm', "
    "file=sys.stderr)\nsys.exit(rc)\n"
)


@pytest.mark.parametrize(
    "argv",
    [
        [
            "eval",
            "--model",
            "sqlglot",
            "--limit",
            "1",
            "--pairs",
            "sqlite:duckdb",
            "--quiet",
            "-o",
            "{tmp}/run",
        ],
        ["translate", "--from", "sqlite", "--to", "duckdb", "-"],
    ],
)
def test_a_translator_that_calls_no_model_never_imports_litellm(tmp_path, argv):
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    run = run_python("-c", NO_LITELLM, *argv, input="SELECT 1", cwd=ROOT, timeout=300)
    assert run.returncode == 0, run.stderr
    assert run.stderr.splitlines()[-1] == "no litellm"
    assert "loading litellm" not in run.stderr


@pytest.mark.slow  # the real import of litellm takes seconds
def test_the_litellm_import_says_so_first():
    code = (
        "import sys\nfrom parrot.translators.llm.client import _litellm\n"
        "_litellm()\nprint('litellm' in sys.modules)\n"
    )
    run = run_python("-c", code, cwd=ROOT, timeout=300)
    assert run.returncode == 0, run.stderr
    assert run.stderr.startswith("loading litellm…\n") and run.stdout == "True\n"
