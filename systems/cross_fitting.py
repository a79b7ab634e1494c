"""Cross-fitting shared between the outer folds of a cross-validation.

A stacked system learns from its base systems' decisions on its training documents, and
those decisions must come from models that never saw the document they label -- nor the
outer test fold, whose labels would otherwise reach the meta-learner.  Done inside each
outer fold on its own (``k`` inner folds, :func:`corpora.folds.document_kfold`), that costs
``k`` fits per base and outer fold on ``(k-1)/k`` of its training documents: at ``k = 2``
and K = 10 outer folds, as much again as the bases' own fits.

Most of those fits can be shared between outer folds, because the run knows the outer
folds (:class:`systems.base.FitContext`).  Take *blocks* of ``m`` outer folds such that
every pair of folds lies together in some block (a pair covering, :func:`blocks`).  The
model of block ``B`` is trained on every document outside ``B``'s folds; in the outer fold
``f``, the training documents of fold ``s`` are labelled by the model of the first block
that holds both ``f`` and ``s``.  That model saw neither the document (its fold ``s`` is in
``B``) nor the outer test fold (``f`` is in ``B``), and it serves every outer fold of its
block.

``m`` is the largest block whose models still learn from at least as many documents as
the per-fold scheme's inner models, ``(K-m)/K >= (K-1)/K * (k-1)/k``, so the decisions
the meta-learner learns from are made by models no weaker than those of per-fold
cross-fitting (a scheme of halves and quarters of the outer folds, whose quarter models
learned from a quarter of the notes, lowered ``multi``'s F significantly; docs/speed.md).
At K = 10 and k = 2 that is six models on half the notes per base, 3 fits' worth of
training against 9 for per-fold cross-fitting.

A block's model labels different documents in each outer fold of its block, so it is
kept in memory (``keep_model``) and, when first fitted, labels at once every document of
the other outer folds it will serve (``prefetch``).  The documents of the fold it was first
fitted in are that fold's test documents, which its fit could not see: the stacked system
labels them with the model when it labels its test documents (``left_out``), so a model
is never fitted twice for want of memory to keep it in.

Documents that are in no outer fold (``--extra-training`` notes) are in every training
set; they are dealt to a fold by a seeded hash of their group and treated as that fold's
documents here (never labelled by a model trained on them).  Training copies
(``--augment``) go with the note they were copied from.  With fewer than three outer
folds, or training documents that leave out anything but exactly one outer fold (a
learning curve's fractions, a tuner's inner folds), there is nothing to share:
:func:`shared_plan` returns ``None`` and the caller cross-fits on its own.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from math import comb
from typing import TYPE_CHECKING

from corpora.folds import group_labels
from infra.memo import memoize

if TYPE_CHECKING:
    from corpora.model import Document
    from systems.base import FitContext, System

#: Fewest outer folds that can be shared: three, each pair a block of its own.
MIN_OUTER_FOLDS = 3
#: How a fit records that its inner models were shared between outer folds (``multi``'s
#: ``cross_fitting``, a tuned system's ``inner_scheme``; the report reads it).
SHARED = "shared between outer folds"


@dataclass(frozen=True)
class Labeller:
    """One model of a cross-fitting: trained on ``train``, labelling ``test`` (indices
    into the training documents, disjoint).  ``keep_model``: the same model labels other
    documents in other outer folds, so the fitted model is worth keeping in memory;
    ``prefetch``: the documents it will label for those other outer folds, labelled (and
    remembered) as soon as it is fitted."""

    train: tuple[int, ...]
    test: tuple[int, ...]
    keep_model: bool = False
    prefetch: tuple[int, ...] = ()
    #: Another outer fold of the block labels the left-out fold's documents with this
    #: model: label them while it is at hand (:class:`LeftOut`).
    left_out: bool = False


def unzip(
    plan: Sequence[Labeller],
) -> tuple[list[tuple[tuple[int, ...], tuple[int, ...]]], list[bool], list[tuple[int, ...]]]:
    """A plan as :func:`systems.prediction_cache.out_of_fold` takes it: the (train, test)
    folds, which models to keep, and what each labels for later."""
    return (
        [(lab.train, lab.test) for lab in plan],
        [lab.keep_model for lab in plan],
        [lab.prefetch for lab in plan],
    )


def block_size(outer_folds: int, inner_folds: int) -> int:
    """The largest ``m`` whose block models learn from at least as many documents as the
    inner models of per-fold cross-fitting: ``(K-m)/K >= (K-1)/K * (k-1)/k``."""
    return (outer_folds + inner_folds - 1) // inner_folds


#: Most candidate blocks, and most search steps per size, of the exact covering search.
SEARCH_BLOCKS = 5_000
SEARCH_STEPS = 50_000


@memoize("cross_fitting.blocks", max_entries=64)
def blocks(outer_folds: int, size: int) -> tuple[tuple[int, ...], ...]:
    """Blocks of ``size`` folds out of ``outer_folds`` such that every pair of folds lies
    in at least one block (a covering design), as few as a bounded search finds: a greedy
    design (:func:`_greedy`), then a depth-first search (:func:`_search`) for one block
    fewer at a time, down to the Schoenheim lower bound.  Both are deterministic (the
    search is bounded by steps, never by time).  At (10, 5) that gives 6 blocks, the
    optimum (the greedy design has 7); at (5, 3) 4."""
    size = max(2, min(size, outer_folds))
    best = _greedy(outer_folds, size)
    if comb(outer_folds, size) > SEARCH_BLOCKS:
        return best
    lower = -(-outer_folds * -(-(outer_folds - 1) // (size - 1)) // size)
    for n_blocks in range(lower, len(best)):
        found = _search(outer_folds, size, n_blocks)
        if found is not None:
            return found
    return best


def _greedy(outer_folds: int, size: int) -> tuple[tuple[int, ...], ...]:
    """Each block starts from the first pair not yet covered and grows by the fold that
    covers most uncovered pairs with its members (the lowest on a tie)."""
    uncovered = set(combinations(range(outer_folds), 2))
    out: list[tuple[int, ...]] = []
    while uncovered:
        block = list(min(uncovered))
        while len(block) < size:
            block.append(
                max(
                    (x for x in range(outer_folds) if x not in block),
                    key=lambda x: (sum((min(x, y), max(x, y)) in uncovered for y in block), -x),
                )
            )
        chosen = tuple(sorted(block))
        out.append(chosen)
        uncovered -= set(combinations(chosen, 2))
    return tuple(out)


def _search(outer_folds: int, size: int, n_blocks: int) -> tuple[tuple[int, ...], ...] | None:
    """A covering by ``n_blocks`` blocks, or ``None`` if none is found within
    :data:`SEARCH_STEPS` steps: the first uncovered pair must lie in the next block, tried
    in order of the uncovered pairs each candidate covers."""
    candidates = list(combinations(range(outer_folds), size))
    covers = {b: frozenset(combinations(b, 2)) for b in candidates}
    per_block = size * (size - 1) // 2
    steps = 0

    def extend(
        uncovered: frozenset[tuple[int, int]], chosen: tuple[tuple[int, ...], ...]
    ) -> tuple[tuple[int, ...], ...] | None:
        nonlocal steps
        steps += 1
        if not uncovered:
            return chosen
        left = n_blocks - len(chosen)
        if steps > SEARCH_STEPS or len(uncovered) > left * per_block:
            return None
        a, b = min(uncovered)
        holding = [c for c in candidates if a in c and b in c]
        holding.sort(key=lambda c: -len(covers[c] & uncovered))  # stable: lexicographic
        for block in holding:
            found = extend(uncovered - covers[block], (*chosen, block))
            if found is not None or steps > SEARCH_STEPS:
                return found
        return None

    return extend(frozenset(combinations(range(outer_folds), 2)), ())


def labelling_block(design: Sequence[tuple[int, ...]], outer: int, fold: int) -> int:
    """The block whose model labels the documents of ``fold`` in the outer fold ``outer``:
    the first that holds both (a fold's own extra-training documents: the first that
    holds it)."""
    return next(b for b, block in enumerate(design) if outer in block and fold in block)


def shared_plan(
    documents: Sequence[Document],
    context: FitContext | None,
    group_by: str,
    seed: int = 0,
    inner_folds: int = 2,
) -> list[Labeller] | None:
    """The labellers of the shared cross-fitting for the outer fold that ``documents``
    leave out, or ``None`` when there is nothing to share (see the module docstring).
    Every document is in the ``test`` of exactly one labeller."""
    outer = _left_out(documents, context, group_by)
    if outer is None or context is None:
        return None
    n_outer = len(context.outer_folds)
    size = block_size(n_outer, inner_folds)
    if size < 2:  # no block of two folds leaves as many notes as the per-fold inner models
        return None
    groups = group_labels(documents, group_by)
    fold_of = {g: f for f, fold in enumerate(context.outer_folds) for g in fold}
    design = blocks(n_outer, size)
    extra = [g not in fold_of for g in groups]
    in_fold = [fold_of[g] if g in fold_of else _dealt(g, seed, n_outer) for g in groups]
    labelled_by = [labelling_block(design, outer, f) for f in range(n_outer)]
    plan = []
    for b, block in enumerate(design):
        if outer not in block:
            continue
        train = tuple(i for i, f in enumerate(in_fold) if f not in block)
        test = tuple(i for i, f in enumerate(in_fold) if labelled_by[f] == b)
        if not test:
            continue
        if not train:
            return None  # a block holding every fold: nothing to train on
        later = _later(design, b, outer, in_fold, extra, test)
        left_out = any(labelling_block(design, o, outer) == b for o in block if o != outer)
        plan.append(Labeller(train, test, True, later, left_out))
    return plan


def _left_out(
    documents: Sequence[Document], context: FitContext | None, group_by: str
) -> int | None:
    """The outer fold whose groups are exactly those missing from ``documents``, or
    ``None`` (no cross-validation, too few folds, or training documents that leave out
    anything else)."""
    if context is None or len(context.outer_folds) < MIN_OUTER_FOLDS:
        return None
    present = set(group_labels(documents, group_by))
    absent = {g for fold in context.outer_folds for g in fold if g not in present}
    left_out = [f for f, fold in enumerate(context.outer_folds) if absent == set(fold)]
    if len(left_out) != 1 or not absent:
        return None
    return left_out[0]


@dataclass
class LeftOut:
    """The block models a fit shared with other outer folds that will label the documents
    of the fold this fit leaves out: its test documents, which the fit never sees.  The
    fitted system calls :meth:`label` with the documents it labels, and those of the
    left-out fold are labelled (and remembered, :func:`systems.prediction_cache.remember`)
    by each model while it is still kept, so no later outer fold fits it again.  The notes
    are told by their groups, so a test variant's notes (``--test-variant``), which share
    them, are labelled too: a labelling no fold reads, the price of not refitting."""

    groups: frozenset[str] = frozenset()
    group_by: str = "auto"
    #: (unfitted system, its training documents) of each such block model
    models: list[tuple[System, list[Document]]] = field(default_factory=list)

    def of(self, documents: Sequence[Document]) -> list[Document]:
        """The documents of the left-out fold among ``documents`` (none without models)."""
        if not self.models or not documents:
            return []
        documents = list(documents)
        groups = group_labels(documents, self.group_by)
        return [d for d, g in zip(documents, groups, strict=True) if g in self.groups]

    def label(self, documents: Sequence[Document], also: Sequence[Document] = ()) -> None:
        """Label the documents of the left-out fold among ``documents`` (and ``also``,
        e.g. their transformed copies) with each model still kept."""
        mine = self.of(documents)
        if not mine:
            return
        from infra import stages
        from systems import prediction_cache

        with stages.stage(stages.INNER):
            for system, train in self.models:
                prediction_cache.remember(system, train, [*mine, *also])


def left_out(
    fitted: Iterable[tuple[System, int]],
    documents: Sequence[Document],
    plan: Sequence[Labeller] | None,
    context: FitContext | None,
    group_by: str,
) -> LeftOut:
    """The :class:`LeftOut` of the block models fitted on ``plan`` (from
    :func:`shared_plan` for these ``documents``; empty where nothing is shared):
    ``fitted`` gives each model's system and the index of its labeller in ``plan``."""
    outer = _left_out(documents, context, group_by)
    if plan is None or outer is None or context is None:
        return LeftOut()
    models = [
        (system.clone(), [documents[i] for i in plan[n].train])
        for system, n in fitted
        if plan[n].left_out
    ]
    return LeftOut(frozenset(context.outer_folds[outer]), group_by, models)


def _later(
    design: Sequence[tuple[int, ...]],
    b: int,
    outer: int,
    in_fold: Sequence[int],
    extra: Sequence[bool],
    test: Sequence[int],
) -> tuple[int, ...]:
    """The documents present here that the other outer folds of block ``b`` label with
    its model: those of a fold ``f`` of the block that is a training fold of such an
    outer fold and labelled there by block ``b`` (an extra-training document is in every
    training fold, its own included)."""
    others = [o for o in design[b] if o != outer]
    own = {f for f in design[b] if any(labelling_block(design, o, f) == b for o in others)}
    other = {
        f for f in design[b] if any(labelling_block(design, o, f) == b for o in others if o != f)
    }
    now = set(test)
    return tuple(
        i for i, f in enumerate(in_fold) if i not in now and f in (own if extra[i] else other)
    )


def _dealt(group: str, seed: int, n_outer: int) -> int:
    """The fold of a group in no outer fold: a seeded hash (never Python's ``hash``)."""
    digest = hashlib.blake2b(f"{seed}\0{group}".encode("utf-8", "surrogatepass"), digest_size=4)
    return int.from_bytes(digest.digest(), "big") % n_outer
