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
import pickle
import time
from collections.abc import Iterator, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from importlib import metadata
from typing import Any

import numpy as np

from corpora.model import PREDICTABLE_LABELS, Document, check_predictions
from infra import cache, memo, stages
from systems import shared_labels, shared_models
from systems.base import FitContext, System, check_scores, fit_with_context

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
    #: Seconds by :data:`infra.stages.STAGES` (empty for a cache hit).
    stages: dict[str, float] = field(default_factory=dict)


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


def prediction_key(
    system: System,
    train: Sequence[Document],
    test: Sequence[Document],
    context: FitContext | None = None,
) -> str:
    """The cache key of ``system`` fitted on ``train`` (given ``context``, where it uses
    one) and labelling ``test``.

    Rule systems ignore ``train``, so it is not part of their key: their labels of a
    document are computed once, whatever fold the document is tested in.  An external
    tool's files and version (:meth:`System.tool_fingerprint`) are part of the key.
    """
    tags = system.tags()
    parts: tuple[str, ...] = ()
    if context is not None and tags.fit_context and tags.requires_training:
        parts = (context.key,)
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
        *parts,
    )


def is_cached(key: str) -> bool:
    """Whether an entry exists (without reading it)."""
    return cache.caching_enabled() and (cache.cache_dir() / NAMESPACE / f"{key}.pkl").exists()


def load(key: str, test: Sequence[Document]) -> Prediction | None:
    """The cached prediction under ``key`` if it lines up with ``test``, else ``None``."""
    hit = cache.load(NAMESPACE, key)
    if not isinstance(hit, Prediction) or not _well_formed(hit, test):
        return None
    hit.cached, hit.seconds, hit.stages = True, 0.0, {}
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
    context: FitContext | None = None,
) -> Prediction:
    """``system`` fitted on ``train`` (when it learns) labelling ``test``: from the cache when
    this exact computation was done before, else computed, checked and stored.

    Token scores are computed whenever the system declares it scores tokens, so one entry
    serves every caller.  Errors propagate (the runner records them per cell).
    """
    return fit_predict_many(system, train, [(key, test)], context=context)[0]


def fit_predict_many(
    system: System,
    train: Sequence[Document],
    tests: Sequence[tuple[str | None, Sequence[Document]]],
    *,
    context: FitContext | None = None,
    keep_model: bool = False,
    prefetch: Sequence[Document] = (),
) -> list[Prediction]:
    """:func:`fit_predict` for several test sets of one model, given as ``(key or None,
    documents)``: the system is fitted once, and only if some test set is not cached (a
    fold's authentic test notes and their variant, ``--test-variant``).  The fit's time is
    counted in the first computed prediction, labelling in each.

    ``keep_model``: the fitted model will label other documents later in this process
    (a block model of a shared cross-fitting, :mod:`systems.cross_fitting`), so it is kept
    in memory (:data:`_MODELS`) and taken from there instead of fitting it again; so are
    its labels of each document (:data:`_LABELS`), since a system labels every document on
    its own (the token interface), and a model whose labels of every test document are
    remembered is not needed at all.  ``prefetch``: documents such a model will be asked
    to label later, labelled and remembered as soon as it is fitted."""
    keys = [key or prediction_key(system, train, test, context) for key, test in tests]
    out: list[Prediction | None] = [load(k, test) for k, (_, test) in zip(keys, tests, strict=True)]
    model = _Model(system, train, context, keep_model)
    for i, (key, (_, test)) in enumerate(zip(keys, tests, strict=True)):
        if out[i] is not None:
            continue
        start = time.perf_counter()
        with stages.recording() as spent:
            labels, scores = model.labelled(test, prefetch)
            labels = [list(map(str, p)) for p in labels]
            check_predictions(test, labels, system.name)
            if scores is not None:
                scores = [np.asarray(s, dtype=np.float32) for s in scores]
                check_scores(test, scores, system.name)
        result = Prediction(
            labels=labels,
            scores=scores,
            info=model.info(),
            seconds=time.perf_counter() - start,
            stages=stages.rounded(spent),
        )
        cache.store(NAMESPACE, key, result)
        out[i] = result
    return [p for p in out if p is not None]


def _weigh_model(key: tuple[str, str], model: System) -> int:
    """Bytes of a kept model, estimated by its pickle (64 MB where it cannot be pickled)."""
    try:
        return len(pickle.dumps(model, protocol=pickle.HIGHEST_PROTOCOL))
    except Exception:  # an external tool's handle, a lock: count it as large
        return 64 * 1024**2


#: Fitted models kept for later calls in this process (``keep_model``), by their key
#: without the test documents and the first training document (released with it, so a
#: worker that moves on to another corpus drops them).
_MODELS: memo.Memo[tuple[str, str], System] = memo.Memo(
    "predictions.models", weigh=_weigh_model, document=lambda key: key[1]
)


#: Per document, the labels and scores of a kept model (``keep_model``), by the model's
#: key and the document's fingerprint (released with the document); the labels packed
#: (:func:`_pack`).
_LABELS: memo.Memo[tuple[str, str], tuple[np.ndarray | list[str], np.ndarray | None]] = (
    memo.Memo("predictions.labels", document=lambda key: key[1])
)

