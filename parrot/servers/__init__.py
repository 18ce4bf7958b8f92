"""Local servers parrot manages (``python -m parrot.engines up|down|status``)."""

from __future__ import annotations

import importlib

from parrot import dialects
from parrot.servers.base import Server, ServerError, ServerState, cache_dir

# dialect -> "module:Class"; imported only when used
SERVERS: dict[str, str] = {
    "postgres": "parrot.servers.postgres:PostgresServer",
    "mysql": "parrot.servers.mariadb:MariaDBServer",
}


def server_for(name: str) -> Server:
    """The managed server of a dialect (any alias: ``pg``, ``mariadb``, ...)."""
    try:
        key = dialects.resolve(name)
    except dialects.UnknownDialectError:
        key = name
    if key not in SERVERS:
        raise ServerError(f"parrot manages no {name!r} server "
                          f"(managed: {', '.join(sorted(SERVERS))})")
    module, cls = SERVERS[key].split(":")
    server: Server = getattr(importlib.import_module(module), cls)()
    return server


__all__ = ["SERVERS", "Server", "ServerError", "ServerState", "cache_dir", "server_for"]
