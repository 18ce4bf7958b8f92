"""An asyncio event loop on a daemon thread, fed from synchronous code.

The runner consumes translations from a plain iterator; the LLM translators keep their requests
in flight on this loop meanwhile, so model latency overlaps with execution on the engines.
"""

from __future__ import annotations

import asyncio
import atexit
import queue
import threading
from collections.abc import Awaitable, Callable, Coroutine, Iterable, Iterator
from concurrent.futures import Future
from functools import lru_cache
from typing import Any, TypeVar

A = TypeVar("A")
B = TypeVar("B")
T = TypeVar("T")


class LoopThread:
    """An event loop on its own thread. litellm keeps HTTP clients bound to the loop that made
    them, so the process shares one (:func:`shared_loop`) instead of making loops per run."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(
            target=self.loop.run_forever, name="parrot-llm", daemon=True
        )
        self._thread.start()

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run ``coro`` on the loop and wait for its result."""
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result()

    def map_unordered(
        self, fn: Callable[[A], Awaitable[B]], args: Iterable[A]
    ) -> Iterator[tuple[A, B]]:
        """``(arg, await fn(arg))`` for every arg, as each finishes; all start at once (``fn``
        bounds its own concurrency). Closing the iterator cancels what is still running."""
        done: queue.Queue[tuple[A, B | BaseException]] = queue.Queue()

        async def one(arg: A) -> None:
            try:
                done.put((arg, await fn(arg)))
            except Exception as exc:
                done.put((arg, exc))

        futures: list[Future[None]] = [
            asyncio.run_coroutine_threadsafe(one(a), self.loop) for a in args
        ]
        try:
            for _ in futures:
                arg, result = done.get()
                if isinstance(result, BaseException):
                    raise result
                yield arg, result
        finally:
            for future in futures:
                future.cancel()

    def close(self) -> None:
        """Cancel what still runs (litellm's logging worker, idle connections), then stop."""
        if self._thread.is_alive():
            self.run(_cancel_all())
            self.loop.call_soon_threadsafe(self.loop.stop)
            self._thread.join(timeout=10)
        if not self.loop.is_running():
            self.loop.close()


async def _cancel_all() -> None:
    tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


@lru_cache(maxsize=1)
def shared_loop() -> LoopThread:
    """The process's loop for model calls, closed at exit."""
    loop = LoopThread()
    atexit.register(loop.close)
    return loop
