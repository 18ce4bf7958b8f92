"""Local servers parrot manages (``python -m parrot.engines up|down|status``)."""

from __future__ import annotations

from parrot import dialects
from parrot.registry import Registry
from parrot.servers.base import Server, ServerError, ServerState, cache_dir


def _is_server(obj: object) -> bool:
    return isinstance(obj, type) and issubclass(obj, Server)


# dialect -> "module:Class", imported only when used; other packages add servers through the
# ``parrot.servers`` entry-point group
SERVERS: Registry[type[Server]] = Registry(
    "server", group="parrot.servers", check=_is_server, expects="a Server class",
    error=ServerError, builtin={
        "postgres": "parrot.servers.postgres:PostgresServer",
        "mysql": "parrot.servers.mariadb:MariaDBServer",
    })


def server_for(name: str) -> Server:
    """The managed server of a dialect (any alias: ``pg``, ``mariadb``, ...)."""
    try:
        key = dialects.resolve(name)
    except dialects.UnknownDialectError:
        key = name
    if key not in SERVERS:
        raise ServerError(f"parrot manages no {name!r} server "
                          f"(managed: {', '.join(sorted(SERVERS))})")
    return SERVERS.get(key)()


__all__ = ["SERVERS", "Server", "ServerError", "ServerState", "cache_dir", "server_for"]
