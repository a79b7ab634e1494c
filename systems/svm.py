"""The local-context SVM of Sibanda & Uzuner (2006, §5): Stat De-id.

Each token is classified from its local context alone -- the features of
:mod:`systems.features.statdeid` -- by a support vector machine:

* ``mode="binary"`` (the 2006 paper): PHI vs non-PHI, predicting ``PHI`` / ``O``;
* ``mode="multiclass"`` (Stat De-id, Uzuner et al. 2008; Tafvizi 2011 §4.3): one-vs-rest
  over the harness's categories, predicting a category or ``O``.

Classifier.  ``kernel="linear"`` (the default, as in both papers) is scikit-learn's
:class:`~sklearn.svm.LinearSVC`, i.e. liblinear: Tafvizi (2011, §3.1) found it trains in
seconds what libsvm needed hours for, with near-identical precision and recall.
``kernel="poly"`` (quadratic, ``degree=2``) and ``kernel="rbf"`` (Gaussian) use libsvm
through :class:`~sklearn.svm.SVC`, for the kernel experiment of the Stat De-id
re-implementation report (§5.5, Table 3), which trains on a 50-document subset.

Multiclass formulation.  ``multi_class="ovr"`` (the default) trains one binary SVM per
category against the rest, as liblinear's default solver does.  ``"crammer_singer"`` solves
the single joint problem of Tafvizi (2011, §1.4, eqs. 1.3-1.8; Keerthi et al. 2008's
sequential dual method in liblinear): one weight vector per class, trained together so the
correct class must win by a margin.  Linear kernel only.

Training categories.  ``train_categories`` keeps only some categories as PHI when training
(every other gold label counts as ``O``).  Sibanda & Uzuner (2006, §6, Tables 3, 5, 8, 12)
retrained their SVM on people, locations and organizations only to compare it with SNoW;
such a model declares those categories as the ones it is scored on (:meth:`tags`).

Operating point.  In de-identification a missed PHI token leaks data while a false alarm
only redacts a word, so recall matters more than precision.  Two knobs move the operating
point: ``class_weight`` (default: PHI errors cost ``2x`` -- liblinear's per-class ``C``)
and ``threshold`` on the PHI score of :meth:`FeatureSVM.score_tokens` (default 0, the
SVM's own boundary).  :func:`bench.reproduce.ablation.precision_recall_curve` sweeps the threshold.

Two stages.  ``two_stage=True`` (offered by ``mega``) adds the Illinois tagger's second
stage (Tafvizi 2011, §2.4; proposed for Mega in §7.2.3): a second SVM over the same
features plus :class:`~systems.features.illinois.PredictionContext`'s, the first SVM's
labels of the tokens around each token and of the other occurrences of its word in the
note.  Its training notes get those labels from first-stage SVMs that did not see their
patient, or their group under ``group_by`` (:func:`systems.illinois.out_of_fold_labels`,
:data:`STAGE_FOLDS` folds), the way stacked generalization avoids trusting in-sample
labels; the first stage decides at its own boundary, so the final ``threshold`` moves
decisions over fixed scores.

Featurization.  Every feature class's output for a document is encoded once per process
into int32 ids of the process-wide feature vocabulary
(:data:`systems.features.base.FEATURE_SPACE`, shared with the CRFs and SNoW), so the ten
folds of a cross-validation, the ablations and the Mega SVM reuse it; POS tags and lemmas,
the slow part, can come from disk via :func:`corpora.nlp.warm_cache`.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
import scipy.sparse as sp

from corpora.model import OUTSIDE, PHI, Document
from infra import memo
from infra.memory import trim_heap
from systems.base import (
    FitContext,
    System,
    Tags,
    on_selection_end,
    register,
    selecting,
    split_by_document,
)
from systems.distinct_rows import balanced_weights, collapse_matrix, distinct_rows, unique_labels
from systems.features.base import FEATURE_SPACE, FeatureClass
from systems.features.base import FeatureSpace as FeatureSpace  # re-exported
from systems.features.statdeid import (
    ALL_FEATURES,
    STATDEID_FEATURES,
    WORD_FORM_FEATURES,
    build,
    unavailable_reason,
)
from systems.illinois import jackknife

if TYPE_CHECKING:
    from systems.cross_fitting import LeftOut

log = logging.getLogger(__name__)

KERNELS = ("linear", "poly", "rbf")
#: Multiclass formulations of the linear SVM (liblinear ``-s 1`` and ``-s 4``).
MULTI_CLASS = ("ovr", "crammer_singer")
#: Stopping tolerance: liblinear's own default for its dual solver (``-s 1``).  scikit-learn's
#: 1e-4 is several times slower here for the same predictions; 1e-2 gave the same token
#: accuracy as 1e-1 on a test fold (svm, multiclass svm and mega) at 15 % more time.
LIBLINEAR_TOL = 1e-1
#: Solve the dual (liblinear ``-s 1``, its default L2-loss SVM solver).  scikit-learn's
#: ``dual="auto"`` picks the primal Newton solver (``-s 2``) whenever tokens outnumber
#: features, and on these sparse indicator matrices that solver is pathologically slow for
#: some folds: 39-48 s against 1.0-1.3 s for the dual on half a training fold of the default
#: corpus (multiclass Stat De-id features), 13 s against 8 s for the Mega SVM, with equal
#: token accuracy on the test fold.
LIBLINEAR_DUAL = True
#: Most copies of a training row merged into one weighted row (``merge_rows``).  Dual
#: coordinate descent moves a variable by one step per pass whatever its weight, so a row
#: of weight 1000 needs many passes to reach its share and the solver's loose tolerance
#: (:data:`LIBLINEAR_TOL`) stops it first: merging without a limit changed a model of
#: section headings alone from finding no PHI to finding 74 % of it.  Eight keeps the
#: solution (no such change at 4 to 32) and still merges a note with its augmented copies.
MERGE_LIMIT = 8
MODES = ("binary", "multiclass")
#: ``--tune`` grid of the SVMs (:mod:`bench.training.tuning`).  The weight of PHI errors spans the
#: embedded corpus's default (2, where 13 % of tokens are PHI) to ``"balanced"`` (about 200
#: on ICU notes, where 0.5 % are); the cost spans an order of magnitude around the default.
SEARCH_C = (0.1, 0.5)
SEARCH_CLASS_WEIGHT: tuple[float | str, ...] = (2.0, 10.0, "balanced")
#: Jackknife folds (by patient) that give the second stage its training notes' first-stage
#: labels (``two_stage``): the Illinois tagger's two halves (systems.illinois).
STAGE_FOLDS = 2


def unique_features(features: Sequence[FeatureClass]) -> list[FeatureClass]:
    """``features`` without repeats of the same class and parameters (same :meth:`key`)."""
    seen: dict[str, FeatureClass] = {}
    for f in features:
        seen.setdefault(f.key(), f)
    return list(seen.values())


def project(x: sp.csr_matrix, columns: np.ndarray) -> sp.csr_matrix:
    """Keep the global columns a model was trained on, renumbered ``0..len(columns)-1``
    (float64 values, int32 indices: what liblinear reads without another copy).

    Features never seen in training (and so with weight zero) are dropped, exactly what a
    DictVectorizer fitted on the training fold would do.
    """
    lookup = np.full(max(x.shape[1], int(columns.max(initial=-1)) + 1), -1, dtype=np.int32)
    lookup[columns] = np.arange(len(columns), dtype=np.int32)
    mapped = lookup[x.indices]
    del lookup
    keep = mapped >= 0
    shape = (x.shape[0], len(columns))
    if keep.all():  # the training matrix itself: nothing to drop
        return sp.csr_matrix((x.data.astype(np.float64), mapped, x.indptr.copy()), shape=shape)
    kept = np.zeros(len(keep) + 1, dtype=np.int64)
    np.cumsum(keep, out=kept[1:])
    indptr = kept[x.indptr]
    del kept
    return sp.csr_matrix((x.data[keep].astype(np.float64), mapped[keep], indptr), shape=shape)


#: Test tokens turned into one design matrix at a time when labelling (:meth:`FeatureSVM._decide`):
#: Mega's features are ~50 per token (48 on PhysioNet notes), at ~33 bytes each across the
#: matrix, its column mapping and its float64 projection, so a batch of this size takes
#: under 100 MB whatever the size of the test set.
PREDICT_BATCH_TOKENS = 40_000


def _batches(documents: Sequence[Document]) -> list[list[Document]]:
    """``documents`` in order, in consecutive batches of about :data:`PREDICT_BATCH_TOKENS`
    tokens (a note is never split)."""
    out: list[list[Document]] = []
    batch: list[Document] = []
    size = 0
    for doc in documents:
        batch.append(doc)
        size += len(doc.tokens)
        if size >= PREDICT_BATCH_TOKENS:
            out.append(batch)
            batch, size = [], 0
    if batch:
        out.append(batch)
    return out


def ovr_phi_scores(raw: np.ndarray, classes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(PHI score, best PHI category) per row of one-vs-rest decision values: the best PHI
    category's score minus the ``O`` score, so a score above 0 is exactly "some PHI class
    wins" and a threshold trades recall for precision."""
    n = raw.shape[0]
    if raw.ndim == 1:  # two classes: sklearn returns the score of classes_[1]
        raw = np.column_stack([-raw, raw])
    o = np.flatnonzero(classes == OUTSIDE)
    phi_cols = np.flatnonzero(classes != OUTSIDE)
    if not len(phi_cols):
        return np.full(n, -1.0), np.full(n, OUTSIDE, dtype=object)
    best = phi_cols[np.argmax(raw[:, phi_cols], axis=1)]
    other = raw[:, o[0]] if len(o) else np.zeros(n)
    return raw[np.arange(n), best] - other, classes[best]


