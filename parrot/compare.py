"""Result comparison: does the translation's result equal the source query's?

(README, "What the numbers mean".)

A pure function of two :class:`~parrot.values.ResultSet` objects and the item's
:class:`CompareFacts`. Three modes share one matcher and differ only in how cells are keyed and
compared (a :class:`_Profile`):

* ``strict`` (Acc_RES): columns by position, exact values bridged across type families, float noise
  within a relative tolerance, a DECIMAL quotient or average at the engine's scale (≥ 4 decimals)
  equal to a longer number that rounds to it;
* ``normalized`` (PolySQL's Algorithm 1): lower-cased names with extra prediction columns allowed,
  stripped strings, numbers within 1e-5;
* ``multiset`` (UniQL's protocol, bugs fixed): numbers rounded to 3 decimals.

Rows are a multiset in every mode; when the gold orders at top level, order counts except inside
runs of rows tied on the sort keys. Rows pair up by hashing, and rows equal only within a tolerance
by a sorted merge, so 100k-row results cost O(n·k + n log n); only the few rows left over are
compared cell by cell to explain a mismatch with a :class:`Reason`.
"""

from __future__ import annotations

import datetime as dt
import gc
import math
import re
import struct
from array import array
from collections import Counter, defaultdict
from collections.abc import Callable, Hashable, Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, replace
from decimal import ROUND_HALF_UP, Context, Decimal
from enum import StrEnum
from itertools import repeat
from operator import itemgetter
from typing import Any, TypeGuard, cast

from parrot.values import Nested, ResultSet, Temporal, Value, family, to_json

Row = tuple[Value, ...]
Rows = Sequence[Row]


# The version of the verdict rules: bumped whenever a change can turn a verdict (2: decimals from
# inexact operations at the engine's scale, any rows of a tie group a LIMIT cuts; 3: sort keys tie
# within the mode's tolerance, a prediction whose own LIMIT cuts ties is not determined). Run
# manifests record it; leaderboards never rank runs judged under different rules against each other.
SEMANTICS_VERSION = 3


class Mode(StrEnum):
    STRICT = "strict"
    NORMALIZED = "normalized"
    MULTISET = "multiset"


class Reason(StrEnum):
    MATCH = "match"
    EMPTY_MATCH = "empty_match"
    COLUMN_COUNT = "column_count"
    ROW_COUNT = "row_count"
    ROWS = "rows"
    ORDER = "order"
    VALUE = "value"
    PRECISION = "precision"
    WHITESPACE = "whitespace"
    CASE = "case"
    NULL_VS_EMPTY = "null_vs_empty"
    TEMPORAL_FORMAT = "temporal_format"
    TYPE_FAMILY = "type_family"
    PRED_ERROR = "pred_error"
    GOLD_ERROR = "gold_error"
    TIMEOUT = "timeout"
    NO_ENGINE = "no_engine"  # an engine of the item is missing here: not judged, not counted


_FAILURES = frozenset({Reason.PRED_ERROR, Reason.GOLD_ERROR, Reason.TIMEOUT, Reason.NO_ENGINE})

_WHY = {
    Reason.VALUE: "the values differ",
    Reason.PRECISION: "the numbers agree only to the decimals the shorter one shows",
    Reason.WHITESPACE: "the strings differ only in whitespace",
    Reason.CASE: "the strings differ only in letter case",
    Reason.NULL_VS_EMPTY: "NULL on one side, an empty string on the other",
    Reason.TEMPORAL_FORMAT: "the same date/time in a different format or temporal type",
    Reason.TYPE_FAMILY: "the values belong to different type families",
}


@dataclass(frozen=True)
class CompareFacts:
    """What the comparator must know about the gold (source) query, decided from its AST."""

    order_sensitive: bool = False  # the gold query has a top-level ORDER BY
    # one tuple per gold row: its ORDER BY key values; consecutive equal keys are ties. None with
    # order_sensitive: every row is its own group (strict positions)
    sort_keys: tuple[tuple[Value, ...], ...] | None = None
    rel_tol: float = 1e-9  # strict-mode float noise tolerance (relative)
    # gold positions filled from a tie group that the source's LIMIT/OFFSET cuts (ordered gold)
    tie_pools: tuple[TiePool, ...] = ()
    # the same for the prediction's own LIMIT/OFFSET (rows of the prediction's unlimited result):
    # a match only when every choice the engine could make there is a right answer
    pred_pools: tuple[TiePool, ...] = ()


@dataclass(frozen=True)
class TiePool:
    """Gold rows [start, end) come from a tie group cut by the source's LIMIT/OFFSET: any
    ``end - start`` of the group's ``rows`` (from the unlimited source) are a right answer."""

    start: int
    end: int
    rows: tuple[Row, ...]


@dataclass(frozen=True)
class Cell:
    """The first differing cell: gold row index and gold column index (0-based)."""

    row: int | None
    column: int | None
    gold: Value
    pred: Value


