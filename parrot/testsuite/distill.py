"""Distillation: from many generated candidate databases keep the few that kill most neighbours.

For one source query and fixture: build the neighbours (:mod:`parrot.testsuite.neighbours`),
generate ``candidates`` databases (:mod:`parrot.testsuite.datagen`, seeded), run the source and
every neighbour the fixture does not kill on each database on the source engine through
:class:`parrot.eval.judge.Judge` until one database kills it, and call a neighbour *killed* on
a database when the strict comparison says its result differs; candidates stop once every such
neighbour is killed.
Neighbours that error or time out on the fixture are not counted, nor are those an equivalence
rule proves equal to the source (counted apart, per operator); a database on which the source
fails, or whose LIMIT window cannot be read, is not used (one where the LIMIT cuts tied rows, or
keeps some rows of a result it does not order, is: eval judges any pick of the cut rows as
right). A greedy set cover then keeps at most ``max_dbs`` databases, and ``min_dbs`` diverse ones
join them (boundary kinds first). Deterministic under ``seed``.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from sqlglot import exp

from parrot.compare import Reason
from parrot.datasets import Item
from parrot.eval.judge import EMPTY_FIXTURE, Judge
from parrot.fixtures import Fixture, FixtureError, fixture_from_json, fixture_to_json
from parrot.testsuite.boundary import KINDS, query_boundary_data
from parrot.testsuite.datagen import SchemaError, parse_query, query_test_data
from parrot.testsuite.neighbours import Neighbour, neighbours
from parrot.testsuite.operators import family_of
from parrot.testsuite.solver import Attempt, available, solve_survivors
from parrot.testsuite.store import Suite, SuiteDatabase, load_suite, suite_key
from parrot.translators.base import Translation, TranslationStatus

# v17: boundary kind strangers (one row a table, every join reference an orphan), kept beyond
# min_dbs; v16: boundary kinds mirror and childless; v15: boundary kinds duplicates (staircase
# counts), fanout, twins, ordered, and the order they are kept in (parrot.testsuite.boundary);
# v14: NOT IN -> NOT EXISTS neighbours; v13: the operator registry (parrot.testsuite.operators:
# SQLMutation's categories, span drops); v12: boundary candidates (parrot.testsuite.boundary),
# --min-dbs diverse databases beyond the cover, order-less LIMIT ties kept; v11: every fixture
# table in every database (those the source does not read keep the fixture's rows)
GENERATOR = "rules-v18"
SIBLINGS = f"siblings/{GENERATOR}"  # suites distilled from the sibling suites' databases
DEFAULT_MAX_DBS = 8
DEFAULT_MIN_DBS = 4  # diverse databases kept beyond the cover (a boundary, a duplicate-heavy one)
DEFAULT_CANDIDATES = 24
REFERENCE_CANDIDATES = 4  # more candidates per reference, generated from the reference's SQL
_STALL = 4  # candidates in a row that kill nothing new before the references' neighbours give up
_NOT_COUNTED = frozenset({Reason.PRED_ERROR.value, Reason.TIMEOUT.value})
# Whether a candidate database also runs the neighbours earlier candidates killed. False: each
# neighbour runs until a database kills it (it counts as killed by that first one only), so a
# source with one survivor no longer runs every killed neighbour on every candidate; the set
# cover then works on first kills. True: the full kill sets (rules-v14 before 2026-12-06; the
# cover may need fewer databases, for several times the executions on such sources).
JUDGE_KILLED = False
# A neighbour runs at most NEIGHBOUR_TIMES as long as the query it mutates on the same database,
# and at least NEIGHBOUR_FLOOR seconds (capped by --timeout): one that takes longer is not
# counted (timed out). A neighbour that times out on one candidate database is not run on the
# later ones (rules-v15 and before ran it on every candidate, 10 s + a 30 s re-run each time).
NEIGHBOUR_TIMES = 20.0
NEIGHBOUR_FLOOR = 0.5


@dataclass
class Distilled:
    """A suite and the per-operator counts behind it (for summaries and the bench)."""

    suite: Suite | None
    why_none: str = ""
    # op -> [non-equivalent neighbours, killed by the fixture, by fixture + suite, equivalent,
    #        unkillable on the source engine (see order_probes), bounded-equivalent (the solver's;
    #        only where there are some)]
    operators: dict[str, list[int]] = field(default_factory=dict)


def source_probe(item: Item, fixture: Fixture, *carried: str) -> Item:
    """The item's source as an item into its own dialect on ``fixture`` (what the source's
    neighbours are judged against), with the ``carried`` fields of ``item`` too."""
    return Item(
        id=item.id,
        source_dialect=item.source_dialect,
        target_dialect=item.source_dialect,
        source_sql=item.source_sql,
        fixture=fixture,
        **{name: getattr(item, name) for name in carried},
    )


def neighbour_budget(judge: Judge, dialect: str, source_seconds: float) -> float:
    """Seconds a neighbour may run on a database where the query it mutates ran in
    ``source_seconds``: :data:`NEIGHBOUR_TIMES` that, at least :data:`NEIGHBOUR_FLOOR`, at most
    the judge's timeout for ``dialect`` (the judge re-runs a timed-out execution once with
    three times the budget, as it does every execution)."""
    cap = judge.timeouts.get(dialect, judge.timeout)
    return min(cap, max(NEIGHBOUR_FLOOR, NEIGHBOUR_TIMES * source_seconds))


def neighbour_verdict(judge: Judge, item: Item, fixture: Fixture, sql: str) -> str:
    """'kill', 'same', 'error' or 'timeout' for neighbour ``sql`` of ``item`` on ``fixture``.
    The source runs first with the judge's own timeout; the neighbour within
    :func:`neighbour_budget` of the source's time there (a neighbour of a recursive CTE whose
    stop condition is dropped never ends: it costs about two seconds, not 10 s + 30 s)."""
    probe = source_probe(item, fixture, "order_sensitive", "tolerance")
    gold = judge.gold(probe).execution
    seconds = neighbour_budget(judge, item.source_dialect, gold.elapsed)
    record = judge.judge(probe, Translation(TranslationStatus.OK, sql=sql), timeout=seconds)
    strict = record["verdicts"]["strict"]
    if strict["match"]:
        return "same"
    if strict["reason"] == Reason.TIMEOUT.value:
        return "timeout"
    return "error" if strict["reason"] in _NOT_COUNTED else "kill"


def neighbour_outcome(judge: Judge, item: Item, fixture: Fixture, sql: str) -> str:
    """'kill', 'same' or 'error' (a timeout included) for neighbour ``sql`` of ``item`` on
    ``fixture`` (:func:`neighbour_verdict`)."""
    verdict = neighbour_verdict(judge, item, fixture, sql)
    return "error" if verdict == "timeout" else verdict


@dataclass
class _Candidates:
    """The candidate databases of one source query, numbered, in the order they are tried: the
    boundary ones (``kinds``: number -> (kind, fixture JSON)), the random ones, then from
    ``from_source`` on those generated from the references' SQL."""

    dbs: list[tuple[int, Fixture]]
    kinds: dict[int, tuple[str, dict[str, Any]]]
    from_source: int


