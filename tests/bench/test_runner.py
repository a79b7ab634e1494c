"""The runner on a tiny hand-written corpus with throw-away systems."""

from __future__ import annotations

import json
import math
import os
import stat

import pandas as pd
import pytest

from bench.report.outputs import summary_table, write_error_analysis, write_outputs
from bench.run.runner import (
    RESULT_COLUMNS,
    SIGNIFICANCE_COLUMNS,
    RunConfig,
    UsageError,
    resolve_corpora,
    resolve_systems,
    run,
)
from corpora.model import Corpus
from infra import cache
from tests.bench.toy import make_corpus

FAST = dict(folds=3, show_progress=False, n_resamples=100, n_shuffles=100)


def _config(systems: str, **kw) -> RunConfig:
    return RunConfig(systems=[systems], corpora=["toy"], **{**FAST, **kw})


def _phi_row(result, system: str, subset: str = "all"):
    df = result.results
    sel = df[
        (df.system == system) & (df.level == "token") & (df.subset == subset) & (df.label == "PHI")
    ]
    assert len(sel) == 1
    return sel.iloc[0]


def test_resolve_systems_and_corpora(toy_systems) -> None:
    assert list(resolve_systems(["toy-capitals, toy-memory"])) == ["toy-capitals", "toy-memory"]
    assert "toy-capitals" in resolve_systems(["all"])
    with pytest.raises(UsageError, match="unknown system 'nope'"):
        resolve_systems(["nope"])
    assert resolve_corpora(["all"]) == ["authentic", "surrogate", "ambiguous", "unseen"]
    assert resolve_corpora(["a,b", "a"]) == ["a", "b"]


def test_scores_failures_and_headline_subsets(toy_systems) -> None:
    corpus = make_corpus(12)
    result = run(_config("toy-capitals,toy-memory,toy-people,toy-broken"), {"toy": corpus})
    # every document is tested exactly once: the pooled counts are the corpus's
    n_phi = sum(t.label != "O" for d in corpus for t in d.tokens)
    caps = _phi_row(result, "toy-capitals")
    assert (caps.tp, caps.fp, caps.fn) == (n_phi, 0, 0)
    assert caps.f1 == 1.0 and caps.f1_ci_low == 1.0
    memory = _phi_row(result, "toy-memory")
    assert 0 < memory.recall < 1 and memory.precision == 1.0
    assert memory.f1_ci_low <= memory.f1 <= memory.f1_ci_high
    # the failing system is reported per fold while the others finish
    assert {f["system"] for f in result.failures} == {"toy-broken"}
    assert len(result.failures) == 3
    # the type and where it was raised; the message only in the --errors file
    assert result.failures[0]["error"].startswith("RuntimeError at toy.py:")
    assert result.results[result.results.system == "toy-broken"].empty
    assert result.systems["toy-people"]["headline_subset"] == "people_locations_organizations"
    assert list(result.results.columns) == list(RESULT_COLUMNS)
    assert set(result.results.level) == {"token", "entity"}
    assert list(result.significance.columns) == list(SIGNIFICANCE_COLUMNS)
    pair = result.significance[
        (result.significance.system_a == "toy-capitals")
        & (result.significance.system_b == "toy-memory")
        & (result.significance.subset == "all")
    ]
    assert set(pair.test) >= {"z_recall", "mcnemar", "approximate_randomization_f1"}
    assert (pair.p_value < 0.05).all() or pair.set_index("test").p_value["mcnemar"] < 0.05
    summary = summary_table(result)
    assert "FAILED" in summary and "toy-capitals" in summary


def test_second_run_comes_from_the_cache_and_matches(toy_systems) -> None:
    corpus = make_corpus(9)
    first = run(_config("toy-capitals,toy-memory"), {"toy": corpus})
    assert not any(o.cached for o in first.outcomes)
    second = run(_config("toy-capitals,toy-memory"), {"toy": corpus})
    assert all(o.cached for o in second.outcomes)
    pd.testing.assert_frame_equal(first.results, second.results)
    # other parameters are another cell
    third = run(
        _config("toy-capitals", system_params={"toy-capitals": {"label": "DOCTOR"}}),
        {"toy": corpus},
    )
    assert not any(o.cached for o in third.outcomes)