@dataclass(frozen=True)
class Verdict:
    mode: Mode
    match: bool
    reason: Reason
    detail: str  # one human sentence explaining why
    cell: Cell | None = None
    notes: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """A JSON-safe rendering for results files."""
        cell = self.cell and {
            "row": self.cell.row,
            "column": self.cell.column,
            "gold": to_json(self.cell.gold),
            "pred": to_json(self.cell.pred),
        }
        return {
            "mode": self.mode.value,
            "match": self.match,
            "reason": self.reason.value,
            "detail": self.detail,
            "cell": cell,
            "notes": list(self.notes),
        }


def failure(mode: Mode, reason: Reason, detail: str) -> Verdict:
    """The verdict for an execution that produced no result (never a match, never a data row)."""
    if reason not in _FAILURES:
        raise ValueError(
            f"failure() takes pred_error, gold_error, timeout or no_engine, not {reason}"
        )
    return Verdict(Mode(mode), False, Reason(reason), detail)


def compare(
    gold: ResultSet, pred: ResultSet, facts: CompareFacts = CompareFacts(), mode: Mode = Mode.STRICT
) -> Verdict:
    """Compare the prediction's result with the gold result in one mode."""
    mode = Mode(mode)
    aligned = _align(gold.columns, pred.columns, mode)
    if aligned is None:
        return Verdict(
            mode,
            False,
            Reason.COLUMN_COUNT,
            f"gold has {len(gold.columns)} columns ({', '.join(gold.columns)}), "
            f"prediction {len(pred.columns)} ({', '.join(pred.columns)})",
        )
    cols, notes = aligned
    pred_rows: Rows = pred.rows
    if cols != list(range(len(pred.columns))):
        pred_rows = [tuple(row[c] for c in cols) for row in pred.rows]
        facts = replace(
            facts,
            pred_pools=tuple(
                replace(p, rows=tuple(tuple(row[c] for c in cols) for row in p.rows))
                for p in facts.pred_pools
            ),
        )
    with _gc_paused():
        reason, detail, cell = _compare_rows(gold.rows, pred_rows, gold.columns, mode, facts)
    matched = reason in (Reason.MATCH, Reason.EMPTY_MATCH)
    return Verdict(mode, matched, reason, detail, cell, notes)


