"""Model selection inside the training folds (``--tune``).

A default, a threshold or a cost chosen on the notes a system is scored on makes the system
look better than it is, and one chosen on another corpus makes it look worse: ``svm``'s
defaults (C = 0.5, PHI errors weighted 2) suit the embedded corpus, where 13 % of tokens
are PHI, not ICU nursing notes, where 0.5 % are.  So :class:`Tuned` chooses each learned
system's hyperparameters where a careful user would: on the training documents of each
outer fold, and nowhere else.

* Each system declares a small grid (:meth:`systems.base.System.search_space`): C and class
  weight for the SVMs, the L2 penalty and SGD epochs for the CRFs, ``min_count`` for
  ``hmm``, the meta-SVM's C for ``multi``.
* The training documents are split into ``inner_folds`` folds grouped like the outer ones
  (whole patients on one side where documents carry a patient key,
  :func:`corpora.folds.document_kfold`).  A candidate is fitted on an inner training part
  and labels (and scores) the held-out part; every candidate gets the first inner fold,
  the best :data:`FINALISTS` all of them (successive halving), so each training token
  gets an out-of-fold decision from every finalist.  Under cross-validation the inner
  parts are the block models of :mod:`systems.cross_fitting` instead, shared between the
  outer folds: each learns from at least as many notes as a model of ``inner_folds``
  folds, and saw neither the notes it labels nor the outer test fold, and a candidate's
  block model is fitted once for all the outer folds of its block.
* A system that scores tokens also gets its decision ``threshold`` chosen, from the pooled
  out-of-fold scores of each candidate -- a free choice, needing no refit.
* With ``--augment`` (``selection_variants``), each inner model also labels the same
  transformed copies of its held-out part that augmentation adds to training (dictionary
  surrogates, random strings no dictionary holds), and the objective pools those tokens
  with the authentic ones.  Augmenting says the system must hold on names unlike the
  training notes'; a threshold chosen on authentic held-out notes alone is chosen for the
  names it memorised (the held-out part shares the training part's clinicians and
  places), and on new names it gives away the recall augmentation bought.  The copies are
  of training documents only.
* A range of copies (``--augment unseen:1-3,surrogate``, ``variant_choices``) makes the
  number of copies one more axis of the grid: each candidate's inner models train on
  their part with that many copies, and all are judged on the same held-out parts and
  the same one copy per variant of them, so the count is chosen like C, on the training
  documents only.
* The candidate (and threshold) with the best objective on those out-of-fold tokens is
  refitted on all the training documents.  :meth:`Tuned.fit` is only ever given the
  training documents, so the test fold never reaches selection.

Objectives (binary PHI vs non-PHI, token level, every token,
:func:`bench.run.run_types.check_objective`): ``f2`` (the default: a missed PHI leaks, a false
alarm only redacts a word), ``f1``, and ``precision@recall=R`` such as ``0.95`` (the best
precision of any threshold reaching recall R, the requirement a hospital states;
candidates that reach it rank above all that do not, which rank by recall), and
``recall@precision=P`` the other way round (the most recall of any threshold keeping
precision P; those that keep it rank above all that do not, which rank by precision).

Cost.  Inner fits go through :mod:`systems.prediction_cache`, so a repeated run reads them;
the SVMs' features are encoded once per process (:data:`systems.svm.FEATURE_SPACE`), so a
candidate costs a liblinear fit; ``multi``'s candidates share their bases' fits through the
same cache.  Selection is successive halving (:meth:`Tuned._select`): every candidate is
fitted on the first inner fold, and only the best :data:`FINALISTS` on the others, so a grid
of six costs eight half-size fits rather than twelve.  Under cross-validation the block
models are shared between outer folds (above), which at five outer folds fits each
candidate at most four times on 40 % of the notes instead of up to ten times.
"""

from __future__ import annotations