#: The token interface's labels in a fixed order: a remembered labelling holds one byte
#: per token (its label's place here) instead of a pointer, so a corpus's labels by every
#: block model stay within the memo's budget (evicted labels cost a model's refit).
_PACKED: tuple[str, ...] = tuple(sorted(PREDICTABLE_LABELS))
_CODE = {label: code for code, label in enumerate(_PACKED)}


def _pack(labels: Sequence[str]) -> np.ndarray | list[str]:
    """``labels`` as codes of :data:`_PACKED` (as they are where one is not a label of
    the interface: :func:`corpora.model.check_predictions` then refuses them)."""
    try:
        return np.fromiter(map(_CODE.__getitem__, labels), np.uint8, len(labels))
    except KeyError:
        return list(labels)


def _unpack(packed: np.ndarray | list[str]) -> list[str]:
    if isinstance(packed, np.ndarray):
        return list(map(_PACKED.__getitem__, packed.tolist()))
    return list(packed)


class _Model:
    """``system`` to be fitted on ``train`` when a label is first asked of it.  A kept
    model (``keep``) is looked up in :data:`_MODELS` first, and labels each document once
    (:data:`_LABELS`): documents whose labels are remembered need no model at all.  So
    does a rule system, whose labels of a document are the same whatever fold asks
    (``multi`` applies its rule bases to the training notes of every outer fold)."""

    def __init__(
        self, system: System, train: Sequence[Document], context: FitContext | None, keep: bool
    ) -> None:
        self.system, self.train, self.context = system, train, context
        self.fitted = not system.tags().requires_training
        self.key: tuple[str, str] | None = None
        #: The model's key in every process (its labels, :mod:`systems.shared_labels`).
        self.shared: str | None = None
        if self.fitted:
            self.key = (prediction_key(system, [], [], context), "")
        elif keep and train:
            from systems.features.base import FEATURE_SPACE  # models hold its feature ids

            self.shared = prediction_key(system, train, [], context)
            self.key = (f"{self.shared}@{FEATURE_SPACE.generation}", train[0].fingerprint)

    def _fit(self) -> System:
        if self.fitted:
            return self.system
        kept = _MODELS.get(self.key) if self.key is not None else None
        if kept is not None:
            self.system = kept
        else:
            keeping = _KEEPING.set(self.key is not None)
            try:
                with stages.stage(stages.FIT):
                    if self.shared is not None and self.system.tags().portable_model:
                        self.system = shared_models.fitted(self.shared, self._fit_here)
                    else:
                        self._fit_here()
            finally:
                _KEEPING.reset(keeping)
            if self.key is not None:
                _MODELS.put(self.key, self.system)
        self.fitted = True
        return self.system

    def _fit_here(self) -> System:
        fit_with_context(self.system, self.train, self.context)
        return self.system

    def info(self) -> dict[str, Any]:
        """The fitted model's :meth:`~systems.base.System.fitted_info` (empty when every
        label came from memory and no model was needed)."""
        return self.system.fitted_info() if self.fitted else {}

    def labelled(
        self, test: Sequence[Document], prefetch: Sequence[Document] = ()
    ) -> tuple[list[list[str]], list[np.ndarray] | None]:
        """``predict_scored(test)``; for a kept model, each document labelled once (what
        any worker stored for the model, :mod:`systems.shared_labels`, is read before it
        is fitted), and ``prefetch`` labelled with the first documents that need it."""
        if self.key is None:
            system = self._fit()
            with stages.stage(stages.PREDICT):
                return system.predict_scored(test)
        model_key = self.key[0]
        known = [_LABELS.get((model_key, d.fingerprint)) for d in test]
        if any(hit is None for hit in known):
            known = self._label(model_key, test, known, prefetch)
        scored = [score for _, score in known]
        return [_unpack(lab) for lab, _ in known], (
            None if any(score is None for score in scored) else scored  # type: ignore[misc]
        )

    def _label(
        self,
        model_key: str,
        test: Sequence[Document],
        known: list[tuple[Any, Any] | None],
        prefetch: Sequence[Document],
    ) -> list[tuple[Any, Any]]:
        """``known`` completed: from what any process stored for this model, else labelled
        here (with ``prefetch``), remembered under ``model_key``, and stored for the others."""
        missing = [d.fingerprint for d, hit in zip(test, known, strict=True) if hit is None]
        stored = shared_labels.read(self.shared, missing) if self.shared else {}
        for fingerprint, value in stored.items():
            _LABELS.put((model_key, fingerprint), value)
        todo = [d for d, hit in zip(test, known, strict=True) if hit is None]
        todo = [d for d in todo if d.fingerprint not in stored]
        fresh: dict[str, tuple[Any, Any]] = {}
        if todo:
            have = {d.fingerprint for d in todo}
            todo += [
                d
                for d in prefetch
                if d.fingerprint not in have and (model_key, d.fingerprint) not in _LABELS
            ]
            system = self._fit()
            with stages.stage(stages.PREDICT):
                labels, scores = system.predict_scored(todo)
            fresh = {
                d.fingerprint: _LABELS.put((model_key, d.fingerprint), (_pack(lab), score))
                for d, lab, score in zip(
                    todo, labels, scores if scores is not None else [None] * len(todo), strict=True
                )
            }
            if self.shared:
                shared_labels.write(self.shared, fresh)
        got = {**stored, **fresh}
        return [
            hit if hit is not None else got[d.fingerprint]
            for d, hit in zip(test, known, strict=True)
        ]


