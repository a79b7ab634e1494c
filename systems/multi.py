"""``multi`` -- the stacked Multi-deidentifier (Tafvizi 2011, §1.2 Hypothesis 4, Fig. 1-2).

The Multi-deidentifier trains an SVM on the *decisions* of several base de-identifiers
(by default Stat De-id, Stanford NER, MIST, the Illinois tagger and the MIMIC rules), so it
learns, for each PHI class, which base systems to trust.  Tafvizi reports that it beat the
Mega SVM on the authentic i2b2 corpus (§6.1.4, Table B.8).

Faithfulness notes:

* The original (by K. Burford) wrapped the real tools; here the base systems are any
  registered systems -- by default this harness's re-implementations (:data:`DEFAULT_BASES`),
  and external tools are legitimate bases too (``bases="mimic,deidpl,philter,svm"``).  The
  Illinois base is ``crf`` with the Illinois first-stage features (Tafvizi §2.4), the
  two-stage prediction context and the averaged perceptron, LBJNET's own learner (Ratinov &
  Roth 2009); Tafvizi's summary calls it a CRF.
* **Stacking by inner cross-fitting.**  The meta-classifier must learn from decisions that
  look like test-time decisions, so every training document is labelled by a base model
  that saw neither it nor the outer test fold, and the bases that label the test documents
  are trained on *all* the training documents -- exactly what every other system in the
  comparison trains on, so Mega vs Multi (Tafvizi Hypothesis 4) is a fair contest.  Under
  cross-validation the inner models are shared between the outer folds
  (:mod:`systems.cross_fitting`: six models per base on half the notes at ten folds, each
  learning from at least as many notes as a model of two inner folds would); elsewhere,
  and with ``cross_fitting="per-fold"``, the training documents are split into
  ``inner_folds`` folds (whole patients on one side where documents carry a patient key,
  :mod:`corpora.folds`), each labelled by bases trained on the others.  Rule systems need
  no training and are simply applied.
* Base decisions go through :mod:`systems.prediction_cache`: a base trained on the whole
  training fold is the same computation as that system's own cell in the run (``crf`` and
  ``mist`` with their default parameters), so the two share one fit.
* The meta features per token are one-hot base decisions (``crf=DOCTOR``), the number of
  base systems voting PHI, and the same decisions for the neighbouring tokens -- so a
  class-specific weight says how far each system is trusted for that class.
"""

from __future__ import annotations

import contextlib
import dataclasses
import time
import warnings
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, ClassVar

import numpy as np
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning
from sklearn.feature_extraction import DictVectorizer
from sklearn.svm import LinearSVC

from corpora.folds import document_kfold
from corpora.model import OUTSIDE, Document
from infra import stages
from systems import prediction_cache
from systems.augment import Augmented, parse_augment
from systems.base import (
    SYSTEMS,
    FitContext,
    System,
    Tags,
    fit_with_context,
    register,
    register_preset,
    split_by_document,
)
from systems.cross_fitting import SHARED, left_out, shared_plan, unzip
from systems.distinct_rows import balanced_weights, collapse_rows
from systems.features.base import FEATURE_SPACE
from systems.features.statdeid import ALL_FEATURES, build
from systems.mega import MEGA_WITH_DATES
from systems.svm import ovr_phi_scores

#: Averaged-perceptron epochs of the Illinois base (fold-0 check on the default corpus,
#: half the training fold: F 0.983 at 5 and 10 epochs, 0.986 at 20, against 0.977 for the
#: L-BFGS CRF at three times the cost).
ILLINOIS_EPOCHS = 10

