"""chdb's ``EXPLAIN AST`` sees exactly one statement (issue 29).

chdb runs every statement of a multi-statement text, ``EXPLAIN AST`` included: before
:func:`parrot.engines.clickhouse.explain_ast`, ``EXPLAIN AST SELECT 1; INSERT INTO FUNCTION
file(...) SELECT 42`` wrote the file — from the ClickHouse guard (inside the worker's sandbox) and
from ``parrot check fidelity`` (in parrot's own process, over public corpora). These tests run
chdb in this process, where nothing but the refusal stops the write.
"""

from __future__ import annotations

from pathlib import Path

import pytest

chdb = pytest.importorskip("chdb")

from parrot.check import references  # noqa: E402
from parrot.engines import clickhouse as ch  # noqa: E402
from parrot.engines import statements as st  # noqa: E402


def _bomb(path: Path) -> str:
    return f"SELECT 1; INSERT INTO FUNCTION file('{path}', 'CSV') SELECT 42"


class _MissesSemicolons:
    """A splitter that never finds a ``;``: what the check must survive."""

    def split(self, sql: str) -> list[str]:
        return [sql]


def test_explain_ast_refuses_a_second_statement(tmp_path: Path) -> None:
    out = tmp_path / "side-effect.csv"
    with pytest.raises(ch.MultiStatementError):
        ch.explain_ast(chdb, _bomb(out))
    assert not out.exists()
    assert "SelectQuery" in ch.explain_ast(chdb, "SELECT 1;")  # one statement still explained


def test_explain_ast_holds_when_the_splitter_misses_a_semicolon(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "side-effect.csv"
    monkeypatch.setattr(st, "splitter", lambda dialect: _MissesSemicolons())
    with pytest.raises(ch.MultiStatementError):
        ch.explain_ast(chdb, _bomb(out))  # ClickHouse's parser (formatQuery) sees two
    assert not out.exists()


def test_the_guard_and_the_fidelity_reference_refuse_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "side-effect.csv"
    assert ch._ast_refusal(chdb, _bomb(out)) == ch.MULTI_STATEMENT
    monkeypatch.setattr(references, "splitter", lambda dialect: _MissesSemicolons())
    assert references.ClickhouseReference().accepts(_bomb(out)) is False
    assert not out.exists()
