"""``crf``: a Stanford-NER-style linear-chain CRF (Finkel et al. 2005; Tafvizi 2011, §2.2).

Also the CRF machinery the ``mist`` system (:mod:`systems.mist`) reuses: BIO encoding of
the label set, sequences, and :class:`CrfLearner`, the learner interface of
:mod:`systems.illinois` over `sklearn-crfsuite`_ (CRFsuite: by default the L2-regularized
likelihood trained by stochastic gradient descent, see :data:`DEFAULT_ALGORITHM`).

Substitutes for the original: Stanford NER's own CRF (L2-regularized, quasi-Newton) is
replaced by CRFsuite, and its Gibbs-sampling long-distance model (Finkel et al. 2005) is
not reproduced -- the nearest analogue here is the Illinois two-stage option
(``two_stage=True``, :mod:`systems.illinois`), which is how the Multi-deidentifier builds
its Illinois base system.

**Sequences.** Training and tagging run over *sentences* (runs of equal
:attr:`~corpora.model.Token.sentence`), as Stanford NER tags sentence by sentence.  The
feature windows already stop at sentence ends, so whole-note sequences would add only
label transitions across line breaks while making each Viterbi pass and each gradient
step handle ~300-token chains; ``sequence="document"`` is kept for comparing the two.

**Labels.** Tokens are tagged ``B-CAT``/``I-CAT``/``O`` (a new ``B`` wherever a gold span
starts, so two adjacent names stay two entities); :meth:`System.predict` strips the prefix
back to one category per token, as the token interface wants.

**Scores.** A CRF is a conditional distribution over label sequences, so the marginal
``P(y_i = O | sentence)`` (forward-backward, computed by CRFsuite) says how sure the model
is that token ``i`` is not PHI; :meth:`CrfSystem.score_tokens` gives ``1 - P(O)``.  The
Viterbi path and the per-token marginals can disagree (the best sequence need not be made
of the best tokens); ``threshold=None`` keeps Viterbi labels, a number ``t`` labels a token
PHI when its score exceeds ``t``: the precision-for-recall trade Tafvizi (2011, §7.2.1)
recommends profiling, since in de-identification recall matters more than precision.

.. _sklearn-crfsuite: https://sklearn-crfsuite.readthedocs.io
"""

from __future__ import annotations

import contextlib
import dataclasses
import numbers
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from corpora.model import OUTSIDE, Document
from infra import memo, stages
from systems.base import ITEM_SEQUENCES_MEMO, FitContext, System, Tags, register
from systems.features.base import (
    FEATURE_SPACE,
    FeatureClass,
    TokenFeatures,
    combine,
    token_names,
)
from systems.features.illinois import ILLINOIS_FEATURES, PredictionContext
from systems.features.stanford import STANFORD_FEATURES
from systems.illinois import Rows, TwoStage, jackknife

if TYPE_CHECKING:
    from sklearn_crfsuite import CRF

    from systems.cross_fitting import LeftOut

