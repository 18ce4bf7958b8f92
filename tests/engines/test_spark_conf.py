"""The Spark driver's configuration (no JVM needed): heap and collector settings (issue 31)."""

from __future__ import annotations

import pytest

from parrot.engines import spark as sp


def _java_options(monkeypatch: pytest.MonkeyPatch, value: str | None) -> list[str]:
    if value is None:
        monkeypatch.delenv("PARROT_SPARK_JAVA_OPTIONS", raising=False)
    else:
        monkeypatch.setenv("PARROT_SPARK_JAVA_OPTIONS", value)
    return sp.driver_conf("/r", "/r/log4j2.properties")["spark.driver.extraJavaOptions"].split()


def test_the_driver_jvm_is_lean_unless_told_otherwise(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    default = _java_options(monkeypatch, None)
    assert {"-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"} <= set(default)
    chosen = _java_options(monkeypatch, "-XX:+UseSerialGC -XX:MaxHeapFreeRatio=30")
    assert chosen[-2:] == ["-XX:+UseSerialGC", "-XX:MaxHeapFreeRatio=30"]
    assert "-Djava.io.tmpdir=/r/tmp" in _java_options(monkeypatch, "")


def test_the_driver_heap_is_1g_at_most_unless_told_otherwise(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("PARROT_SPARK_MEMORY", raising=False)
    assert sp.driver_conf("/r", "/r/l")["spark.driver.memory"] == "1g"
    monkeypatch.setenv("PARROT_SPARK_MEMORY", "2g")
    assert sp.driver_conf("/r", "/r/l")["spark.driver.memory"] == "2g"