@dataclasses.dataclass(frozen=True)
class Design:
    """A training matrix as liblinear gets it: ``x`` (rows merged where ``weights`` says how
    many each stands for), their targets ``y``, every token's target ``y_all`` (for class
    weights), and the global feature ids of ``x``'s columns."""

    x: sp.csr_matrix
    y: np.ndarray
    weights: np.ndarray | None
    y_all: np.ndarray
    columns: np.ndarray


def _weigh_design(key: Any, design: Design) -> int:
    x = design.x
    return x.data.nbytes + x.indices.nbytes + x.indptr.nbytes + 8 * len(design.y_all)


#: Training matrices kept for the next candidate during model selection only.
_DESIGNS: memo.Memo[Any, Design] = memo.Memo("svm.designs", weigh=_weigh_design)
on_selection_end(_DESIGNS.clear)


class FeatureSVM(System):
    """Shared machinery of the feature-class SVMs (``svm`` and ``mega``).

    Subclasses implement :meth:`feature_classes`; this class vectorizes through
    :data:`FEATURE_SPACE`, trains liblinear (or libsvm for non-linear kernels), and turns
    decision values into labels with the recall-oriented threshold.
    """

    mode: str
    kernel: str
    C: float
    class_weight: Any
    threshold: float
    seed: int
    multi_class: str = "ovr"
    train_categories: tuple[str, ...] | None = None
    two_stage: bool = False
    group_by: str = "auto"
    merge_rows: bool = True

    def feature_classes(self) -> list[FeatureClass]:
        raise NotImplementedError

    def check_params(self) -> None:
        if self.mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}, not {self.mode!r}")
        if self.kernel not in KERNELS:
            raise ValueError(f"kernel must be one of {KERNELS}, not {self.kernel!r}")
        if self.multi_class not in MULTI_CLASS:
            raise ValueError(f"multi_class must be one of {MULTI_CLASS}, not {self.multi_class!r}")
        if self.two_stage and self.kernel != "linear":
            raise ValueError("two_stage needs kernel='linear'")
        if self.multi_class != "ovr" and self.kernel != "linear":
            raise ValueError("multi_class='crammer_singer' needs kernel='linear' (liblinear)")
        if self.train_categories is not None:
            from corpora.model import LABELS

            unknown = [c for c in self.train_categories if c not in LABELS]
            if unknown or not self.train_categories:
                raise ValueError(
                    f"train_categories must be a non-empty list of {', '.join(LABELS)}"
                    + (f"; unknown: {', '.join(map(str, unknown))}" if unknown else "")
                )

    def search_space(self) -> dict[str, list[Any]]:
        """``--tune`` grid: the cost ``C`` and the weight of PHI errors (:data:`SEARCH_C`,
        :data:`SEARCH_CLASS_WEIGHT`); the threshold is chosen from scores as well."""
        return {"C": list(SEARCH_C), "class_weight": list(SEARCH_CLASS_WEIGHT)}

    def set_params(self, **params: Any) -> FeatureSVM:
        self.__dict__.pop("_feature_objects", None)  # the feature set may have changed
        super().set_params(**params)
        return self

    # -- vectorizing ---------------------------------------------------------------------
    def _features(self) -> list[FeatureClass]:
        cached = getattr(self, "_feature_objects", None)
        if cached is None:
            cached = unique_features(self.feature_classes())
            if not cached:
                raise ValueError(f"{self.name}: no feature classes enabled")
            self._feature_objects = cached
        return cached

    def transform(self, documents: Sequence[Document]) -> sp.csr_matrix:
        """The fitted model's design matrix for ``documents``."""
        self._label_left_out(documents)
        return self._matrix(documents)

    def _label_left_out(self, documents: Sequence[Document]) -> None:
        """The shared jackknife models that later outer folds ask for these notes label
        them now (systems.illinois.jackknife), while they are at hand (second stage only)."""
        left_out = getattr(self, "left_out_", None)
        if getattr(self, "first_", None) is not None and left_out is not None:
            left_out.label(documents)

    def _matrix(self, documents: Sequence[Document]) -> sp.csr_matrix:
        if self.generation_ != FEATURE_SPACE.generation:
            raise RuntimeError(f"{self.name}: fitted on a feature vocabulary since released")
        x = FEATURE_SPACE.matrix(self._features(), documents, binary=True)
        x = project(x, self.columns_)
        first = getattr(self, "first_", None)
        if first is None:
            return x
        # the first stage was fitted on the same notes and features, so it has the same
        # columns: it labels this very matrix instead of building its own
        return self._with_context(x, documents, first._labels(x, documents)[0], fit=False)

    def _decide(self, documents: Sequence[Document]) -> tuple[np.ndarray, np.ndarray | None]:
        """:meth:`_scores` of ``documents``' tokens, a batch of notes at a time
        (:data:`PREDICT_BATCH_TOKENS`): a test corpus's matrix, its column mapping and its
        float64 projection at once came to several hundred megabytes on top of what the
        fit had left.  Each row's score depends on that row only, so the scores are those
        of one matrix."""
        self._label_left_out(documents)
        parts = [self._scores(self._matrix(batch)) for batch in _batches(documents)]
        if not parts:  # no tokens: liblinear refuses an empty matrix
            return np.empty(0), None if self.mode == "binary" else np.empty(0, dtype=object)
        score = np.concatenate([s for s, _ in parts])
        cats = None if parts[0][1] is None else np.concatenate([c for _, c in parts])
        return score, cats

    def feature_names(self) -> list[str]:
        """Names of the fitted model's columns (the second stage's context features last)."""
        names = [FEATURE_SPACE.names[i] for i in self.columns_]
        if getattr(self, "first_", None) is not None:
            names += [f"stage1:{n}" for n in self.context_.get_feature_names_out()]
        return names

    # -- the Illinois second stage ---------------------------------------------------------
    def _first_stage(self) -> FeatureSVM:
        """The first-stage model: this one without the second stage, at its own boundary
        (threshold 0), so that the final threshold stays a choice over the second stage's
        scores that needs no refit."""
        first = self.clone().set_params(two_stage=False, threshold=0.0)
        assert isinstance(first, FeatureSVM)
        return first

    def _with_context(
        self,
        x: sp.csr_matrix,
        documents: Sequence[Document],
        first_labels: Sequence[Sequence[str]],
        fit: bool,
    ) -> sp.csr_matrix:
        """``x`` with the second-stage columns of ``first_labels`` appended
        (:class:`~systems.features.illinois.PredictionContext`: the first-stage labels around
        each token and of the other occurrences of its word in the note)."""
        from systems.features.illinois import PredictionContext

        context = PredictionContext()
        rows = [
            r
            for d, lab in zip(documents, first_labels, strict=True)
            for r in context.features(d, lab)
        ]
        if fit:
            from sklearn.feature_extraction import DictVectorizer

            self.context_ = DictVectorizer(dtype=np.float64)
            extra = self.context_.fit_transform(rows)
        else:
            extra = self.context_.transform(rows)
        return sp.hstack([x, extra], format="csr")

    # -- training ------------------------------------------------------------------------
    def _targets(self, documents: Sequence[Document]) -> np.ndarray:
        labels = [t.label for d in documents for t in d.tokens]
        if self.train_categories is not None:
            keep = frozenset(self.train_categories)
            labels = [lab if lab in keep else OUTSIDE for lab in labels]
        if self.mode == "binary":
            return np.fromiter((lab != OUTSIDE for lab in labels), dtype=np.int8, count=len(labels))
        return np.asarray(labels, dtype=object)

    def _class_weight(self, y: np.ndarray) -> Any:
        w = self.class_weight
        if w == "balanced":  # on every token, before identical rows are merged
            return balanced_weights(y)
        if w is None or isinstance(w, str):
            return w
        if isinstance(w, Mapping):
            if self.mode == "binary":
                return {1 if k in (1, True, PHI) else 0: v for k, v in w.items()}
            return dict(w)
        weight = float(w)
        if self.mode == "binary":
            return {0: 1.0, 1: weight}
        return {c: (1.0 if c == OUTSIDE else weight) for c in unique_labels(y)[0]}

    def _estimator(self, y: np.ndarray) -> Any:
        from sklearn.svm import SVC, LinearSVC

        cw = self._class_weight(y)
        if self.kernel == "linear":
            return LinearSVC(
                C=self.C,
                class_weight=cw,
                dual=LIBLINEAR_DUAL,
                tol=LIBLINEAR_TOL,
                random_state=self.seed,
                max_iter=5000,
                multi_class=self.multi_class,
            )
        params: dict[str, Any] = {"kernel": self.kernel, "C": self.C, "class_weight": cw}
        if self.kernel == "poly":
            params.update(degree=2, coef0=1.0, gamma="scale")  # report eq. (4): quadratic
        else:
            params.update(gamma="scale")
        return SVC(random_state=self.seed, decision_function_shape="ovr", **params)

    def fit(self, documents: Sequence[Document], context: FitContext | None = None) -> FeatureSVM:
        self.check_params()
        documents = list(documents)
        self.first_: FeatureSVM | None = None
        self.left_out_: LeftOut | None = None
        first_labels: list[list[str]] | None = None
        if self.two_stage:
            # the second stage learns from first-stage labels of its training notes made by
            # models that did not see them (a jackknife by the run's grouping, by patient
            # where known; shared between the outer folds under cross-validation): labels
            # predicted by a model trained on the same notes are nearly perfect, and the
            # second stage would learn to trust them blindly (systems.illinois)
            first_labels, self.left_out_ = jackknife(
                self._first_stage(), documents, STAGE_FOLDS, self.seed, self.group_by, context
            )
            self.first_ = self._first_stage().fit(documents)
        self.generation_ = FEATURE_SPACE.generation
        evicted = FEATURE_SPACE.evictions
        design = self._design(documents, first_labels)
        if FEATURE_SPACE.evictions > evicted and not selecting():
            # the training notes' encodings outgrew their memo, which now holds the last of
            # them only (a next pass over these notes evicts them before reading them): its
            # memory goes back before liblinear copies the training matrix, the fit's peak
            # (not between candidates, which read the memo in the same order again)
            FEATURE_SPACE.forget_encodings()
            trim_heap()
        self.columns_ = design.columns
        classes = unique_labels(design.y_all)[0]
        # class weights from every token; none at all when there is nothing to separate
        estimator = self._estimator(design.y_all) if len(classes) >= 2 else None
        x, y, weights = design.x, design.y, design.weights
        if first_labels is not None:
            x = self._with_context(x, documents, first_labels, fit=True)
            if estimator is not None and self._merges():
                x, y, weights = collapse_matrix(x, y, MERGE_LIMIT)
        if estimator is None:
            # nothing to separate: remember the only class (all O or all PHI)
            self.constant_ = (
                classes[0] if len(classes) else (0 if self.mode == "binary" else OUTSIDE)
            )
            self.model_ = None
            return self
        self.constant_ = None
        self.model_ = estimator.fit(x, y, sample_weight=weights)
        return self

    def _merges(self) -> bool:
        return self.kernel == "linear" and self.merge_rows

    def _design(self, documents: list[Document], first_labels: Any) -> Design:
        """The training matrix of ``documents``: identical rows merged (systems.distinct_rows:
        the same liblinear problem, a quarter fewer rows on the embedded corpus, three in
        four fewer with augmented copies), before the float64 copy, which they keep small.

        It depends on the documents, the features and the targets, not on ``C`` or the
        class weights, so while candidates are selected (:func:`systems.base.model_selection`)
        the last ones are kept for the next candidate."""
        key = (
            tuple(f.key() for f in self._features()),
            self.mode,
            self.train_categories,
            self._merges() and first_labels is None,
            FEATURE_SPACE.generation,
            *(d.fingerprint for d in documents),
        )
        if selecting():
            kept = _DESIGNS.get(key)
            if kept is not None:
                return kept
        features = self._features()
        FEATURE_SPACE.share_extraction(features, documents)
        y_all = self._targets(documents)
        y, weights = y_all, None
        if key[3] and len(unique_labels(y_all)[0]) >= 2:
            blocks = (FEATURE_SPACE.binary_rows(features, d) for d in documents)
            x, y, weights = distinct_rows(blocks, y_all, len(FEATURE_SPACE), MERGE_LIMIT)
        else:
            x = FEATURE_SPACE.matrix(features, documents, binary=True)
        # the columns seen in training, ascending (a bincount is O(n), np.unique sorts)
        columns = np.flatnonzero(np.bincount(x.indices, minlength=x.shape[1]))
        design = Design(project(x, columns), y, weights, y_all, columns)
        if selecting():
            _DESIGNS.put(key, design)
        return design

    # -- prediction ----------------------------------------------------------------------
    def _scores(self, x: sp.csr_matrix) -> tuple[np.ndarray, np.ndarray | None]:
        """(PHI score per token, best PHI category per token or None in binary mode)."""
        n = x.shape[0]
        if self.model_ is None:
            phi = self.constant_ not in (0, OUTSIDE)
            score = np.full(n, 1.0 if phi else -1.0)
            cats = None if self.mode == "binary" else np.full(n, self.constant_, dtype=object)
            return score, cats
        raw = self.model_.decision_function(x)
        if self.mode == "binary":
            return np.asarray(raw, dtype=float), None
        return ovr_phi_scores(raw, self.model_.classes_)

    def tags(self) -> Tags:
        """Binary models predict only ``PHI``/``O``; one-vs-rest models predict categories;
        a model trained on some categories only is scored on those only."""
        scored_on = None if self.train_categories is None else frozenset(self.train_categories)
        return dataclasses.replace(
            super().tags(),
            predicts_categories=self.mode == "multiclass",
            evaluated_labels=scored_on,
            fit_context=self.two_stage,  # the outer folds, to share the jackknife
        )

    def score_tokens(self, documents: Sequence[Document]) -> list[np.ndarray]:
        """Per document, each token's PHI score: above :attr:`threshold` means PHI.

        Binary mode: the SVM's signed distance to the PHI/non-PHI boundary.  Multiclass: the
        best PHI category's one-vs-rest score minus the ``O`` score.  This is what the
        precision-recall curve sweeps.
        """
        score, _ = self._decide(documents)
        return split_by_document(score, documents)

    def _labels(
        self, x: sp.csr_matrix, documents: Sequence[Document]
    ) -> tuple[list[list[str]], np.ndarray]:
        """Per document, the labels of design matrix ``x`` at :attr:`threshold`; and the
        flat scores."""
        return self._decided(self._scores(x), documents)

    def _decided(
        self, scored: tuple[np.ndarray, np.ndarray | None], documents: Sequence[Document]
    ) -> tuple[list[list[str]], np.ndarray]:
        score, cats = scored
        flat = np.where(score > self.threshold, PHI if cats is None else cats, OUTSIDE)
        return [list(map(str, part)) for part in split_by_document(flat, documents)], score

    def predict(self, documents: Sequence[Document]) -> list[list[str]]:
        return self._decided(self._decide(documents), documents)[0]

    def predict_scored(
        self, documents: Sequence[Document]
    ) -> tuple[list[list[str]], list[np.ndarray]]:
        """Labels and scores from one decision pass."""
        labels, score = self._decided(self._decide(documents), documents)
        return labels, split_by_document(score, documents)