SEQUENCE_MODES = ("sentence", "document")
#: CRFsuite training algorithms offered: ``"l2sgd"`` (the L2-regularized CRF likelihood by
#: stochastic gradient descent), ``"lbfgs"`` (the same with elastic-net penalties by
#: quasi-Newton, as Stanford NER optimizes) and ``"ap"`` (the averaged perceptron).
ALGORITHMS = ("l2sgd", "lbfgs", "ap")
#: Default learner: SGD, 10 epochs, ``c2 = 0.01``.  On folds 0 and 3 of the authentic and
#: unseen default corpora it matched 30 L-BFGS iterations for ``crf`` (F 0.983-0.986 both)
#: and beat them for ``mist`` (0.978-0.988 against 0.961-0.975, L-BFGS being far from
#: converged there) in 60 % of the time; L-BFGS at 20 iterations lost 2 points.  Those were
#: single-fold spot checks; the whole-corpus comparison is a run with the L-BFGS learner,
#: ``python -m bench run --systems crf,mist --param crf.algorithm=lbfgs --param
#: crf.max_iterations=30 --param crf.c2=0.1 --param mist.algorithm=lbfgs --param
#: mist.max_iterations=30 --param mist.c2=0.1``, against ``reports/example``.
DEFAULT_ALGORITHM = "l2sgd"
DEFAULT_EPOCHS = 10
#: ``--tune`` grid of the SGD epochs (and the perceptron's).
SEARCH_EPOCHS = (DEFAULT_EPOCHS // 2, DEFAULT_EPOCHS)
DEFAULT_C2 = 0.01


def bio_tags(document: Document) -> list[str]:
    """Gold BIO tags of ``document.tokens`` (``B-`` where a gold span starts)."""
    spans = document.spans
    tags: list[str] = []
    span_i = 0
    previous_span = -1
    for tok in document.tokens:
        if tok.label == OUTSIDE:
            tags.append(OUTSIDE)
            previous_span = -1
            continue
        while span_i < len(spans) and spans[span_i].end <= tok.start:
            span_i += 1
        current = span_i if span_i < len(spans) and spans[span_i].start < tok.end else -2
        if tags and tags[-1] != OUTSIDE and tags[-1][2:] == tok.label and current == previous_span:
            tags.append("I-" + tok.label)
        else:
            tags.append("B-" + tok.label)
        previous_span = current
    return tags


def to_bio(labels: Sequence[str]) -> list[str]:
    """BIO tags for a plain label sequence (a run of one category is one entity)."""
    tags: list[str] = []
    prev = OUTSIDE
    for lab in labels:
        if lab == OUTSIDE:
            tags.append(OUTSIDE)
        else:
            tags.append(("I-" if lab == prev else "B-") + lab)
        prev = lab
    return tags


def from_bio(tags: Sequence[str]) -> list[str]:
    """Category labels from BIO tags (``B-DATE`` and ``I-DATE`` both become ``DATE``)."""
    return [t[2:] if t[:2] in ("B-", "I-") else t for t in tags]


def sequence_bounds(document: Document, mode: str = "sentence") -> list[tuple[int, int]]:
    """``(start, end)`` token ranges of the CRF sequences of ``document``."""
    n = len(document.tokens)
    if mode == "document":
        return [(0, n)] if n else []
    if mode != "sentence":
        raise ValueError(f"sequence must be one of {SEQUENCE_MODES}, not {mode!r}")
    bounds: list[tuple[int, int]] = []
    start = 0
    toks = document.tokens
    for i in range(1, n):
        if toks[i].sentence != toks[i - 1].sentence:
            bounds.append((start, i))
            start = i
    if n:
        bounds.append((start, n))
    return bounds


def seed_crfsuite(seed: int) -> None:
    """Seed the C library's ``rand()``, which CRFsuite's SGD and perceptron use to shuffle
    the training sequences and which nothing else seeds: without this a model depends on
    what the process trained before (two identical fits in one process differed), so
    results would change with the run's scheduling.  A platform without a C ``srand`` is
    left alone."""
    import ctypes

    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None).srand(ctypes.c_uint(seed))


@dataclass(frozen=True)
class EncodedRows:
    """One document's feature rows already turned into CRFsuite item sequences, one per CRF
    sequence (``bounds``): the conversion a learner otherwise repeats on every fit."""

    sequence: str
    bounds: tuple[tuple[int, int], ...]
    items: tuple[Any, ...]
    #: Estimated bytes of ``items`` (CRFsuite keeps each attribute as a string and a weight).
    nbytes: int = field(default=0, compare=False)


#: Bytes CRFsuite holds per attribute of an item (a C++ string and a double) and per item.
ATTRIBUTE_BYTES = 48
ITEM_BYTES = 32
#: Encoded documents, by (fingerprint, feature classes, sequence mode): bounded by
#: :data:`infra.memo.BUDGETS` (``crf.encoded``) and released with their documents.
_ENCODED: memo.Memo[tuple[str, tuple[str, ...], str], EncodedRows] = memo.Memo(
    ITEM_SEQUENCES_MEMO, weigh=lambda key, rows: rows.nbytes, document=lambda key: key[0]
)


