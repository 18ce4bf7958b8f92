"""Joining a Ray cluster: a transient failure of the head's client proxy (CI, 2026-12-06: "Starting
Ray client server failed") is tried again; a lasting one is a clear ExecutorError."""

from __future__ import annotations

from typing import Any

import pytest

from parrot.scale import ExecutorError, cluster

ray = pytest.importorskip("ray", reason="ray not installed: pip install -e '.[ray]'")

PROXY_FAILED = RuntimeError("Starting Ray client server failed. See ray_client_server_23000.err")
REFUSED = ConnectionError("ray client connection timeout")
MISMATCH = RuntimeError("Version mismatch: the client has Python 3.11, the server 3.12")


def _join(monkeypatch: pytest.MonkeyPatch, *outcomes: BaseException | None) -> int:
    """``connect`` with ``ray.init`` raising each of ``outcomes`` in turn (None: it works);
    the number of ``ray.init`` calls made."""
    planned = list(outcomes)
    calls: list[dict[str, Any]] = []

    def fake_init(**kwargs: Any) -> None:
        calls.append(kwargs)
        outcome = planned.pop(0) if planned else None
        if outcome is not None:
            raise outcome

    monkeypatch.setattr(ray, "init", fake_init)
    monkeypatch.setattr(ray, "is_initialized", lambda: False)
    monkeypatch.setattr(ray, "shutdown", lambda: None)
    monkeypatch.setattr(cluster, "JOIN_WAIT_SECONDS", 0.0)
    cluster.connect("ray://127.0.0.1:1")
    return len(calls)


@pytest.mark.parametrize("transient", [PROXY_FAILED, REFUSED], ids=["proxy", "refused"])
def test_a_transient_failure_is_tried_again(
    monkeypatch: pytest.MonkeyPatch, transient: BaseException
) -> None:
    assert _join(monkeypatch, transient, None) == 2


def test_a_lasting_transient_failure_stops_after_the_attempts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with pytest.raises(ExecutorError, match=r"cannot join the Ray cluster.*client server failed"):
        _join(monkeypatch, *[PROXY_FAILED] * cluster.JOIN_ATTEMPTS)


def test_a_lasting_failure_is_not_tried_again(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ExecutorError, match="Version mismatch"):
        _join(monkeypatch, MISMATCH, None)
