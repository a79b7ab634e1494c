"""Token scores of the CRF family (``crf``, ``mist``, the Illinois two-stage option): marginal
``1 - P(O)``, the ``threshold`` parameter, and the keyword-only constructors."""

from __future__ import annotations

import numpy as np
import pytest

from corpora.model import OUTSIDE, Document, gold_labels
from systems.base import System, get_system
from systems.crf import CrfLearner, CrfSystem, StanfordCrf, from_bio
from systems.mist import MistCrf
from tests.conftest import requires_nltk
from tests.systems.test_crf import notes

TRAIN, TEST = notes(30, seed=11), notes(6, seed=12)

#: (system, parameters): the Stanford features need the NLTK tagger, the others do not.
CONFIGS = [
    pytest.param(("crf", {}), marks=requires_nltk, id="crf"),
    pytest.param(("mist", {}), id="mist"),
    pytest.param(("crf", {"feature_set": "illinois", "two_stage": True}), id="crf-two-stage"),
    pytest.param(
        ("crf", {"feature_set": "illinois", "two_stage": True, "algorithm": "ap"}),
        id="illinois-ap",
    ),
]


@pytest.fixture(scope="module", params=CONFIGS)
def fitted(request: pytest.FixtureRequest) -> CrfSystem:
    name, params = request.param
    system = get_system(name, max_iterations=15, **params)
    assert isinstance(system, CrfSystem)
    return system.fit(TRAIN)


def _flat(per_doc: list) -> list:
    return [x for doc in per_doc for x in doc]


def _recall(predictions: list[list[str]]) -> float:
    pairs = list(zip(_flat(gold_labels(TEST)), _flat(predictions), strict=True))
    phi = [p for g, p in pairs if g != OUTSIDE]
    return sum(p != OUTSIDE for p in phi) / len(phi)


def test_scores_are_probabilities_one_per_token(fitted: CrfSystem) -> None:
    assert fitted.tags().scores_tokens
    scores = fitted.score_tokens(TEST)
    assert [s.shape for s in scores] == [(len(d.tokens),) for d in TEST]
    flat = np.concatenate(scores)
    assert ((flat >= 0) & (flat <= 1)).all()
    # the model is sure about some tokens either way
    assert flat.min() < 0.05 and flat.max() > 0.95


def test_no_threshold_keeps_the_viterbi_labels(fitted: CrfSystem) -> None:
    assert fitted.threshold is None
    viterbi = fitted.learner_.predict(TEST, fitted._rows(TEST))  # the pre-score code path
    labels, scores = fitted.predict_scored(TEST)
    assert fitted.predict(TEST) == viterbi
    assert labels == viterbi
    for a, b in zip(scores, fitted.score_tokens(TEST), strict=True):
        np.testing.assert_array_equal(a, b)


def test_threshold_labels_follow_the_scores(fitted: CrfSystem) -> None:
    system = fitted.set_params(threshold=0.5)
    try:
        labels, scores = system.predict_scored(TEST)
        assert system.predict(TEST) == labels
        for lab, s in zip(_flat(labels), np.concatenate(scores), strict=True):
            assert (lab != OUTSIDE) == (s > 0.5)
        # at 0.5 the marginal decisions are nearly the Viterbi ones
        system.set_params(threshold=None)
        viterbi = _flat(system.predict(TEST))
        agree = np.mean([a == b for a, b in zip(_flat(labels), viterbi, strict=True)])
        assert agree > 0.97
        recalls = []
        for t in (0.99, 0.9, 0.5, 0.1, 0.01, 0.0, -1.0):
            recalls.append(_recall(system.set_params(threshold=t).predict(TEST)))
        assert recalls == sorted(recalls)  # lowering the threshold never lowers recall
        assert recalls[-1] == 1.0  # below every score: everything is PHI
    finally:
        fitted.set_params(threshold=None)


def test_threshold_category_is_the_best_summed_marginal() -> None:
    """B- and I- marginals are added per category; the category with the most mass wins."""
    system = get_system("mist", max_iterations=15, threshold=0.3).fit(TRAIN)
    learner: CrfLearner = system.learner_
    rows = system._rows(TEST)
    xs, _ = learner._sequences(TEST, rows)
    expected = []
    for seq in learner.model.predict_marginals(list(xs)):
        for token in seq:
            by_cat: dict[str, float] = {}
            for tag, p in token.items():
                cat = from_bio([tag])[0]
                by_cat[cat] = by_cat.get(cat, 0.0) + p
            phi = {c: p for c, p in by_cat.items() if c != OUTSIDE}
            expected.append(max(phi, key=phi.__getitem__) if 1 - by_cat[OUTSIDE] > 0.3 else OUTSIDE)
    assert _flat(system.predict(TEST)) == expected


def test_empty_documents_get_empty_scores() -> None:
    system = get_system("mist", max_iterations=5).fit(TRAIN)
    docs = [Document("e", "   "), TEST[0]]
    labels, scores = system.predict_scored(docs)
    assert labels[0] == [] and scores[0].shape == (0,)
    assert len(scores[1]) == len(TEST[0].tokens)


@pytest.mark.parametrize("cls", [StanfordCrf, MistCrf])
def test_constructors_are_keyword_only_with_unchanged_names(cls: type[System]) -> None:
    with pytest.raises(TypeError):
        cls(0.1)  # type: ignore[misc]
    names = set(cls().get_params())
    assert {"c1", "c2", "max_iterations", "sequence", "two_stage", "inner_folds"} <= names
    assert {"seed", "algorithm", "threshold"} <= names
    system = cls(c2=0.5, seed=3, threshold=0.2)
    assert system.get_params()["c2"] == 0.5 and system.clone().get_params()["threshold"] == 0.2
    with pytest.raises(TypeError):
        CrfLearner(0.1)  # type: ignore[misc]


def test_search_space_and_param_checks() -> None:
    grid = {"c2": [0.001, 0.01, 0.1], "max_iterations": [5, 10]}
    assert get_system("crf").search_space() == grid
    assert get_system("mist").search_space() == grid
    # penalties unused by the perceptron: only its epochs
    assert get_system("crf", algorithm="ap").search_space() == {"max_iterations": [5, 10]}
    get_system("crf", threshold=np.float32(0.3)).check_params()
    for bad in ({"threshold": "high"}, {"algorithm": "sgd"}, {"sequence": "paragraph"}):
        with pytest.raises(ValueError):
            get_system("mist", **bad).check_params()
