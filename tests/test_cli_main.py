"""The ``parrot`` command: dispatch to the tools, --version, shared flag names, help defaults."""

from __future__ import annotations

import argparse
import importlib
import io
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from eval_runs import run_eval
from processes import run_python

from parrot import __version__, cli

ROOT = Path(__file__).resolve().parent.parent


HANDLERS = {  # subcommand argv -> (module, its handler)
    ("eval", "--model", "sqlglot"): ("parrot.eval.cli", "evaluate"),
    ("report", "run"): ("parrot.report.cli", "report"),
    ("curate",): ("parrot.curate.cli", "curate"),
    ("curate", "review", "f.jsonl", "-o", "d"): ("parrot.curate.review", "review"),
    ("curate", "rules", "check"): ("parrot.curate.rules", "rules_command"),
    ("check", "-d", "sqlite"): ("parrot.check.cli", "check"),
    ("migrate", "x.sqlite"): ("parrot.migrate.cli", "migrate"),
    ("engines", "status"): ("parrot.servers.cli", "engines"),
    ("translate", "--from", "mysql", "--to", "duckdb", "-"): ("parrot.translate", "translate"),
    ("testsuite", "build", "ds"): ("parrot.testsuite.cli", "main_build"),
    ("text2sql", "build", "q", "-o", "d"): ("parrot.text2sql.build", "build_command"),
    ("text2sql", "align", "ds", "-o", "d"): ("parrot.text2sql.align", "run"),
    ("text2sql", "taxonomy", "run"): ("parrot.text2sql.taxonomy", "run"),
}


@pytest.mark.parametrize("argv", list(HANDLERS))
def test_one_parse_of_the_tree_runs_the_subcommands_handler(monkeypatch, argv):
    module, name = HANDLERS[argv]
    seen = []
    monkeypatch.setattr(importlib.import_module(module), name, lambda args: seen.append(args) or 7)
    assert cli.main(list(argv)) == 7
    assert len(seen) == 1
    words = len(argv) - len(seen[0].argv)  # the subcommand's own words, then its arguments
    assert seen[0].argv == list(argv[words:])
    assert seen[0]._parser.prog == " ".join(["parrot", *argv[:words]])


def test_the_tree_has_every_subcommand_filled():
    tree = cli.build_parser()
    subparsers = next(a for a in tree._actions if isinstance(a, argparse._SubParsersAction))
    assert list(subparsers.choices) == list(cli.COMMANDS)
    for name, parser in subparsers.choices.items():
        assert parser.prog == f"parrot {name}"
        assert len(parser._actions) > 1, name  # more than -h: filled by the module


def test_unknown_subcommand_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as exc:
        cli.main(["evaluate"])
    assert exc.value.code == 2
    assert "invalid choice" in capsys.readouterr().err


