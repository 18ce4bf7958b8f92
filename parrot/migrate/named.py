"""Named fixtures: real databases that items can name instead of carrying their rows.

Names:

* ``spider/<db_id>`` — every Spider SQLite database found at
  ``<corpora>/sqlite/spider/<db_id>/<db_id>.sqlite``, read by
  :func:`parrot.migrate.introspect.introspect_sqlite` (types inferred by the rule in
  :mod:`parrot.migrate.infer`). ``<corpora>`` is ``$PARROT_CORPORA``, else ``shared/corpora``
  beside the repository (``<repo>/../shared/corpora``) in a checkout, else (a wheel install)
  ``~/.local/share/parrot/corpora`` (:func:`corpora_root`). Without that folder there are no
  Spider names. Databases with table or column names the fixture format cannot hold
  (:func:`parrot.fixtures.name_problem`) are listed by
  :func:`unavailable_named` with the reason and raise :class:`~parrot.fixtures.FixtureError`.
* ``text2sql/<db>`` — the text2sql-data databases (``geography``: GeoQuery; ``restaurants``) at
  ``<corpora>/sqlite/text2sql-data/<db>.sqlite``, read as Spider's are, with the table names in
  upper case: those corpora's SQL writes them so (it ran on a MySQL that ignored table-name case;
  MariaDB here does not), while column names stay as the file has them.
* ``tpch`` — TPC-H at scale factor 0.01 (8 tables, 86,805 rows; money as decimal(15,2), dates as
  date), generated offline by DuckDB's ``tpch`` extension from the PyPI wheel
  ``duckdb-extension-tpch`` (no network). ``tpch-sf<N>`` names other scale factors
  (``tpch-sf0.01`` is ``tpch``; N at most 1). dbgen is deterministic, so the rows only depend on N.

Every resolution is cached twice: in the process (the same :class:`Fixture` object, so engines
reuse their materialisation) and on disk under ``parrot.servers.cache_dir()/fixtures/`` as gzipped
JSON named by a hash of the source (the SQLite file's bytes; the scale factor and DuckDB/extension
versions) and of :data:`INFERENCE_VERSION`; the file also records the fixture's content hash,
checked when it is read back. A changed source or rule therefore misses the cache; a corrupt cache
file is rebuilt.
"""

from __future__ import annotations

import contextlib
import gzip
import hashlib
import importlib.util
import json
import os
import re
import sqlite3
import tempfile
import threading
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import Any

from parrot.fixtures import Fixture, FixtureError
from parrot.migrate.infer import IntrospectionError
from parrot.migrate.introspect import (
    ForeignKey,
    IdentifierError,
    Introspection,
    introspect_duckdb,
    introspect_sqlite,
    name_problems,
)
from parrot.servers import cache_dir

INFERENCE_VERSION = "2"  # bump when the inference rule changes what a fixture holds
TPCH_DEFAULT_SF = 0.01
TPCH_MAX_SF = 1.0
_TPCH_NAME = re.compile(r"^tpch-sf(\d+(?:\.\d+)?)$")

# TPC-H's keys (spec §1.4); dbgen creates the tables without constraints
TPCH_PRIMARY_KEYS: dict[str, tuple[str, ...]] = {
    "region": ("r_regionkey",),
    "nation": ("n_nationkey",),
    "part": ("p_partkey",),
    "supplier": ("s_suppkey",),
    "partsupp": ("ps_partkey", "ps_suppkey"),
    "customer": ("c_custkey",),
    "orders": ("o_orderkey",),
    "lineitem": ("l_orderkey", "l_linenumber"),
}
TPCH_FOREIGN_KEYS: dict[str, tuple[ForeignKey, ...]] = {
    "nation": (ForeignKey(("n_regionkey",), "region", ("r_regionkey",)),),
    "supplier": (ForeignKey(("s_nationkey",), "nation", ("n_nationkey",)),),
    "customer": (ForeignKey(("c_nationkey",), "nation", ("n_nationkey",)),),
    "partsupp": (
        ForeignKey(("ps_partkey",), "part", ("p_partkey",)),
        ForeignKey(("ps_suppkey",), "supplier", ("s_suppkey",)),
    ),
    "orders": (ForeignKey(("o_custkey",), "customer", ("c_custkey",)),),
    "lineitem": (
        ForeignKey(("l_orderkey",), "orders", ("o_orderkey",)),
        ForeignKey(("l_partkey", "l_suppkey"), "partsupp", ("ps_partkey", "ps_suppkey")),
    ),
}