@dataclass
class _Trial:
    """The neighbours distillation aims at and what the candidates tried so far did to them.

    ``counted``: the source's non-equivalent neighbours that run on the fixture (indices below
    ``offset``); ``targets``: the references' neighbours with their probe items (index
    ``offset + k``); ``todo``: those the fixture does not kill; ``usable`` and ``kills``: each
    usable database and the neighbours it kills; ``edges``: databases left out because the
    references disagree there; ``timed_out``: (dialect, operator, SQL, where) of the neighbours
    that timed out (where: ``fixture``, or the candidate ``r<number>``), those of ``dead`` (their
    indices) on a candidate, after which they run on no other database and are not counted."""

    item: Item
    counted: list[Neighbour]
    on_fixture: set[int]
    targets: list[tuple[Item, Neighbour]]
    refs: list[tuple[Item, str]]
    todo: set[int] = field(default_factory=set)
    seen: set[int] = field(default_factory=set)
    usable: list[tuple[int, Fixture]] = field(default_factory=list)
    kills: list[set[int]] = field(default_factory=list)
    edges: list[str] = field(default_factory=list)
    timed_out: list[tuple[str, str, str, str]] = field(default_factory=list)
    dead: set[int] = field(default_factory=set)

    def neighbour(self, i: int) -> tuple[Item, Neighbour]:
        """Neighbour ``i`` (the source's below ``offset``, then the references') and the probe
        item that judges it."""
        if i < self.offset:
            return self.item, self.counted[i]
        return self.targets[i - self.offset]

    def time_out(self, i: int, where: str) -> None:
        """Neighbour ``i`` timed out on candidate ``where``: not counted, run no more."""
        probe, n = self.neighbour(i)
        self.timed_out.append((probe.source_dialect, n.operator, n.sql, where))
        self.dead.add(i)
        self.todo.discard(i)

    @property
    def offset(self) -> int:
        return len(self.counted)

    def alive(self) -> list[Neighbour]:
        """The source's neighbours no usable database has killed yet (nor the fixture)."""
        return [self.counted[i] for i in sorted(self.todo - self.seen) if i < self.offset]


