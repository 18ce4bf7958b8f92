"""Spark SQL adapter: a local-mode Spark session (pyspark, Java 17+) shared by the whole process.

**One session per process.** Spark allows one SparkContext per JVM and starting it costs seconds
(4–28 s measured here), so every adapter instance shares one lazily started session:
``local[2]``, ``spark.ui.enabled=false``, driver bound to 127.0.0.1, log level ERROR, the
in-memory catalog (no Hive metastore, no ``derby.log``/``metastore_db``), and warehouse, local,
``java.io.tmpdir`` and Derby directories under one temporary directory that is removed when the
session stops (at interpreter exit: :func:`shutdown`). Closing an adapter releases its fixtures,
not the session. If the JVM dies, the execution reports ``ENGINE_ERROR`` and the next call starts
a new session and reloads the fixtures it needs. All executions and loads of all instances are
serialised by one process-wide lock (two cores; Spark parallelises inside a query).

**Fixtures** are never in the catalog. Each instance keeps, per fixture content hash, one
DataFrame per table, built from Arrow data with an explicit schema and ``localCheckpoint()``-ed:
the rows live in the block manager, reachable only through these Python-held DataFrames, so no
SQL text can name, change or drop them. A load is verified by reading every table back
(:func:`parrot.engines.statements.verify_load`).

**Isolation.** Every execution runs in a fresh ``SparkSession.newSession()`` (own SQL
configuration, temporary views and functions, session variables and current database, all gone
afterwards). The fixture tables the text refers to are registered there as temporary views over
the stored DataFrames. When a statement other than a query, a ``DROP`` or a temporary
view/function definition names a fixture table (INSERT, TRUNCATE, ALTER, a permanent
``CREATE VIEW``/``CREATE FUNCTION`` — which may not reference temporary views —, CTAS, ...),
that table is instead copied into a scratch table ``default.<name>`` (parquet in the temporary
warehouse) for this execution, so writes work on the copy. After every execution (and before,
in case an abandoned statement finished late) the shared catalog is swept back to its state
when the session started: databases, tables, views and functions created since are dropped,
global temporary views removed, the shared cache cleared. DELETE/UPDATE/MERGE need v2 tables
(Delta, Iceberg), which plain Spark lacks: they fail as runtime errors, as on real Spark.

Refused before anything runs (``ExecStatus.UNSUPPORTED``), from the statements' tokens:
``ADD JAR/FILE/ARCHIVE`` (changes the shared context, reads files), ``LOAD DATA``,
``INSERT OVERWRITE [LOCAL] DIRECTORY``, ``LOCATION '...'`` and ``OPTIONS (...)`` clauses (files
and data sources outside the scratch warehouse; dropping a database deletes its location),
script transforms (``TRANSFORM/MAP/REDUCE ... USING 'command'`` run shell commands),
``USING JAR/FILE``, class-based and non-SQL functions (``CREATE FUNCTION f AS 'class'``,
``LANGUAGE`` other than SQL), ``reflect``/``java_method``/``try_reflect`` (call static Java
methods, e.g. ``System.exit``), ``IDENTIFIER()`` with anything but one string literal (it can
compute a function name), ``EXECUTE IMMEDIATE`` (dynamic SQL would bypass these checks), and
``SET``/``RESET`` of Spark core settings (``spark.*`` outside ``spark.sql.*``), catalogs,
class-valued settings, ``spark.sql.sources.*`` and the safety settings below. Every other
``SET`` (ANSI mode, time zone, legacy parser policies, ...) is allowed: it lives and dies with
the execution's session. Then, in the execution's session, Spark's own
parser (``sqlParser().parsePlan``) parses every statement and the plan is searched for calls of
``reflect``/``java_method``/``try_reflect`` (SQL function bodies and ``IDENTIFIER(...)``
included) and ``ScriptTransformation`` nodes; a statement the parser rejects is left to fail as
Spark's own syntax error, any other failure of this check refuses the text.

**Timeouts.** Each step (session set-up, then every statement) runs in a daemon worker thread
under the execution's job group. From the deadline on, the main thread every 0.1 s cancels the
job group (``interruptOnCancel``), interrupts the worker's JVM thread (pyspark pins each Python
thread to one; this stops driver-side loops such as recursive CTE iterations) and raises the
worker's stop flag (checked while rows are unpickled and converted in Python). A step still
running 0.6 s after the deadline is abandoned to the JVM and the execution reports ``TIMEOUT``;
if abandoned work still keeps the JVM busy 30 s later, the session is restarted, and so it is
when tasks of cancelled jobs still run 10 s into the next use (a higher-order function over a
long array, a cartesian product's inner loop, a write: Spark never checks there, so they would
hold the cores, and the next job wait, for good). Those tasks are counted by the local
executor's thread pool: Spark's scheduler and status tracker forget them once their job is
cancelled.

**Settings.** ``spark.sql.session.timeZone=UTC``, ``spark.sql.shuffle.partitions=2`` and
``spark.default.parallelism=2`` (speed only), and two safety settings that only matter to texts
that would read files or the environment: ``spark.sql.runSQLOnFiles=false`` (no
``SELECT * FROM csv.`/path```) and ``spark.sql.variable.substitute=false`` (no
``${env:HOME}``/``${system:...}`` expansion). ANSI mode stays Spark 4's default
(``spark.sql.ansi.enabled=true``: overflow, bad casts and division by zero are errors), as do
NULL ordering, integer division and every other semantics-affecting setting.

**Type map**: integer → INT, bigint → BIGINT, double → DOUBLE, decimal(p,s) → DECIMAL(p,s),
text → STRING, boolean → BOOLEAN, date → DATE, timestamp → TIMESTAMP_NTZ (wall-clock time with
microseconds, as the portable type; Spark's ``TIMESTAMP`` is instant-based).

**Results** are collected (``limit(max_rows + 1)``) and converted by Spark type: DECIMAL →
Decimal (scale kept), DOUBLE/FLOAT → float (NaN kept), DATE/TIMESTAMP_NTZ/TIME → Temporal,
TIMESTAMP (instant) → Temporal in UTC (pyspark hands these over in the Python process's local
time; they are converted back exactly), BINARY → bytes, ARRAY/MAP/STRUCT → Nested (maps and
structs as JSON objects), VARIANT → Nested (its JSON), day-time intervals → Nested
``{"interval_seconds": ...}``, year-month intervals likewise with a month counted as 30 days (as
the DuckDB and ClickHouse adapters do), calendar intervals and intervals nested in other types
as their Spark text.
"""

from __future__ import annotations

import atexit
import contextlib
import dataclasses
import datetime as dt
import functools
import importlib.metadata
import importlib.util
import json
import logging
import os
import queue
import re
import secrets
import shutil
import tempfile
import threading
import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any, ClassVar

from parrot import values
from parrot.api.secrets import SPARK_JAVA_OPTIONS_VARIABLE, SPARK_MEMORY_VARIABLE
from parrot.engines import UnknownEngineError
from parrot.engines import statements as st
from parrot.engines.base import (
    Capabilities,
    EngineBase,
    ExecStatus,
    Execution,
    FixtureLoadError,
    LoadReport,
    Request,
    TypeMap,
    arrow_arrays,
    safe_canonical,
)
from parrot.engines.dbapi import months_interval
from parrot.engines.sandbox import scrubbed_environ
from parrot.fixtures import Fixture, Table

