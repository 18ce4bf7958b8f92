"""A misspelt engine name in a difference marker is a collection error (as in ibis)."""

import pytest

pytest_plugins = ["pytester"]

CONFTEST = "from difference_markers import pytest_collection_modifyitems, pytest_configure\n"


@pytest.fixture(autouse=True)
def _no_plugins(monkeypatch):
    """The inner sessions load no installed plugins (loading them takes seconds)."""
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")


@pytest.mark.parametrize(
    ("marker", "error"),
    [
        ('notimpl(["sqlit"], reason="x")', "notimpl names unknown engine 'sqlit'"),
        ('notyet(["duckdb", "postgress"])', "notyet names unknown engine 'postgress'"),
        ('broken("sqlite")', "broken needs a list of engine names"),
        ("notimpl()", "notimpl needs a list of engine names"),
    ],
)
def test_misspelt_engine_names_fail_collection(pytester, marker, error):
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(f"import pytest\n\n@pytest.mark.{marker}\ndef test_x():\n    pass\n")
    result = pytester.runpytest("-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*{error}*"])


def test_known_names_collect(pytester):
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(
        'import pytest\n\n@pytest.mark.notimpl(["sqlite", "mysql", "hive"])\n'
        "def test_x():\n    pass\n"
    )
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=1)
