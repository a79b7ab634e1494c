"""Backends: sequential, joblib and dask give the same results, in task order."""

from __future__ import annotations

import dataclasses

import pytest

from bench.run.execution import BackendError, documents_in, execute, resolve_backend
from bench.run.runner import RunConfig, run
from corpora.model import Document
from infra.memo import Memo
from tests.bench.toy import make_corpus


def square_plus(x: int, y: int) -> int:
    return x * x + y


def leak_threshold_and_pid(_: int) -> tuple[int, int]:
    import os

    from joblib.externals.loky import process_executor

    return process_executor._MAX_MEMORY_LEAK_SIZE, os.getpid()


TASKS = [(i, 10 * i) for i in range(7)]
EXPECTED = [square_plus(*t) for t in TASKS]


def test_resolve_backend() -> None:
    assert resolve_backend(None, 1) == "sequential"
    assert resolve_backend(None, 4) == "joblib"
    assert resolve_backend("dask", 1) == "dask"
    with pytest.raises(BackendError):
        resolve_backend("spark", 1)


def test_sequential_and_joblib_agree_and_report_each_result() -> None:
    seen: list[int] = []
    assert execute(square_plus, TASKS, show_progress=False, on_result=lambda i, r: seen.append(i))
    assert sorted(seen) == list(range(7))
    assert execute(square_plus, TASKS, show_progress=False) == EXPECTED
    assert execute(square_plus, TASKS, jobs=2, show_progress=False) == EXPECTED


def test_joblib_workers_may_keep_their_caches() -> None:
    """Loky's 300 MB leak guard would replace a worker whose feature caches grew; the
    tasks raise it so caches survive from one task to the next."""
    import os

    from bench.run.execution import WORKER_MEMORY_GROWTH

    got = execute(leak_threshold_and_pid, [(i,) for i in range(4)], jobs=2, show_progress=False)
    assert {threshold for threshold, _ in got} == {WORKER_MEMORY_GROWTH}
    assert all(pid != os.getpid() for _, pid in got)  # measured in the workers


def test_dask_needs_a_scheduler() -> None:
    with pytest.raises(BackendError, match="--scheduler"):
        execute(square_plus, TASKS, backend="dask", show_progress=False)


def test_unreachable_scheduler_is_a_backend_error(monkeypatch) -> None:
    pytest.importorskip("distributed")
    monkeypatch.setenv("DEID_BENCH_DASK_TIMEOUT", "1s")
    with pytest.raises(BackendError, match="cannot reach"):
        execute(
            square_plus,
            TASKS,
            backend="dask",
            scheduler="tcp://127.0.0.1:9",
            show_progress=False,
        )


@pytest.fixture(scope="module")
def local_cluster():
    distributed = pytest.importorskip("distributed")
    cluster = distributed.LocalCluster(
        n_workers=1, threads_per_worker=2, processes=False, dashboard_address=None
    )
    try:
        yield cluster.scheduler_address
    finally:
        cluster.close()


def test_dask_backend_matches_sequential(local_cluster: str) -> None:
    got = execute(square_plus, TASKS, backend="dask", scheduler=local_cluster, show_progress=False)
    assert got == EXPECTED


def _scores(result) -> list[tuple]:
    df = result.results.sort_values(["system", "level", "match", "subset", "label"])
    return [tuple(r) for r in df.drop(columns=["f1_ci_low", "f1_ci_high"]).itertuples(index=False)]


def test_runner_results_identical_on_every_backend(toy_systems, local_cluster, monkeypatch) -> None:
    corpus = make_corpus(9)
    monkeypatch.setenv("DEID_BENCH_NO_CACHE", "1")  # every backend really computes
    base = dict(
        systems=["toy-capitals,toy-memory"],
        corpora=["toy"],
        folds=3,
        show_progress=False,
        n_resamples=50,
        n_shuffles=50,
    )
    sequential = run(RunConfig(**base), {"toy": corpus})
    joblib = run(RunConfig(**base, jobs=2), {"toy": corpus})
    dask = run(RunConfig(**base, backend="dask", scheduler=local_cluster), {"toy": corpus})
    assert not sequential.failures and not joblib.failures and not dask.failures
    assert _scores(sequential) == _scores(joblib) == _scores(dask)
    assert sequential.results.equals(dask.results)
    assert sequential.significance.equals(joblib.significance)


# -- what a task's process keeps in memory -----------------------------------------------

_HELD = Memo("test", budget=10**6, weigh=lambda k, v: 1, document=lambda k: k)


