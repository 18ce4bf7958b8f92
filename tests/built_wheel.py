"""The names in parrot's wheel, built from this checkout (the packaging tests)."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def wheel_names(out: Path) -> set[str]:
    """Every name in the wheel ``pip wheel`` builds from the checkout into ``out``; the test
    is skipped where no wheel can be built."""
    build = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", str(REPO), "--no-deps", "-w", str(out), "-q"],
        capture_output=True,
        text=True,
    )
    if build.returncode != 0:
        pytest.skip(f"wheel build unavailable here: {build.stderr.strip()[-300:]}")
    (wheel,) = out.glob("*.whl")
    return set(zipfile.ZipFile(wheel).namelist())
