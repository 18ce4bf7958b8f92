"""Bakes the git commit into built packages (``parrot --version`` outside a checkout)."""

import subprocess
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py


class BuildPyWithCommit(build_py):
    def run(self) -> None:
        super().run()
        try:
            commit = subprocess.run(
                ["git", "describe", "--always", "--dirty", "--abbrev=12", "--exclude=*"],
                capture_output=True, text=True, timeout=10, check=True,
                cwd=Path(__file__).parent).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            return
        if commit:
            Path(self.build_lib, "parrot", "_commit.txt").write_text(commit + "\n")


setup(cmdclass={"build_py": BuildPyWithCommit})
