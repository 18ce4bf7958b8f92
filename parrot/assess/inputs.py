"""Reading a workload: every statement with where it came from.

Formats (``detect`` picks one from the path; ``--format`` overrides):

* ``dir`` — a folder: every ``*.sql`` file below it (any depth, sorted), each split into
  statements with the source dialect's lexical rules;
* ``sql`` — one ``.sql`` file, split the same way;
* ``lines`` — a plain query log, one statement per line (a file none of whose lines ends in
  ``;``), or ``;``-separated statements (then split as a ``.sql`` file);
* ``pgss`` — a CSV export of PostgreSQL's ``pg_stat_statements`` (the ``query`` column; ``calls``
  is kept as the statement's weight). Its statements hold ``$1``-style placeholders where the
  constants were;
* ``mysql-general`` — a MySQL/MariaDB general query log (``Query`` events; continuation lines
  joined);
* ``mysql-slow`` — a MySQL/MariaDB slow query log (the statement after each ``# Query_time``
  header; ``SET timestamp=…;`` and ``use db;`` lines dropped).
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

from parrot.engines import statements
from parrot.textfiles import read_utf8

FORMATS = ("dir", "sql", "lines", "pgss", "mysql-general", "mysql-slow")


class InputError(ValueError):
    """A workload that cannot be read (the message names the file)."""


@dataclass(frozen=True)
class Statement:
    """One statement of the workload."""

    id: str  # "<relative path>:<n>" — stable across runs of the same input
    path: str  # the file it came from, relative to the input (the input's name for a file)
    index: int  # 1-based position in that file
    sql: str
    weight: int = 1  # how often the log saw it (pg_stat_statements ``calls``), else 1
    comments: str = ""  # the input's comments right before it (.sql files), for the tree
    trailing: str = ""  # comments that start on its own last line, after it (.sql files)
    parameterised: str = ""  # the input's text when ``sql`` is it with placeholders filled
    filled: str = ""  # which values filled them (placeholders.Filled.describe)
    unfilled: str = ""  # why its placeholders could not be filled


def detect(path: Path) -> str:
    """The format of ``path`` from its kind, suffix and first lines."""
    if path.is_dir():
        return "dir"
    if not path.is_file():
        raise InputError(f"{path}: no such file or folder")
    head = read_utf8(path)[:4096]
    if path.suffix.lower() == ".csv":
        return "pgss"
    if re.search(r"^# (?:Time|User@Host|Query_time):", head, re.M):
        return "mysql-slow"
    if any(_GENERAL.match(line) for line in head.splitlines()):
        return "mysql-general"
    if path.suffix.lower() == ".sql":
        return "sql"
    return "lines"


def read_workload(path: Path, dialect: str, fmt: str | None = None) -> list[Statement]:
    """Every statement of the workload at ``path`` (SQL in ``dialect``), in input order."""
    fmt = fmt or detect(path)
    if fmt not in FORMATS:
        raise InputError(f"unknown input format {fmt!r} (one of {', '.join(FORMATS)})")
    if fmt == "dir":
        files = sorted(p for p in path.rglob("*.sql") if p.is_file())
        if not files:
            raise InputError(f"{path}: no .sql file below this folder")
        out: list[Statement] = []
        for f in files:
            out += _with_comments(f.relative_to(path).as_posix(), read_utf8(f), dialect)
        return out
    text = _read(path)
    if fmt == "sql":
        return _with_comments(path.name, text, dialect)
    elif fmt == "lines":
        pieces = _lines(text, dialect)
    elif fmt == "pgss":
        return _pgss(path.name, text)
    elif fmt == "mysql-general":
        pieces = list(_general_log(text))
    else:
        pieces = list(_slow_log(text))
    return _numbered(path.name, pieces)


def _read(path: Path) -> str:
    try:
        return read_utf8(path)
    except (OSError, ValueError) as exc:
        raise InputError(f"{path}: {exc}") from None


def _split(text: str, dialect: str) -> list[str]:
    return [s.strip() for s in statements.splitter(dialect).split(text) if _has_sql(s)]


def _has_sql(text: str) -> bool:
    """Whether ``text`` holds more than whitespace, semicolons and comments."""
    stripped = re.sub(r"--[^\n]*|/\*.*?\*/|#[^\n]*", "", text, flags=re.S)
    return bool(stripped.strip().strip(";").strip())


def _lines(text: str, dialect: str) -> list[str]:
    lines = [line.strip() for line in text.splitlines()]
    if any(line.endswith(";") for line in lines):
        return _split(text, dialect)
    return [line for line in lines if _has_sql(line)]


_COMMENT = re.compile(r"--[^\n]*|/\*.*?\*/", re.S)


def _with_comments(path: str, text: str, dialect: str) -> list[Statement]:
    """The statements of a ``.sql`` file, each with the comments between it and the previous
    one (the splitter drops them; found by locating each statement in the text). A comment that
    starts on the line where the previous statement ends (``SELECT 1; -- one``) is that
    statement's trailing comment, not the next one's."""
    out: list[Statement] = []
    position, located = 0, False  # located: the last statement was found in the text
    for st in _numbered(path, _split(text, dialect)):
        at = text.find(st.sql, position)
        if at < 0:  # the splitter rewrote it: no comments rather than wrong ones
            out.append(st)
            located = False
            continue
        before, after = _gap_comments(text[position:at], located)
        if after:
            out[-1] = replace(out[-1], trailing=after)
        out.append(replace(st, comments=before))
        position, located = at + len(st.sql), True
    _, after = _gap_comments(text[position:], located)
    if after:
        out[-1] = replace(out[-1], trailing=after)
    return out


def _gap_comments(gap: str, follows: bool) -> tuple[str, str]:
    """The comments of the text between two statements: (those before the next statement,
    those on the previous statement's last line). ``follows``: there is a previous one."""
    gap = re.sub(r"'(?:[^']|'')*'", "", gap)
    before: list[str] = []
    after: list[str] = []
    for m in _COMMENT.finditer(gap):
        same_line = follows and "\n" not in gap[: m.start()]
        (after if same_line else before).append(m.group(0).strip())
    return "\n".join(before), " ".join(after)


def _numbered(path: str, pieces: list[str]) -> list[Statement]:
    return [
        Statement(f"{path}:{i}", path, i, sql.rstrip().rstrip(";").rstrip())
        for i, sql in enumerate(pieces, 1)
    ]


def _pgss(name: str, text: str) -> list[Statement]:
    reader = csv.DictReader(io.StringIO(text))
    fields = [f.strip().lower() for f in reader.fieldnames or []]
    if "query" not in fields:
        raise InputError(
            f"{name}: a pg_stat_statements export needs a 'query' column "
            f"(columns: {', '.join(fields) or 'none'})"
        )
    out = []
    for n, row in enumerate(reader, 1):
        row = {k.strip().lower(): v for k, v in row.items() if k}
        query = (row.get("query") or "").strip()
        if not _has_sql(query):
            continue
        calls = row.get("calls") or "1"
        weight = int(calls) if calls.strip().isdigit() else 1
        out.append(Statement(f"{name}:{n}", name, n, query.rstrip(";").rstrip(), weight))
    return out


# an event line: an optional time (MariaDB "241201 10:00:00", MySQL "2024-12-01T10:00:00.1Z"),
# the connection id, the command and its argument
_GENERAL = re.compile(
    r"^(?:\d{6}\s+\d{1,2}:\d\d:\d\d|\d{4}-\d\d-\d\dT\S+)?\s+\d+\s+"
    r"(Query|Connect|Quit|Init DB|Prepare|Execute|Close stmt|Field List|"
    r"Statistics)\t?(.*)$"
)


def _general_log(text: str) -> Iterator[str]:
    """``Query`` events of a general log; a line that starts no event continues the last."""
    current: list[str] | None = None
    for line in text.splitlines():
        m = _GENERAL.match(line)
        if m is None:
            if current is not None:
                current.append(line)
            continue
        if current is not None:
            yield "\n".join(current).strip()
        current = [m.group(2)] if m.group(1) in ("Query", "Execute") else None
    if current is not None:
        yield "\n".join(current).strip()


_SLOW_SKIP = re.compile(r"^(?:SET\s+timestamp\s*=\s*\d+|use\s+\S+)\s*;\s*$", re.I)
_SLOW_BANNER = re.compile(r"^(?:\S+, Version: |Tcp port: |Time\s+Id\s+Command)")


def _slow_log(text: str) -> Iterator[str]:
    """The statements of a slow log: lines that are not headers (``#``), banners, ``SET
    timestamp=…;`` or ``use db;``, split at ``;`` with MySQL's rules."""
    body = [
        line
        for line in text.splitlines()
        if not (line.startswith("#") or _SLOW_SKIP.match(line) or _SLOW_BANNER.match(line))
    ]
    yield from _split("\n".join(body), "mysql")
