"""One bounded memo for every per-process cache: the only place a module keeps results.

Every cache a process holds in memory -- POS tags, encoded features, CRF item sequences,
gold codes, token forms, word lists loaded once, lexicons compiled per set of
dictionaries -- is a :class:`Memo` with the same policy (a module never keeps a dict of
results or a :func:`functools.lru_cache` of its own: :func:`memoize` is the decorator):

* **bounded**: each memo has a budget in (estimated) bytes, listed in :data:`BUDGETS`, and
  may also cap its number of entries; an entry that would go over either pushes out the
  least recently used ones;
* **released with its documents**: a memo keyed by document says how
  (``document=``); :func:`release` drops the entries of every document that no task left
  in the run needs.  :mod:`bench.run.execution` calls it around each task, so a worker that
  has finished a corpus does not carry it into the next one;
* **thread-safe**: dask workers run tasks in threads.  A value is computed outside the lock
  (two threads may compute the same entry; both get equal values).

The budgets add up to under two thirds of :data:`MEMORY_TARGET`, the peak a process may
reach: the rest is left to what a cell allocates while it runs (training matrices, the
learners' own copies, predictions).  Sizes are estimates (:func:`approximate_size`, or
the memo's own ``weigh``), not measurements: they bound the number of entries, and are
chosen so that one corpus's worth of each cache fits (a memo smaller than what a task
cycles through would recompute everything: least-recently-used order evicts each entry
just before its reuse).
"""

from __future__ import annotations

import sys
import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable, Collection, Hashable, Iterable
from functools import wraps
from typing import Any, Generic, Protocol, TypeVar

import numpy as np

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")
F = TypeVar("F", bound=Callable[..., Any])


class SpillTier(Protocol[K, V]):
    """Where a memo's evicted entries go and are read back from (:class:`infra.spill.Spill`
    for tuples of arrays): a second tier the memo consults before recomputing."""

    def __len__(self) -> int: ...
    def put(self, key: K, value: V) -> bool: ...
    def get(self, key: K) -> V | None: ...
    def retain(self, documents: Collection[str]) -> int: ...
    def clear(self) -> None: ...


MB = 1024**2
#: The peak resident memory a worker process should stay under (docs/speed.md).
MEMORY_TARGET = 2048 * MB