#: Whether this process is fitting a kept model (``keep_model``), whose parts
#: :func:`fitted` then keeps too.
_KEEPING: ContextVar[bool] = ContextVar("prediction_cache.keeping", default=False)


def fitted(system: System, train: Sequence[Document]) -> System:
    """``system`` fitted on ``train``: the model this process keeps under that key where
    there is one, else fitted here, and kept when it is part of a kept model being fitted.

    Why: one model can be a part of another.  The first stage of ``multi``'s Illinois block
    model (the base without its second stage, on the notes outside a block) is the block
    model of the same base's own jackknife in the full fit of the same outer fold: the same
    system on the same notes, which was fitted twice (six fits of half a corpus per corpus
    of the default run).  A part of a model that is not kept is not kept either, so a full
    fit's first stage does not push block models out of memory."""
    model = _Model(system, train, None, True)
    if model.key is None:
        return model._fit()
    kept = _MODELS.get(model.key)
    if kept is not None:
        return kept
    fit_with_context(system, train, None)
    if _KEEPING.get():
        _MODELS.put(model.key, system)
    return system


def remember(system: System, train: Sequence[Document], documents: Sequence[Document]) -> None:
    """Label ``documents`` with ``system`` fitted on ``train`` if that model is still kept
    in memory (:data:`_MODELS`, a block model of a shared cross-fitting) and remember the
    labels (:data:`_LABELS`), so that no later call fits it again for them.  Nothing is
    fitted here: a model no longer kept is fitted when its labels are asked for."""
    model = _Model(system, train, None, True)
    if model.key is None or model.key not in _MODELS:
        return
    todo = [d for d in documents if (model.key[0], d.fingerprint) not in _LABELS]
    if todo:
        model.labelled(todo)


def out_of_fold(
    system: System,
    documents: Sequence[Document],
    folds: Sequence[tuple[Sequence[int], Sequence[int]]],
    keep_models: Sequence[bool] = (),
    prefetch: Sequence[Sequence[int]] = (),
) -> Prediction:
    """Every document labelled (and scored, where the system scores tokens) by a clone of
    ``system`` fitted on the folds that leave it out: the decisions a stacked system learns
    from and a tuned system is selected on, each one what the system would do on a note it
    never saw.  ``folds`` are (train, test) index pairs whose test parts partition
    ``documents`` (:func:`corpora.folds.document_kfold`, or the labellers of
    :func:`systems.cross_fitting.shared_plan`, whose ``keep_models`` say which fitted
    models to keep in memory and ``prefetch`` what else each will label later); a rule
    system is simply applied.  Results come in document order."""
    if not system.tags().requires_training:
        return fit_predict(system, [], documents)
    labels: list[list[str]] = [[] for _ in documents]
    scores: list[np.ndarray] | None = [np.empty(0, np.float32) for _ in documents]
    for n in _fitting_order(system, documents, folds, keep_models):
        train, test = folds[n]
        got = fit_predict_many(
            system.clone(),
            [documents[i] for i in train],
            [(None, [documents[i] for i in test])],
            keep_model=bool(keep_models[n]) if n < len(keep_models) else False,
            prefetch=[documents[i] for i in prefetch[n]] if n < len(prefetch) else (),
        )[0]
        for j, i in enumerate(test):
            labels[i] = got.labels[j]
            if scores is not None and got.scores is not None:
                scores[i] = got.scores[j]
            else:
                scores = None
    return Prediction(labels, scores)


def _fitting_order(
    system: System,
    documents: Sequence[Document],
    folds: Sequence[tuple[Sequence[int], Sequence[int]]],
    keep_models: Sequence[bool],
) -> Iterator[int]:
    """The folds in order, except that a kept model another worker is fitting now is left
    for later (:mod:`systems.shared_models`): by then it is stored, and this worker has
    fitted others instead of waiting.  Each next fold is chosen when the last is done; when
    every fold left is being fitted elsewhere, the first is waited for.  The labels are the
    same in any order."""
    pending = list(range(len(folds)))
    keys: dict[int, str] = {}
    if cache.shared_work() and system.tags().portable_model:
        keys = {
            n: prediction_key(system, [documents[i] for i in folds[n][0]], [])
            for n in pending
            if n < len(keep_models) and keep_models[n]
        }
    while pending:
        free = (n for n in pending if n not in keys or not shared_models.busy(keys[n]))
        n = next(free, pending[0])
        pending.remove(n)
        yield n


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
