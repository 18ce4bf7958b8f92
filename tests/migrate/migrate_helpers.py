"""Small SQLite builders shared by the migration tests."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any


def make_sqlite(path: Path, script: str, rows: dict[str, Sequence[Sequence[Any]]]) -> Path:
    """A SQLite file from a DDL script and rows inserted as given (any storage class)."""
    con = sqlite3.connect(path)
    con.executescript(script)
    for table, data in rows.items():
        if data:
            marks = ", ".join("?" * len(data[0]))
            con.executemany(f'INSERT INTO "{table}" VALUES ({marks})', data)
    con.commit()
    con.close()
    return path


DIRTY_SCRIPT = """
CREATE TABLE station (id INTEGER PRIMARY KEY, name TEXT NOT NULL, lat REAL, opened DATETIME,
                      is_open BOOL, flag BOOL, price DECIMAL(19,4), ratio DECIMAL(2,2),
                      odd NUMERIC, big INT, anything);
CREATE TABLE weather (day TEXT, station_id INTEGER REFERENCES station(id), temp INTEGER,
                      rain INTEGER, seen DATE, PRIMARY KEY (day, station_id));
CREATE VIEW v AS SELECT * FROM station;
"""

DIRTY_ROWS: dict[str, list[tuple[Any, ...]]] = {
    "station": [
        (1, "Alpha ", 37.5, "2013-08-06 10:00:00", "T", 1, 12.5, 0, 30, 1, 7),
        (2, "Beta", None, "2013-08-07 11:30:00.25", "F", 0, 1234.5678, 0.35, 29.97, 2**40, "x"),
        (3, " Gamma", -122.25, None, None, None, None, 0.1, "", None, 2.5),
    ],
    "weather": [
        ("8/29/2013", 1, 65, 0, "2013-08-29"),
        ("8/30/2013", 1, "", 0.23, "2013-8-30"),
        ("8/31/2013", 2, 70, "T", None),
        ("9/1/2013", 3, 58, None, "0000-00-00"),
    ],
}
