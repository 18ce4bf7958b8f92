"""Evaluation on a Ray cluster (imported only when ``--executor`` names Ray).

:func:`judged` shards items over Ray actors, each owning one :class:`~parrot.eval.judge.Judge` —
its embedded engines, and the servers it reaches by URL. The driver translates (so the LLM
concurrency limit and the response cache are the local ones) and receives every outcome record;
an actor that dies loses only its in-flight items, which the driver gives to another actor, while
a replacement actor starts. A managed server (PostgreSQL, MariaDB) that dies mid-run is restarted
by the driver (:class:`ManagedServers`): the items judged against the dead one are judged again
on the new URL, which every actor receives with its next item. A fixture goes to the object store
once (``ray.put``) and each actor fetches it once: items travel without it. Joining the cluster
and shipping parrot to it is :mod:`parrot.scale.cluster`'s.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import sys
import time
from collections import deque
from collections.abc import Iterator, Sequence
from typing import Any

from parrot.api.records import Outcome
from parrot.datasets import Item
from parrot.eval.judge import Judge
from parrot.scale import ExecutorError
from parrot.scale.cluster import ATTEMPTS, IN_FLIGHT, cluster_cpus, connect, shutdown
from parrot.servers import ServerError, server_for
from parrot.translators.base import Translation

STALL_SECONDS = 600.0  # no worker alive and none starting for this long stops the run
FIXTURES_KEPT = 64  # fixtures an actor keeps deserialised


class _JudgeActor:
    """One Ray actor: a Judge with its own engines, judging one item at a time."""

    def __init__(self, judge_args: dict[str, Any]):
        self._args = judge_args
        self._judge = Judge(**judge_args)
        self._fixtures: dict[str, Any] = {}  # content hash -> fixture, oldest first

    def ready(self) -> int:
        return os.getpid()

    def judge(
        self,
        item: Item,
        translation: Translation,
        urls: dict[str, str] | None = None,
        fixture: tuple[str, list[Any]] | None = None,
    ) -> Outcome:
        if fixture is not None:  # (content hash, [object ref]): fetched once per actor
            import ray  # deferred: Ray, the optional extra

            key, (ref,) = fixture
            if key not in self._fixtures:
                if len(self._fixtures) >= FIXTURES_KEPT:
                    self._fixtures.pop(next(iter(self._fixtures)))
                self._fixtures[key] = ray.get(ref)
            item = dataclasses.replace(item, fixture=self._fixtures[key])
        if urls is not None and urls != self._judge.urls:  # a managed server was restarted
            with contextlib.suppress(Exception):  # closing a dead server's connection may fail
                self._judge.close()
            self._args = {**self._args, "urls": dict(urls)}
            self._judge = Judge(**self._args)
        return self._judge.judge(item, translation)


def _engine_error_dialects(record: Outcome) -> set[str]:
    """The dialects whose execution in ``record`` ended in an engine error."""
    failed = set()
    for side, dialect in (("gold", record["source_dialect"]), ("pred", record["target_dialect"])):
        execution = record.get(side)
        if isinstance(execution, dict) and execution.get("status") == "engine_error":
            failed.add(dialect)
    return failed


class ManagedServers:
    """The managed servers (dialect -> URL) the driver started for a Ray run, restarted when
    one dies: each restart is a new *generation* of that dialect's URL. An item whose record
    shows an engine error on a managed dialect is judged again when it was sent before the
    latest restart, or when the server turns out dead (the driver restarts it first); an
    engine error on a live server of the current generation is the item's real outcome."""

    def __init__(self, urls: dict[str, str], managed: Sequence[str], owner: int):
        self.urls = dict(urls)
        self.managed = [d for d in managed if d in urls]
        self.owner = owner
        self.generation = dict.fromkeys(self.managed, 0)
        self.restarts: list[str] = []

    def stamp(self) -> dict[str, int]:
        return dict(self.generation)

    def again(self, record: Outcome, sent: dict[str, int]) -> bool:
        """True when ``record`` (sent at generation ``sent``) must be judged again."""
        again = False
        for dialect in sorted(_engine_error_dialects(record) & set(self.managed)):
            if sent[dialect] < self.generation[dialect]:
                again = True  # judged against the server before its restart
                continue
            server = server_for(dialect)
            if server.state() is not None:
                continue  # alive: the engine error is the item's own
            try:
                state = server.start(owner=self.owner)  # under the server's lock
            except ServerError as exc:
                print(
                    f"parrot: the {dialect} server died and did not restart: {exc}", file=sys.stderr
                )
                continue
            if state.url != self.urls[dialect]:
                self.urls[dialect] = state.url
                self.generation[dialect] += 1
                self.restarts.append(f"{dialect} (now {state.address})")
            again = True
        return again