def encoded_rows(
    features: Sequence[FeatureClass], documents: Sequence[Document], sequence: str
) -> list[EncodedRows]:
    """:class:`EncodedRows` of ``documents``, converted once per process.

    Across the ten folds of a cross-validation each document is in nine training sets;
    merging its feature classes' dicts and converting them for CRFsuite was ~2 s of every
    ~14 s ``crf`` fit on the default corpus.
    """
    import pycrfsuite

    names = tuple(f.key() for f in features)
    FEATURE_SPACE.share_extraction(
        features, [d for d in documents if (d.fingerprint, names, sequence) not in _ENCODED]
    )
    out = []
    for doc in documents:
        key = (doc.fingerprint, names, sequence)
        hit = _ENCODED.get(key)
        if hit is None:
            with stages.stage(stages.FEATURIZE):
                rows = token_names(features, [doc])  # every feature an indicator (weight 1.0)
                bounds = tuple(sequence_bounds(doc, sequence))
                items = tuple(pycrfsuite.ItemSequence(rows[s:e]) for s, e in bounds)
                size = ATTRIBUTE_BYTES * sum(map(len, rows)) + ITEM_BYTES * len(rows)
                hit = _ENCODED.put(key, EncodedRows(sequence, bounds, items, size))
        out.append(hit)
    return out