#: Every process-wide memo and its budget.  One place to see what a process keeps.
BUDGETS: dict[str, int] = {
    # systems.features.base: every feature class's output, as int32 ids (all systems), and
    # each feature class's constructor parameters; systems.features.stored: what identifies
    # a directory of word lists, for the disk keys of encodings
    "features.encoded": 160 * MB,
    # ... and each document's rows of a feature set, merged and sorted (an SVM's binary
    # design rows), once the memo above has had to evict: a tuned run over more notes
    # than it holds reads them back from its spill file rather than merge them again
    "features.binary_rows": 32 * MB,
    "features.param_names": 1 * MB,
    "features.lists_stamp": 1 * MB,
    # systems.crf: CRFsuite item sequences of documents (crf, mist and multi's bases)
    "crf.encoded": 432 * MB,
    # corpora.nlp: POS tags and lemmas per document, tags per sentence, lemma per word
    "nlp.pos": 48 * MB,
    "nlp.lemmas": 48 * MB,
    "nlp.sentence_tags": 64 * MB,
    "nlp.lemma": 24 * MB,
    # bench.score.metrics: gold label codes and gold entities per document (scoring)
    "metrics.gold": 32 * MB,
    "metrics.gold_entities": 32 * MB,
    # systems.patterns: dictionary look-up form of a token text
    "patterns.forms": 24 * MB,
    # systems.prediction_cache: fitted models a shared cross-fitting labels with again
    # (multi's block models: about 2-10 MB each, needed again only for the documents of
    # the outer fold they were fitted in)
    "predictions.models": 64 * MB,
    # and their labels and scores of each document (about 10 bytes a token; each document
    # is labelled by about three block models per base)
    "predictions.labels": 32 * MB,
    # systems.cross_fitting: the covering design of each number of outer folds
    "cross_fitting.blocks": 1 * MB,
    # systems.svm: the last training matrices, while candidates are selected (--tune)
    "svm.designs": 96 * MB,
    # bench.score.significance: each corpus's bootstrap draws, a resamples x documents
    # matrix (8 MB for 1000 resamples of 1,000 notes), shared by every row's interval
    "significance.bootstrap": 32 * MB,
    # systems.augment: transformed copies of training notes (--augment), released with the
    # notes; bench.training.extra_training: the corpora of --extra-training
    "augment.copies": 16 * MB,
    "training.extra_corpora": 1 * MB,
    # corpora.dictionaries: word lists loaded once, and the dictionaries of each directory
    "dictionaries.deid_files": 1 * MB,
    "dictionaries.system": 1 * MB,
    "dictionaries.census_names": 1 * MB,
    "dictionaries.gazetteer": 1 * MB,
    "dictionaries.us_places": 2 * MB,
    "dictionaries.world_places": 1 * MB,
    "dictionaries.english_words": 1 * MB,
    "dictionaries.default": 1 * MB,
    "dictionaries.surrogate": 1 * MB,
    # corpora.nlp: the tagger and the lemmatizer, loaded once
    "nlp.tagger": 1 * MB,
    "nlp.lemmatizer": 1 * MB,
    # corpora.generator: what a sentence template holds, and the weights of the choices
    "generator.phi_categories": 2 * MB,
    "generator.weights": 4 * MB,
    "generator.family_members": 2 * MB,
    "generator.family_weights": 4 * MB,
    # corpora.surrogates, corpora.variants, corpora.foreign, corpora.ambiguity: pools of
    # surrogate names and places, words a variant may not use, the embedded corpus's
    # ambiguous words
    "surrogates.pools": 1 * MB,
    "surrogates.lower_sets": 8 * MB,
    "variants.vocabularies": 4 * MB,
    "variants.unseen_forbidden": 4 * MB,
    "foreign.pools": 2 * MB,
    "foreign.us_places": 1 * MB,
    "ambiguity.stop_words": 1 * MB,
    "ambiguity.name_words": 8 * MB,
    "ambiguity.substitutions": 1 * MB,
    "ambiguity.substitution_pattern": 1 * MB,
    "ambiguity.states": 1 * MB,
    # infra.cache: the hash of each module's source and the modules it imports
    "cache.source_fingerprints": 1 * MB,
    # systems: lexicons compiled per set of dictionaries (heuristic, mimic, dictionary
    # features), per-word memos (HMM word features, WordNet classes), patterns and helpers
    "heuristic.lexicons": 1 * MB,
    "mimic.lexicons": 1 * MB,
    "mimic.name_patterns": 1 * MB,
    "features.dictionary_lexicons": 1 * MB,
    "features.dictionary_indexes": 1 * MB,
    "statdeid.wordnet_classes": 8 * MB,
    "hmm.word_features": 8 * MB,
    "snow.assignments": 8 * MB,
    "linkgrammar.module": 1 * MB,
    "linkgrammar.parser": 1 * MB,
    "external.prctl": 1 * MB,
    # infra.memory: glibc's malloc_trim, looked up once
    "memory.malloc_trim": 1 * MB,
    "external.file_digests": 1 * MB,
    "presidio.analyzers": 1 * MB,
}


def approximate_size(value: Any) -> int:
    """A cheap estimate of the bytes ``value`` holds (shallow, plus array buffers and the
    items of small containers)."""
    if isinstance(value, np.ndarray):
        return value.nbytes + 112
    if isinstance(value, str | bytes):
        return sys.getsizeof(value)
    if isinstance(value, tuple | list):
        size = sys.getsizeof(value)
        for item in value[:1]:  # items of one kind: size one, count them all
            if isinstance(item, np.ndarray | tuple | list):
                size += sum(approximate_size(x) for x in value)
        return size
    return sys.getsizeof(value)


