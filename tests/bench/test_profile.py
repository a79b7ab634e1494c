"""``python -m bench profile``: worker-seconds by stage and each process's peak memory,
read from a run's run.json."""

from __future__ import annotations

import json

import numpy as np

from bench.cli import main
from bench.report.outputs import write_outputs
from bench.report.profile import memory_peaks, stage_table
from bench.run.runner import RunConfig, run
from infra import memo, memory
from tests.bench.toy import make_corpus


def _cell(system: str, fold: int, stages: dict, memory_record: dict | None = None) -> dict:
    cell = {"system": system, "corpus": "c", "fold": fold, "cached": False, "stages": stages}
    if memory_record is not None:
        cell["memory"] = memory_record
    return cell


def test_stage_table_sums_stages_per_system_and_counts_cached_cells_apart() -> None:
    run_json = {
        "cells": [
            _cell("a", 0, {"fit": 2.0, "predict": 1.0}),
            _cell("a", 1, {"fit": 3.0}),
            {"system": "a", "corpus": "c", "fold": 2, "cached": True},
            _cell("b", 0, {"featurize": 0.5}),
        ]
    }
    rows = {r["system"]: r for r in stage_table(run_json)}
    assert rows["a"]["fit"] == 5.0 and rows["a"]["total"] == 6.0
    assert (rows["a"]["computed"], rows["a"]["cached"]) == (2, 1)
    assert rows["all"]["total"] == 6.5


def test_memory_peaks_name_the_cell_that_raised_each_process_peak() -> None:
    run_json = {
        "cells": [
            _cell("a", 0, {}, {"pid": 11, "peak_mb": 300, "memos_mb": {"m": 10.0}}),
            _cell("b", 0, {}, {"pid": 22, "peak_mb": 900, "memos_mb": {"m": 50.0, "n": 5.0}}),
            _cell("a", 1, {}, {"pid": 11, "peak_mb": 700, "memos_mb": {"m": 80.0}}),
            _cell("a", 2, {}, {"pid": 11, "peak_mb": 700}),  # no rise: no snapshot
            # run.json lists cells by system: a cell listed first can have run later
            _cell("0-first-listed", 0, {}, {"pid": 11, "peak_mb": 700}),
        ]
    }
    run_json["cells"].insert(0, run_json["cells"].pop())
    peaks = memory_peaks(run_json)
    assert [(p["process"], p["peak_mb"]) for p in peaks] == [(2, 900), (1, 700)]
    assert peaks[1]["cell"] == "a / c / fold 1" and peaks[1]["memos_mb"] == {"m": 80.0}


def test_cell_memory_snapshots_the_memos_only_when_the_peak_rises(monkeypatch) -> None:
    peaks = iter([5_000_000.0, 5_000_000.0, 6_000_000.0])  # MB: above any real peak so far
    monkeypatch.setattr(memory, "peak_rss_mb", lambda: next(peaks))
    monkeypatch.setattr(memory._Seen, "mb", 0.0)
    held = memo.Memo("test.ballast", budget=64 * memo.MB)
    held.put("k", np.ones(3 * memo.MB // 8))
    first = memory.cell_memory()
    assert first["peak_mb"] == 5_000_000 and first["memos_mb"]["test.ballast"] >= 3.0
    assert "memos_mb" not in memory.cell_memory()  # the peak did not rise
    assert "test.ballast" in memory.cell_memory()["memos_mb"]
    held.clear()


def test_a_runs_profile_prints_its_processes_peaks(toy_systems, tmp_path, capsys) -> None:
    config = RunConfig(
        systems=["toy-memory,toy-capitals"],
        corpora=["toy"],
        folds=3,
        show_progress=False,
        n_resamples=0,
        n_shuffles=50,
    )
    result = run(config, {"toy": make_corpus(9)})
    out = tmp_path / "r"
    write_outputs(result, out, ["python", "-m", "bench", "run"])
    cells = json.loads((out / "run.json").read_text())["cells"]
    assert all(c["memory"]["peak_mb"] > 0 for c in cells if not c["cached"])
    assert main(["profile", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "Peak resident memory per process" in printed
    assert "reached in" in printed
