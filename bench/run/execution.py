"""Where cells run: in this process, in joblib workers, or on a dask.distributed cluster.

The runner hands :func:`execute` a picklable function and a list of argument tuples; every
backend returns the results in the order of the tasks, so the scores, tables and
significance tests are identical whatever the backend.  A task must not
raise for a failing system -- the runner's cell function catches the error and returns it --
so one broken system never stops the others.

A task can still be *lost*: its worker process dies (a segmentation fault in a native
library, the kernel's out-of-memory killer) or its result cannot be shipped back.  Loky
then fails every unfinished task of the pool at once, innocent ones included, so the tasks
that had not finished are run again, once, each alone in a fresh worker process: a task
that kills its worker again is the culprit and is handed to ``on_lost`` (the runner reports
its cells as failed); the others finish.  The retry is one task at a time because a worker
killed for memory most likely needs the memory the other workers held.  The dask backend
does the same for tasks dask gives up on (``KilledWorker``), and stops waiting with a clear
error when the scheduler has no workers.

Memory.  Each process keeps what it computed for a document (POS tags, encoded features,
CRF item sequences: :mod:`infra.memo`) for the next task that needs the same document,
and no longer: every task carries the fingerprints of the documents it uses and of those
that any later task (in submission order) uses, and around the task its process releases
the memo entries of every other document (:func:`infra.memo.release`).  A worker that
has finished a corpus so drops it before it starts the next, and the last task leaves the
process empty.  Tasks are handed out in submission order, so nothing a later task of the
same process needs is dropped; where a backend reorders them (dask) a dropped entry is only
computed again.

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
import dataclasses
import os
import re
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any, TypeVar

from corpora.model import Document
from infra import memo, memory

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
    on_lost: Callable[[tuple[Any, ...], str], R] | None = None,
    documents: Callable[[tuple[Any, ...]], Iterable[str]] | None = None,
) -> list[R]:
    """``[func(*t) for t in tasks]`` on the chosen backend, in task order.

    ``on_result(index, result)`` is called as each task finishes (in completion order), so
    the caller can log progress or write partial output while the rest still run.
    ``on_lost(args, reason)`` gives the result of a task whose worker died twice (see the
    module docstring); without it such a task raises :class:`BackendError`.
    ``documents(args)`` gives the fingerprints of the documents a task uses, which its
    process keeps in memory only as long as some task needs them (default
    :func:`documents_in`, every :class:`~corpora.model.Document` the arguments hold).
    """
    backend = resolve_backend(backend, jobs)
    if jobs < 1 and jobs != -1:
        raise BackendError("--jobs must be a positive number (or -1 for all cores)")
    work = [(args, scope) for args, scope in zip(tasks, scopes(tasks, documents), strict=True)]
    try:
        if backend == "sequential":
            return _sequential(func, work, show_progress, desc, on_result)
        if backend == "joblib":
            return _joblib(func, work, jobs, show_progress, desc, on_result, on_lost)
        return _dask(func, work, scheduler, show_progress, desc, on_result, on_lost)
    finally:
        memo.release(idle=not _running())  # what this process kept for the tasks


# -- what each task keeps in memory ------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Scope:
    """The documents a task uses (``needs``) and those tasks after it use (``later``)."""

    needs: frozenset[str]
    later: frozenset[str]

    def __enter__(self) -> Scope:
        with _RUNNING_LOCK:
            others = _others()
            _RUNNING.append(self)
        _CURRENT.scope = self
        if memo.release(self.needs | self.later | others, idle=False):
            memory.trim_heap()
        return self

    def __exit__(self, *exc: object) -> None:
        _CURRENT.scope = None
        with _RUNNING_LOCK:
            _RUNNING.remove(self)
            others = _others()
            idle = not _RUNNING
        if memo.release(self.later | others, idle=idle):
            memory.trim_heap()


#: The scope of the task this thread runs (dask runs several tasks in threads).
_CURRENT = threading.local()


def release_unread(name: str) -> int:
    """Drop, from the memo ``name``, the entries of the running task's documents that no
    later task and no other running task needs: called when what is left of the task
    does not read that memo (a worker's job on one corpus, once its CRF-family systems are
    done, drops their item sequences while the other systems' fits go on).  Returns how
    many entries went; outside a task, none."""
    current = getattr(_CURRENT, "scope", None)
    if current is None:
        return 0
    with _RUNNING_LOCK:
        keep = current.later.union(*(s.needs | s.later for s in _RUNNING if s is not current))
    gone = sum(m.retain(keep) for m in memo.memos() if m.name == name)
    if gone:
        memory.trim_heap()
    return gone


#: The scopes of the tasks running in this process (dask runs several in threads).
_RUNNING: list[Scope] = []
_RUNNING_LOCK = threading.Lock()


def _others() -> frozenset[str]:
    return frozenset().union(*(s.needs for s in _RUNNING))


def _running() -> bool:
    with _RUNNING_LOCK:
        return bool(_RUNNING)


def scopes(
    tasks: Sequence[tuple[Any, ...]],
    documents: Callable[[tuple[Any, ...]], Iterable[str]] | None = None,
) -> list[Scope]:
    """Each task's :class:`Scope`: its documents and those of every task after it."""
    of = documents or documents_in
    needs = [frozenset(of(args)) for args in tasks]
    out: list[Scope] = []
    later: frozenset[str] = frozenset()
    for used in reversed(needs):
        out.append(Scope(used, later))
        later = later | used
    return out[::-1]


_SCALARS = (str, bytes, int, float, complex, bool, type(None), type, range)


def documents_in(obj: Any) -> set[str]:
    """Fingerprints of the :class:`~corpora.model.Document` objects ``obj`` holds: itself,
    inside lists, tuples, sets, mappings and dataclasses (a corpus, a task), a few levels
    deep.  Containers of scalars or arrays (labels, scores, indices) are not searched."""
    found: set[str] = set()
    seen: set[int] = set()

    def walk(o: Any, depth: int) -> None:
        if isinstance(o, Document):
            found.add(o.fingerprint)
            return
        if depth > 6 or isinstance(o, _SCALARS) or id(o) in seen:
            return
        seen.add(id(o))
        if isinstance(o, Mapping):
            o = list(o.values())
        if isinstance(o, list | tuple | set | frozenset):
            items = list(o)
            if items and not isinstance(items[0], (*_SCALARS, _ndarray())):
                for x in items:
                    walk(x, depth + 1)
        elif dataclasses.is_dataclass(o):
            for f in dataclasses.fields(o):
                walk(getattr(o, f.name, None), depth + 1)

    walk(obj, 0)
    return found


def _ndarray() -> type:
    import numpy as np

    return np.ndarray


def _lost(
    on_lost: Callable[[tuple[Any, ...], str], R] | None, args: tuple[Any, ...], reason: str
) -> R:
    if on_lost is None:
        raise BackendError(reason)
    return on_lost(args, reason)


def lost_reason(exc: BaseException) -> str:
    """One line on why a task was lost, without the exception's message (which could
    quote a task's data): the exit codes of dead workers, else the exception type."""
    codes = re.search(r"exit codes of the workers are \{([^}]*)\}", str(exc))
    if codes:
        return (
            f"its worker process died ({codes.group(1)}): a crash in native code or the "
            "machine running out of memory"
        )
    if type(exc).__name__ == "KilledWorker":
        return "the dask workers running it died (a crash or the machine running out of memory)"
    return f"it could not be run in a worker process ({type(exc).__name__})"


Work = Sequence[tuple[tuple[Any, ...], Scope]]


def _sequential(
    func: Callable[..., R],
    tasks: Work,
    show_progress: bool,
    desc: str,
    on_result: Callable[[int, R], None] | None,
) -> list[R]:
    results: list[R] = []
    for i, (args, scope) in enumerate(
        progress(tasks, total=len(tasks), desc=desc, enabled=show_progress)
    ):
        with scope:
            r = func(*args)
        if on_result is not None:
            on_result(i, r)
        results.append(r)
    return results


def _joblib(
    func: Callable[..., R],
    tasks: Work,
    jobs: int,
    show_progress: bool,
    desc: str,
    on_result: Callable[[int, R], None] | None,
    on_lost: Callable[[tuple[Any, ...], str], R] | None = None,
) -> list[R]:
    from joblib import Parallel, delayed

    if 0 < len(tasks) < jobs:  # loky starts every worker it is given, idle or not
        jobs = len(tasks)
    parallel = Parallel(n_jobs=jobs, backend="loky", return_as="generator_unordered")
    # Unordered: each result is kept the moment it arrives (the index says where it goes),
    # so a worker that dies later cannot take finished results with it.
    gen = parallel(
        delayed(_indexed)(func, i, args, scope) for i, (args, scope) in enumerate(tasks)
    )
    results: dict[int, Any] = {}
    try:
        for i, r in progress(gen, total=len(tasks), desc=desc, enabled=show_progress):
            if on_result is not None:
                on_result(i, r)
            results[i] = r
    except Exception as exc:  # a worker died, or a task's result could not be shipped back
        unfinished = [i for i in range(len(tasks)) if i not in results]
        print(
            f"warning: {lost_reason(exc).replace('its worker', 'a worker')}; running the "
            f"{len(unfinished)} unfinished task(s) again, one at a time",
            file=sys.stderr,
            flush=True,
        )
        for i in unfinished:
            results[i] = _isolated(func, i, tasks[i], on_lost)
            if on_result is not None:
                on_result(i, results[i])
    return [results[i] for i in range(len(tasks))]


def _isolated(
    func: Callable[..., R],
    index: int,
    task: tuple[tuple[Any, ...], Scope],
    on_lost: Callable[[tuple[Any, ...], str], R] | None,
) -> R:
    """``func(*args)`` alone in a worker process; a lost task goes to ``on_lost``."""
    from joblib.executor import get_memmapping_executor

    # joblib's own reusable executor (the one Parallel uses, so a later Parallel in this
    # process finds it as it expects), with one worker; a fresh one if the last one broke.
    args, scope = task
    executor = get_memmapping_executor(1)
    try:
        return executor.submit(_indexed, func, index, args, scope).result()[1]
    except Exception as exc:
        return _lost(on_lost, args, lost_reason(exc))


#: How far a loky worker's memory may grow before loky replaces it.  Loky's own guard is
#: 300 MB, meant to catch leaks; our workers grow on purpose -- per-corpus feature and POS
#: caches that the next task on the same corpus reuses -- and a replaced worker recomputes
#: them all (in the default run the guard fired several times, each costing tens of seconds).
WORKER_MEMORY_GROWTH = 4 * 1024**3


def _indexed(
    func: Callable[..., R], index: int, args: tuple[Any, ...], scope: Scope | None = None
) -> tuple[int, R]:
    _keep_worker_caches()
    with scope or contextlib.nullcontext():
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


def dask_timeout() -> float:
    """Seconds to wait for the scheduler and for workers (``DEID_BENCH_DASK_TIMEOUT``,
    a number of seconds or a dask duration such as ``30s``; default 10 s)."""
    from dask.utils import parse_timedelta

    text = os.environ.get("DEID_BENCH_DASK_TIMEOUT", "10s")
    try:
        value = parse_timedelta(text, default="seconds")
    except (ValueError, KeyError, TypeError):
        raise BackendError(
            f"DEID_BENCH_DASK_TIMEOUT={text!r}: use seconds, e.g. 10 or 30s"
        ) from None
    if value is None or not value > 0:
        raise BackendError(f"DEID_BENCH_DASK_TIMEOUT={text!r}: must be more than 0 seconds")
    return float(value)


def check_scheduler_address(scheduler: str | None) -> None:
    """Reject a dask scheduler address that cannot be one, before any work starts."""
    if not scheduler:
        raise BackendError("--backend dask needs --scheduler ADDRESS (e.g. tcp://host:8786)")
    try:
        from distributed.comm import parse_address
        from distributed.comm.addressing import get_address_host_port
    except ImportError as exc:  # optional dependency
        raise BackendError(
            "the dask backend needs dask.distributed: pip install 'deid-bench[dask]'"
        ) from exc
    try:
        scheme, _ = parse_address(scheduler)
        if scheme != "inproc":
            host, _ = get_address_host_port(scheduler)
            if not host or any(c.isspace() for c in host):
                raise ValueError("bad host name")
    except (ValueError, TypeError) as exc:
        raise BackendError(
            f"--scheduler {scheduler!r} is not a dask scheduler address ({exc}); use e.g. "
            "tcp://host:8786"
        ) from None


@contextlib.contextmanager
def dask_client(scheduler: str | None) -> Iterator[Any]:
    """A client of the scheduler with at least one worker, or a :class:`BackendError`."""
    check_scheduler_address(scheduler)
    from distributed import Client

    timeout = dask_timeout()
    try:
        client = Client(scheduler, timeout=timeout, set_as_default=False)
    except (OSError, TimeoutError, ValueError) as exc:
        raise BackendError(
            f"cannot reach the dask scheduler at {scheduler}: {type(exc).__name__}"
            f"{': ' + str(exc).splitlines()[0] if str(exc) else ''}"
        ) from None
    try:
        try:
            client.wait_for_workers(1, timeout=timeout)
        except TimeoutError:
            raise BackendError(
                f"the dask scheduler at {scheduler} has no workers (waited {timeout:g} s; "
                "start some with `dask worker ADDRESS`, or set DEID_BENCH_DASK_TIMEOUT)"
            ) from None
        yield client
    finally:
        client.close()


def _dask(
    func: Callable[..., R],
    tasks: Work,
    scheduler: str | None,
    show_progress: bool,
    desc: str,
    on_result: Callable[[int, R], None] | None,
    on_lost: Callable[[tuple[Any, ...], str], R] | None = None,
) -> list[R]:
    with dask_client(scheduler) as client:
        timeout = dask_timeout()
        results: dict[int, Any] = {}

        def submit(indices: Sequence[int]) -> dict[Any, int]:
            # pure=False: identical arguments (e.g. two folds of a rule system) still run
            # as separate tasks, so per-task timing in run.json stays meaningful.
            return {
                client.submit(_indexed, func, i, *tasks[i], pure=False): i for i in indices
            }

        def finished() -> Iterator[int]:
            # Dask gives up on a task whose workers died (KilledWorker), and a task queued on
            # the same worker may go with it: each lost task runs once more, alone.
            lost: list[int] = []
            for i, outcome in _gather(client, submit(range(len(tasks))), timeout):
                if isinstance(outcome, _Failed) and outcome.retry:
                    lost.append(i)
                    continue
                results[i] = _dask_result(outcome, tasks[i][0], on_lost)
                yield i
            for i in lost:
                for _, outcome in _gather(client, submit([i]), timeout):
                    results[i] = _dask_result(outcome, tasks[i][0], on_lost)
                yield i

        with client.as_current():
            for i in progress(finished(), total=len(tasks), desc=desc, enabled=show_progress):
                if on_result is not None:
                    on_result(i, results[i])
        return [results[i] for i in range(len(tasks))]


class _Failed:
    """A dask task that produced no result: why, and whether running it again may help."""

    def __init__(self, reason: str, retry: bool) -> None:
        self.reason, self.retry = reason, retry


def _dask_result(
    outcome: Any, args: tuple[Any, ...], on_lost: Callable[[tuple[Any, ...], str], R] | None
) -> Any:
    return _lost(on_lost, args, outcome.reason) if isinstance(outcome, _Failed) else outcome


def _gather(client: Any, futures: dict[Any, int], timeout: float) -> Iterator[tuple[int, Any]]:
    """(index, result or :class:`_Failed`) as the futures finish; gives up on the rest when
    the scheduler has had no worker for ``timeout`` seconds (else it would wait forever)."""
    from distributed import wait

    pending = set(futures)
    no_workers_since: float | None = None
    while pending:
        try:
            done, pending = wait(pending, timeout=min(timeout, 5.0), return_when="FIRST_COMPLETED")
        except TimeoutError:
            done = set()
        for fut in done:
            try:
                yield futures[fut], fut.result()[1]
            except Exception as exc:  # KilledWorker, a result that cannot be unpickled
                yield futures[fut], _Failed(lost_reason(exc), retry=True)
        if done or client.scheduler_info().get("workers"):
            no_workers_since = None
        elif no_workers_since is None:
            no_workers_since = time.monotonic()
        elif time.monotonic() - no_workers_since > timeout:
            for fut in pending:
                yield futures[fut], _Failed("no dask worker was left to run it", retry=False)
            return
