import json
import random

import pytest

from parrot.datasets import item_from_record
from parrot.translators import TranslationStatus, UnknownTranslatorError, create_translator
from parrot.translators.predictions import PredictionsFileError


def item(i, src="sqlite", tgt="duckdb", sql="SELECT 1", ref=("SELECT 2",)):
    return item_from_record(
        {
            "id": i,
            "source_dialect": src,
            "target_dialect": tgt,
            "source_sql": sql,
            "reference_sql": list(ref),
        }
    )


def test_identity_and_reference():
    it = item("a", sql="SELECT x FROM t", ref=("SELECT y FROM t", "SELECT z FROM t"))
    assert create_translator("identity").translate(it).sql == "SELECT x FROM t"
    assert create_translator("reference").translate(it).sql == "SELECT y FROM t"
    missing = create_translator("reference").translate(item("b", ref=()))
    assert missing.status is TranslationStatus.NO_REFERENCE


def test_sqlglot_translates_and_types_its_failures():
    t = create_translator("sqlglot")
    ok = t.translate(item("a", src="sqlite", tgt="clickhouse", sql="SELECT IFNULL(a, 0) FROM t"))
    assert ok.status is TranslationStatus.OK and "COALESCE" in ok.sql.upper()
    unsupported = t.translate(
        item("b", src="postgres", tgt="sqlite", sql="SELECT a FROM t FOR UPDATE")
    )
    assert unsupported.status is TranslationStatus.UNSUPPORTED
    assert unsupported.sql is None  # never the source passed through
    broken = t.translate(item("c", sql="SELECT (1"))
    assert broken.status is TranslationStatus.ERROR and broken.sql is None
    assert t.params()["unsupported_level"] == "raise"


def test_a_crash_inside_sqlglot_is_an_error_of_that_item_not_of_the_run():
    # sqlglot's T-SQL generator raises AttributeError on a named window's ordered keys
    crashed = create_translator("sqlglot").translate(
        item(
            "w",
            src="clickhouse",
            tgt="tsql",
            sql="SELECT id, lagInFrame(c) OVER w AS p FROM t WINDOW w AS (PARTITION BY k "
            "ORDER BY d ASC ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)",
        )
    )
    assert crashed.status is TranslationStatus.ERROR and crashed.sql is None
    assert crashed.error.startswith("sqlglot failed: AttributeError")


def test_unknown_model_lists_available():
    with pytest.raises(UnknownTranslatorError, match=r"available: .*sqlglot"):
        create_translator("gpt-17")


def _parrot_submission(items, sql_for):
    return [
        {
            "id": i.id,
            "source_dialect": i.source_dialect,
            "source_sql": i.source_sql,
            "target_dialect": i.target_dialect,
            "translated_sql": sql_for(i),
        }
        for i in items
    ]


def test_predictions_matched_by_id_not_position(tmp_path):
    items = [item(f"q{n}", sql=f"SELECT {n}") for n in range(20)]
    records = _parrot_submission(items, lambda i: i.source_sql.replace("SELECT", "SELECT -"))
    random.Random(7).shuffle(records)
    path = tmp_path / "preds.json"
    path.write_text(json.dumps(records))
    t = create_translator(f"file:{path}")
    for it in items:
        assert t.translate(it).sql == it.source_sql.replace("SELECT", "SELECT -")


def test_predictions_report_missing_and_unknown_ids(tmp_path):
    items = [item("a"), item("b"), item("c")]
    path = tmp_path / "preds.jsonl"
    path.write_text(
        "\n".join(json.dumps({"id": i, "translated_sql": "SELECT 1"}) for i in ("a", "b", "zz"))
    )
    t = create_translator(f"file:{path}")
    warnings = t.check_items(items)
    assert any("1 item(s) have no prediction" in w and "c" in w for w in warnings)
    assert any("1 prediction id(s)" in w and "zz" in w for w in warnings)
    assert t.translate(items[2]).status is TranslationStatus.MISSING


def test_prediction_for_another_dialect_pair_is_an_error(tmp_path):
    path = tmp_path / "preds.json"
    path.write_text(
        json.dumps(
            [
                {
                    "id": "a",
                    "source_dialect": "sqlite",
                    "target_dialect": "PostgreSQL",
                    "translated_sql": "SELECT 1",
                }
            ]
        )
    )
    got = create_translator(f"file:{path}").translate(item("a", tgt="duckdb"))
    assert got.status is TranslationStatus.ERROR and "target_dialect" in got.error


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        ('[{"id": "a", "translated_sql": "x"}, {"id": "a", "translated_sql": "y"}]', "duplicate"),
        ('[{"translated_sql": "x"}]', "with an 'id'"),
        ('{"id": "a"}\n', "no 'translated_sql'"),
        ('{"id": "a", "translated_sql": "x"}\n{oops\n', ":2: invalid JSON"),
    ],
)
def test_bad_predictions_file(tmp_path, content, reason):
    path = tmp_path / "p.jsonl"
    path.write_text(content)
    with pytest.raises(PredictionsFileError, match=reason):
        create_translator(f"file:{path}")
