"""Templates: statements that differ only in their literals, translated once.

A statement's template is its sqlglot tree with every literal replaced by a placeholder, rendered
in the source dialect (statements sqlglot cannot parse are their own template). The first
statement of a template is its representative: the translator sees only it.

Another statement of the template gets the representative's translation with its own literals
put in (:func:`carry_over`) when the literals allow it: every literal in which the two statements
differ occurs exactly once among the representative's literals and exactly once, with the same
value and kind, in the translation. Otherwise (a translator that rewrote a literal — a date
format, a boolean spelled 1 — or a value used twice) the statement is translated itself.
"""

from __future__ import annotations

from dataclasses import dataclass

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError


@dataclass(frozen=True)
class Shape:
    """A statement's template key and its literals, in tree order."""

    key: str
    literals: tuple[tuple[bool, str], ...]  # (is a string, text)
    parsed: bool


def _tree(sql: str, dialect: str) -> exp.Expr | None:
    try:
        trees = sqlglot.parse(sql, read=dialect)
    except SqlglotError:
        return None
    if len(trees) != 1 or trees[0] is None or isinstance(trees[0], exp.Command):
        return None
    return trees[0]


def _literals(tree: exp.Expr) -> list[exp.Literal]:
    return [node for node in tree.walk() if isinstance(node, exp.Literal)]


def shape(sql: str, dialect: str) -> Shape:
    """The template of ``sql``: literals out, placeholders in."""
    tree = _tree(sql, dialect)
    if tree is None:
        return Shape("\x00" + " ".join(sql.split()), (), False)
    literals = tuple((bool(lit.is_string), lit.this) for lit in _literals(tree))
    blank = tree.transform(
        lambda node: exp.Placeholder() if isinstance(node, exp.Literal) else node
    )
    return Shape(blank.sql(dialect), literals, True)


def carry_over(rep: Shape, member: Shape, translation: str, target: str) -> str | None:
    """The representative's ``translation`` with ``member``'s literals, or None when the
    literals do not allow it (see the module docstring)."""
    if not (rep.parsed and member.parsed) or rep.key != member.key:
        return None
    if len(rep.literals) != len(member.literals):
        return None
    changes = {}
    for old, new in zip(rep.literals, member.literals, strict=True):
        if old == new:
            continue
        if rep.literals.count(old) != 1 or old[0] != new[0]:
            return None
        changes[old] = new
    if not changes:
        return translation
    tree = _tree(translation, target)
    if tree is None:
        return None
    found = {
        old: [lit for lit in _literals(tree) if (bool(lit.is_string), lit.this) == old]
        for old in changes
    }
    if any(len(nodes) != 1 for nodes in found.values()):
        return None
    for old, (node,) in found.items():
        is_string, text = changes[old]
        node.replace(exp.Literal.string(text) if is_string else exp.Literal.number(text))
    return tree.sql(target)