MASTER = "local[2]"
GRACE = 0.6  # seconds a statement may run past its deadline while its jobs are being cancelled
CANCEL_EVERY = 0.1
RUNAWAY_LIMIT = 30.0  # seconds an abandoned statement may keep the JVM busy before a restart
# seconds the next use waits for tasks of cancelled jobs before it restarts the session: a task
# looping where Spark never checks for cancellation (a higher-order function over a long array,
# a cartesian product's inner loop) holds its core for good, and the next job waits for it
TASK_DRAIN = 10.0
# seconds jobs are still watched for (and cancelled) after a step timed out: an interrupted
# statement's job can be submitted after its thread returned (seen 0.3 s late on a loaded machine)
LATE_JOBS = 1.0
# The driver JVM's options (PARROT_SPARK_JAVA_OPTIONS replaces them). Serial GC (the JVM's own
# choice below 2 cores), C1 only and a small code cache: parrot's Spark statements are many, small
# and short, so C2's compiled code never paid for itself. With a 2g heap the polyglot reference
# run's JVM peak went from 4.1 to 2.4 GiB RSS with the same verdicts and less CPU
# (docs/results/peakmem.md). Serial GC grows its old generation at every promotion that does
# not fit, up to the ceiling, so the JVM holds about the whole heap + 0.3-0.4 GiB; measured
# against it (issue 31, load 6-16): a 128m young generation (-Xms64m -XX:MaxNewSize=128m)
# still held 2.3 GiB after 12 minutes; G1 sized by use (-Xms64m, Min/MaxHeapFreeRatio 10/30,
# GCTimeRatio=4) peaked at 1.21 GiB RSS on spark:sqlite,spark:duckdb but at 2.41 GiB PSS on the
# whole run (it grows when its pauses look long, as they do on a loaded machine); Shenandoah
# with SoftMaxHeapSize=640m peaked at 1.09 on that subset with 26% more CPU than G1, not yet
# measured on the whole run (and not in every JDK build). A smaller heap is PARROT_SPARK_MEMORY.
JAVA_OPTIONS = "-XX:+UseSerialGC -XX:TieredStopAtLevel=1 -XX:ReservedCodeCacheSize=48m -Xss512k"
# The driver's heap (PARROT_SPARK_MEMORY replaces it); local mode runs everything in this JVM,
# and with serial GC the JVM holds about the whole heap (above). 1g: the polyglot reference run's
# tree peak 4.87 -> 4.06 GiB PSS (JVM 2.36 -> 1.38) with 0 of 930 verdicts differing and no
# slower (issue 31; docs/results/peakmem.md as of 6ca731d, and as the default since). 1g once
# ran out of heap with many fixtures (TPC-H, Spider) loaded in one test session (4g then); the
# engine worker now keeps at most KEPT_FIXTURES fixtures of KEPT_ROWS rows
# (parrot.engines.worker) and drops the evicted ones' frames, and the Spark tier passes on 1g.
DRIVER_MEMORY = "1g"
# the environment variables this engine reads in its worker (named where the child
# environment's allow-list is: an isolated worker sees no other)
MEMORY_VARIABLE = SPARK_MEMORY_VARIABLE
JAVA_OPTIONS_VARIABLE = SPARK_JAVA_OPTIONS_VARIABLE
INSTALL_HINT = "pip install 'parrot-sql[spark]' (pyspark 4.3) and a Java 17+ runtime"

# Per-session SQL settings, applied to the shared session's configuration and again to every
# execution's session (a session started elsewhere in the process may lack them).
SESSION_CONF = {
    "spark.sql.session.timeZone": "UTC",
    "spark.sql.shuffle.partitions": "2",
    "spark.sql.runSQLOnFiles": "false",
    "spark.sql.variable.substitute": "false",
}

LOG4J_CONF = """\
rootLogger.level = error
rootLogger.appenderRef.stderr.ref = console
appender.console.type = Console
appender.console.name = console
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %d{HH:mm:ss} %p %c{1}: %m%n
"""

spark_type = TypeMap.standard(integer="INT", text="STRING", timestamp="TIMESTAMP_NTZ")


# --- the shared session ---------------------------------------------------------------------------


@dataclasses.dataclass
class _Outcome:
    """What running one step in the worker thread produced."""

    value: Any = None
    error: BaseException | None = None
    seconds: float = 0.0
    fired: bool = False  # the deadline passed while it ran

    def failure(self) -> BaseException | None:
        """What ended the step: its jobs cancelled at the deadline, or its error (else None)."""
        return _Cancelled("timed out (Spark jobs cancelled)") if self.fired else self.error


class _Cancelled(Exception):
    """A step whose jobs were cancelled at the deadline."""


Step = Callable[[threading.Event], Any]  # work for the worker thread, given its stop flag


class _Stopped(Exception):
    """A step noticed its stop flag (the deadline passed)."""


class _Worker:
    """A daemon thread running one step at a time. pyspark pins every Python thread to a JVM
    thread, so the JVM side of a step can be interrupted (driver-side waits for jobs, recursive
    CTE iterations) where cancelling its jobs is not enough."""

    def __init__(self, spark: Any) -> None:
        self._spark = spark
        self._queue: queue.SimpleQueue[tuple[Step, Future[Any]] | None] = queue.SimpleQueue()
        self._jthread: Any = None
        self.stop = threading.Event()  # set at the deadline: Python-side loops check it
        self.abandoned_at: float | None = None
        self.future: Future[Any] | None = None
        thread = threading.Thread(target=self._loop, name="parrot-spark", daemon=True)
        thread.start()

    def _loop(self) -> None:
        while (item := self._queue.get()) is not None:
            fn, future = item
            if not future.set_running_or_notify_cancel():
                continue
            try:
                jthread: Any = self._spark._jvm.java.lang.Thread
                if self._jthread is None:
                    self._jthread = jthread.currentThread()
                jthread.interrupted()  # clear an interrupt that arrived after the last step
                self.stop.clear()
                future.set_result(fn(self.stop))
            except BaseException as exc:
                future.set_exception(exc)

    def submit(self, fn: Step) -> Future[Any]:
        self.future = Future()
        self._queue.put((fn, self.future))
        return self.future

    def interrupt(self) -> None:
        self.stop.set()
        if self._jthread is not None:
            with contextlib.suppress(Exception):
                self._jthread.interrupt()

    def retire(self) -> None:
        """Let the thread end after its current step."""
        self._queue.put(None)

    @property
    def busy(self) -> bool:
        return self.future is not None and not self.future.done()