def remember(doc: Document, tag: str) -> tuple[str, list[str]]:
    """What the process held when the task started; then keep the task's document."""
    held = sorted(_HELD._entries)
    _HELD.put(doc.fingerprint, tag)
    return doc.id, held


def test_a_task_keeps_only_documents_a_later_task_needs() -> None:
    a, b, c = (Document(name, f"note {name}") for name in "abc")
    _HELD.clear()
    got = execute(remember, [(a, "1"), (b, "2"), (a, "3"), (c, "4")], show_progress=False)
    assert [doc for doc, _ in got] == ["a", "b", "a", "c"]
    # a stays for the third task, b goes once its task is done, nothing is left at the end
    assert got[1][1] == [a.fingerprint]
    assert got[2][1] == [a.fingerprint]
    assert got[3][1] == []
    assert not len(_HELD)


def test_documents_in_finds_documents_inside_tasks() -> None:
    @dataclasses.dataclass
    class Task:
        docs: tuple[Document, ...]
        labels: list[list[str]]
        extra: dict[str, object]

    a, b, c = (Document(name, f"note {name}") for name in "abc")
    task = Task((a, b), [["O", "PHI"]], {"more": [c], "n": 3})
    assert documents_in(([task], {"x": 1})) == {a.fingerprint, b.fingerprint, c.fingerprint}
    assert documents_in(("text", 3, [1, 2])) == set()


def test_a_job_drops_item_sequences_once_no_task_left_in_it_reads_them(monkeypatch) -> None:
    """The CRF-family systems' item sequences (the largest per-document memo) go as soon as
    the rest of a worker's job does not read them; documents a later job needs stay."""
    from types import SimpleNamespace

    from bench.run import cells
    from bench.run.execution import Scope, release_unread
    from systems.base import ITEM_SEQUENCES_MEMO, Tags

    items = Memo(ITEM_SEQUENCES_MEMO, budget=1 << 20, document=lambda key: key)
    seen: list[tuple[str, list[str]]] = []

    def fake_run_task(task):
        if task.name == "crf":
            items.put("this-corpus", b"x")
            items.put("next-job", b"y")
        seen.append((task.name, sorted(items._entries)))
        return []

    monkeypatch.setattr(cells, "run_task", fake_run_task)

    cached_keys = {"mist-cell"}  # stored by an earlier fit (a stack's base): no reading
    monkeypatch.setattr(cells.prediction_cache, "is_cached", lambda key: key in cached_keys)

    def task(name: str, reads: bool):
        cell = SimpleNamespace(key=f"{name}-cell")
        return SimpleNamespace(
            name=name,
            spec=SimpleNamespace(tags=Tags(item_sequences=reads)),
            all_cells=lambda: [cell],
        )

    assert release_unread(ITEM_SEQUENCES_MEMO) == 0  # outside a task: nothing
    scope = Scope(frozenset({"this-corpus", "next-job"}), frozenset({"next-job"}))
    with scope:
        cells.run_tasks(
            [task("crf", True), task("multi", True), task("mist", True), task("mega", False)]
        )
    assert seen == [
        ("crf", ["next-job", "this-corpus"]),
        ("multi", ["next-job", "this-corpus"]),  # a later task of the job still reads them
        ("mist", ["next-job"]),  # every cell of it cached: it reads none
        ("mega", ["next-job"]),
    ]


def test_crf_family_systems_and_stacks_of_them_declare_item_sequences() -> None:
    from systems.base import get_system

    assert get_system("crf").tags().item_sequences and get_system("mist").tags().item_sequences
    assert get_system("multi").tags().item_sequences  # its Stanford, MIST and Illinois bases
    assert not get_system("mega").tags().item_sequences
    assert not get_system("multi", bases="mimic,svm").tags().item_sequences


def test_the_estimate_counts_a_cell_a_stack_fits_for_as_a_read(toy_systems) -> None:
    """``multi``'s bases trained on a fold's training notes are ``crf``'s (and ``mist``'s)
    cells of that fold: the time estimate counts those cells as a labelling, not a fit."""
    from bench.run import cells
    from bench.run.plan import make_plan

    config = RunConfig(
        systems=["multi,crf,svm"], corpora=["toy"], folds=3, show_progress=False
    )
    plan = make_plan(config, {"toy": make_corpus(9)})
    tasks = {t.spec.name: t for t in plan.tasks}
    shared = cells._shared_keys(list(plan.tasks))
    assert {c.key for c in tasks["crf"].cells} <= shared
    assert not {c.key for c in tasks["svm"].cells} & shared  # the stack's svm is multiclass
    full = cells._task_cost(tasks["crf"], {})
    assert cells._task_cost(tasks["crf"], {}, shared) < 0.5 * full