def distill(
    item: Item,
    judge: Judge,
    *,
    dialects: tuple[str, ...] = (),
    max_dbs: int = DEFAULT_MAX_DBS,
    candidates: int = DEFAULT_CANDIDATES,
    seed: int = 0,
    max_rows: int = 12,
    min_dbs: int = DEFAULT_MIN_DBS,
    references: tuple[Item, ...] = (),
    pool: tuple[tuple[int, Fixture], ...] | None = None,
    source_side: bool = True,
    exclude: frozenset[str] = frozenset(),
    solver: bool | None = None,
) -> Distilled:
    """The suite of ``item``'s source query (None, with a reason, when none can be built).

    ``references``: items of the same source query whose reference translations must agree with
    the source on every kept database (see :func:`reference_disagreement`). ``pool``: the
    candidate databases (numbered), tried in order instead of generated ones (see
    :func:`sibling_pool`). ``source_side=False`` runs none of the source's neighbours (each
    costs seconds on Spark): the cover counts the references' neighbours only, and the suite
    records ``source_side: false`` and no source-side counts. ``exclude``: operator families
    (:func:`parrot.testsuite.operators.family_of`) whose neighbours distillation neither counts
    nor aims at (the leave-one-family-out measurement). Beyond the cover, ``min_dbs``
    diverse usable databases are kept (:func:`_diverse`), the boundary candidates of
    :mod:`parrot.testsuite.boundary` first. ``solver`` (default: when z3 is importable):
    witnesses for the source's neighbours still alive (:mod:`parrot.testsuite.solver`) join
    the candidates; those it proves bounded-equivalent are counted apart, not as survivors.

    The steps: :func:`_candidate_databases`, :func:`_aims` (the neighbours),
    :func:`_try_candidates`, :func:`extra_candidates` for the survivors (tried the same way),
    :func:`order_probes`, :func:`_witnesses` (the solver), :func:`_cover` and :func:`_diverse`,
    then :func:`_suite`."""
    gold = judge.gold(item).execution
    if not gold.ok:
        return Distilled(None, f"source fails on its fixture: {gold.status}")
    try:
        draw = _Draw(item, references, dialects, seed, max_rows)
        cands = _candidate_databases(draw, candidates=candidates, pool=pool)
    except SchemaError as exc:
        return Distilled(None, str(exc))
    trial, equivalent = _aims(judge, item, references, source_side, exclude)
    position = _try_candidates(judge, trial, cands.dbs, cands.from_source, set(cands.kinds))
    _try_extra(judge, item, trial, cands.dbs)
    alive = {i for i in trial.todo - trial.seen if i < trial.offset}
    unkillable = order_probes(
        judge, item, trial.counted, alive, trial.usable, trial.kills, trial.refs, trial.edges
    )
    use_solver = (available() if solver is None else solver) and pool is None
    attempts, bounded = (
        _witnesses(judge, item, trial, sorted(alive - set(unkillable))) if use_solver else ([], {})
    )
    cands.kinds.update({r: ("solver", {}) for r, _ in trial.usable if r < 0})
    chosen, covered = _choose(judge, item, trial, cands, position, max_dbs, min_dbs)
    return _suite(
        item,
        trial,
        chosen,
        covered,
        unkillable,
        equivalent,
        cands.kinds,
        seed=seed,
        source_side=source_side,
        solved=(attempts, bounded),
    )


def _try_extra(judge: Judge, item: Item, trial: _Trial, dbs: list[tuple[int, Fixture]]) -> None:
    """Candidates :func:`extra_candidates` proposes for the survivors, tried the same way."""
    extra = extra_candidates(item, trial.alive(), item.fixture)
    if extra and trial.seen != trial.todo:
        start = 1 + max((r for r, _ in dbs), default=-1)
        numbered = list(enumerate(extra, start))
        _try_candidates(judge, trial, numbered, len(numbered), set())


def _choose(
    judge: Judge,
    item: Item,
    trial: _Trial,
    cands: _Candidates,
    position: int,
    max_dbs: int,
    min_dbs: int,
) -> tuple[list[int], set[int]]:
    """The cover of the kills, then ``min_dbs`` diverse usable databases beyond it."""
    chosen, covered = _cover(trial.kills, trial.offset, max_dbs)
    kinds = {r: k for r, (k, _) in cands.kinds.items()}
    chosen += _diverse(
        judge,
        item,
        trial.usable,
        trial.kills,
        cands.dbs[position : cands.from_source],
        chosen,
        kinds,
        trial.refs,
        min_dbs + (min_dbs > 0 and "strangers" in kinds.values()),  # kept beyond min_dbs
    )
    if not chosen and trial.usable:  # nothing to kill: still keep one database beyond the fixture
        chosen.append(0)
    return chosen, covered