def test_interrupted_run_resumes_and_corrupt_entries_are_recomputed(toy_systems) -> None:
    corpus = make_corpus(9)
    first = run(_config("toy-memory"), {"toy": corpus})
    entries = sorted((cache.cache_dir() / "predictions").glob("*.pkl"))
    assert len(entries) == 3
    entries[0].unlink()  # as if the run had stopped before this cell
    raw = bytearray(entries[1].read_bytes())
    raw[-3] ^= 0x55  # a corrupt entry
    entries[1].write_bytes(bytes(raw))
    again = run(_config("toy-memory"), {"toy": corpus})
    assert sorted(o.cached for o in again.outcomes) == [False, False, True]
    pd.testing.assert_frame_equal(first.results, again.results)


def test_own_split_cross_corpus_and_learning_curve(toy_systems) -> None:
    split_corpus = make_corpus(12, name="split", with_split=True)
    result = run(
        RunConfig(systems=["toy-memory"], corpora=["split"], **FAST), {"split": split_corpus}
    )
    assert {o.protocol for o in result.outcomes} == {"split"}
    assert len(result.outcomes) == 1
    assert set(result.results.protocol) == {"split"}

    cross = run(
        RunConfig(systems=["toy-memory"], corpora=["b"], train_corpus="a", **FAST),
        {"a": make_corpus(8, name="a"), "b": make_corpus(8, name="b", first=100)},
    )
    (outcome,) = cross.outcomes
    assert (outcome.protocol, outcome.train_corpus, outcome.corpus) == ("cross", "a", "b")
    assert cross.grouping == {"b": "not split"}  # no folds: nothing was grouped

    curve = run(
        RunConfig(
            systems=["toy-memory"],
            corpora=["toy"],
            protocol="learning-curve",
            fractions=(0.25, 1.0),
            **FAST,
        ),
        {"toy": make_corpus(12)},
    )
    lc = curve.learning_curve
    phi = lc[(lc.level == "token") & (lc.subset == "all") & (lc.label == "PHI")]
    recall = phi.set_index("train_fraction").recall
    assert recall[0.25] <= recall[1.0]
    assert set(curve.results.protocol) == {"learning-curve"}


def test_usage_errors(toy_systems) -> None:
    with pytest.raises(UsageError, match="cannot make 20 folds"):
        run(_config("toy-capitals", folds=20), {"toy": make_corpus(5)})
    with pytest.raises(UsageError, match="at least 2"):
        run(_config("toy-capitals", folds=1), {"toy": make_corpus(5)})


def test_outputs_are_complete_and_free_of_phi(toy_systems, tmp_path) -> None:
    corpus = make_corpus(9)
    result = run(_config("toy-capitals,toy-memory,toy-broken"), {"toy": corpus})
    command = ["python", "-m", "bench", "run", "--systems", "toy-capitals"]
    paths = write_outputs(result, tmp_path / "out", command)
    for key in ("results", "significance", "run", "report", "f1_ci"):
        assert paths[key].exists(), key
    assert paths["f1_ci"].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    results = pd.read_csv(paths["results"])
    assert list(results.columns) == list(RESULT_COLUMNS)
    info = json.loads(paths["run"].read_text())
    assert info["command"] == command and info["seed"] == 0
    assert set(info["packages"]) >= {"deid-bench", "scikit-learn", "nltk", "numpy", "pandas"}
    assert info["corpora"]["toy"]["skipped_records"] == 0
    assert {f["system"] for f in info["failures"]} == {"toy-broken"}
    computed = [c for c in info["cells"] if c["ok"] and not c["cached"]]
    assert computed and all(c["tokens_per_second"] > 0 for c in computed)
    report = paths["report"].read_text()
    assert "python -m bench run --systems toy-capitals" in report
    assert "## Failures" in report and "| Class" in report
    # no token of any PHI phrase appears in any output
    phrases = {doc.text[s.start : s.end] for doc in corpus for s in doc.spans}
    phi_words = {w for phrase in phrases for w in phrase.split()}
    for path in paths.values():
        if path.suffix in (".md", ".csv", ".json"):
            text = path.read_text()
            leaked = [w for w in phi_words if w in text]
            assert not leaked, (path.name, leaked[:3])


