"""``python -m parrot.testsuite build DATASET``: distil a suite for every source query of a
dataset and write it to ``DATASET/suites/`` (content-keyed; existing keys are kept unless
``--force``). ``--datagen`` picks the generator: ``rules`` (default), ``llm:MODEL`` or
``rules+llm:MODEL`` (:mod:`parrot.testsuite.llm`; a stored rules suite is then extended, not
rebuilt). ``--from-siblings`` distils from the databases of the references' own suites instead
of generated ones (for Spark sources: see :func:`parrot.testsuite.distill.sibling_pool`)."""

from __future__ import annotations

import argparse
import json
import multiprocessing
import sys
import time
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from parrot import cli
from parrot.cli import add_model_args
from parrot.datasets import Item, load_dataset
from parrot.engines.base import DEFAULT_TIMEOUT
from parrot.engines.worker import die_with_parent
from parrot.eval.judge import Judge
from parrot.eval.runner import missing_engines, servers_needed
from parrot.testsuite.distill import (
    DEFAULT_CANDIDATES,
    DEFAULT_MAX_DBS,
    DEFAULT_MIN_DBS,
    GENERATOR,
    SIBLINGS,
    Distilled,
    distill,
    sibling_pool,
    with_origins,
)
from parrot.testsuite.llm import augment, make_datagen
from parrot.testsuite.store import (
    from_corpus,
    load_suite,
    suite_key,
    suite_path,
    suite_text,
    write_suite,
)
from parrot.translators.llm import options as llm_options

if TYPE_CHECKING:
    from parrot.eval.judge import Judge
    from parrot.testsuite.llm import Datagen

LLM_FLAGS = (
    "api_base",
    "temperature",
    "max_tokens",
    "request_timeout",
    "retries",
    "cache",
    "no_cache",
)


BUILD = (
    "Distil a test suite for every source query of DATASET and write it to "
    "DATASET/suites/ (content-keyed; existing suites are kept unless --force)."
)


