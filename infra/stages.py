"""Where a worker's seconds go: featurizing, fitting, inner fits, labelling.

A run's cost is spread over systems, corpora and folds, and a speed-up that is not measured
per stage is a guess.  So the code that does the work marks it with :func:`stage`, and the
runner records, per cell, the seconds of each stage (``run.json``, ``cells[].stages``);
``python -m bench profile`` turns them into the table of ``docs/speed.md``.

Stages (:data:`STAGES`):

``featurize``
    computing what a document's features are made of, once per process: POS tags and
    lemmas, each feature class's output, the CRFs' item sequences, augmented copies.
``fit``
    training a model on the training documents it is scored for (the outer fold), a
    two-stage model's jackknife included: what the system costs as a system of its own.
``inner``
    fits and labelling inside model selection (``--tune``) and inside stacking
    (``multi``'s cross-fitting): what a system costs beyond its own fit.
``predict``
    labelling (and scoring) the test documents.

Time is *exclusive*: seconds spent in a nested stage count for that stage only, so a cell's
stages add up to its seconds.  Fitting and labelling inside an ``inner`` block count as
``inner``; featurizing counts as ``featurize`` wherever it happens.  A thread keeps its own
clock (dask runs cells in threads).
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator

FEATURIZE, FIT, INNER, PREDICT = "featurize", "fit", "inner", "predict"
#: The stages a cell's seconds are split into, in report order.
STAGES = (FEATURIZE, FIT, INNER, PREDICT)
#: Work that is not a stage of its own (the cell's bookkeeping, cache reads and writes).
OTHER = "other"


class _Clock(threading.local):
    def __init__(self) -> None:
        self.stack: list[str] = []
        self.since = 0.0
        self.recordings: list[dict[str, float]] = []


_CLOCK = _Clock()


def _charge(now: float) -> None:
    """Add the seconds since the last change to the current stage, in every recording."""
    clock = _CLOCK
    if clock.recordings:
        name = clock.stack[-1] if clock.stack else OTHER
        elapsed = now - clock.since
        for totals in clock.recordings:
            totals[name] = totals.get(name, 0.0) + elapsed
    clock.since = now


@contextlib.contextmanager
def stage(name: str) -> Iterator[None]:
    """Count the seconds of the block as stage ``name`` (see the module docstring for how
    nested stages count)."""
    if name not in STAGES:
        raise ValueError(f"unknown stage {name!r}; stages: {', '.join(STAGES)}")
    clock = _CLOCK
    if name in (FIT, PREDICT) and INNER in clock.stack:
        name = INNER
    _charge(time.perf_counter())
    clock.stack.append(name)
    try:
        yield
    finally:
        _charge(time.perf_counter())
        clock.stack.pop()


@contextlib.contextmanager
def recording() -> Iterator[dict[str, float]]:
    """Collect the seconds of every stage entered in this thread during the block into the
    dict it yields (time outside any stage as :data:`OTHER`).  Recordings nest: an outer
    one also counts what an inner one counts."""
    clock = _CLOCK
    _charge(time.perf_counter())
    totals: dict[str, float] = {}
    clock.recordings.append(totals)
    try:
        yield totals
    finally:
        _charge(time.perf_counter())
        for i in range(len(clock.recordings) - 1, -1, -1):
            if clock.recordings[i] is totals:
                del clock.recordings[i]
                break


def rounded(totals: dict[str, float]) -> dict[str, float]:
    """``totals`` in report order, to the millisecond, without empty stages."""
    order = [*STAGES, OTHER]
    return {k: round(totals[k], 3) for k in order if totals.get(k, 0.0) >= 0.0005}
