"""Where the work of ``parrot.eval`` and ``parrot.curate`` runs: this machine or a Ray cluster.

``--executor`` takes ``local`` (worker processes here, ``--jobs``), ``ray`` (the Ray cluster this
machine belongs to: ``$RAY_ADDRESS`` or the one ``ray start`` joined), ``ray://HOST:PORT`` (a Ray
cluster's client server, port 10001 by default), ``ray:HOST:PORT`` (its GCS address, from a
machine of the cluster) or ``auto`` (``ray`` when the extra is installed and ``$RAY_ADDRESS`` is
set, else ``local``). Nothing of Ray is imported here: :mod:`parrot.scale.cluster` does that, only
when a Ray executor is chosen.
"""

from __future__ import annotations

import importlib.util
import os
from dataclasses import dataclass
from typing import Any, Literal

EXECUTOR_HELP = (
    "where work runs: local (worker processes here, --jobs), ray (the Ray cluster of "
    "this machine: $RAY_ADDRESS or `ray start`), ray://HOST:PORT (a Ray cluster's "
    "client server), ray:HOST:PORT (its GCS address) or auto (ray when installed and "
    "$RAY_ADDRESS is set, else local); Ray needs pip install 'parrot[ray]'"
)


TIMINGS = frozenset({"elapsed", "latency"})  # the only fields two runs of one item may differ in


def untimed(record: Any) -> Any:
    """An outcome record (or any part of one) without its timings: what a run on another
    executor must reproduce exactly."""
    if isinstance(record, dict):
        return {k: untimed(v) for k, v in record.items() if k not in TIMINGS}
    if isinstance(record, list):
        return [untimed(v) for v in record]
    return record


class ExecutorError(RuntimeError):
    """An executor that cannot be used: a bad spec, Ray not installed, no cluster reachable."""


@dataclass(frozen=True)
class ExecutorSpec:
    """A parsed ``--executor``: ``local``, or Ray at ``address`` (as :func:`ray.init` takes it)."""

    kind: Literal["local", "ray"]
    address: str | None = None

    def __str__(self) -> str:
        return "local" if self.kind == "local" else f"ray ({self.address})"


def ray_installed() -> bool:
    return importlib.util.find_spec("ray") is not None


def parse_executor(text: str) -> ExecutorSpec:
    """The executor ``text`` names; ValueError for anything else."""
    text = text.strip()
    if text == "local":
        return ExecutorSpec("local")
    if text == "auto":
        if ray_installed() and os.environ.get("RAY_ADDRESS"):
            return ExecutorSpec("ray", "auto")
        return ExecutorSpec("local")
    if text == "ray":
        return ExecutorSpec("ray", "auto")
    if text.startswith("ray://"):
        host, _, port = text.removeprefix("ray://").partition(":")
        if not host or (port and not port.isdigit()):
            raise ValueError(f"bad --executor {text!r}: expected ray://HOST:PORT")
        return ExecutorSpec("ray", f"ray://{host}:{port or 10001}")
    if text.startswith("ray:"):
        host, _, port = text.removeprefix("ray:").partition(":")
        if not host or not port.isdigit():
            raise ValueError(f"bad --executor {text!r}: expected ray:HOST:PORT")
        return ExecutorSpec("ray", f"{host}:{port}")
    raise ValueError(
        f"bad --executor {text!r}: expected local, auto, ray, ray://HOST:PORT or ray:HOST:PORT"
    )