_memo: dict[str, tuple[str, Introspection]] = {}  # name -> (source key, introspection)
_lock = threading.Lock()


# --- where things are -----------------------------------------------------------------------------


def corpora_root() -> Path:
    """``$PARROT_CORPORA``; else, in a checkout, ``<repo>/../shared/corpora``; else (an installed
    wheel, whose code lives inside a virtual environment) ``$XDG_DATA_HOME/parrot/corpora``
    (``~/.local/share/parrot/corpora``) — never a folder inside the environment."""
    env = os.environ.get("PARROT_CORPORA")
    if env:
        return Path(env)
    repo = Path(__file__).resolve().parents[2]
    if (repo / "pyproject.toml").is_file() and (repo / "datasets").is_dir():
        return repo.parent / "shared" / "corpora"
    data = os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share"
    return Path(data) / "parrot" / "corpora"


def spider_root() -> Path:
    return corpora_root() / "sqlite" / "spider"


def spider_path(db_id: str) -> Path:
    return spider_root() / db_id / f"{db_id}.sqlite"


def text2sql_root() -> Path:
    return corpora_root() / "sqlite" / "text2sql-data"


def text2sql_path(db_id: str) -> Path:
    return text2sql_root() / f"{db_id}.sqlite"


def text2sql_ids() -> list[str]:
    """The text2sql-data databases present (empty when the corpora folder is absent)."""
    root = text2sql_root()
    return sorted(p.stem for p in root.glob("*.sqlite")) if root.is_dir() else []


def _upper_tables(intro: Introspection) -> Introspection:
    """The introspection with every table name in upper case (text2sql-data's spelling)."""
    from dataclasses import replace

    fixture = replace(
        intro.fixture, tables=tuple(replace(t, name=t.name.upper()) for t in intro.fixture.tables)
    )
    fks = {
        table.upper(): tuple(replace(fk, ref_table=fk.ref_table.upper()) for fk in keys)
        for table, keys in intro.foreign_keys.items()
    }
    columns = tuple(replace(c, table=c.table.upper()) for c in intro.columns)
    return replace(intro, fixture=fixture, foreign_keys=fks, columns=columns)


def spider_ids() -> list[str]:
    """The Spider databases present (empty when the corpora folder is absent)."""
    root = spider_root()
    if not root.is_dir():
        return []
    return sorted(d.name for d in root.iterdir() if (d / f"{d.name}.sqlite").is_file())


# the named-fixture families that are SQLite files of the corpora: name prefix -> file of a db id
_SQLITE_FAMILIES: dict[str, Callable[[str], Path]] = {
    "spider": spider_path,
    "text2sql": text2sql_path,
}
CORPUS_FAMILIES = frozenset(_SQLITE_FAMILIES)  # named fixtures read from $PARROT_CORPORA


def fixtures_cache_dir() -> Path:
    return cache_dir() / "fixtures"


# --- the catalogue --------------------------------------------------------------------------------


def tpch_available() -> bool:
    return importlib.util.find_spec("duckdb_extension_tpch") is not None


@lru_cache(maxsize=1024)
def _identifier_problem(path: str, mtime_ns: int) -> str | None:
    """Why a SQLite file cannot become a fixture because of its names (schema only: cheap)."""
    con = sqlite3.connect(f"{Path(path).resolve().as_uri()}?mode=ro&immutable=1", uri=True)
    try:
        tables = [
            t
            for (t,) in con.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' "
                "AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'"
            )
        ]
        bad = name_problems(
            (t, [r[1] for r in con.execute('PRAGMA table_info("' + t.replace('"', '""') + '")')])
            for t in tables
        )
    finally:
        con.close()
    if not bad:
        return None
    return f"{len(bad)} table/column name(s) the fixture format cannot hold: {'; '.join(bad)}"


def _file_problem(path: Path) -> str | None:
    return _identifier_problem(str(path), path.stat().st_mtime_ns)


