"""The evaluation runner: translate → execute on real engines → compare → append results.

Concurrency lives here and only here: with ``jobs > 1`` judging runs in worker processes (one
:class:`~parrot.eval.judge.Judge`, i.e. one set of engines, per worker) while the main process
translates and is the only writer of ``results.jsonl``.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import fcntl
import gc
import multiprocessing
import os
import platform
import queue
import socket
import sys
import threading
from collections import Counter, deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import (
    FIRST_COMPLETED,
    Future,
    ProcessPoolExecutor,
    ThreadPoolExecutor,
    wait,
)
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from parrot import __version__
from parrot.api.records import Outcome, SyntaxRecord
from parrot.api.results import (
    MANIFEST,
    RESULTS,
    SUMMARY,
    ResultsLog,
    RunDirError,
    RunWriteError,
    read_json,
    read_results,
    write_json,
)
from parrot.api.secrets import (
    argv_secrets,
    redact_argv,
    redact_url,
    scrub_tree,
    secret_values,
    url_secrets,
)
from parrot.cli import git_commit
from parrot.compare import SEMANTICS_VERSION
from parrot.connect import needs_server
from parrot.datasets import Dataset, Item
from parrot.engines import (
    DEFAULT_MAX_ROWS,
    DEFAULT_TIMEOUT,
    ENGINE_REGISTRY,
    engine_class,
    engine_name_for,
    url_from_env,
)
from parrot.engines.worker import die_with_parent
from parrot.eval.cluster import judged
from parrot.eval.feedback import EngineFeedback
from parrot.eval.judge import Judge, with_syntax
from parrot.eval.prove import ProveSettings, attach
from parrot.eval.syntax import preload_grammars
from parrot.pairs import EVERY_PAIR, DialectPairs
from parrot.scale import ExecutorSpec
from parrot.servers import server_for
from parrot.sqlfacts import read_facts
from parrot.translators.base import Translation, Translator

if TYPE_CHECKING:
    from parrot.eval.feedback import EngineFeedback

Progress = Callable[[Outcome], None]
LOCK = ".lock"  # in a run directory: held by the one process writing it
SYNTAX_BACKLOG = 64  # judged records at most waiting for their grammar check (--jobs 1)
# the cyclic collector's thresholds during a run (Python's default: 700, 10, 10): a run holds
# millions of long-lived objects (sqlglot, the grammars' prediction caches) that every full
# collection walks again; with these, a starter run spends ~2 CPU-s less collecting
GC_THRESHOLD = (20_000, 20, 20)
# the interpreter's switch interval during a run (Python's default: 5 ms): the judge waits on an
# engine worker hundreds of times a run while the Acc_SYN and import threads compute; with the
# default each reply waited up to 5 ms for the busy thread to hand back the GIL (a 1 ms round
# trip took 12 ms beside a busy thread, 3.4 ms at 0.5 ms: issue 31)
SWITCH_INTERVAL = 0.0005
READ_AHEAD = 16  # translations a local translator prepares ahead of the judge (--jobs 1)


@dataclass
class RunConfig:
    """Settings of one run (recorded in the manifest)."""

    output_dir: Path
    timeout: float = DEFAULT_TIMEOUT
    max_rows: int = DEFAULT_MAX_ROWS
    syntax: bool = False  # Acc_SYN on every translation (default: only where no engine ran it)
    jobs: int = 1
    resume: bool = False
    pairs: list[str] = field(default_factory=list)
    limit: int | None = None
    command: list[str] = field(default_factory=list)
    urls: dict[str, str] = field(default_factory=dict)  # dialect -> server URL
    start: bool = True  # (re)start managed servers when needed
    suite_dir: Path | None = None  # judge on the suites of this dataset directory too
    executor: ExecutorSpec = field(default_factory=lambda: ExecutorSpec("local"))
    prove: ProveSettings | None = None  # eval --prove: the solver on items judged right


def run_secrets(config: RunConfig) -> list[str]:
    """Every secret the run can see: the environment's, the passwords of its server URLs and
    what its command line hides (an ``--api-key``); scrubbed from all the run writes."""
    given = [
        *argv_secrets(config.command),
        *(s for url in config.urls.values() for s in url_secrets(url)),
    ]
    return secret_values(given)


def servers_needed(items: Sequence[Item], urls: dict[str, str]) -> list[str]:
    """Dialects of ``items`` that run on a managed server (no URL given or in the environment)."""
    wanted = {d for i in items for d in (i.source_dialect, i.target_dialect)}
    return sorted(
        d for d in wanted if d not in urls and needs_server(d) and url_from_env(d) is None
    )


@dataclass(frozen=True)
class MissingEngine:
    """A dialect a run needs whose engine cannot run here, and the items that need it."""

    dialect: str
    why: str
    pairs: dict[str, int]  # "source→target" → items of that pair

    @property
    def items(self) -> int:
        return sum(self.pairs.values())

    def describe(self) -> str:
        pairs = ", ".join(f"{p} ({n} item{'s' * (n != 1)})" for p, n in self.pairs.items())
        return f"{self.dialect}: {self.why} — needed by {pairs}"


def engine_absence(dialect: str, urls: dict[str, str], start: bool) -> str | None:
    """Why the engine parrot runs ``dialect`` on here cannot run, or None when it can (or when
    parrot runs no engine for it here at all: grammar-only dialects are expected to have none)."""
    if dialect in urls or url_from_env(dialect) is not None:
        return None
    name = engine_name_for(dialect)
    if name is None or name not in ENGINE_REGISTRY:
        return None
    if not engine_class(name).is_server():
        return engine_class(name).available()
    if not needs_server(dialect):
        return None  # a server reached by URL only (oracle, tsql, …): grammar-only here

    server = server_for(dialect)
    if server.state() is not None:
        return None
    if not start:
        return "no server running, and --no-start"
    return server.available()


def grammar_only(dialect: str, urls: dict[str, str]) -> bool:
    """True when parrot runs no engine for ``dialect`` here unless given a URL (oracle, tsql,
    bigquery, …): such targets are scored by Acc_SYN, expected to be ``no_engine``."""
    if dialect in urls or url_from_env(dialect) is not None:
        return False
    name = engine_name_for(dialect)
    return (
        name is None
        or name not in ENGINE_REGISTRY
        or (engine_class(name).is_server() and not needs_server(dialect))
    )


def missing_engines(
    items: Sequence[Item], urls: dict[str, str], start: bool, absent: dict[str, str] | None = None
) -> list[MissingEngine]:
    """The engines ``items`` need that cannot run here (``absent`` adds known ones, e.g. servers
    that failed to start), with the pairs and item counts that need each."""
    why = dict(absent or {})
    dialects = sorted({d for i in items for d in (i.source_dialect, i.target_dialect)})
    for dialect in dialects:
        if dialect not in why:
            reason = engine_absence(dialect, urls, start)
            if reason is not None:
                why[dialect] = reason
    out = []
    for dialect in dialects:
        if dialect in why:
            pairs = Counter(
                f"{i.source_dialect}→{i.target_dialect}"
                for i in items
                if dialect in (i.source_dialect, i.target_dialect)
            )
            out.append(MissingEngine(dialect, why[dialect], dict(sorted(pairs.items()))))
    return out


def select_items(
    dataset: Dataset, pairs: DialectPairs = EVERY_PAIR, limit: int | None = None
) -> list[Item]:
    """Items of the requested dialect pairs (all when empty), the first ``limit`` of them."""
    items = [i for i in dataset.items if pairs.allows(i.source_dialect, i.target_dialect)]
    return items[:limit] if limit is not None else items


def _manifest(
    dataset: Dataset, items: list[Item], translator: Translator, config: RunConfig
) -> dict[str, Any]:
    manifest = {
        "parrot": __version__,
        "commit": git_commit(),
        "comparator": SEMANTICS_VERSION,
        "started": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "finished": None,
        "command": redact_argv(config.command),
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "dataset": {
            "name": dataset.name,
            "path": str(dataset.path),
            "sha256": dataset.sha256,
            "items": len(items),
        },
        "translator": translator.params(),
        "settings": {
            "timeout": config.timeout,
            "max_rows": config.max_rows,
            "syntax": config.syntax,
            "jobs": config.jobs,
            "executor": str(config.executor),
            "pairs": config.pairs,
            "limit": config.limit,
            "suite": config.suite_dir is not None,
            "prove": config.prove.manifest() if config.prove else None,
            "engine_urls": {d: redact_url(u) for d, u in config.urls.items()},
        },
        "engines": {},
    }
    return cast(dict[str, Any], scrub_tree(manifest, run_secrets(config)))


def _make_run_dir(out: Path) -> None:
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        blocker = next((p for p in (out, *out.parents) if p.exists() and not p.is_dir()), None)
        why = f"{blocker} is a file, not a directory" if blocker else exc.strerror or str(exc)
        raise RunDirError(f"cannot create the run directory {out}: {why}") from None


class RunLock:
    """One writer per run directory: an exclusive ``flock`` on ``<run dir>/.lock``, held for
    the whole run; the file names the holder (pid, host, start time). A second writer (a
    second ``--resume`` of the same run) gets a :class:`RunDirError` naming the holder. The
    kernel drops the lock of a process that dies, so a stale lock file is simply taken over.
    """

    def __init__(self, out: Path) -> None:
        self.path = out / LOCK
        self._fd: int | None = None

    def __enter__(self) -> RunLock:
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.read(fd, 4096).decode(errors="replace").strip() or "another process"
            os.close(fd)
            raise RunDirError(
                f"{self.path.parent} is being written by {holder}; wait for it to finish or stop it"
            ) from None
        stamp = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"pid {os.getpid()} on {socket.gethostname()} since {stamp}\n".encode(), 0)
        self._fd = fd
        return self

    def __exit__(self, *exc: object) -> None:
        if self._fd is not None:
            os.ftruncate(self._fd, 0)
            os.close(self._fd)  # releases the lock
            self._fd = None


def _identity(entry: Any) -> Any:
    """What makes a manifest's dataset or translator the same one on resume: its content, not
    where it lies (a dataset's ``path`` changes when a checkout moves; its sha256 does not)."""
    if isinstance(entry, dict):
        return {k: v for k, v in entry.items() if k != "path"}
    return entry


def prepare_run_dir(config: RunConfig, manifest: dict[str, Any]) -> dict[str, Any]:
    """Create or reopen the run directory; on resume the dataset and translator must match.
    The caller holds the directory's :class:`RunLock`."""
    out = config.output_dir
    existing = out / MANIFEST
    if (out / RESULTS).exists() or existing.exists():
        if not config.resume:
            raise RunDirError(
                f"{out} already holds a run; pass --resume to continue it or "
                "choose another --output-dir"
            )
        if existing.exists():
            old = read_json(existing)
            for key in ("dataset", "translator"):
                if _identity(old.get(key)) != _identity(manifest[key]):
                    raise RunDirError(
                        f"cannot resume {out}: its {key} differs "
                        f"({old.get(key)} vs {manifest[key]})"
                    )
            manifest["started"] = old.get("started", manifest["started"])
            manifest["resumed"] = [
                *old.get("resumed", []),
                dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
            ]
    _make_run_dir(out)
    try:
        write_json(out / MANIFEST, manifest)
    except RunWriteError as exc:  # before any item ran: an unusable directory, not a resume
        raise RunDirError(str(exc)) from None
    return manifest


# --- worker processes -------------------------------------------------------------------------

_WORKER_JUDGE: Judge | None = None


def _run_judge(config: RunConfig) -> Judge:
    """The judge of a run's items (with the solver attached for ``--prove``)."""
    judge = Judge(
        timeout=config.timeout,
        max_rows=config.max_rows,
        urls=config.urls,
        start=config.start,
        syntax=config.syntax,
        suite_dir=config.suite_dir,
    )
    return attach(judge, config.prove)


def _init_worker(config: RunConfig) -> None:
    global _WORKER_JUDGE

    die_with_parent()  # a run killed with SIGKILL takes its --jobs workers with it
    _WORKER_JUDGE = _run_judge(config)


def _judge_in_worker(item: Item, translation: Translation) -> Outcome:
    assert _WORKER_JUDGE is not None
    return _WORKER_JUDGE.judge(item, translation)


def _judged(pending: list[Item], translator: Translator, config: RunConfig) -> Iterator[Outcome]:
    """Outcome records for ``pending`` as they finish (order not guaranteed when jobs > 1)."""
    translations = translator.translate_all(pending)
    if config.executor.kind == "ray":
        yield from _judged_on_ray(pending, translations, config)
        return
    if config.jobs <= 1:
        if translator.read_ahead:
            translations = read_ahead(translations)
        judge = _run_judge(config)
        judge.warm({d for i in pending for d in (i.source_dialect, i.target_dialect)})
        if config.syntax:  # every translation is checked; else only the few no engine parsed
            preload_grammars({i.target_dialect for i in pending})
        try:
            yield from _judged_here(judge, translations)
        finally:
            judge.close()
        return
    context = multiprocessing.get_context("spawn")  # engines must not be forked mid-flight
    with ProcessPoolExecutor(
        config.jobs,
        mp_context=context,
        initializer=_init_worker,
        initargs=(config,),
    ) as pool:
        window: set[Future[Outcome]] = set()
        for item, translation in translations:
            window.add(pool.submit(_judge_in_worker, item, translation))
            if len(window) >= 2 * config.jobs:
                done, window = wait(window, return_when=FIRST_COMPLETED)
                for future in done:
                    yield future.result()
        for future in wait(window).done:
            yield future.result()


def read_ahead(
    translations: Iterator[tuple[Item, Translation]], depth: int = READ_AHEAD
) -> Iterator[tuple[Item, Translation]]:
    """``translations``, in order, produced by a thread of its own at most ``depth`` items
    ahead, which also reads the SQL facts the judge will ask of each (:func:`read_facts`,
    memoized): the next items' translation and parsing run while the judge waits on an engine
    worker. When the consumer stops, so does the thread (joined before this returns)."""
    ready: queue.Queue[Any] = queue.Queue(depth)
    stop = threading.Event()

    def offer(entry: Any) -> bool:
        while not stop.is_set():
            with contextlib.suppress(queue.Full):
                ready.put(entry, timeout=0.05)
                return True
        return False

    def produce() -> None:
        try:
            for item, translation in translations:
                _prepare(item, translation)
                if not offer((item, translation)):
                    return
            offer(_DONE)
        except BaseException as exc:  # handed to the consumer, raised there
            offer(_Failed(exc))

    thread = threading.Thread(target=produce, name="parrot-translate", daemon=True)
    thread.start()
    try:
        while (entry := ready.get()) is not _DONE:
            if isinstance(entry, _Failed):
                raise entry.error
            yield entry
    finally:
        stop.set()
        thread.join()


def _prepare(item: Item, translation: Translation) -> None:
    """The facts the judge reads of ``item`` and its translation, computed ahead (memoized);
    a failure is left for the judge to meet, and handle, itself."""
    with contextlib.suppress(Exception):
        read_facts(item.source_sql, item.source_dialect)
        if translation.ok and translation.sql:
            read_facts(translation.sql, item.target_dialect)


@dataclass(frozen=True)
class _Failed:
    error: BaseException


_DONE = object()  # read_ahead's end of the translations


def _judged_here(
    judge: Judge, translations: Iterator[tuple[Item, Translation]]
) -> Iterator[Outcome]:
    """Outcome records judged in this process, in order. The Acc_SYN grammar checks (pure
    Python, seconds each on a cold grammar) run in a thread of their own while the engine
    workers run the next items; at most ``SYNTAX_BACKLOG`` records wait for theirs."""
    waiting: deque[tuple[Outcome, Future[SyntaxRecord | None] | None]] = deque()
    with ThreadPoolExecutor(1, thread_name_prefix="parrot-syntax") as checks:
        try:
            for item, translation in translations:
                record, check = judge.judge_later(item, translation)
                waiting.append((record, checks.submit(check) if check is not None else None))
                while waiting and (
                    waiting[0][1] is None or waiting[0][1].done() or len(waiting) > SYNTAX_BACKLOG
                ):
                    done, check_done = waiting.popleft()
                    yield with_syntax(done, check_done.result() if check_done else None)
            while waiting:
                done, check_done = waiting.popleft()
                yield with_syntax(done, check_done.result() if check_done else None)
        finally:
            for _, left in waiting:  # stopped early: no check still to start
                if left is not None:
                    left.cancel()


def _judged_on_ray(
    pending: list[Item], translations: Iterator[tuple[Item, Translation]], config: RunConfig
) -> Iterator[Outcome]:
    """Judging on Ray actors: the servers this machine runs for the run are shared by URL, and
    restarted by this process when they die (unless ``--no-start``)."""
    urls = dict(config.urls)
    managed = []
    for dialect in servers_needed(pending, urls):
        state = server_for(dialect).state()
        if state is not None:
            urls[dialect] = state.url
            managed.append(dialect)
    judge_args = {
        "timeout": config.timeout,
        "max_rows": config.max_rows,
        "urls": urls,
        "start": False,
        "syntax": config.syntax,
        "suite_dir": config.suite_dir,
    }
    assert config.executor.address is not None
    yield from judged(
        translations,
        judge_args,
        config.executor.address,
        config.jobs if config.jobs > 1 else 0,
        managed=managed if config.start else (),
    )


def _feedback_for(translator: Translator, config: RunConfig) -> EngineFeedback | None:
    """Execution feedback for a translator that asks for it (reflection, ensembles), attached;
    it runs candidates on the target engine in its own process. None for the others."""
    if translator.feedback_mode is None:
        return None

    feedback = EngineFeedback(
        translator.feedback_mode,
        timeout=config.timeout,
        max_rows=config.max_rows,
        urls=config.urls,
        start=config.start,
    )
    translator.attach_feedback(feedback)
    return feedback


def run(
    dataset: Dataset,
    items: list[Item],
    translator: Translator,
    config: RunConfig,
    on_result: Progress | None = None,
    on_start: Callable[[int, int], None] | None = None,
) -> list[Outcome]:
    """Evaluate ``items``; returns every outcome record of the run (resumed ones included).
    Only one process at a time writes a run directory (:class:`RunLock`)."""
    _make_run_dir(config.output_dir)
    with RunLock(config.output_dir), lean_gc(), responsive_gil():
        return _run_locked(dataset, items, translator, config, on_result, on_start)


@contextlib.contextmanager
def responsive_gil() -> Iterator[None]:
    """The GIL handed between threads every :data:`SWITCH_INTERVAL` during a run, so the
    judge's thread resumes soon after an engine worker answers even while a background thread
    (Acc_SYN's grammar checks, the summary's imports) computes; undone at the end."""
    interval = sys.getswitchinterval()
    sys.setswitchinterval(SWITCH_INTERVAL)
    try:
        yield
    finally:
        sys.setswitchinterval(interval)


@contextlib.contextmanager
def lean_gc() -> Iterator[None]:
    """The cyclic garbage collector spared the objects that outlive a run: what exists when it
    starts (modules, the dataset) is frozen out of every collection, and collections run less
    often (:data:`GC_THRESHOLD`); both are undone at the end. Reference counting still frees
    everything at once; only cycles wait a little longer."""
    threshold = gc.get_threshold()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLD)
    try:
        yield
    finally:
        gc.set_threshold(*threshold)
        gc.unfreeze()


