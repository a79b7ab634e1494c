"""Same command, same numbers: whatever the hash seed, the backend or the number of jobs.

Python randomizes the iteration order of sets of strings per process (``PYTHONHASHSEED``),
and joblib workers and dask workers are other processes (dask's nanny even pins the seed),
so any result that depends on the order of a set differs between runs and backends.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from corpora.dictionaries import Dictionaries
from systems import heuristic

ROOT = Path(__file__).resolve().parents[1]


def test_approximate_match_does_not_depend_on_neighbour_order(monkeypatch) -> None:
    """A misspelling one edit away from entries of two tables gets the more specific table,
    in whatever order the neighbours are generated."""
    d = Dictionaries(sources=["test"])
    d.add("last_names", ["berg"])
    d.add("hospitals", ["bert"])
    lex = heuristic.HeuristicLexicon(d)
    near = sorted(heuristic.edits1("berk"))
    assert {"berg", "bert"} <= set(near)
    answers = set()
    for order in (near, near[::-1]):
        monkeypatch.setattr(heuristic, "edits1", lambda word, order=order: list(order))
        answers.add(lex.approximate("berk"))
    assert answers == {"HOSPITAL"}


#: Every system (the external peers too, where their tools are installed) on the embedded
#: corpus and one variant of it: small, but every code path from generation to the tests.
SMALL_RUN = [
    "run",
    "--systems",
    "all,peers",
    "--corpora",
    "authentic,unseen",
    "--n-documents",
    "12",
    "--folds",
    "2",
    "--resamples",
    "50",
    "--shuffles",
    "50",
    "--quiet",
]


def _run_cli(tmp: Path, name: str, extra: list[str], hash_seed: str) -> dict[str, str]:
    """The run in a fresh process with its own (empty) cache: its result files' text."""
    out = tmp / name
    env = {
        **os.environ,
        "PYTHONHASHSEED": hash_seed,
        "DEID_BENCH_CACHE": str(tmp / f"cache-{name}"),
        "MPLBACKEND": "Agg",
    }
    proc = subprocess.run(
        [sys.executable, "-m", "bench", *SMALL_RUN, *extra, "--out", str(out)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=1200,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    info = json.loads((out / "run.json").read_text())
    return {
        "results.csv": (out / "results.csv").read_text(),
        "significance.csv": (out / "significance.csv").read_text(),
        "fingerprints": json.dumps({k: v["fingerprint"] for k, v in info["corpora"].items()}),
    }


@pytest.mark.slow
def test_every_system_same_results_whatever_hash_seed_backend_and_jobs(
    tmp_path: Path, monkeypatch
) -> None:
    # Hash seeds 1 and 4 iterate string sets in orders different enough to change results
    # that depend on them: a heuristic taking the first table hit among its edit-distance
    # neighbours gives different rows under these two seeds on this corpus.
    sequential = _run_cli(tmp_path, "sequential", ["--jobs", "1"], hash_seed="1")
    joblib = _run_cli(tmp_path, "joblib", ["--jobs", "2"], hash_seed="4")
    assert joblib == sequential
    distributed = pytest.importorskip("distributed")
    # dask's nanny starts worker processes with its own fixed hash seed
    monkeypatch.setenv("DEID_BENCH_CACHE", str(tmp_path / "cache-dask-workers"))
    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster:
        dask = _run_cli(
            tmp_path, "dask", ["--backend", "dask", "--scheduler", cluster.scheduler_address], "3"
        )
    assert dask == sequential


def test_the_foreign_variant_draws_the_same_places_whatever_the_hash_seed() -> None:
    """Faker builds some locales' lists from sets (``it_IT`` cities): without putting them
    in a fixed order first, the same seed drew other places in another process."""
    code = (
        "import hashlib; from corpora.foreign import LOCALES, locale_pools; "
        "print(hashlib.sha256(repr([locale_pools(x) for x in LOCALES]).encode()).hexdigest())"
    )
    digests = {
        subprocess.run(
            [sys.executable, "-c", code],
            cwd=ROOT,
            env={**os.environ, "PYTHONHASHSEED": seed},
            capture_output=True,
            text=True,
            timeout=300,
            check=True,
        ).stdout.strip()
        for seed in ("1", "2", "3")
    }
    assert len(digests) == 1, digests


def test_the_embedded_corpora_are_the_ones_the_example_report_was_made_on() -> None:
    """A change to one variant (or to the generator) must not redraw the others: the four
    default corpora hash to what reports/example/run.json records, or the README's first
    table no longer comes from the code that prints it."""
    from corpora.load import load_corpus

    saved = json.loads((ROOT / "reports" / "example" / "run.json").read_text())["corpora"]
    now = {name: load_corpus(name)[0].fingerprint for name in saved}
    assert now == {name: info["fingerprint"] for name, info in saved.items()}