class CrfLearner:
    """A CRFsuite chain over feature rows: the :class:`systems.illinois.Learner` of CRFs.

    ``labels`` passed to :meth:`fit` may be category labels (converted with
    :func:`to_bio`) or, when ``gold_bio`` is used by the systems, exact BIO tags.
    """

    def __init__(
        self,
        *,
        c1: float = 0.1,
        c2: float = DEFAULT_C2,
        max_iterations: int = DEFAULT_EPOCHS,
        sequence: str = "sentence",
        all_possible_transitions: bool = True,
        algorithm: str = DEFAULT_ALGORITHM,
        seed: int = 0,
    ) -> None:
        self.seed = seed
        self.algorithm = algorithm
        self.c1 = c1
        self.c2 = c2
        self.max_iterations = max_iterations
        self.sequence = sequence
        self.all_possible_transitions = all_possible_transitions
        self.model: CRF | None = None

    def _sequences(
        self, documents: Sequence[Document], rows: Rows
    ) -> tuple[list[Sequence[TokenFeatures]], list[list[tuple[int, int]]]]:
        xs: list[Sequence[TokenFeatures]] = []
        bounds = []
        for doc, doc_rows in zip(documents, rows, strict=True):
            if isinstance(doc_rows, EncodedRows) and doc_rows.sequence == self.sequence:
                bounds.append(list(doc_rows.bounds))
                xs.extend(doc_rows.items)
                continue
            b = sequence_bounds(doc, self.sequence)
            bounds.append(b)
            xs.extend(doc_rows[s:e] for s, e in b)
        return xs, bounds

    def fit(
        self, documents: Sequence[Document], rows: Rows, labels: Sequence[Sequence[str]]
    ) -> CrfLearner:
        from sklearn_crfsuite import CRF

        if self.algorithm not in ALGORITHMS:
            raise ValueError(f"algorithm must be one of {ALGORITHMS}, not {self.algorithm!r}")
        xs, bounds = self._sequences(documents, rows)
        ys: list[list[str]] = []
        for doc_labels, b in zip(labels, bounds, strict=True):
            tags = list(doc_labels)
            if not any(t[:2] in ("B-", "I-") for t in tags):
                tags = to_bio(tags)
            ys.extend(tags[s:e] for s, e in b)
        penalties: dict[str, float] = {}
        if self.algorithm == "lbfgs":
            penalties = {"c1": self.c1, "c2": self.c2}
        elif self.algorithm == "l2sgd":
            penalties = {"c2": self.c2}
        model = CRF(
            algorithm=self.algorithm,
            max_iterations=self.max_iterations,
            **penalties,
            all_possible_transitions=self.all_possible_transitions,
        )
        seed_crfsuite(self.seed)
        model.fit(xs, ys)
        self.model = model
        return self

    def predict(self, documents: Sequence[Document], rows: Rows) -> list[list[str]]:
        if self.model is None:
            raise RuntimeError("CrfLearner.predict called before fit")
        tagger = self.model.tagger_
        out: list[list[str]] = []
        xs, _ = self._sequences(documents, rows)
        labels = [tag for x in xs for tag in tagger.tag(x)]
        pos = 0
        for doc in documents:
            n = len(doc.tokens)
            out.append(from_bio(labels[pos : pos + n]))
            pos += n
        return out

    def predict_scored(
        self, documents: Sequence[Document], rows: Rows, threshold: float | None = None
    ) -> tuple[list[list[str]], list[np.ndarray]]:
        """Category labels and per-token ``1 - P(O | sequence)`` from one pass over the
        sequences (each is ``Tagger.set`` once; CRFsuite then runs forward-backward once and
        answers every ``marginal`` call from it).

        ``threshold=None``: the Viterbi labels, exactly those of :meth:`predict`.  A number:
        tokens scoring above it take the category whose ``B-`` plus ``I-`` marginals are
        highest, the others ``O``; a model that never saw ``O`` scores every token 1.

        Only ``P(O)`` is read for every token (one ``marginal`` call), the other labels'
        marginals only where a category is needed: reading all of them through
        ``Tagger.marginal`` (or sklearn-crfsuite's ``predict_marginals``, which makes the
        same calls and builds a dict per token) cost 5-6x a Viterbi ``predict`` of 100
        embedded notes (36,000 tokens, features cached), reading ``P(O)`` alone 1.5x.
        """
        if self.model is None:
            raise RuntimeError("CrfLearner.predict_scored called before fit")
        tagger = self.model.tagger_
        tags = list(tagger.labels())
        has_outside = OUTSIDE in tags
        phi_tags = [t for t in tags if t != OUTSIDE]
        categories = sorted(set(from_bio(phi_tags)))
        # (PHI tags, categories) one-hot: B-X and I-X both add to X's marginal
        to_category = np.zeros((len(phi_tags), len(categories)))
        for j, c in enumerate(from_bio(phi_tags)):
            to_category[j, categories.index(c)] = 1.0
        marginal = tagger.marginal
        xs, _ = self._sequences(documents, rows)
        labels: list[str] = []
        scores: list[np.ndarray] = []
        for x in xs:
            tagger.set(x)
            m = len(x)
            if has_outside:
                p_o = np.fromiter((marginal(OUTSIDE, t) for t in range(m)), float, count=m)
            else:
                p_o = np.zeros(m)
            score = np.clip(1.0 - p_o, 0.0, 1.0)
            scores.append(score)
            if threshold is None:
                labels.extend(from_bio(tagger.tag()))
                continue
            seq_labels = [OUTSIDE] * m
            if categories:
                for t in np.flatnonzero(score > threshold).tolist():
                    p = np.fromiter((marginal(y, t) for y in phi_tags), float, len(phi_tags))
                    seq_labels[t] = categories[int((p @ to_category).argmax())]
            labels.extend(seq_labels)
        flat = np.concatenate(scores) if scores else np.zeros(0)
        out_labels: list[list[str]] = []
        out_scores: list[np.ndarray] = []
        pos = 0
        for doc in documents:
            n = len(doc.tokens)
            out_labels.append(labels[pos : pos + n])
            out_scores.append(flat[pos : pos + n])
            pos += n
        return out_labels, out_scores


