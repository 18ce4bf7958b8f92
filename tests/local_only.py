"""Helpers of the tests that run on this machine alone: local engines present, no network."""

from __future__ import annotations

import socket

import pytest

from parrot.connect import create_engine

LOOPBACK = ("127.0.0.1", "localhost", "::1")


def engines_or_skip(*dialects: str) -> None:
    """Skip the test unless an engine of each dialect opens here (default: sqlite and duckdb)."""
    for dialect in dialects or ("sqlite", "duckdb"):
        try:
            create_engine(dialect).close()
        except Exception as exc:
            pytest.skip(f"{dialect} engine unavailable: {exc}")


def forbid_network(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any socket connection beyond the loopback fails (OSError) for the rest of the test."""
    real_connect = socket.socket.connect

    def no_network(self: socket.socket, address: object) -> None:
        host = address[0] if isinstance(address, tuple) else str(address)
        if host not in LOOPBACK:
            raise OSError(f"network access to {host} in an offline test")
        real_connect(self, address)

    monkeypatch.setattr(socket.socket, "connect", no_network)