def driver_conf(root: str, log_conf: str) -> dict[str, str]:
    """The session's configuration: local mode, its directories under ``root``, the driver's
    heap (``PARROT_SPARK_MEMORY``) and JVM options (``PARROT_SPARK_JAVA_OPTIONS``)."""
    return {
        "spark.master": MASTER,
        "spark.app.name": "parrot",
        "spark.ui.enabled": "false",
        "spark.ui.showConsoleProgress": "false",
        "spark.driver.bindAddress": "127.0.0.1",
        "spark.driver.host": "127.0.0.1",
        "spark.driver.memory": os.environ.get(MEMORY_VARIABLE, DRIVER_MEMORY),
        "spark.default.parallelism": "2",
        "spark.sql.catalogImplementation": "in-memory",
        "spark.sql.warehouse.dir": os.path.join(root, "warehouse"),
        "spark.local.dir": os.path.join(root, "local"),
        "spark.driver.extraJavaOptions": (
            f"-Djava.io.tmpdir={os.path.join(root, 'tmp')} "
            f"-Dderby.system.home={os.path.join(root, 'derby')} -XX:-UsePerfData "
            f"-Dlog4j2.configurationFile=file:{log_conf} "
            + os.environ.get(JAVA_OPTIONS_VARIABLE, JAVA_OPTIONS)
        ).strip(),
        **SESSION_CONF,
    }


