"""Local servers parrot manages (``python -m parrot.engines up|down|status``)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from parrot import dialects
from parrot.registry import Registry
from parrot.servers.base import Server, ServerError, ServerState, cache_dir


def _is_server(obj: object) -> bool:
    return isinstance(obj, type) and issubclass(obj, Server)


# dialect -> "module:Class", imported only when used; other packages add servers through the
# ``parrot.servers`` entry-point group
SERVERS: Registry[type[Server]] = Registry(
    "server",
    group="parrot.servers",
    check=_is_server,
    expects="a Server class",
    error=ServerError,
    builtin={
        "postgres": "parrot.servers.postgres:PostgresServer",
        "mysql": "parrot.servers.mariadb:MariaDBServer",
    },
)


def server_for(name: str) -> Server:
    """The managed server of a dialect (any alias: ``pg``, ``mariadb``, ...)."""
    try:
        key = dialects.resolve(name)
    except dialects.UnknownDialectError:
        key = name
    if key not in SERVERS:
        raise ServerError(
            f"parrot manages no {name!r} server (managed: {', '.join(sorted(SERVERS))})"
        )
    return SERVERS.get(key)()


@contextlib.contextmanager
def stopping_started() -> Iterator[None]:
    """On exit, release the managed servers that were not running on entry: a script or test
    that starts servers (directly or through ``Judge(start=True)``) leaves none behind, and
    stops none another live process still uses (:meth:`Server.release`)."""
    idle = [d for d in SERVERS if server_for(d).state() is None]
    try:
        yield
    finally:
        for dialect in idle:
            if server_for(dialect).state() is not None:
                server_for(dialect).release()


__all__ = [
    "SERVERS",
    "Server",
    "ServerError",
    "ServerState",
    "cache_dir",
    "server_for",
    "stopping_started",
]
