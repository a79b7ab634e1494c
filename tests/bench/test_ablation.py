"""Ablations, information gain, kernels and the PR curve of the local-context SVM."""

from __future__ import annotations

import math

import numpy as np
import pytest

from bench.reproduce import ablation
from corpora.model import Corpus
from systems.features.statdeid import STATDEID_FEATURES
from tests.conftest import requires_nltk
from tests.systems.test_svm import notes

NO_NLTK = ("orthography", "dictionaries", "section")


@pytest.fixture(scope="module")
def corpus() -> Corpus:
    return Corpus("toy", tuple(notes(24, seed=31)))


def test_cli_aliases_exist() -> None:
    assert ablation.ablation is ablation.feature_ablation
    assert ablation.kernels is ablation.kernel_experiment
    assert callable(ablation.information_gain)


@requires_nltk
def test_one_class_enabled_and_disabled(corpus: Corpus) -> None:
    table = ablation.feature_ablation(corpus, mode="both", folds=3, seed=1)
    assert list(table.columns[:5]) == ["feature_class", "mode", "precision", "recall", "f1"]
    assert table.iloc[0]["feature_class"] == "all"
    assert len(table) == 1 + 2 * len(STATDEID_FEATURES)
    only = table[table["mode"] == "only"].set_index("feature_class")
    without = table[table["mode"] == "without"].set_index("feature_class")
    assert set(only.index) == set(STATDEID_FEATURES) == set(without.index)
    full = table.iloc[0]
    assert full["f1"] > 0.9
    # section heading alone cannot find PHI (report §5.4.1: 0% precision and recall) ...
    assert only.loc["section", "recall"] < 0.5
    # ... and removing one class costs little on this easy corpus (report §5.4.2)
    assert (without["f1"] > full["f1"] - 0.15).all()
    # counts are consistent with the scores
    row = table.iloc[0]
    assert math.isclose(row["precision"], row["tp"] / (row["tp"] + row["fp"]))


def test_ablation_rejects_unknown_mode(corpus: Corpus) -> None:
    with pytest.raises(ValueError, match="mode"):
        ablation.feature_ablation(corpus, mode="sideways")


def _entropy(k: float, n: float) -> float:
    p = k / n
    return 0.0 if p in (0.0, 1.0) else -(p * math.log2(p) + (1 - p) * math.log2(1 - p))


@requires_nltk
def test_information_gain_of_single_indicators_matches_hand_computation(corpus) -> None:
    table = ablation.information_gain(corpus, top=0, level="feature", features=NO_NLTK)
    docs = corpus.documents
    y = [t.label != "O" for d in docs for t in d.tokens]
    n, k = len(y), sum(y)
    row = table.set_index("feature").loc["has_digit"]
    has = [any(c.isdigit() for c in t.text) for d in docs for t in d.tokens]
    n1 = sum(has)
    k1 = sum(a and b for a, b in zip(has, y, strict=True))
    expected = (
        _entropy(k, n) - (n1 / n) * _entropy(k1, n1) - ((n - n1) / n) * _entropy(k - k1, n - n1)
    )
    assert row["information_gain"] == pytest.approx(expected)
    assert row["tokens"] == n1 and row["phi_rate"] == pytest.approx(k1 / n1)
    assert (table["information_gain"] >= -1e-12).all()
    assert (table["information_gain"] <= _entropy(k, n) + 1e-12).all()
    assert list(table["information_gain"]) == sorted(table["information_gain"], reverse=True)


@requires_nltk
def test_template_information_gain_ranks_context_words_high(corpus: Corpus) -> None:
    table = ablation.information_gain(corpus, top=10)
    assert len(table) == 10
    top5 = list(table["feature"][:5])
    # 2006 §6.4: TW, bigrams before/after and neighbouring words are the most informative
    assert {"lw0", "bg-", "bg+"} & set(top5)
    assert "section" not in set(table["feature_class"][:3])
    assert set(table["feature_class"]) <= set(STATDEID_FEATURES)


@requires_nltk
def test_kernel_experiment_trains_each_kernel_on_the_subset(corpus: Corpus) -> None:
    table = ablation.kernel_experiment(
        corpus, train_documents=8, seed=2, system_params={"features": NO_NLTK}
    )
    assert list(table["kernel"]) == ["linear", "poly", "rbf"]
    assert (table["train_tokens"] == table["train_tokens"].iloc[0]).all()
    assert (table["train_seconds"] > 0).all()
    assert (table["recall"] > 0.5).all()


@requires_nltk
def test_precision_recall_curve_and_operating_point(corpus: Corpus) -> None:
    curve = ablation.precision_recall_curve(
        corpus, folds=3, system_params={"features": NO_NLTK}, points=20
    )
    assert list(curve.columns) == ["threshold", "precision", "recall", "f1"]
    assert len(curve) <= 21
    assert np.all(np.diff(curve["threshold"]) > 0)
    assert np.all(np.diff(curve["recall"]) <= 1e-12)  # recall falls as the threshold rises
    assert curve["recall"].iloc[0] == pytest.approx(1.0)
    point = ablation.operating_point(curve, min_recall=0.95)
    assert point["recall"] >= 0.95
    # the operating point's threshold reproduces its recall when given to the system
    gold, pred, _ = ablation.cross_validate(
        corpus, folds=3, system_params={"features": NO_NLTK, "threshold": point["threshold"] - 1e-9}
    )
    from bench.score.metrics import token_counts

    assert token_counts(gold, pred).recall == pytest.approx(point["recall"])


@requires_nltk
def test_per_document_counts_sum_to_the_pooled_ones(corpus: Corpus) -> None:
    table = ablation.kernel_experiment(
        corpus,
        train_documents=8,
        seed=2,
        kernels=("linear",),
        system_params={"features": NO_NLTK},
        per_document=True,
    )
    row = table.iloc[0]
    assert len(row["phi_counts"]) == 6  # the test quarter of 24 notes
    assert tuple(np.sum(list(row["phi_counts"].values()), axis=0)) == (row.tp, row.fp, row.fn)
    non = np.sum(list(row["non_phi_counts"].values()), axis=0)
    assert math.isclose(row.non_phi_precision, non[0] / (non[0] + non[1]))


@requires_nltk
def test_top_template_shares_test_the_ranking(corpus: Corpus) -> None:
    ranked = ablation.information_gain(corpus, top=5)
    shares = ablation.top_template_shares(corpus, top=5, n_resamples=50, seed=1)
    # the templates ranked first on the whole corpus stay in the top five on resamples
    assert all(shares[t] >= 0.5 for t in list(ranked["feature"])[:3])
    assert sum(shares.values()) == pytest.approx(5.0)  # five templates in every resample
    assert all(0.0 <= s <= 1.0 for s in shares.values())