def test_error_analysis_file_is_private_and_warns(toy_systems, tmp_path) -> None:
    result = run(_config("toy-memory"), {"toy": make_corpus(9)})
    target = tmp_path / "errors.tsv"
    n = write_error_analysis(result, target)
    memory = _phi_row(result, "toy-memory")
    assert n == memory.fp + memory.fn > 0
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o600
    lines = target.read_text().splitlines()
    assert lines[0].startswith("# WARNING") and "PHI" in lines[0]
    body = [line for line in lines if not line.startswith("#")]
    assert len(body) == n
    kind, system, corpus, _doc, _index, gold, pred, context = body[0].split("\t")
    assert kind in ("missed", "spurious") and system == "toy-memory" and corpus == "toy"
    assert (gold == "O") != (pred == "O") and "[[" in context
    assert len(context.split()) <= 11


def test_ci_is_nan_without_resampling(toy_systems) -> None:
    result = run(_config("toy-capitals", n_resamples=0), {"toy": make_corpus(6)})
    assert math.isnan(_phi_row(result, "toy-capitals").f1_ci_low)


@pytest.mark.benchmark(group="runner")
def test_runner_throughput_on_cached_cells(toy_systems, benchmark) -> None:
    corpus = make_corpus(30)
    config = _config("toy-capitals,toy-memory", n_resamples=50, n_shuffles=50)
    run(config, {"toy": corpus})
    result = benchmark(run, config, {"toy": corpus})
    assert all(o.cached for o in result.outcomes)


def test_one_pass_bootstrap_counts_match_the_exact_per_row_counts() -> None:
    from bench.score import metrics, significance
    from bench.score.scoring import score_predictions
    from tests.bench.toy import MemorySystem

    corpus = make_corpus(8)
    train, test = corpus.documents[:4], corpus.documents[4:]
    preds = MemorySystem().fit(train).predict(test)
    rows = score_predictions(test, preds, seed=3, n_resamples=200, alpha=0.05)
    checked = 0
    for row in rows:
        if row["tp"] + row["fp"] + row["fn"] == 0:
            continue
        counts = metrics.per_document_counts(
            test, preds, row["label"], row["subset"], match=row["match"] or None
        )
        low, high = significance.bootstrap_f1_ci(counts, n_resamples=200, alpha=0.05, seed=3)
        assert (row["f1_ci_low"], row["f1_ci_high"]) == (low, high), row
        checked += 1
    assert checked > 20


def test_folds_follow_patients_and_run_json_says_so(toy_systems) -> None:
    corpus = make_corpus(24, notes_per_patient=3)
    result = run(_config("toy-memory"), {"toy": corpus})
    patient = {i: d.metadata["patient"] for i, d in enumerate(corpus.documents)}
    for split in result.splits["toy"]:
        assert {patient[i] for i in split.train}.isdisjoint({patient[i] for i in split.test})
    assert result.grouping == {"toy": "patient"}
    by_doc = run(_config("toy-memory", group_by="document"), {"toy": corpus})
    assert by_doc.grouping == {"toy": "document"}
    with pytest.raises(UsageError, match="no 'patient' key"):
        run(_config("toy-memory", group_by="patient"), {"toy": make_corpus(12)})


def test_test_variant_trains_on_authentic_and_tests_on_the_variant(toy_systems) -> None:
    from corpora.variants import unseen

    corpus = make_corpus(12)
    variant = Corpus("unseen:toy", unseen(corpus, seed=0).documents)
    result = run(
        _config("toy-memory,toy-capitals", test_variant="unseen"),
        {"toy": corpus, "unseen:toy": variant},
    )
    splits = result.splits["unseen:toy"]
    assert [s.protocol for s in splits] == ["variant"] * 3
    assert [s.test for s in splits] == [s.test for s in result.splits["toy"]]
    assert all(s.train_corpus == "toy" for s in splits)
    table = result.variant_comparison.set_index("system")
    # the memorizer learned the training notes' names: new names escape it
    assert table.loc["toy-memory", "recall_variant"] < table.loc["toy-memory", "recall_authentic"]
    assert 0 < table.loc["toy-memory", "p_value"] <= 1


def test_test_variant_labels_both_test_sets_with_one_fit_per_fold(toy_systems) -> None:
    from corpora.variants import unseen
    from tests.bench.toy import RecordingSystem

    corpus = make_corpus(12)
    variant = Corpus("unseen:toy", unseen(corpus, seed=0).documents)
    RecordingSystem.LOG.clear()
    result = run(
        _config("toy-recording", test_variant="unseen"), {"toy": corpus, "unseen:toy": variant}
    )
    fits = [ids for what, ids in RecordingSystem.LOG if what == "fit"]
    RecordingSystem.LOG.clear()
    assert len(fits) == 3  # one per fold, not one per fold and test set
    assert {o.corpus for o in result.outcomes} == {"toy", "unseen:toy"}
    assert all(o.ok for o in result.outcomes) and len(result.outcomes) == 6


