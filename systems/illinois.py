"""Illinois-style two-stage tagging, generic over the base learner (Ratinov & Roth 2009;
Tafvizi 2011, §2.4 and §7.2.3).

A first learner labels every token from the ordinary features; a second learner sees the
same features *plus* the first learner's labels of the neighbouring tokens and of the
other occurrences of the same word in the note
(:class:`~systems.features.illinois.PredictionContext`).  Tafvizi expected this to
"significantly improve recall" (§7.2.3): a name the first pass found once in a note
becomes evidence wherever the same word appears again.

Train/test mismatch is the trap: first-stage labels of the *training* documents predicted
by a model trained on those same documents are nearly perfect, so the second learner would
learn to trust them blindly.  :func:`out_of_fold_labels` therefore produces them by a
jackknife over the training documents (``inner_folds`` folds by patient, or by the run's
``--group-by``, a note's augmented copies always with it; each predicted by a model trained
on the others), the way stacked generalization does it.

The machinery only needs a *learner*: anything with

    fit(documents, rows, labels) -> learner
    predict(documents, rows) -> list[list[str]]

where ``rows[d][i]`` is the feature dict of token ``i`` of document ``d`` and labels are the
category labels (``O``, ``PATIENT``, ...); a learner that also has
``predict_scored(documents, rows, ...)`` can be scored through
:meth:`TwoStage.predict_scored`.  :class:`systems.crf.CrfLearner` is both; an SVM
adopts the option by wrapping its vectorizer + classifier in the same two methods and
passing a factory to :class:`TwoStage` (see its docstring).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import chain
from typing import TYPE_CHECKING, Any, Protocol

from corpora.folds import document_kfold, max_folds
from systems.features.illinois import PredictionContext

if TYPE_CHECKING:
    from corpora.model import Document
    from systems.base import FitContext, System
    from systems.cross_fitting import LeftOut
    from systems.features.base import TokenFeatures

Rows = Sequence[Sequence["TokenFeatures"]]


class Learner(Protocol):
    """A token labeller over precomputed feature rows (one list of dicts per document)."""

    def fit(
        self, documents: Sequence[Document], rows: Rows, labels: Sequence[Sequence[str]]
    ) -> Any: ...

    def predict(self, documents: Sequence[Document], rows: Rows) -> list[list[str]]: ...


LearnerFactory = Callable[[], Learner]


def out_of_fold_labels(
    make_learner: LearnerFactory,
    documents: Sequence[Document],
    rows: Rows,
    labels: Sequence[Sequence[str]],
    n_folds: int = 2,
    seed: int = 0,
    group_by: str = "auto",
) -> list[list[str]]:
    """First-stage labels of the training documents, each predicted by a learner that did
    not see it (jackknife over :func:`corpora.folds.document_kfold`: folds depend only on
    ``seed``, and each group of ``group_by`` -- by default a patient's notes -- stays in one
    fold, with the training copies of a note, so a name learned from one of their notes is
    not "found" in the next).  With fewer than ``n_folds`` documents (groups) there are as
    many folds as there are; with a single one there is nothing to hold out, so the
    documents are labelled in-sample (documented optimism, not an error)."""
    k = max_folds(documents, n_folds, group_by)
    if k < 2:
        learner = make_learner()
        learner.fit(documents, rows, labels)
        return learner.predict(documents, rows)
    out: list[list[str] | None] = [None] * len(documents)
    for train, held in document_kfold(documents, k, seed, group_by):
        learner = make_learner()
        learner.fit(
            [documents[i] for i in train], [rows[i] for i in train], [labels[i] for i in train]
        )
        predicted = learner.predict([documents[i] for i in held], [rows[i] for i in held])
        for i, p in zip(held, predicted, strict=True):
            out[i] = p
    return [p for p in out if p is not None]


def jackknife(
    first_stage: System,
    documents: Sequence[Document],
    n_folds: int = 2,
    seed: int = 0,
    group_by: str = "auto",
    context: FitContext | None = None,
) -> tuple[list[list[str]], LeftOut]:
    """:func:`out_of_fold_labels` for a first stage that is a system of its own (the same
    system without its second stage), through :mod:`systems.prediction_cache`; and the
    jackknife models that later outer folds ask to label this fit's test documents.

    Under cross-validation (``context``) the jackknife models are shared between the outer
    folds (:mod:`systems.cross_fitting`): none of them saw the note it labels or the outer
    test fold, whose labels would otherwise reach the second stage through its features.
    The second-stage system labels its test documents with the models that later outer
    folds ask for them (:class:`systems.cross_fitting.LeftOut`), so none is fitted twice.
    Elsewhere the folds are :func:`out_of_fold_labels`' own, with the same models."""
    from systems import prediction_cache
    from systems.cross_fitting import LeftOut, left_out, shared_plan, unzip

    documents = list(documents)
    labellers = shared_plan(documents, context, group_by, seed, n_folds)
    if labellers is not None:
        labels = prediction_cache.out_of_fold(first_stage, documents, *unzip(labellers)).labels
        fitted = [(first_stage, n) for n in range(len(labellers))]
        return labels, left_out(fitted, documents, labellers, context, group_by)
    k = max_folds(documents, n_folds, group_by)
    if k < 2:  # nothing to hold out: labelled in-sample (documented optimism)
        return prediction_cache.fit_predict(first_stage, documents, documents).labels, LeftOut()
    folds = document_kfold(documents, k, seed, group_by)
    return prediction_cache.out_of_fold(first_stage, documents, folds).labels, LeftOut()


