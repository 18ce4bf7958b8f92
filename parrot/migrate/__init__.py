"""Data migration: read real databases into portable fixtures and put them on any engine.

* :mod:`parrot.migrate.infer` — the type-inference rule (declared type proposes, values decide);
* :mod:`parrot.migrate.introspect` — SQLite, DuckDB and SQLAlchemy sources → :class:`Introspection`;
* :mod:`parrot.migrate.named` — the named-fixture catalogue (``spider/<db_id>``, ``tpch``) with its
  disk cache; :func:`named_fixture` is the hook for dataset loading;
* :mod:`parrot.migrate.transfer` — :func:`migrate`, source → fixture → target engine, verified;
* ``python -m parrot.migrate`` — the command line (see :mod:`parrot.migrate.cli`).
"""

from parrot.migrate.infer import IntrospectionError, infer_column
from parrot.migrate.introspect import (
    ColumnReport,
    ForeignKey,
    IdentifierError,
    Introspection,
    introspect,
    introspect_duckdb,
    introspect_sqlalchemy,
    introspect_sqlite,
)
from parrot.migrate.named import (
    available_named,
    named_fixture,
    named_introspection,
    unavailable_named,
)
from parrot.migrate.transfer import Migration, migrate

__all__ = [
    "ColumnReport",
    "ForeignKey",
    "IdentifierError",
    "Introspection",
    "IntrospectionError",
    "Migration",
    "available_named",
    "infer_column",
    "introspect",
    "introspect_duckdb",
    "introspect_sqlalchemy",
    "introspect_sqlite",
    "migrate",
    "named_fixture",
    "named_introspection",
    "unavailable_named",
]
