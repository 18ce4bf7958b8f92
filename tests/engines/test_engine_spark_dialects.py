"""``hive`` and ``databricks`` run on local Spark with their own session settings, labelled so."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from engine_fixtures import SHOP, SPARK_VARIANTS

from parrot import dialects
from parrot.connect import create_engine
from parrot.engines import Engine, ExecStatus, engine_name_for
from parrot.engines import spark as sp

pytestmark = pytest.mark.spark


@pytest.mark.parametrize(
    ("alias", "engine"),
    [("hiveql", "hive"), ("Hive", "hive"), ("databricks", "databricks"), ("spark2", "spark")],
)
def test_spark_family_dialects_have_an_engine(alias: str, engine: str) -> None:
    assert engine_name_for(dialects.resolve(alias)) == engine


@pytest.fixture(scope="module", params=("spark", *SPARK_VARIANTS))
def variant(request: pytest.FixtureRequest) -> Iterator[Engine]:
    if sp.SparkEngine.available() is not None:
        pytest.skip(f"Spark is not available: {sp.INSTALL_HINT}")
    with create_engine(request.param) as engine:
        yield engine


# ANSI mode: Spark and Databricks raise errors where Hive semantics give NULL
@pytest.mark.parametrize(
    "sql", ["SELECT 1 / 0", "SELECT CAST('x' AS INT)", "SELECT 2147483647 + CAST(1 AS INT)"]
)
def test_ansi_errors_only_outside_hive(variant: Engine, sql: str) -> None:
    run = variant.execute(sql, SHOP)
    if variant.dialect == "hive":
        assert run.ok and run.result.rows[0][0] in (None, -2147483648), run.error
    else:
        assert run.status is ExecStatus.RUNTIME_ERROR


def test_labels_say_spark_answered(variant: Engine) -> None:
    assert variant.label.startswith(f"{variant.dialect} (Spark {variant.version()} local")
    assert ("ANSI off" in variant.label) == (variant.dialect == "hive")


def test_fixtures_answer_the_same_under_every_variant(variant: Engine) -> None:
    run = variant.execute("SELECT count(*) FROM customers", SHOP)
    assert run.ok and run.result.rows == ((len(SHOP.table("customers").rows),),)


def test_reset_keeps_the_dialect_settings(variant: Engine) -> None:
    run = variant.execute("RESET; SELECT 1 / 0", SHOP)
    if variant.dialect == "hive":
        assert run.ok and run.result.rows == ((None,),), run.error
    else:
        assert run.status is ExecStatus.RUNTIME_ERROR
