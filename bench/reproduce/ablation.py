"""Analyses of the local-context SVM: feature ablations, information gain, kernels, PR curve.

Pure functions from a corpus to a :class:`pandas.DataFrame`; the CLI prints or saves them
(``deid-bench ablation | infogain | kernels``).  Each re-creates one analysis:

* :func:`feature_ablation` -- one feature class enabled at a time (``mode="only"``) or
  disabled at a time (``mode="without"``): Stat De-id re-implementation report §5.4,
  Figures 2-5.  10-fold cross-validation by document instead of the report's fixed
  669/220 split, so it runs on any corpus.
* :func:`information_gain` -- features ranked by information gain about PHI vs non-PHI:
  Sibanda & Uzuner (2006, §6.4) found the target word, the bigrams before and after it and
  the neighbouring words the most informative.
* :func:`kernel_experiment` -- linear vs quadratic vs Gaussian kernel trained on 50
  documents: the report's §5.5, Table 3.
* :func:`precision_recall_curve` -- the PR curve of the cross-validated SVM decision values,
  and :func:`operating_point` to pick a recall-oriented threshold from it.

Scores are token-level and binary (any category counts as PHI), as in the 2006 paper's
tables.  Features are computed once per corpus (:data:`systems.svm.FEATURE_SPACE`) and POS
tags are loaded from the disk cache (:func:`corpora.nlp.warm_cache`), so the many fits of an
ablation only pay for training.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from scipy import sparse

from bench.score.metrics import fbeta_from_counts, gold_phi, token_counts
from corpora import nlp
from corpora.folds import document_folds
from corpora.model import OUTSIDE, Corpus, Document, gold_labels
from systems.features.statdeid import (
    OPTIONAL_FEATURES,
    STATDEID_FEATURES,
    build,
    feature_template,
    unavailable_reason,
)
from systems.svm import FEATURE_SPACE, LocalContextSVM

CorpusLike = Corpus | Sequence[Document]
#: The optional feature classes the Stat De-id report ablates (its Figures 2-5): the Link
#: Grammar syntactic bigrams -- not the word-form classes added to
#: :data:`~systems.features.statdeid.OPTIONAL_FEATURES` for other systems.
REPORT_OPTIONAL = tuple(n for n in OPTIONAL_FEATURES if n == "syntactic_bigrams")

ABLATION_MODES = ("only", "without")


def _documents(corpus: CorpusLike) -> list[Document]:
    docs = list(corpus.documents if isinstance(corpus, Corpus) else corpus)
    if not docs:
        raise ValueError("the corpus has no documents")
    nlp.warm_cache(docs)
    return docs


def _row(
    gold: list[list[str]], pred: list[list[str]], docs: Sequence[Document] | None = None
) -> dict[str, Any]:
    """Binary PHI and non-PHI scores of ``pred``; with ``docs`` (the documents the labels
    are of), also each document's (tp, fp, fn) for PHI and for non-PHI, by document id --
    what tests over documents resample (:mod:`bench.reproduce.verdicts`)."""
    phi = token_counts(gold, pred)
    non = token_counts(gold, pred, label=OUTSIDE)
    out: dict[str, Any] = {
        "precision": phi.precision,
        "recall": phi.recall,
        "f1": phi.f1,
        "non_phi_precision": non.precision,
        "non_phi_recall": non.recall,
        "tp": phi.tp,
        "fp": phi.fp,
        "fn": phi.fn,
    }
    if docs is not None:
        from bench.score.metrics import per_document_counts

        for column, label in (("phi_counts", None), ("non_phi_counts", "non-PHI")):
            counts = per_document_counts(docs, pred, label)
            out[column] = {doc.id: counts[i] for i, doc in enumerate(docs)}
    return out


def cross_validate(
    corpus: CorpusLike,
    *,
    folds: int = 10,
    seed: int = 0,
    system_params: Mapping[str, Any] | None = None,
    scores: bool = False,
) -> tuple[list[list[str]], list[list[str]], list[np.ndarray] | None]:
    """Gold labels, out-of-fold predictions (and PHI scores) of ``svm`` over ``corpus``.

    Documents come back in corpus order.  Folds are :func:`corpora.folds.document_folds`
    with ``seed``, the same folds the runner uses.
    """
    docs = _documents(corpus)
    params = dict(system_params or {})
    gold = gold_labels(docs)
    pred: list[list[str]] = [[] for _ in docs]
    score: list[np.ndarray] = [np.empty(0) for _ in docs]
    for train, test in document_folds(len(docs), folds, seed):
        model = LocalContextSVM(**params).fit([docs[i] for i in train])
        test_docs = [docs[i] for i in test]
        for i, labels in zip(test, model.predict(test_docs), strict=True):
            pred[i] = labels
        if scores:
            for i, s in zip(test, model.score_tokens(test_docs), strict=True):
                score[i] = s
    return gold, pred, (score if scores else None)


def feature_ablation(
    corpus: CorpusLike,
    *,
    mode: str = "only",
    folds: int = 10,
    seed: int = 0,
    system_params: Mapping[str, Any] | None = None,
    include_optional: bool = False,
    per_document: bool = False,
) -> pd.DataFrame:
    """Binary PHI scores with one feature class enabled (``only``) or disabled (``without``).

    Re-creates the Stat De-id report's Figures 2-5 (§5.4): the first row (``feature_class``
    ``"all"``) is the full system, the baseline of the figures; then one row per class of
    :data:`systems.features.statdeid.STATDEID_FEATURES` (plus the optional Link Grammar
    class when ``include_optional`` and the parser is installed).  ``mode="both"`` returns
    both halves.  ``system_params`` are passed to ``svm`` (e.g. ``{"C": 1.0}``).

    Columns: feature_class, mode, precision, recall, f1, non_phi_precision, non_phi_recall,
    tp, fp, fn (and, with ``per_document``, phi_counts and non_phi_counts: document id ->
    (tp, fp, fn)).  Cost: ``(1 + n_classes) * folds`` fits per mode.
    """
    docs = _documents(corpus) if per_document else None
    if mode not in (*ABLATION_MODES, "both"):
        raise ValueError(f"mode must be 'only', 'without' or 'both', not {mode!r}")
    params = dict(system_params or {})
    params.pop("features", None)
    names = list(STATDEID_FEATURES)
    if include_optional:  # the report's own optional class, not the later word-form ones
        names += [n for n in REPORT_OPTIONAL if unavailable_reason(n) is None]
    modes = ABLATION_MODES if mode == "both" else (mode,)
    rows: list[dict[str, Any]] = []
    gold, pred, _ = cross_validate(
        corpus, folds=folds, seed=seed, system_params={**params, "features": tuple(names)}
    )
    rows.append({"feature_class": "all", "mode": "all", **_row(gold, pred, docs)})
    for m in modes:
        for name in names:
            enabled = (name,) if m == "only" else tuple(n for n in names if n != name)
            gold, pred, _ = cross_validate(
                corpus, folds=folds, seed=seed, system_params={**params, "features": enabled}
            )
            rows.append({"feature_class": name, "mode": m, **_row(gold, pred, docs)})
    return pd.DataFrame(rows)


#: Alias the CLI looks up (``deid-bench ablation``).
ablation = feature_ablation


def _entropy(k: np.ndarray, n: np.ndarray) -> np.ndarray:
    """Binary entropy (bits) of k positives out of n, elementwise; 0 where n == 0."""
    with np.errstate(divide="ignore", invalid="ignore"):
        p = np.where(n > 0, k / np.maximum(n, 1), 0.0)
        h = -(p * np.log2(np.where(p > 0, p, 1.0)) + (1 - p) * np.log2(np.where(p < 1, 1 - p, 1.0)))
    return np.where(n > 0, h, 0.0)


def information_gain(
    corpus: CorpusLike,
    *,
    top: int = 30,
    level: str = "template",
    features: Sequence[str] | None = None,
    dictionaries: str | None = None,
) -> pd.DataFrame:
    """Features ranked by information gain about PHI vs non-PHI (2006 paper, §6.4).

    ``level="template"`` (default) ranks the paper's *features*: a template such as
    ``lw-1`` (the word before) is one variable whose values are the words; its gain is
    ``H(PHI) - sum_v p(v) H(PHI | v)`` with "feature absent" as one more value.  This is
    the ranking of §6.4 (target word, bigrams before and after, neighbouring words first).
    ``level="feature"`` ranks single indicators (``lw-1=dr.``) as binary variables.

    Columns: feature, feature_class, information_gain (bits), tokens (how many tokens have
    it), phi_rate (fraction of those that are PHI).  ``top`` rows, best first (0 = all).
    """
    if level not in ("template", "feature"):
        raise ValueError(f"level must be 'template' or 'feature', not {level!r}")
    table = _feature_table(corpus, features, dictionaries)
    n, k = table.n, table.k
    count, positives = table.count, table.positives
    h_y = float(_entropy(np.array([k]), np.array([n]))[0])
    if level == "feature":
        cond = (count / n) * _entropy(positives, count) + ((n - count) / n) * _entropy(
            k - positives, n - count
        )
        keys = table.names
        gain = h_y - cond
        tokens, rate = count, positives / np.maximum(count, 1)
    else:
        keys = table.templates
        gain = _template_gain(count, positives, n, k, table.template_ids, len(keys))
        tokens = np.bincount(table.template_ids, weights=count, minlength=len(keys))
        rate = np.bincount(table.template_ids, weights=positives, minlength=len(keys)) / np.maximum(
            tokens, 1
        )
    order = np.argsort(-gain, kind="stable")
    if top:
        order = order[:top]
    return pd.DataFrame(
        {
            "feature": [keys[i] for i in order],
            "feature_class": [table.owner.get(feature_template(keys[i]), "") for i in order],
            "information_gain": gain[order],
            "tokens": np.asarray(tokens)[order].astype(np.int64),
            "phi_rate": np.asarray(rate)[order],
        }
    )


def top_template_shares(
    corpus: CorpusLike,
    *,
    top: int = 5,
    n_resamples: int = 1000,
    seed: int = 0,
    features: Sequence[str] | None = None,
    dictionaries: str | None = None,
) -> dict[str, float]:
    """Template -> the share of bootstrap resamples of the documents in which it is among
    the ``top`` templates by information gain: how firmly the data put it there (a
    ranking's test, §6.4).  Resampling documents resamples the per-document counts of every
    feature, so each resample costs two sparse products, not a new featurization."""
    table = _feature_table(corpus, features, dictionaries)
    docs = table.document_of
    n_docs = int(docs.max()) + 1 if len(docs) else 0
    by_doc = sparse.csr_matrix(
        (np.ones(len(docs)), (docs, np.arange(len(docs)))), shape=(n_docs, len(docs))
    )
    per_doc_count = (by_doc @ table.matrix).tocsr()
    per_doc_pos = (by_doc @ table.matrix.multiply(table.y[:, None])).tocsr()
    per_doc_n = np.asarray(by_doc.sum(axis=1)).ravel()
    per_doc_k = by_doc @ table.y
    hits = np.zeros(len(table.templates))
    rng = np.random.default_rng(seed)
    for _ in range(n_resamples):
        w = rng.multinomial(n_docs, np.full(n_docs, 1.0 / n_docs)).astype(np.float64)
        count = per_doc_count.T @ w
        positives = per_doc_pos.T @ w
        gain = _template_gain(
            count,
            positives,
            float(w @ per_doc_n),
            float(w @ per_doc_k),
            table.template_ids,
            len(table.templates),
        )
        hits[np.argsort(-gain, kind="stable")[:top]] += 1
    return {t: float(h / n_resamples) for t, h in zip(table.templates, hits, strict=True)}


@dataclass(frozen=True)
class _FeatureTable:
    """Binary feature indicators of every token of a corpus, with PHI labels."""

    matrix: Any  # tokens x used features, 0/1 (scipy sparse)
    y: np.ndarray
    document_of: np.ndarray
    names: list[str]
    templates: list[str]
    template_ids: np.ndarray
    count: np.ndarray
    positives: np.ndarray
    owner: dict[str, str]

    @property
    def n(self) -> int:
        return len(self.y)

    @property
    def k(self) -> int:
        return int(self.y.sum())


def _feature_table(
    corpus: CorpusLike, features: Sequence[str] | None, dictionaries: str | None
) -> _FeatureTable:
    docs = _documents(corpus)
    wanted = list(features) if features else list(STATDEID_FEATURES)
    named = build(
        tuple(n for n in wanted if unavailable_reason(n) is None), dictionaries=dictionaries
    )
    y = gold_phi(docs).astype(np.int64)
    x = FEATURE_SPACE.matrix([f for _, f in named], docs)
    x.data[:] = 1.0
    count = np.diff(x.tocsc().indptr).astype(np.int64)
    used = np.flatnonzero(count)
    x = x.tocsc()[:, used].tocsr()
    names = [FEATURE_SPACE.names[i] for i in used]
    templates = [feature_template(nm) for nm in names]
    keys = list(dict.fromkeys(templates))
    document_of = np.repeat(np.arange(len(docs)), [len(d.tokens) for d in docs])
    return _FeatureTable(
        x,
        y,
        document_of,
        names,
        keys,
        _ids(templates, keys),
        count[used],
        np.asarray(x.T @ y, dtype=np.int64).ravel(),
        _owners(named, docs),
    )


def _template_gain(
    count: np.ndarray, positives: np.ndarray, n: float, k: float, tid: np.ndarray, n_templates: int
) -> np.ndarray:
    """Information gain of each template (its features' values, plus "absent" as one more)."""
    h_y = float(_entropy(np.array([k]), np.array([n]))[0])
    part = (count / n) * _entropy(positives, count)
    cond = np.bincount(tid, weights=part, minlength=n_templates)
    t_count = np.bincount(tid, weights=count, minlength=n_templates)
    t_pos = np.bincount(tid, weights=positives, minlength=n_templates)
    absent_n = np.clip(n - t_count, 0, None)
    absent_k = np.clip(k - t_pos, 0, None)
    cond += (absent_n / n) * _entropy(absent_k, absent_n)
    return h_y - cond


def _ids(values: list[str], keys: list[str]) -> np.ndarray:
    index = {k: i for i, k in enumerate(keys)}
    return np.fromiter((index[v] for v in values), dtype=np.int64, count=len(values))


def _owners(named: Sequence[tuple[str, Any]], docs: Sequence[Document]) -> dict[str, str]:
    """Template -> name of the feature class that emits it."""
    owner: dict[str, str] = {}
    for name, feature in named:
        ids: set[int] = set()
        for doc in docs:
            ids.update(np.unique(FEATURE_SPACE.encode(feature, doc)[1]).tolist())
        for i in ids:
            owner.setdefault(feature_template(FEATURE_SPACE.names[i]), name)
    return owner


def kernel_experiment(
    corpus: CorpusLike,
    *,
    train_documents: int = 50,
    seed: int = 0,
    kernels: Sequence[str] = ("linear", "poly", "rbf"),
    test_fraction: float = 0.25,
    system_params: Mapping[str, Any] | None = None,
    per_document: bool = False,
) -> pd.DataFrame:
    """Linear vs quadratic vs Gaussian SVM kernels (Stat De-id report §5.5, Table 3).

    As in the report: the corpus is split at random (``seed``) into a test part
    (``test_fraction``, 25% as in the report's 669/220 split) and a training part; each
    kernel is trained on ``train_documents`` random documents of the training part (libsvm
    for ``poly``/``rbf``, liblinear for ``linear``) and scored on the whole test part.

    Columns: kernel, precision, recall, f1, non_phi_precision, non_phi_recall, tp, fp, fn,
    train_seconds (training only; features are computed beforehand), train_tokens (and, with
    ``per_document``, phi_counts and non_phi_counts on the test documents, as in
    :func:`feature_ablation`).
    """
    docs = _documents(corpus)
    if len(docs) < 2:
        raise ValueError("the kernel experiment needs at least 2 documents")
    order = np.random.default_rng(seed).permutation(len(docs))
    n_test = min(len(docs) - 1, max(1, round(len(docs) * test_fraction)))
    test = [docs[i] for i in order[:n_test]]
    train = [docs[i] for i in order[n_test:][:train_documents]]
    gold = gold_labels(test)
    params = dict(system_params or {})
    # featurize once up front, so train_seconds is the SVM's training time alone
    FEATURE_SPACE.matrix(LocalContextSVM(**params)._features(), [*train, *test])
    rows = []
    for kernel in kernels:
        model = LocalContextSVM(**{**params, "kernel": kernel, "seed": seed})
        start = time.perf_counter()
        model.fit(train)
        seconds = time.perf_counter() - start
        rows.append(
            {
                "kernel": kernel,
                **_row(gold, model.predict(test), test if per_document else None),
                "train_seconds": seconds,
                "train_tokens": sum(len(d.tokens) for d in train),
            }
        )
    return pd.DataFrame(rows)


#: Alias the CLI looks up (``deid-bench kernels``).
kernels = kernel_experiment


def precision_recall_curve(
    corpus: CorpusLike,
    *,
    folds: int = 10,
    seed: int = 0,
    system_params: Mapping[str, Any] | None = None,
    points: int = 50,
) -> pd.DataFrame:
    """Binary PHI precision and recall as the decision threshold moves.

    The cross-validated decision values of ``svm`` (each token scored by the model that did
    not see its document) are pooled and swept; in de-identification the useful end of the
    curve is high recall.  About ``points`` thresholds are kept, evenly spaced in recall
    (0 = every distinct threshold).
    The row at threshold 0 is the system's default operating point.

    Columns: threshold, precision, recall, f1.
    """
    from sklearn.metrics import precision_recall_curve as sk_curve

    gold, _, scores = cross_validate(
        corpus, folds=folds, seed=seed, system_params=system_params, scores=True
    )
    assert scores is not None
    y = np.fromiter((g != OUTSIDE for doc in gold for g in doc), dtype=np.int8)
    s = np.concatenate(scores) if scores else np.empty(0)
    if not y.any():
        raise ValueError("the corpus has no PHI tokens: no precision-recall curve")
    precision, recall, thresholds = sk_curve(y, s)
    precision, recall = precision[:-1], recall[:-1]
    if points and len(thresholds) > points:
        # evenly spaced in recall: for each recall level the highest threshold reaching it
        # (recall falls as the threshold rises), plus the default operating point
        levels = np.linspace(recall.min(), recall.max(), points)
        keep = np.searchsorted(-recall, -levels, side="right") - 1
        zero = int(np.searchsorted(thresholds, 0.0, side="right"))
        keep = np.unique(np.append(np.clip(keep, 0, None), min(zero, len(thresholds) - 1)))
        precision, recall, thresholds = precision[keep], recall[keep], thresholds[keep]
    # the counts behind each row: a token is called PHI when its score reaches the threshold
    positives, negatives = np.sort(s[y == 1]), np.sort(s[y == 0])
    tp = len(positives) - np.searchsorted(positives, thresholds, side="left")
    fp = len(negatives) - np.searchsorted(negatives, thresholds, side="left")
    f1 = fbeta_from_counts(tp, fp, len(positives) - tp, 1.0)
    return pd.DataFrame(
        {"threshold": thresholds, "precision": precision, "recall": recall, "f1": f1}
    )


def operating_point(curve: pd.DataFrame, *, min_recall: float = 0.95) -> dict[str, float]:
    """The most precise threshold of a :func:`precision_recall_curve` with recall >= target.

    Falls back to the highest-recall row when no threshold reaches ``min_recall``.  Pass the
    threshold to ``svm`` (``threshold=...``) to run at that recall-oriented point.
    """
    ok = curve[curve["recall"] >= min_recall]
    row = ok.loc[ok["precision"].idxmax()] if len(ok) else curve.loc[curve["recall"].idxmax()]
    return {k: float(row[k]) for k in ("threshold", "precision", "recall", "f1")}