class Memo(Generic[K, V]):
    """A thread-safe, least-recently-used mapping bounded by an estimate of its bytes.

    ``name`` is its entry in :data:`BUDGETS` (or pass ``budget`` in bytes).  ``weigh(key,
    value)`` estimates an entry's bytes (default :func:`approximate_size` of both);
    ``max_entries`` caps the number of entries too, for values whose estimate says little
    of what they hold (a loaded model, a corpus); ``document(key)`` gives the document
    fingerprint an entry belongs to, which makes the memo subject to :func:`release`.
    ``spill`` is a second tier: entries pushed out go there, and a miss reads it before
    the caller recomputes (:meth:`clear` empties both; :meth:`evict_all` moves what is held
    there).
    """

    def __init__(
        self,
        name: str,
        budget: int | None = None,
        *,
        weigh: Callable[[K, V], int] | None = None,
        document: Callable[[K], str] | None = None,
        max_entries: int | None = None,
        spill: SpillTier[K, V] | None = None,
    ) -> None:
        self.name = name
        self.spill = spill
        self.budget = BUDGETS[name] if budget is None else int(budget)
        self.max_entries = max_entries
        self.weigh = weigh or (lambda k, v: approximate_size(k) + approximate_size(v))
        self.document = document
        self._entries: OrderedDict[K, tuple[V, int]] = OrderedDict()
        self._size = 0
        self._lock = threading.Lock()
        self.hits = self.misses = self.evictions = 0
        _register(self)

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, key: object) -> bool:
        return key in self._entries

    def __repr__(self) -> str:
        return (
            f"Memo({self.name!r}, {len(self)} entries, {self._size / MB:.1f} of "
            f"{self.budget / MB:.0f} MB)"
        )

    @property
    def size(self) -> int:
        """Estimated bytes held."""
        return self._size

    def get(self, key: K, default: Any = None) -> V | Any:
        """The value of ``key`` (now the most recently used), else ``default``."""
        with self._lock:
            hit = self._entries.get(key)
            if hit is not None:
                self._entries.move_to_end(key)
                self.hits += 1
                return hit[0]
            self.misses += 1
        if self.spill is not None:
            value = self.spill.get(key)
            if value is not None:
                return self.put(key, value)
        return default

    def get_many(self, keys: Iterable[K], compute: Callable[[K], V]) -> list[V]:
        """``[self.get(k) or compute(k) for k in keys]`` under one lock (hot paths: a value
        per token); ``compute`` must be cheap and not use this memo.  A spill tier is not
        read here (no memo read this way has one), only written by evictions."""
        out: list[V] = []
        append = out.append
        with self._lock:
            entries = self._entries
            get, touch = entries.get, entries.move_to_end
            for key in keys:
                hit = get(key)
                if hit is None:
                    value = compute(key)
                    self._insert(key, value)
                    append(value)
                else:
                    touch(key)
                    append(hit[0])
        return out

    def put(self, key: K, value: V) -> V:
        """Store ``value`` under ``key`` (evicting the least recently used entries over the
        budget) and return it.  An entry larger than the whole budget is not kept, except
        in a memo with ``max_entries``, which then keeps it alone."""
        with self._lock:
            self._insert(key, value)
        return value

    def _insert(self, key: K, value: V) -> None:
        size = int(self.weigh(key, value))
        old = self._entries.pop(key, None)
        if old is not None:
            self._size -= old[1]
        limit = self.max_entries
        # A memo bounded by its number of entries holds values whose size estimate says
        # little (a word list, a loaded model): one such value over the byte budget is
        # kept alone, or it would be recomputed on every call -- a vocabulary of 10^5
        # words rebuilt for each note.  A memo bounded by bytes only refuses it.
        if size > self.budget and limit is None:
            return
        self._entries[key] = (value, size)
        self._size += size
        while len(self._entries) > 1 and (
            self._size > self.budget or (limit is not None and len(self._entries) > limit)
        ):
            gone, (value, dropped) = self._entries.popitem(last=False)
            self._size -= dropped
            self.evictions += 1
            if self.spill is not None:
                self.spill.put(gone, value)

    def get_or_compute(self, key: K, compute: Callable[[], V]) -> V:
        """The value of ``key``, computed (outside the lock) and stored on a miss."""
        sentinel = _MISSING
        hit = self.get(key, sentinel)
        if hit is not sentinel:
            return hit
        return self.put(key, compute())

    def discard(self, key: K) -> None:
        with self._lock:
            old = self._entries.pop(key, None)
            if old is not None:
                self._size -= old[1]

    def clear(self) -> None:
        """Drop every entry, those of the spill tier included."""
        with self._lock:
            self._entries.clear()
            self._size = 0
            if self.spill is not None:
                self.spill.clear()

    def evict_all(self) -> None:
        """Push every entry out, as the budget would: to the spill tier where there is one
        (read back from there when needed again), else dropped."""
        with self._lock:
            while self._entries:
                key, (value, _) = self._entries.popitem(last=False)
                if self.spill is not None:
                    self.spill.put(key, value)
            self._size = 0

    @property
    def spilled(self) -> int:
        """Entries in the spill tier (0 without one)."""
        return len(self.spill) if self.spill is not None else 0

    def retain(self, documents: Collection[str]) -> int:
        """Drop the entries of documents not in ``documents``; returns how many went.
        A memo not keyed by document keeps everything."""
        if self.document is None:
            return 0
        of = self.document
        with self._lock:
            gone = [k for k in self._entries if of(k) not in documents]
            for k in gone:
                self._size -= self._entries.pop(k)[1]
            if self.spill is not None:
                self.spill.retain(documents)
        return len(gone)


