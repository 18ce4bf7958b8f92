"""On-disk response cache: SQLite, keyed by a hash of (model, messages, parameters).

Only successful responses are stored. The key never includes the endpoint or any credential, so
a rerun, a resumed run or a run through another proxy of the same model costs nothing.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import sqlite3
import threading
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class CachedResponse:
    content: str
    tokens_in: int
    tokens_out: int
    latency: float  # seconds the original request took


def cache_key(model: str, messages: list[dict[str, str]], params: dict[str, Any]) -> str:
    payload = json.dumps(
        {"model": model, "messages": messages, "params": params},
        sort_keys=True,
        ensure_ascii=False,
        separators=(",", ":"),
    )
    return hashlib.sha256(payload.encode()).hexdigest()


class ResponseCache:
    """A thread-safe SQLite table of responses; several processes may share the file."""

    def __init__(self, path: Path):
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(path, timeout=30, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")  # no fsync per answer (it stalled the loop)
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS responses (key TEXT PRIMARY KEY, "
            "model TEXT NOT NULL, created TEXT NOT NULL, response TEXT NOT NULL)"
        )

    def get(self, key: str) -> CachedResponse | None:
        with self._lock:
            row = self._db.execute(
                "SELECT response FROM responses WHERE key = ?", (key,)
            ).fetchone()
        return CachedResponse(**json.loads(row[0])) if row else None

    def put(self, key: str, model: str, response: CachedResponse) -> None:
        created = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO responses VALUES (?, ?, ?, ?)",
                (key, model, created, json.dumps(asdict(response))),
            )

    def __len__(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT count(*) FROM responses").fetchone()[0])

    def close(self) -> None:
        with self._lock:
            self._db.close()
