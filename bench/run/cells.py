"""Execute a plan's cells: from the prediction cache where possible, else fit and predict,
in this process, on joblib workers or on a dask cluster.

* A *task* is one (system, corpus) pair with all its splits, so features and POS tags
  computed for one fold are reused by the next in the same process; when there are fewer
  tasks than twice the worker count, tasks are cut into single cells so all workers stay
  busy.
* Each cell first looks in the prediction cache (:mod:`systems.prediction_cache`) under a
  key of the system, its parameters and code, and the documents it trains on and labels; a
  hit skips fitting, a miss stores the prediction as soon as the cell finishes, so a
  repeated run takes seconds and an interrupted run resumes.
* A system that raises is recorded as failed for that cell, and the others finish.
  Tasks whose every cell is cached are read in this process (shipping a corpus to a worker
  only to read a pickle back costs more than the read); the rest are ordered costliest
  first (:mod:`bench.run.schedule`).
"""

from __future__ import annotations

import contextlib
import sys
import time
import traceback
from collections.abc import Collection, Mapping, Sequence
from typing import Any

from bench.run import schedule, scrub
from bench.run.execution import environment, execute, progress, release_unread
from bench.run.plan import Plan, Task
from bench.run.progress import RunProgress, mark_finished
from bench.run.run_types import Cell, CellOutcome, RunConfig, SystemSpec
from corpora.model import Corpus, Document, printable
from infra import cache, memory, stages
from systems import prediction_cache
from systems.base import ITEM_SEQUENCES_MEMO, System, SystemUnavailable


def run_task(task: Task) -> list[CellOutcome]:
    """Run the cells of one task; never raises for a system's failure.

    Module-level and argument-only so joblib and dask can ship it to another process.
    """
    with environment(task.env):
        return _run_cells(task)


def run_tasks(tasks: Sequence[Task]) -> list[list[CellOutcome]]:
    """:func:`run_task` for several tasks in one worker (a job of :func:`bench.run.schedule.plan`),
    so the corpus they share is shipped and featurized once."""
    memory.collect_less()
    out = []
    for i, task in enumerate(tasks):
        out.append(run_task(task))
        if not any(t.spec.tags.item_sequences and not _all_cached(t) for t in tasks[i + 1 :]):
            release_unread(ITEM_SEQUENCES_MEMO)  # ~400 MB a corpus that the others never read
    return out


def _run_cells(task: Task) -> list[CellOutcome]:
    outcomes: list[CellOutcome] = []
    warmed = not task.spec.tags.uses_nlp
    warm_seconds = 0.0  # featurizing before the first computed cell, counted in it
    for i, cell in enumerate(task.cells):
        split = cell.split
        tests = task.tests_of(i)
        hits = [prediction_cache.load(c.key, docs) for c, docs in tests]
        if all(h is not None for h in hits):
            for c, _ in tests:
                mark_finished(c.key)
            outcomes.extend(
                CellOutcome(
                    predictions=h.labels,
                    scores=h.scores,
                    info=h.info,
                    seconds=0.0,
                    cached=True,
                    **_identity(c),
                )
                for (c, _), h in zip(tests, hits, strict=True)
                if h is not None
            )
            continue
        if not warmed:  # POS tags from the disk cache, once per task, only when needed
            start = time.perf_counter()
            _warm_quietly(task.documents())
            warm_seconds = time.perf_counter() - start
            warmed = True
        start = time.perf_counter()
        try:
            system = task.spec.build()
            train = [task.train_docs[j] for j in split.train]
            got = prediction_cache.fit_predict_many(
                system, train, [(c.key, docs) for c, docs in tests], context=task.context
            )
        except (Exception, SystemExit) as exc:  # a failing system is reported, the others go on
            unavailable = isinstance(exc, SystemUnavailable)
            message = scrub.describe(exc)
            outcomes.extend(
                CellOutcome(
                    predictions=None,
                    seconds=0.0 if unavailable else time.perf_counter() - start,
                    error=f"skipped: {message}" if unavailable else message,
                    error_detail="".join(traceback.format_exception(exc)),
                    skipped=unavailable,
                    **_identity(c),
                )
                for c, _ in tests
            )
            for c, _ in tests:
                mark_finished(c.key)
            continue
        for (c, _), p in zip(tests, got, strict=True):
            mark_finished(c.key)
            spent = dict(p.stages)
            seconds = p.seconds
            if warm_seconds and not p.cached:
                spent[stages.FEATURIZE] = round(spent.get(stages.FEATURIZE, 0) + warm_seconds, 3)
                seconds += warm_seconds
                warm_seconds = 0.0
            outcomes.append(
                CellOutcome(
                    predictions=p.labels,
                    scores=p.scores,
                    info=p.info,
                    seconds=seconds,
                    cached=p.cached,
                    stages=spent,
                    memory=memory.cell_memory() if not p.cached else {},
                    **_identity(c),
                )
            )
    return outcomes