class _Runtime:
    """The process's Spark session, its temporary directory, worker thread and catalog baseline."""

    def __init__(self) -> None:
        self.lock = threading.RLock()
        self.spark: Any = None
        self.root: str | None = None
        self.generation = 0  # bumped at every (re)start: fixtures of older sessions are stale
        self.suspect = False  # an engine error happened: check the JVM before the next use
        self._worker: _Worker | None = None
        self._abandoned: list[tuple[_Worker, str]] = []  # steps left running past the grace
        self._baseline: dict[str, frozenset[str]] = {}
        self._warehouse = ""
        self._own_warehouse = False  # the session uses parrot's warehouse directory
        self._task_gauge: Any = None  # the local executor's count of task threads at work
        self._fired = False  # a step's deadline passed since the last settle
        self._atexit = False

    # -- lifecycle ---------------------------------------------------------------------------

    def session(self) -> Any:
        if self.spark is not None and self.suspect:
            self.suspect = False
            if not self._alive():
                self.stop()
        self._abandoned = [(w, g) for w, g in self._abandoned if w.busy]
        if self.spark is not None and any(
            time.monotonic() - (w.abandoned_at or 0.0) > RUNAWAY_LIMIT for w, _ in self._abandoned
        ):
            self.stop()  # work nothing could stop has kept the JVM busy for too long
        if self.spark is not None and not self._drained():
            self.stop(kill=True)  # tasks of cancelled jobs that ignore it hold the cores
        if self.spark is None:
            self._start()
        return self.spark

    def _start(self) -> None:
        from pyspark.sql import SparkSession

        root = tempfile.mkdtemp(prefix="parrot-spark-")
        for sub in ("warehouse", "local", "tmp", "derby"):
            os.makedirs(os.path.join(root, sub))
        log_conf = os.path.join(root, "log4j2.properties")
        with open(log_conf, "w") as f:  # the JVM's own logs: errors only (parrot reports the rest)
            f.write(LOG4J_CONF)
        conf = driver_conf(root, log_conf)
        os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")  # no "resolves to a loopback" probe
        builder = SparkSession.builder
        for key, value in conf.items():
            builder = builder.config(key, value)
        try:
            with warnings.catch_warnings(), scrubbed_environ():  # no secrets in the JVM
                warnings.simplefilter("ignore", FutureWarning)  # pyspark 4.3 about pandas 3
                spark = builder.getOrCreate()
            spark.sparkContext.setLogLevel("ERROR")
        except BaseException:
            shutil.rmtree(root, ignore_errors=True)
            raise
        # pyspark logs every SQL error it raises with its query context, and Spark logs every
        # failing or cancelled task and write with its stack trace: parrot reports them itself
        for name in ("SQLQueryContextLogger", "DataFrameQueryContextLogger"):
            logging.getLogger(name).setLevel(logging.CRITICAL + 1)
        jvm: Any = spark._jvm
        log4j = jvm.org.apache.logging.log4j
        for name in (
            "org.apache.spark.executor.Executor",
            "org.apache.spark.scheduler.TaskSetManager",
            "org.apache.spark.TaskContextImpl",  # listeners of killed tasks
            "org.apache.spark.sql.execution.datasources.FileFormatWriter",
            "org.apache.spark.util.Utils",  # "Aborting task" of a cancelled write
            "org.apache.spark.util.ShutdownHookManager",
        ):
            with contextlib.suppress(Exception):
                log4j.core.config.Configurator.setLevel(name, log4j.Level.OFF)
        self.spark, self.root = spark, root
        self.generation += 1
        self._baseline = self._catalog()
        self._task_gauge = _task_gauge(spark)
        used = str(spark.conf.get("spark.sql.warehouse.dir", "")).removeprefix("file:")
        self._warehouse = os.path.join(root, "warehouse")
        self._own_warehouse = os.path.realpath(used) == os.path.realpath(self._warehouse)
        if not self._atexit:
            atexit.register(shutdown)
            self._atexit = True

    def _drained(self) -> bool:
        """Whether no task runs (executions are serialised: any running now is a cancelled
        job's), waiting up to :data:`TASK_DRAIN` for them to stop. A JVM that cannot answer
        counts as drained: the execution finds it dead, reports the engine error and marks the
        session suspect, as before this check."""
        until = time.monotonic() + TASK_DRAIN
        with contextlib.suppress(Exception):  # left-over jobs first: their tasks may not run yet
            if self.spark.sparkContext.statusTracker().getActiveJobsIds():
                self.spark.sparkContext.cancelAllJobs()
        while True:
            try:
                if not self._running_tasks():
                    return True
            except Exception:  # a dead JVM or gateway
                return True
            if time.monotonic() >= until:
                return False
            time.sleep(0.05)

    def _running_tasks(self) -> int:
        """Task threads at work in the local executor. The scheduler's and the status
        tracker's counts drop to 0 when a job is cancelled, while its tasks may loop on for
        minutes, holding the cores (and writing into the warehouse): only the executor's own
        thread pool knows. Without its gauge (another Spark), the status tracker's count."""
        if self._task_gauge is not None:
            return int(self._task_gauge.getValue())
        tracker = self.spark.sparkContext._jsc.sc().statusTracker()
        return int(sum(e.numRunningTasks() for e in tracker.getExecutorInfos()))

    def _alive(self) -> bool:
        try:
            return not self.spark.sparkContext._jsc.sc().isStopped()
        except Exception:
            return False

    def stop(self, kill: bool = False) -> None:
        """Stop the session (if any), forget a dead JVM and remove the temporary directory;
        ``kill``: end the JVM without stopping the context (tasks that ignore cancellation)."""
        with self.lock:
            if self._worker is not None:
                self._worker.retire()
                self._worker = None
            runaway = kill or any(w.busy for w, _ in self._abandoned)
            self._abandoned.clear()
            if self.spark is not None:
                from pyspark import SparkContext
                from pyspark.sql import SparkSession

                if not runaway:  # stopping the context could wait for the runaway's locks
                    with contextlib.suppress(Exception):
                        self.spark.stop()
                # end the JVM too (pyspark keeps it until the interpreter exits) and forget it:
                # after a crash pyspark would keep talking to the dead gateway
                gateway: Any = SparkContext._gateway
                with contextlib.suppress(Exception):
                    gateway.shutdown()
                _end_process(getattr(gateway, "proc", None))
                SparkContext._gateway = None
                SparkContext._jvm = None
                SparkContext._active_spark_context = None
                SparkSession._instantiatedSession = None
                SparkSession._activeSession = None
                self.spark = None
            if self.root is not None:
                shutil.rmtree(self.root, ignore_errors=True)
                self.root = None

    # -- running steps -----------------------------------------------------------------------

    def call(self, fn: Step, deadline: st.Deadline, group: str) -> _Outcome:
        """Run ``fn`` in the worker thread; cancel ``group`` from the deadline on; give up
        ``GRACE`` seconds after it."""
        if self._worker is None:
            self._worker = _Worker(self.spark)
        worker = self._worker
        started = time.perf_counter()
        future = worker.submit(fn)
        try:
            try:
                return _Outcome(
                    value=future.result(timeout=max(deadline.remaining(), 0.0)),
                    seconds=time.perf_counter() - started,
                )
            except FutureTimeout:
                pass
            except Exception as exc:
                return _Outcome(error=exc, seconds=time.perf_counter() - started)
            give_up = time.monotonic() + GRACE
            self._fired = True
            while True:
                self.cancel(group)
                worker.interrupt()
                try:
                    future.result(timeout=CANCEL_EVERY)
                    self.cancel(group)  # stages it submitted while being interrupted
                    return _Outcome(fired=True, seconds=time.perf_counter() - started)
                except FutureTimeout:
                    if time.monotonic() >= give_up:
                        self._abandon(worker, group)
                        return _Outcome(fired=True, seconds=time.perf_counter() - started)
                except Exception as exc:
                    self.cancel(group)
                    return _Outcome(error=exc, fired=True, seconds=time.perf_counter() - started)
        except BaseException:  # KeyboardInterrupt while waiting: stop the jobs, leave the thread
            self.cancel(group)
            worker.interrupt()
            if not future.done():
                self._abandon(worker, group)
            raise

    def cancel(self, group: str) -> None:
        with contextlib.suppress(Exception):
            self.spark.sparkContext.cancelJobGroup(group)

    def _abandon(self, worker: _Worker, group: str) -> None:
        """Leave a step that ignores cancellation to the JVM; new steps get a new thread (a
        daemon: it cannot hold up the interpreter's exit)."""
        worker.abandoned_at = time.monotonic()
        worker.retire()
        self._abandoned.append((worker, group))
        if self._worker is worker:
            self._worker = None

    def settle(self) -> None:
        """Stop what earlier steps left running: abandoned steps, and jobs a statement started
        asynchronously (adaptive query stages, broadcasts) that outlived it when its thread was
        interrupted. Executions are serialised, so no job runs between two of them. After a
        step that timed out, jobs are watched for :data:`LATE_JOBS` seconds more: a cancelled
        statement's write job can still be submitted after its thread gave up."""
        for worker, group in self._abandoned:
            self.cancel(group)
            worker.interrupt()
        sc = self.spark.sparkContext
        tracker = sc.statusTracker()
        watch_until = time.monotonic() + (LATE_JOBS if self._fired else 0.0)
        self._fired = False
        until = time.monotonic() + 2.0
        while True:
            active = tracker.getActiveJobsIds()
            if active:
                sc.cancelAllJobs()
            now = time.monotonic()
            if (not active and now >= watch_until) or now >= max(until, watch_until):
                return
            time.sleep(0.02)

    # -- the shared catalog ------------------------------------------------------------------

    def _catalog(self) -> dict[str, frozenset[str]]:
        """Objects in the shared catalog: ``{"": databases, "t:<db>": tables and views,
        "f:<db>": functions, "g": global temporary views}``."""
        shared = self.spark._jsparkSession.sharedState()
        ec = shared.externalCatalog()
        dbs = _names(ec.listDatabases())
        out = {"": dbs, "g": _names(shared.globalTempViewManager().listViewNames("*"))}
        for db in dbs:
            out[f"t:{db}"] = _names(ec.listTables(db))
            out[f"f:{db}"] = _names(ec.listFunctions(db, "*"))
        return out

    def sweep(self) -> None:
        """Drop everything created in the shared catalog since the session started, and files
        a write cut short left in the warehouse (a managed table's directory must not exist
        before the table is created)."""
        shared = self.spark._jsparkSession.sharedState()
        ec = shared.externalCatalog()
        now = self._catalog()
        base = self._baseline
        for view in now["g"] - base["g"]:
            with contextlib.suppress(Exception):
                shared.globalTempViewManager().remove(view)
        for db in now[""]:
            with contextlib.suppress(Exception):
                if db not in base[""]:
                    self._drop_database(ec, db)
                    continue
                for table in now[f"t:{db}"] - base.get(f"t:{db}", frozenset()):
                    ec.dropTable(db, table, True, True)
                for function in now[f"f:{db}"] - base.get(f"f:{db}", frozenset()):
                    ec.dropFunction(db, function)
        cache = shared.cacheManager()
        if not cache.isEmpty():
            cache.clearCache()
        if self._own_warehouse:  # default's tables live in it, other databases in <db>.db
            known = {f"{db}.db" for db in base[""]} | set(base.get("t:default", frozenset()))
            with contextlib.suppress(OSError):
                for entry in os.scandir(self._warehouse):
                    if entry.name.lower() not in known:
                        shutil.rmtree(entry.path, ignore_errors=True)

    def _drop_database(self, ec: Any, db: str) -> None:
        # the in-memory catalog deletes a database's directory with it: only ever our own
        location = str(ec.getDatabase(db).locationUri().getPath())
        root = os.path.join(self.root or "/nonexistent", "warehouse")
        if os.path.commonpath([os.path.abspath(location), root]) == root:
            ec.dropDatabase(db, True, True)
        else:  # unreachable while LOCATION is refused; never delete someone else's files
            for table in _names(ec.listTables(db)):
                ec.dropTable(db, table, True, False)


def _task_gauge(spark: Any) -> Any:
    """The local executor's ``threadpool.activeTasks`` gauge (its thread pool's active count),
    or None where this Spark does not expose it."""
    try:
        source = spark._jvm.org.apache.spark.executor.Executor.executorSourceLocalModeOnly()
        return source.metricRegistry().getGauges().get("threadpool.activeTasks")
    except Exception:
        return None


def _end_process(proc: Any) -> None:
    """End the JVM pyspark started (it exits when its stdin closes)."""
    if proc is None:
        return
    st.close_quietly(proc.stdin)
    try:
        proc.wait(timeout=10)
    except Exception:
        with contextlib.suppress(Exception):
            proc.kill()
            proc.wait(timeout=10)


def _names(seq: Any) -> frozenset[str]:
    """A Scala ``Seq[String]`` as a Python set (one py4j call)."""
    text = str(seq.mkString("\x00"))
    return frozenset(text.split("\x00")) if text else frozenset()