#: ``cross_fitting`` values: models shared between outer folds (the default), or each fold
#: on its own.
CROSS_FITTING = ("shared", "per-fold")
#: ``stack_on`` values: the bases' decisions, or their decisions and scores.
STACK_ON = ("decisions", "scores")
#: ``select_from`` values: what ``--tune`` chooses (see the class docstring).
SELECT_FROM = ("cost", "stacking")
#: A base's parameter naming the transformed training copies it learns from as well.
AUGMENT = "augment"
#: Parameters that change the meta-SVM only (judged without refitting any base).
META_LEVEL = ("C", "stack_on", "meta_features", "bases")
#: Score thresholds per base (``stack_on="scores"``), and the top share of its training
#: tokens they are cut in.
SCORE_BINS = 12
SCORE_TOP = 0.05
#: Weight of the scoring bases' mean score (clipped to +-:data:`SCORE_CLIP`) added to the
#: meta-SVM's PHI score (``stack_on="scores"``): it moves a token by at most 4e-4, so it
#: reorders only tokens whose meta scores are equal or within 8e-4, which it ranks by the
#: bases' own scores instead of leaving them tied.
TIE_BREAK = 1e-4
SCORE_CLIP = 4.0
#: Token features that carry to notes of another population: word shape, which
#: dictionaries a word is in (or none), the section.
POPULATION_FEATURES: tuple[str, ...] = ("shape", "dictionaries", "section")

BaseSpec = tuple[str, str, tuple[tuple[str, Any], ...]]

#: (name in the meta features, registered system, its parameters)
DEFAULT_BASES: tuple[BaseSpec, ...] = (
    # merge_rows=False: the base as it was when the default run's figures were made (the
    # merged rows move liblinear's solution within its tolerance; see docs/speed.md)
    ("statdeid", "svm", (("mode", "multiclass"), ("merge_rows", False))),
    ("stanford", "crf", ()),
    ("mist", "mist", ()),
    (
        "illinois",
        "crf",
        (
            ("feature_set", "illinois"),
            ("two_stage", True),
            ("algorithm", "ap"),
            ("max_iterations", ILLINOIS_EPOCHS),
        ),
    ),
    ("mimic", "mimic", ()),
)


def parse_bases(bases: str | Sequence[Any]) -> tuple[BaseSpec, ...]:
    """Base systems from ``"mimic,deidpl,svm"`` (registered names with their defaults) or
    from (alias, system, params) triples; a bare name inside a sequence is its own alias."""
    items: Sequence[Any] = bases.split(",") if isinstance(bases, str) else bases
    out: list[BaseSpec] = []
    for item in items:
        if isinstance(item, str):
            name = item.strip()
            if name:
                out.append((name, name, ()))
        else:
            alias, system, params = item
            out.append((str(alias), str(system), tuple(tuple(p) for p in params)))
    return tuple(out)


def _doc_scores(got: prediction_cache.Prediction, d: int) -> np.ndarray | None:
    return None if got.scores is None else got.scores[d]


def _int32(X: sp.csr_matrix) -> sp.csr_matrix:
    """liblinear accepts only 32-bit sparse indices (scipy may hand out 64-bit ones)."""
    X = sp.csr_matrix(X)
    X.indices = X.indices.astype(np.int32, copy=False)
    X.indptr = X.indptr.astype(np.int32, copy=False)
    return X