class _Shards:
    """The driver's side of a Ray evaluation: actors starting and serving, items in flight,
    items to send again, and the managed servers they were judged against."""

    def __init__(self, ray: Any, judge_args: dict[str, Any], managed: Sequence[str]):
        self.ray = ray
        self.actor_class = ray.remote(num_cpus=1, max_restarts=0, max_task_retries=0)(_JudgeActor)
        self.judge_args = judge_args
        self.starting: dict[Any, Any] = {}  # ready() ref -> actor not yet serving
        self.live: dict[Any, int] = {}  # actor -> items in flight
        # judge ref -> (item, translation, actor, server generations it was sent with)
        self.inflight: dict[Any, tuple[Item, Translation, Any, dict[str, int]]] = {}
        self.retry: deque[tuple[Item, Translation]] = deque()
        self.attempts: dict[str, int] = {}
        self.servers = ManagedServers(judge_args["urls"], managed, os.getpid())
        self.rejudged: dict[str, int] = {}
        self.lost = 0
        self.shipped: dict[int, tuple[Any, tuple[str, list[Any]]]] = {}  # id(fixture) -> (it, ref)

    def ship(self, item: Item) -> tuple[Item, tuple[str, list[Any]] | None]:
        """The item without its fixture, and the fixture's object-store reference: a fixture
        (TPC-H: megabytes) crosses to the cluster once, not with every item."""
        if item.fixture is None:
            return item, None
        if id(item.fixture) not in self.shipped:
            ref = self.ray.put(item.fixture)
            self.shipped[id(item.fixture)] = (item.fixture, (item.fixture.content_hash, [ref]))
        return dataclasses.replace(item, fixture=None), self.shipped[id(item.fixture)][1]

    def spawn(self) -> None:
        actor: Any = self.actor_class.remote(self.judge_args)
        self.starting[actor.ready.remote()] = actor

    def retire(self, actor: Any) -> None:
        self.live.pop(actor, None)
        self.ray.kill(actor, no_restart=True)
        self.spawn()

    def send(self, source: Iterator[tuple[Item, Translation]]) -> bool:
        """Give the least busy actors items (those to retry first); False once ``source`` ran
        out."""
        while self.live:
            actor = min(self.live, key=self.live.__getitem__)
            if self.live[actor] >= IN_FLIGHT:
                break
            if self.retry:
                item, translation = self.retry.popleft()
            else:
                try:
                    item, translation = next(source)
                except StopIteration:
                    return False
            urls = self.servers.urls if self.servers.managed else None
            bare, fixture = self.ship(item)
            self.inflight[actor.judge.remote(bare, translation, urls, fixture)] = (
                item,
                translation,
                actor,
                self.servers.stamp(),
            )
            self.live[actor] += 1
        return True

    def started(self, ref: Any, lost_errors: tuple[type[Exception], ...]) -> None:
        actor = self.starting.pop(ref)
        try:
            self.ray.get(ref)
        except lost_errors:
            self.ray.kill(actor, no_restart=True)
            self.spawn()
        else:
            self.live[actor] = 0

    def finished(self, ref: Any, lost_errors: tuple[type[Exception], ...]) -> Outcome | None:
        """The record of a judge call that returned, or None when its item goes again."""
        item, translation, actor, sent = self.inflight.pop(ref)
        try:
            record: Outcome = self.ray.get(ref)
        except lost_errors as exc:
            self.attempts[item.id] = self.attempts.get(item.id, 0) + 1
            if self.attempts[item.id] >= ATTEMPTS:
                raise ExecutorError(
                    f"item {item.id} lost its Ray worker {ATTEMPTS} times; "
                    f"last: {type(exc).__name__}"
                ) from None
            self.retry.append((item, translation))
            self.lost += 1
            if actor in self.live:
                self.retire(actor)
            return None
        if actor in self.live:
            self.live[actor] -= 1
        if (
            self.servers.managed
            and self.rejudged.get(item.id, 0) < ATTEMPTS
            and self.servers.again(record, sent)
        ):
            self.rejudged[item.id] = self.rejudged.get(item.id, 0) + 1
            self.retry.append((item, translation))
            return None
        return record

    def close(self) -> None:
        if self.lost:
            print(
                f"parrot: {self.lost} in-flight item(s) lost with their Ray worker were judged "
                "again on another",
                file=sys.stderr,
            )
        if self.servers.restarts:
            print(
                f"parrot: restarted the managed server(s) that died mid-run: "
                f"{', '.join(self.servers.restarts)}; {sum(self.rejudged.values())} item(s) "
                "judged against a dead server were judged again",
                file=sys.stderr,
            )
        for actor in [*self.live, *self.starting.values()]:
            self.ray.kill(actor, no_restart=True)
        shutdown()


def judged(
    translations: Iterator[tuple[Item, Translation]],
    judge_args: dict[str, Any],
    address: str,
    actors: int = 0,
    managed: Sequence[str] = (),
) -> Iterator[Outcome]:
    """Outcome records of ``translations`` judged by ``actors`` Ray actors (0: one per cluster
    CPU), as they finish; every item's record exactly once, whatever worker died on the way.
    ``managed``: the dialects of ``judge_args["urls"]`` served by servers this machine manages,
    restarted when they die (the items judged against a dead one are judged again)."""
    import ray  # deferred: Ray, the optional extra
    from ray.exceptions import NodeDiedError, RayActorError, WorkerCrashedError

    lost_errors = (RayActorError, WorkerCrashedError, NodeDiedError)
    connect(address)
    shards = _Shards(ray, judge_args, managed)
    source = iter(translations)
    exhausted = False
    for _ in range(actors or cluster_cpus()):
        shards.spawn()
    idle_since = time.monotonic()
    try:
        while True:
            if shards.retry or not exhausted:
                exhausted = not shards.send(source) or exhausted
            if exhausted and not shards.retry and not shards.inflight:
                break
            done, _ = ray.wait([*shards.inflight, *shards.starting], num_returns=1, timeout=10.0)
            if not done:
                if (
                    not shards.live
                    and not shards.inflight
                    and time.monotonic() - idle_since > STALL_SECONDS
                ):
                    raise ExecutorError(
                        f"no Ray worker could start a judge in "
                        f"{STALL_SECONDS:.0f} s; cluster resources: "
                        f"{ray.available_resources()}"
                    )
                continue
            idle_since = time.monotonic()
            if done[0] in shards.starting:
                shards.started(done[0], lost_errors)
                continue
            record = shards.finished(done[0], lost_errors)
            if record is not None:
                yield record
    finally:
        shards.close()
