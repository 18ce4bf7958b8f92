"""Input files read as UTF-8; one that is not says where: ``FILE:LINE:COLUMN``."""

from __future__ import annotations

import sys
from pathlib import Path


class NotUTF8Error(ValueError):
    """An input file (dataset, fixture, predictions, SQL) that is not valid UTF-8."""


def decode_utf8(raw: bytes, name: str | Path) -> str:
    """``raw`` decoded as UTF-8; NotUTF8Error names ``name``, the line and the byte column of
    the first invalid byte."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        before = raw[: exc.start]
        line = before.count(b"\n") + 1
        column = exc.start - (before.rfind(b"\n") + 1) + 1
        raise NotUTF8Error(
            f"{name}:{line}:{column}: not UTF-8 (byte 0x{raw[exc.start]:02x}); "
            "save the file as UTF-8"
        ) from None


def read_utf8(path: Path) -> str:
    """The text of ``path``, which must be UTF-8 (see :func:`decode_utf8`)."""
    return decode_utf8(path.read_bytes(), path)


def read_stdin() -> str:
    """Standard input as UTF-8 (its bytes, when it has them, so an error names the line)."""
    raw = getattr(sys.stdin, "buffer", None)
    return decode_utf8(raw.read(), "<stdin>") if raw is not None else sys.stdin.read()
