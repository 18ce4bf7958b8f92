"""parrot.api.bounded.BoundedCache: the one least-recently-used cache behind the engine workers'
fixtures and the judge's loaded suites."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from parrot.api.bounded import BoundedCache

# (entries, size, puts as (key, size), gets between them, kept afterwards in recency order)
CASES = [
    pytest.param(2, 100, [("a", 1), ("b", 1), ("c", 1)], {}, ["b", "c"], id="count-bound"),
    pytest.param(9, 5, [("a", 2), ("b", 2), ("c", 2)], {}, ["b", "c"], id="size-bound"),
    pytest.param(2, 100, [("a", 1), ("b", 1), ("c", 1)], {1: "a"}, ["a", "c"], id="get-refreshes"),
    pytest.param(9, 5, [("a", 1), ("b", 9)], {}, ["b"], id="newest-kept-alone"),
    pytest.param(9, 5, [("a", 3), ("a", 1), ("b", 3)], {}, ["a", "b"], id="re-put-resizes"),
]


@pytest.mark.parametrize(("entries", "size", "puts", "gets", "kept"), CASES)
def test_bounds_and_recency(
    entries: int, size: int, puts: list[tuple[str, int]], gets: dict[int, str], kept: list[str]
) -> None:
    evicted: list[str] = []
    cache: BoundedCache[str, int] = BoundedCache(
        entries, size, lambda v: v, on_evict=lambda k, v: evicted.append(k)
    )
    for n, (key, value) in enumerate(puts):
        cache.put(key, value)
        if n in gets:
            assert cache.get(gets[n]) is not None
    assert list(cache._kept) == kept
    assert cache.size == sum(cache._kept[k][0] for k in kept)
    assert set(evicted) == {k for k, _ in puts} - set(kept)


def test_a_victim_policy_chooses_among_all_but_the_newest() -> None:
    seen: list[list[str]] = []

    def last_of_older(older: Sequence[str]) -> str:
        seen.append(list(older))
        return older[-1]

    cache: BoundedCache[str, int] = BoundedCache(2, 100, lambda v: 0, victim=last_of_older)
    for key in "abc":
        cache.put(key, 0)
    assert seen == [["a", "b"]] and list(cache._kept) == ["a", "c"]


def test_a_missing_key_raises_key_error() -> None:
    cache: BoundedCache[str, int] = BoundedCache(2, 2, lambda v: 1)
    with pytest.raises(KeyError):
        cache.get("nope")
    assert "nope" not in cache and len(cache) == 0
