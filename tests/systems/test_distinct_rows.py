"""Identical training rows merged into weighted rows: the same liblinear problem."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.svm import LinearSVC

from systems.distinct_rows import balanced_weights, collapse_matrix, unique_labels


def _data(seed: int = 0) -> tuple[sp.csr_matrix, np.ndarray]:
    """Rows drawn from few patterns, so most repeat (as a note's augmented copies do)."""
    rng = np.random.default_rng(seed)
    patterns = [np.sort(rng.choice(40, size=5, replace=False)) for _ in range(30)]
    rows, labels = [], []
    for _ in range(2000):
        p = int(rng.integers(len(patterns)))
        rows.append(patterns[p])
        labels.append("DATE" if p % 3 == 0 else ("O" if rng.random() < 0.9 else "DOCTOR"))
    indptr = np.cumsum([0] + [len(r) for r in rows])
    x = sp.csr_matrix((np.ones(indptr[-1], np.float32), np.concatenate(rows), indptr), (2000, 40))
    return x, np.asarray(labels, dtype=object)


def test_collapse_keeps_first_occurrences_with_their_counts() -> None:
    x, y = _data()
    xu, yu, w = collapse_matrix(x, y)
    assert w.sum() == x.shape[0] and xu.shape[0] == len(yu) == len(w) < 200
    seen = {(xu[i].indices.tobytes(), yu[i]) for i in range(xu.shape[0])}
    assert len(seen) == xu.shape[0]  # distinct
    full = {(x[i].indices.tobytes(), y[i]) for i in range(x.shape[0])}
    assert seen == full
    first = next(
        i
        for i in range(x.shape[0])
        if (x[i].indices.tobytes(), y[i]) == (xu[0].indices.tobytes(), yu[0])
    )
    assert first == 0  # order of first occurrence


def test_rows_differing_only_in_values_or_label_stay_apart() -> None:
    x = sp.csr_matrix(np.array([[1, 0, 1], [1, 0, 1], [2, 0, 1], [1, 0, 1]], dtype=np.float64))
    y = np.array(["O", "O", "O", "DATE"], dtype=object)
    xu, yu, w = collapse_matrix(x, y)
    assert xu.shape[0] == 3 and list(w) == [2.0, 1.0, 1.0] and list(yu) == ["O", "O", "DATE"]


def test_weighted_distinct_rows_fit_the_same_svm() -> None:
    x, y = _data(1)
    weights = balanced_weights(y)
    full = LinearSVC(C=0.5, class_weight=weights, tol=1e-8, max_iter=100000, random_state=0)
    full.fit(x, y)
    xu, yu, w = collapse_matrix(x, y)
    small = LinearSVC(C=0.5, class_weight=weights, tol=1e-8, max_iter=100000, random_state=0)
    small.fit(xu, yu, sample_weight=w)
    assert (full.predict(x) == small.predict(x)).all()
    np.testing.assert_allclose(full.coef_, small.coef_, atol=1e-3)


def test_balanced_weights_count_every_token() -> None:
    """As scikit-learn's "balanced" on the uncollapsed labels, for string and 0/1 labels."""
    from sklearn.utils.class_weight import compute_class_weight

    for y in (np.array(["O"] * 7 + ["DATE"] * 3, dtype=object), np.array([0] * 9 + [1], np.int8)):
        classes = np.unique(y)
        expected = compute_class_weight("balanced", classes=classes, y=y)
        got = balanced_weights(y)
        assert [got[c.item() if hasattr(c, "item") else c] for c in classes] == list(expected)


def test_a_limit_splits_heavy_rows() -> None:
    """With ``max_weight`` no merged row weighs more than the limit (a heavy row slows the
    dual solver down more than its tolerance allows, systems.svm.MERGE_LIMIT)."""
    x, y = _data(2)
    _, _, unlimited = collapse_matrix(x, y)
    xu, _, w = collapse_matrix(x, y, max_weight=8)
    assert unlimited.max() > 8 and w.max() == 8 and w.sum() == x.shape[0]
    assert xu.shape[0] > len(unlimited)


def test_blocks_of_rows_give_the_collapse_of_the_whole_matrix() -> None:
    """Documents' rows merged block by block are the merge of their concatenation."""
    from systems.distinct_rows import distinct_rows

    x, y = _data(3)
    cuts = [0, 1, 500, 501, 1300, 2000]
    parts = [x[a:b] for a, b in itertools.pairwise(cuts)]
    blocks = [(part.indptr, part.indices) for part in parts]
    for limit in (None, 8):
        whole = collapse_matrix(x, y, limit)
        merged = distinct_rows(blocks, y, x.shape[1], limit)
        assert (whole[0] != merged[0]).nnz == 0 and whole[0].shape == merged[0].shape
        assert list(whole[1]) == list(merged[1]) and list(whole[2]) == list(merged[2])


@pytest.mark.parametrize("n", [0, 1, 2000])
def test_unique_labels_gives_numpys_arrays(n: int) -> None:
    """Object labels are counted by a look-up (np.unique sorts them one comparison at a
    time): the same classes, codes and counts, with the same dtypes; other arrays go to
    np.unique itself."""
    rng = np.random.default_rng(n)
    labels = rng.choice(["O", "DOCTOR", "PATIENT", "DATE", "LOCATION"], n).tolist()
    for y in (np.array(labels, dtype=object), np.array([lab != "O" for lab in labels], np.int8)):
        got = unique_labels(y)
        want = np.unique(y, return_inverse=True, return_counts=True)
        for a, b in zip(got, want, strict=True):
            assert a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b)
