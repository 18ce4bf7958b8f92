"""Which functions in parrot/ would be over 80 lines once ``ruff format`` has run.

    python scripts/check_format_ready.py [--repo DIR]

``ruff format`` lays long calls out one argument a line, so a function that fits today can
outgrow the 80-line rule of tests/test_layers.py after the formatter's commit. This copies the
tree's parrot/, tests/test_layers.py and pyproject.toml to a scratch directory, formats the copy
(the tree itself is never touched), and asks test_layers' own rule which functions are too long
there. It prints one ``path:function`` a line and exits 1 when there is any, 0 otherwise.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# run inside the formatted copy: test_layers reads the parrot it imports, which is the copy's
PROBE = (
    "import sys; sys.path.insert(0, 'tests'); import test_layers; "
    "print('\\n'.join(test_layers._long_functions()))"
)


def _copy(repo: Path, scratch: Path) -> None:
    """The parts of the tree the check reads: the package, the rule and the formatter's config."""
    skip = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(repo / "parrot", scratch / "parrot", ignore=skip)
    (scratch / "tests").mkdir()
    shutil.copy2(repo / "tests" / "test_layers.py", scratch / "tests" / "test_layers.py")
    shutil.copy2(repo / "pyproject.toml", scratch / "pyproject.toml")


def long_after_format(repo: Path) -> list[str]:
    """``path:function`` for each function of ``repo``'s parrot/ over 80 lines once formatted."""
    with tempfile.TemporaryDirectory(prefix="fmtcheck-") as name:
        scratch = Path(name)
        _copy(repo, scratch)
        subprocess.run(["ruff", "format", "--quiet", "parrot"], cwd=scratch, check=True)
        # the caller's environment, less a PYTHONPATH that would shadow the copy's parrot
        env = {**os.environ, "PYTHONPATH": str(scratch)}
        probe = subprocess.run(
            [sys.executable, "-c", PROBE],
            cwd=scratch,
            env=env,
            check=True,
            capture_output=True,
            text=True,
        )
    return [line for line in probe.stdout.splitlines() if line]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--repo",
        type=Path,
        default=ROOT,
        help="the checkout to check (default: the one this script is in)",
    )
    args = parser.parse_args(argv)
    found = long_after_format(args.repo)
    for entry in found:
        print(entry)
    print(f"{len(found)} function(s) over 80 lines after ruff format", file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