@contextmanager
def _gc_paused() -> Iterator[None]:
    """No cyclic garbage collection while rows are keyed: the comparator makes a few small tuples
    per row and no reference cycles, and the collector's passes over them cost up to half the
    time of a large comparison."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def compare_all(
    gold: ResultSet, pred: ResultSet, facts: CompareFacts = CompareFacts()
) -> dict[Mode, Verdict]:
    """Verdicts in all three modes."""
    return {mode: compare(gold, pred, facts, mode) for mode in Mode}


# --- columns -----------------------------------------------------------------------------------


def _align(
    gold: Sequence[str], pred: Sequence[str], mode: Mode
) -> tuple[list[int], tuple[str, ...]] | None:
    """The prediction column compared with each gold column, plus notes; None: column_count.

    Strict and multiset pair columns by position. Normalized lower-cases the names and projects the
    prediction onto the gold's names when it has them all (extra columns allowed), else falls back
    to positions.
    """
    if mode is Mode.NORMALIZED:
        gold, pred = [c.lower() for c in gold], [c.lower() for c in pred]
        if len(set(gold)) == len(gold) and set(gold) <= set(pred):
            extra = [c for c in pred if c not in gold]
            notes: tuple[str, ...] = ()
            if extra:
                notes = (f"prediction's extra columns ignored: {', '.join(extra)}",)
            return [pred.index(c) for c in gold], notes
    if len(gold) != len(pred):
        return None
    pairs = zip(gold, pred, strict=True)
    notes = tuple(f"column names differ: {g} vs {p}" for g, p in pairs if g != p)
    return list(range(len(gold))), notes


# --- cell semantics per mode -------------------------------------------------------------------

_NAN = ("nan",)  # the key every NaN shares: NaN equals NaN


def _is_num(v: Value) -> TypeGuard[int | float | Decimal]:
    """A number; booleans count, which bridges engines that return 0/1 for true/false."""
    return isinstance(v, int | float | Decimal)


def _is_nan(v: Value) -> bool:
    return (isinstance(v, float) and math.isnan(v)) or (isinstance(v, Decimal) and v.is_nan())


def _real(v: Value) -> TypeGuard[int | float | Decimal]:
    """A number that is not NaN."""
    return _is_num(v) and not _is_nan(v)


_PLAIN: frozenset[type] = frozenset({str, int, bool, bytes, type(None)})  # their own key
_NUMERIC: frozenset[type] = frozenset({int, float, bool})
_DOUBLE, _BITS = struct.Struct("=d"), struct.Struct("=Q")  # a float's IEEE 754 bits


def _key(v: Value) -> Hashable:
    """The strict canonical key: equal keys exactly when the values are equal (before tolerance).

    Python already compares bool, int, float and Decimal by exact value with consistent hashes; a
    Temporal keys as its ISO text, so it equals the same text from an engine without date types.
    """
    kind = type(v)
    if kind in _PLAIN:
        return v
    if kind is float:
        return v if v == v else _NAN
    if _is_nan(v):
        return _NAN
    if isinstance(v, Temporal):
        return v.iso
    if isinstance(v, Nested):
        return ("nested", v.json)
    return v


def _float(v: int | float | Decimal) -> float:
    """The nearest float (an infinity for a number beyond the float range)."""
    try:
        return float(v)
    except OverflowError:
        return math.inf if v > 0 else -math.inf


def _any_nan(column: Sequence[Value], kinds: set[type]) -> bool:
    """Whether a column of the ``kinds`` holds a NaN (True also when a number is beyond the float
    range, so the column is keyed cell by cell)."""
    if kinds <= _NUMERIC:
        try:
            return any(map(math.isnan, column))  # type: ignore[arg-type]
        except OverflowError:
            return True
    return any(v != v for v in column)  # among the plain types only NaN differs from itself


def _decimal(v: int | float | Decimal) -> Decimal:
    """The decimal a number shows (a float as its shortest repr, so 2.675 is 2.675)."""
    return Decimal(repr(v)) if isinstance(v, float) else Decimal(v)


def _places(d: Decimal) -> int:
    """The decimals a finite Decimal shows (0 for an integer, negative exponents count)."""
    return -int(d.as_tuple().exponent)


def _round(d: Decimal, places: int) -> Decimal:
    """Round half away from zero to `places` decimals, exactly at any magnitude."""
    context = Context(prec=max(28, d.adjusted() + places + 2))
    return d.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP, context=context)


def _grid(x: float, digits: int) -> float:
    """`x` rounded to `digits` significant digits."""
    return float(f"{x:.{digits}g}")


@dataclass(frozen=True)
class _Profile:
    """How one mode keys and compares cells."""

    key: Callable[[Value], Hashable]  # equal keys imply equal cells
    same: Callable[[Value, Value], bool]  # the mode's cell equality
    grid: Callable[[float], float]  # coarse rounding: numbers the mode calls equal mostly coincide
    bits: int  # the same for :meth:`coarse`, as significant bits (cheaper than decimal digits)
    itself: frozenset[type]  # cell types whose key is the value itself (floats unless NaN)

    def row_key(self, row: Row) -> Hashable:
        return tuple(map(self.key, row))

    def coarse(self, v: Value) -> Hashable:
        """A cell's key with numbers on a binary grid of ``bits`` significant bits: cells equal in
        the mode almost always share it (a near-tie across a grid line does not)."""
        kind = type(v)
        if kind is str and self.key is _key:
            return v
        if kind in _NUMERIC or _real(v):
            x = _float(v)  # type: ignore[arg-type]
            if x != x:
                return _NAN
            code: int = _BITS.unpack(_DOUBLE.pack(x))[0]  # sign, exponent, mantissa bits
            return code >> (52 - self.bits)
        return self.key(v)

    def keys(self, rows: Rows, coarse: bool = False) -> list[Hashable]:
        """Every row's :meth:`row_key` (``coarse``: its cells' :meth:`coarse` keys), computed a
        column at a time: a column of one type that keys as itself is taken whole."""
        if not rows:
            return []
        cell = self.coarse if coarse else self.key
        columns: list[Sequence[Hashable]] = []
        for column in zip(*rows, strict=True):
            kinds = set(map(type, column))
            if kinds <= self.itself and (float not in kinds or not _any_nan(column, kinds)):
                if coarse and kinds & _NUMERIC:
                    if kinds <= _NUMERIC:  # the cells' :meth:`coarse` codes, in bulk
                        with suppress(OverflowError):  # an integer beyond the float range
                            codes = memoryview(array("d", column)).cast("B").cast("Q").tolist()
                            shift = 52 - self.bits
                            columns.append([code >> shift for code in codes])
                            continue
                    columns.append(list(map(cell, column)))
                else:
                    columns.append(column)
            else:
                columns.append(list(map(cell, column)))
        return list(zip(*columns, strict=True))

    def row_order(self, row: Row) -> tuple[Any, ...]:
        """A total order in which rows equal in the mode (almost always) sit side by side.

        Numbers compare on the coarse grid first, so a near-tie yields to the next column, and
        exactly last; other values by family, then key.
        """
        coarse = tuple(
            (1, self.grid(_float(v))) if _real(v) else (2, type(k).__name__, k)
            for v, k in zip(row, map(self.key, row), strict=True)
        )
        return coarse, tuple(_float(v) if _real(v) else 0.0 for v in row)

    def rows_same(self, gold: Row, pred: Row) -> bool:
        return all(map(self.same, gold, pred))


# The fewest decimals an engine gives the DECIMAL result of an inexact operation (a quotient, an
# average): MariaDB's div_precision_increment. PostgreSQL gives 16 or more, Spark 6 or more.
INEXACT_SCALE = 4


def _same_at_scale(a: Value, b: Value) -> bool:
    """Whether one side is a DECIMAL with at least :data:`INEXACT_SCALE` decimals and the other, a
    number with more decimals, rounds half-up to it (MariaDB's 3.3333 vs 3.3333333333333335)."""
    for short, other in ((a, b), (b, a)):
        if isinstance(short, Decimal) and short.is_finite() and _real(other):
            places, long = _places(short), _decimal(other)
            if places >= INEXACT_SCALE and long.is_finite() and _places(long) > places:
                return _round(long, places) == short
    return False


def _strict(rel_tol: float) -> _Profile:
    """Exact values; when either side is a float, equal within relative `rel_tol`; a DECIMAL with
    at least :data:`INEXACT_SCALE` decimals equals a longer number that rounds to it."""
    digits = 17 if rel_tol <= 0 else min(17, max(1, math.floor(-math.log10(rel_tol)) - 3))

    def same(a: Value, b: Value) -> bool:
        kind = type(a)
        if kind is type(b):  # the common cases first: one type on both sides
            if kind in _PLAIN:
                return a == b
            if kind is float:
                if a == a and b == b:  # neither NaN
                    return math.isclose(a, b, rel_tol=rel_tol)  # type: ignore[arg-type]
                return a != a and b != b
        if (isinstance(a, float) or isinstance(b, float)) and _real(a) and _real(b):
            return math.isclose(_float(a), _float(b), rel_tol=rel_tol) or _same_at_scale(a, b)
        return _key(a) == _key(b) or _same_at_scale(a, b)

    return _Profile(
        _key, same, lambda x: _grid(x, digits), math.ceil(digits * math.log2(10)), _PLAIN | {float}
    )


def _normalized_key(v: Value) -> Hashable:
    return v.strip() if isinstance(v, str) else _key(v)


def _normalized_same(a: Value, b: Value) -> bool:
    if _real(a) and _real(b):
        return math.isclose(_float(a), _float(b), rel_tol=1e-5, abs_tol=1e-5)
    return _normalized_key(a) == _normalized_key(b)


def _rounded_key(v: Value) -> Hashable:
    """Numbers rounded half away from zero to 3 decimals, as an integer count of thousandths;
    everything else strict."""
    kind = type(v)
    if kind is str or v is None:
        return v
    if kind is int:
        return cast(int, v) * 1000
    if kind is float and -1e6 < (x := cast(float, v)) < 1e6:
        scaled = abs(x) * 1000.0
        whole = math.floor(scaled)
        # the product and the repr are within 2e-7 of the exact value: clear of a half, the
        # float rounds as the decimal it shows would
        if abs(scaled - whole - 0.5) > 1e-6:
            thousandths = whole + (scaled - whole > 0.5)
            return thousandths if x >= 0 else -thousandths
    if _real(v) and (d := _decimal(v)).is_finite():
        return int(_round(d, 3).scaleb(3))
    return _key(v)


_NORMALIZED = _Profile(
    _normalized_key,
    _normalized_same,
    lambda x: round(x, 3) if abs(x) < 1 else _grid(x, 3),
    10,
    _PLAIN - {str} | {float},
)
_MULTISET = _Profile(
    _rounded_key,
    lambda a, b: _rounded_key(a) == _rounded_key(b),
    lambda x: round(x, 3),
    10,
    frozenset({str, type(None), bytes}),
)


def _profile(mode: Mode, facts: CompareFacts) -> _Profile:
    if mode is Mode.STRICT:
        return _strict(facts.rel_tol)
    return _NORMALIZED if mode is Mode.NORMALIZED else _MULTISET


# --- rows --------------------------------------------------------------------------------------


def sort_keys_tied(a: Sequence[Value], b: Sequence[Value], rel_tol: float = 1e-9) -> bool:
    """Whether two rows' sort-key values tie: equal within strict mode's tolerance (float noise
    in a computed key is no order)."""
    return len(a) == len(b) and _strict(rel_tol).rows_same(tuple(a), tuple(b))


def _compare_rows(
    gold: Rows, pred: Rows, names: Sequence[str], mode: Mode, facts: CompareFacts
) -> tuple[Reason, str, Cell | None]:
    """Reason, detail and first differing cell for column-aligned rows; a match whose own LIMIT
    left the engine a choice among tied rows that not all are right is no match."""
    prof = _profile(mode, facts)
    reason, detail, cell = _compare_aligned(gold, pred, names, prof, facts)
    if reason is Reason.MATCH:
        for pool in facts.pred_pools:
            if not _determined(pool, facts.tie_pools, prof):
                kept = pool.end - pool.start
                return (
                    Reason.ORDER,
                    (
                        f"the prediction's LIMIT/OFFSET cuts through {len(pool.rows)} rows tied on "
                        f"its sort keys: rows {pool.start}–{pool.end - 1} may be any {kept} of "
                        f"them, "
                        "the engine's choice, and not every choice is right"
                    ),
                    None,
                )
    return reason, detail, cell


def _determined(pool: TiePool, gold_pools: Sequence[TiePool], prof: _Profile) -> bool:
    """Whether every choice among a prediction tie pool's rows is right: its rows are all equal,
    or all among the rows of a gold pool at the same positions (as a multiset)."""
    if all(prof.rows_same(pool.rows[0], row) for row in pool.rows):
        return True
    for gold in gold_pools:
        if (gold.start, gold.end) == (pool.start, pool.end) and len(gold.rows) >= len(pool.rows):
            free = list(gold.rows)
            for row in pool.rows:
                twin = next((n for n, g in enumerate(free) if prof.rows_same(g, row)), None)
                if twin is None:
                    break
                del free[twin]
            else:
                return True
    return False


def _compare_aligned(
    gold: Rows, pred: Rows, names: Sequence[str], prof: _Profile, facts: CompareFacts
) -> tuple[Reason, str, Cell | None]:
    """:func:`_compare_rows` before the prediction's own tie pools are looked at."""
    if len(gold) != len(pred):
        return Reason.ROW_COUNT, _row_count_detail(gold, pred, prof), None
    if not gold:
        return Reason.EMPTY_MATCH, "both results are empty: a match, flagged as empty", None
    groups = _groups(facts, len(gold), prof)
    if facts.tie_pools:  # unordered: one pool, any pick of the unlimited result's rows
        gold = _fill_pools(gold, pred, facts.tie_pools, prof)
    if groups is None:
        miss = _unpaired(gold, pred, prof)
    else:
        bad = next((g for g in groups if not _group_equal(gold, pred, g, prof)), None)
        if bad is None:
            return Reason.MATCH, f"equal in the gold's order: {_rows(len(gold))}", None
        miss = _unpaired(gold, pred, prof, positional=True)
        if miss is None:
            return _order(gold, pred, bad, names, prof)
    if miss is None:
        return Reason.MATCH, f"equal as multisets: {_rows(len(gold))}", None
    return _mismatch(gold, pred, *miss, names, prof)


def _rows(n: int) -> str:
    return f"{n} row" if n == 1 else f"{n} rows"


def _row_count_detail(gold: Rows, pred: Rows, prof: _Profile) -> str:
    if not pred:
        return f"the prediction is empty but gold has {_rows(len(gold))}"
    if not gold:
        return f"gold is empty but the prediction has {_rows(len(pred))}"
    detail = f"gold has {_rows(len(gold))}, the prediction {len(pred)}"
    if set(map(prof.row_key, gold)) == set(map(prof.row_key, pred)):
        detail += "; the distinct rows agree, so only duplicates differ (DISTINCT added or lost?)"
    return detail


def _groups(facts: CompareFacts, n: int, prof: _Profile) -> list[tuple[int, int]] | None:
    """Runs [start, end) of gold rows that must come in this order; None when order is free.

    Consecutive rows whose sort keys are equal in the mode (its tolerance included) are tied."""
    if not facts.order_sensitive:
        return None
    if facts.sort_keys is None:
        return [(i, i + 1) for i in range(n)]
    if len(facts.sort_keys) != n:
        raise ValueError(f"{len(facts.sort_keys)} sort keys for {_rows(n)} of gold")
    keys = facts.sort_keys
    starts = [i for i in range(n) if i == 0 or not prof.rows_same(keys[i - 1], keys[i])]
    return list(zip(starts, [*starts[1:], n], strict=True))


def _fill_pools(gold: Rows, pred: Rows, pools: Sequence[TiePool], prof: _Profile) -> Rows:
    """The gold with each pool's positions holding the prediction's rows there, when those are
    distinct rows of the pool (so any choice among the cut ties matches); else unchanged."""
    out = list(gold)
    for pool in pools:
        free: dict[Hashable, list[Row]] = defaultdict(list)
        for row in pool.rows:
            free[prof.row_key(row)].append(row)
        chosen: list[Row] = []
        for row in pred[pool.start : pool.end]:
            bucket = free.get(prof.row_key(row)) or next(
                (b for b in free.values() if b and prof.rows_same(b[-1], row)), None
            )
            if not bucket:
                break
            chosen.append(bucket.pop())
        else:
            out[pool.start : pool.end] = chosen
    return out


def _group_equal(gold: Rows, pred: Rows, group: tuple[int, int], prof: _Profile) -> bool:
    """Whether the prediction's segment at a tie group's positions is that group as a multiset."""
    start, end = group
    if end - start == 1:
        return prof.rows_same(gold[start], pred[start])
    return _unpaired(gold[start:end], pred[start:end], prof) is None


def _unpaired(
    gold: Rows, pred: Rows, prof: _Profile, positional: bool = False
) -> tuple[int, int] | None:
    """The first gold row without an equal prediction row, and the prediction row explaining it.

    Equal-length inputs. Rows pair by hashing exact keys, then the rest (equal only within the
    mode's tolerance) by a sorted merge; None when every gold row finds a partner.
    """
    near = _near_first(gold, pred, prof) if _floats_differ(gold, pred) else None
    if near is not None:
        left_gold, left_pred = near
    else:
        left_gold, left_pred = _pair(prof.keys(gold), prof.keys(pred))
        if left_gold:  # rows equal within tolerance almost always share a coarse key
            left_gold, left_pred = _pair_near(gold, pred, left_gold, left_pred, prof)
    if left_gold:
        left_gold, left_pred = _merge(gold, pred, left_gold, left_pred, prof)
    return _closest(gold, pred, left_gold, left_pred, prof, positional) if left_gold else None


def _floats_differ(gold: Rows, pred: Rows) -> bool:
    """Whether most of a sample of a float column's gold values have no exact twin in the
    prediction's column: then most rows cannot pair by their exact keys (float noise, the usual
    reason, moves them all), and pairing by exact keys first would only cost a pass. One pass
    over the prediction's column (a set intersection); it decides how fast the rows pair, never
    how."""
    if not gold or not pred:
        return False
    sample = gold[:: max(1, len(gold) // _PROBE)]
    for c, v in enumerate(gold[0]):
        if type(v) is float:
            values = {row[c] for row in sample if type(row[c]) is float and row[c] == row[c]}
            with suppress(TypeError):  # an unhashable cell in the prediction's column
                if values and 2 * len(values.intersection(map(itemgetter(c), pred))) < len(values):
                    return True
    return False


def _near_first(gold: Rows, pred: Rows, prof: _Profile) -> tuple[list[int], list[int]] | None:
    """Pair every row by its coarse key at once — the pairs the exact and then the coarse pass
    of :func:`_unpaired` would make, when both sides' coarse keys are unique and every pair is
    equal in the mode (a row's exact partner is then its only coarse one); the indices left
    over, or None when that does not hold (the two passes then run as usual)."""
    gold_keys, pred_keys = prof.keys(gold, coarse=True), prof.keys(pred, coarse=True)
    index = dict(zip(pred_keys, range(len(pred)), strict=True))
    if len(index) != len(pred_keys) or len(set(gold_keys)) != len(gold_keys):
        return None
    partners = list(map(index.pop, gold_keys, repeat(-1)))
    pairs = [(i, j) for i, j in enumerate(partners) if j >= 0]
    if not _all_same(pairs, gold, pred, prof):
        return None
    return [i for i, j in enumerate(partners) if j < 0], sorted(index.values())


def _pair_near(
    gold: Rows, pred: Rows, left_gold: list[int], left_pred: list[int], prof: _Profile
) -> tuple[list[int], list[int]]:
    """Pair rows by their coarse keys, each pair equal in the mode; the indices left over.

    With unique coarse keys the pairs are checked all at once, a column at a time; otherwise, or
    when a pair fails, pair by pair (:func:`_pair` with a check)."""
    gold_keys = prof.keys([gold[i] for i in left_gold], coarse=True)
    pred_keys = prof.keys([pred[j] for j in left_pred], coarse=True)
    index = dict(zip(pred_keys, left_pred, strict=True))
    if len(index) == len(pred_keys):
        partners = list(map(index.pop, gold_keys, repeat(-1)))
        pairs = [(i, j) for i, j in zip(left_gold, partners, strict=True) if j >= 0]
        if _all_same(pairs, gold, pred, prof):
            rest = [i for i, j in zip(left_gold, partners, strict=True) if j < 0]
            return rest, sorted(index.values())
    return _pair(
        gold_keys, pred_keys, left_gold, left_pred, lambda i, j: prof.rows_same(gold[i], pred[j])
    )


def _all_same(pairs: list[tuple[int, int]], gold: Rows, pred: Rows, prof: _Profile) -> bool:
    """Whether every (gold, prediction) pair of rows is equal in the mode, checked a column at a
    time (a column equal by ``==`` is equal in every mode)."""
    if not pairs:
        return True
    gold_columns = zip(*(gold[i] for i, _ in pairs), strict=True)
    pred_columns = zip(*(pred[j] for _, j in pairs), strict=True)
    return all(
        g == p or all(map(prof.same, g, p)) for g, p in zip(gold_columns, pred_columns, strict=True)
    )


_PROBE = 64  # gold rows sampled by _floats_differ
_NEAR_SCAN = 8  # rows sharing a coarse key tried for a gold row before leaving it to the merge


def _pair(
    gold: list[Hashable],
    pred: list[Hashable],
    gold_ids: Sequence[int] | None = None,
    pred_ids: Sequence[int] | None = None,
    verify: Callable[[int, int], bool] | None = None,
) -> tuple[list[int], list[int]]:
    """Pair rows by equal keys; the gold and prediction indices left over, ascending.

    ``gold``/``pred`` key the rows ``gold_ids``/``pred_ids`` (default: all, in order). With
    ``verify`` (a coarse key only suggests a partner) a pair must also pass ``verify(i, j)``.
    """
    gold_ids = range(len(gold)) if gold_ids is None else gold_ids
    pred_ids = range(len(pred)) if pred_ids is None else pred_ids
    index = dict(zip(pred, pred_ids, strict=True))
    if len(index) == len(pred):  # unique prediction keys (the usual case): one dict, no lists
        take = index.pop
        if verify is None:
            left = [i for i, j in zip(gold_ids, map(take, gold, repeat(-1)), strict=False) if j < 0]
            return left, sorted(index.values())
        left = []
        for i, key in zip(gold_ids, gold, strict=True):
            j = take(key, -1)
            if j >= 0 and not verify(i, j):
                index[key] = j
                j = -1
            if j < 0:
                left.append(i)
        return left, sorted(index.values())
    buckets: dict[Hashable, list[int]] = defaultdict(list)
    for j, key in zip(pred_ids, pred, strict=True):
        buckets[key].append(j)
    left = []
    for i, key in zip(gold_ids, gold, strict=True):
        bucket = buckets.get(key)
        found = _partner(i, bucket, verify) if bucket else None
        if bucket is None or found is None:
            left.append(i)
        else:
            del bucket[found]
    return left, sorted(j for bucket in buckets.values() for j in bucket)


def _partner(i: int, bucket: list[int], verify: Callable[[int, int], bool] | None) -> int | None:
    """The position in ``bucket`` of gold row ``i``'s partner (the last row that passes
    ``verify``, among the last :data:`_NEAR_SCAN`), or None."""
    if verify is None:
        return len(bucket) - 1
    last = len(bucket) - 1
    return next(
        (n for n in range(last, max(-1, last - _NEAR_SCAN), -1) if verify(i, bucket[n])), None
    )


def _merge(
    gold: Rows, pred: Rows, left_gold: list[int], left_pred: list[int], prof: _Profile
) -> tuple[list[int], list[int]]:
    """Pair rows equal within tolerance by walking both sides in :meth:`_Profile.row_order`."""
    g_order = {i: prof.row_order(gold[i]) for i in left_gold}
    p_order = {j: prof.row_order(pred[j]) for j in left_pred}
    gs, ps = sorted(left_gold, key=g_order.__getitem__), sorted(left_pred, key=p_order.__getitem__)
    rest_gold, rest_pred = [], []
    a = b = 0
    while a < len(gs) and b < len(ps):
        i, j = gs[a], ps[b]
        if prof.rows_same(gold[i], pred[j]):
            a, b = a + 1, b + 1
        elif g_order[i] <= p_order[j]:
            rest_gold.append(i)
            a += 1
        else:
            rest_pred.append(j)
            b += 1
    return sorted(rest_gold + gs[a:]), sorted(rest_pred + ps[b:])


def _closest(
    gold: Rows,
    pred: Rows,
    left_gold: list[int],
    left_pred: list[int],
    prof: _Profile,
    positional: bool,
) -> tuple[int, int] | None:
    """Walk the leftover gold rows in order, pairing each with an equal leftover prediction row.

    (Rows the merge could not line up land here.) The first gold row with no equal row is
    returned with its most alike prediction row (most cells alike by :func:`_likeness`), or with
    the prediction row at its own position when order matters.
    """
    free = set(left_pred)
    index: dict[tuple[int, Hashable], list[int]] = defaultdict(list)
    for j in left_pred:
        for c, v in enumerate(pred[j]):
            index[c, _likeness(v)].append(j)
    for i in left_gold:
        votes = Counter(
            j for c, v in enumerate(gold[i]) for j in index.get((c, _likeness(v)), ()) if j in free
        )
        ranked = sorted(votes, key=lambda j: (-votes[j], j)) or sorted(free)
        if positional and i in free:
            ranked.insert(0, i)
        twin = next((j for j in ranked if prof.rows_same(gold[i], pred[j])), None)
        if twin is None:
            return i, ranked[0]
        free.remove(twin)
    return None


def _order(
    gold: Rows, pred: Rows, group: tuple[int, int], names: Sequence[str], prof: _Profile
) -> tuple[Reason, str, Cell]:
    """The verdict for equal multisets in the wrong order, at the first misplaced row."""
    start, end = group
    r = next((r for r in range(start, end) if not prof.rows_same(gold[r], pred[r])), start)
    c = next(iter(_differing(gold[r], pred[r], prof)), 0)
    g, p = gold[r][c], pred[r][c]
    detail = (
        f"the same rows in a different order: first out of place at row {r}, column {c} "
        f"({names[c]}): gold {_show(g)} vs prediction {_show(p)}"
    )
    return Reason.ORDER, detail, Cell(r, c, g, p)


def _mismatch(
    gold: Rows, pred: Rows, i: int, j: int, names: Sequence[str], prof: _Profile
) -> tuple[Reason, str, Cell]:
    """Explain gold row `i` by its first cell differing from prediction row `j`.

    When every cell differs by value (and there are several), no single cell explains the row:
    ``rows``.
    """
    g, p = gold[i], pred[j]
    diffs = _differing(g, p, prof)
    reasons = [_classify(g[c], p[c]) for c in diffs]
    c = diffs[0]
    where = f"gold row {i}" if i == j else f"gold row {i} (closest prediction row {j})"
    if len(g) > 1 and len(diffs) == len(g) and set(reasons) == {Reason.VALUE}:
        detail = f"{where} has no counterpart in the prediction: every value differs"
        return Reason.ROWS, detail, Cell(i, c, g[c], p[c])
    detail = (
        f"{where}, column {c} ({names[c]}): gold {_show(g[c])} vs prediction {_show(p[c])}: "
        f"{_WHY[reasons[0]]}"
    )
    return reasons[0], detail, Cell(i, c, g[c], p[c])


def _differing(gold: Row, pred: Row, prof: _Profile) -> list[int]:
    """The columns where two rows differ in the mode."""
    return [c for c, (g, p) in enumerate(zip(gold, pred, strict=True)) if not prof.same(g, p)]


def _show(v: Value) -> str:
    """A short rendering of a value for details."""
    if v is None:
        return "NULL"
    text = f"{v.kind} {v.iso!r}" if isinstance(v, Temporal) else repr(v)
    return text if len(text) <= 60 else text[:57] + "..."


# --- explaining a differing cell ---------------------------------------------------------------


def _classify(g: Value, p: Value) -> Reason:
    """Why two cells the mode calls different differ."""
    if g is None or p is None:
        other = p if g is None else g
        empty = isinstance(other, str) and not other.strip()
        return Reason.NULL_VS_EMPTY if empty else Reason.VALUE
    if _is_num(g) and _is_num(p):
        return Reason.PRECISION if _precision(g, p) else Reason.VALUE
    g_text, p_text = _text(g), _text(p)
    if g_text is not None and p_text is not None:
        if _collapse(g_text) == _collapse(p_text):
            return Reason.WHITESPACE
        if _collapse(g_text).casefold() == _collapse(p_text).casefold():
            return Reason.CASE
        g_when, p_when = _instant(g_text), _instant(p_text)
        if g_when is not None and p_when is not None:
            return Reason.TEMPORAL_FORMAT if g_when == p_when else Reason.VALUE
    return Reason.TYPE_FAMILY if family(g) != family(p) else Reason.VALUE


def _precision(g: int | float | Decimal, p: int | float | Decimal) -> bool:
    """Whether two numbers agree when rounded to the decimals the shorter one shows (at least 1).

    3.3333 vs 3.3333333 and 0.33 vs 0.3333 agree; 3 vs 3.5 (integer division) does not.
    """
    a, b = _decimal(g), _decimal(p)
    if not (a.is_finite() and b.is_finite()):
        return False
    places = min(max(0, _places(d)) for d in (a, b))
    return places > 0 and _round(a, places) == _round(b, places)


def _text(v: Value) -> str | None:
    """The text of a string or temporal value."""
    if isinstance(v, Temporal):
        return v.iso
    return v if isinstance(v, str) else None


def _collapse(text: str) -> str:
    return " ".join(text.split())


_ISO = re.compile(r"\d{4}-\d\d-\d\d(?:[ T]\d\d:\d\d(?::\d\d(?:\.\d+)?)?)?(?:Z|[+-]\d\d:?\d\d)?")
_CLOCK = re.compile(r"\d\d:\d\d(?::\d\d(?:\.\d+)?)?")
_DATE_FORMATS = ("%m/%d/%Y", "%m/%d/%Y %H:%M:%S", "%Y/%m/%d", "%Y/%m/%d %H:%M:%S", "%d.%m.%Y")


def _instant(text: str) -> dt.datetime | dt.time | None:
    """The moment a date/time text denotes (a date is its midnight, UTC when zoned), else None."""
    with suppress(ValueError):
        if _ISO.fullmatch(text):
            moment = dt.datetime.fromisoformat(text)
            return moment.astimezone(dt.UTC).replace(tzinfo=None) if moment.tzinfo else moment
        if _CLOCK.fullmatch(text):
            return dt.time.fromisoformat(text)
    for fmt in _DATE_FORMATS:
        with suppress(ValueError):
            return dt.datetime.strptime(text, fmt)
    return None


def _likeness(v: Value) -> Hashable:
    """A coarse key for choosing which prediction row best explains a gold row.

    Folds case and whitespace, reads date-like and numeric text, keeps 2 significant digits, so
    a gold row pairs with the row its cells are near-misses of.
    """
    text = _text(v)
    if text is not None:
        when = _instant(text)
        if when is not None:
            return when
        text = _collapse(text).casefold()
        try:
            v = float(text)
        except ValueError:
            return text
    return _grid(_float(v), 2) if _real(v) else _key(v)