def _identity(cell: Cell) -> dict[str, Any]:
    """The fields of a :class:`CellOutcome` that say which cell it is."""
    split = cell.split
    return dict(
        key=cell.key,
        system=cell.system,
        corpus=split.test_corpus,
        train_corpus=split.train_corpus,
        protocol=split.protocol,
        fold=split.fold,
        fraction=split.fraction,
        n_tokens=cell.n_tokens,
    )


def _warm_quietly(documents: Sequence[Document]) -> None:
    """Load POS tags from the disk cache (or tag) in a worker (errors surface later)."""
    from corpora import nlp

    with contextlib.suppress(Exception):  # the system itself will report the problem
        nlp.warm_cache(documents)


def warm_nlp_cache(corpora: Sequence[Corpus], show_progress: bool) -> str | None:
    """POS-tag and lemmatize each corpus once, into the on-disk cache (corpora.nlp).

    Returns the error message when the NLTK resources are missing (the systems that need
    them then fail with that error, and the CLI turns it into one line and exit code 2).
    """
    from corpora import nlp

    for corpus in progress(list(corpora), desc="POS tagging", enabled=show_progress):
        try:
            nlp.warm_cache(corpus.documents)
        except nlp.MissingResourceError as exc:
            return str(exc)
    return None


def _first_document(corpus: Corpus) -> Corpus:
    """A one-document corpus: enough to find out whether the NLP resources are there."""
    return Corpus(name=corpus.name, documents=corpus.documents[:1], metadata={})


def _share_spread_corpora(
    tasks: Sequence[Task], jobs: Sequence[Sequence[int]], workers: int
) -> None:
    """Tell the tasks of a corpus whose cells several workers compute at once to share
    their work (:func:`infra.cache.shared_work`): without it each worker extracts every
    note the other is extracting too, and fits the block models the other is fitting.  A
    corpus in one job is left alone, since writing and reading back its notes would only
    add work."""
    if workers < 2:
        return
    jobs_of: dict[str, set[int]] = {}
    for j, job in enumerate(jobs):
        for i in job:
            jobs_of.setdefault(tasks[i].corpus, set()).add(j)
    for job in jobs:
        for i in job:
            if len(jobs_of[tasks[i].corpus]) > 1:
                tasks[i].env = {**tasks[i].env, cache.ENV_SHARED_WORK: "1"}


def execute_plan(plan: Plan, config: RunConfig) -> list[CellOutcome]:
    """Every cell of ``plan``, in plan order."""
    tasks = list(plan.tasks)
    workers = schedule.workers_for(config.jobs)
    pending = [t for t in tasks if t.spec.tags.uses_nlp and not _all_cached(t)]
    if config.backend == "dask" or (workers > 1 and len(tasks) < 2 * workers):
        tasks = [single for t in tasks for single in t.single_cells()]

    nested: list[list[CellOutcome]] = [[] for _ in tasks]
    local = [i for i, t in enumerate(tasks) if _all_cached(t)]
    for i in local:
        nested[i] = run_task(tasks[i])
    remote = [i for i in range(len(tasks)) if i not in set(local)]
    timings = schedule.load_timings()
    shared = _shared_keys([tasks[i] for i in remote])
    costs = [_task_cost(tasks[i], timings, shared) for i in remote]
    if workers > 1:
        corpora_of = [tasks[i].corpus for i in remote]
        jobs = [[remote[j] for j in job] for job in schedule.plan(costs, corpora_of, workers)]
    else:
        jobs = [[i] for i in remote]
    _share_spread_corpora(tasks, jobs, workers)
    if pending:  # tag only when some system that needs tags still has a cell to compute
        if all(len({tasks[i].corpus for i in job}) == 1 for job in jobs):
            # one job per corpus: each worker tags its own corpus, in parallel; here only
            # check that the tagger is installed, so a missing one is one clear error
            warm_nlp_cache([_first_document(c) for c in plan.corpora.values()], False)
        else:
            warm_nlp_cache(list(plan.corpora.values()), config.show_progress)
    cell_costs = {
        c.key: cost
        for i in remote
        for c, cost in _cell_costs(tasks[i], timings, shared)
        if not prediction_cache.is_cached(c.key)
    }
    cached = sum(len(t.all_cells()) for t in tasks) - len(cell_costs)
    report = RunProgress(
        cell_costs, cached, min(workers, max(1, len(jobs))), enabled=config.show_progress
    )
    with report:
        for i in remote:  # workers append the cells they finish to the report's file
            tasks[i].env = {**tasks[i].env, **report.environment}

        def finished(index: int, groups: list[list[CellOutcome]]) -> None:
            report.add_done(o.key for group in groups for o in group)
            if config.show_progress and not sys.stderr.isatty():
                _log_job(index, groups)

        ran = (
            execute(
                run_tasks,
                [([tasks[i] for i in job],) for job in jobs],
                backend=config.backend,
                jobs=config.jobs,
                scheduler=config.scheduler,
                show_progress=config.show_progress and not report.announce,
                desc="jobs",
                on_result=finished,
                on_lost=_lost_job,
            )
            if jobs
            else []
        )
    for job, groups in zip(jobs, ran, strict=True):
        for i, group in zip(job, groups, strict=True):
            nested[i] = group
    outcomes = [o for group in nested for o in group]
    twins = {c.key for t in tasks for c in t.twin_cells()}
    schedule.remember_timings(  # a cell's rate, not its twins' (they cost a labelling)
        (_timing_key(plan.systems[o.system]), o.seconds, o.n_tokens)
        for o in outcomes
        if o.ok and not o.cached and o.key not in twins
    )
    return outcomes