_RUNTIME = _Runtime()


def shutdown() -> None:
    """Stop the shared Spark session and remove its temporary directory (runs at exit)."""
    _RUNTIME.stop()


# --- the adapter ----------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class _Stored:
    frames: dict[str, Any]  # lower-cased table name -> checkpointed DataFrame
    names: dict[str, str]  # lower-cased table name -> declared name
    generation: int  # the session's: frames of an older session are gone


class SparkEngine(EngineBase[_Stored]):
    name: ClassVar[str] = "spark"
    dialect: ClassVar[str] = "spark"
    dialect_conf: ClassVar[dict[str, str]] = {}  # SQL settings of every execution's session
    label_note: ClassVar[str] = ""
    capabilities: ClassVar[Capabilities] = Capabilities(
        booleans=True,
        transactional_ddl=False,  # no rollback; isolation comes from sessions and scratch copies
        udfs=True,  # CREATE [TEMPORARY] FUNCTION ... RETURN (SQL UDFs)
        procedures=False,
        decimals=True,
        timestamps_us=True,
    )

    def __init__(self) -> None:
        hint = self.available()
        if hint is not None:
            raise UnknownEngineError(f"Spark is not available: {hint}")
        super().__init__()

    @staticmethod
    def available() -> str | None:
        """None when this machine can run Spark, else how to make it able."""
        if importlib.util.find_spec("pyspark") is None:
            return f"pyspark is not installed: {INSTALL_HINT}"
        java_home = os.environ.get("JAVA_HOME")
        if (
            not (java_home and os.path.exists(os.path.join(java_home, "bin", "java")))
            and shutil.which("java") is None
        ):
            return f"no Java runtime ($JAVA_HOME/bin/java or java on PATH): {INSTALL_HINT}"
        return None

    def version(self) -> str:
        if _RUNTIME.spark is not None:
            return str(_RUNTIME.spark.version)
        return importlib.metadata.version("pyspark")

    @property
    def label(self) -> str:
        return f"{self.dialect} (Spark {self.version()} local{self.label_note})"

    # --- fixtures -----------------------------------------------------------------------------

    def load(self, fixture: Fixture) -> LoadReport:
        """The template load, after the session check: a JVM found dead (``suspect``) or a
        runaway past its limit restarts the session here, which makes cached frames stale."""
        with self._loading(fixture):
            return super().load(fixture)

    @contextlib.contextmanager
    def _loading(self, fixture: Fixture) -> Iterator[None]:
        with _RUNTIME.lock:
            try:
                _RUNTIME.session()
            except Exception as exc:  # no usable Java, a port or memory problem, ...
                raise FixtureLoadError(
                    f"fixture {fixture.name!r}: Spark could not start: {st.trim_message(exc)}"
                ) from exc
            yield

    def _usable(self, stored: _Stored) -> bool:
        return stored.generation == _RUNTIME.generation

    def _create(self, fixture: Fixture) -> _Stored:
        return _Stored({}, {t.name.lower(): t.name for t in fixture.tables}, _RUNTIME.generation)

    def _fill(self, stored: _Stored, fixture: Fixture) -> None:
        spark = _RUNTIME.session()
        for table in fixture.tables:
            stored.frames[table.name.lower()] = _frame(spark, table)

    def _read_back(self, stored: _Stored, fixture: Fixture) -> dict[str, list[tuple[Any, ...]]]:
        def read(table: Table) -> list[tuple[Any, ...]]:
            frame = stored.frames.get(table.name.lower())
            return (
                []
                if frame is None
                else [tuple(row) for row in frame.select(*table.column_names).collect()]
            )

        return st.read_tables(fixture, read, Exception)  # e.g. lost checkpoint blocks

    def _discard(self, stored: _Stored) -> None:
        """Release a fixture's frames, under the session's lock: an eviction (the worker's
        fixture cache, ``BoundedCache.on_evict`` → :meth:`_forget`) must not release frames,
        or read the session's generation, while an execution on the session runs."""
        with _RUNTIME.lock:
            if stored.generation == _RUNTIME.generation and _RUNTIME.spark is not None:
                for frame in stored.frames.values():
                    _release(frame)

    def checksums(self, fixture: Fixture) -> dict[str, str]:
        with _RUNTIME.lock:
            return super().checksums(fixture)

    def close(self) -> None:
        with _RUNTIME.lock:
            super().close()

    # --- execution ----------------------------------------------------------------------------

    def _execute(self, request: Request) -> Execution:
        statements = GUARD.script(st.splitter("spark").split(request.sql))
        if isinstance(statements, Execution):
            return statements
        with _RUNTIME.lock:
            stored = self.stored(request.fixture)
            try:
                deadline = st.Deadline(request.timeout)
                script = st.Script(statements, request.fixture, deadline, request.max_rows)
                return self._run(stored, request.sql, script)
            except Exception as exc:  # the JVM or the gateway failed outside a statement
                _RUNTIME.suspect = True
                return Execution(
                    ExecStatus.ENGINE_ERROR, error=st.trim_message(f"{type(exc).__name__}: {exc}")
                )
            finally:
                try:
                    _RUNTIME.settle()
                    _RUNTIME.sweep()
                except Exception:
                    _RUNTIME.suspect = True

    def _run(self, stored: _Stored, sql: str, script: st.Script) -> Execution:
        statements, deadline, max_rows = script.plans, script.deadline, script.max_rows
        runtime = _RUNTIME
        spark = runtime.spark
        group = f"parrot-{secrets.token_hex(8)}"
        runtime.settle()
        runtime.sweep()  # objects an abandoned statement created after the last sweep
        text = sql.lower()
        referenced = [name for name in stored.frames if name in text]
        copies = _tables_to_copy(statements, set(stored.frames))

        outcome = runtime.call(
            lambda stop: _prepare(spark, stored, referenced, copies, group, self.dialect_conf),
            deadline,
            group,
        )
        elapsed = outcome.seconds
        if (failure := outcome.failure()) is not None:
            return Execution(_status(failure, True), error=_message(failure), elapsed=elapsed)
        session = outcome.value
        refusal = _plan_refusal(session, [s.text for s in statements])
        if refusal:
            return Execution(ExecStatus.UNSUPPORTED, error=refusal, elapsed=elapsed)

        # not st.run_in_order: on it the Spark tier hung after a timeout (the refusal tests,
        # then test_timeouts_stop_runaway_queries[spark-after_ddl]); the cause is not found
        result: values.ResultSet | None = None
        too_large = False
        for stmt in statements:
            if deadline.expired:
                return Execution(ExecStatus.TIMEOUT, error="timed out", elapsed=elapsed)
            done = runtime.call(
                functools.partial(
                    _run_statement, spark, session, stmt, max_rows, group, self.dialect_conf
                ),
                deadline,
                group,
            )
            elapsed += done.seconds
            if (failure := done.failure()) is not None:
                return Execution(_status(failure, True), error=_message(failure), elapsed=elapsed)
            if done.value is not None:
                result, too_large = done.value
        if too_large:
            return Execution(
                ExecStatus.TOO_LARGE, error=f"more than {max_rows} rows", elapsed=elapsed
            )
        return Execution(ExecStatus.OK, result=result or values.ResultSet((), ()), elapsed=elapsed)


