"""Cross-fitting shared between outer folds: every decision a meta-learner learns from
comes from a model that saw neither the document nor the outer test fold, and the models
are shared so that a stacked system costs little more than its bases."""

from __future__ import annotations

from itertools import combinations

import pytest

from corpora.folds import kfold
from corpora.model import Document, Span
from corpora.variants import document_variant
from systems.base import FitContext
from systems.cross_fitting import _greedy, block_size, blocks, labelling_block, shared_plan


def _docs(n: int, prefix: str = "d", per_patient: int = 2) -> list[Document]:
    docs = []
    for i in range(n):
        text = f"Mr. Lee{i} seen on {i % 12 + 1}/3 for pain."
        s = text.index("Lee")
        docs.append(
            Document(
                f"{prefix}{i}",
                text,
                (Span(s, s + len(f"Lee{i}"), "PATIENT"),),
                metadata={"patient": f"{prefix}p{i // per_patient}"},
            )
        )
    return docs


def _context(docs: list[Document], k: int) -> tuple[FitContext, list[list[int]]]:
    groups = [d.metadata["patient"] for d in docs]
    folds = kfold(len(docs), k, 0, groups)
    context = FitContext(tuple(tuple(sorted({groups[i] for i in t})) for _, t in folds))
    return context, [t for _, t in folds]


@pytest.mark.parametrize("k", [3, 4, 5, 6, 10, 12])
def test_every_pair_of_outer_folds_lies_in_a_block(k: int) -> None:
    m = block_size(k, 2)
    design = blocks(k, m)
    assert all(len(b) == m for b in design)
    covered = {p for b in design for p in combinations(b, 2)}
    assert covered == set(combinations(range(k), 2))
    for outer in range(k):
        for fold in range(k):
            assert {outer, fold} <= set(design[labelling_block(design, outer, fold)])


@pytest.mark.parametrize(("k", "inner"), [(5, 2), (10, 2), (10, 3), (7, 2)])
def test_block_models_learn_from_no_fewer_notes_than_per_fold_inner_models(
    k: int, inner: int
) -> None:
    """The meta-learner's decisions come from models at least as strong as per-fold
    cross-fitting's: each block model leaves out ``m`` of ``K`` folds, a per-fold inner
    model ``1 + (K - 1) / k`` of them; and the design costs fewer fits' worth of training."""
    m = block_size(k, inner)
    assert (k - m) / k >= (k - 1) / k * (inner - 1) / inner
    assert block_size(k, inner) + 1 > (k + inner - 1) / inner  # the largest such m
    per_fold = k * inner * (k - 1) / k * (inner - 1) / inner
    assert len(blocks(k, m)) * (k - m) / k < per_fold


def test_ten_outer_folds_need_six_block_models() -> None:
    """Six blocks of five is the fewest that cover every pair of ten folds (the
    Schoenheim bound); the greedy design alone needs seven."""
    assert blocks(10, block_size(10, 2)) == (
        (0, 1, 2, 3, 4),
        (0, 5, 6, 7, 8),
        (0, 1, 2, 5, 9),
        (1, 2, 6, 7, 8),
        (3, 4, 5, 6, 9),
        (3, 4, 7, 8, 9),
    )
    assert len(_greedy(10, 5)) == 7


@pytest.mark.parametrize("k", [3, 4, 5, 10])
def test_no_labeller_saw_the_document_it_labels_or_the_outer_test_fold(k: int) -> None:
    docs = _docs(60)
    context, tests = _context(docs, k)
    for test in tests:
        left_out = {docs[i].metadata["patient"] for i in test}
        train = [d for i, d in enumerate(docs) if i not in set(test)]
        plan = shared_plan(train, context, "auto")
        assert plan is not None
        labelled = sorted(i for lab in plan for i in lab.test)
        assert labelled == list(range(len(train)))  # every training document, once
        for lab in plan:
            seen = {train[i].metadata["patient"] for i in lab.train}
            judged = {train[i].metadata["patient"] for i in lab.test}
            assert seen.isdisjoint(judged) and seen.isdisjoint(left_out)
            assert lab.train


def test_models_are_shared_between_outer_folds() -> None:
    """Ten outer folds need six models per base, one per block, each trained on the same
    documents in every outer fold of its block; what a model labels for the other outer
    folds of its block is labelled when it is first fitted (``prefetch``), except the
    documents of the fold it is fitted in, which it cannot see there."""
    docs = _docs(80)
    context, tests = _context(docs, 10)
    uses: dict[tuple[str, ...], list[tuple[set[str], set[str], set[str]]]] = {}
    for test in tests:
        train = [d for i, d in enumerate(docs) if i not in set(test)]
        for lab in shared_plan(train, context, "auto") or []:
            assert lab.keep_model
            assert not set(lab.test) & set(lab.prefetch)
            fit_on = tuple(train[i].id for i in lab.train)
            uses.setdefault(fit_on, []).append(
                (
                    {d.id for d in train},
                    {train[i].id for i in lab.test},
                    {train[i].id for i in lab.prefetch},
                )
            )
    assert len(uses) == 6
    for used in uses.values():
        assert len(used) > 1  # shared by the outer folds of its block
        for k, (present, now, later) in enumerate(used):
            others = set().union(*(t for j, (_, t, _) in enumerate(used) if j != k))
            assert later == (others - now) & present


def test_copies_and_extra_notes_go_with_their_group() -> None:
    """Augmented copies sit with the note they were made from; notes in no outer fold
    (extra training) are dealt to folds and never labelled by a model trained on them."""
    docs = _docs(40)
    extra = _docs(10, prefix="x")
    context, tests = _context(docs, 5)
    test = set(tests[2])
    train = [d for i, d in enumerate(docs) if i not in test] + extra
    train += [document_variant("unseen", d, 0) for d in train]
    plan = shared_plan(train, context, "auto")
    assert plan is not None
    for lab in plan:
        seen = {train[i].metadata["patient"] for i in lab.train}
        judged = {train[i].metadata["patient"] for i in lab.test}
        assert seen.isdisjoint(judged)


def test_nothing_to_share_falls_back_to_the_callers_own_folds() -> None:
    docs = _docs(40)
    context, tests = _context(docs, 5)
    train = [d for i, d in enumerate(docs) if i not in set(tests[0])]
    assert shared_plan(train, None, "auto") is None  # no outer folds known
    assert shared_plan(docs, context, "auto") is None  # nothing left out
    half = train[: len(train) // 2]  # a learning curve's fraction, a tuner's inner part
    assert shared_plan(half, context, "auto") is None
    two, folds = _context(docs, 2)
    kept = [d for i, d in enumerate(docs) if i not in set(folds[0])]
    assert shared_plan(kept, two, "auto") is None  # too few outer folds to share