@pytest.mark.parametrize("jobs", [1, 2])
def test_one_fit_per_model_whatever_the_number_of_test_corpora(toy_systems, jobs) -> None:
    """Trained on one corpus and tested on two (``--train-corpus``), a system is fitted
    once, tuned or not: the model, not the test corpus, is the unit of work."""
    from tests.bench.toy import RecordingSystem

    corpora = {
        n: make_corpus(8 + i, name=n, first=100 * i) for i, n in enumerate(("train", "a", "b"))
    }
    for tune in (False, True):
        RecordingSystem.LOG.clear()
        config = RunConfig(
            systems=["toy-recording"],
            corpora=["a", "b"],
            train_corpus="train",
            tune=tune,
            jobs=jobs,
            **{**FAST, "folds": 2},
        )
        result = run(config, corpora)
        assert all(o.ok for o in result.outcomes)
        assert {o.corpus for o in result.outcomes} == {"a", "b"}
        fits = [ids for what, ids in RecordingSystem.LOG if what == "fit"]
        RecordingSystem.LOG.clear()
        if jobs == 1:  # workers log in their own process
            full = [f for f in fits if len(f) == 8]
            assert len(full) == 1, fits
        labelled = {o.corpus: o.n_tokens for o in result.outcomes}
        assert labelled["a"] != labelled["b"]


def test_operating_points_from_out_of_fold_scores(toy_systems) -> None:
    result = run(_config("toy-scoring,toy-capitals"), {"toy": make_corpus(12)})
    points = result.operating_points
    assert set(points.system) == {"toy-scoring"}  # only systems that score tokens
    assert list(points.recall_level) == [0.90, 0.95, 0.99]
    assert all(points.recall >= points.recall_level)
    assert "toy-scoring" in result.curves["toy"]
    # the reported threshold reproduces the point
    row = points.iloc[0]
    again = run(
        _config("toy-scoring", system_params={"toy-scoring": {"threshold": row.threshold}}),
        {"toy": make_corpus(12)},
    )
    phi = _phi_row(again, "toy-scoring")
    assert phi.recall == pytest.approx(row.recall) and phi.precision == pytest.approx(row.precision)


def test_unavailable_system_is_skipped_not_failed(toy_systems) -> None:
    result = run(_config("toy-capitals,toy-unavailable"), {"toy": make_corpus(9)})
    assert result.failures and all(f["skipped"] for f in result.failures)
    assert not result.failed
    assert "SKIPPED" in summary_table(result)


def test_unknown_parameters_are_usage_errors_before_any_work(toy_systems) -> None:
    with pytest.raises(UsageError, match="no parameter 'colour'"):
        run(_config("toy-memory", system_params={"toy-memory": {"colour": 1}}), {})
    with pytest.raises(UsageError, match="'nosuch' is not among the chosen systems"):
        run(_config("toy-memory", system_params={"nosuch": {"x": 1}}), {})


def test_a_system_runs_twice_under_aliases(toy_systems) -> None:
    specs = resolve_systems(
        ["toy-memory,often=toy-memory"],
        RunConfig(system_params={"often": {"min_count": 3}}),
    )
    assert list(specs) == ["toy-memory", "often"]
    assert specs["often"].cls is specs["toy-memory"].cls
    assert specs["often"].params == {"min_count": 3} and specs["toy-memory"].params == {
        "min_count": 1
    }
    result = run(
        _config("toy-memory,often=toy-memory", system_params={"often": {"min_count": 3}}),
        {"toy": make_corpus(12)},
    )
    once, often = _phi_row(result, "toy-memory"), _phi_row(result, "often")
    assert often.tp < once.tp  # fewer words seen three times than once
    pairs = set(zip(result.significance.system_a, result.significance.system_b, strict=True))
    assert ("often", "toy-memory") in pairs or ("toy-memory", "often") in pairs
    with pytest.raises(UsageError, match="already a system's name"):
        resolve_systems(["toy-capitals=toy-memory"])
    with pytest.raises(UsageError, match="ALIAS=NAME"):
        resolve_systems(["mine=nope"])