class CrfSystem(System):
    """Shared body of the CRF systems: features -> (two-stage) :class:`CrfLearner`.

    Subclasses say which feature classes they use (:meth:`feature_classes`).  Parameters
    (keyword-only, like every CRF constructor here): ``c1``/``c2`` the L1/L2 penalties
    (``c1`` for L-BFGS only) and ``max_iterations`` the epochs (SGD, perceptron) or
    iterations (L-BFGS) of CRFsuite; ``sequence`` ``"sentence"`` or ``"document"``;
    ``dictionaries`` an extra word-list directory for systems with dictionary features;
    ``two_stage`` the Illinois second pass with ``inner_folds`` jackknife folds shuffled by
    ``seed`` and grouped as ``group_by`` says (the runner passes the run's ``--group-by``);
    ``algorithm`` ``"l2sgd"`` (the default), ``"lbfgs"`` or ``"ap"`` (CRFsuite's averaged
    perceptron over the same chain and features, ``max_iterations`` epochs; ``c1``/``c2``
    are then unused) -- the learner of the Illinois tagger, which Ratinov & Roth (2009)
    train as a regularized averaged perceptron; ``threshold`` ``None`` for Viterbi labels,
    or a number: PHI where :meth:`score_tokens` exceeds it (see the module docstring).
    """

    requires_training: ClassVar[bool] = True
    predicts_categories: ClassVar[bool] = True

    def __init__(
        self,
        *,
        c1: float = 0.1,
        c2: float = DEFAULT_C2,
        max_iterations: int = DEFAULT_EPOCHS,
        sequence: str = "sentence",
        dictionaries: str | None = None,
        two_stage: bool = False,
        inner_folds: int = 2,
        seed: int = 0,
        algorithm: str = DEFAULT_ALGORITHM,
        threshold: float | None = None,
        group_by: str = "auto",
    ) -> None:
        self.c1 = c1
        self.c2 = c2
        self.max_iterations = max_iterations
        self.sequence = sequence
        self.dictionaries = dictionaries
        self.two_stage = two_stage
        self.inner_folds = inner_folds
        self.seed = seed
        self.algorithm = algorithm
        self.threshold = threshold
        self.group_by = group_by

    def check_params(self) -> None:
        if self.sequence not in SEQUENCE_MODES:
            raise ValueError(f"sequence must be one of {SEQUENCE_MODES}, not {self.sequence!r}")
        if self.algorithm not in ALGORITHMS:
            raise ValueError(f"algorithm must be one of {ALGORITHMS}, not {self.algorithm!r}")
        if self.threshold is not None and (
            isinstance(self.threshold, bool) or not isinstance(self.threshold, numbers.Real)
        ):
            raise ValueError(f"threshold must be a number or None, not {self.threshold!r}")

    def search_space(self) -> dict[str, list[Any]]:
        """The L2 penalty, a decade either side of :data:`DEFAULT_C2`, and the SGD epochs,
        :data:`DEFAULT_EPOCHS` or half as many (:data:`SEARCH_EPOCHS`); the threshold is
        chosen by the tuner from out-of-fold scores.

        The penalty's best value depends on the amount of training data, which differs
        between corpora.  Stopping SGD early is the other regularizer: on the embedded
        ``authentic`` corpus (first 300 notes, 3 folds of 200 / 100 notes) 5, 10 and 20
        epochs gave ``crf`` token PHI F1 0.961, 0.963, 0.962 and ``mist`` 0.967, 0.970,
        0.971, and on the 390 notes of PhysioNet's tuning patients, trained on the other 1,170
        (``--train-corpus evaluation:physionet:DIR --corpora tuning:physionet:DIR``),
        ``crf`` with c2 = 0.1 found 60.2, 57.5 and 56.8 % of the PHI after 5, 10 and 30
        epochs -- so the grid reaches down, not up, which also keeps it cheap.  With
        ``algorithm="ap"`` the penalties are unused and only the epochs are searched.
        """
        if self.algorithm == "ap":
            return {"max_iterations": list(SEARCH_EPOCHS)}
        return {"c2": [0.001, 0.01, 0.1], "max_iterations": list(SEARCH_EPOCHS)}

    def feature_classes(self) -> tuple[FeatureClass, ...]:
        raise NotImplementedError

    def features(self, documents: Sequence[Document]) -> list[list[TokenFeatures]]:
        """Per-token feature rows of ``documents`` (cached per document and class)."""
        return combine(self.feature_classes(), documents)

    def _make_learner(self) -> CrfLearner:
        return CrfLearner(
            c1=self.c1,
            c2=self.c2,
            max_iterations=self.max_iterations,
            sequence=self.sequence,
            algorithm=self.algorithm,
            seed=self.seed,
        )

    def _learner(self) -> Any:
        if self.sequence not in SEQUENCE_MODES:
            raise ValueError(f"sequence must be one of {SEQUENCE_MODES}, not {self.sequence!r}")
        if self.two_stage:
            return TwoStage(
                self._make_learner,
                PredictionContext(),
                self.inner_folds,
                seed=self.seed,
                group_by=self.group_by,
                first_rows=self._encoded,
            )
        return self._make_learner()

    def _encoded(self, documents: Sequence[Document]) -> Rows:
        """Feature rows converted for CRFsuite once per document (:func:`encoded_rows`)."""
        return encoded_rows(self.feature_classes(), documents, self.sequence)

    def _rows(self, documents: Sequence[Document]) -> Rows:
        """Learner input: converted once per document (:func:`encoded_rows`), except for
        the two-stage learner, whose second stage adds feature names to each token's
        (its first stage reads the converted rows, :meth:`_encoded`)."""
        if self.sequence not in SEQUENCE_MODES:
            return self.features(documents)
        if self.two_stage:
            return [token_names(self.feature_classes(), [d]) for d in documents]
        return self._encoded(documents)

    def tags(self) -> Tags:
        """A two-stage CRF uses the run's outer folds (:class:`systems.base.FitContext`)
        to share its jackknife between them; every CRF reads item sequences; a fitted
        CRF is CRFsuite's model (attribute names and weights), usable in any process."""
        return dataclasses.replace(
            super().tags(), fit_context=self.two_stage, item_sequences=True, portable_model=True
        )

    def _first_stage(self) -> CrfSystem:
        """The first stage as a system of its own: this CRF without the second stage,
        labelling by Viterbi (what the second stage's features are made of)."""
        first = self.clone().set_params(two_stage=False, threshold=None)
        assert isinstance(first, CrfSystem)
        return first

    def _fitted(self) -> Any:
        learner = getattr(self, "learner_", None)
        if learner is None:
            raise RuntimeError(f"{type(self).__name__}.predict called before fit")
        return learner

    def fit(self, documents: Sequence[Document], context: FitContext | None = None) -> CrfSystem:
        documents = list(documents)
        learner = self._learner()
        tags = [bio_tags(d) for d in documents]
        self.left_out_: LeftOut | None = None
        if self.two_stage:
            from systems import prediction_cache

            first_stage = self._first_stage()
            first_labels, self.left_out_ = jackknife(
                first_stage,
                documents,
                self.inner_folds,
                self.seed,
                self.group_by,
                context,
            )
            # the first stage on these notes may be kept already, as a jackknife block model
            first = prediction_cache.fitted(first_stage, documents)
            assert isinstance(first, CrfSystem)
            learner.fit(
                documents,
                self._rows(documents),
                tags,
                first_labels=first_labels,
                first=first._fitted(),
            )
        else:
            learner.fit(documents, self._rows(documents), tags)
        self.learner_ = learner
        return self

    def _label_left_out(self, documents: list[Document]) -> None:
        """A two-stage CRF's shared jackknife models label its test documents for later
        outer folds (:func:`systems.illinois.jackknife`)."""
        left_out = getattr(self, "left_out_", None)
        if left_out is not None:
            left_out.label(documents)

    def predict(self, documents: Sequence[Document]) -> list[list[str]]:
        learner = self._fitted()
        if self.threshold is not None:
            return self.predict_scored(documents)[0]
        documents = list(documents)
        self._label_left_out(documents)
        return learner.predict(documents, self._rows(documents))

    def _scored(self, documents: Sequence[Document]) -> tuple[list[list[str]], list[np.ndarray]]:
        """Labels and scores of the (second-stage, for ``two_stage``) CRF: the first stage
        still labels by Viterbi, since its labels are the second stage's features and were
        trained as such (:meth:`systems.illinois.TwoStage.predict_scored`)."""
        learner = self._fitted()
        documents = list(documents)
        self._label_left_out(documents)
        labels: list[list[str]]
        scores: list[np.ndarray]
        labels, scores = learner.predict_scored(
            documents, self._rows(documents), threshold=self.threshold
        )
        return labels, scores

    def score_tokens(self, documents: Sequence[Document]) -> list[np.ndarray]:
        """Per document, each token's ``1 - P(O | sentence)`` from CRFsuite's marginals.

        With ``algorithm="ap"`` CRFsuite reads the perceptron's weights as log-potentials,
        which they were never scaled to be: the marginals are nearly all 0 or 1 (0.2 % of
        the tokens of 100 embedded notes strictly between 0.01 and 0.99 for the Illinois
        configuration, 7 % for ``crf``), so such scores give a coarse precision-recall
        curve and little room for a tuned threshold."""
        return self._scored(documents)[1]

    def predict_scored(
        self, documents: Sequence[Document]
    ) -> tuple[list[list[str]], list[np.ndarray]]:
        """Labels and scores from one tagging pass: Viterbi labels when ``threshold`` is
        ``None`` (identical to :meth:`predict`), else the thresholded marginals."""
        return self._scored(documents)


