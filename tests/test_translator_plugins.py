"""A third-party translator registered through the ``parrot.translators`` entry-point group runs
with no edit to parrot: a real installed distribution (dist-info on sys.path) is built here."""

import json

import pytest
from eval_runs import run_eval

from parrot.api.results import read_results
from parrot.translators import available, create_translator
from parrot.translators.registry import UnknownTranslatorError

PLUGIN = '''
from parrot.translators.base import Translation, Translator


class Echo(Translator):
    """Answers with the source unchanged, prefixed by a comment."""

    name = "echo"

    def translate(self, item):
        return Translation.from_sql("-- echo\\n" + item.source_sql)


NOT_A_TRANSLATOR = object()
'''


@pytest.fixture
def plugin(tmp_path, monkeypatch):
    (tmp_path / "parrot_echo.py").write_text(PLUGIN)
    info = tmp_path / "parrot_echo-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: parrot-echo\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(
        "[parrot.translators]\necho = parrot_echo:Echo\nbroken = parrot_echo:NOT_A_TRANSLATOR\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path


def test_an_entry_point_translator_is_listed_created_and_run(plugin, tmp_path):
    assert "echo" in available()
    assert create_translator("echo").params() == {"name": "echo"}
    items = tmp_path / "items.jsonl"
    items.write_text(
        json.dumps(
            {
                "id": "a",
                "source_dialect": "sqlite",
                "target_dialect": "duckdb",
                "source_sql": "SELECT 1 AS x",
            }
        )
        + "\n"
    )
    assert run_eval(tmp_path / "run", "--model", "echo", "--dataset", str(items)) == 0
    [record] = read_results(tmp_path / "run")
    assert record["verdicts"]["strict"]["match"]


def test_an_entry_point_that_is_not_a_translator_is_refused(plugin):
    with pytest.raises(UnknownTranslatorError, match="is not a Translator class"):
        create_translator("broken")
