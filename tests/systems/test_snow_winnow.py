"""Pins the semantics of the SNoW recognizer's optimized training code.

``WinnowNetwork.fit`` scores examples in vectorized blocks and ``_Indexer.matrix`` builds
the feature matrix without a per-feature Python loop; both must give exactly what the plain
one-example-at-a-time loop and the plain indexing loop give (the benchmark's ``snow``
results depend on it bit for bit).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy import sparse

from systems.features.base import FEATURE_SPACE, combine
from systems.snow import SnowNER, WinnowNetwork, _IdIndexer, _Indexer, token_features
from tests.systems.test_snow import training_notes


def reference_fit(net: WinnowNetwork, X: sparse.csr_matrix, y: np.ndarray) -> np.ndarray:
    """The plain online Winnow loop (one example at a time), as ``fit`` first implemented it."""
    n, T = X.shape[0], net.n_targets
    onehot = sparse.csr_matrix((np.ones(n), (np.arange(n), y)), shape=(n, T))
    linked = (X.T @ onehot).toarray() > 0
    mean_active = max(float(np.diff(X.indptr).mean()) if n else 1.0, 1.0)
    W = np.where(linked, net.initial_weight * net.threshold / mean_active, 0.0)
    rng = np.random.default_rng(net.seed)
    targets = np.arange(T)
    hi, lo = net.threshold * (1 + net.margin), net.threshold * (1 - net.margin)
    for _ in range(net.epochs):
        mistakes = 0
        for i in rng.permutation(n):
            idx = X.indices[X.indptr[i] : X.indptr[i + 1]]
            if len(idx) == 0:
                continue
            act = W[idx].sum(0)
            positive = targets == y[i]
            factor = np.where(positive & (act <= hi), net.promotion, 1.0)
            factor = np.where(~positive & (act > lo), net.demotion, factor)
            if (factor != 1.0).any():
                mistakes += 1
                W[idx] *= factor
        if mistakes == 0:
            break
    return W


def test_one_epoch_by_hand() -> None:
    # Three examples over three features, two targets.  Every example has two active
    # features, so linked weights start at 0.5 * threshold / 2 = 0.25; feature 2 never occurs
    # with class 0, so it stays unlinked (0) there.  Separator: promote at <= 1.3, demote > 0.7.
    X = sparse.csr_matrix(np.array([[1, 1, 0], [0, 1, 1], [1, 0, 1]], dtype=float))
    y = np.array([0, 1, 1])
    assert np.random.default_rng(0).permutation(3).tolist() == [2, 0, 1]  # presentation order
    net = WinnowNetwork(2, promotion=2.0, demotion=0.5, epochs=1, seed=0).fit(X, y)
    # Start:  f0 = [.25, .25], f1 = [.25, .25], f2 = [0, .25]
    # ex 2 {f0, f2}, class 1: act = [.25, .50]: target 1 promoted (.5 <= 1.3); target 0 not
    #      demoted (.25 <= .7)                  -> f0 = [.25, .5], f2 = [0, .5]
    # ex 0 {f0, f1}, class 0: act = [.50, .75]: target 0 promoted; target 1 demoted, by the
    #      thick separator only (.7 < .75 < threshold 1) -> f0 = [.5, .25], f1 = [.5, .125]
    # ex 1 {f1, f2}, class 1: act = [.50, .625]: target 1 promoted; target 0 untouched
    #      -> f1 = [.5, .25], f2 = [0, 1]
    expected = np.array([[0.5, 0.25], [0.5, 0.25], [0.0, 1.0]])
    assert np.array_equal(net.weights_, expected)


@pytest.mark.parametrize(("n_active", "promoted"), [(13, True), (16, False)])
def test_activation_is_the_sequential_sum(n_active: int, promoted: bool) -> None:
    # The weights start at 1.3 / n_active; the activation of the one example is those
    # weights added one after another (as ``W[idx].sum(0)`` does), which is exactly
    # 1.3 = θ(1 + margin) for 13 of them (promoted: not above the separator) and just above
    # it for 16.  numpy's pairwise summation of a contiguous run gives the opposite results
    # (and ``np.add.reduceat`` gets 13 wrong too).  Two targets: the other one is never
    # linked, so its activation stays 0.
    X = sparse.csr_matrix(np.ones((1, n_active)))
    net = WinnowNetwork(2, initial_weight=1.3, epochs=1).fit(X, np.array([0]))
    start = 1.3 / n_active
    assert np.array_equal(
        net.weights_[:, 0], np.full(n_active, start * 1.35 if promoted else start)
    )


def random_examples(
    seed: int, n: int = 300, n_features: int = 60, n_targets: int = 4
) -> tuple[sparse.csr_matrix, np.ndarray]:
    """Rows of 0-30 features in arbitrary order, some repeated within a row, some empty."""
    rng = np.random.default_rng(seed)
    lengths = rng.integers(0, 31, n)
    lengths[rng.random(n) < 0.05] = 0
    indices = rng.integers(0, n_features, int(lengths.sum()))
    indptr = np.concatenate([[0], np.cumsum(lengths)])
    X = sparse.csr_matrix(
        (np.ones(len(indices)), indices, indptr), shape=(n, n_features), dtype=np.float64
    )
    return X, rng.integers(0, n_targets, n)


@pytest.mark.parametrize("block_size", [1, 3, 16, 10_000])
@pytest.mark.parametrize("seed", [0, 1])
def test_blocked_fit_is_bit_identical_to_the_online_loop(
    block_size: int, seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Random rows: repeated features count twice in the activation but are updated once;
    # empty rows are skipped; the example order comes from the seeded permutation.
    X, y = random_examples(seed)
    assert (np.diff(X.indptr) == 0).any()
    monkeypatch.setattr(WinnowNetwork, "block_size", block_size)
    for epochs in (1, 4):
        net = WinnowNetwork(4, epochs=epochs, seed=seed + 7)
        assert np.array_equal(net.fit(X, y).weights_, reference_fit(net, X, y))


def test_early_stop_matches_the_online_loop() -> None:
    X = sparse.csr_matrix(np.array([[1, 0, 1], [0, 1, 1]] * 5, dtype=float))
    y = np.array([1, 0] * 5)
    net = WinnowNetwork(2, epochs=50, seed=3)
    assert np.array_equal(net.fit(X, y).weights_, reference_fit(net, X, y))
    assert (net.activations(X).argmax(1) == y).all()


def test_indexer_matches_the_plain_loop() -> None:
    rows = [["b", "a", "b"], [], ["c", "a"], ["d"]]
    index = _Indexer()
    X = index.matrix(rows, grow=True)
    assert index.columns == {"b": 0, "a": 1, "c": 2, "d": 3}  # order of first occurrence
    assert X.indptr.tolist() == [0, 3, 3, 5, 6]
    assert X.indices.tolist() == [0, 1, 0, 2, 1, 3]  # row order and repeats kept
    Y = index.matrix([["x", "c", "y", "b"], ["z"], ["a", "a"]], grow=False)
    assert Y.shape == (3, 4) and index.columns == {"b": 0, "a": 1, "c": 2, "d": 3}
    assert Y.indptr.tolist() == [0, 2, 2, 4]
    assert Y.indices.tolist() == [2, 0, 1, 1]  # unseen names dropped
    assert index.matrix([], grow=False).shape == (0, 4)


def test_token_ids_are_the_names_in_combine_order() -> None:
    docs = training_notes(4)
    model = SnowNER(use_pos=False)
    merged = [list(row) for doc in combine(token_features(use_pos=False), docs) for row in doc]
    indptr, ids = model._token_ids(docs)
    names = [FEATURE_SPACE.names[i] for i in ids]
    assert [names[a:b] for a, b in itertools.pairwise(indptr)] == merged


def test_id_indexer_builds_the_name_indexers_matrices() -> None:
    """The token matrices from ids are the name-based indexer's, array for array, on the
    training notes and on notes with names training never saw (dropped)."""
    docs = training_notes(6)
    model = SnowNER(use_pos=False)
    feats = token_features(use_pos=False)
    names = [list(row) for doc in combine(feats, docs) for row in doc]
    by_name, by_id = _Indexer(), _IdIndexer()
    n_train = sum(len(d.tokens) for d in docs[:4])
    ids = model._token_ids(docs)
    train_ids = model._token_ids(docs[:4])
    for got, want in (
        (by_id.matrix(*train_ids, grow=True), by_name.matrix(names[:n_train], grow=True)),
        (by_id.matrix(*ids, grow=False), by_name.matrix(names, grow=False)),
    ):
        assert got.shape == want.shape
        assert got.indptr.tolist() == want.indptr.tolist()
        assert got.indices.tolist() == want.indices.tolist()
    assert by_id.size == len(by_name.columns)


def test_a_feature_that_two_classes_emit_is_kept_at_its_first() -> None:
    """:meth:`FeatureSpace.token_ids` keeps a name two classes emit once, where ``rows``
    has it: at the first class."""
    doc = training_notes(1)[0]
    word = token_features(use_pos=False)[0]
    indptr, ids = FEATURE_SPACE.token_ids([word, word], doc)
    assert (indptr, ids)[1].tolist() == FEATURE_SPACE.encode(word, doc)[1].tolist()
    assert indptr.tolist() == FEATURE_SPACE.encode(word, doc)[0].tolist()