# --- loading --------------------------------------------------------------------------------------


def _frame(spark: Any, table: Table) -> Any:
    """A checkpointed DataFrame holding ``table``'s rows (built from Arrow: no Python workers)."""
    import pyarrow as pa
    from pyspark.sql.types import StructField, StructType, _parse_datatype_string

    schema = StructType(
        [
            StructField(c.name, _parse_datatype_string(spark_type(c)), c.nullable)
            for c in table.columns
        ]
    )
    data = pa.Table.from_arrays(arrow_arrays(table), names=list(table.column_names))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        frame = spark.createDataFrame(data, schema=schema)
    return frame.localCheckpoint(eager=True)


def _release(frame: Any) -> None:
    with contextlib.suppress(Exception):
        frame._jdf.logicalPlan().rdd().unpersist(False)


def _of_rows(spark: Any, jsession: Any, plan: Any) -> Any:
    """A JVM DataFrame of ``plan`` in another session (Spark 4: ``classic.Dataset.ofRows``)."""
    jvm: Any = spark._jvm
    try:
        return jvm.org.apache.spark.sql.classic.Dataset.ofRows(jsession, plan)
    except Exception:  # pre-4.0 layout
        return jvm.org.apache.spark.sql.Dataset.ofRows(jsession, plan)


# --- statements -----------------------------------------------------------------------------------


def _is_punct(tok: st.Token | None, text: str) -> bool:
    return tok is not None and tok.kind is st.TokenKind.PUNCT and tok.text == text


def _is_string(tok: st.Token | None) -> bool:
    """A string literal: '...', "..." or a raw string r'...'."""
    return tok is not None and (
        tok.kind is st.TokenKind.STRING
        or (tok.kind is st.TokenKind.QUOTED and tok.text.startswith('"'))
    )


def _string_value(tok: st.Token) -> str:
    return tok.text[2:-1] if tok.text[:1] in ("r", "R") else tok.text[1:-1]


def _is_name(tok: st.Token | None) -> bool:
    return tok is not None and (
        tok.kind is st.TokenKind.WORD
        or (tok.kind is st.TokenKind.QUOTED and tok.text.startswith("`"))
    )


_DENIED_FUNCTIONS = frozenset({"reflect", "java_method", "try_reflect"})
_PROTECTED_SETTING = re.compile(
    r"^spark\.(?!sql\.)|^spark\.sql\.(catalog|defaultcatalog|runsqlonfiles|variable\.substitute|"
    r"legacy\.notreserveproperties|sources\.|extensions|warehouse|globaltempdatabase|hive\.)"
    r"|^spark\..*class",
    re.IGNORECASE,
)


def _refusal(stmt: st.Plan) -> str | None:
    """What Spark refuses beside the tables of :data:`GUARD`: clauses that name files,
    connections, commands or Java classes, languages other than SQL, protected settings and
    ``IDENTIFIER()`` of anything but one string literal."""
    tokens = stmt.tokens
    words = stmt.words
    creates_function = words[:1] == ("CREATE",) and "FUNCTION" in words
    if creates_function:
        body = [t.name for t in tokens]
        first = next(
            (
                i
                for i, t in enumerate(tokens)
                if t.kind is st.TokenKind.WORD and t.name in ("as", "return")
            ),
            None,
        )
        if first is not None and body[first] == "as" and _is_string(_at(tokens, first + 1)):
            return "CREATE FUNCTION ... AS 'class' is not allowed (only SQL functions)"
    for i, tok in enumerate(tokens):
        after = _at(tokens, i + 1)
        before = tokens[i - 1] if i > 0 else None
        word = tok.name if tok.kind is st.TokenKind.WORD else ""
        after_word = after.name if after is not None and after.kind is st.TokenKind.WORD else ""
        if word == "location" and _is_string(after):
            return "LOCATION clauses are not allowed (files outside parrot's scratch warehouse)"
        if word == "options" and _is_punct(after, "("):
            return "OPTIONS (...) clauses are not allowed (data source paths and connections)"
        if word == "directory" and before is not None and before.name in ("overwrite", "local"):
            return "INSERT OVERWRITE DIRECTORY is not allowed (writes files)"
        if word == "using" and (_is_string(after) or after_word in ("jar", "file", "archive")):
            return "USING 'command' (script transforms) and USING JAR/FILE/ARCHIVE are not allowed"
        if word == "execute" and after_word == "immediate":
            return "EXECUTE IMMEDIATE is not allowed (dynamic SQL)"
        starts = before is None or _is_punct(before, ";") or before.name in st.BODY_STARTS
        if (
            starts
            and word == "add"
            and after_word in ("jar", "jars", "file", "files", "archive", "archives")
        ):
            return "ADD JAR/FILE/ARCHIVE is not allowed (changes the shared Spark context)"
        if starts and word == "load" and after_word == "data":
            return "LOAD DATA is not allowed (reads files)"
        if creates_function and word == "language" and after_word != "sql":
            return "functions in languages other than SQL are not allowed"
        if word in ("set", "reset"):
            key, end = _setting_key(tokens, i + 1)
            changes = word == "reset" or _is_punct(_at(tokens, end), "=")  # SET k only reads
            if key and changes and _PROTECTED_SETTING.search(key):
                return (
                    f"{word.upper()} {key} is not allowed (Spark core, catalog, class-valued "
                    "and parrot's safety settings are off limits)"
                )
        if word == "identifier" and _is_punct(after, "("):
            literal = _at(tokens, i + 2)
            if literal is None or not _is_string(literal) or not _is_punct(_at(tokens, i + 3), ")"):
                return "IDENTIFIER() is allowed with a single string literal only"
            target = _string_value(literal).replace("`", "").split(".")[-1].strip().lower()
            if target in _DENIED_FUNCTIONS:
                return f"{target}() {GUARD.call_reason}"
    return None


GUARD = st.Guard(
    st.SPARK,
    reserved_prefix=None,
    extra=_refusal,
    reads=frozenset(
        {
            "SELECT",
            "WITH",
            "VALUES",
            "TABLE",
            "FROM",
            "EXPLAIN",
            "DESCRIBE",
            "DESC",
            "SHOW",
            "SET",
            "RESET",
            "USE",
            "CACHE",
            "UNCACHE",
            "CLEAR",
            "REFRESH",
            "LIST",
            "DECLARE",
            "DROP",
        }
    ),
    write_words=frozenset({"insert"}),  # FROM t INSERT INTO ...: fixture tables become copies
    refused_calls=_DENIED_FUNCTIONS,
    call_reason="is not allowed (calls Java methods)",
)


_DENIED_IN_PLAN = re.compile(  # in Spark's own parsed plan (lower-cased tree string)
    r"(?<![\w$])(reflect|java_method|try_reflect)\s*\(|scripttransformation"
    r"|expressionwithunresolvedidentifier\((reflect|java_method|try_reflect)\b"
)


