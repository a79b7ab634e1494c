"""Where cells run: in this process, in joblib workers, or on a dask.distributed cluster.

The runner hands :func:`execute` a picklable function and a list of argument tuples; every
backend returns the results in the order of the tasks, so the scores, tables and
significance tests are identical whatever the backend.  A task must not
raise for a failing system -- the runner's cell function catches the error and returns it --
so one broken system never stops the others.

Backends:

``sequential``
    one task after another in this process (``--jobs 1``): features and POS tags computed
    for one fold stay in memory for the next.
``joblib``
    ``--jobs N`` loky worker processes on this machine.
``dask``
    ``--backend dask --scheduler ADDRESS``: an existing ``dask.distributed`` scheduler.
    Workers must have deid-bench installed; the corpus travels with the tasks, so they need
    no access to the data files.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, TypeVar

R = TypeVar("R")

BACKENDS = ("sequential", "joblib", "dask")


class BackendError(RuntimeError):
    """The chosen backend cannot run (dask missing, scheduler unreachable, ...)."""


def progress(
    iterable: Any, *, total: int | None = None, desc: str = "", enabled: bool = True
) -> Iterator[Any]:
    """A tqdm progress bar on stderr, shown only on a terminal (and not with ``--quiet``)."""
    from tqdm.auto import tqdm

    disable = not enabled or not sys.stderr.isatty()
    return iter(
        tqdm(iterable, total=total, desc=desc, disable=disable, file=sys.stderr, leave=False)
    )


@contextlib.contextmanager
def environment(env: Mapping[str, str]) -> Iterator[None]:
    """``env`` set in ``os.environ`` for the block, the previous values restored after.

    Tasks carry the settings a worker must share with the main process (cache directory,
    dictionaries, NLTK data): a reused worker process does not see later changes to ours.
    """
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def resolve_backend(backend: str | None, jobs: int) -> str:
    """``None`` means sequential for one job and joblib for several."""
    if backend is None:
        return "sequential" if jobs == 1 else "joblib"
    if backend not in BACKENDS:
        raise BackendError(f"unknown backend {backend!r}; known: {', '.join(BACKENDS)}")
    return backend


def execute(
    func: Callable[..., R],
    tasks: Sequence[tuple[Any, ...]],
    *,
    backend: str | None = None,
    jobs: int = 1,
    scheduler: str | None = None,
    show_progress: bool = True,
    desc: str = "cells",
    on_result: Callable[[int, R], None] | None = None,
) -> list[R]:
    """``[func(*t) for t in tasks]`` on the chosen backend, in task order.

    ``on_result(index, result)`` is called as each task finishes (in completion order), so
    the caller can log progress or write partial output while the rest still run.
    """
    backend = resolve_backend(backend, jobs)
    if jobs < 1 and jobs != -1:
        raise BackendError("--jobs must be a positive number (or -1 for all cores)")
    if backend == "sequential":
        return _sequential(func, tasks, show_progress, desc, on_result)
    if backend == "joblib":
        return _joblib(func, tasks, jobs, show_progress, desc, on_result)
    return _dask(func, tasks, scheduler, show_progress, desc, on_result)


def _sequential(
    func: Callable[..., R],
    tasks: Sequence[tuple[Any, ...]],
    show_progress: bool,
    desc: str,
    on_result: Callable[[int, R], None] | None,
) -> list[R]:
    results: list[R] = []
    for i, args in enumerate(progress(tasks, total=len(tasks), desc=desc, enabled=show_progress)):
        r = func(*args)
        if on_result is not None:
            on_result(i, r)
        results.append(r)
    return results


def _joblib(
    func: Callable[..., R],
    tasks: Sequence[tuple[Any, ...]],
    jobs: int,
    show_progress: bool,
    desc: str,
    on_result: Callable[[int, R], None] | None,
) -> list[R]:
    from joblib import Parallel, delayed

    parallel = Parallel(n_jobs=jobs, backend="loky", return_as="generator")
    # ``return_as="generator"`` yields in task order as results arrive, so the bar moves.
    gen = parallel(delayed(_indexed)(func, i, args) for i, args in enumerate(tasks))
    results: list[Any] = [None] * len(tasks)
    for i, r in progress(gen, total=len(tasks), desc=desc, enabled=show_progress):
        if on_result is not None:
            on_result(i, r)
        results[i] = r
    return results


#: How far a loky worker's memory may grow before loky replaces it.  Loky's own guard is
#: 300 MB, meant to catch leaks; our workers grow on purpose -- per-corpus feature and POS
#: caches that the next task on the same corpus reuses -- and a replaced worker recomputes
#: them all (in the default run the guard fired several times, each costing tens of seconds).
WORKER_MEMORY_GROWTH = 4 * 1024**3


def _indexed(func: Callable[..., R], index: int, args: tuple[Any, ...]) -> tuple[int, R]:
    _keep_worker_caches()
    return index, func(*args)


def _keep_worker_caches() -> None:
    """Raise loky's memory-leak threshold in this worker (see :data:`WORKER_MEMORY_GROWTH`).

    Loky reads the module-level threshold at every check, in the worker itself, so setting
    it from inside a task is enough; an unknown loky layout is simply left alone.
    """
    try:
        from joblib.externals.loky import process_executor
    except ImportError:  # pragma: no cover - joblib always vendors loky
        return
    current = getattr(process_executor, "_MAX_MEMORY_LEAK_SIZE", None)
    if isinstance(current, int) and current < WORKER_MEMORY_GROWTH:
        process_executor._MAX_MEMORY_LEAK_SIZE = WORKER_MEMORY_GROWTH


def _dask(
    func: Callable[..., R],
    tasks: Sequence[tuple[Any, ...]],
    scheduler: str | None,
    show_progress: bool,
    desc: str,
    on_result: Callable[[int, R], None] | None,
) -> list[R]:
    timeout = os.environ.get("DEID_BENCH_DASK_TIMEOUT", "10s")
    if not scheduler:
        raise BackendError("--backend dask needs --scheduler ADDRESS (e.g. tcp://host:8786)")
    try:
        from distributed import Client, as_completed
    except ImportError as exc:  # optional dependency
        raise BackendError(
            "the dask backend needs dask.distributed: pip install 'deid-bench[dask]'"
        ) from exc
    try:
        client = Client(scheduler, timeout=timeout, set_as_default=False)
    except (OSError, TimeoutError) as exc:
        raise BackendError(f"cannot reach the dask scheduler at {scheduler}: {exc}") from exc
    try:
        # pure=False: identical arguments (e.g. two folds of a rule system) still run as
        # separate tasks, so per-task timing in run.json stays meaningful.
        futures = [
            client.submit(_indexed, func, i, args, pure=False) for i, args in enumerate(tasks)
        ]
        results: list[Any] = [None] * len(tasks)
        with client.as_current():
            for fut in progress(
                as_completed(futures), total=len(futures), desc=desc, enabled=show_progress
            ):
                i, r = fut.result()
                if on_result is not None:
                    on_result(i, r)
                results[i] = r
        return results
    finally:
        client.close()
