"""Evaluation protocols: which documents train and which test each cell.

Folds are drawn by document, never by token (tokens of one note are not independent), and
from the seed alone, so every system sees exactly the same folds (Sibanda & Uzuner 2006
use 10-fold cross-validation, §6).  Where documents carry a grouping key (the patient of a
PhysioNet note; ``--group-by``), whole groups go to one fold (:mod:`corpora.folds`).

Four protocols produce :class:`Split` objects; the runner crosses them with systems:

* ``cv`` -- k-fold cross-validation by document or group (:func:`cross_validation`);
* ``split`` -- a corpus's own train/test split where it has one, as the i2b2 2006 challenge
  corpus does (669 training / 220 test summaries; Stat De-id report §5.1, Tafvizi 2011 §5.1)
  (:func:`own_split`);
* ``cross`` -- train on every document of one corpus, test on every document of another
  (Tafvizi 2011 §6.1.2, Table A.13) (:func:`cross_corpus`);
* ``variant`` -- the folds of ``cv``, trained on the authentic training folds and tested on
  a variant of the test fold (surrogate, ambiguous or unseen names): the paper's §6.3
  question -- does the system hold on names it never saw? -- asked without the test notes
  leaking into training (:func:`variant_test`);
* ``learning-curve`` -- train on nested fractions 3.125 % ... 100 % of each training fold
  (Stat De-id re-implementation report §5.6, Figs 6-7) (:func:`learning_curve`).

Systems that need no training receive the same splits and simply ignore the training part.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from corpora.folds import kfold, resolve_group_key
from corpora.model import Corpus

#: Training-set fractions of the Stat De-id report's learning curve (§5.6): 1/32 ... 1.
LEARNING_CURVE_FRACTIONS: tuple[float, ...] = (0.03125, 0.0625, 0.125, 0.25, 0.5, 1.0)
#: Protocol names as they appear in results.csv.
PROTOCOLS = ("cv", "split", "cross", "learning-curve", "variant")
#: Metadata keys a reader may set on a document to declare the corpus's own split.
SPLIT_KEY = "split"


@dataclass(frozen=True)
class Split:
    """One train/test assignment: document indices into a training and a test corpus.

    ``train_corpus`` equals ``test_corpus`` except under the ``cross`` protocol.  ``fold``
    numbers the splits of one protocol; ``fraction`` is the share of the training fold used
    (1.0 except on a learning curve).
    """

    protocol: str
    fold: int
    train_corpus: str
    train: tuple[int, ...]
    test_corpus: str
    test: tuple[int, ...]
    fraction: float = 1.0
    #: What determines the split (k, seed and grouping for cv, "own" for split, ...).
    scheme: str = ""

    @property
    def label(self) -> str:
        """A short human name, e.g. ``cv fold 3/10`` or ``learning-curve 12.5% fold 0``."""
        if self.protocol == "learning-curve":
            return f"{self.protocol} {self.fraction:.4g} fold {self.fold}"
        return f"{self.protocol} fold {self.fold}"


def cross_validation(
    corpus: Corpus, k: int = 10, seed: int = 0, group_by: str = "auto"
) -> list[Split]:
    """``k`` folds of ``corpus``, identical for every system (same seed), whole groups on
    one side where ``group_by`` resolves to a key (:func:`corpora.folds.resolve_group_key`)."""
    key = resolve_group_key(corpus.documents, group_by)
    groups = None if key is None else [str(d.metadata[key]) for d in corpus.documents]
    folds = kfold(len(corpus), k, seed, groups)
    return [
        Split(
            "cv",
            i,
            corpus.name,
            tuple(tr),
            corpus.name,
            tuple(te),
            1.0,
            f"k={k},seed={seed}" + (f",group={key}" if key else ""),
        )
        for i, (tr, te) in enumerate(folds)
    ]


#: The grouping of a ``cross`` run: its test corpus is not split, another corpus trains.
NOT_SPLIT = "not split"


def grouping_of(splits: list[Split]) -> str:
    """How the documents of ``splits`` were grouped: ``patient``, ``template``, ... or
    ``document`` (read back from the scheme, for run.json and the report); ``not split``
    under the ``cross`` protocol, which has no folds to group."""
    if splits and all(s.protocol == "cross" for s in splits):
        return NOT_SPLIT
    for s in splits:
        for part in s.scheme.split(","):
            if part.startswith("group="):
                return part.split("=", 1)[1].split(";")[0]
    return "document"


def variant_test(
    authentic: Corpus, variant: Corpus, k: int = 10, seed: int = 0, group_by: str = "auto"
) -> list[Split]:
    """The ``cv`` folds of ``authentic``, each tested on the same documents of ``variant``.

    A variant keeps the documents one to one and in order (it only rewrites PHI), so test
    document ``i`` of the variant is the transformed test document ``i`` of the authentic
    corpus, and the systems train on authentic notes only.
    """
    if [d.id for d in authentic.documents] != [d.id for d in variant.documents]:
        raise ValueError(
            f"{variant.name} does not pair document for document with {authentic.name}"
        )
    return [
        Split(
            "variant",
            s.fold,
            authentic.name,
            s.train,
            variant.name,
            s.test,
            1.0,
            f"{s.scheme};variant",
        )
        for s in cross_validation(authentic, k, seed, group_by)
    ]


def has_own_split(corpus: Corpus) -> bool:
    """True when every document declares ``metadata['split']`` and both parts are present."""
    values = {doc.metadata.get(SPLIT_KEY) for doc in corpus.documents}
    return values == {"train", "test"}


def own_split(corpus: Corpus) -> list[Split]:
    """The corpus's own train/test split (documents tagged ``metadata['split']``)."""
    if not has_own_split(corpus):
        raise ValueError(
            f"corpus {corpus.name!r} has no train/test split (documents need "
            f"metadata['{SPLIT_KEY}'] of 'train' or 'test')"
        )
    train = tuple(i for i, d in enumerate(corpus.documents) if d.metadata[SPLIT_KEY] == "train")
    test = tuple(i for i, d in enumerate(corpus.documents) if d.metadata[SPLIT_KEY] == "test")
    return [Split("split", 0, corpus.name, train, corpus.name, test, 1.0, "own")]


