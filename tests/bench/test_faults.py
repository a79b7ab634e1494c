"""Faults during a run: systems that die, exit or leak note text, an interrupted run, a full
disk, a reader that goes away, and a report directory that must never mix two runs."""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from bench.cli import main
from corpora.readers.jsonl import write_jsonl
from infra import cache
from systems.base import register, unregister
from tests.bench import fault_toys
from tests.bench.toy import make_corpus
from tests.conftest import requires_nltk

ROOT = Path(__file__).resolve().parents[2]
FAST = ["--folds", "2", "--quiet", "--resamples", "20", "--shuffles", "20"]


@pytest.fixture
def fault_systems(toy_systems, monkeypatch) -> Iterator[None]:
    monkeypatch.setenv(fault_toys.ENV_MAIN_PID, str(os.getpid()))
    for cls in fault_toys.FAULT_SYSTEMS:
        register(cls)
    try:
        yield
    finally:
        for cls in fault_toys.FAULT_SYSTEMS:
            unregister(cls.name)


@pytest.fixture
def corpus_file(tmp_path: Path) -> Path:
    path = tmp_path / "toy.jsonl"
    write_jsonl(make_corpus(8), path)
    return path


def _argv(systems: str, corpus: Path, out: Path, *extra: str) -> list[str]:
    return ["run", "--systems", systems, "--corpora", f"jsonl:{corpus}", *FAST, "--out", str(out)]


def _note_words(n: int = 8) -> set[str]:
    """The PHI phrases of the notes (names, hospitals, dates), as a leak would show them."""
    return {d.text[s.start : s.end] for d in make_corpus(n).documents for s in d.spans}


def test_exception_text_is_scrubbed_except_in_the_errors_file(
    fault_systems, corpus_file, tmp_path, capsys
) -> None:
    out, errors = tmp_path / "report", tmp_path / "errors.tsv"
    argv = _argv("toy-capitals,toy-leaky", corpus_file, out)
    assert main([*argv, "--jobs", "1", "--errors", str(errors)]) == 1
    captured = capsys.readouterr()
    shared = [
        captured.out,
        captured.err,
        (out / "report.md").read_text(),
        (out / "run.json").read_text(),
    ]
    failures = json.loads((out / "run.json").read_text())["failures"]
    assert failures and failures[0]["error"].startswith("ValueError at fault_toys.py:")
    for text in shared:
        leaked = {w for w in _note_words() if w in text}
        assert not leaked, leaked
    private = errors.read_text()
    assert "failed\ttoy-leaky" in private and "pt John Smith" in private


def test_system_exit_is_a_failure_not_the_end_of_the_run(
    fault_systems, corpus_file, tmp_path, capsys
) -> None:
    for jobs in ("1", "2"):
        out = tmp_path / f"jobs{jobs}"
        assert main([*_argv("toy-exit,toy-capitals", corpus_file, out), "--jobs", jobs]) == 1
        err = capsys.readouterr().err
        assert "failed: toy-exit" in err and "Traceback" not in err
        info = json.loads((out / "run.json").read_text())
        assert {f["system"] for f in info["failures"]} == {"toy-exit"}
        assert info["failures"][0]["error"].startswith("SystemExit: 3")
        assert any(c["system"] == "toy-capitals" and c["ok"] for c in info["cells"])


def test_a_worker_killed_by_the_system_is_reported_and_the_rest_is_scored(
    fault_systems, corpus_file, tmp_path, capsys
) -> None:
    """SIGKILL (what the out-of-memory killer sends) in a joblib worker: the killer's cells
    fail after one retry each, the other system's cells are scored."""
    out = tmp_path / "report"
    argv = [*_argv("toy-killer,toy-capitals", corpus_file, out), "--jobs", "2", "--no-cache"]
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err and "failed: toy-killer" in err
    info = json.loads((out / "run.json").read_text())
    assert {f["system"] for f in info["failures"]} == {"toy-killer"}
    assert all("WorkerDied" in f["error"] and "SIGKILL" in f["error"] for f in info["failures"])
    results = (out / "results.csv").read_text()
    assert "toy-capitals" in results and "toy-killer" not in results


