"""Posterior token scores of the IdentiFinder-style HMM: forward-backward over the model
Viterbi decodes, and the ``threshold`` parameter."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from corpora.model import OUTSIDE, Document, gold_labels
from systems.hmm import IdentiFinderHMM
from tests.systems.test_hmm import note, training_notes

TEST = [
    note(
        i,
        f"Patient {pt} was seen by Dr. {dr} on {date}. Transferred from {hosp} Hospital. "
        "BP stable, no rash.",
        [(pt, "PATIENT"), (dr, "DOCTOR"), (date, "DATE"), (hosp, "HOSPITAL")],
    )
    for i, (pt, dr, date, hosp) in enumerate(
        [
            ("Kowalski", "Novak", "8/3/2006", "Mercy"),
            ("Smith", "Garcia", "12/30/2005", "Bayview"),
            ("Okafor", "Jones", "1/2/2007", "Lakeside"),
            ("Taylor", "Lindqvist", "3/14/2006", "Summit"),
        ]
    )
]
TEST.append(Document("x", "Dr. Jones saw Patient Brown at Lakeside Hospital today. No rash."))


@pytest.fixture(scope="module")
def model() -> IdentiFinderHMM:
    return IdentiFinderHMM().fit(training_notes())


def _flat(per_doc: list) -> list:
    return [x for doc in per_doc for x in doc]


def test_posteriors_sum_to_one_and_match_brute_force(model: IdentiFinderHMM) -> None:
    """Forward-backward equals enumerating every class sequence of each sentence, with the
    two analyses of a same-class step (continue, or end and restart) added."""
    docs = [Document("a", "Dr. Kowalski saw Taylor. Patient ok."), Document("b", "Mercy Hospital.")]
    init, steps, final, lengths = model._posterior_scores(docs)
    post = model._posteriors(init, steps, final, lengths)
    assert post.shape == (sum(len(d.tokens) for d in docs), len(model.states_))
    np.testing.assert_allclose(post.sum(1), 1.0, rtol=1e-12)
    K = len(model.states_)
    start = 0
    for s, length in enumerate(lengths.tolist()):
        expected = np.zeros((length, K))
        for seq in itertools.product(range(K), repeat=length):
            total = init[s, seq[0]] + final[s, seq[-1]]
            total += sum(steps[start + t, seq[t - 1], seq[t]] for t in range(1, length))
            for t, k in enumerate(seq):
                expected[t, k] += np.exp(total)
        expected /= expected.sum(1, keepdims=True)
        np.testing.assert_allclose(post[start : start + length], expected, atol=1e-9)
        start += length


def test_posterior_steps_add_what_viterbi_maximizes(model: IdentiFinderHMM) -> None:
    _, new, cont, _, _ = model._step_parts(TEST[:2])
    _, viterbi_steps, _, _ = model._scores(TEST[:2])
    _, sum_steps, _, _ = model._posterior_scores(TEST[:2])
    diag = np.arange(len(model.states_))
    np.testing.assert_array_equal(
        viterbi_steps[1:, diag, diag], np.maximum(new[1:, diag, diag], cont[1:])
    )
    np.testing.assert_allclose(
        sum_steps[1:, diag, diag], np.logaddexp(new[1:, diag, diag], cont[1:])
    )
    off = ~np.eye(len(diag), dtype=bool)
    np.testing.assert_array_equal(viterbi_steps[1:, off], sum_steps[1:, off])


def test_argmax_posterior_mostly_agrees_with_viterbi(model: IdentiFinderHMM) -> None:
    viterbi = _flat(model.predict(TEST))
    post = model._posteriors(*model._posterior_scores(TEST))
    argmax = [model.states_[k] for k in post.argmax(1)]
    assert np.mean([a == b for a, b in zip(argmax, viterbi, strict=True)]) > 0.95


def test_scores_one_per_token_in_unit_interval(model: IdentiFinderHMM) -> None:
    assert model.tags().scores_tokens
    docs = [Document("e", "   "), *TEST]
    scores = model.score_tokens(docs)
    assert [s.shape for s in scores] == [(len(d.tokens),) for d in docs]
    flat = np.concatenate(scores)
    assert ((flat >= 0) & (flat <= 1)).all()
    post = model._posteriors(*model._posterior_scores(TEST))
    np.testing.assert_allclose(flat, 1 - post[:, 0], atol=1e-12)


def test_no_threshold_keeps_the_viterbi_labels(model: IdentiFinderHMM) -> None:
    assert model.threshold is None
    docs = [Document("e", "   "), *TEST]
    labels, scores = model.predict_scored(docs)
    assert labels == model.predict(docs)
    assert labels[0] == [] and scores[0].shape == (0,)
    init, steps, final, lengths = model._scores(TEST)
    path = model._viterbi(init, steps, final, lengths)
    assert _flat(labels) == [model.states_[k] for k in path]
    for a, b in zip(scores, model.score_tokens(docs), strict=True):
        np.testing.assert_array_equal(a, b)


def test_threshold_labels_follow_the_scores_and_recall_is_monotone() -> None:
    m = IdentiFinderHMM(threshold=0.5).fit(training_notes())
    labels, scores = m.predict_scored(TEST)
    assert m.predict(TEST) == labels
    post = m._posteriors(*m._posterior_scores(TEST))
    for i, (lab, s) in enumerate(zip(_flat(labels), np.concatenate(scores), strict=True)):
        assert (lab != OUTSIDE) == (s > 0.5)
        if lab != OUTSIDE:  # the PHI class of highest posterior
            assert lab == m.states_[1 + int(post[i, 1:].argmax())]
    pairs = list(zip(_flat(gold_labels(TEST)), np.concatenate(scores), strict=True))
    recalls = []
    for t in (0.99, 0.9, 0.5, 0.1, 1e-3, 0.0, -1.0):
        predicted = _flat(m.set_params(threshold=t).predict(TEST))
        phi = [p for (g, _), p in zip(pairs, predicted, strict=True) if g != OUTSIDE]
        recalls.append(sum(p != OUTSIDE for p in phi) / len(phi))
    assert recalls == sorted(recalls) and recalls[-1] == 1.0


def test_search_space_and_untrained_phi() -> None:
    assert IdentiFinderHMM().search_space() == {"min_count": [1, 2, 3, 5]}
    only_o = IdentiFinderHMM(threshold=-1.0).fit([Document("o", "BP stable today.")])
    labels, scores = only_o.predict_scored(TEST[:1])
    assert set(labels[0]) == {OUTSIDE} and not scores[0].any()
