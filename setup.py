"""Build hooks: bake the git commit (``parrot --version`` outside a checkout) and copy the
repository's ``datasets/`` into the package as ``parrot/_datasets/`` (wheel and sdist)."""

import shutil
import subprocess
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).parent


class BuildPyWithCommit(build_py):
    def run(self) -> None:
        super().run()
        datasets = HERE / "datasets"
        if datasets.is_dir():
            target = Path(self.build_lib, "parrot", "_datasets")
            shutil.rmtree(target, ignore_errors=True)
            shutil.copytree(datasets, target)
        try:
            commit = subprocess.run(
                ["git", "describe", "--always", "--dirty", "--abbrev=12", "--exclude=*"],
                capture_output=True, text=True, timeout=10, check=True,
                cwd=HERE).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            return
        if commit:
            Path(self.build_lib, "parrot", "_commit.txt").write_text(commit + "\n")


setup(cmdclass={"build_py": BuildPyWithCommit})
