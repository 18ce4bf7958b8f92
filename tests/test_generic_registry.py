"""The generic registry: registration, lazy built-ins, entry points, clear errors."""

from importlib.metadata import EntryPoint

import pytest

from parrot.compare import Mode
from parrot.engines import ENGINE_REGISTRY, UnknownEngineError, engine_class
from parrot.registry import Registry, RegistryError
from parrot.report.metrics import COMPARISON_MODES, MODES


def test_register_add_and_lookup():
    reg: Registry[int] = Registry("number")
    reg.add("one", 1)
    reg.register("two")(2)
    assert reg.get("two") == 2 and "one" in reg and list(reg) == ["one", "two"]
    with pytest.raises(ValueError, match="registered twice"):
        reg.add("one", 11)
    with pytest.raises(RegistryError, match=r"unknown number 'three' \(available: one, two\)"):
        reg.get("three")


def test_builtins_import_only_when_asked_for():
    reg: Registry[object] = Registry("codec", builtin={"json": "json:dumps"})
    assert "json" in reg and reg.loaded() == {}
    import json

    assert reg.get("json") is json.dumps


def test_entry_points_are_checked(monkeypatch):
    reg: Registry[type] = Registry(
        "thing", group="parrot.things", expects="a class", check=lambda o: isinstance(o, type)
    )
    points = {
        "good": EntryPoint("good", "collections:OrderedDict", "parrot.things"),
        "bad": EntryPoint("bad", "json:dumps", "parrot.things"),
    }
    monkeypatch.setattr(reg, "plugins", lambda: points)
    assert reg.names() == ["bad", "good"]
    from collections import OrderedDict

    assert reg.get("good") is OrderedDict
    with pytest.raises(RegistryError, match=r"thing 'bad' .* is not a class"):
        reg.get("bad")


def test_engines_and_servers_are_registries():
    assert engine_class("sqlite").dialect == "sqlite"
    with pytest.raises(UnknownEngineError, match="no engine named 'sqlit'"):
        engine_class("sqlit")
    assert "duckdb" in ENGINE_REGISTRY and ENGINE_REGISTRY.loaded()["sqlite"].dialect == "sqlite"


def test_a_dialect_is_one_class():
    from parrot import dialects

    class Vertica(dialects.Dialect):
        key, label, aliases = "vertica_test", "Vertica (test)", ("vsql_test",)

    try:
        assert dialects.get("VSQL_TEST") is Vertica and dialects.resolve("vertica (test)")
    finally:
        del dialects.DIALECTS["vertica_test"]
        for name in [n for n, k in dialects.ALIASES.items() if k == "vertica_test"]:
            del dialects.ALIASES[name]


def test_every_comparison_mode_has_a_profile():
    assert tuple(m.value for m in Mode) == MODES
    assert all(COMPARISON_MODES.get(m.value).mode is m for m in Mode)