def _lost_job(args: tuple[Sequence[Task]], reason: str) -> list[list[CellOutcome]]:
    """Every cell of a job whose worker process died is failed (the others still count)."""
    (tasks,) = args
    return [
        [
            CellOutcome(
                predictions=None, seconds=0.0, error=f"WorkerDied: {reason}", **_identity(cell)
            )
            for cell in task.all_cells()
        ]
        for task in tasks
    ]


def _all_cached(task: Task) -> bool:
    return all(prediction_cache.is_cached(c.key) for c in task.all_cells())


def _timing_key(spec: SystemSpec) -> str:
    """Remembered costs are per system configuration, wrappers included."""
    params = dict(spec.params)
    if spec.wrappers:
        params["wrappers"] = repr(spec.wrappers)
    return schedule.timing_key(spec.name, params)


def _cell_costs(
    task: Task, timings: Mapping[str, float], shared: Collection[str] = ()
) -> list[tuple[Cell, float]]:
    """Estimated seconds of each cell of a task: its test tokens x seconds per token; a
    twin of a trained system's cell (its model labelling a test variant), and a cell whose
    prediction a stacked system of the run stores (``shared``, :func:`_shared_keys`), cost
    a labelling only (:data:`schedule.TWIN_SHARE` of a cell)."""
    spec = task.spec
    per_token = schedule.seconds_per_token(spec.cls, _timing_key(spec), timings)
    factor = per_token * (1 + 2 * len(spec.wrappers))
    twin = factor * (schedule.TWIN_SHARE if spec.cls.requires_training else 1.0)
    cheap = {c.key for c in task.twin_cells()}
    if shared:
        cheap |= set(shared) & {c.key for c in task.cells}
    return [(c, c.n_tokens * (twin if c.key in cheap else factor)) for c in task.all_cells()]


def _task_cost(
    task: Task, timings: Mapping[str, float], shared: Collection[str] = ()
) -> float:
    """Estimated seconds of a task: its uncached cells' costs (:func:`_cell_costs`)."""
    return sum(
        cost
        for c, cost in _cell_costs(task, timings, shared)
        if not prediction_cache.is_cached(c.key)
    )


def _shared_keys(tasks: Sequence[Task]) -> set[str]:
    """The prediction-cache keys the stacked systems among ``tasks`` store for other
    cells (:meth:`systems.base.System.shared_predictions`): the default run's ``crf`` and
    ``mist`` cells read the fits of ``multi``'s bases, and were estimated at the cost of
    fitting them (24 minutes announced for a run of 18)."""
    out: set[str] = set()
    for task in tasks:
        if task.spec.cls.shared_predictions is System.shared_predictions:
            continue
        system = task.spec.build()
        for cell in task.cells:
            train = [task.train_docs[j] for j in cell.split.train]
            test = [task.test_docs[j] for j in cell.split.test]
            out.update(system.shared_predictions(train, test, task.context))
    return out


def _log_job(index: int, groups: list[list[CellOutcome]]) -> None:
    for outcomes in groups:
        _log_task(outcomes)


def _log_task(outcomes: list[CellOutcome]) -> None:
    """One line per finished task when stderr is not a terminal (logs, CI): no PHI."""
    if not outcomes:
        return
    first = outcomes[0]
    seconds = sum(o.seconds for o in outcomes)
    cached = sum(o.cached for o in outcomes)
    failed = sum(not o.ok for o in outcomes)
    folds = ",".join(str(o.fold) for o in outcomes)
    print(
        printable(
            f"done {first.system} on {first.corpus} ({first.protocol} fold {folds}): "
            f"{seconds:.1f} s, {cached} cached, {failed} failed"
        ),
        file=sys.stderr,
        flush=True,
    )
