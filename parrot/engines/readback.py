"""Run statements that write, then read back the tables they change: on a copy, never the fixture.

:func:`run_then_read` runs a DML text (``INSERT``/``UPDATE``/``DELETE``/``MERGE``) followed by
``SELECT <every column> FROM <table>`` as ONE execution of the engine, once per table to read
back. Each execution is isolated as every execution is (:mod:`parrot.engines.base`), so the
writes happen on a copy and vanish with it:

* SQLite — a fresh in-memory copy of the fixture (``Connection.backup``) per execution;
* DuckDB — one transaction on the fixture's in-memory database, rolled back;
* PostgreSQL — one transaction (``statement_timeout`` set server-side), rolled back;
* MariaDB (``mysql``) — a throwaway scratch database holding copies of the tables the script
  names, dropped afterwards (MySQL DDL is not transactional; DML there never reaches the
  fixture database);
* ClickHouse (chdb) — a writing script runs on a copy of the tables (no rollback there);
* Spark — its built-in tables have no ``UPDATE``/``DELETE`` (a runtime error); ``INSERT`` works.

Nothing new crosses the worker boundary: it is the engine's own ``execute``, whose timeout,
result cap and statement guards all hold. Running the text once per table costs one execution
per table read back; a DML statement changes one table.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from sqlglot import exp

from parrot.engines.base import DEFAULT_MAX_ROWS, DEFAULT_TIMEOUT, Engine, Execution
from parrot.fixtures import Fixture, is_plain
from parrot.values import ResultSet


@dataclass(frozen=True)
class ReadBack:
    """The statements' outcome and, when they ran, each table's rows after them."""

    execution: Execution  # the first execution that failed, else the last one
    tables: dict[str, ResultSet] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.execution.ok


def select_table(fixture: Fixture, table: str, dialect: str) -> str:
    """``SELECT`` every column of the fixture's ``table`` in ``dialect``, names as unquoted SQL
    finds them when they are plain (the way the engines store fixtures), quoted otherwise."""
    found = fixture.table(table)

    def ident(name: str) -> exp.Identifier:
        return exp.Identifier(this=name, quoted=not is_plain(name))

    columns = [exp.Column(this=ident(c)) for c in found.column_names]
    return exp.select(*columns).from_(exp.Table(this=ident(found.name))).sql(dialect)


def run_then_read(
    engine: Engine,
    statements: str,
    fixture: Fixture,
    tables: Sequence[str],
    *,
    timeout: float = DEFAULT_TIMEOUT,
    max_rows: int = DEFAULT_MAX_ROWS,
) -> ReadBack:
    """Run ``statements`` on a copy of ``fixture`` and read back ``tables`` (names of the
    fixture's tables) after them; the fixture itself is never changed."""
    text = statements.strip().rstrip(";").rstrip()
    if not tables:
        return ReadBack(engine.execute(text, fixture, timeout=timeout, max_rows=max_rows))
    out: dict[str, ResultSet] = {}
    execution = None
    for table in tables:
        script = f"{text};\n{select_table(fixture, table, engine.dialect)}"
        execution = engine.execute(script, fixture, timeout=timeout, max_rows=max_rows)
        if not execution.ok or execution.result is None:
            return ReadBack(execution)
        out[table] = execution.result
    assert execution is not None
    return ReadBack(execution, out)
