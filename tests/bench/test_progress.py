"""A long run says, at its start and as it goes, its cells done and left and the time
left; workers report finished cells through a file the main process reads."""

from __future__ import annotations

import io
import os
import time

import pytest

from bench.run.progress import ENV_PROGRESS, RunProgress, mark_finished


def test_long_run_announces_itself_and_reports_cells_as_workers_finish(monkeypatch) -> None:
    stream = io.StringIO()
    costs = {"a": 100.0, "b": 100.0, "c": 200.0}
    with RunProgress(costs, cached=5, workers=2, stream=stream, interval=0.05) as report:
        assert report.announce and report.path and os.path.exists(report.path)
        monkeypatch.setenv(ENV_PROGRESS, report.environment[ENV_PROGRESS])
        mark_finished("a")  # as a worker would
        mark_finished("b")
        deadline = time.monotonic() + 5
        while "2 of 3 cells" not in stream.getvalue() and time.monotonic() < deadline:
            time.sleep(0.02)
    out = stream.getvalue().splitlines()
    assert out[0].startswith("3 cells to compute (5 from the cache) on 2 workers: about")
    assert any(line.startswith("2 of 3 cells computed (5 from the cache)") for line in out)
    assert not os.path.exists(report.path)  # the file goes with the run


def test_time_left_follows_the_pace_of_the_run() -> None:
    report = RunProgress({"a": 10.0, "b": 30.0}, cached=0, workers=2, enabled=False)
    assert report.left(0.0) == 20.0  # nothing done: the estimate over the workers
    assert report.left(15.0) == 5.0
    report.add_done(["a", "unknown"])
    assert report.left(50.0) == 150.0  # a quarter of the cost took 50 s: 150 s to go


def test_an_early_pace_is_weighed_against_the_estimate() -> None:
    # 1 of 100 cost units done after 60 s: the pace alone would say 99 min; the estimate
    # over the workers says 50 - 1 = 49 min; 4 % of the trust-point 25 % goes to the pace
    costs = {str(i): 60.0 for i in range(100)}
    report = RunProgress(costs, cached=0, workers=2, enabled=False)
    report.add_done(["0"])
    pace, estimate = 60.0 * 99, 50 * 60.0 - 60.0
    assert report.left(60.0) == pytest.approx(0.04 * pace + 0.96 * estimate)
    report.add_done([str(i) for i in range(25)])  # a quarter done: the pace alone
    assert report.left(600.0) == pytest.approx(600.0 * 3)


def test_short_runs_and_quiet_runs_print_nothing() -> None:
    stream = io.StringIO()
    with RunProgress({"a": 1.0}, cached=0, workers=1, stream=stream):
        pass
    with RunProgress({"a": 500.0}, cached=0, workers=1, stream=stream, enabled=False):
        mark_finished("a")  # no file in this process's environment: nothing happens
    assert stream.getvalue() == ""
