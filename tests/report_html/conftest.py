"""Run directories made by real evaluations (sqlglot, identity, reference on a slice of the
starter set), their HTML pages, and a headless Chromium for the browser tests."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from eval_runs import echo, run_served

from parrot.eval.cli import main as eval_main

SLICE = "48"  # the first 48 starter items: every pair, several failure reasons
MODELS = ("sqlglot", "identity", "reference")


@pytest.fixture(scope="session")
def run_dirs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("html-runs")
    dirs = {}
    for model in MODELS:
        out = base / model
        assert (
            eval_main(["--quiet", "--model", model, "--limit", SLICE, "--output-dir", str(out)])
            == 0
        )
        dirs[model] = out
    return dirs


@pytest.fixture(scope="session")
def browser():
    """Headless Chromium through Selenium; skips when either is absent."""
    webdriver = pytest.importorskip(
        "selenium.webdriver", reason="selenium not installed (pip install -e '.[dev]')"
    )
    driver_path = shutil.which("chromedriver")
    if driver_path is None or not (shutil.which("chromium") or shutil.which("chromium-browser")):
        pytest.skip("Chromium absent: apt-get install -y chromium chromium-driver")
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    for arg in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--window-size=1400,1800",
    ):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(options=options, service=Service(driver_path))
    yield driver
    driver.quit()


@pytest.fixture(scope="session")
def llm_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A run of the LLM translator against parrot's scripted OpenAI-compatible server, which
    answers every item with its source SQL as JSON (so records carry raw answers, reasoning,
    token counts and cost)."""
    from parrot.translators.llm.scripted_server import ScriptedServer

    out = tmp_path_factory.mktemp("html-llm") / "run"
    mp = pytest.MonkeyPatch()
    mp.setenv("OPENAI_API_KEY", "sk-parrot-test")
    try:
        with ScriptedServer(echo("the source runs unchanged")) as server:
            assert run_served(server.url, out, "--limit", "6") == 0
    finally:
        mp.undo()
    return out