def _plan_refusal(session: Any, texts: Sequence[str]) -> str | None:
    """Why Spark's own parser says a statement must not run (Java calls, script transforms),
    or None. A text the parser rejects is left to fail as Spark reports it (it cannot run);
    anything else the parser check cannot do refuses the text (fail closed)."""
    from pyspark.errors import ParseException

    parser = session._jsparkSession.sessionState().sqlParser()
    for text in texts:
        try:
            plan = str(parser.parsePlan(text).toString()).lower()
        except ParseException:
            continue
        except Exception as exc:
            return f"the statement could not be checked by Spark's parser: {type(exc).__name__}"
        if (m := _DENIED_IN_PLAN.search(plan)) is not None:
            what = (
                "TRANSFORM ... USING"
                if m.group(0) == "scripttransformation"
                else (m.group(1) or m.group(2)) + "()"
            )
            return f"{what} is not allowed (Java calls and shell commands, per Spark's parser)"
    return None


def _at(tokens: Sequence[st.Token], i: int) -> st.Token | None:
    return tokens[i] if 0 <= i < len(tokens) else None


def _setting_key(tokens: Sequence[st.Token], i: int) -> tuple[str, int]:
    """The dotted setting name after SET/RESET (``spark.sql.x`` or `spark.sql.x`) and the index
    of the token after it."""
    parts: list[str] = []
    while i < len(tokens):
        tok = tokens[i]
        if tok.kind is st.TokenKind.WORD or (tok.kind is st.TokenKind.PUNCT and tok.text in ".-"):
            parts.append(tok.text)
        elif tok.kind is st.TokenKind.QUOTED and tok.text.startswith("`"):
            parts.append(tok.text[1:-1].replace("``", "`"))
        else:
            break
        i += 1
    return "".join(parts), i


def _tables_to_copy(statements: Sequence[st.Plan], tables: set[str]) -> set[str]:
    """Fixture tables named by a statement that needs real tables (writes, permanent views and
    functions, CTAS): they become scratch copies for the execution."""
    out: set[str] = set()
    for stmt in statements:
        words = stmt.words
        names = {t.name for t in stmt.tokens if _is_name(t)}
        if (
            not words
            or not stmt.writes
            or (words[0] == "CREATE" and ("TEMPORARY" in words or "TEMP" in words))
        ):
            continue
        out |= names & tables
        for i, tok in enumerate(stmt.tokens):  # IDENTIFIER('customers')
            literal = _at(stmt.tokens, i + 2)
            if tok.name == "identifier" and literal is not None and _is_string(literal):
                name = _string_value(literal).replace("`", "").split(".")[-1].strip().lower()
                out |= {name} & tables
    return out


# --- running --------------------------------------------------------------------------------------


def _prepare(
    spark: Any,
    stored: _Stored,
    referenced: Sequence[str],
    copies: set[str],
    group: str,
    dialect_conf: dict[str, str],
) -> Any:
    """The execution's session, with the fixture tables as temporary views or scratch copies."""
    spark.sparkContext.setJobGroup(group, "parrot execution", True)
    session = spark.newSession()
    jsession = session._jsparkSession
    _configure(jsession, dialect_conf)
    for name in sorted(set(referenced) | copies):
        declared = stored.names[name]
        frame = _of_rows(spark, jsession, stored.frames[name]._jdf.logicalPlan())
        if name in copies:
            frame.write().format("parquet").saveAsTable(
                "spark_catalog.default.`" + declared.replace("`", "``") + "`"
            )
        else:
            frame.createOrReplaceTempView(declared)
    return session


def _configure(jsession: Any, dialect_conf: dict[str, str]) -> None:
    conf = jsession.conf()
    for key, value in {**SESSION_CONF, **dialect_conf}.items():
        conf.set(key, value)


def _run_statement(
    spark: Any,
    session: Any,
    stmt: st.Plan,
    max_rows: int,
    group: str,
    dialect_conf: dict[str, str],
    stop: threading.Event,
) -> tuple[values.ResultSet, bool] | None:
    """Run one statement; its (capped) rows and whether there were more, or None if rowless."""
    spark.sparkContext.setJobGroup(group, "parrot execution", True)
    frame = session.sql(stmt.text)
    words = stmt.words
    if words[:1] == ("RESET",):
        _configure(session._jsparkSession, dialect_conf)
    fields = frame.schema.fields
    assignment = words[:1] in (("SET",), ("RESET",)) and (
        any(_is_punct(t, "=") for t in stmt.tokens) or words[1:2] == ("TIME",)
    )
    if not fields or assignment:
        return None
    shown, kinds = _presentable(frame, fields)
    rows = _collect(shown.limit(max_rows + 1), stop)
    return _result_set(fields, kinds, rows, max_rows, stop), len(rows) > max_rows


def _collect(frame: Any, stop: threading.Event) -> list[Any]:
    """``frame.collect()``, giving up at the stop flag while rows are unpickled in Python."""
    try:
        from pyspark.serializers import BatchedSerializer, CPickleSerializer
        from pyspark.util import _load_from_socket
    except ImportError:  # another pyspark layout
        return list(frame.collect())
    sock_info = frame._jdf.collectToPython()
    rows: list[Any] = []
    with _load_from_socket(sock_info, BatchedSerializer(CPickleSerializer())) as stream:
        for row in stream:
            rows.append(row)
            if not len(rows) % 1024 and stop.is_set():
                raise _Stopped
    return rows


def _presentable(frame: Any, fields: Sequence[Any]) -> tuple[Any, list[str]]:
    """``frame`` with the columns pyspark cannot hand over (year-month and calendar intervals)
    turned into months or text, and what each column became."""
    from pyspark.sql.types import CalendarIntervalType, YearMonthIntervalType

    kinds: list[str] = []
    exprs: list[str] = []
    for i, f in enumerate(fields):
        ref = f"`_{i}`"
        if isinstance(f.dataType, YearMonthIntervalType):
            kinds.append("months")
            exprs.append(
                f"CAST(extract(YEAR FROM {ref}) * 12 + extract(MONTH FROM {ref}) AS BIGINT)"
            )
        elif _contains(f.dataType, (YearMonthIntervalType, CalendarIntervalType)):
            kinds.append("text")
            exprs.append(f"CAST({ref} AS STRING)")
        else:
            kinds.append("")
            exprs.append(ref)
    if not any(kinds):
        return frame, kinds
    return frame.toDF(*[f"_{i}" for i in range(len(fields))]).selectExpr(*exprs), kinds


def _contains(dtype: Any, kinds: tuple[type, ...]) -> bool:
    from pyspark.sql.types import ArrayType, MapType, StructType

    if isinstance(dtype, kinds):
        return True
    if isinstance(dtype, ArrayType):
        return _contains(dtype.elementType, kinds)
    if isinstance(dtype, MapType):
        return _contains(dtype.keyType, kinds) or _contains(dtype.valueType, kinds)
    if isinstance(dtype, StructType):
        return any(_contains(f.dataType, kinds) for f in dtype.fields)
    return False


# --- values ---------------------------------------------------------------------------------------


