import pytest

from parrot.datasets import item_from_record
from parrot.eval.cli import parse_engine_urls
from parrot.eval.runner import redact_url, servers_needed


def test_engine_urls_accept_aliases():
    assert parse_engine_urls(["PostgreSQL=postgresql://u@db:5432/x"]) == {
        "postgres": "postgresql://u@db:5432/x"
    }
    with pytest.raises(ValueError, match="expected DIALECT=URL"):
        parse_engine_urls(["mysql"])


def test_manifest_urls_never_hold_passwords():
    assert redact_url("mysql://user:s3cret@host:3306/db") == "mysql://user:***@host:3306/db"
    assert redact_url("postgresql://user@host/db") == "postgresql://user@host/db"


def test_embedded_dialects_need_no_server(monkeypatch):
    items = [
        item_from_record(
            {
                "id": "a",
                "source_dialect": "sqlite",
                "target_dialect": "ch",
                "source_sql": "SELECT 1",
            }
        )
    ]
    assert servers_needed(items, {}) == []


def test_urls_choose_the_adapter_by_scheme():
    from parrot.engines import (
        ENGINES,
        URL_SCHEMES,
        UnknownEngineError,
        engine_class,
        engine_for_url,
    )

    assert engine_for_url("pg", "postgresql+psycopg://u@h/db").name == "postgres"
    assert engine_for_url("mysql", "mariadb://u@h/").name == "mysql"
    with pytest.raises(UnknownEngineError, match="serves dialect 'postgres', not 'mysql'"):
        engine_for_url("mysql", "postgresql://u@h/db")
    with pytest.raises(UnknownEngineError, match="no engine adapter for URLs of scheme 'gopher'"):
        engine_for_url("mysql", "gopher://h/")
    for scheme, name in URL_SCHEMES.items():  # the table agrees with each adapter's own list
        assert name in ENGINES and scheme in engine_class(name).url_schemes
