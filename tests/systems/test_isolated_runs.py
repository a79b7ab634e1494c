"""A library call that hangs, crashes or raises on one note fails that note only."""

from __future__ import annotations

import os
import time

from systems.external import WALL_CLOCK_FACTOR, NoteError, run_isolated


def _init(prefix: str) -> str:
    return prefix


def _work(prefix: str, item: str) -> str:
    if item == "hang":  # blocked without working: only the wall-clock backstop ends it
        time.sleep(60)
    if item == "spin":  # working without end: the CPU limit ends it
        while True:
            pass
    if item == "crash":
        os._exit(1)
    if item == "raise":
        raise ValueError("the note text would be here")
    if item == "work":  # about 0.6 s of CPU, several seconds of wall clock on a busy machine
        end = time.process_time() + 0.6
        while time.process_time() < end:
            pass
        return prefix + "worked"
    return prefix + item


def _burn() -> None:
    while True:
        pass


def test_each_item_gets_its_result_or_a_named_error() -> None:
    items = ["a", "hang", "spin", "b", "crash", "raise", "c"]  # "hang": not a fresh child
    got = run_isolated(_work, items, init=_init, initargs=("x-",), timeout=1.0)
    assert got[0] == "x-a" and got[3] == "x-b" and got[6] == "x-c"
    assert [str(e) for e in got if isinstance(e, NoteError)] == [
        f"timed out after {WALL_CLOCK_FACTOR:g} s of wall-clock time (1 s of CPU allowed)",
        "timed out after 1 s of CPU time",
        "crashed",
        "raised ValueError",  # the exception's type, never its message
    ]


def test_the_cpu_limit_does_not_count_waiting_for_a_busy_machine() -> None:
    """A note that needs 0.6 s of CPU finishes within a 1 s limit although two busy
    processes per core share the machine with it (about 1.5 s of wall clock): its fate
    depends on its own work only."""
    import multiprocessing

    ctx = multiprocessing.get_context("spawn")
    burners = [ctx.Process(target=_burn, daemon=True) for _ in range(2 * (os.cpu_count() or 1))]
    for p in burners:
        p.start()
    try:
        # the second item: a fresh child's first one also gets the start-up allowance
        got = run_isolated(_work, ["a", "work"], init=_init, initargs=("y-",), timeout=1.0)
    finally:
        for p in burners:
            p.kill()
    assert got == ["y-a", "y-worked"]


def _in_worker(items: list[str]) -> list[object]:
    return run_isolated(_work, items, init=_init, initargs=("w-",), timeout=5.0)


def test_runs_inside_a_joblib_worker() -> None:
    """Inside a loky worker the multiprocessing start method is loky's, which a spawned
    child cannot restore: the child must not depend on it (every note 'crashed' before)."""
    from joblib import Parallel, delayed

    got = Parallel(n_jobs=2, backend="loky")(delayed(_in_worker)([x]) for x in ("a", "b"))
    assert got == [["w-a"], ["w-b"]]
