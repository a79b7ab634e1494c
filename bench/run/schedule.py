"""Order the run's tasks costliest first, so the last worker does not finish alone.

A run is a few dozen (system, corpus) tasks of very unequal cost: on the default corpora the
stacked ``multi`` takes ~20x the time of ``svm`` and ~1000x that of a rule system.  Handed
out in listing order, a two-core run can end with one core idle while the other still trains
the last expensive task.  Longest-processing-time-first (Graham 1969) bounds the makespan
at 4/3 of the optimum and is what this module does; it only reorders work, so results are
identical whatever the order.

Costs come from, in order of preference:

1. the seconds per test token a task of the same system and parameters took in an earlier
   run on this machine (remembered in ``timings.json`` in the cache directory);
2. the system's declared :attr:`systems.base.System.relative_cost` (about its seconds per
   token relative to the local-context SVM; built-in systems set it from measurements, a
   plug-in may);
3. 1.0 for a trained system, 0.05 for a rule system.

Cells already in the prediction cache cost nothing.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from infra import cache

if TYPE_CHECKING:
    from systems.base import System

TIMINGS_FILE = "timings.json"
#: Seconds per *test* token (training on the other folds included) of ``relative_cost = 1``:
#: the ``svm`` on the default corpora on this project's 2-core CI machine, ~20 s for the
#: 155k test tokens of ten folds.  Only puts remembered and hinted costs on one scale.
BASE_SECONDS_PER_TOKEN = 1.3e-4
#: Share of a trained system's cell that its twin costs (the fold's model labelling a test
#: variant): in the PhysioNet recommended run the twins took 10 s against their cells'
#: 2,374 (under 1 %); 5 % leaves room for a slower labeller.
TWIN_SHARE = 0.05


def timing_key(system: str, params: Mapping[str, Any]) -> str:
    """The remembered-cost key of a system configuration (no corpus: cost is per token)."""
    return cache.make_key("timing", system, sorted((k, repr(v)) for k, v in params.items()))


def load_timings() -> dict[str, float]:
    """Remembered seconds per token by :func:`timing_key`; empty when absent or unreadable."""
    if not cache.caching_enabled():
        return {}
    path = cache.cache_dir() / TIMINGS_FILE
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {k: float(v) for k, v in data.items() if isinstance(v, int | float) and v > 0}


def remember_timings(measured: Iterable[tuple[str, float, int]]) -> None:
    """Store (timing key, seconds, test tokens) of computed cells for the next run's order."""
    if not cache.caching_enabled():
        return
    totals: dict[str, list[float]] = {}
    for key, seconds, tokens in measured:
        if tokens > 0 and seconds > 0:
            acc = totals.setdefault(key, [0.0, 0.0])
            acc[0] += seconds
            acc[1] += tokens
    if not totals:
        return
    timings = load_timings()
    timings.update({k: s / t for k, (s, t) in totals.items()})
    data = json.dumps(timings, indent=0, sort_keys=True).encode()
    cache.write_entry(TIMINGS_FILE, data)


def seconds_per_token(system_cls: type[System], key: str, timings: Mapping[str, float]) -> float:
    """Estimated seconds per test token of one cell of ``system_cls``: the remembered
    timing, else its declared :attr:`~systems.base.System.relative_cost`, else a guess from
    whether it trains."""
    if key in timings:
        return timings[key]
    hint = system_cls.relative_cost
    if hint is None:
        hint = 1.0 if system_cls.requires_training else 0.05
    return float(hint) * BASE_SECONDS_PER_TOKEN


def longest_first(costs: Sequence[float]) -> list[int]:
    """Task indices by decreasing cost (ties keep their listing order: a stable sort)."""
    return sorted(range(len(costs)), key=lambda i: -costs[i])


def workers_for(jobs: int) -> int:
    """How many processes ``--jobs`` means (-1: every core)."""
    return (os.cpu_count() or 1) if jobs == -1 else max(1, jobs)


#: Keeping every task of a corpus in one worker is worth this much extra makespan: a worker
#: that meets a corpus featurizes it (POS tags, every feature class) once for all systems,
#: where spreading its tasks makes each worker featurize it again.
GROUPING_TOLERANCE = 1.10


def makespan(jobs: Sequence[Sequence[int]], costs: Sequence[float], workers: int) -> float:
    """Finish time of ``jobs`` handed out in order to the first free of ``workers``."""
    loads = [0.0] * max(1, workers)
    for job in jobs:
        i = loads.index(min(loads))
        loads[i] += sum(costs[t] for t in job)
    return max(loads)


def plan(costs: Sequence[float], groups: Sequence[str], workers: int) -> list[list[int]]:
    """Jobs (lists of task indices, each run in one worker), costliest first.

    Tasks of one group (a corpus) go to one worker when that costs at most
    :data:`GROUPING_TOLERANCE` times the makespan of handing out single tasks -- as with
    four corpora on two cores -- and are handed out singly otherwise (one corpus, or a
    few corpora on many workers).
    """
    singles = [[i] for i in longest_first(costs)]
    if workers <= 1 or not costs:
        return singles
    by_group: dict[str, list[int]] = {}
    for i in longest_first(costs):
        by_group.setdefault(groups[i], []).append(i)
    grouped = sorted(by_group.values(), key=lambda job: -sum(costs[t] for t in job))
    if makespan(grouped, costs, workers) <= GROUPING_TOLERANCE * makespan(singles, costs, workers):
        return grouped
    return singles