import dataclasses
import itertools
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from bench.run.run_types import (
    DEFAULT_INNER_FOLDS,
    DEFAULT_OBJECTIVE,
    PRECISION_OBJECTIVE,
    RECALL_OBJECTIVE,
    check_objective,
)
from bench.score.metrics import fbeta_from_counts, gold_phi, precision_recall_points
from bench.training.augment import augmented_copy
from corpora.folds import document_kfold
from corpora.model import OUTSIDE, Document
from corpora.variants import DOCUMENT_VARIANTS
from infra import stages
from systems import prediction_cache
from systems.base import FitContext, System, Tags, Wrapper, fit_with_context, model_selection
from systems.cross_fitting import SHARED, LeftOut, left_out, shared_plan, unzip

#: Candidates that go on from the first inner fold to the others (successive halving).
FINALISTS = 2
#: The parameter tuned from out-of-fold scores rather than by refitting.
THRESHOLD = "threshold"
#: The parameter of :class:`systems.augment.Augmented` that ``variant_choices`` sets.
VARIANTS = "variants"


@dataclass(frozen=True)
class Objective:
    """What selection maximizes, over binary PHI decisions of tokens."""

    name: str
    beta: float | None = None
    recall_level: float | None = None
    precision_level: float | None = None

    @classmethod
    def parse(cls, name: str) -> Objective:
        check_objective(name)
        if name.startswith(RECALL_OBJECTIVE):
            return cls(name, recall_level=float(name[len(RECALL_OBJECTIVE) :]))
        if name.startswith(PRECISION_OBJECTIVE):
            return cls(name, precision_level=float(name[len(PRECISION_OBJECTIVE) :]))
        return cls(name, beta=float(name[1:]))

    def _value(self, precision: np.ndarray, recall: np.ndarray, positives: int) -> np.ndarray:
        if self.beta is not None:
            tp = recall * positives
            fp = np.divide(tp, precision, out=np.zeros_like(tp), where=precision > 0) - tp
            return np.asarray(fbeta_from_counts(tp, fp, positives - tp, self.beta))
        if self.precision_level is not None:
            # recall@precision=p: holding p ranks above not holding it (values 1 + R vs P)
            return np.where(precision >= self.precision_level - 1e-12, 1.0 + recall, precision)
        # precision@recall=r: reaching r ranks above not reaching it (values 1 + P vs R)
        return np.where(recall >= self.recall_level - 1e-12, 1.0 + precision, recall)

    def of_labels(self, gold: np.ndarray, predicted: np.ndarray) -> Point:
        """The objective of fixed decisions (a system that does not score tokens)."""
        tp = int(np.sum(gold & predicted))
        positives = int(gold.sum())
        found = int(predicted.sum())
        precision = tp / found if found else 0.0
        recall = tp / positives if positives else 0.0
        value = self._value(np.array([precision]), np.array([recall]), positives)[0]
        return Point(float(value), None, precision, recall)

    def best_threshold(self, gold: np.ndarray, scores: np.ndarray) -> Point:
        """The best value over every threshold of ``scores``, with that threshold (``None``
        when the tokens hold no PHI: nothing to choose it by).  Among equal values the
        highest threshold (fewest tokens redacted) wins."""
        positives = int(np.sum(gold))
        if positives == 0 or len(scores) == 0:
            return Point(0.0, None, 0.0, 0.0)
        precision, recall, thresholds = precision_recall_points(gold, scores)
        values = self._value(precision, recall, positives)
        best = int(np.argmax(values))
        return Point(
            float(values[best]),
            float(thresholds[best]),
            float(precision[best]),
            float(recall[best]),
        )


@dataclass(frozen=True)
class Point:
    """A candidate's objective value on the out-of-fold tokens, the threshold that gives it
    (``None``: the system's own decisions), and precision and recall there."""

    value: float
    threshold: float | None
    precision: float
    recall: float


def accepts(system: System, parameter: str) -> bool:
    """Whether ``system`` (or the system a wrapper holds) has ``parameter``."""
    while True:
        if parameter in system._param_names():
            return True
        if not isinstance(system, Wrapper):
            return False
        system = system.system


def candidates(space: dict[str, list[Any]]) -> list[dict[str, Any]]:
    """Every combination of the grid, parameters in sorted order, values in the order the
    system lists them (so the first candidate is the first values of each)."""
    names = sorted(k for k in space if k != THRESHOLD)
    return [
        dict(zip(names, values, strict=True))
        for values in itertools.product(*(space[n] for n in names))
    ]