def configure(p: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """Fill ``p`` with testsuite's ``build`` command (also ``parrot testsuite``'s subparser)."""
    cli.configure(p, main_build, "Build distilled test suites for a dataset.")
    sub = p.add_subparsers(title="commands", dest="command", metavar="COMMAND", required=True)
    text = "build the suites of DATASET (a name or a path)"
    _build_flags(cli.configure(sub.add_parser("build", help=text, description=BUILD), main_build))
    return p


build_parser, main = cli.entry_points("python -m parrot.testsuite", configure)


def _build_flags(b: argparse.ArgumentParser) -> None:
    _size_flags(b)
    _source_flags(b)
    _run_flags(b)
    _datagen_flags(b)


def _size_flags(b: argparse.ArgumentParser) -> None:
    """How many databases a suite keeps and how many candidates it draws."""
    b.add_argument("dataset", metavar="DATASET", help="a dataset name or path")
    b.add_argument(
        "--max-dbs",
        type=int,
        default=DEFAULT_MAX_DBS,
        metavar="N",
        help=f"databases the set cover keeps per suite (default: {DEFAULT_MAX_DBS}; "
        "--min-dbs more are kept beyond it)",
    )
    b.add_argument(
        "--min-dbs",
        type=int,
        default=DEFAULT_MIN_DBS,
        metavar="N",
        help="diverse databases kept beyond the cover: boundary ones "
        "(duplicate-heavy, join fan-out, ordered, one row, ...) first "
        f"(default: {DEFAULT_MIN_DBS}; a join's sources keep one more, strangers)",
    )
    b.add_argument(
        "--candidates",
        type=int,
        default=DEFAULT_CANDIDATES,
        metavar="N",
        help=f"random candidate databases generated per query (default: "
        f"{DEFAULT_CANDIDATES}), and boundary ones (duplicate-heavy, join "
        "fan-out, ordered, one row, ...: up to half as many) before them",
    )


def _source_flags(b: argparse.ArgumentParser) -> None:
    """Which sources get suites and from what."""
    b.add_argument(
        "--seed",
        type=int,
        default=0,
        metavar="N",
        help="seed of the generated databases: the same seed builds the same suites (default: 0)",
    )
    b.add_argument(
        "--max-rows",
        type=int,
        default=12,
        metavar="N",
        help="rows per generated table (default: 12)",
    )
    cli.add_limit(b, "suites")
    b.add_argument(
        "--source",
        action="append",
        default=None,
        metavar="DIALECT",
        help="only source queries in DIALECT (repeatable)",
    )
    b.add_argument(
        "--unchecked-reference",
        action="append",
        default=[],
        metavar="DIALECT",
        help="do not check the references into DIALECT on candidate databases "
        "(repeatable; e.g. spark, whose per-query start-up is slow here)",
    )
    b.add_argument(
        "--from-siblings",
        action="store_true",
        help="candidates are the databases of the stored suites of the references' "
        "own source queries (the same concept in the target dialects, same "
        "fixture; build those first), not generated ones: each is checked "
        "against the references and the source's neighbours as usual, so a "
        "slow source engine (Spark) runs a few dozen candidates, not hundreds",
    )
    b.add_argument(
        "--no-source-side",
        action="store_true",
        help="run none of the source's neighbours (the source side of the kill "
        "measurement; seconds each on Spark): the set cover counts the "
        "references' neighbours, on their own engines, only",
    )
    b.add_argument(
        "--solver",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="ask z3 for a database that kills each source-side neighbour the "
        "candidates leave alive, checked on the engine, and label those it "
        "proves equal on every small database bounded-equivalent (default: on "
        "when z3-solver is installed: pip install 'parrot-sql[solver]'; with the "
        "rules generator only; see docs/test-suites-solver.md)",
    )


def _run_flags(b: argparse.ArgumentParser) -> None:
    """Budgets, parallelism, what is rebuilt, servers."""
    b.add_argument(
        "--timeout",
        action="append",
        default=[],
        metavar="[DIALECT=]SECONDS",
        help=f"per execution (default: {cli.seconds(DEFAULT_TIMEOUT)}), or for "
        "DIALECT's engine "
        "only (repeatable): a neighbour that times out is not counted, a source "
        "that does gets no suite, and a timed-out engine worker is replaced — "
        "for Spark a new JVM, whose first queries are slow again: spark=600",
    )
    cli.add_jobs(b)
    b.add_argument("--force", action="store_true", help="rebuild suites that exist")
    b.add_argument(
        "--outdated",
        action="store_true",
        help="rebuild the suites another generator made (as --force, but a rerun "
        "resumes an interrupted rebuild)",
    )
    b.add_argument(
        "--max-bytes",
        type=int,
        default=None,
        metavar="N",
        help="write no suite file larger than N bytes: a stored one is left as it is, even "
        "under --force or --outdated (its generator too), and named; a suite built over N "
        "bytes is not written, the older one (if any) kept (default: no limit; the shipped "
        "suites were rebuilt with 1000000, keeping TPC-H's suites of up to 19 MB a line)",
    )
    b.add_argument(
        "--fixture",
        action="append",
        default=None,
        metavar="NAME",
        help="only source queries over fixture NAME (repeatable; e.g. tpch)",
    )
    cli.add_no_start(
        b,
        "a dialect without a running server then builds no suite for its sources and checks "
        "none of its references, as the build warns",
    )


def _datagen_flags(b: argparse.ArgumentParser) -> None:
    """The data generator and its LLM options."""
    b.add_argument(
        "--datagen",
        default="rules",
        metavar="GEN",
        help="rules (the rule-based generator), llm:MODEL (a model writes INSERT rows "
        "aimed at surviving neighbours; MODEL is any LLM --model of parrot eval: "
        "local, PROVIDER/MODEL, or openai/NAME with --api-base) or "
        "rules+llm:MODEL (the rules suite, extended by the model; default: rules)",
    )
    b.add_argument(
        "--llm-rounds",
        type=int,
        default=2,
        metavar="N",
        help="model requests per source query (default: 2)",
    )
    b.add_argument(
        "--datagen-prompt",
        default="datagen-v1",
        metavar="NAME-vVERSION",
        help="the test-data prompt in parrot/testsuite/prompts/ (default: datagen-v1)",
    )
    add_model_args(b)
    llm_options.add_arguments(
        b,
        only=LLM_FLAGS,
        description=(
            "for --datagen llm:MODEL and rules+llm:MODEL (--model-args takes these as K=V); API "
            "keys come from the provider's usual environment variables and are never recorded"
        ),
    )


def parse_datagen(text: str) -> tuple[bool, str | None]:
    """``--datagen``: (run the rules generator, the model spec or None)."""
    if text == "rules":
        return True, None
    for prefix, rules in (("llm:", False), ("rules+llm:", True)):
        if text.startswith(prefix) and text[len(prefix) :]:
            return rules, text[len(prefix) :]
    raise ValueError(f"--datagen {text!r}: expected rules, llm:MODEL or rules+llm:MODEL")


def parse_timeouts(specs: list[str]) -> tuple[float, dict[str, float]]:
    """``--timeout`` values: (the default, per-dialect overrides); ValueError when malformed."""
    default, per = DEFAULT_TIMEOUT, {}
    for spec in specs:
        dialect, _, seconds = spec.rpartition("=")
        value = float(seconds)
        if value <= 0:
            raise ValueError(f"--timeout {spec!r}: must be positive")
        if dialect:
            per[dialect] = value
        else:
            default = value
    return default, per


def _groups(items: tuple[Item, ...]) -> dict[str, tuple[Item, tuple[str, ...]]]:
    """One representative item per suite key, with every dialect the key's items run on."""
    out: dict[str, tuple[Item, tuple[str, ...]]] = {}
    for item in items:
        key = suite_key(item.source_dialect, item.source_sql, item.fixture)
        first, dialects = out.get(key, (item, (item.source_dialect,)))
        if item.target_dialect not in dialects:
            dialects = (*dialects, item.target_dialect)
        out[key] = (first, dialects)
    return out


def _members(items: tuple[Item, ...]) -> dict[str, tuple[Item, ...]]:
    """Every item of each suite key: their references must agree on the suite's databases."""
    out: dict[str, tuple[Item, ...]] = {}
    for item in items:
        key = suite_key(item.source_dialect, item.source_sql, item.fixture)
        out[key] = (*out.get(key, ()), item)
    return out


_ARGS: argparse.Namespace | None = None
_DATAGEN: Datagen | None = None  # the worker's model (one per process)
_JUDGE: Judge | None = None  # the process's judge, kept across suites (see JUDGE_SUITES)
_JUDGED = 0  # suites built with _JUDGE so far
# Suites one judge builds before it is closed and replaced. Its engine workers and server
# connections serve every suite in between: starting and stopping three engine workers per
# suite cost more than the suite's own executions (seconds per source). Replacing the judge
# now and then bounds what it holds: every candidate database stays loaded in its engines
# (dozens per suite, some 20 MB of engine memory) and every source result is cached.
# --from-siblings never replaces it (a Spark JVM starts once, not per suite). 1 is the old
# behaviour: a judge per suite.
JUDGE_SUITES = 10


def _datagen(args: argparse.Namespace) -> Datagen | None:
    global _DATAGEN
    spec = parse_datagen(args.datagen)[1]
    if spec is not None and _DATAGEN is None:
        _DATAGEN = make_datagen(
            spec, llm_options.from_args(args), prompt=args.datagen_prompt, rounds=args.llm_rounds
        )
    return _DATAGEN


def _work(job: tuple[Item, tuple[str, ...], tuple[Item, ...]]) -> tuple[Distilled, dict[str, Any]]:
    """The item's suite, and what the ``--datagen`` model did for it (empty without one)."""
    assert _ARGS is not None
    judge = _judge(_ARGS)
    try:
        item, dialects, members = job
        rules, spec = parse_datagen(_ARGS.datagen)
        stored = load_suite(Path(_ARGS.root), item.source_dialect, item.source_sql, item.fixture)
        if (
            rules
            and spec
            and not _ARGS.force
            and stored is not None
            and stored.generator == GENERATOR
        ):
            result = Distilled(stored)  # extend the stored rules suite
        elif _ARGS.from_siblings:
            pool, origins = sibling_pool(Path(_ARGS.root), members)
            if not pool:
                return Distilled(
                    None, "no stored suite of a reference's own source query to draw databases from"
                ), {}
            result = distill(
                item,
                judge,
                dialects=dialects,
                max_dbs=_ARGS.max_dbs,
                seed=_ARGS.seed,
                references=members,
                pool=pool,
                source_side=not _ARGS.no_source_side,
            )
            if result.suite is not None:
                result = replace(result, suite=with_origins(result.suite, origins))
        else:
            result = distill(
                item,
                judge,
                dialects=dialects,
                max_dbs=_ARGS.max_dbs,
                candidates=_ARGS.candidates if rules else 0,
                seed=_ARGS.seed,
                min_dbs=_ARGS.min_dbs,
                max_rows=_ARGS.max_rows,
                references=members,
                source_side=not _ARGS.no_source_side,
                solver=_ARGS.solver if rules else False,
            )
        gen = _datagen(_ARGS)
        if gen is None or result.suite is None:
            return result, {}
        suite = result.suite if rules else replace(result.suite, generator="")
        suite = augment(suite, item, judge, gen, dialects=dialects, max_rows=_ARGS.max_rows).suite
        llm = suite.extra["llm"]
        if not suite.databases:
            return Distilled(None, "no database the model wrote kills a neighbour"), llm
        return replace(result, suite=suite), llm
    finally:
        _judged(_ARGS)


def _judge(args: argparse.Namespace) -> Judge:
    """The process's judge (made on first use, again after :func:`_judged` closed it)."""
    global _JUDGE
    if _JUDGE is None:
        default, timeouts = parse_timeouts(args.timeout)
        _JUDGE = Judge(timeout=default, timeouts=timeouts)
    return _JUDGE


def _judged(args: argparse.Namespace) -> None:
    """One more suite built with the process's judge: close it after ``judge_suites`` of them
    (default :data:`JUDGE_SUITES`; never with ``--from-siblings``)."""
    global _JUDGE, _JUDGED
    _JUDGED += 1
    most = getattr(args, "judge_suites", JUDGE_SUITES)
    if _JUDGE is not None and not args.from_siblings and most <= _JUDGED:
        _JUDGE.close()
        _JUDGE, _JUDGED = None, 0


def worker_args(args: argparse.Namespace) -> argparse.Namespace:
    """``args`` without the entries the command-line tree adds (``_run``, ``_parser``: a parser
    does not pickle), as a ``--jobs`` worker receives them."""
    return argparse.Namespace(**{k: v for k, v in vars(args).items() if not k.startswith("_")})


def _init(args: argparse.Namespace) -> None:
    global _ARGS

    die_with_parent()  # a build ended by a signal takes its --jobs workers with it
    _ARGS = args


def _label(args: argparse.Namespace) -> str:
    """The suite generator ``--datagen`` asks for."""
    rules, spec = parse_datagen(args.datagen)
    if args.from_siblings:
        return SIBLINGS
    return f"{GENERATOR}+llm:{spec}" if rules and spec else f"llm:{spec}" if spec else GENERATOR


def _stale(root: Path, key: str, item: Item, args: argparse.Namespace) -> bool:
    """Whether the suite ``key`` (of ``item``'s source) is to be built: missing, ``--force``, or
    made by another generator than ``--outdated`` or a model-using ``--datagen`` asks for."""
    path = suite_path(root, key, from_corpus(item.fixture))
    if not path.is_file():
        return True
    if _oversized(path, args) is not None:
        return False
    if args.force:
        return True
    if parse_datagen(args.datagen)[1] is None and not args.outdated:
        return False
    return _generator(path) != _label(args)


def _oversized(path: Path, args: argparse.Namespace) -> int | None:
    """The size of the stored suite file at ``path`` when ``--max-bytes`` keeps it as it is."""
    size = path.stat().st_size
    return size if args.max_bytes is not None and size > args.max_bytes else None


def _print_oversized(
    root: Path, selected: list[tuple[str, tuple[Item, tuple[str, ...]]]], args: argparse.Namespace
) -> None:
    """One line per selected stored suite ``--max-bytes`` keeps as it is (key, size, generator)."""
    for key, (item, _) in selected:
        path = suite_path(root, key, from_corpus(item.fixture))
        size = _oversized(path, args) if path.is_file() else None
        if size is not None:
            print(
                f"  kept as it is (--max-bytes {args.max_bytes}): {key}, {size} bytes, made by "
                f"{_generator(path) or '?'} ({item.id})",
                file=sys.stderr,
            )


def _generator(path: Path) -> str | None:
    """The generator label the suite file at ``path`` names (None when it names none)."""
    label = json.loads(path.read_text(encoding="utf-8")).get("generator")
    return None if label is None else str(label)


def build(args: argparse.Namespace) -> int:
    dataset = load_dataset(args.dataset, count_tokens=False)
    root = Path(dataset.path).parent
    args.root = str(root)
    groups = _groups(dataset.items)
    selected = [
        (k, g)
        for k, g in groups.items()
        if (not args.source or g[0].source_dialect in args.source)
        and (not args.fixture or (g[0].fixture is not None and g[0].fixture.name in args.fixture))
    ]
    todo = [(k, g) for k, g in selected if _stale(root, k, g[0], args)]
    if args.limit is not None:
        todo = todo[: args.limit]
    print(
        f"{dataset.name}: {len(dataset.items)} items, {len(groups)} source queries, "
        f"building {len(todo)}",
        file=sys.stderr,
    )
    _print_oversized(root, selected, args)
    _init(args)
    if parse_datagen(args.datagen)[1] is not None:
        problem = _probe(args)
        if problem:
            print(f"error: {problem}", file=sys.stderr)
            return 2
    members = _members(
        tuple(i for i in dataset.items if i.target_dialect not in args.unchecked_reference)
    )
    jobs = [(*g, members.get(k, ())) for k, g in todo]
    started = _engines_for([m for job in jobs for m in (job[0], *job[2])], args)
    try:
        return _build(args, root, todo, jobs)
    finally:
        # deferred: scipy, numpy, rich (loaded only on this path)
        from parrot.eval.cli import stop_servers

        stop_servers(started)


def _engines_for(items: list[Item], args: argparse.Namespace) -> list[str]:
    """Start the managed servers ``items`` need (unless ``--no-start``); warn about every dialect
    that has no engine here, whose sources get no suite and whose references go unchecked.
    Returns the servers this call started."""
    from rich.console import Console

    # deferred: scipy, numpy, rich (loaded only on this path)
    from parrot.eval.cli import start_servers

    console = Console(stderr=True, highlight=False)
    started: list[str] = []
    failed: dict[str, str] = {}
    if not args.no_start:
        started, failed = start_servers(servers_needed(items, {}), console)
    for m in missing_engines(items, {}, not args.no_start, failed):
        print(
            f"warning: no engine here for {m.dialect} ({m.why}): its sources get no suite and "
            "suites do not check its references",
            file=sys.stderr,
        )
    return started


def _build(
    args: argparse.Namespace,
    root: Path,
    todo: list[tuple[str, tuple[Item, tuple[str, ...]]]],
    jobs: list[tuple[Item, tuple[str, ...], tuple[Item, ...]]],
) -> int:
    start = time.monotonic()
    built = neighbours = killed = fixture_kills = llm_kills = llm_dbs = edges = 0
    rejected: Counter[str] = Counter()
    skipped: dict[str, int] = {}
    results = _results(args, jobs)
    for n, ((key, (item, _)), (result, llm)) in enumerate(zip(todo, results, strict=True), 1):
        llm_kills += int(llm.get("killed", 0))
        llm_dbs += int(llm.get("databases_kept", 0))
        rejected.update(llm.get("rejected", {}))
        result = _within(result, args)
        if result.suite is None:
            reason = result.why_none.split(":")[0][:60]
            skipped[reason] = skipped.get(reason, 0) + 1
            print(
                f"  no suite for {item.id}: {result.why_none[:200]}"
                + _kept(suite_path(root, key, from_corpus(item.fixture))),
                file=sys.stderr,
            )
        else:
            write_suite(root, result.suite, from_corpus(item.fixture))
            built += 1
            neighbours += result.suite.neighbours
            killed += result.suite.killed
            fixture_kills += int(result.suite.extra.get("killed_by_fixture", 0))
            edges += len(result.suite.extra.get("reference_edges", []))
        if n % 10 == 0 or n == len(todo):
            print(f"  {n}/{len(todo)} ({item.id})", file=sys.stderr)
    elapsed = time.monotonic() - start

    def pct(k: int) -> str:
        return f"{100 * k / neighbours:.1f}%" if neighbours else "n/a"

    print(
        f"suites built: {built}; neighbours: {neighbours}; killed by fixture: "
        f"{pct(fixture_kills)}; by fixture + suite: {pct(killed)}; time: {elapsed:.0f}s"
    )
    if edges:
        print(f"  candidate databases left out because a reference disagrees there: {edges}")
    if parse_datagen(args.datagen)[1] is not None:
        print(
            f"  {_label(args)}: {llm_dbs} databases kept, {pct(llm_kills)} of the neighbours "
            "killed only by them; rejected: "
            + (", ".join(f"{r} {c}" for r, c in rejected.most_common()) or "none")
        )
    for reason, count in sorted(skipped.items()):
        print(f"  no suite ({count}): {reason}")
    return 0


def _within(result: Distilled, args: argparse.Namespace) -> Distilled:
    """``result``, or no suite (why: its size) when its file would be over ``--max-bytes``."""
    if result.suite is None or args.max_bytes is None:
        return result
    size = len(suite_text(result.suite).encode("utf-8"))  # what write_suite would write
    if size <= args.max_bytes:
        return result
    return replace(result, suite=None, why_none=f"over --max-bytes {args.max_bytes}: {size} bytes")


def _kept(path: Path) -> str:
    """What a build that made no suite leaves at ``path``: an older suite stays, and eval goes
    on judging with it (a source that gets no suite now may get one again on another machine,
    with its engine or server running), so the build says so."""
    if not path.is_file():
        return ""
    generator = _generator(path)
    made_by = "?" if generator is None else generator
    return f" (its older suite, made by {made_by}, is kept and eval still uses it: {path})"


def _results(
    args: argparse.Namespace, jobs: list[tuple[Item, tuple[str, ...], tuple[Item, ...]]]
) -> Iterator[tuple[Distilled, dict[str, Any]]]:
    """:func:`_work` of every job in order, in ``--jobs`` processes when more than one; those
    end (closing their judges: engine workers, server connections) before this returns."""
    if args.jobs <= 1:
        yield from map(_work, jobs)
        return
    # spawn: a forked worker would inherit the probe's dead event-loop thread
    with ProcessPoolExecutor(
        args.jobs,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=_init,
        initargs=(worker_args(args),),
    ) as pool:
        yield from pool.map(_work, jobs)


def _probe(args: argparse.Namespace) -> str | None:
    """Why the ``--datagen`` model cannot be used, or None (one request; the cache counts)."""
    try:
        gen = _datagen(args)
    except ValueError as exc:
        return str(exc)
    assert gen is not None
    problem = gen.translator.probe()
    if args.jobs > 1:  # the workers make their own
        _close_shared()
    return problem


def _close_shared() -> None:
    global _DATAGEN, _JUDGE, _JUDGED
    if _DATAGEN is not None:
        _DATAGEN.close()
        _DATAGEN = None
    if _JUDGE is not None:
        _JUDGE.close()
        _JUDGE = None
    _JUDGED = 0


def main_build(args: argparse.Namespace) -> int:
    """``build``: check the flags ``args`` hold, then build the suites."""
    parser = args._parser
    try:
        parse_datagen(args.datagen)
    except ValueError as exc:
        parser.error(str(exc))
    if args.llm_rounds < 1:
        parser.error("--llm-rounds must be positive")
    try:
        parse_timeouts(args.timeout)
    except ValueError as exc:
        parser.error(f"--timeout: {exc}")
    if args.from_siblings and args.datagen != "rules":
        parser.error("--from-siblings takes the siblings' databases: no --datagen")
    try:
        return build(args)
    finally:
        _close_shared()
