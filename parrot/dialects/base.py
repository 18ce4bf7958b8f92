"""The :class:`Dialect` base class: every per-dialect fact parrot uses, as a documented attribute.

One subclass per dialect (sqlglot's style) sets the facts that differ from these defaults;
defining the subclass registers it. Facts measured on a local engine are checked on that engine
by ``tests/test_dialect_facts.py``, and against sqlglot's own ``NULL_ORDERING``,
``TYPED_DIVISION`` and ``NORMALIZATION_STRATEGY``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Literal

NullOrder = Literal["first", "last"]
Division = Literal["integer", "decimal", "float"]
Folding = Literal["lower", "upper", "sensitive", "insensitive"]


class UnknownDialectError(ValueError):
    """A dialect name that is neither a canonical key nor an alias."""


@dataclass(frozen=True)
class Lexicon:
    """Where a dialect's strings, quoted identifiers and comments start and end (what the
    engines' lexer and statement splitter read, :mod:`parrot.engines.statements`)."""

    backslash_escapes: bool = False  # 'it\'s' inside string literals (ClickHouse, MySQL)
    hash_comments: bool = False  # '# comment' / '#!comment' to end of line (ClickHouse)
    dollar_quotes: bool = False  # $tag$ ... $tag$ strings (PostgreSQL, DuckDB, ClickHouse)
    bracket_identifiers: bool = False  # [name] identifiers (SQLite, SQL Server)
    nested_comments: bool = False  # /* /* */ */ nests (PostgreSQL, DuckDB, ClickHouse)
    escape_strings: bool = False  # E'it\'s': backslash escapes after an E prefix (PostgreSQL)
    dollar_identifiers: bool = False  # '$' inside identifiers: a$b$c is one name (PostgreSQL)
    hash_comments_always: bool = False  # with hash_comments: '#' starts a comment whatever
    #                                     follows (MySQL; ClickHouse wants '# ' or '#!')
    dash_comments_need_space: bool = False  # '--' is a comment only before whitespace, a
    #                                         control character or the end (MySQL: 1--1 is 2)
    plain_backticks: bool = False  # backslashes are plain characters in `identifiers` (MySQL)
    executable_comments: bool = False  # /*! ... */ and /*M! ... */ hold code (MySQL, MariaDB)
    q_quotes: bool = False  # q'[...]', q'{...}', q'!...!' alternative string quoting (Oracle)
    slash_comments: bool = False  # '// comment' to end of line (Snowflake)
    plain_double_quotes: bool = False  # backslashes are plain characters in "identifiers"
    #                                    even where strings have backslash escapes (Snowflake)
    bracket_escapes: bool = False  # ']]' inside [identifier] is one ']' (SQL Server)
    raw_strings: bool = False  # r'...' / R"...": no escapes, ends at the next quote (Spark)

    def __post_init__(self) -> None:
        if self.hash_comments_always and not self.hash_comments:
            raise ValueError("hash_comments_always refines hash_comments: set both")


class Dialect:
    """One SQL dialect. Subclasses set class attributes; nothing is instantiated.

    ``None`` in a fact means "not known here": no engine shows it and no documentation was
    checked, so no code may rely on it.
    """

    # --- names -------------------------------------------------------------------------------
    key: ClassVar[str] = ""  # sqlglot's dialect name, the canonical key everywhere in parrot
    label: ClassVar[str] = ""  # what reports and prompts print
    aliases: ClassVar[tuple[str, ...]] = ()  # other spellings :func:`parrot.dialects.resolve`
    #                                          accepts (the label and the key always are)

    # --- where it runs and how it is checked -------------------------------------------------
    engine: ClassVar[str | None] = None  # parrot engine adapter that runs it here (None: by
    #                                      URL only, or not at all)
    grammar: ClassVar[str | None] = None  # parrot's ANTLR grammar (grammars/<Name>.g4)
    plsql_units: ClassVar[bool] = False  # CREATE FUNCTION/PROCEDURE/TRIGGER and DECLARE open
    #     a PL/SQL unit: its declarations and END IF / END LOOP do not end the statement
    compound_block_ends: ClassVar[bool] = False  # END IF / END LOOP / END WHILE / END REPEAT
    #     close a compound statement (not the enclosing BEGIN), END CASE a CASE statement
    constructs: ClassVar[frozenset[str]] = frozenset()  # syntax it accepts that others reject,
    #     used to label mutated queries: limit, top, qualify, trailing_comma, double_colon

    # --- lexing and splitting scripts --------------------------------------------------------
    lexicon: ClassVar[Lexicon] = Lexicon()
    block_ends: ClassVar[frozenset[str]] = frozenset()  # words after END that close an
    #     unnumbered procedural block (END IF, END LOOP, ...), not a BEGIN
    batch_separator: ClassVar[str | None] = None  # a line holding only this word ends a batch
    #     (T-SQL's GO)
    slash_terminator: ClassVar[bool] = False  # a line holding only '/' ends a PL/SQL unit
    delimiter_command: ClassVar[bool] = False  # client-side DELIMITER // changes the terminator
    blocks_begin_anywhere: ClassVar[bool] = True  # False: BEGIN opens a block only where a
    #     statement or a block body starts (Spark: SELECT begin FROM t is a plain statement)

    # --- LLM answers and prompts -------------------------------------------------------------
    fences: ClassVar[tuple[str, ...]] = ()  # code-fence languages (```postgresql) whose block
    #     is read as the SQL answer (besides ``sql`` and a bare fence)
    hints: ClassVar[str | None] = None  # its section in translators/llm/templates/hints.toml

    # --- semantics (measured on the local engine, else documented) ---------------------------
    nulls_in_asc: ClassVar[NullOrder | None] = None  # where NULLs sort in ORDER BY x ASC
    nulls_in_desc: ClassVar[NullOrder | None] = None  # ... and in ORDER BY x DESC
    integer_division: ClassVar[Division | None] = None  # what 7 / 2 of two integers gives
    case_sensitive_strings: ClassVar[bool | None] = None  # 'a' = 'A' is false under the
    #     default collation
    pad_space: ClassVar[bool | None] = None  # the default collation ignores trailing spaces in
    #     comparisons, GROUP BY and DISTINCT ('a' = 'a ')
    unquoted_identifiers: ClassVar[Folding | None] = None  # how unquoted names match: folded
    #     to lower/upper case, matched exactly (sensitive) or in any case (insensitive)

    registry: ClassVar[dict[str, type[Dialect]]] = {}

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        if not cls.key or not cls.label:
            raise TypeError(f"dialect class {cls.__name__} needs a key and a label")
        if cls.key in Dialect.registry:
            raise TypeError(f"dialect {cls.key!r} is defined twice")
        Dialect.registry[cls.key] = cls

    def __init__(self) -> None:
        raise TypeError("dialects are classes: use parrot.dialects.get(name), not an instance")