def _spider_problem(db_id: str) -> str | None:
    return _file_problem(spider_path(db_id))


def _text2sql_problem(db_id: str) -> str | None:
    return _file_problem(text2sql_path(db_id))


def unavailable_named() -> dict[str, str]:
    """Names found in the corpora that do not resolve yet, with the reason."""
    out = {}
    for db_id in spider_ids():
        problem = _spider_problem(db_id)
        if problem:
            out[f"spider/{db_id}"] = problem
    for db_id in text2sql_ids():
        problem = _text2sql_problem(db_id)
        if problem:
            out[f"text2sql/{db_id}"] = problem
    if not tpch_available():
        out["tpch"] = "needs the PyPI package duckdb-extension-tpch (pip install parrot-sql)"
    return out


def available_named() -> list[str]:
    """Every name :func:`named_fixture` resolves on this machine."""
    names = [f"spider/{d}" for d in spider_ids() if _spider_problem(d) is None]
    names += [f"text2sql/{d}" for d in text2sql_ids() if _text2sql_problem(d) is None]
    if tpch_available():
        names.append("tpch")
    return sorted(names)


def _unknown(name: str) -> FixtureError:
    names = available_named()
    shown = ", ".join(names[:5] + (["tpch"] if "tpch" in names[5:] else []))
    where = (
        ""
        if spider_ids()
        else f" (no Spider corpus at {spider_root()}: set PARROT_CORPORA to the folder holding "
        "sqlite/spider/)"
    )
    return FixtureError(
        f"unknown named fixture {name!r}{where}; available ({len(names)}): "
        f"{shown}{', ...' if len(names) > 5 else ''} "
        "— names are spider/<db_id>, text2sql/<db>, tpch and tpch-sf<N>"
    )


# --- resolution -----------------------------------------------------------------------------------


def named_fixture(name: str, *, refresh: bool = False) -> Fixture:
    """The fixture called ``name``; raises :class:`FixtureError` for unknown or unusable names."""
    return named_introspection(name, refresh=refresh).fixture


def named_introspection(name: str, *, refresh: bool = False) -> Introspection:
    """The named fixture with its foreign keys and per-column type decisions."""
    key, build = _source(name)
    with _lock:
        hit = _memo.get(name)
        if hit is not None and hit[0] == key and not refresh:
            return hit[1]
    result = None if refresh else _read_cache(name, key)
    if result is None:
        try:
            result = build()
        except IdentifierError as exc:
            raise FixtureError(f"named fixture {name!r} is not available: {exc}") from None
        _write_cache(name, key, result)
    with _lock:
        _memo[name] = (key, result)
    return result


def _source(name: str) -> tuple[str, Callable[[], Introspection]]:
    """(cache key of the source, function building the introspection) for a name."""
    family, _, db_id = name.partition("/")
    if family in _SQLITE_FAMILIES:
        path = _SQLITE_FAMILIES[family](db_id)
        if "/" in db_id or not db_id or not path.is_file():
            raise _unknown(name)
        problem = _file_problem(path)
        if problem:
            raise FixtureError(f"named fixture {name!r} is not available: {problem}")
        digest = hashlib.sha256(f"{family} {INFERENCE_VERSION}\n".encode())
        digest.update(path.read_bytes())
        if family == "text2sql":
            return digest.hexdigest()[:20], lambda: _upper_tables(
                introspect_sqlite(path, name=name, immutable=True)
            )
        return digest.hexdigest()[:20], lambda: introspect_sqlite(path, name=name, immutable=True)
    sf = _tpch_scale(name)
    if sf is not None:
        import duckdb

        digest = hashlib.sha256(
            f"tpch {sf!r} duckdb {duckdb.__version__} {INFERENCE_VERSION}".encode()
        )
        return digest.hexdigest()[:20], lambda: tpch_introspection(sf, name=name)
    raise _unknown(name)


def _tpch_scale(name: str) -> float | None:
    if name == "tpch":
        return TPCH_DEFAULT_SF
    m = _TPCH_NAME.match(name)
    if not m:
        return None
    sf = float(m[1])
    if not 0 < sf <= TPCH_MAX_SF:
        raise FixtureError(f"{name!r}: TPC-H scale factor must be in (0, {TPCH_MAX_SF}]")
    return sf


