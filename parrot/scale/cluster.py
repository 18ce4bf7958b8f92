"""Ray as parrot's distributed executor (imported only when ``--executor`` names Ray).

* **Curation**: :class:`RayExecutor` is a :class:`~parrot.curate.stages.Executor`: every chunk of
  a stage is one Ray task running the stage's unchanged :meth:`~parrot.curate.stages.Stage.map`
  (the pickled stage goes to the object store once per stage). Ray retries a task whose worker or
  node died. Reduces, and every output file, stay on the driver.
* **Evaluation**: :func:`judged` shards items over Ray actors, each owning one
  :class:`~parrot.eval.judge.Judge` — its embedded engines, and the servers it reaches by URL.
  The driver translates (so the LLM concurrency limit and the response cache are the local ones)
  and receives every outcome record; an actor that dies loses only its in-flight items, which the
  driver gives to another actor, while a replacement actor starts. A managed server (PostgreSQL,
  MariaDB) that dies mid-run is restarted by the driver (:class:`ManagedServers`): the items
  judged against the dead one are judged again on the new URL, which every actor receives with
  its next item. A fixture goes to the object store once (``ray.put``) and each actor
  fetches it once: items travel without it.

The driver ships its own ``parrot`` package to the cluster (Ray ``py_modules``) and its
``PARROT_*`` environment (corpora and cache paths, engine URLs), so the workers run the driver's
code and read fixtures at the same paths: on several machines those paths must exist on each.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import os
import sys
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from parrot.curate.stages import Batch, Record, Stage, run_chunk
from parrot.scale import ExecutorError
from parrot.scale.partitions import Partition, PartitionExecutor, RowReader, map_partition

if TYPE_CHECKING:
    from parrot.datasets import Item
    from parrot.eval.records import Outcome
    from parrot.translators.base import Translation

IN_FLIGHT = 2  # items (eval) or chunks (curation) queued per worker CPU: results stream back
ATTEMPTS = 3  # an item whose worker died this many times stops the run
STALL_SECONDS = 600.0  # no worker alive and none starting for this long stops the run
FIXTURES_KEPT = 64  # fixtures an actor keeps deserialised


def connect(address: str) -> None:
    """Join the Ray cluster at ``address`` (once per process)."""
    try:
        import ray
    except ImportError:
        raise ExecutorError("the Ray executor needs Ray: pip install 'parrot[ray]'") from None
    if ray.is_initialized():
        return
    import parrot
    from parrot.migrate.named import corpora_root

    env = {k: v for k, v in os.environ.items() if k.startswith("PARROT_")}
    env.setdefault("PARROT_CORPORA", str(corpora_root().resolve()))  # not beside shipped code
    runtime_env = {"py_modules": [str(Path(parrot.__file__).parent)],
                   "excludes": ["__pycache__", "*.pyc"], "env_vars": env}
    try:
        ray.init(address=address, runtime_env=runtime_env, logging_level=logging.WARNING,
                 log_to_driver=False)
    except (ConnectionError, RuntimeError, ValueError) as exc:
        raise ExecutorError(f"cannot join the Ray cluster at {address}: {exc}") from None


def shutdown() -> None:
    import ray

    if ray.is_initialized():
        ray.shutdown()


def cluster_cpus() -> int:
    import ray

    return max(1, int(ray.cluster_resources().get("CPU", 1)))


class RayExecutor(PartitionExecutor):
    """Curation chunks as Ray tasks on the cluster at ``address``."""

    def __init__(self, address: str):
        import ray

        connect(address)
        self._task = ray.remote(run_chunk).options(num_cpus=1, max_retries=ATTEMPTS)
        self._partition_task = ray.remote(map_partition).options(num_cpus=1,
                                                                 max_retries=ATTEMPTS)

    def map(self, stage: Stage, chunks: Sequence[list[Record]]) -> Iterator[tuple[int, Batch]]:
        import ray

        stage_ref = ray.put(stage)
        yield from _bounded(lambda index, chunk: self._task.remote(stage_ref, index, chunk), chunks)

    def map_partitions(self, stage: Stage, parts: Sequence[Partition],
                       reader: RowReader) -> Iterator[tuple[int, Batch, int]]:
        """Each corpus partition read by one task, which runs ``stage.map`` on its records:
        ``(index, batch, records read)`` as they finish (:mod:`parrot.scale.partitions`)."""
        import ray

        stage_ref, reader_ref = ray.put(stage), ray.put(reader)
        yield from _bounded(lambda index, part: self._partition_task.remote(
            stage_ref, index, part, reader_ref), parts)

    def close(self) -> None:
        shutdown()


def _bounded(submit: Callable[[int, Any], Any], work: Sequence[Any]) -> Iterator[Any]:
    """Ray tasks ``submit(index, piece)`` for every piece of ``work``, at most ``IN_FLIGHT`` per
    cluster CPU at a time; their results as they finish."""
    import ray

    width = IN_FLIGHT * cluster_cpus()
    queue = list(enumerate(work))
    queue.reverse()
    pending: set[Any] = set()
    while queue or pending:
        while queue and len(pending) < width:
            pending.add(submit(*queue.pop()))
        done, _ = ray.wait(list(pending), num_returns=1)
        for ref in done:
            pending.discard(ref)
            yield ray.get(ref)


class _JudgeActor:
    """One Ray actor: a Judge with its own engines, judging one item at a time."""

    def __init__(self, judge_args: dict[str, Any]):
        from parrot.eval.judge import Judge

        self._args = judge_args
        self._judge = Judge(**judge_args)
        self._fixtures: dict[str, Any] = {}  # content hash -> fixture, oldest first

    def ready(self) -> int:
        return os.getpid()

    def judge(self, item: Item, translation: Translation, urls: dict[str, str] | None = None,
              fixture: tuple[str, list[Any]] | None = None) -> Outcome:
        if fixture is not None:  # (content hash, [object ref]): fetched once per actor
            import ray

            key, (ref,) = fixture
            if key not in self._fixtures:
                if len(self._fixtures) >= FIXTURES_KEPT:
                    self._fixtures.pop(next(iter(self._fixtures)))
                self._fixtures[key] = ray.get(ref)
            item = dataclasses.replace(item, fixture=self._fixtures[key])
        if urls is not None and urls != self._judge.urls:  # a managed server was restarted
            from parrot.eval.judge import Judge

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
        from parrot.servers import ServerError, server_for

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
                print(f"parrot: the {dialect} server died and did not restart: {exc}",
                      file=sys.stderr)
                continue
            if state.url != self.urls[dialect]:
                self.urls[dialect] = state.url
                self.generation[dialect] += 1
                self.restarts.append(f"{dialect} (now {state.address})")
            again = True
        return again


def judged(translations: Iterator[tuple[Item, Translation]], judge_args: dict[str, Any],
           address: str, actors: int = 0, managed: Sequence[str] = ()) -> Iterator[Outcome]:
    """Outcome records of ``translations`` judged by ``actors`` Ray actors (0: one per cluster
    CPU), as they finish; every item's record exactly once, whatever worker died on the way.
    ``managed``: the dialects of ``judge_args["urls"]`` served by servers this machine manages,
    restarted when they die (the items judged against a dead one are judged again)."""
    import ray
    from ray.exceptions import NodeDiedError, RayActorError, WorkerCrashedError

    lost_errors = (RayActorError, WorkerCrashedError, NodeDiedError)
    connect(address)
    actor_class = ray.remote(num_cpus=1, max_restarts=0, max_task_retries=0)(_JudgeActor)
    starting: dict[Any, Any] = {}  # ready() ref -> actor not yet serving
    live: dict[Any, int] = {}  # actor -> items in flight
    inflight: dict[Any, tuple[Item, Translation, Any, dict[str, int]]] = {}  # judge ref ->
    # (item, translation, actor, server generations it was sent with)
    retry: deque[tuple[Item, Translation]] = deque()
    attempts: dict[str, int] = {}
    servers = ManagedServers(judge_args["urls"], managed, os.getpid())
    rejudged: dict[str, int] = {}
    source = iter(translations)
    exhausted = False
    lost = 0

    shipped: dict[int, tuple[Any, tuple[str, list[Any]]]] = {}  # id(fixture) -> (it, ref)

    def ship(item: Item) -> tuple[Item, tuple[str, list[Any]] | None]:
        """The item without its fixture, and the fixture's object-store reference: a fixture
        (TPC-H: megabytes) crosses to the cluster once, not with every item."""
        if item.fixture is None:
            return item, None
        if id(item.fixture) not in shipped:
            ref = ray.put(item.fixture)
            shipped[id(item.fixture)] = (item.fixture, (item.fixture.content_hash, [ref]))
        return dataclasses.replace(item, fixture=None), shipped[id(item.fixture)][1]

    def spawn() -> None:
        actor: Any = actor_class.remote(judge_args)
        starting[actor.ready.remote()] = actor

    def retire(actor: Any) -> None:
        live.pop(actor, None)
        ray.kill(actor, no_restart=True)
        spawn()

    for _ in range(actors or cluster_cpus()):
        spawn()
    idle_since = time.monotonic()
    try:
        while True:
            while live and (retry or not exhausted):
                actor = min(live, key=live.__getitem__)
                if live[actor] >= IN_FLIGHT:
                    break
                if retry:
                    item, translation = retry.popleft()
                else:
                    try:
                        item, translation = next(source)
                    except StopIteration:
                        exhausted = True
                        break
                urls = servers.urls if servers.managed else None
                bare, fixture = ship(item)
                inflight[actor.judge.remote(bare, translation, urls, fixture)] = (
                    item, translation, actor, servers.stamp())
                live[actor] += 1
            if exhausted and not retry and not inflight:
                break
            done, _ = ray.wait([*inflight, *starting], num_returns=1, timeout=10.0)
            if not done:
                if not live and not inflight and time.monotonic() - idle_since > STALL_SECONDS:
                    raise ExecutorError(f"no Ray worker could start a judge in "
                                        f"{STALL_SECONDS:.0f} s; cluster resources: "
                                        f"{ray.available_resources()}")
                continue
            idle_since = time.monotonic()
            ref = done[0]
            if ref in starting:
                actor = starting.pop(ref)
                try:
                    ray.get(ref)
                except lost_errors:
                    ray.kill(actor, no_restart=True)
                    spawn()
                else:
                    live[actor] = 0
                continue
            item, translation, actor, sent = inflight.pop(ref)
            try:
                record = ray.get(ref)
            except lost_errors as exc:
                attempts[item.id] = attempts.get(item.id, 0) + 1
                if attempts[item.id] >= ATTEMPTS:
                    raise ExecutorError(f"item {item.id} lost its Ray worker {ATTEMPTS} times; "
                                        f"last: {type(exc).__name__}") from None
                retry.append((item, translation))
                lost += 1
                if actor in live:
                    retire(actor)
                continue
            if actor in live:
                live[actor] -= 1
            if (servers.managed and rejudged.get(item.id, 0) < ATTEMPTS
                    and servers.again(record, sent)):
                rejudged[item.id] = rejudged.get(item.id, 0) + 1
                retry.append((item, translation))
                continue
            yield record
    finally:
        if lost:
            print(f"parrot: {lost} in-flight item(s) lost with their Ray worker were judged "
                  "again on another", file=sys.stderr)
        if servers.restarts:
            print(f"parrot: restarted the managed server(s) that died mid-run: "
                  f"{', '.join(servers.restarts)}; {sum(rejudged.values())} item(s) judged "
                  "against a dead server were judged again", file=sys.stderr)
        for actor in [*live, *starting.values()]:
            ray.kill(actor, no_restart=True)
        shutdown()