@pytest.mark.parametrize("entry", [["parrot", "check"], ["parrot.check"]])
def test_python_dash_m_parrot_and_the_old_entry_points_agree(entry):
    run = run_python("-m", *entry, "-d", "sqlite", "-", input="SELECT 1", cwd=ROOT, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout == "1/1 statements parse as sqlite; 0 failed\n"


def test_version_prints_package_version_and_git_commit():
    run = run_python("-m", "parrot", "--version", cwd=ROOT, timeout=120)
    assert run.returncode == 0
    match = re.fullmatch(rf"parrot {re.escape(__version__)} \(commit (\S+)\)\n", run.stdout)
    assert match, run.stdout
    if (ROOT / ".git").exists() and shutil.which("git"):
        head = subprocess.run(
            ["git", "-C", str(ROOT), "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        assert head.startswith(match.group(1).removesuffix("-dirty"))


def test_version_outside_a_checkout_is_unknown(tmp_path):
    assert cli.git_commit(tmp_path) == "unknown"


def test_version_of_a_built_package_is_the_commit_baked_by_setup_py(tmp_path):
    (tmp_path / "parrot").mkdir()
    (tmp_path / "parrot" / "_commit.txt").write_text("0123456789ab\n", encoding="utf-8")
    assert cli.git_commit(tmp_path) == "0123456789ab"


def _parsers() -> dict[str, argparse.ArgumentParser]:
    from parrot.check.cli import build_parser as check
    from parrot.curate.cli import build_parser as curate
    from parrot.eval.cli import build_parser as eval_
    from parrot.migrate.cli import build_parser as migrate
    from parrot.report.cli import build_parser as report
    from parrot.servers.cli import build_parser as engines
    from parrot.translate import build_parser as translate

    review = cli.build_parser().parse_args(["curate", "review", "f", "-o", "d"])._parser
    return {
        "eval": eval_(),
        "report": report(),
        "curate": curate(),
        "review": review,
        "check": check(),
        "migrate": migrate(),
        "engines": engines(),
        "translate": translate(),
        "parrot": cli.build_parser(),
    }


@pytest.mark.parametrize(
    ("parser", "argv", "dest", "value"),
    [
        ("eval", ["--model", "x", "--output-dir", "d"], "output_dir", Path("d")),
        ("eval", ["--model", "x", "--limit", "3"], "limit", 3),
        ("curate", ["--output-dir", "d"], "out", Path("d")),
        ("curate", ["--out", "d"], "out", Path("d")),
        ("curate", ["--limit", "5"], "input_limit", 5),  # first N inputs, as everywhere
        ("curate", ["--input-limit", "5"], "input_limit", 5),
        ("curate", ["--keep", "40"], "limit", 40),  # coverage selection's size
        ("review", ["f.jsonl", "--output-dir", "d"], "out", Path("d")),
        ("review", ["f.jsonl", "--out", "d"], "out", Path("d")),
        ("translate", ["--from", "mysql", "--to", "duckdb", "-", "-o", "x.sql"], "output", "x.sql"),
        ("translate", ["--from", "mysql", "--to", "duckdb", "-"], "model", "sqlglot"),
    ],
)
def test_shared_flag_names_and_their_old_spellings(parser, argv, dest, value):
    assert getattr(_parsers()[parser].parse_args(argv), dest) == value


@pytest.mark.parametrize(
    "name", ["eval", "report", "curate", "review", "check", "migrate", "engines", "translate"]
)
def test_every_flag_help_states_its_default(name):
    parser = _parsers()[name]
    formatter = parser._get_formatter()
    for action in parser._actions:
        if not action.option_strings or action.required or action.default is argparse.SUPPRESS:
            continue
        text = formatter._get_help_string(action)  # type: ignore[attr-defined]
        assert "default" in text, (name, action.option_strings, text)


@pytest.mark.parametrize(
    ("model_args", "flags"),
    [
        ("temperature=0.2", ["--temperature", "0.2"]),
        ("max_tokens=512,hints=false", ["--max-tokens", "512", "--no-hints"]),
        ("schema=true,no_cache=1", ["--prompt-schema", "--no-cache"]),
        ("price=2.5,10,shots=0", ["--price", "2.5,10", "--shots", "0"]),
        ("api-base=http://h:1/v1", ["--api-base", "http://h:1/v1"]),
    ],
)
def test_model_args_become_the_translator_flags(model_args, flags):
    from parrot.eval.cli import build_parser

    assert cli.model_args_flags(model_args, build_parser()) == flags


@pytest.mark.parametrize("model_args", ["color=red", "hints=maybe", "dataset=x"])
def test_model_args_reject_what_is_no_translator_parameter(model_args):
    from parrot.eval.cli import build_parser

    with pytest.raises(ValueError, match="--model-args"):
        cli.model_args_flags(model_args, build_parser())


def test_explicit_flags_win_over_model_args():
    from parrot.eval.cli import build_parser

    args = cli.parse_with_model_args(
        build_parser(),
        ["--model", "m", "--model-args", "temperature=0.5,shots=3", "--temperature", "0.1"],
    )
    assert (args.temperature, args.shots) == (0.1, 3)


def test_tables_are_not_cut_when_piped():
    from rich.table import Table

    buf = io.StringIO()
    console = cli.table_console(file=buf)
    table = Table("pair", *(f"column {i}" for i in range(12)))
    table.add_row("sqlite→duckdb", *(f"{i}.00" for i in range(12)))
    console.print(table)
    assert console.width == cli.PIPED_WIDTH
    assert "column 11" in buf.getvalue() and "11.00" in buf.getvalue()
    assert max(len(line) for line in buf.getvalue().splitlines()) > 80


def test_eval_says_model_args_are_ignored_by_a_translator_that_calls_no_model(tmp_path, capsys):
    sqlglot = ["--model", "sqlglot", "--limit", "1", "--pairs", "sqlite:duckdb"]
    assert run_eval(tmp_path / "run", *sqlglot, "--model-args", "temperature=0.3") == 0
    assert "--model-args are ignored" in " ".join(capsys.readouterr().err.split())