# --- TPC-H ----------------------------------------------------------------------------------------


def load_tpch_extension(con: Any) -> None:
    """Load DuckDB's tpch extension from the ``duckdb-extension-tpch`` wheel (no network)."""
    import duckdb

    spec = importlib.util.find_spec("duckdb_extension_tpch")
    candidates: list[Path] = []
    if spec is not None and spec.submodule_search_locations:
        for folder in spec.submodule_search_locations:
            candidates += sorted(
                Path(folder).glob(f"extensions/{duckdb.__version__}/*/tpch.duckdb_extension")
            )
            candidates += sorted(
                Path(folder).glob(f"extensions/v{duckdb.__version__}/tpch.duckdb_extension")
            )
            candidates += sorted(Path(folder).glob("extensions/**/tpch.duckdb_extension"))
    for path in candidates:
        try:
            con.execute(f"LOAD '{path}'")
            return
        except duckdb.Error:
            continue
    try:
        con.execute("LOAD tpch")  # installed by hand into DuckDB's extension directory
    except duckdb.Error as exc:
        raise FixtureError(
            f"TPC-H needs DuckDB's tpch extension: pip install duckdb-extension-tpch=="
            f"{duckdb.__version__} ({exc})"
        ) from None


def tpch_introspection(sf: float = TPCH_DEFAULT_SF, *, name: str = "tpch") -> Introspection:
    """Generate TPC-H at scale factor ``sf`` in an in-memory DuckDB and read it as a fixture."""
    import dataclasses

    import duckdb

    con = duckdb.connect(":memory:")
    try:
        load_tpch_extension(con)
        con.execute(f"CALL dbgen(sf={float(sf)!r})")
        result = introspect_duckdb(con, name=name)
    finally:
        con.close()
    keyed = (
        dataclasses.replace(t, primary_key=TPCH_PRIMARY_KEYS.get(t.name, ()))
        for t in result.fixture.tables
    )
    # dbgen repeats partsupp keys below sf 0.01: declare a key only where the rows keep it
    tables = tuple(
        t if t.primary_key_problem() is None else dataclasses.replace(t, primary_key=())
        for t in keyed
    )
    return dataclasses.replace(
        result,
        fixture=Fixture(name, tables),
        source=f"duckdb dbgen(sf={sf})",
        foreign_keys={t.name: TPCH_FOREIGN_KEYS.get(t.name, ()) for t in tables},
    )


# --- disk cache -----------------------------------------------------------------------------------


def _cache_path(name: str, key: str) -> Path:
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "_", name)
    return fixtures_cache_dir() / f"{slug}-{key}.json.gz"


def _read_cache(name: str, key: str) -> Introspection | None:
    path = _cache_path(name, key)
    if not path.is_file():
        return None
    try:
        with gzip.open(path, "rt", encoding="utf-8") as fh:
            data = json.load(fh)
        result = Introspection.from_json(data)
    except (OSError, EOFError, ValueError, KeyError, TypeError):
        return None  # unreadable or stale: rebuilt and rewritten by the caller
    if result.fixture.name != name or data.get("content_hash") != result.fixture.content_hash:
        return None
    return result


def _write_cache(name: str, key: str, result: Introspection) -> None:
    path = _cache_path(name, key)
    data = result.to_json()
    data["content_hash"] = result.fixture.content_hash
    with contextlib.suppress(OSError):  # a read-only cache only costs speed
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".json.gz")
        try:
            with (
                os.fdopen(fd, "wb") as raw,
                gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=3, mtime=0) as fh,
            ):
                fh.write(json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode())
            os.replace(tmp, path)  # atomic: concurrent writers race harmlessly
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)


def clear_memo() -> None:
    """Forget fixtures resolved in this process (the disk cache stays)."""
    with _lock:
        _memo.clear()


__all__ = [
    "INFERENCE_VERSION",
    "IntrospectionError",
    "available_named",
    "clear_memo",
    "corpora_root",
    "fixtures_cache_dir",
    "load_tpch_extension",
    "named_fixture",
    "named_introspection",
    "spider_ids",
    "tpch_available",
    "tpch_introspection",
    "unavailable_named",
]
