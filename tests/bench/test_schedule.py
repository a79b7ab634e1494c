"""Costliest-first scheduling: the order of work, remembered costs, and unchanged results."""

from __future__ import annotations

import pandas as pd
import pytest

from bench.run import cells, schedule
from bench.run.runner import RunConfig, run
from tests.bench.toy import CapitalizedSystem, MemorySystem, make_corpus

FAST = dict(folds=3, show_progress=False, n_resamples=50, n_shuffles=50)


def test_longest_first_is_stable_and_descending() -> None:
    assert schedule.longest_first([1.0, 5.0, 1.0, 3.0, 5.0]) == [1, 4, 3, 0, 2]
    assert schedule.longest_first([]) == []


def test_plan_keeps_a_corpus_in_one_worker_only_when_that_balances() -> None:
    # four equal corpora of a costly and a cheap task on two workers: one job per corpus
    costs = [8.0, 1.0] * 4
    corpora = ["a", "a", "b", "b", "c", "c", "d", "d"]
    jobs = schedule.plan(costs, corpora, workers=2)
    assert sorted(sorted(j) for j in jobs) == [[0, 1], [2, 3], [4, 5], [6, 7]]
    assert all(j[0] % 2 == 0 for j in jobs)  # costliest task of a job first
    # one corpus on two workers: grouping would serialize it, so tasks go out singly
    assert schedule.plan([8.0, 1.0, 5.0], ["a"] * 3, workers=2) == [[0], [2], [1]]
    # one worker: listing order is irrelevant, every task is a job
    assert schedule.plan([1.0, 2.0], ["a", "b"], workers=1) == [[1], [0]]
    assert schedule.makespan([[0], [1], [2]], [3.0, 2.0, 2.0], workers=2) == 4.0


def test_seconds_per_token_prefers_memory_then_hint_then_training_flag() -> None:
    class Hinted(MemorySystem):
        relative_cost = 4.0

    base = schedule.BASE_SECONDS_PER_TOKEN
    assert schedule.seconds_per_token(Hinted, "k", {}) == 4.0 * base
    assert schedule.seconds_per_token(Hinted, "k", {"k": 0.5}) == 0.5
    assert schedule.seconds_per_token(MemorySystem, "k", {}) == 1.0 * base
    assert schedule.seconds_per_token(CapitalizedSystem, "k", {}) == 0.05 * base


def test_timings_round_trip_and_merge() -> None:
    assert schedule.load_timings() == {}
    schedule.remember_timings([("a", 2.0, 100), ("a", 1.0, 200), ("b", 0.0, 10)])
    assert schedule.load_timings() == {"a": 3.0 / 300}
    schedule.remember_timings([("b", 1.0, 10)])
    assert schedule.load_timings() == {"a": 3.0 / 300, "b": 0.1}
    (schedule.cache.cache_dir() / schedule.TIMINGS_FILE).write_text("{not json")
    assert schedule.load_timings() == {}


def test_timing_key_depends_on_parameters() -> None:
    assert schedule.timing_key("s", {"C": 1}) == schedule.timing_key("s", {"C": 1})
    assert schedule.timing_key("s", {"C": 1}) != schedule.timing_key("s", {"C": 2})


def test_run_hands_out_costliest_tasks_first_and_keeps_results(toy_systems, monkeypatch) -> None:
    """With two workers the expensive system starts first; results are those of the
    listing order, and the run remembers what each computed cell cost."""
    corpus = make_corpus(9)
    seen: list[str] = []
    real_execute = cells.execute

    def spy(func, tasks, **kw):
        seen.extend(task.spec.name for (job,) in tasks for task in job)
        return real_execute(func, tasks, **{**kw, "backend": "sequential", "jobs": 1})

    monkeypatch.setattr(cells, "execute", spy)
    monkeypatch.setattr(MemorySystem, "relative_cost", 50.0, raising=False)
    config = RunConfig(systems=["toy-capitals,toy-memory"], corpora=["toy"], jobs=2, **FAST)
    result = run(config, {"toy": corpus})
    # 2 tasks < 2 x 2 workers: split into one task per cell, memory's three cells first
    assert seen == ["toy-memory"] * 3 + ["toy-capitals"] * 3
    assert [o.system for o in result.outcomes] == ["toy-capitals"] * 3 + ["toy-memory"] * 3
    assert schedule.timing_key("toy-memory", {"min_count": 1}) in schedule.load_timings()

    monkeypatch.setattr(cells, "execute", real_execute)
    sequential = run(
        RunConfig(systems=["toy-capitals,toy-memory"], corpora=["toy"], jobs=1, **FAST),
        {"toy": corpus},
    )
    pd.testing.assert_frame_equal(result.results, sequential.results)


def test_fully_cached_tasks_are_read_without_workers(toy_systems, monkeypatch) -> None:
    corpus = make_corpus(9)
    config = RunConfig(systems=["toy-capitals,toy-memory"], corpora=["toy"], jobs=2, **FAST)
    first = run(config, {"toy": corpus})
    dispatched: list[int] = []
    real_execute = cells.execute

    def spy(func, tasks, **kw):
        dispatched.append(len(tasks))
        return real_execute(func, tasks, **kw)

    monkeypatch.setattr(cells, "execute", spy)
    second = run(config, {"toy": corpus})
    assert dispatched == [] and all(o.cached for o in second.outcomes)
    pd.testing.assert_frame_equal(first.results, second.results)


def test_a_twin_of_a_trained_cell_costs_a_labelling() -> None:
    """A fold's model also labelling a test variant (a twin cell) does not fit again: it
    costs a share of its cell for a trained system, all of it for a rule system."""
    from types import SimpleNamespace as NS

    def task(cls: type) -> NS:
        spec = NS(cls=cls, wrappers=(), name=cls.name, params={})
        main, twin = NS(key="main", n_tokens=1000), NS(key="twin", n_tokens=1000)
        return NS(spec=spec, all_cells=lambda: [main, twin], twin_cells=lambda: [twin])

    by_key = {c.key: cost for c, cost in cells._cell_costs(task(MemorySystem), {})}
    assert by_key["main"] > 0
    assert by_key["twin"] == pytest.approx(schedule.TWIN_SHARE * by_key["main"])
    rules = {c.key: cost for c, cost in cells._cell_costs(task(CapitalizedSystem), {})}
    assert rules["twin"] == rules["main"] > 0
