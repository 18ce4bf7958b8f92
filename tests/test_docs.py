"""The README and docs/ against the code: CI's README commands, the generated CLI reference, and
every flag the prose attributes to a parrot command."""

from __future__ import annotations

import re
import shlex
import sys
from pathlib import Path
from types import ModuleType

import pytest

from tests.script_modules import SCRIPTS, load_script

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def _script(name: str) -> ModuleType:
    return load_script(SCRIPTS / f"{name}.py")


readme_commands = _script("readme_commands")
gen_cli_docs = _script("gen_cli_docs")


# --- the README's two commands, which .ci/run reads and runs in a fresh venv ---------------------


def test_readme_marks_the_main_job_and_the_tests_for_ci() -> None:
    commands = readme_commands.readme_commands((ROOT / "README.md").read_text(encoding="utf-8"))
    assert "python -m parrot.eval" in commands["main-job"]
    assert "python -m pytest" in commands["tests"]
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    for name in ("main-job", "tests"):
        assert f"scripts/readme_commands.py {name}" in ci
    assert "-m venv" in ci


def test_a_command_is_the_fenced_block_after_its_marker_without_comments() -> None:
    text = (
        "intro\n<!-- command:job -->\n\n```bash\n# what it does\npip install -e . \\\n"
        "  && run it\n```\n"
    )
    assert readme_commands.readme_commands(text) == {"job": "pip install -e . \\\n  && run it"}


@pytest.mark.parametrize(
    "text, error",
    [
        ("<!-- command:job -->\nprose, no block\n", "no fenced block"),
        ("<!-- command:job -->\n```bash\n# only a comment\n```\n", "is empty"),
        ("<!-- command:job -->\n```bash\nrun\n", "not closed"),
        ("<!-- command:a -->\n```\nx\n```\n<!-- command:a -->\n```\ny\n```\n", "marked twice"),
    ],
)
def test_a_broken_marker_is_an_error_not_a_silent_skip(text: str, error: str) -> None:
    with pytest.raises(ValueError, match=error):
        readme_commands.readme_commands(text)


def test_the_command_line_names_a_missing_command_with_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    readme = tmp_path / "README.md"
    readme.write_text("<!-- command:job -->\n```\nrun\n```\n", encoding="utf-8")
    assert readme_commands.main(["--readme", str(readme), "job"]) == 0
    assert capsys.readouterr().out == "run\n"
    assert readme_commands.main(["--readme", str(readme), "other"]) == 2
    assert "no command 'other'" in capsys.readouterr().err


# --- docs/cli.md, generated from the parsers ------------------------------------------------------


@pytest.mark.skipif(
    sys.version_info[:2] != (3, 11),
    reason="argparse lays out --help differently in each Python minor version; "
    "docs/cli.md is generated with Python 3.11",
)
def test_the_cli_reference_is_current() -> None:
    assert gen_cli_docs.main(["--check"]) == 0, "run: python scripts/gen_cli_docs.py"


def test_the_cli_reference_covers_every_subcommand() -> None:
    import parrot.cli

    paths = [path for path, _ in gen_cli_docs.iter_parsers()]
    assert paths[0] == "parrot"
    for name in parrot.cli.COMMANDS:
        assert f"parrot {name}" in paths
    assert "parrot testsuite build" in paths  # a subcommand's own subcommands too


# --- flags named in README and docs --------------------------------------------------------------

FENCED = re.compile(r"^(```|~~~)[^\n]*\n(.*?)^\1\s*$", re.S | re.M)
SPAN = re.compile(r"`([^`\n]+)`")
PROMPT = re.compile(r"^\s*(?:\$\s+|[A-Z_]+=\S+\s+)*")
COMMAND = re.compile(r"(?:^|\s|\|\s*)(parrot(?:-eval|-report)?|python -m parrot(?:\.\w+)?)(?=\s|$)")
FLAG = re.compile(r"(?:^|\s|\[)(--?[a-zA-Z][\w-]*)")


def parser_flags() -> dict[str, set[str]]:
    return {
        path: {option for action in parser._actions for option in action.option_strings}
        for path, parser in gen_cli_docs.iter_parsers()
    }


