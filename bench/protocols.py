"""Evaluation protocols: which documents train and which test each cell.

Folds are drawn by document, never by token (tokens of one note are not independent), and
from the seed alone, so every system sees exactly the same folds (Sibanda & Uzuner 2006
use 10-fold cross-validation, §6).
"""

from __future__ import annotations

import numpy as np


def document_folds(n_documents: int, k: int, seed: int) -> list[tuple[list[int], list[int]]]:
    """``k`` (train indices, test indices) pairs partitioning ``range(n_documents)``."""
    if k < 2:
        raise ValueError("cross-validation needs at least 2 folds")
    if n_documents < k:
        raise ValueError(f"cannot make {k} folds from {n_documents} documents")
    order = np.random.default_rng(seed).permutation(n_documents)
    chunks = np.array_split(order, k)
    folds = []
    for i, test in enumerate(chunks):
        train = np.concatenate([c for j, c in enumerate(chunks) if j != i])
        folds.append((sorted(train.tolist()), sorted(test.tolist())))
    return folds
