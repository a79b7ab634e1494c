"""Identical training rows as one row weighted by its count.

liblinear's objective sums a loss per row times the row's weight (scikit-learn passes
``sample_weight`` as per-instance costs), so a row of weight *n* is the same problem as
*n* copies of it: the same optimum, reached from fewer dual variables.  Two places have
many such rows:

* ``multi``'s meta-classifier (:func:`collapse_rows`): most tokens look alike to it (every
  base says ``O``, and so do their neighbours), so a training fold of 150,000 tokens holds
  a few thousand distinct rows;
* the feature SVMs (:func:`collapse_matrix`): a token far from any PHI has the same
  features in a note and in its augmented copies (``--augment``), which change only the
  PHI words, so with three copies three rows in four repeat one of the note's own; and
  templated or stock phrases repeat within a corpus (a quarter of the embedded corpus's
  Mega rows, 4 % of PhysioNet's).

The solver stops at a tolerance, so a collapsed fit can differ from the row-by-row fit in
the last digits of its weights, not in the problem it solves.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import scipy.sparse as sp


def collapse_rows(
    rows: Sequence[dict[str, float]], labels: Sequence[str]
) -> tuple[list[dict[str, float]], list[str], np.ndarray]:
    """Identical (feature dict, label) pairs as one row weighted by its count, in the
    order of their first occurrence (deterministic)."""
    counts: dict[tuple[tuple[str, ...], str], int] = {}
    first: dict[tuple[tuple[str, ...], str], dict[str, float]] = {}
    for row, label in zip(rows, labels, strict=True):
        key = (tuple(row), label)
        if key in counts:
            counts[key] += 1
        else:
            counts[key] = 1
            first[key] = row
    keys = list(counts)
    return (
        [first[k] for k in keys],
        [k[1] for k in keys],
        np.array([counts[k] for k in keys], dtype=np.float64),
    )


def unique_labels(labels: Sequence[Any] | np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``np.unique(labels, return_inverse=True, return_counts=True)``: the sorted classes,
    each label's index into them and each class's count.

    Category labels are Python strings in an object array, which ``np.unique`` sorts one
    comparison at a time: a tuned PhysioNet run spent 85 worker-seconds sorting its 1.3
    million training labels, several times per fit (py-spy, docs/speed.md).  For object
    arrays the classes are the sorted distinct labels and the codes a look-up, the same
    arrays in a fraction of the time; other arrays go to ``np.unique``."""
    values = np.asarray(labels)
    if values.dtype.kind != "O" or values.ndim != 1:
        return np.unique(values, return_inverse=True, return_counts=True)  # type: ignore[return-value]
    items = values.tolist()
    ordered = sorted(set(items))
    position = {c: i for i, c in enumerate(ordered)}
    codes = np.fromiter(map(position.__getitem__, items), dtype=np.intp, count=len(items))
    classes = np.empty(len(ordered), dtype=object)
    classes[:] = ordered
    return classes, codes, np.bincount(codes, minlength=len(ordered))


def balanced_weights(labels: Sequence[Any]) -> dict[Any, float]:
    """scikit-learn's ``class_weight="balanced"`` computed on every token, which the
    collapsed rows no longer show one by one (recent scikit-learn weighs the counts by
    ``sample_weight`` itself; older releases count rows)."""
    values = np.asarray(labels)
    classes, _, counts = unique_labels(values)
    convert = str if values.dtype.kind in "OUS" else (lambda c: c.item())
    return {
        convert(c): len(values) / (len(classes) * int(n))
        for c, n in zip(classes, counts, strict=True)
    }


def collapse_matrix(
    x: sp.csr_matrix, y: np.ndarray, max_weight: int | None = None
) -> tuple[sp.csr_matrix, np.ndarray, np.ndarray]:
    """Identical (row, label) pairs of a CSR design matrix as one row weighted by its
    count, in the order of their first occurrence: ``(x[first], y[first], counts)``;
    with ``max_weight``, a pair seen more often than that starts a new weighted row
    (:data:`systems.svm.MERGE_LIMIT` says why).

    Rows are compared by their column ids and values (indices sorted within each row, as
    :meth:`systems.features.base.FeatureSpace.matrix` leaves them)."""
    x = sp.csr_matrix(x)
    if not x.has_sorted_indices:
        x.sort_indices()
    _, codes, _ = unique_labels(y)
    indptr, indices, data = x.indptr, x.indices, x.data
    with_values = not bool(np.all(data == 1))
    seen: dict[tuple[bytes, bytes, int], int] = {}
    first: list[int] = []
    counts: list[int] = []
    for i in range(x.shape[0]):
        start, end = indptr[i], indptr[i + 1]
        key = (
            indices[start:end].tobytes(),
            data[start:end].tobytes() if with_values else b"",
            int(codes[i]),
        )
        j = seen.get(key)
        if j is None or (max_weight is not None and counts[j] >= max_weight):
            seen[key] = len(first)
            first.append(i)
            counts.append(1)
        else:
            counts[j] += 1
    rows = np.asarray(first, dtype=np.int64)
    return x[rows], np.asarray(y)[rows], np.asarray(counts, dtype=np.float64)


def distinct_rows(
    blocks: Iterable[tuple[np.ndarray, np.ndarray]],
    y: np.ndarray,
    n_columns: int,
    max_weight: int | None = None,
) -> tuple[sp.csr_matrix, np.ndarray, np.ndarray]:
    """:func:`collapse_matrix` of a binary matrix given as blocks of rows ((indptr,
    indices) per document, ids sorted within each row), without ever building the whole
    matrix: only distinct rows are kept, so memory follows them, not the tokens (a note
    and three augmented copies make four times the tokens and a few more distinct rows)."""
    _, codes, _ = unique_labels(y)
    seen: dict[tuple[bytes, int], int] = {}
    kept: list[bytes] = []  # each distinct row's ids, as its key holds them (no copy)
    first: list[int] = []
    counts: list[int] = []
    i = 0
    dtype = np.dtype(np.int32)
    for indptr, indices in blocks:
        dtype = indices.dtype
        for r in range(len(indptr) - 1):
            key = (indices[indptr[r] : indptr[r + 1]].tobytes(), int(codes[i]))
            j = seen.get(key)
            if j is None or (max_weight is not None and counts[j] >= max_weight):
                seen[key] = len(first)
                kept.append(key[0])
                first.append(i)
                counts.append(1)
            else:
                counts[j] += 1
            i += 1
    if i != len(codes):
        raise ValueError(f"{i} rows for {len(codes)} labels")
    del seen
    lengths = np.fromiter((len(r) // dtype.itemsize for r in kept), np.int64, len(kept))
    indptr = np.zeros(len(kept) + 1, dtype=np.int64)
    np.cumsum(lengths, out=indptr[1:])
    indices = np.frombuffer(b"".join(kept), dtype=dtype).astype(np.int32)
    del kept
    x = sp.csr_matrix(
        (np.ones(len(indices), np.float32), indices, indptr), shape=(len(first), n_columns)
    )
    rows = np.asarray(first, dtype=np.int64)
    return x, np.asarray(y)[rows], np.asarray(counts, dtype=np.float64)