@register
class StanfordCrf(CrfSystem):
    """Stanford-NER-style CRF: word, neighbours, character n-grams, POS, word shapes and
    the ±4 bag of words (Tafvizi 2011, §2.2; :data:`STANFORD_FEATURES`).

    ``feature_set="illinois"`` swaps in the Illinois first-stage features (Tafvizi §2.4);
    with ``two_stage=True`` that is the harness's LBJNET analogue.
    """

    relative_cost: ClassVar[float | None] = 10.0  # measured, for scheduling only
    name = "crf"
    description = (
        "Stanford-NER-style CRF (Finkel et al. 2005; Tafvizi 2011 §2.2), sklearn-crfsuite; "
        "two_stage=True adds the Illinois second pass"
    )
    citation = "Finkel et al. 2005; Tafvizi 2011 §2.2, §2.4"
    departures = (
        "CRFsuite (L2-regularized, SGD 10 epochs; Stanford optimizes by quasi-Newton) "
        "instead of Stanford's CRF; no Gibbs-sampling "
        "long-distance model"
    )

    def __init__(
        self,
        *,
        c1: float = 0.1,
        c2: float = DEFAULT_C2,
        max_iterations: int = DEFAULT_EPOCHS,
        sequence: str = "sentence",
        two_stage: bool = False,
        inner_folds: int = 2,
        seed: int = 0,
        feature_set: str = "stanford",
        algorithm: str = DEFAULT_ALGORITHM,
        threshold: float | None = None,
        group_by: str = "auto",
    ) -> None:
        super().__init__(
            c1=c1,
            c2=c2,
            max_iterations=max_iterations,
            sequence=sequence,
            two_stage=two_stage,
            inner_folds=inner_folds,
            seed=seed,
            algorithm=algorithm,
            threshold=threshold,
            group_by=group_by,
        )
        self.feature_set = feature_set

    def feature_classes(self) -> tuple[FeatureClass, ...]:
        if self.feature_set == "stanford":
            return STANFORD_FEATURES
        if self.feature_set == "illinois":
            return ILLINOIS_FEATURES
        raise ValueError(f"feature_set must be 'stanford' or 'illinois', not {self.feature_set!r}")