class Tuned(Wrapper):
    """``system`` with its hyperparameters and threshold chosen by inner grouped
    cross-validation on the training documents (see the module docstring).

    Parameters
    ----------
    system:
        The system to tune (unfitted; it is cloned for every fit).
    objective:
        One of :data:`bench.run.run_types.OBJECTIVES`.
    group_by:
        How inner folds group documents (the run's ``--group-by``).
    seed:
        Seed of the inner folds.
    inner_folds:
        Folds of the inner cross-validation.
    selection_variants:
        Names from :data:`corpora.variants.DOCUMENT_VARIANTS`: the held-out part of every
        inner fold is also labelled in these transformed forms, and the objective pools
        their tokens with the authentic ones (the run sets this to its ``--augment``).
    variant_choices:
        Augmentations to choose between (``--augment unseen:1-3,surrogate``): each a
        tuple of variants, one entry per copy, set as the ``variants`` of the
        :class:`systems.augment.Augmented` wrapper inside, one more axis of the grid.  How
        many copies teach a model the context rather than the names is a choice like C,
        so it is made on the inner folds, never on the notes scored.
    """

    def __init__(
        self,
        system: System,
        objective: str = DEFAULT_OBJECTIVE,
        group_by: str = "auto",
        seed: int = 0,
        inner_folds: int = DEFAULT_INNER_FOLDS,
        selection_variants: tuple[str, ...] = (),
        variant_choices: tuple[tuple[str, ...], ...] = (),
    ) -> None:
        self.system = system
        self.objective = objective
        self.group_by = group_by
        self.seed = seed
        self.inner_folds = inner_folds
        self.selection_variants = tuple(selection_variants)
        self.variant_choices = tuple(tuple(c) for c in variant_choices)

    def check_params(self) -> None:
        Objective.parse(self.objective)
        if self.inner_folds < 2:
            raise ValueError("tuning needs inner_folds >= 2")
        bad = [v for v in self.selection_variants if v not in DOCUMENT_VARIANTS]
        if bad:
            raise ValueError(
                f"selection variants must be some of {', '.join(DOCUMENT_VARIANTS)}, "
                f"not {', '.join(bad)}"
            )
        if self.variant_choices and not accepts(self.system, VARIANTS):
            raise ValueError(
                f"{self.system.name}: augmentations to choose between, but no augmentation "
                "to set them on"
            )
        super().check_params()

    def search_space(self) -> dict[str, list[Any]]:
        """The wrapped system's grid and, with :attr:`variant_choices`, the augmentation."""
        space = dict(self.system.search_space())
        if len(self.variant_choices) > 1:
            space[VARIANTS] = list(self.variant_choices)
        return space

    def fit(self, documents: Sequence[Document], context: FitContext | None = None) -> Tuned:
        self.check_params()
        documents = list(documents)
        objective = Objective.parse(self.objective)
        start = time.perf_counter()
        grid = candidates(self.search_space()) or [{}]
        scored = self.system.tags().scores_tokens and accepts(self.system, THRESHOLD)
        folds, prefetch = self._inner_folds(documents, context)
        self.left_out_ = LeftOut()
        if len(grid) == 1 and not scored:
            folds = []  # one candidate and no threshold: nothing to choose
        with stages.stage(stages.INNER), model_selection():
            trials = (
                self._select(grid, documents, folds, objective, scored, context, prefetch)
                if folds
                else []
            )
        chosen = dict(grid[0])
        best: Point | None = None
        if trials:
            params, best = max(trials, key=lambda t: t[1].value)  # the first of equals
            chosen = dict(params)
            if best.threshold is not None:
                chosen[THRESHOLD] = best.threshold
        final = self.system.clone().set_params(**chosen)
        selection = time.perf_counter() - start
        fit_with_context(final, documents, context)
        self.fitted_ = final
        self.selection_ = {
            "chosen": chosen,
            "inner_score": None if best is None else best.value,
            "inner_precision": None if best is None else best.precision,
            "inner_recall": None if best is None else best.recall,
            "objective": self.objective,
            "inner_folds": len(folds),
            "inner_scheme": self.inner_scheme_,
            "selected_on": ["authentic", *self.selection_variants],
            "candidates": len(grid) if trials else 0,
            "finalists": len(trials),
            "selection_seconds": round(selection, 3),
        }
        return self

    def tags(self) -> Tags:
        """The tuned system's tags, and the outer folds wanted (:class:`FitContext`) to
        share the inner fits between them."""
        return dataclasses.replace(self.system.tags(), fit_context=True)

    def _inner_folds(
        self, documents: list[Document], context: FitContext | None
    ) -> tuple[list[tuple[list[int], list[int]]], list[tuple[int, ...]]]:
        """The inner (train, held-out) parts, and what each part's models will label for
        other outer folds.  Under cross-validation, the block models of
        :mod:`systems.cross_fitting`, shared between the outer folds: each learns from
        at least as many documents as a model of ``inner_folds`` folds would, and saw
        neither the documents it labels nor the outer test fold.  Elsewhere
        ``inner_folds`` folds of these documents."""
        plan = shared_plan(documents, context, self.group_by, self.seed, self.inner_folds)
        self.plan_ = plan
        if plan is not None:
            self.inner_scheme_ = SHARED
            folds, _, prefetch = unzip(plan)  # every block model is kept (``later`` given)
            return [(list(train), list(test)) for train, test in folds], prefetch
        self.inner_scheme_ = f"{self.inner_folds} inner folds"
        # fewer documents (or groups) than inner folds is an error, never "nothing selected"
        # reported as a selection (the run refuses it while planning, bench.run.plan)
        folds = document_kfold(documents, self.inner_folds, self.seed, self.group_by)
        return folds, []

    def _select(
        self,
        grid: list[dict[str, Any]],
        documents: list[Document],
        folds: list[tuple[list[int], list[int]]],
        objective: Objective,
        scored: bool,
        context: FitContext | None = None,
        prefetch: Sequence[Sequence[int]] = (),
    ) -> list[tuple[dict[str, Any], Point]]:
        """The finalists with their objective over every inner fold, by successive halving
        (``prefetch``: per fold, what a shared block model labels for other outer folds).

        Every candidate is first fitted on the first inner fold only and judged on its
        held-out part; the best :data:`FINALISTS` then get the remaining folds, and the
        choice (with the threshold) is made on all the out-of-fold tokens.  A grid of n
        candidates costs n + FINALISTS (k - 1) fits instead of n k, and the candidates
        that lose on half the training tokens are rarely the ones that win on all of them.

        A system that makes its candidates' out-of-fold predictions its own cheaper way
        (:meth:`systems.base.System.selection_predictions`) is judged on those, every
        candidate on every fold.
        """
        own = None
        if not self.selection_variants:
            own = self.system.selection_predictions(documents, grid, folds, context)
        if own is not None:
            held = [gold_phi([documents[i] for i in test]) for _, test in folds]
            return [
                (grid[c], _point(objective, list(zip(held, own[c], strict=True)), scored))
                for c in range(len(grid))
            ]
        done: dict[tuple[int, int], list[Judged]] = {}

        def judged(candidate: int, fold: int) -> list[Judged]:
            if (candidate, fold) not in done:
                later = prefetch[fold] if fold < len(prefetch) else None
                done[candidate, fold] = self._fold(grid[candidate], documents, folds[fold], later)
            return done[candidate, fold]

        finalists = list(range(len(grid)))
        if len(grid) > FINALISTS:
            for i in _by_training_set(grid):  # fitted in this order, ranked in grid order
                judged(i, 0)
            first = [_point(objective, judged(i, 0), scored).value for i in finalists]
            ranked = sorted(finalists, key=lambda i: -first[i])  # stable: grid order on ties
            finalists = sorted(ranked[:FINALISTS])
        trials = [
            (
                grid[i],
                _point(objective, [j for f in range(len(folds)) for j in judged(i, f)], scored),
            )
            for i in finalists
        ]
        # the block models fitted here label this fit's test notes for later outer folds
        fitted = [(self.system.clone().set_params(**grid[c]), f) for c, f in done]
        self.left_out_ = left_out(fitted, documents, self.plan_, context, self.group_by)
        return trials

    def _fold(
        self,
        params: dict[str, Any],
        documents: list[Document],
        fold: tuple[list[int], list[int]],
        later: Sequence[int] | None = None,
    ) -> list[Judged]:
        """One candidate fitted on an inner fold's training part, labelling (and scoring)
        the held-out part -- and its transformed copies, with ``selection_variants``.  A
        shared block model (``later`` given) is kept, and labels at once what it will
        label for the other outer folds of its block."""
        train, held = fold
        held_docs = [documents[i] for i in held]
        tests = [held_docs] + [self._copies(v, held_docs) for v in self.selection_variants]
        prefetch: list[Document] = []
        if later is not None:
            later_docs = [documents[i] for i in later]
            prefetch = later_docs + [
                d for v in self.selection_variants for d in self._copies(v, later_docs)
            ]
        candidate = self.system.clone().set_params(**params)
        got = prediction_cache.fit_predict_many(
            candidate,
            [documents[i] for i in train],
            [(None, t) for t in tests],
            keep_model=later is not None,
            prefetch=prefetch,
        )
        return [(gold_phi(t), p) for t, p in zip(tests, got, strict=True)]

    def _labelling(self, documents: Sequence[Document]) -> System:
        """The chosen model, once the candidates' shared block models have labelled the
        test notes among ``documents`` (and their selection copies) for the later outer
        folds of their blocks (:class:`systems.cross_fitting.LeftOut`)."""
        pending = getattr(self, "left_out_", None)
        if pending is not None:
            mine = pending.of(documents)
            if mine:
                copies = [d for v in self.selection_variants for d in self._copies(v, mine)]
                pending.label(mine, copies)
        return self._fitted()

    def predict(self, documents: Sequence[Document]) -> list[list[str]]:
        return self._labelling(documents).predict(documents)

    def score_tokens(self, documents: Sequence[Document]) -> list[np.ndarray]:
        return self._labelling(documents).score_tokens(documents)

    def predict_scored(
        self, documents: Sequence[Document]
    ) -> tuple[list[list[str]], list[np.ndarray] | None]:
        return self._labelling(documents).predict_scored(documents)

    def _copies(self, variant: str, docs: Sequence[Document]) -> list[Document]:
        return [augmented_copy(variant, d, self.seed) for d in docs]

    def fitted_info(self) -> dict[str, Any]:
        """What selection chose (``chosen``, with the threshold), its out-of-fold objective
        value (``inner_score``), and the refitted system's own information."""
        info = dict(getattr(self, "selection_", {}))
        inner = super().fitted_info()
        if inner:
            info["system"] = inner
        return info