@register
class MultiDeidentifier(System):
    """Stacked SVM over base de-identifiers' decisions (Tafvizi 2011, Fig. 1-2).

    Parameters
    ----------
    bases:
        The base systems: a comma-separated string of registered names, or (alias, system,
        params) triples (default :data:`DEFAULT_BASES`).
    inner_folds:
        Folds of the inner cross-fitting that produces the meta-classifier's training
        decisions.
    C:
        Cost of the meta SVM (liblinear, one-vs-rest, balanced class weights).
    threshold:
        PHI score (best PHI class minus ``O``) above which a token is PHI; 0 = the SVM's
        own decision.
    group_by:
        How inner folds, and the jackknife of a two-stage base, group documents (``auto``:
        by patient where known); the runner passes the run's ``--group-by``.
    cross_fitting:
        ``"shared"`` (the default): under cross-validation, the inner models are shared
        between the outer folds (:mod:`systems.cross_fitting`), which costs 1.50x the
        bases' own fits instead of 2.28x in the default run; its F does not differ from
        per-fold cross-fitting's (99.468 vs 99.470 on ``authentic``, p = 0.93; 99.448 vs
        99.423 on ``unseen``, p = 0.23, approximate randomization over documents, side by
        side; docs/speed.md).  ``"per-fold"``: each fit cross-fits its own training
        documents in ``inner_folds`` folds, as without cross-validation.
    dictionaries, seed:
        Passed to the bases that take them; seed of the inner folds and the meta SVM.
    stack_on:
        ``"decisions"``: the meta-SVM sees each base's label of the token and of its
        neighbours (Tafvizi's Multi).  ``"scores"``: also, for bases that score tokens, how
        high the score is (:data:`SCORE_BINS` thresholds cut at quantiles of the training
        scores; tokens whose meta rows are alike are then ranked by the bases' scores,
        :data:`TIE_BREAK`, so that a threshold for high recall does not cut a block of
        tied tokens), so it can keep a rule system's recall where a learned base is unsure
        and the learned base's precision where the rules over-fire.
    meta_features:
        Names of feature classes of :data:`systems.features.statdeid.ALL_FEATURES` the
        meta-SVM also sees for each token: :data:`POPULATION_FEATURES` are those that carry
        to notes of another population (word shape, the dictionaries a word is in or that
        it is in none, the section).
    select_from:
        What ``--tune`` chooses: ``"cost"`` the meta-SVM's cost (and the threshold);
        ``"stacking"`` also ``stack_on``, ``meta_features`` and which bases to stack
        (every base, or all but one) -- all judged on the same cross-fitted decisions, so
        each candidate costs meta-SVM fits only (:meth:`selection_predictions`).
    """

    relative_cost = 12.0  # measured, for scheduling only
    fit_context = True  # the outer folds, to share the cross-fitting between them
    name = "multi"
    wider_search: ClassVar[Mapping[str, Any]] = {"select_from": "stacking"}
    description = (
        "Multi-deidentifier: an SVM over the decisions of base systems (default svm, crf, "
        "mist, Illinois two-stage tagger, mimic), learning whom to trust per PHI class "
        "(Tafvizi 2011)"
    )
    citation = "Tafvizi 2011 Fig. 1-2; Ratinov & Roth 2009"
    departures = (
        "base systems are our re-implementations (Illinois: averaged perceptron, "
        "two stages); stacked by inner cross-fitting on each cell's training documents, since "
        "Burford's training scheme is unpublished"
    )

    def __init__(
        self,
        bases: str | tuple[Any, ...] = DEFAULT_BASES,
        inner_folds: int = 2,
        C: float = 0.5,
        threshold: float = 0.0,
        group_by: str = "auto",
        dictionaries: str | None = None,
        seed: int = 0,
        cross_fitting: str = "shared",
        stack_on: str = "decisions",
        meta_features: tuple[str, ...] = (),
        select_from: str = "cost",
    ) -> None:
        self.bases = bases
        self.inner_folds = inner_folds
        self.C = C
        self.threshold = threshold
        self.group_by = group_by
        self.dictionaries = dictionaries
        self.seed = seed
        self.cross_fitting = cross_fitting
        self.stack_on = stack_on
        self.meta_features = tuple(meta_features)
        self.select_from = select_from

    # -- configuration -------------------------------------------------------------------
    def check_params(self) -> None:
        specs = parse_bases(self.bases)
        if not specs:
            raise ValueError("multi needs at least one base system")
        if self.inner_folds < 2:
            raise ValueError("multi needs inner_folds >= 2")
        if self.cross_fitting not in CROSS_FITTING:
            raise ValueError(
                f"cross_fitting must be one of {', '.join(CROSS_FITTING)}, "
                f"not {self.cross_fitting!r}"
            )
        for name, allowed in (
            ("stack_on", STACK_ON),
            ("select_from", SELECT_FROM),
        ):
            if getattr(self, name) not in allowed:
                raise ValueError(f"{name} must be one of {', '.join(allowed)}")
        unknown = [f for f in self.meta_features if f not in ALL_FEATURES]
        if unknown:
            raise ValueError(f"unknown meta features {unknown}; known: {', '.join(ALL_FEATURES)}")
        for _, system, params in specs:
            if system == self.name:
                raise ValueError("multi cannot stack itself")
            self._make_base(system, params).check_params()
        aliases = [a for a, _, _ in specs]
        if len(set(aliases)) != len(aliases):
            raise ValueError(f"base names must differ: {', '.join(aliases)}")

    def search_space(self) -> dict[str, list[Any]]:
        """``--tune`` grid: the meta SVM's cost, and with ``select_from="stacking"`` what it
        stacks on, which token features it adds and which bases it stacks.  Every candidate
        is judged on the same cross-fitted base decisions (:meth:`selection_predictions`),
        so each costs only meta-SVM fits."""
        space: dict[str, list[Any]] = {"C": [0.1, 0.5, 2.0]}
        if self.select_from == "stacking":
            specs = parse_bases(self.bases)
            subsets = [specs] + [
                tuple(s for s in specs if s != left) for left in specs if len(specs) > 1
            ]
            space["stack_on"] = list(STACK_ON)
            space["meta_features"] = [(), POPULATION_FEATURES]
            space["bases"] = subsets
        return space

    def _unfitted_bases(self) -> list[System]:
        """Each base as :meth:`fit` builds it, unfitted: what the stack declares and keys
        its cache entries by is made of them."""
        return [self._make_base(s, p) for _, s, p in parse_bases(self.bases)]

    def tags(self) -> Tags:
        """The stack reads item sequences where a base does (the CRF-family bases)."""
        return dataclasses.replace(
            super().tags(),
            item_sequences=any(b.tags().item_sequences for b in self._unfitted_bases()),
        )

    def shared_predictions(
        self,
        train: Sequence[Document],
        test: Sequence[Document],
        context: FitContext | None = None,
    ) -> list[str]:
        """The keys of the bases trained on all of ``train`` labelling ``test``
        (:meth:`_base_labels`): a ``crf`` or ``mist`` cell of the same run reads them."""
        return [
            prediction_cache.prediction_key(base, train, test, context)
            for base in self._unfitted_bases()
        ]

    def base_modules(self) -> set[str]:
        """The bases' modules: their code is part of this system's cache key."""
        return {m for base in self._unfitted_bases() for m in prediction_cache.code_modules(base)}

    def tool_fingerprint(self) -> str:
        """The external bases' programs (deid.pl, a command-line tool) are part of the key."""
        return "|".join(base.tool_fingerprint() for base in self._unfitted_bases())

    def _make_base(self, system: str, params: tuple[tuple[str, Any], ...]) -> System:
        """The base ``system`` with ``params``; an ``augment`` parameter
        (``"unseen:2,surrogate"``) trains it on transformed copies of its training
        documents as well (:class:`systems.augment.Augmented`), so one stack can hold the
        same learner with and without them and choose inside the training folds."""
        own_params = dict(params)
        augment = own_params.pop(AUGMENT, None)
        base = self._plain_base(system, own_params)
        if augment:
            return Augmented(base, variants=parse_augment(str(augment)), seed=self.seed)
        return base

    def _plain_base(self, system: str, params: dict[str, Any]) -> System:
        base = SYSTEMS.get(system)(**params)
        own = base.get_params()
        if "dictionaries" in own and self.dictionaries is not None:
            base.set_params(dictionaries=self.dictionaries)
        if "group_by" in own and "group_by" not in dict(params):
            # a base's own jackknife (the Illinois tagger's) groups as the inner folds do
            base.set_params(group_by=self.group_by)
        return base

    # -- training ------------------------------------------------------------------------
    def fit(
        self, documents: Sequence[Document], context: FitContext | None = None
    ) -> MultiDeidentifier:
        documents = list(documents)
        if len(documents) < self.inner_folds:
            raise ValueError(
                f"the Multi-deidentifier needs at least {self.inner_folds} training documents"
            )
        self.base_specs_ = parse_bases(self.bases)
        self.train_ = documents
        # the outer folds reach the bases too (a two-stage base shares its jackknife);
        # "per-fold" keeps every fit to its own training documents
        self.context_ = context if self.cross_fitting == "shared" else None
        self.models_: dict[int, System] = {}
        self.seconds_ = {"inner_cross_fitting": 0.0, "bases_on_all_training": 0.0, "meta": 0.0}
        self.featurize_seconds_ = 0.0
        with self._timed("inner_cross_fitting"):
            per_base = self._cross_fitted(documents, context)
        with self._timed("meta"):
            y = [t.label for doc in documents for t in doc.tokens]
            self.cuts_ = self._score_cuts(per_base)
            self._fit_meta(self._meta_features(documents, per_base), y)
        return self

    @contextlib.contextmanager
    def _timed(self, part: str) -> Iterator[None]:
        """Add the block's seconds to ``seconds_[part]``, less those it spent featurizing
        (``featurize_seconds_``): a note's features are computed once per process, in
        whichever fit meets the note first -- the cross-fitting, in an outer fold's first
        cell -- and are no more a cost of stacking than of the bases."""
        start = time.perf_counter()
        with stages.recording() as spent:
            yield
        featurizing = spent.get(stages.FEATURIZE, 0.0)
        self.seconds_[part] += time.perf_counter() - start - featurizing
        self.featurize_seconds_ += featurizing

    def _cross_fitted(
        self, documents: list[Document], context: FitContext | None
    ) -> list[prediction_cache.Prediction]:
        """Every base's labels (and scores) of every training document, from models that
        never saw it:
        shared between outer folds where the run tells the outer folds
        (:mod:`systems.cross_fitting`), else ``inner_folds`` folds of these documents."""
        labellers = None
        if self.cross_fitting == "shared":
            labellers = shared_plan(documents, context, self.group_by, self.seed, self.inner_folds)
        folds: list[tuple[Sequence[int], Sequence[int]]]
        if labellers is not None:
            folds, keep, prefetch = unzip(labellers)
            self.cross_fitting_ = SHARED
        else:
            folds = list(document_kfold(documents, self.inner_folds, self.seed, self.group_by))
            keep, prefetch = [], []
            self.cross_fitting_ = f"{len(folds)} inner folds"
        self.inner_groups_ = len(folds)
        bases = [self._make_base(system, params) for _, system, params in parse_bases(self.bases)]
        fitted = [(base, n) for base in bases for n in range(len(labellers or ()))]
        self.left_out_ = left_out(fitted, documents, labellers, context, self.group_by)
        with stages.stage(stages.INNER):
            return [
                prediction_cache.out_of_fold(base, documents, folds, keep, prefetch)
                for base in bases
            ]

    def _score_cuts(self, per_base: Sequence[prediction_cache.Prediction]) -> dict[str, Any]:
        """Per base that scores tokens, the score thresholds of its meta features
        (``stack_on="scores"``): :data:`SCORE_BINS` quantiles of its training scores
        among the tokens it ranks in its top :data:`SCORE_TOP` (PHI is rare, so quantiles
        of every token would all be ``O``)."""
        if self.stack_on != "scores":
            return {}
        cuts: dict[str, Any] = {}
        for (name, _, _), got in zip(parse_bases(self.bases), per_base, strict=True):
            if got.scores is None or not len(got.scores):
                continue
            flat = np.concatenate(got.scores)
            if not len(flat):
                continue
            high = flat[flat >= np.quantile(flat, 1 - SCORE_TOP)]
            cuts[name] = np.unique(np.quantile(high, np.linspace(0, 1, SCORE_BINS + 1)[:-1]))
        return cuts

    def _fit_meta(self, rows: list[dict[str, float]], y: list[str]) -> None:
        """The meta-SVM on distinct (row, label) pairs weighted by their counts."""
        distinct, labels, weights = collapse_rows(rows, y)
        self.vectorizer_ = DictVectorizer()
        X = _int32(self.vectorizer_.fit_transform(distinct))
        self.classifier_ = LinearSVC(
            C=self.C, class_weight=balanced_weights(y), random_state=self.seed
        )
        # liblinear stops at its iteration limit on some stacks of scores (many thresholds
        # of one score are nearly collinear); the model it returns is the one scored, and
        # the fact is recorded (fitted_info) instead of a warning per fit on the console
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", ConvergenceWarning)
            self.classifier_.fit(X, labels, sample_weight=weights)
        self.meta_converged_ = not any(issubclass(w.category, ConvergenceWarning) for w in caught)

    def selection_predictions(
        self,
        documents: Sequence[Document],
        candidates: Sequence[Mapping[str, Any]],
        folds: Sequence[tuple[Sequence[int], Sequence[int]]],
        context: FitContext | None = None,
    ) -> list[list[prediction_cache.Prediction]] | None:
        """Candidates that differ in what the meta-SVM does (its cost, what it stacks on,
        its token features, which bases it stacks) are judged on the decisions the final
        fit cross-fits anyway (bases that never saw the document they label): per inner
        fold, a meta-SVM fitted on the other folds' rows scores the held-out rows, so
        selection costs meta-SVM fits instead of refitting every base."""
        if any(set(c) - set(META_LEVEL) for c in candidates):
            return None
        documents = list(documents)
        starts = np.cumsum([0] + [len(d.tokens) for d in documents])
        labels_of = [t.label for d in documents for t in d.tokens]
        out: list[list[prediction_cache.Prediction]] = [[] for _ in candidates]
        made: dict[
            str,
            tuple[MultiDeidentifier, list[dict[str, float]], list[prediction_cache.Prediction]],
        ] = {}
        for c, params in enumerate(candidates):
            probe = self.clone().set_params(**{k: v for k, v in params.items() if k != "C"})
            assert isinstance(probe, MultiDeidentifier)
            shape = repr((probe.bases, probe.stack_on, probe.meta_features))
            if shape not in made:  # the rows depend on these, not on the cost
                per_base = probe._cross_fitted(documents, context)
                probe.cuts_ = probe._score_cuts(per_base)
                made[shape] = (probe, probe._meta_features(documents, per_base), per_base)
            probe, rows, per_base = made[shape]
            for train, held in folds:
                meta = probe.clone().set_params(C=params.get("C", self.C))
                assert isinstance(meta, MultiDeidentifier)
                meta.cuts_ = probe.cuts_
                meta._fit_meta(
                    [r for i in train for r in rows[starts[i] : starts[i + 1]]],
                    [labels_of[j] for i in train for j in range(starts[i], starts[i + 1])],
                )
                labels, scores = meta._decide(
                    [r for i in held for r in rows[starts[i] : starts[i + 1]]],
                    [documents[i] for i in held],
                    probe._tie_break(per_base, held),
                )
                out[c].append(prediction_cache.Prediction(labels, scores))
        return out

    def _base_labels(self, i: int, documents: Sequence[Document]) -> prediction_cache.Prediction:
        """Base ``i`` trained on all training documents, labelling (and scoring) ``documents``:
        from the prediction cache when that fit was done before (by this system or by the
        base's own cell), else fitted once and kept for further calls."""
        _, system, params = self.base_specs_[i]
        proto = self._make_base(system, params)
        key = prediction_cache.prediction_key(proto, self.train_, documents, self.context_)
        hit = prediction_cache.load(key, documents)
        if hit is not None:
            return hit
        if not proto.tags().requires_training:  # its labels of each note are remembered
            with self._timed("bases_on_all_training"):
                return prediction_cache.fit_predict(proto, [], documents, key=key)
        with self._timed("bases_on_all_training"):
            model = self.models_.get(i)
            if model is None:
                model = proto
                with stages.stage(stages.FIT):
                    fit_with_context(model, self.train_, self.context_)
                self.models_[i] = model
            with stages.stage(stages.PREDICT):
                labels, scores = model.predict_scored(documents)
        got = prediction_cache.Prediction(
            [list(map(str, p)) for p in labels],
            None if scores is None else [np.asarray(s, np.float32) for s in scores],
        )
        prediction_cache.store(key, got)
        return got

    def _meta_features(
        self, documents: Sequence[Document], per_base: Sequence[prediction_cache.Prediction]
    ) -> list[dict[str, float]]:
        """One row per token: each base's decision on it and its neighbours, the number of
        bases voting PHI, and (``stack_on="scores"``) how high each base scored it, and
        (``meta_features``) the token's own features."""
        names = [n for n, _, _ in parse_bases(self.bases)]
        cuts = getattr(self, "cuts_", {}) if self.stack_on == "scores" else {}
        classes = (
            [f for _, f in build(self.meta_features, dictionaries=self.dictionaries)]
            if self.meta_features
            else []
        )
        # each base's feature names for a label: its own decision, the previous token's and
        # the next token's (made once per label, not per token)
        named: list[dict[str, tuple[str, str, str]]] = [{} for _ in names]

        def name_of(s: int, label: str) -> tuple[str, str, str]:
            got = named[s].get(label)
            if got is None:
                base = names[s]
                got = (f"{base}={label}", f"{base}-1={label}", f"{base}+1={label}")
                named[s][label] = got
            return got

        rows: list[dict[str, float]] = []
        for d, doc in enumerate(documents):
            n = len(doc.tokens)
            decisions = [per_base[s].labels[d] for s in range(len(names))]
            scores = [
                _doc_scores(per_base[s], d) if names[s] in cuts else None for s in range(len(names))
            ]
            own = FEATURE_SPACE.rows(classes, doc) if classes else None
            for i in range(n):
                row: dict[str, float] = {}
                votes = 0
                for s, name in enumerate(names):
                    labels = decisions[s]
                    label = labels[i]
                    row[name_of(s, label)[0]] = 1.0
                    votes += label != OUTSIDE
                    if i > 0 and labels[i - 1] != OUTSIDE:
                        row[name_of(s, labels[i - 1])[1]] = 1.0
                    if i + 1 < n and labels[i + 1] != OUTSIDE:
                        row[name_of(s, labels[i + 1])[2]] = 1.0
                    doc_scores = scores[s]
                    if doc_scores is not None:
                        reached = int(np.searchsorted(cuts[name], doc_scores[i], side="right"))
                        for k in range(reached):  # a thermometer: every cut reached
                            row[f"{name}>=q{k}"] = 1.0
                row[f"votes={votes}"] = 1.0
                if own is not None:
                    row.update(own[i])
                rows.append(row)
        return rows

    # -- labelling -----------------------------------------------------------------------
    def _tie_break(
        self, per_base: Sequence[prediction_cache.Prediction], which: Sequence[int] | None = None
    ) -> np.ndarray | None:
        """Per token of the documents ``which`` (default all) of ``per_base``, the mean
        clipped score of the bases that score tokens, times :data:`TIE_BREAK`
        (``stack_on="scores"``; else ``None``)."""
        cuts = getattr(self, "cuts_", {}) if self.stack_on == "scores" else {}
        names = [n for n, _, _ in parse_bases(self.bases)]
        scoring = [per_base[s] for s, name in enumerate(names) if name in cuts]
        if not scoring:
            return None
        docs = range(len(scoring[0].labels)) if which is None else which
        parts = [
            np.mean([np.clip(got.scores[d], -SCORE_CLIP, SCORE_CLIP) for got in scoring], axis=0)
            for d in docs
        ]
        flat = np.concatenate(parts) if parts else np.empty(0)
        return TIE_BREAK * flat

    def _decide(
        self,
        rows: list[dict[str, float]],
        documents: Sequence[Document],
        tie_break: np.ndarray | None = None,
    ) -> tuple[list[list[str]], list[np.ndarray]]:
        """Labels and PHI scores (best PHI class minus ``O``, plus ``tie_break``) of the
        meta rows of ``documents``."""
        X = _int32(self.vectorizer_.transform(rows))
        if X.shape[0] == 0:
            score, cats = np.empty(0), np.empty(0, dtype=object)
        else:
            raw = self.classifier_.decision_function(X)
            score, cats = ovr_phi_scores(raw, self.classifier_.classes_)
            if tie_break is not None:
                score = score + tie_break
        flat = np.where(score > self.threshold, cats, OUTSIDE)
        labels = [list(map(str, part)) for part in split_by_document(flat, documents)]
        return labels, split_by_document(score, documents)

    def predict_scored(
        self, documents: Sequence[Document]
    ) -> tuple[list[list[str]], list[np.ndarray]]:
        with self._timed("inner_cross_fitting"):
            pending = getattr(self, "left_out_", None)
            if pending is not None:  # its test notes, for the later outer folds
                pending.label(documents)
        per_base = [self._base_labels(i, documents) for i in range(len(self.base_specs_))]
        with self._timed("meta"):
            return self._decide(
                self._meta_features(documents, per_base), documents, self._tie_break(per_base)
            )

    def predict(self, documents: Sequence[Document]) -> list[list[str]]:
        return self.predict_scored(documents)[0]

    def score_tokens(self, documents: Sequence[Document]) -> list[np.ndarray]:
        """The meta SVM's PHI score: best PHI class minus ``O``."""
        return self.predict_scored(documents)[1]

    def fitted_info(self) -> dict[str, Any]:
        """Bases, inner folds, and where the time went: ``cost_vs_bases`` is this system's
        seconds over those of its bases trained on all training documents and labelling
        the test documents -- what the bases cost as systems of their own (absent when
        those fits came from the prediction cache, which shares them with the bases'
        own cells); featurizing is counted apart (``featurize_seconds``), in neither."""
        info: dict[str, Any] = {
            "bases": [a for a, _, _ in self.base_specs_],
            "inner_folds": self.inner_groups_,
            "cross_fitting": self.cross_fitting_,
            "seconds": {k: round(v, 3) for k, v in self.seconds_.items()},
            "featurize_seconds": round(self.featurize_seconds_, 3),
        }
        if not getattr(self, "meta_converged_", True):
            info["meta_converged"] = False
        bases = self.seconds_["bases_on_all_training"]
        if bases > 0.05 * sum(self.seconds_.values()):
            info["cost_vs_bases"] = round(sum(self.seconds_.values()) / bases, 2)
        return info