def augment_rows(
    documents: Sequence[Document],
    rows: Rows,
    first_labels: Sequence[Sequence[str]],
    context: PredictionContext,
) -> list[list[Any]]:
    """``rows`` with the second-stage features of ``first_labels`` merged in: new feature
    dicts, or new lists of feature names where the rows are lists of names (each name
    once, in the order dicts would keep); the first-stage rows are never mutated."""
    out: list[list[Any]] = []
    for doc, doc_rows, doc_labels in zip(documents, rows, first_labels, strict=True):
        extra = context.features(doc, doc_labels)
        if doc_rows and not isinstance(doc_rows[0], dict):
            out.append(_merged_names(doc_rows, extra))
        else:
            out.append([{**r, **e} for r, e in zip(doc_rows, extra, strict=True)])
    return out


def _merged_names(rows: Sequence[Sequence[str]], extra: Sequence[TokenFeatures]) -> list[list[str]]:
    """Each token's names, then its second-stage names it does not already have.  The
    second stage's names (``p-1=O``, ``occ_any=DOCTOR``) are rarely among the first
    stage's, so that is checked once per document, and per token only where they are."""
    added: set[str] = set().union(*extra)
    if added.isdisjoint(chain.from_iterable(rows)):
        return [[*names, *e] for names, e in zip(rows, extra, strict=True)]
    out = []
    for names, e in zip(rows, extra, strict=True):
        seen = set(names)
        out.append([*names, *(n for n in e if n not in seen)])
    return out


class TwoStage:
    """Two learners chained through :class:`PredictionContext` features; itself a learner.

    ``fit`` trains the first learner on all training documents, produces out-of-fold
    first-stage labels for them (:func:`out_of_fold_labels`), and trains the second
    learner on the augmented rows.  ``predict`` labels with the first learner, augments,
    and labels again with the second.

    For an SVM system::

        class SvmLearner:                       # fit/predict over rows, as above
            def fit(self, documents, rows, labels): ...
            def predict(self, documents, rows): ...

        learner = TwoStage(SvmLearner, inner_folds=2) if two_stage else SvmLearner()
        learner.fit(train_docs, combine(features, train_docs), gold_labels(train_docs))
        labels = learner.predict(test_docs, combine(features, test_docs))
    """

    def __init__(
        self,
        make_learner: LearnerFactory,
        context: PredictionContext | None = None,
        inner_folds: int = 2,
        seed: int = 0,
        group_by: str = "auto",
        first_rows: Callable[[Sequence[Document]], Rows] | None = None,
    ) -> None:
        self.make_learner = make_learner
        self.context = context if context is not None else PredictionContext()
        self.inner_folds = inner_folds
        self.seed = seed
        self.group_by = group_by
        #: The first learner's input for documents, where it differs from the rows the
        #: second stage extends (a CRF's item sequences, converted once per document).
        self.first_rows = first_rows
        self.first: Learner | None = None
        self.second: Learner | None = None

    def _first_input(self, documents: Sequence[Document], rows: Rows) -> Rows:
        return rows if self.first_rows is None else self.first_rows(documents)

    def fit(
        self,
        documents: Sequence[Document],
        rows: Rows,
        labels: Sequence[Sequence[str]],
        first_labels: Sequence[Sequence[str]] | None = None,
        first: Learner | None = None,
    ) -> TwoStage:
        """Fit both stages; ``first_labels`` are the training documents' out-of-fold
        first-stage labels where the caller made them (:func:`jackknife`), else
        they are made here (:func:`out_of_fold_labels`); ``first`` is the first learner
        already fitted on these documents and labels where the caller has it."""
        first_rows = self._first_input(documents, rows)
        if first is None:
            first = self.make_learner()
            first.fit(documents, first_rows, labels)
        if first_labels is None:
            first_labels = out_of_fold_labels(
                self.make_learner,
                documents,
                first_rows,
                labels,
                self.inner_folds,
                self.seed,
                self.group_by,
            )
        second = self.make_learner()
        second.fit(documents, augment_rows(documents, rows, first_labels, self.context), labels)
        self.first, self.second = first, second
        return self

    def first_stage(self, documents: Sequence[Document], rows: Rows) -> list[list[str]]:
        """The first learner's labels (for ablations: "what did stage two add?")."""
        if self.first is None:
            raise RuntimeError("TwoStage.predict called before fit")
        return self.first.predict(documents, self._first_input(documents, rows))

    def predict(self, documents: Sequence[Document], rows: Rows) -> list[list[str]]:
        if self.second is None:
            raise RuntimeError("TwoStage.predict called before fit")
        first = self.first_stage(documents, rows)
        return self.second.predict(documents, augment_rows(documents, rows, first, self.context))

    def predict_scored(self, documents: Sequence[Document], rows: Rows, **options: Any) -> Any:
        """The second learner's ``predict_scored`` (labels and token scores, e.g.
        :meth:`systems.crf.CrfLearner.predict_scored`, given ``options``) over rows
        augmented with the first learner's *labels*: the second stage was trained on
        first-stage labels, so those stay hard decisions and only the final pass is
        scored."""
        if self.second is None:
            raise RuntimeError("TwoStage.predict called before fit")
        scorer = getattr(self.second, "predict_scored", None)
        if scorer is None:
            raise TypeError(f"{type(self.second).__name__} has no predict_scored")
        first = self.first_stage(documents, rows)
        return scorer(documents, augment_rows(documents, rows, first, self.context), **options)