def cross_corpus(train: Corpus, test: Corpus) -> list[Split]:
    """Train on all of ``train``, test on all of ``test`` (Tafvizi 2011, Table A.13).

    Where the training corpus has its own split only its training part is used, and where
    the test corpus has one only its test part is scored, as in the thesis (trained on the
    Surrogate Challenge training sub-corpus, tested on the Surrogate Obesity test one).
    """
    if has_own_split(train):
        tr = tuple(i for i, d in enumerate(train.documents) if d.metadata[SPLIT_KEY] == "train")
    else:
        tr = tuple(range(len(train)))
    if has_own_split(test):
        te = tuple(i for i, d in enumerate(test.documents) if d.metadata[SPLIT_KEY] == "test")
    else:
        te = tuple(range(len(test)))
    return [Split("cross", 0, train.name, tr, test.name, te, 1.0, f"train={train.fingerprint}")]


def training_subset(train: tuple[int, ...], fraction: float, seed: int) -> tuple[int, ...]:
    """A seeded ``fraction`` of ``train`` (at least one document), nested across fractions.

    Nested means the 25 % subset contains the 12.5 % one, so the curve measures more data,
    not different data.
    """
    if not 0 < fraction <= 1:
        raise ValueError(f"training fraction must be in (0, 1], got {fraction}")
    order = np.random.default_rng(seed).permutation(len(train))
    n = max(1, math.ceil(fraction * len(train) - 1e-9))
    return tuple(sorted(train[i] for i in order[:n]))


def learning_curve(
    corpus: Corpus,
    fractions: tuple[float, ...] = LEARNING_CURVE_FRACTIONS,
    k: int = 10,
    seed: int = 0,
    group_by: str = "auto",
) -> list[Split]:
    """For each training fold (or the corpus's own split), nested training fractions.

    The Stat De-id report (§5.6) trains on 3.125 %-100 % of a fixed training set and tests on
    a fixed test set; where a corpus has no split we use each cross-validation fold's training
    part instead, so every point averages over the whole corpus.
    """
    base = (
        own_split(corpus) if has_own_split(corpus) else cross_validation(corpus, k, seed, group_by)
    )
    splits = []
    for s in base:
        for fraction in fractions:
            splits.append(
                Split(
                    "learning-curve",
                    s.fold,
                    s.train_corpus,
                    training_subset(s.train, fraction, seed + s.fold),
                    s.test_corpus,
                    s.test,
                    fraction,
                    f"{s.scheme};frac={fraction}",
                )
            )
    return splits


def make_splits(
    protocol: str,
    corpus: Corpus,
    *,
    k: int = 10,
    seed: int = 0,
    train_corpus: Corpus | None = None,
    fractions: tuple[float, ...] = LEARNING_CURVE_FRACTIONS,
    group_by: str = "auto",
) -> list[Split]:
    """Splits of ``corpus`` under ``protocol`` (``auto``: own split if any, else cv)."""
    if protocol == "auto":
        protocol = "split" if has_own_split(corpus) else "cv"
    if protocol == "cv":
        return cross_validation(corpus, k, seed, group_by)
    if protocol == "split":
        return own_split(corpus)
    if protocol == "cross":
        if train_corpus is None:
            raise ValueError("the cross protocol needs a training corpus")
        return cross_corpus(train_corpus, corpus)
    if protocol == "learning-curve":
        return learning_curve(corpus, fractions, k, seed, group_by)
    raise ValueError(f"unknown protocol {protocol!r}; known: auto, {', '.join(PROTOCOLS)}")