def extra_candidates(
    item: Item, survivors: list[Neighbour], schema: Fixture | None
) -> list[Fixture]:
    """Candidate databases proposed for the source's neighbours that no generated candidate
    killed (``survivors``, over the fixture ``schema``), tried after the others as they are:
    the seam for solver-built witnesses (issue 28 item 3). None yet."""
    return []


@dataclass(frozen=True)
class _Draw:
    """How the candidate databases of a source query are generated: over its fixture, for
    these dialects, from ``seed``, at most ``max_rows`` rows a table."""

    item: Item
    references: tuple[Item, ...]
    dialects: tuple[str, ...]
    seed: int
    max_rows: int

    def generate(self, sql: str, dialect: str, rounds: int, seed: str) -> list[dict[str, Any]]:
        """``rounds`` databases for ``sql`` (raises :class:`SchemaError`, ``ValueError`` when
        the generator cannot read it)."""
        return query_test_data(
            sql,
            dialect,
            rounds=rounds,
            seed=seed,
            name=f"ts{self.seed}",
            base=self.item.fixture,
            dialects=self.dialects,
            max_rows=self.max_rows,
        )


def _candidate_databases(
    draw: _Draw, *, candidates: int, pool: tuple[tuple[int, Fixture], ...] | None
) -> _Candidates:
    """``pool`` as given, or the source's boundary and random candidates then the references'
    (raises :class:`SchemaError` when the generator cannot read the source)."""
    if pool is not None:
        return _Candidates(list(pool), {}, len(pool))
    item = draw.item
    generated = draw.generate(item.source_sql, item.source_dialect, candidates, str(draw.seed))
    named = item.fixture.name if item.fixture and _qualified(item) else None
    kinds = _boundary_candidates(item, draw.dialects, draw.seed, len(generated), candidates // 2)
    made = len(generated) + len(kinds)  # numbered 0 .. made - 1, failed ones included
    dbs: list[tuple[int, Fixture]] = []
    for r, data in [*((r, d) for r, (_, d) in kinds.items()), *enumerate(generated)]:
        with contextlib.suppress(FixtureError):
            dbs.append((r, fixture_from_json({**data, "name": named or data["name"]})))
    from_source = len(dbs)
    if candidates:
        dbs += _reference_candidates(draw, start=made)
    return _Candidates(dbs, kinds, from_source)


def _aims(
    judge: Judge,
    item: Item,
    references: tuple[Item, ...],
    source_side: bool,
    exclude: frozenset[str],
) -> tuple[_Trial, dict[str, int]]:
    """The neighbours to kill: the source's (unless not ``source_side``) and the agreeing
    references' on their target engines (what eval faces: a near-miss translation), none of an
    ``exclude``d family; with the equivalent ones counted per operator."""
    fixture = item.fixture or EMPTY_FIXTURE
    counted: list[Neighbour] = []
    on_fixture: set[int] = set()
    equivalent: dict[str, int] = {}
    timed_out: list[tuple[str, str, str, str]] = []
    keys = {t.name.lower(): t.primary_key for t in item.fixture.tables} if item.fixture else {}
    types = (
        {t.name.lower(): {c.name.lower(): c.type for c in t.columns} for t in item.fixture.tables}
        if item.fixture
        else {}
    )
    for n in (
        neighbours(item.source_sql, item.source_dialect, keys=keys, types=types)
        if source_side
        else ()
    ):
        if family_of(n.operator) in exclude:
            continue
        if n.equivalent:
            equivalent[n.operator] = equivalent.get(n.operator, 0) + 1
            continue
        outcome = neighbour_verdict(judge, item, fixture, n.sql)
        if outcome == "timeout":
            timed_out.append((item.source_dialect, n.operator, n.sql, "fixture"))
        if outcome in ("error", "timeout"):
            continue
        if outcome == "kill":
            on_fixture.add(len(counted))
        counted.append(n)
    refs = agreeing_references(judge, references)
    targets = [
        (probe, n)
        for probe, n in reference_neighbours(judge, refs, keys, types)
        if family_of(n.operator) not in exclude
    ]
    trial = _Trial(item, counted, on_fixture, targets, refs, timed_out=timed_out)
    trial.todo = (set(range(len(counted))) - on_fixture) | {
        len(counted) + k for k in range(len(targets))
    }
    return trial, equivalent


def _try_candidates(
    judge: Judge,
    trial: _Trial,
    dbs: list[tuple[int, Fixture]],
    from_source: int,
    boundary: set[int],
) -> int:
    """Run every neighbour still alive on each of ``dbs`` in turn (those from ``from_source`` on
    are the references'; with :data:`JUDGE_KILLED`, the killed ones too), recording the usable
    ones in ``trial`` and the neighbours each kills first; stops once every neighbour
    is killed, or when only the references' are left and the last few databases killed none
    (then going on to the references' databases first). ``boundary``: numbers of databases
    checked against the references even when they kill nothing (they may be kept anyway).
    Returns how many of ``dbs`` were looked at."""
    item, offset = trial.item, trial.offset
    references_only = set(range(offset, offset + len(trial.targets)))
    stall = 0  # candidates in a row that killed nothing new, once the source's are all killed
    position = 0
    while position < len(dbs):
        r, db = dbs[position]
        position += 1
        if stall >= _STALL and trial.todo - trial.seen <= references_only:
            if position > from_source:
                break
            position, stall = from_source, 0
            continue
        probe = source_probe(item, db, "order_sensitive")
        if not _judgeable(judge, probe):
            continue  # the source fails, or its LIMIT's window cannot be read: not a test of it
        killed = _kills(judge, trial, r, db)
        if killed or not trial.usable or r in boundary:  # only databases that may be kept
            why = reference_disagreement(judge, trial.refs, db)
            if why is not None:
                trial.edges.append(f"r{r}: {why}")
                continue
        trial.usable.append((r, db))
        trial.kills.append(killed)
        stall = 0 if killed - trial.seen else stall + 1
        trial.seen |= killed
        if trial.seen == trial.todo:
            break  # every neighbour the fixture misses is killed: later candidates add nothing
    return position


def _kills(judge: Judge, trial: _Trial, r: int, db: Fixture) -> set[int]:
    """The neighbours still aimed at that candidate ``r`` (``db``) kills, the source's first;
    one that times out there is dead (:meth:`_Trial.time_out`)."""
    aims = trial.todo if JUDGE_KILLED else trial.todo - trial.seen
    killed: set[int] = set()
    for i in sorted(aims, key=lambda i: (i >= trial.offset, i)):
        probe, n = trial.neighbour(i)
        verdict = neighbour_verdict(judge, probe, db, n.sql)
        if verdict == "kill":
            killed.add(i)
        elif verdict == "timeout" and i not in trial.seen:
            trial.time_out(i, f"r{r}")
    return killed


def _cover(kills: list[set[int]], offset: int, max_dbs: int) -> tuple[list[int], set[int]]:
    """Greedy set cover: at most ``max_dbs`` indices into ``kills``, the source's neighbours
    (below ``offset``) first, the references' breaking ties and filling the rest; with the
    neighbours they kill."""
    chosen: list[int] = []
    covered: set[int] = set()
    while len(chosen) < max_dbs:
        gains = [
            (len({i for i in k - covered if i < offset}), len(k - covered), -j)
            for j, k in enumerate(kills)
            if j not in chosen
        ]
        if not gains or max(gains)[1] == 0:
            break
        j = -max(gains)[2]
        chosen.append(j)
        covered |= kills[j]
    return chosen, covered


def _suite(
    item: Item,
    trial: _Trial,
    chosen: list[int],
    covered: set[int],
    unkillable: dict[int, str],
    equivalent: dict[str, int],
    kinds: dict[int, tuple[str, dict[str, Any]]],
    *,
    seed: int,
    source_side: bool,
    solved: tuple[list[Attempt], dict[int, int]] = ([], {}),
) -> Distilled:
    """The suite of the ``chosen`` usable databases, with the per-operator counts
    (``solved``: the solver's attempts and the neighbours it proved bounded-equivalent)."""
    attempts, bounded = solved
    counted, offset, usable, kills = trial.counted, trial.offset, trial.usable, trial.kills
    on_fixture = trial.on_fixture
    operators = _operator_counts(trial, covered, unkillable, equivalent, bounded)
    databases = tuple(
        SuiteDatabase(
            fixture=usable[j][1],
            seed=usable[j][0],
            size=usable[j][1].row_count,
            kills=len({i for i in kills[j] if i < offset}),
        )
        for j in chosen
    )
    survivors = [
        [n.operator, n.sql]
        for i, n in enumerate(counted)
        if i not in covered
        and i not in on_fixture
        and i not in unkillable
        and i not in bounded
        and i not in trial.dead
    ]
    extra: dict[str, Any] = {
        "seed": seed,
        "candidates": len(usable),
        "kinds": [kinds[usable[j][0]][0] if usable[j][0] in kinds else "random" for j in chosen],
        "killed_by_fixture": len(on_fixture),
        "operators": operators,
        "survivors": survivors,
        "unkillable": [
            [counted[i].operator, counted[i].sql, why] for i, why in sorted(unkillable.items())
        ],
        "reference_edges": trial.edges,
        **({} if source_side else {"source_side": False}),
        **(
            {
                "solver": [a.to_json() for a in attempts],
                "bounded_equivalent": [
                    [counted[i].operator, counted[i].sql, b] for i, b in sorted(bounded.items())
                ],
            }
            if attempts
            else {}
        ),
        "target_neighbours": len(trial.targets) - len({i for i in trial.dead if i >= offset}),
        "target_killed": len({i for i in covered if i >= offset}),
        **({"timed_out": [list(t) for t in trial.timed_out]} if trial.timed_out else {}),
    }
    suite = Suite(
        key=suite_key(item.source_dialect, item.source_sql, item.fixture),
        source_dialect=item.source_dialect,
        source_sql=item.source_sql,
        fixture_sha256=item.fixture.content_hash if item.fixture else "",
        databases=databases,
        generator=GENERATOR,
        neighbours=len(counted) - len({i for i in trial.dead if i < offset}),
        killed=len({i for i in covered if i < offset} | on_fixture),
        extra=extra,
    )
    return Distilled(suite, operators=operators)


def _operator_counts(
    trial: _Trial,
    covered: set[int],
    unkillable: dict[int, str],
    equivalent: dict[str, int],
    bounded: dict[int, int],
) -> dict[str, list[int]]:
    """Per operator: neighbours, killed on the fixture, killed, equivalent, unkillable and
    (a sixth count, where any) proved bounded-equivalent."""
    on_fixture = trial.on_fixture
    operators: dict[str, list[int]] = {}
    for i, n in enumerate(trial.counted):
        if i in trial.dead:  # timed out on a candidate: not counted
            continue
        row = operators.setdefault(n.operator, [0, 0, 0, 0, 0])
        if i in bounded:  # proved equal on every small database: not a survivor
            row.extend([0] * (6 - len(row)))
            row[5] += 1
            continue
        row[0] += 1
        row[1] += i in on_fixture
        row[2] += i in covered or i in on_fixture
        row[4] += i in unkillable
    for op, count in equivalent.items():
        operators.setdefault(op, [0, 0, 0, 0, 0])[3] = count
    return operators


def _witnesses(
    judge: Judge, item: Item, trial: _Trial, alive: list[int]
) -> tuple[list[Attempt], dict[int, int]]:
    """The solver's witnesses for the source's neighbours still ``alive`` (see
    :func:`parrot.testsuite.solver.solve_survivors`), verified where the source can be judged;
    each joins ``trial.usable`` where every reference agrees with the source."""
    return solve_survivors(
        item.source_sql,
        item.source_dialect,
        item.fixture or EMPTY_FIXTURE,
        [(i, trial.counted[i].operator, trial.counted[i].sql) for i in alive],
        lambda db, sql: (
            _judgeable(judge, replace(item, target_dialect=item.source_dialect, fixture=db))
            and neighbour_outcome(judge, item, db, sql) == "kill"
        ),
        lambda db: reference_disagreement(judge, trial.refs, db) is None,
        trial.usable,
        trial.kills,
    )


def _boundary_candidates(
    item: Item, dialects: tuple[str, ...], seed: int, start: int, most: int
) -> dict[int, tuple[str, dict[str, Any]]]:
    """The first ``most`` boundary candidates of the source (:mod:`parrot.testsuite.boundary`),
    numbered from ``start``: number -> (kind, fixture JSON)."""
    made = query_boundary_data(
        item.source_sql,
        item.source_dialect,
        seed=str(seed),
        name=f"ts{seed}",
        base=item.fixture,
        dialects=dialects,
    )
    return {start + k: pair for k, pair in enumerate(made[:most])}


def _judgeable(judge: Judge, probe: Item) -> bool:
    """Whether the source runs on the probe's fixture and its LIMIT window (if any) is readable."""
    return judge.gold(probe).execution.ok and judge.limit_unjudgeable(probe) is None


def _diverse(
    judge: Judge,
    item: Item,
    usable: list[tuple[int, Fixture]],
    kills: list[set[int]],
    spare: list[tuple[int, Fixture]],
    chosen: list[int],
    kinds: dict[int, str],
    refs: list[tuple[Item, str]],
    count: int,
) -> list[int]:
    """Up to ``count`` databases beyond ``chosen`` (indices into ``usable``; ``spare``: the
    candidates distillation did not get to, appended to ``usable`` and ``kills``, usable when
    the source can be judged there): the boundary kinds in the order of
    :data:`~parrot.testsuite.boundary.KINDS` (duplicate-heavy, join fan-out, ...), then
    others on which the source returns a result no kept database gives; each on which the
    references agree."""
    start = len(usable)
    usable.extend(spare)
    kills.extend(set() for _ in spare)

    def result(j: int) -> str:
        probe = replace(item, target_dialect=item.source_dialect, fixture=usable[j][1])
        rows = judge.gold(probe).execution.result
        return repr(sorted(map(repr, rows.rows))) if rows is not None else ""

    def rank(j: int) -> int:
        kind = kinds.get(usable[j][0], "")
        return KINDS.index(kind) if kind in KINDS else len(KINDS)

    seen = {result(j) for j in chosen}
    out: list[int] = []
    for j in sorted((j for j in range(len(usable)) if j not in chosen), key=rank):
        if len(out) >= count:
            break
        kind = kinds.get(usable[j][0], "")
        if j >= start and not _judgeable(
            judge, replace(item, target_dialect=item.source_dialect, fixture=usable[j][1])
        ):
            continue
        signature = result(j)
        if (not kind and signature in seen) or reference_disagreement(judge, refs, usable[j][1]):
            continue
        seen.add(signature)
        out.append(j)
    kept = set(chosen) | set(out)  # spare databases not kept leave ``usable`` again
    while len(usable) > start and len(usable) - 1 not in kept:
        usable.pop()
        kills.pop()
    return out


def _qualified(item: Item) -> bool:
    """Whether the source names a table as ``db.table`` (a server engine's database, named after
    the fixture): candidate databases then keep the fixture's name, as eval's suite judging
    does."""
    try:
        tree = parse_query(item.source_sql, item.source_dialect)
    except SchemaError:
        return False
    return any(t.args.get("db") for t in tree.find_all(exp.Table))


def sibling_pool(
    root: Path, references: tuple[Item, ...]
) -> tuple[tuple[tuple[int, Fixture], ...], list[dict[str, Any]]]:
    """Candidate databases for a source query whose own engine is too slow to distil generated
    candidates on (Spark): the databases of the stored suites of its references' own source
    queries — the same query written in each target dialect over the same fixture, whose suites
    were generated knowing every dialect of the concept —, numbered in order, each with where it
    came from (``dialect``, ``suite`` key, ``seed`` there, ``generator``). Duplicates are
    dropped."""
    pool: list[tuple[int, Fixture]] = []
    origins: list[dict[str, Any]] = []
    seen: set[str] = set()
    for ref_item in references:
        for sql in ref_item.reference_sql:
            suite = load_suite(root, ref_item.target_dialect, sql, ref_item.fixture)
            if suite is None:
                continue
            for db in suite.databases:
                if db.fixture.content_hash in seen:
                    continue
                seen.add(db.fixture.content_hash)
                pool.append((len(pool), db.fixture))
                origins.append(
                    {
                        "dialect": ref_item.target_dialect,
                        "suite": suite.key,
                        "seed": db.seed,
                        "generator": db.generator or suite.generator,
                    }
                )
    return tuple(pool), origins


def with_origins(suite: Suite, origins: list[dict[str, Any]]) -> Suite:
    """A suite distilled from :func:`sibling_pool`'s databases, labelled ``SIBLINGS``: each
    database names its sibling suite's generator, and ``databases_from`` says where each came
    from (``reversed``: inserted in reverse order by :func:`order_probes`)."""
    dbs = tuple(replace(d, generator=origins[d.seed]["generator"]) for d in suite.databases)
    came = [
        {**origins[d.seed], "reversed": d.fixture.name.endswith("-rev")} for d in suite.databases
    ]
    return replace(
        suite, databases=dbs, generator=SIBLINGS, extra={**suite.extra, "databases_from": came}
    )


ORDER_ONLY = frozenset({"drop_order"})  # neighbours that differ from the source in order only
_PROBES = 3  # reversed-insertion databases tried per suite


def _reversed(fixture: Fixture) -> Fixture:
    """``fixture`` with every table's rows inserted in the opposite order."""
    data = fixture_to_json(fixture)
    for table in data["tables"]:
        table["rows"] = list(reversed(table["rows"]))
    return fixture_from_json({**data, "name": f"{data['name']}-rev"})


def agreeing_references(judge: Judge, references: tuple[Item, ...]) -> list[tuple[Item, str]]:
    """(item, reference) pairs whose reference matches the source on the item's own fixture
    (one that does not is wrong already; it has no say in which databases are fair)."""
    out = []
    for ref_item in references:
        for sql in ref_item.reference_sql:
            verdict = judge.judge(ref_item, Translation(TranslationStatus.OK, sql=sql))
            if verdict["verdicts"]["strict"]["match"]:
                out.append((ref_item, sql))
    return out


def _reference_candidates(draw: _Draw, *, start: int) -> list[tuple[int, Fixture]]:
    """``REFERENCE_CANDIDATES`` databases generated from each reference translation's own SQL
    (its literals, divisors and dates in the target's idiom: ``STRFTIME('%m-%d', d) >= '02-28'``
    where the source says ``month(d) > 2``), tried after the source's: their twins sit at the
    boundaries a near-miss *translation* moves. Numbered from ``start``; deterministic."""
    out: list[tuple[int, Fixture]] = []
    seen = {(draw.item.source_dialect, draw.item.source_sql)}
    r = start
    for ref_item in draw.references:
        for sql in ref_item.reference_sql:
            target = ref_item.target_dialect
            if (target, sql) in seen:
                continue
            seen.add((target, sql))
            try:
                generated = draw.generate(
                    sql, target, REFERENCE_CANDIDATES, f"{draw.seed}:{target}:{len(seen)}"
                )
            except (SchemaError, ValueError):
                continue  # the generator cannot read this reference: the source's data stands
            for data in generated:
                with contextlib.suppress(FixtureError):
                    out.append((r, fixture_from_json(data)))
                r += 1
    return out


def reference_neighbours(
    judge: Judge, refs: list[tuple[Item, str]], keys: dict[str, Any], types: dict[str, Any]
) -> list[tuple[Item, Neighbour]]:
    """The neighbours of each agreeing reference, on its target engine, that are not
    equivalent to it and that the fixture does not kill (nor do they error there), each with
    the probe item that judges it against the reference. A suite that kills these fails the
    near-miss translations eval meets, not only the near-miss sources."""
    out: list[tuple[Item, Neighbour]] = []
    seen: set[tuple[str, str]] = set()
    for ref_item, sql in refs:
        probe = replace(ref_item, source_dialect=ref_item.target_dialect, source_sql=sql)
        fixture = ref_item.fixture or EMPTY_FIXTURE
        for n in neighbours(sql, ref_item.target_dialect, keys=keys, types=types):
            if n.equivalent or (ref_item.target_dialect, n.sql) in seen:
                continue
            seen.add((ref_item.target_dialect, n.sql))
            if neighbour_outcome(judge, probe, fixture, n.sql) == "same":
                out.append((probe, n))
    return out


def reference_disagreement(judge: Judge, refs: list[tuple[Item, str]], db: Fixture) -> str | None:
    """Why a reference translation of the source disagrees with it on ``db`` (None: all agree,
    or no engine for them here). Such a database exposes an engine difference or a difference
    between equivalent-by-intent queries outside the fixture's data (an empty ROLLUP, a half
    rounded in binary, a dangling foreign key), not a wrong translation: distillation does not
    keep it, and records why."""
    for ref_item, sql in refs:
        verdict = judge.judge(
            replace(ref_item, fixture=db), Translation(TranslationStatus.OK, sql=sql)
        )["verdicts"]["strict"]
        if not verdict["match"] and verdict["reason"] != Reason.NO_ENGINE.value:
            return (
                f"{ref_item.target_dialect} reference: {verdict['reason']}: "
                f"{str(verdict.get('detail', ''))[:160]}"
            )
    return None


def order_probes(
    judge: Judge,
    item: Item,
    counted: list[Neighbour],
    alive: set[int],
    usable: list[tuple[int, Fixture]],
    kills: list[set[int]],
    refs: list[tuple[Item, str]] | None = None,
    edges: list[str] | None = None,
) -> dict[int, str]:
    """Try the usable databases with the largest source results again with their rows inserted
    in reverse, for the order-only neighbours (a dropped ORDER BY) no database killed: a reversed
    database that kills something joins the candidates (``usable``, ``kills``); an order-only
    neighbour that returns the source's order on both insertion orders of a database whose
    source result has two or more distinct rows cannot be killed by data on this engine (it
    returns rows in that order by itself: SQLite's rowid scans and sorted GROUP BY, window
    sorts, InnoDB's clustered index). Returns those, index -> reason."""
    order_only = {i for i in alive if counted[i].operator in ORDER_ONLY}
    if not order_only or not usable:
        return {}
    sized = []
    for j, (_, db) in enumerate(usable):
        probe = source_probe(item, db)
        result = judge.gold(probe).execution.result
        rows = len(set(result.rows)) if result is not None else 0
        sized.append((rows, -j))  # the largest results first, the earliest database on ties
    unkillable: dict[int, str] = {}
    todo = set(alive)
    for rows, negated in sorted(sized, reverse=True)[:_PROBES]:
        if rows < 2:
            break
        seed, db = usable[-negated]
        try:
            flipped = _reversed(db)
        except FixtureError:
            continue
        killed = {
            i for i in todo if neighbour_outcome(judge, item, flipped, counted[i].sql) == "kill"
        }
        why = reference_disagreement(judge, refs, flipped) if killed and refs else None
        if why is not None:
            if edges is not None:
                edges.append(f"r{seed} reversed: {why}")
            continue
        if killed:
            usable.append((seed, flipped))
            kills.append(killed)
            todo -= killed
        for i in order_only & todo:
            unkillable.setdefault(
                i,
                f"{item.source_dialect} returned the ORDER BY's order on "
                f"a {rows}-row result inserted in either order",
            )
    return {i: why for i, why in unkillable.items() if i in todo}