def _command_path(words: list[str], flags: dict[str, set[str]]) -> tuple[str, list[str]] | None:
    """(``parrot X Y``, the words after it) for a command line, or None when it names no parser
    (``python -m parrot.check.fidelity`` is a module, not a subcommand)."""
    head = words[0]
    if head.startswith("parrot-"):
        path, rest = "parrot " + head.split("-", 1)[1], words[1:]
    elif head == "python":  # python -m parrot[.X]
        module = words[2].split(".")
        if len(module) > 2:
            return None
        path, rest = " ".join(module), words[3:]
    else:
        path, rest = "parrot", words[1:]
    if path == "parrot" and rest and f"parrot {rest[0]}" in flags:
        path, rest = f"parrot {rest[0]}", rest[1:]
    while rest and f"{path} {rest[0]}" in flags:
        path, rest = f"{path} {rest[0]}", rest[1:]
    return (path, rest) if path in flags else None


def _commands(text: str) -> list[str]:
    """Every parrot command line in a Markdown text: fenced lines (continuations joined,
    comments dropped) and inline code spans."""
    found: list[str] = []
    for match in FENCED.finditer(text):
        for line in match.group(2).replace("\\\n", " ").splitlines():
            found.append(line.split(" #", 1)[0])
    prose = FENCED.sub("", text)
    found += SPAN.findall(prose)
    commands = []
    for line in found:
        located = COMMAND.search(line)
        if located:
            commands.append(line[located.start(1) :])
    return commands


def unknown_flags(text: str, flags: dict[str, set[str]]) -> list[str]:
    """``parrot X: --flag`` for each flag a command line in ``text`` gives a parser lacking it."""
    problems: list[str] = []
    for command in _commands(text):
        try:
            words = shlex.split(PROMPT.sub("", command).split("|")[0].split("&&")[0])
        except ValueError:  # an unclosed quote in an abridged example
            words = PROMPT.sub("", command).split()
        if not words or (words[0] == "python" and len(words) < 3):
            continue
        resolved = _command_path(words, flags)
        if resolved is None:
            continue
        path, rest = resolved
        for word in rest:
            flag = FLAG.match(word)
            if flag and flag.group(1).split("=")[0] not in flags[path]:
                problems.append(f"{path}: {flag.group(1).split('=')[0]}")
    return problems


def test_the_flag_check_finds_a_flag_no_parser_has() -> None:
    flags = parser_flags()
    text = (
        "Run `parrot eval --model sqlglot --no-such-flag` or\n\n```bash\n"
        "python -m parrot.testsuite build starter \\\n  --max-dbs 8 --bogus 1  # comment --x\n"
        "$ parrot translate --from sqlite --to duckdb -q -\n```\n"
    )
    assert sorted(unknown_flags(text, flags)) == [
        "parrot eval: --no-such-flag",
        "parrot testsuite build: --bogus",
        "parrot translate: -q",
    ]


@pytest.mark.parametrize("page", DOCS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_docs_name_only_flags_that_a_parser_has(page: Path) -> None:
    assert unknown_flags(page.read_text(encoding="utf-8"), parser_flags()) == []


# --- links between the pages ---------------------------------------------------------------------

LINK = re.compile(r"\]\(([^)\s]+)\)")


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation but ``-`` and ``_`` dropped."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower().replace("`", ""))
    return text.replace(" ", "-")


def _anchors(page: Path) -> set[str]:
    text = FENCED.sub("", page.read_text(encoding="utf-8"))
    return {_slug(line.lstrip("#")) for line in text.splitlines() if line.startswith("#")}


def test_slugs_follow_github() -> None:
    assert _slug("Syntax checks without an engine (Acc_SYN)") == (
        "syntax-checks-without-an-engine-acc_syn"
    )
    assert _slug("Your own SQL: `parrot translate`") == "your-own-sql-parrot-translate"


@pytest.mark.parametrize("page", DOCS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_links_between_pages_reach_a_file_and_heading(page: Path) -> None:
    broken = []
    for target in LINK.findall(FENCED.sub("", page.read_text(encoding="utf-8"))):
        if re.match(r"[a-z]+:", target):
            continue  # https:, mailto:
        path, _, anchor = target.partition("#")
        file = (page.parent / path).resolve() if path else page
        if not file.exists():
            broken.append(f"{target}: no file {path}")
        elif anchor and file.suffix == ".md" and anchor not in _anchors(file):
            broken.append(f"{target}: no heading #{anchor} in {file.name}")
    assert broken == []
