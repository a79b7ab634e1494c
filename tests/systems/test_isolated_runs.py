"""A library call that hangs, crashes or raises on one note fails that note only."""

from __future__ import annotations

import os
import time

from systems.external import NoteError, run_isolated


def _init(prefix: str) -> str:
    return prefix


def _work(prefix: str, item: str) -> str:
    if item == "hang":
        time.sleep(60)
    if item == "crash":
        os._exit(1)
    if item == "raise":
        raise ValueError("the note text would be here")
    return prefix + item


def test_each_item_gets_its_result_or_a_named_error() -> None:
    items = ["a", "hang", "b", "crash", "raise", "c"]
    got = run_isolated(_work, items, init=_init, initargs=("x-",), timeout=2.0)
    assert got[0] == "x-a" and got[2] == "x-b" and got[5] == "x-c"
    assert [str(e) for e in got if isinstance(e, NoteError)] == [
        "timed out after 2 s",
        "crashed",
        "raised ValueError",  # the exception's type, never its message
    ]


def _in_worker(items: list[str]) -> list[object]:
    return run_isolated(_work, items, init=_init, initargs=("w-",), timeout=5.0)


def test_runs_inside_a_joblib_worker() -> None:
    """Inside a loky worker the multiprocessing start method is loky's, which a spawned
    child cannot restore: the child must not depend on it (every note 'crashed' before)."""
    from joblib import Parallel, delayed

    got = Parallel(n_jobs=2, backend="loky")(delayed(_in_worker)([x]) for x in ("a", "b"))
    assert got == [["w-a"], ["w-b"]]