def _result_set(
    fields: Sequence[Any],
    kinds: Sequence[str],
    rows: Sequence[Any],
    max_rows: int,
    stop: threading.Event,
) -> values.ResultSet:
    names = tuple(str(f.name) for f in fields)
    types = tuple(str(f.dataType.simpleString()) for f in fields)
    converters = [_converter(f.dataType, kind) for f, kind in zip(fields, kinds, strict=True)]
    out = []
    for n, row in enumerate(rows[:max_rows]):
        if not n % 1024 and stop.is_set():
            raise _Stopped
        out.append(tuple(convert(v) for convert, v in zip(converters, row, strict=True)))
    return values.ResultSet(names, tuple(out), types)


def _converter(dtype: Any, kind: str) -> Callable[[Any], values.Value]:
    """How to turn a collected value of a column into a canonical value."""
    if kind == "months":
        return lambda v: None if v is None else months_interval(0, v)
    if kind == "text":
        return lambda v: v
    plain = _plainer(dtype)
    if plain is None:
        return safe_canonical
    return lambda v: None if v is None else safe_canonical(plain(v))


def _plainer(dtype: Any) -> Callable[[Any], Any] | None:
    """How to turn a (non-NULL) collected value of ``dtype`` into plain Python data that
    :func:`parrot.values.canonical` understands; None when it already is."""
    from pyspark.sql.types import (
        ArrayType,
        BinaryType,
        MapType,
        StructType,
        TimestampType,
        VariantType,
    )

    if isinstance(dtype, TimestampType):  # pyspark gives the instant in the local time zone
        return lambda v: v.astimezone(dt.UTC) if v.tzinfo is None else v
    if isinstance(dtype, ArrayType):
        item = _nullable(_plainer(dtype.elementType))
        return lambda v: [item(x) for x in v]
    if isinstance(dtype, MapType):
        key = _nullable(_plainer(dtype.keyType))
        value = _nullable(_plainer(dtype.valueType))
        return lambda v: {_key(key(k)): value(x) for k, x in v.items()}
    if isinstance(dtype, StructType):
        members = [(f.name, _nullable(_plainer(f.dataType))) for f in dtype.fields]
        return lambda v: {name: convert(x) for (name, convert), x in zip(members, v, strict=True)}
    if isinstance(dtype, VariantType):
        return lambda v: values.Nested(
            json.dumps(json.loads(v.toJson()), sort_keys=True, separators=(",", ":"))
        )
    if isinstance(dtype, BinaryType):
        return bytes
    return None


def _nullable(convert: Callable[[Any], Any] | None) -> Callable[[Any], Any]:
    if convert is None:
        return lambda v: v
    return lambda v: None if v is None else convert(v)


def _key(value: Any) -> Any:
    """A map key usable as a JSON object key."""
    v = safe_canonical(value)
    if isinstance(v, bytes):
        return v.hex()
    return v if isinstance(v, str | int | float | bool) else str(v)


# --- errors ---------------------------------------------------------------------------------------

_PLAN_TAIL = re.compile(r"(; line \d+ pos \d+);?\s*\n.*", re.DOTALL)
_SQL_CONTEXT = re.compile(r"\n\s*== SQL.*", re.DOTALL)
_WRAPPERS = ("Exception thrown in awaitResult",)


def _clean(message: str) -> str:
    message = _SQL_CONTEXT.sub("", message.split("\nJVM stacktrace:")[0])
    return _PLAN_TAIL.sub(r"\1", message).strip()


def _status(exc: BaseException, _interrupted: bool) -> ExecStatus:
    """How a step failed; an engine error makes the JVM suspect (checked before its next use)."""
    status = _classify(exc)[0]
    if status is ExecStatus.ENGINE_ERROR:
        _RUNTIME.suspect = True
    return status


def _message(exc: BaseException) -> str:
    return st.trim_message(_classify(exc)[1])


def _classify(exc: BaseException) -> tuple[ExecStatus, str]:
    """Status and message of an exception raised by pyspark or py4j."""
    from py4j.protocol import Py4JError, Py4JJavaError
    from pyspark.errors import ParseException, PySparkException

    if isinstance(exc, _Cancelled):
        return ExecStatus.TIMEOUT, str(exc)
    if isinstance(exc, ParseException):
        return ExecStatus.SYNTAX_ERROR, _clean(str(exc))
    if isinstance(exc, PySparkException):
        return ExecStatus.RUNTIME_ERROR, _clean(str(exc))
    if isinstance(exc, Py4JJavaError):
        return _classify_java(exc)
    if isinstance(exc, Py4JError | ConnectionError | EOFError | OSError):
        return ExecStatus.ENGINE_ERROR, f"{type(exc).__name__}: {exc}"
    if isinstance(exc, ValueError | TypeError | OverflowError | ArithmeticError):
        return ExecStatus.RUNTIME_ERROR, f"{type(exc).__name__}: {exc}"
    return ExecStatus.ENGINE_ERROR, f"{type(exc).__name__}: {exc}"


def _classify_java(exc: Any) -> tuple[ExecStatus, str]:
    """Walk a Java exception's causes: the innermost Spark error message names the problem."""
    chain: list[tuple[str, str]] = []
    try:
        java = exc.java_exception
        while java is not None and len(chain) < 12:
            chain.append((str(java.getClass().getName()), str(java.getMessage() or "")))
            java = java.getCause()
    except Exception:
        return ExecStatus.ENGINE_ERROR, f"{type(exc).__name__}: {exc}"
    classes = [c for c, _ in chain]
    messages = [m for _, m in chain if m and not m.startswith(_WRAPPERS)]
    spark_messages = [m for m in messages if m.startswith("[")]
    message = (spark_messages or messages or [classes[-1] if classes else str(exc)])[-1]
    if any(c.endswith("OutOfMemoryError") for c in classes):
        return ExecStatus.ENGINE_ERROR, _clean(message)
    if any(c.endswith(".ParseException") for c in classes):
        return ExecStatus.SYNTAX_ERROR, _clean(message)
    return ExecStatus.RUNTIME_ERROR, _clean(message)


class HiveOnSparkEngine(SparkEngine):
    """The ``hive`` dialect on local Spark with ANSI mode off: Spark's Hive-compatible semantics
    (division by zero, overflow and failed casts give NULL instead of errors). Not a Hive server:
    HiveQL that Spark does not parse fails here; the label says what answered."""

    name: ClassVar[str] = "hive"
    dialect: ClassVar[str] = "hive"
    dialect_conf: ClassVar[dict[str, str]] = {"spark.sql.ansi.enabled": "false"}
    label_note: ClassVar[str] = ", ANSI off"


class DatabricksOnSparkEngine(SparkEngine):
    """The ``databricks`` dialect on local Spark (ANSI mode on, as in Databricks SQL). Not
    Databricks: its proprietary extensions (Delta-only statements, Unity Catalog) fail here."""

    name: ClassVar[str] = "databricks"
    dialect: ClassVar[str] = "databricks"


__all__ = [
    "SESSION_CONF",
    "DatabricksOnSparkEngine",
    "HiveOnSparkEngine",
    "SparkEngine",
    "shutdown",
    "spark_type",
]