@register
class LocalContextSVM(FeatureSVM):
    """Stat De-id: an SVM on local-context features (Sibanda & Uzuner 2006, §5).

    Parameters
    ----------
    mode:
        ``"binary"`` (PHI / non-PHI, the 2006 paper) or ``"multiclass"`` (one-vs-rest over
        the categories, Stat De-id).
    features:
        Names from :data:`systems.features.statdeid.ALL_FEATURES` (``"all"`` adds the
        optional ones); ``None`` is the 2006 paper's set.  An optional class that cannot run
        here (Link Grammar not installed) is left out with a logged reason.
    word_form:
        Add the word-form classes (:data:`systems.features.statdeid.WORD_FORM_FEATURES`:
        word shapes and character n-grams) to ``features``.  Off by default, the paper's
        set; ``--tune`` chooses it inside the training folds (:meth:`search_space`).
    kernel:
        ``"linear"`` (liblinear), ``"poly"`` (quadratic) or ``"rbf"`` (both libsvm).
    C:
        SVM misclassification cost.
    class_weight:
        Weight of PHI errors relative to ``O`` errors (a number), a ``{label: weight}``
        mapping, ``"balanced"`` or ``None``.  The default 2.0 leans towards recall.
    threshold:
        PHI score above which a token is PHI (0 = the SVM boundary; negative = more recall).
    dictionaries:
        Extra dictionary directory for the dictionary features (deid-1.1 layout), or None
        for :func:`corpora.dictionaries.system_dictionaries`' default.
    seed:
        Random state of liblinear's coordinate descent.
    multi_class:
        ``"ovr"`` (one-vs-rest) or ``"crammer_singer"`` (Tafvizi 2011 eqs. 1.3-1.8); only
        matters with ``mode="multiclass"``.
    train_categories:
        Categories kept as PHI in training (others count as ``O``); ``None``: all.  The
        2006 paper's SNoW comparison trains on ``PATIENT, DOCTOR, LOCATION, HOSPITAL``.
    merge_rows:
        Fit identical training rows as one weighted row (:mod:`systems.distinct_rows`;
        linear kernel only): the same problem, solved faster.  ``False`` solves it row by
        row, to check that merging changes nothing.
    """

    relative_cost: ClassVar[float | None] = 1.0  # measured, for scheduling only
    name = "svm"
    description = "Stat De-id: SVM on local context (Sibanda & Uzuner 2006, §5)"
    citation = "Sibanda & Uzuner 2006 §5; Stat De-id report §4"
    departures = (
        "MeSH unavailable: WordNet noun-phrase class + our medical term list instead; "
        "NLTK tagger/WordNet lemmas instead of the original NLP tools; Link Grammar bigrams "
        "opt-in"
    )

    def __init__(
        self,
        mode: str = "binary",
        features: tuple[str, ...] | None = None,
        kernel: str = "linear",
        C: float = 0.5,
        class_weight: float | str | Mapping[Any, float] | None = 2.0,
        threshold: float = 0.0,
        dictionaries: str | None = None,
        seed: int = 0,
        multi_class: str = "ovr",
        train_categories: tuple[str, ...] | None = None,
        word_form: bool = False,
        merge_rows: bool = True,
    ) -> None:
        self.mode = mode
        self.features = features
        self.kernel = kernel
        self.C = C
        self.class_weight = class_weight
        self.threshold = threshold
        self.dictionaries = dictionaries
        self.seed = seed
        self.multi_class = multi_class
        self.train_categories = None if train_categories is None else tuple(train_categories)
        self.word_form = word_form
        self.merge_rows = merge_rows

    def search_space(self) -> dict[str, list[Any]]:
        """``--tune`` grid: :class:`FeatureSVM`'s, and with or without the word-form classes.

        The paper's features describe which word a token is and which words surround it; on
        notes of new patients most names are words the training notes never held, so whether
        word shapes and affixes earn their place is a question for the inner folds.
        """
        return {**super().search_space(), "word_form": [False, True]}

    def feature_classes(self) -> list[FeatureClass]:
        names = list(STATDEID_FEATURES) if self.features is None else list(self.features)
        if self.word_form:
            names = list(dict.fromkeys(names + list(WORD_FORM_FEATURES)))
        if "all" in names:
            names = list(dict.fromkeys([n for n in names if n != "all"] + list(ALL_FEATURES)))
        usable = []
        for n in names:
            reason = unavailable_reason(n)
            if reason is None:
                usable.append(n)
            elif n in ALL_FEATURES:
                log.warning("svm: feature class %r skipped: %s", n, reason)
            else:
                raise ValueError(reason)
        return [f for _, f in build(tuple(usable), dictionaries=self.dictionaries)]