#: The bases of :data:`RULES_STACK`: the Mega SVM with our date features, trained with one
#: and with two random-string copies of each note (and a dictionary-surrogate copy), and
#: the MIMIC rules.
RULES_STACK_BASES: tuple[BaseSpec, ...] = (
    ("mega", "mega", (("sources", MEGA_WITH_DATES), (AUGMENT, "unseen,surrogate"))),
    ("mega-2", "mega", (("sources", MEGA_WITH_DATES), (AUGMENT, "unseen:2,surrogate"))),
    ("mimic", "mimic", ()),
)

#: A stack of a learned model that generalizes and the rules, every choice of which is made
#: inside the training folds (``tuned``): how many copies the learned base trains on (by
#: which bases are kept), what the stack sees (the bases' scores, population features), the
#: meta-SVM's cost and the threshold of the run's ``--objective``.  It was the recommended
#: configuration until a preset of the Mega SVM alone (:data:`systems.mega.RECOMMENDED`)
#: found more PHI than deid.pl on the tuning patients, which this stack did not
#: (reports/README.md).
RULES_STACK = register_preset(
    "mega-rules-stack",
    MultiDeidentifier,
    {
        "bases": RULES_STACK_BASES,
        "stack_on": "scores",
        "meta_features": POPULATION_FEATURES,
        "select_from": "stacking",
        "cross_fitting": "shared",
    },
    "Mega (with date features, trained with one or two random-string copies of each note) "
    "stacked with the MIMIC rules on their scores and the tokens' shape, dictionaries and "
    "section; every choice made inside the training folds",
    tuned=True,
)