_MISSING: Any = object()
_MEMOS: weakref.WeakSet[Memo[Any, Any]] = weakref.WeakSet()
_MEMOS_LOCK = threading.Lock()


def _register(memo: Memo[Any, Any]) -> None:
    with _MEMOS_LOCK:
        _MEMOS.add(memo)


def memos() -> list[Memo[Any, Any]]:
    """Every memo created in this process (module-level ones live as long as it does)."""
    with _MEMOS_LOCK:
        return list(_MEMOS)


def release(keep: Collection[str] = (), *, idle: bool = True) -> int:
    """Drop, from every document-keyed memo, the entries of documents not in ``keep`` (the
    fingerprints some task still to run needs); returns how many entries went.

    Then run the hooks of :func:`on_release` with ``idle``: whether no task is running in
    this process any more, so that state tied to what is still held may start over (the
    feature vocabulary does when no document's features are held).
    """
    gone = sum(m.retain(keep) for m in memos())
    for hook in list(_HOOKS):
        hook(idle)
    return gone


_HOOKS: list[Callable[[bool], None]] = []


def on_release(hook: Callable[[bool], None]) -> Callable[[bool], None]:
    """Register ``hook(idle)`` to run after every :func:`release` (a decorator)."""
    _HOOKS.append(hook)
    return hook


def memoize(
    name: str, budget: int | None = None, *, identity: Collection[int] = (), **options: Any
) -> Callable[[F], F]:
    """A function memoized in a :class:`Memo`, in place of :func:`functools.lru_cache`
    (``options`` as for :class:`Memo`, e.g. ``max_entries``).  The wrapper has ``memo`` and
    ``cache_clear()``.

    Arguments must be hashable, except those at the positions in ``identity``: an object
    that is costly or impossible to hash (a :class:`~corpora.dictionaries.Dictionaries`, a
    lexicon) is keyed by its identity, and the entry holds it, so its ``id`` cannot be
    reused by another object while the result computed from it is kept."""

    if identity:  # one entry per object: a count bounds them (see Memo._insert)
        options.setdefault("max_entries", 8)

    def decorate(func: F) -> F:
        memo: Memo[Any, Any] = Memo(name, budget, **options)
        if identity:
            return _by_identity(func, memo, frozenset(identity))

        @wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            key = (*args, _KWARGS, *sorted(kwargs.items())) if kwargs else args
            hit = memo.get(key, _MISSING)
            if hit is _MISSING:
                hit = memo.put(key, func(*args, **kwargs))
            return hit

        wrapper.memo = memo  # type: ignore[attr-defined]
        wrapper.cache_clear = memo.clear  # type: ignore[attr-defined]
        return wrapper  # type: ignore[return-value]

    return decorate


#: Separates positional from keyword arguments in a :func:`memoize` key.
_KWARGS: Any = object()


def _by_identity(func: F, memo: Memo[Any, Any], positions: frozenset[int]) -> F:
    """:func:`memoize` with the arguments at ``positions`` keyed by identity (positional
    arguments only); each entry is ``(the objects, the result)``."""

    @wraps(func)
    def wrapper(*args: Any) -> Any:
        key = tuple(id(a) if i in positions else a for i, a in enumerate(args))
        held = tuple(a for i, a in enumerate(args) if i in positions)
        hit = memo.get(key, _MISSING)
        if hit is _MISSING or any(x is not y for x, y in zip(hit[0], held, strict=True)):
            hit = memo.put(key, (held, func(*args)))
        return hit[1]

    wrapper.memo = memo  # type: ignore[attr-defined]
    wrapper.cache_clear = memo.clear  # type: ignore[attr-defined]
    return wrapper  # type: ignore[return-value]