def freeze_for_exit() -> None:
    """For a process about to end: freeze every object out of the collector, so the
    interpreter's teardown does not walk them all again (1–3 s after a run whose grammars were
    loaded). Objects frozen are never collected as cycles: call it last."""
    gc.freeze()


def _run_locked(
    dataset: Dataset,
    items: list[Item],
    translator: Translator,
    config: RunConfig,
    on_result: Progress | None,
    on_start: Callable[[int, int], None] | None,
) -> list[Outcome]:
    manifest = prepare_run_dir(config, _manifest(dataset, items, translator, config))
    try:
        log = ResultsLog(config.output_dir)
    except RunWriteError as exc:
        raise RunDirError(str(exc)) from None
    if log.repaired:
        manifest["repaired_lines"] = log.repaired
    try:
        pending = [i for i in items if i.id not in log.done]
        if on_start:
            on_start(len(items), len(items) - len(pending))
        feedback = _feedback_for(translator, config) if pending else None
        if pending:  # the summary's imports load while the engines work, not after them
            threading.Thread(target=_load_summary, name="parrot-import", daemon=True).start()
        secrets = run_secrets(config)
        try:
            for judged in _judged(pending, translator, config):
                record = cast(Outcome, scrub_tree(judged, secrets))  # before anything is written
                log.append(record)
                if on_result:
                    on_result(record)
        finally:
            if feedback is not None:
                feedback.close()
    finally:
        log.close()
    records = read_results(config.output_dir)
    wanted = {i.id for i in items}
    records = [r for r in records if r["id"] in wanted]
    manifest["engines"] = engines_of(records)
    manifest["finished"] = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
    write_json(config.output_dir / MANIFEST, manifest)
    summarize = _summarizer()
    sources = {i.id: i.source_sql for i in items}  # the reliability matrix's SQL features
    write_json(
        config.output_dir / SUMMARY, summarize(records, manifest.get("translator"), sources=sources)
    )
    return records


def _summarizer(with_scipy: bool = False) -> Callable[..., Any]:
    """:func:`parrot.report.metrics.summarize`, imported on first use. A run imports it in a
    thread of its own while it waits on its engine workers, with scipy (which
    :mod:`parrot.report.stats` imports on first use: about a CPU-second), so the summary at its
    end finds both loaded."""
    # deferred: scipy, numpy (loaded only on this path)
    from parrot.report import metrics, stats

    if with_scipy:
        stats.load()
    return metrics.summarize


def _load_summary() -> None:
    _summarizer(with_scipy=True)


def engines_of(records: list[Outcome]) -> dict[str, str]:
    """dialect → engine label, as recorded in the outcome lines."""
    labels: dict[str, str] = {}
    for r in records:
        for execution, dialect in (
            (r.get("gold"), r["source_dialect"]),
            (r.get("pred"), r["target_dialect"]),
        ):
            if execution and execution.get("engine") not in (None, "none"):
                labels.setdefault(dialect, execution["engine"])
    return dict(sorted(labels.items()))
