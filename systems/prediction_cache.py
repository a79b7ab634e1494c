"""Fit-and-predict, memoized on disk: the one place a trained system's output is cached.

A system's predictions depend only on the system (class, parameters, code), the documents
it trained on and the documents it labels -- not on which protocol, fold or run asked.  So
the key is exactly that, and every caller shares the entries: the runner's cells, the base
systems inside a stacked system (``multi``'s bases trained on a whole training fold are the
same computation as the ``crf`` or ``mist`` cell of that fold), a tuned system's inner
folds.  A repeated run takes seconds, an interrupted run resumes, and two callers never
train the same model twice.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from importlib import metadata
from typing import Any

import numpy as np

from corpora import cache
from corpora.model import Document, check_predictions
from systems.base import System, check_scores

NAMESPACE = "predictions"


@dataclass
class Prediction:
    """What a system produced on test documents: a label per token, the PHI score per token
    where it scores tokens, what fitting chose (:meth:`System.fitted_info`), and the seconds
    fitting and labelling took (0 for a cache hit)."""

    labels: list[list[str]]
    scores: list[np.ndarray] | None = None
    info: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0
    cached: bool = False


def _package_version() -> str:
    try:
        return metadata.version("deid-bench")
    except metadata.PackageNotFoundError:
        return "unknown"


def documents_hash(documents: Sequence[Document]) -> str:
    """A hash of the documents' fingerprints, in order."""
    return cache.make_key(*(d.fingerprint for d in documents))


def code_fingerprint(system: System) -> str:
    """The source hash of every module the system's output depends on."""
    return "".join(cache.source_fingerprint(m) for m in sorted(code_modules(system)))


def code_modules(system: System) -> set[str]:
    """The system's module and those of the systems it wraps or stacks (found among its
    parameters, or declared by :meth:`~systems.base.System.base_modules` for systems named
    by string)."""
    modules = {type(system).__module__}
    for value in system.get_params().values():
        if isinstance(value, System):
            modules |= code_modules(value)
    return modules | set(system.base_modules())


def prediction_key(system: System, train: Sequence[Document], test: Sequence[Document]) -> str:
    """The cache key of ``system`` fitted on ``train`` and labelling ``test``.

    Rule systems ignore ``train``, so it is not part of their key: their labels of a
    document are computed once, whatever fold the document is tested in.  An external
    tool's files and version (:meth:`System.tool_fingerprint`) are part of the key.
    """
    tags = system.tags()
    return cache.make_key(
        NAMESPACE,
        type(system).__module__,
        type(system).__qualname__,
        sorted((k, repr(v)) for k, v in system.get_params().items()),
        documents_hash(train) if tags.requires_training else "",
        documents_hash(test),
        _package_version(),
        code_fingerprint(system),
        system.tool_fingerprint(),
        os.environ.get("DEID_BENCH_DICTIONARIES", ""),
    )


def is_cached(key: str) -> bool:
    """Whether an entry exists (without reading it)."""
    return cache.caching_enabled() and (cache.cache_dir() / NAMESPACE / f"{key}.pkl").exists()


def load(key: str, test: Sequence[Document]) -> Prediction | None:
    """The cached prediction under ``key`` if it lines up with ``test``, else ``None``."""
    hit = cache.load(NAMESPACE, key)
    if not isinstance(hit, Prediction) or not _well_formed(hit, test):
        return None
    hit.cached, hit.seconds = True, 0.0
    return hit


def store(key: str, prediction: Prediction) -> None:
    """Store a prediction computed elsewhere (a stacked system's own fitted base)."""
    cache.store(NAMESPACE, key, prediction)


def fit_predict(
    system: System,
    train: Sequence[Document],
    test: Sequence[Document],
    *,
    key: str | None = None,
) -> Prediction:
    """``system`` fitted on ``train`` (when it learns) labelling ``test``: from the cache when
    this exact computation was done before, else computed, checked and stored.

    Token scores are computed whenever the system declares it scores tokens, so one entry
    serves every caller.  Errors propagate (the runner records them per cell).
    """
    return fit_predict_many(system, train, [(key, test)])[0]


def fit_predict_many(
    system: System,
    train: Sequence[Document],
    tests: Sequence[tuple[str | None, Sequence[Document]]],
) -> list[Prediction]:
    """:func:`fit_predict` for several test sets of one model, given as ``(key or None,
    documents)``: the system is fitted once, and only if some test set is not cached (a
    fold's authentic test notes and their variant, ``--test-variant``).  The fit's time is
    counted in the first computed prediction, labelling in each."""
    keys = [key or prediction_key(system, train, test) for key, test in tests]
    out: list[Prediction | None] = [load(k, test) for k, (_, test) in zip(keys, tests, strict=True)]
    fitted = False
    for i, (key, (_, test)) in enumerate(zip(keys, tests, strict=True)):
        if out[i] is not None:
            continue
        start = time.perf_counter()
        if not fitted and system.tags().requires_training:
            system.fit(train)
        fitted = True
        labels, scores = system.predict_scored(test)
        labels = [list(map(str, p)) for p in labels]
        check_predictions(test, labels, system.name)
        if scores is not None:
            scores = [np.asarray(s, dtype=np.float32) for s in scores]
            check_scores(test, scores, system.name)
        result = Prediction(
            labels=labels,
            scores=scores,
            info=system.fitted_info(),
            seconds=time.perf_counter() - start,
        )
        cache.store(NAMESPACE, key, result)
        out[i] = result
    return [p for p in out if p is not None]


def out_of_fold(
    system: System, documents: Sequence[Document], folds: Sequence[tuple[list[int], list[int]]]
) -> Prediction:
    """Every document labelled (and scored, where the system scores tokens) by a clone of
    ``system`` fitted on the folds that leave it out: the decisions a stacked system learns
    from and a tuned system is selected on, each one what the system would do on a note it
    never saw.  ``folds`` partition ``documents`` (:func:`corpora.folds.document_kfold`);
    a rule system is simply applied.  Results come in document order."""
    if not system.tags().requires_training:
        return fit_predict(system, [], documents)
    labels: list[list[str]] = [[] for _ in documents]
    scores: list[np.ndarray] | None = [np.empty(0, np.float32) for _ in documents]
    for train, test in folds:
        got = fit_predict(
            system.clone(), [documents[i] for i in train], [documents[i] for i in test]
        )
        for j, i in enumerate(test):
            labels[i] = got.labels[j]
            if scores is not None and got.scores is not None:
                scores[i] = got.scores[j]
            else:
                scores = None
    return Prediction(labels, scores)


def _well_formed(value: Prediction, test: Sequence[Document]) -> bool:
    """A cached value is trusted only if it lines up with the test documents."""
    labels = value.labels
    if not isinstance(labels, list) or len(labels) != len(test):
        return False
    if any(len(p) != len(d.tokens) for p, d in zip(labels, test, strict=True)):
        return False
    if value.scores is not None:
        if len(value.scores) != len(test):
            return False
        return all(len(s) == len(d.tokens) for s, d in zip(value.scores, test, strict=True))
    return True
