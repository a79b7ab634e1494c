"""Cross-fitting shared between the outer folds of a cross-validation.

A stacked system learns from its base systems' decisions on its training documents, and
those decisions must come from models that never saw the document they label -- nor the
outer test fold, whose labels would otherwise reach the meta-learner.  Done inside each
outer fold on its own (two inner folds, :func:`corpora.folds.document_kfold`), that costs
two half-size fits per base and outer fold: about as much again as the bases' own fits.

Most of those fits can be shared between outer folds, because the run knows the outer
folds (:class:`systems.base.FitContext`).  Number the K folds, cut them into two halves
of folds, and each half into two quarters.  For the outer fold ``k`` in quarter ``Q`` of
half ``H`` (``H'`` the other half, ``Q'`` the other quarter of ``H``):

* the training documents of ``H`` are labelled by a model trained on ``H'`` -- one model
  for every outer fold of ``H``;
* those of ``H'`` are labelled by a model trained on ``Q'`` -- one model for every outer
  fold of ``Q``, labelling the same documents each time.

Neither model saw the documents it labels or fold ``k``.  Per base and corpus that is two
half-size and four quarter-size fits, whatever K: about a fifth of the bases' own fits at
K = 10, where the per-fold cross-fitting costs about as much as them.  A half model labels
a different set in each outer fold of its half, so it is kept in memory between them
(``keep_model``); a quarter model labels one set, which the prediction cache keeps.

Documents that are in no outer fold (``--extra-training`` notes) are in every training
set; they are dealt to the quarters by a seeded hash of their group.  Training copies
(``--augment``) go with the note they were copied from.  With fewer than four outer folds,
or training documents that leave out anything but exactly one outer fold (a learning
curve's fractions, a tuner's inner folds), there is nothing to share: :func:`shared_plan`
returns ``None`` and the caller cross-fits on its own.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from corpora.folds import group_labels

if TYPE_CHECKING:
    from corpora.model import Document
    from systems.base import FitContext

#: Fewest outer folds that can be shared: each half needs two quarters.
MIN_OUTER_FOLDS = 4


@dataclass(frozen=True)
class Labeller:
    """One model of a cross-fitting: trained on ``train``, labelling ``test`` (indices
    into the training documents, disjoint).  ``keep_model``: the same model labels other
    documents in other outer folds, so the fitted model is worth keeping in memory."""

    train: tuple[int, ...]
    test: tuple[int, ...]
    keep_model: bool = False


def quarters(k: int) -> list[int]:
    """The quarter (0-3) of each of ``k`` outer folds: folds ``0 .. k//2 - 1`` make the
    first half (quarters 0 and 1), the rest the second (quarters 2 and 3)."""
    half = k // 2
    out = []
    for fold in range(k):
        first, size = (0, half) if fold < half else (half, k - half)
        out.append((0 if fold < half else 2) + int(fold - first >= size // 2))
    return out


def shared_plan(
    documents: Sequence[Document], context: FitContext | None, group_by: str, seed: int = 0
) -> list[Labeller] | None:
    """The two labellers of the shared cross-fitting for the outer fold that
    ``documents`` leave out, or ``None`` when there is nothing to share (see the module
    docstring).  Every document is in the ``test`` of exactly one labeller."""
    if context is None or len(context.outer_folds) < MIN_OUTER_FOLDS:
        return None
    groups = group_labels(documents, group_by)
    fold_of = {g: f for f, fold in enumerate(context.outer_folds) for g in fold}
    present = set(groups)
    absent = {g for g in fold_of if g not in present}
    left_out = [f for f, fold in enumerate(context.outer_folds) if absent == set(fold)]
    if len(left_out) != 1 or not absent:
        return None
    quarter_of_fold = quarters(len(context.outer_folds))
    quarter = [quarter_of_fold[fold_of[g]] if g in fold_of else _dealt(g, seed) for g in groups]
    q = quarter_of_fold[left_out[0]]
    half = {q, q ^ 1}  # quarters 0, 1 make the first half; 2, 3 the second
    sibling = q ^ 1
    in_half = tuple(i for i, x in enumerate(quarter) if x in half)
    other_half = tuple(i for i, x in enumerate(quarter) if x not in half)
    in_sibling = tuple(i for i, x in enumerate(quarter) if x == sibling)
    if not other_half or not in_sibling:
        return None
    return [
        Labeller(train=other_half, test=in_half, keep_model=True),
        Labeller(train=in_sibling, test=other_half),
    ]


def _dealt(group: str, seed: int) -> int:
    """The quarter of a group in no outer fold: a seeded hash (never Python's ``hash``)."""
    digest = hashlib.blake2b(f"{seed}\0{group}".encode("utf-8", "surrogatepass"), digest_size=4)
    return int.from_bytes(digest.digest(), "big") % 4