class _Interrupt(fault_toys.FineSystem):
    name = "toy-interrupt"

    def predict(self, documents):
        raise KeyboardInterrupt


def test_ctrl_c_stops_the_run_with_one_line_and_no_output(corpus_file, tmp_path, capsys):
    register(_Interrupt)
    try:
        out = tmp_path / "report"
        assert main([*_argv("toy-interrupt", corpus_file, out), "--jobs", "1"]) == 130
    finally:
        unregister("toy-interrupt")
    err = capsys.readouterr().err
    assert err.startswith("interrupted") and err.count("\n") == 1
    assert not out.exists()


def _report(tmp_path: Path, corpus_file: Path, systems: str, out: Path) -> set[str]:
    assert main([*_argv(systems, corpus_file, out), "--jobs", "1"]) == 0
    return {p.name for p in out.iterdir()}


def test_a_previous_report_is_replaced_whole(toy_systems, corpus_file, tmp_path) -> None:
    out = tmp_path / "report"
    first = _report(tmp_path, corpus_file, "toy-scoring", out)
    assert "operating_points.csv" in first  # only a system that scores tokens has them
    second = _report(tmp_path, corpus_file, "toy-capitals", out)
    assert "operating_points.csv" not in second  # no stale file from the first run
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


@pytest.mark.parametrize(
    "fault",
    [KeyboardInterrupt(), OSError(errno.ENOSPC, "No space left on device")],
    ids=["ctrl-c", "disk-full"],
)
def test_a_failure_while_writing_keeps_the_previous_report(
    fault, toy_systems, corpus_file, tmp_path, monkeypatch, capsys
) -> None:
    out = tmp_path / "report"
    _report(tmp_path, corpus_file, "toy-capitals", out)
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    from bench.report import render as report

    def broken(*args, **kwargs):
        raise fault

    monkeypatch.setattr(report, "render_report", broken)
    code = main([*_argv("toy-memory", corpus_file, out), "--jobs", "1"])
    assert code == (130 if isinstance(fault, KeyboardInterrupt) else 2)
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def test_a_full_disk_under_the_cache_warns_once_and_the_run_goes_on(
    toy_systems, corpus_file, tmp_path, monkeypatch, capsys
) -> None:
    real = cache.atomic_write_bytes

    def full(path, data, mode=None):
        if Path(path).is_relative_to(cache.cache_root()):
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(path, data, mode)

    monkeypatch.setattr(cache, "atomic_write_bytes", full)
    monkeypatch.setattr(cache, "_WRITE_FAILED", set())
    out = tmp_path / "report"
    assert main([*_argv("toy-capitals,toy-memory", corpus_file, out), "--jobs", "1"]) == 0
    err = capsys.readouterr().err
    assert err.count("cannot write to the cache") == 1 and "No space left" in err
    assert (out / "results.csv").exists()


class _ClosedPipe:
    def write(self, text: str) -> int:
        raise BrokenPipeError(errno.EPIPE, "Broken pipe")

    def flush(self) -> None:
        raise BrokenPipeError(errno.EPIPE, "Broken pipe")


def test_a_reader_that_goes_away_ends_quietly(monkeypatch, capsys) -> None:
    monkeypatch.setattr(sys, "stdout", _ClosedPipe())
    assert main(["list"]) == 141
    assert capsys.readouterr().err == ""


