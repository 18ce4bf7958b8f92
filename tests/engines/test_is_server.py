"""Which engines are servers reached by URL: one method answers it everywhere."""

from __future__ import annotations

import pytest

from parrot.engines import ENGINE_REGISTRY, engine_class

EMBEDDED = ["sqlite", "duckdb", "clickhouse"]
SERVERS = ["postgres", "mysql"]


@pytest.mark.parametrize("name", EMBEDDED + SERVERS)
def test_is_server_tells_embedded_engines_from_servers(name: str) -> None:
    if name not in ENGINE_REGISTRY:
        pytest.skip(f"{name}: no adapter registered in this install")
    cls = engine_class(name)
    assert cls.is_server() is (name in SERVERS)
    assert cls.is_server() is (cls.url_schemes is not None)
