"""Where parrot keeps what it can rebuild: the cache root (servers, model caches, DFA tables).

A module of its own, below every package, so that the engine workers (which hide the servers'
sockets under it) and the servers (which live under it) read the same place.
"""

from __future__ import annotations

import os
from pathlib import Path


def cache_dir() -> Path:
    """The cache root: ``$PARROT_CACHE``, ``$XDG_CACHE_HOME/parrot`` or ``~/.cache/parrot``."""
    env = os.environ.get("PARROT_CACHE")
    if env:
        return Path(env)
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "parrot"


__all__ = ["cache_dir"]