def test_list_into_head_has_no_traceback() -> None:
    proc = subprocess.run(
        f"{sys.executable} -m bench list | head -n 1",
        shell=True,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.stdout.startswith("Systems")
    assert proc.stderr == ""


def test_dask_scheduler_without_workers_times_out(
    toy_systems, corpus_file, tmp_path, monkeypatch, capsys
) -> None:
    distributed = pytest.importorskip("distributed")
    monkeypatch.setenv("DEID_BENCH_DASK_TIMEOUT", "1")
    cluster = distributed.LocalCluster(
        n_workers=0, processes=False, dashboard_address=None, silence_logs=40
    )
    try:
        argv = [*_argv("toy-capitals", corpus_file, tmp_path / "r"), "--backend", "dask"]
        assert main([*argv, "--scheduler", cluster.scheduler_address]) == 2
    finally:
        cluster.close()
    err = capsys.readouterr().err
    assert "has no workers" in err and err.count("\n") == 1


def test_joblib_task_that_kills_its_worker_is_lost_and_the_others_finish(fault_systems) -> None:
    from bench.run.execution import execute

    got = execute(
        fault_toys.square_or_die,
        [(2,), (-1,), (3,), (4,)],
        jobs=2,
        show_progress=False,
        on_lost=lambda args, reason: f"lost {args[0]}: {reason}",
    )
    assert got[0] == 4 and got[2] == 9 and got[3] == 16
    assert got[1].startswith("lost -1: its worker process died") and "SIGKILL" in got[1]


@pytest.mark.slow
def test_dask_task_that_kills_its_workers_is_lost_and_the_others_finish(
    fault_systems, monkeypatch
) -> None:
    dask = pytest.importorskip("dask")
    distributed = pytest.importorskip("distributed")
    from bench.run.execution import execute

    monkeypatch.setenv("DEID_BENCH_DASK_TIMEOUT", "30")
    with (
        dask.config.set({"distributed.scheduler.allowed-failures": 0}),
        distributed.LocalCluster(
            n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
    ):
        got = execute(
            fault_toys.square_or_die,
            [(2,), (-1,), (3,)],
            backend="dask",
            scheduler=cluster.scheduler_address,
            show_progress=False,
            on_lost=lambda args, reason: f"lost {args[0]}: {reason}",
        )
    assert got[0] == 4 and got[2] == 9
    assert got[1].startswith("lost -1: the dask workers running it died")


def _workers(pid: int) -> list[int]:
    """Live joblib (loky) worker processes whose parent is ``pid`` (from /proc)."""
    out = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            command = (stat.parent / "cmdline").read_bytes()
        except OSError:
            continue
        if int(fields[1]) == pid and fields[0] != "Z" and b"loky" in command:
            out.append(int(stat.parent.name))
    return out


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.slow
@requires_nltk
@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc (Linux)")
def test_sigterm_stops_the_run_and_its_worker_processes(tmp_path: Path) -> None:
    """``kill`` (SIGTERM) ends a run as Ctrl-C does: its worker processes stop with it
    instead of computing, orphaned, the cells of a run that is gone."""
    import signal
    import time

    env = {**os.environ, "DEID_BENCH_CACHE": str(tmp_path / "cache"), "MPLBACKEND": "Agg"}
    out = tmp_path / "r"
    argv = ["run", "--systems", "snow", "--corpora", "authentic", "--jobs", "2", "--quiet"]
    proc = subprocess.Popen(
        [sys.executable, "-m", "bench", *argv, "--out", str(out)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    workers: list[int] = []
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline and proc.poll() is None and not workers:
        workers = _workers(proc.pid)
        time.sleep(0.2)
    assert workers, "the run never started its worker processes"
    time.sleep(1.0)  # the workers are computing cells now
    proc.send_signal(signal.SIGTERM)
    try:  # orphaned workers would hold the pipes open, computing on
        _, err = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
        for pid in filter(_alive, workers):
            os.kill(pid, signal.SIGKILL)
        pytest.fail("the run's worker processes went on after it was terminated")
    assert proc.returncode == 130, err
    assert err.startswith("interrupted: no result file was left half-written")
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and any(map(_alive, workers)):
        time.sleep(0.2)
    assert not any(map(_alive, workers))
    assert not (out / "results.csv").exists()