def _by_training_set(grid: Sequence[dict[str, Any]]) -> list[int]:
    """The candidates' indices with those that train on the same documents together (the
    same augmentation), each group where its first candidate is.

    Why: candidates that differ only in C or class weight share one training matrix
    (:mod:`systems.svm`'s designs memo, which holds about one), but the grid varies the
    augmentation fastest, so in grid order each candidate built its matrix afresh.  The
    first candidate of each group comes in the grid's order of first appearance, so the
    documents are met, and given feature ids, in the same order as in grid order: the
    same matrices, the same fits."""
    groups: dict[str, list[int]] = {}
    for i, params in enumerate(grid):
        groups.setdefault(repr(params.get(VARIANTS)), []).append(i)
    return [i for members in groups.values() for i in members]


def _phi_labels(labels: Sequence[Sequence[str]]) -> np.ndarray:
    """Whether each predicted label is PHI, in order."""
    return np.fromiter((lab != OUTSIDE for doc in labels for lab in doc), dtype=bool)


#: Gold PHI flags of a set of held-out tokens, and what a candidate made of them.
Judged = tuple[np.ndarray, prediction_cache.Prediction]


def _point(objective: Objective, judged: Sequence[Judged], scored: bool) -> Point:
    """The objective over the pooled tokens of ``judged``: at the best threshold of the
    scores when the system scores tokens, else of its own decisions."""
    truth = np.concatenate([gold for gold, _ in judged])
    if scored and all(p.scores is not None for _, p in judged):
        scores = np.concatenate([s for _, p in judged for s in p.scores or ()])
        return objective.best_threshold(truth, scores)
    decisions = np.concatenate([_phi_labels(p.labels) for _, p in judged])
    return objective.of_labels(truth, decisions)
