"""Cross-fitting shared between outer folds: every decision a meta-learner learns from
comes from a model that saw neither the document nor the outer test fold, and the models
are shared so that a stacked system costs little more than its bases."""

from __future__ import annotations

import pytest

from corpora.folds import kfold
from corpora.model import Document, Span
from corpora.variants import document_variant
from systems.base import FitContext
from systems.cross_fitting import quarters, shared_plan


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


@pytest.mark.parametrize("k", [4, 5, 10])
def test_quarters_cut_each_half_in_two(k: int) -> None:
    q = quarters(k)
    assert sorted(set(q)) == [0, 1, 2, 3]
    assert q == sorted(q)  # contiguous folds
    assert q.count(0) + q.count(1) == k // 2


@pytest.mark.parametrize("k", [4, 5, 10])
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
    """Ten outer folds need six models per base: two halves and four quarters; a quarter
    model labels the same documents in every outer fold that uses it."""
    docs = _docs(80)
    context, tests = _context(docs, 10)
    used: dict[tuple[str, ...], set[tuple[str, ...]]] = {}
    kept: dict[tuple[str, ...], bool] = {}
    for test in tests:
        train = [d for i, d in enumerate(docs) if i not in set(test)]
        for lab in shared_plan(train, context, "auto") or []:
            fit_on = tuple(train[i].id for i in lab.train)
            used.setdefault(fit_on, set()).add(tuple(train[i].id for i in lab.test))
            kept[fit_on] = lab.keep_model
    assert len(used) == 6
    varying = {fit_on for fit_on, tested in used.items() if len(tested) > 1}
    assert len(varying) == 2  # the half models: kept in memory between outer folds
    assert varying == {fit_on for fit_on, keep in kept.items() if keep}


def test_copies_and_extra_notes_go_with_their_group() -> None:
    """Augmented copies sit with the note they were made from; notes in no outer fold
    (extra training) are dealt to quarters and never labelled by a model trained on them."""
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
    three, _ = _context(docs, 3)
    assert shared_plan(train, three, "auto") is None  # too few outer folds to share
