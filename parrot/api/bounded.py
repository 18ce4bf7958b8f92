"""A cache bounded by entry count and by a size its values report, that never drops the newest.

The engine workers keep fixtures with it (``parrot.engines.worker``) and the judge keeps loaded
test suites (``parrot.eval.suites``): the same least-recently-used bookkeeping, with the
worker choosing its own victims (fixtures used by few executions go first)."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable, Sequence
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


def least_recent(older: Sequence[K]) -> K:
    """The default victim: the least recently used key."""
    return older[0]


class BoundedCache(Generic[K, V]):
    """Values by key, at most ``entries`` of them and at most ``size`` in all as ``measure``
    counts each value. Past either bound, ``victim`` picks the key to drop among all but the
    newest (they come least recently used first) until both hold or one entry is left: a value
    larger than ``size`` is kept alone. ``on_evict`` hears of every dropped entry."""

    def __init__(
        self,
        entries: int,
        size: int,
        measure: Callable[[V], int],
        victim: Callable[[Sequence[K]], K] = least_recent,
        on_evict: Callable[[K, V], None] | None = None,
    ) -> None:
        self.max_entries = entries
        self.max_size = size
        self._measure = measure
        self._victim = victim
        self._on_evict = on_evict
        self._kept: OrderedDict[K, tuple[V, int]] = OrderedDict()  # least recently used first
        self.size = 0  # of the kept values, as ``measure`` counts

    def __len__(self) -> int:
        return len(self._kept)

    def __contains__(self, key: object) -> bool:
        return key in self._kept

    def get(self, key: K) -> V:
        """The value kept under ``key``, now the most recently used; KeyError when none is."""
        self._kept.move_to_end(key)
        return self._kept[key][0]

    def put(self, key: K, value: V) -> None:
        """Keep ``value`` under ``key`` as the most recently used, then drop victims."""
        old = self._kept.pop(key, None)
        if old is not None:
            self.size -= old[1]
        measured = self._measure(value)
        self._kept[key] = (value, measured)
        self.size += measured
        while len(self._kept) > 1 and (
            len(self._kept) > self.max_entries or self.size > self.max_size
        ):
            dropped = self._victim(list(self._kept)[:-1])
            gone, gone_size = self._kept.pop(dropped)
            self.size -= gone_size
            if self._on_evict is not None:
                self._on_evict(dropped, gone)
