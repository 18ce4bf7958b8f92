"""scripts/check_format_ready.py: the functions ``ruff format`` would push over 80 lines."""

import shutil
from pathlib import Path

import pytest

from tests.script_modules import SCRIPTS, load_script

ROOT = Path(__file__).resolve().parents[1]
check_format_ready = load_script(SCRIPTS / "check_format_ready.py")

pytestmark = pytest.mark.skipif(shutil.which("ruff") is None, reason="ruff is not installed")


def _repo(tmp_path: Path, calls: int) -> Path:
    """A tree whose one function holds ``calls`` calls of three arguments over 100 columns."""
    repo = tmp_path / "repo"
    (repo / "parrot").mkdir(parents=True)
    (repo / "tests").mkdir()
    shutil.copy2(ROOT / "tests" / "test_layers.py", repo / "tests" / "test_layers.py")
    shutil.copy2(ROOT / "pyproject.toml", repo / "pyproject.toml")
    body = "".join(
        f"    parser.add_argument('--flag-number-{i:03}', type=int, default={i},"
        f" help='a help text long enough to pass the line')\n"
        for i in range(calls)
    )
    (repo / "parrot" / "__init__.py").write_text(
        f'"""A package."""\n\n\ndef flags(parser):\n{body}'
    )
    return repo


def test_a_function_the_formatter_lengthens_is_named(tmp_path: Path) -> None:
    # 40 one-line calls of 108 columns today (41 lines); the formatter splits each one
    assert check_format_ready.long_after_format(_repo(tmp_path, 40)) == ["__init__.py:flags"]


def test_a_short_function_passes(tmp_path: Path) -> None:
    assert check_format_ready.long_after_format(_repo(tmp_path, 5)) == []
