"""The PostgreSQL guard reads PostgreSQL's own parse tree (pglast) beside its tokens."""

import pytest

pytest.importorskip("pglast", reason="pglast (the postgres extra) is not installed")

from parrot.engines import postgres as pg

CASES = [  # (sql, refused by the tree guard, refused by the token guard too)
    ("SELECT a FROM t WHERE b > 1 ORDER BY a", False, False),
    ("WITH q AS (SELECT 1 AS x) SELECT x FROM q", False, False),
    ("CREATE TEMP TABLE s AS SELECT 1 AS x", False, False),
    ("SELECT FROM WHERE", False, False),  # a syntax error: the server says so
    ("SELECT pg_read_file('/etc/passwd')", True, True),
    ("COPY t TO PROGRAM 'ls'", True, True),
    ("SET SESSION AUTHORIZATION postgres", True, True),
    # what only the tree sees: a unicode-escaped identifier, a schema-qualified call in a
    # column default, a call in a subquery of a CTE
    ("SELECT U&\"\\0070g_read_file\"('/etc/passwd')", True, False),
    ("CREATE TABLE z (a text DEFAULT pg_catalog.pg_read_file('/etc/passwd'))", True, True),
    ("WITH q AS (SELECT (SELECT lo_import('/etc/passwd')) AS x) SELECT x FROM q", True, True),
    ("ALTER FUNCTION f() OWNER TO postgres", True, False),
]


@pytest.mark.parametrize(("sql", "tree", "tokens"), CASES, ids=[c[0][:40] for c in CASES])
def test_the_parse_tree_finds_what_the_tokens_hide(sql: str, tree: bool, tokens: bool) -> None:
    assert (pg._tree_refusal(sql) is not None) is tree
    assert isinstance(pg.GUARD.check(sql), str) is tokens
