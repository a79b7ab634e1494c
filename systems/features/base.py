"""Feature classes: small objects that turn a document's tokens into sparse features.

Why objects: the same feature class is used by several systems -- the Mega SVM is the
union of the Stat De-id, Stanford, MIST, MIMIC and Illinois feature classes (Tafvizi 2011,
§1.2) -- so no feature is written twice, and ablations (Stat De-id report, Figs 2-5) switch
whole classes on and off.

Each class returns, per token, a ``dict`` of feature name -> ``1.0`` (``"w=smith": 1.0``,
``"len=5": 1.0``): every feature is an indicator.  A process holds each (document, feature
class) result once, in :data:`FEATURE_SPACE`, as int32 ids into one vocabulary of names
(and, when a run's notes outgrow that memo, on disk: :mod:`systems.features.stored`),
and every system reads it from there: the SVMs as a sparse matrix
(:meth:`FeatureSpace.matrix`), the CRFs and SNoW as dicts rebuilt from the ids
(:func:`combine`, :func:`extract_cached`), whose keys are the vocabulary's own strings.
"""

from __future__ import annotations

import inspect
import itertools
import operator
import threading
from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from infra import cache, memo, stages
from infra.spill import Spill
from systems.features import stored

if TYPE_CHECKING:
    import scipy.sparse as sp

    from corpora.model import Document

TokenFeatures = dict[str, float]
#: (indptr, indices) of one feature class on one document: CSR rows of global feature ids.
Encoded = tuple[np.ndarray, np.ndarray]


class FeatureClass(ABC):
    """One switchable group of features (a row of the ablation figures)."""

    #: Short unique name used in ablation tables and cache keys.
    name: ClassVar[str] = ""
    #: Bump when the extraction logic changes, to invalidate caches.
    version: ClassVar[int] = 1

    def params(self) -> dict[str, Any]:
        return {p: getattr(self, p, None) for p in _init_param_names(type(self))}

    def key(self) -> str:
        """Cache key: name, version and parameters.

        Every encoding of every note asks each class for it (about 4 % of a tuned PhysioNet
        run's samples went to building it again), so it is kept with the parameter values
        it was made from and made again only when one of them is another object (a
        parameter is replaced, never changed in place)."""
        values = tuple(getattr(self, p, None) for p in _init_param_names(type(self)))
        made = self.__dict__.get("_key_made")
        if made is not None and len(made[0]) == len(values):
            if all(map(operator.is_, made[0], values)):
                return made[1]
        params = ",".join(f"{k}={v!r}" for k, v in sorted(self.params().items()))
        key = f"{self.name}@{self.version}({params})"
        self.__dict__["_key_made"] = (values, key)
        return key

    @abstractmethod
    def extract(self, document: Document) -> list[TokenFeatures]:
        """One feature dict per token of ``document.tokens``, every value ``1.0``."""


@memo.memoize("features.param_names")
def _init_param_names(cls: type) -> tuple[str, ...]:
    """Constructor parameter names of a feature class, computed once per class (inspecting
    the signature on every cache lookup cost ~0.2 ms, i.e. seconds per corpus)."""
    sig = inspect.signature(cls.__init__)
    return tuple(p for p in sig.parameters if p != "self" and not p.startswith("_"))


def _weigh_encoded(key: tuple[str, str], value: Encoded) -> int:
    return value[0].nbytes + value[1].nbytes + 300


class FeatureSpace:
    """A vocabulary of indicator feature names and the per-document encodings.

    Every feature of the harness is an indicator -- a (type, value) pair that is present or
    not, as in Tafvizi's feature map (2011, §4.2.1) -- so only the *names* a feature class
    emits for a token are stored.  ``encode(feature, doc)`` turns the class's per-token
    dicts into int32 CSR arrays of global feature ids, once per (document fingerprint,
    feature key); the dicts themselves are not kept (a 300k-token corpus would need
    gigabytes for them).  The encodings live in a :class:`infra.memo.Memo` (bounded,
    released with their documents); when a release leaves none and no task is running,
    the vocabulary starts over, so a worker's vocabulary is that of the corpora it holds.
    """

    def __init__(self) -> None:
        self.vocabulary: dict[str, int] = {}
        self.names: list[str] = []
        self._names_array: np.ndarray = np.empty(0, dtype=object)
        self._names_filled = 0
        #: Bumped whenever the vocabulary starts over: ids of another generation are void.
        self.generation = 0
        # what the memo evicts is kept in this process's ids on disk (infra.spill): read
        # back without interning the note's names again
        self._encoded: memo.Memo[tuple[str, str], Encoded] = memo.Memo(
            "features.encoded",
            weigh=_weigh_encoded,
            document=_document_of,
            spill=Spill(document=_document_of),
        )
        self._binary: memo.Memo[tuple[str, str], Encoded] = memo.Memo(
            "features.binary_rows",
            weigh=_weigh_encoded,
            document=_document_of,
            spill=Spill(document=_document_of),
        )
        self._lock = threading.RLock()
        #: (note, feature set) pairs this process has seen stored or encoded
        #: (:meth:`share_extraction`), the feature sets numbered in :attr:`_feature_sets`.
        self._settled: set[tuple[str, int]] = set()
        self._feature_sets: dict[tuple[str, ...], int] = {}

    def __len__(self) -> int:
        return len(self.names)

    def share_extraction(
        self, features: Sequence[FeatureClass], documents: Sequence[Document]
    ) -> None:
        """Where workers share a corpus (:func:`infra.cache.shared_work`), make sure
        each of ``documents`` not encoded here yet is stored on disk: extracted here if no
        other worker is extracting it, else waited for.  :meth:`encode_all` then reads the
        entries, interning each note's names as extraction would, so the ids, and every
        matrix and model, are the same as without sharing; only who extracts changes."""
        if not cache.shared_work() or not documents:
            return
        classes = tuple(f.key() for f in features)
        feature_set = self._feature_sets.setdefault(classes, len(self._feature_sets))
        settled = self._settled
        todo = [d for d in documents if (d.fingerprint, feature_set) not in settled]
        if not todo:  # every later fit over the same notes: one look-up per note
            return
        encoded = self._encoded
        waiting: list[Document] = []
        with stages.stage(stages.FEATURIZE):
            for doc, entry in zip(todo, stored.entry_keys(features, todo), strict=True):
                # encoded here once, a note's encoding stays in the memo or its spill
                if all((doc.fingerprint, c) in encoded for c in classes):
                    settled.add((doc.fingerprint, feature_set))
                    continue
                with stored.claim(entry, wait=False) as mine:
                    if not mine:
                        waiting.append(doc)
                        continue
                    if not stored.exists(entry):
                        stored.store(entry, [_extract(f, doc) for f in features])
                    settled.add((doc.fingerprint, feature_set))
            for doc in waiting:
                with stored.claim(stored.entry_key(features, doc), wait=True):
                    settled.add((doc.fingerprint, feature_set))

    @property
    def evictions(self) -> int:
        """Encodings the memos have evicted so far: a pass over more notes than they hold."""
        return self._encoded.evictions + self._binary.evictions

    def forget_encodings(self) -> None:
        """Empty the encodings memos' memory: what they hold goes to their spill files, read
        back from there when needed again."""
        self._encoded.evict_all()
        self._binary.evict_all()

    def encode(self, feature: FeatureClass, document: Document) -> Encoded:
        """(indptr, indices) of ``feature`` on ``document``: CSR rows of global feature ids
        (both int32, read-only)."""
        return self.encode_all((feature,), document)[0]

    def encode_all(self, features: Sequence[FeatureClass], document: Document) -> list[Encoded]:
        """:meth:`encode` of each of ``features`` on ``document``.

        From the memo, else from the disk entry of this document and feature set
        (:mod:`systems.features.stored`), else extracted.  Once the memo has had to evict
        -- a pass over more notes than it holds, as in a tuned run over PhysioNet with
        augmentation copies, where each note was extracted again in every fit -- what is
        extracted is also written to disk, so each (note, feature set) is extracted once
        per cache.  Either way the ids are the same: a stored note's names are interned
        in the order extraction would have met them.
        """
        keys = [(document.fingerprint, f.key()) for f in features]
        got = [self._encoded.get(k) for k in keys]
        if all(g is not None for g in got):
            return got  # type: ignore[return-value]
        with stages.stage(stages.FEATURIZE):
            entry = stored.entry_key(features, document)
            local = stored.load(entry)
            fresh: list[stored.Local | None] = [None] * len(features)
            for i, feature in enumerate(features):
                if got[i] is not None:
                    continue
                part = local[i] if local is not None else _extract(feature, document)
                fresh[i] = part
                got[i] = self._intern(part, keys[i])
            if local is None and self._encoded.evictions:
                pairs = zip(fresh, got, strict=True)
                stored.store(entry, [p if p is not None else self._localize(g) for p, g in pairs])
        return got  # type: ignore[return-value]

    def _intern(self, part: stored.Local, key: tuple[str, str]) -> Encoded:
        """A document's encoding of one class from its local form: its distinct names in
        first-occurrence order, each given a global id (new ones in that order, as
        interning every occurrence in turn would), and the rows as indices into them."""
        names, indptr, local = part
        with self._lock:
            vocab = self.vocabulary
            ids = list(map(vocab.get, names))
            if None in ids:
                known = self.names
                new = list(itertools.filterfalse(vocab.__contains__, names))
                vocab.update(zip(new, range(len(known), len(known) + len(new)), strict=True))
                known.extend(new)  # names are distinct: each new one once, in their order
                ids = list(map(vocab.__getitem__, names))
            indices = np.asarray(ids, dtype=np.int32)[local] if len(local) else local
            indices = np.ascontiguousarray(indices, dtype=np.int32)
            indptr = np.array(indptr, dtype=np.int32)
            indptr.flags.writeable = indices.flags.writeable = False  # shared by every reader
            encoded = (indptr, indices)
            self._encoded.put(key, encoded)
        return encoded

    def _localize(self, encoded: Encoded) -> stored.Local:
        """The local form of an encoding already held (for a disk entry of the whole set)."""
        indptr, indices = encoded
        distinct, first = np.unique(indices, return_index=True)
        order = distinct[np.argsort(first, kind="stable")]  # first-occurrence order
        position = np.empty(int(order.max()) + 1 if len(order) else 0, dtype=np.int32)
        position[order] = np.arange(len(order), dtype=np.int32)
        names = self._name_array()[order].tolist()
        return names, np.asarray(indptr, dtype=np.int32), position[indices]

    def token_ids(self, features: Sequence[FeatureClass], document: Document) -> Encoded:
        """Per token of ``document``, the ids of the names ``features`` emit, class after
        class, each once at its first class: :meth:`rows`' names in their order, as ids
        (what a learner that reads rows of names in order gets without the names)."""
        indptr, ids = _interleave(self.encode_all(features, document))
        if len(features) < 2 or not len(ids):
            return indptr, ids
        lengths = np.diff(indptr)
        row = np.repeat(np.arange(len(lengths), dtype=np.int64), lengths)
        _, first = np.unique(row * (int(ids.max()) + 1) + ids, return_index=True)
        if len(first) == len(ids):
            return indptr, ids
        keep = np.zeros(len(ids), dtype=bool)
        keep[first] = True
        indptr = np.zeros(len(lengths) + 1, dtype=np.int64)
        np.cumsum(np.bincount(row[keep], minlength=len(lengths)), out=indptr[1:])
        return indptr, ids[keep]

    def rows(self, features: Sequence[FeatureClass], document: Document) -> list[TokenFeatures]:
        """Merged per-token feature dicts of ``features`` on ``document`` (each name once, at
        its first class, as successive ``dict.update`` calls would order them)."""
        flat, bounds = self._merged(features, document)
        tokens = map(flat.__getitem__, map(slice, bounds, bounds[1:]))
        return list(map(dict.fromkeys, tokens, itertools.repeat(1.0)))

    def _merged(
        self, features: Sequence[FeatureClass], document: Document
    ) -> tuple[list[str], list[int]]:
        """Every token's names, class after class, in one list, and where each token's
        start (``len(tokens) + 1`` bounds)."""
        indptr, indices = _interleave(self.encode_all(features, document))
        return self._name_array()[indices].tolist(), indptr.tolist()

    def _name_array(self) -> np.ndarray:
        """:attr:`names` as a numpy object array (for fancy indexing), grown as needed (at
        least doubled, then filled in from where it stopped: names are only appended)."""
        n = len(self.names)
        if self._names_filled < n:
            with self._lock:
                array, filled, n = self._names_array, self._names_filled, len(self.names)
                if len(array) < n:
                    grown = np.empty(max(n, 2 * len(array), 1024), dtype=object)
                    grown[:filled] = array[:filled]
                    array = self._names_array = grown
                array[filled:n] = self.names[filled:n]
                self._names_filled = n
        return self._names_array

    def matrix(
        self,
        features: Sequence[FeatureClass],
        documents: Sequence[Document],
        *,
        binary: bool = False,
    ) -> sp.csr_matrix:
        """Tokens x global feature ids for ``documents`` (rows in document, token order):
        int32 indices, float32 values, indices sorted within each row.

        A feature emitted under the same name by two classes (the target word is in several
        systems' sets) is one column; ``binary=True`` keeps it an indicator (value 1), as
        Tafvizi's binary feature map does (§4.2.1), instead of summing the two values.
        """
        import scipy.sparse as sp

        self.share_extraction(features, documents)
        lengths: list[np.ndarray] = []
        cols: list[np.ndarray] = []
        for doc in documents:
            if binary:  # each row's ids sorted and distinct already
                indptr, indices = self.binary_rows(features, doc)
            else:
                indptr, indices = _interleave(self.encode_all(features, doc))
            lengths.append(np.diff(indptr))
            cols.append(indices)
        n_rows = sum(len(x) for x in lengths)
        shape = (n_rows, len(self.names))
        if not n_rows:
            return sp.csr_matrix(shape, dtype=np.float32)
        indptr = np.zeros(n_rows + 1, dtype=np.int64)
        np.cumsum(np.concatenate(lengths), out=indptr[1:])
        if indptr[-1] < np.iinfo(np.int32).max:
            indptr = indptr.astype(np.int32)
        indices = np.concatenate(cols) if len(cols) > 1 else cols[0].copy()
        del cols
        out = sp.csr_matrix(
            (np.ones(len(indices), np.float32), indices, indptr), shape=shape, copy=False
        )
        if binary:
            out.has_canonical_format = True  # sorted and distinct (binary_rows): all ones
        else:
            out.sum_duplicates()  # sorts each row's ids; a name two classes emit, value 2
        return out

    def binary_rows(self, features: Sequence[FeatureClass], document: Document) -> Encoded:
        """(indptr, indices) of one document's rows of :meth:`matrix` with ``binary=True``:
        each token's global ids, sorted, each once (read-only).

        Kept in a memo of their own once the encodings memo has had to evict (a run over
        more notes than it holds, whose every fit merges each note's classes again), with
        a spill file behind it; a run that fits in memory keeps only the encodings."""
        import scipy.sparse as sp

        key = None
        if self._encoded.evictions:  # else nothing was ever kept: no key to build
            key = (document.fingerprint, "\0".join(f.key() for f in features))
            hit = self._binary.get(key)
            if hit is not None:
                return hit
        indptr, indices = _interleave(self.encode_all(features, document))
        block = sp.csr_matrix(  # a single class's encoding is shared and read-only: copied
            (np.ones(len(indices), np.float32), indices.copy(), indptr.copy()),
            shape=(len(indptr) - 1, len(self.names)),
        )
        block.sum_duplicates()
        rows = (block.indptr, block.indices)
        for a in rows:
            a.flags.writeable = False
        if key is not None:
            self._binary.put(key, rows)
        return rows

    def restart_if_empty(self) -> None:
        """Start the vocabulary over when no encoding refers to it any more (none held in
        memory or spilled)."""
        with self._lock:
            held = (len(m) or m.spilled for m in (self._encoded, self._binary))
            if not any(held) and self.names:
                self._encoded.clear()  # the spill files, emptied
                self._binary.clear()
                self.vocabulary = {}
                self.names = []
                self._names_array, self._names_filled = np.empty(0, dtype=object), 0
                self.generation += 1


def _document_of(key: tuple[str, str]) -> str:
    """The document an encoding belongs to: the first part of its key."""
    return key[0]


def _extract(feature: FeatureClass, document: Document) -> stored.Local:
    """``feature`` extracted from ``document``, in local form: its distinct names in the
    order they first occur, the rows' offsets, and each occurrence's index into the names."""
    rows = feature.extract(document)
    if len(rows) != len(document.tokens):
        raise ValueError(
            f"feature class {feature.name!r} returned {len(rows)} rows for "
            f"{len(document.tokens)} tokens"
        )
    # each pass below is one C-level call over the rows, not a Python loop over their
    # millions of (token, name) pairs
    try:
        values: Any = set().union(*map(dict.values, rows))
    except TypeError:  # a value that cannot be hashed: compared one by one
        values = [v for row in rows for v in row.values()]
    if any(v != 1.0 for v in values):
        raise ValueError(
            f"feature class {feature.name!r} returned values other than 1.0: features "
            "are indicators (a feature is present or not)"
        )
    keys = list(itertools.chain.from_iterable(rows))
    distinct = list(dict.fromkeys(keys))  # first-occurrence order
    index = dict(zip(distinct, range(len(distinct)), strict=True))
    local = np.fromiter(map(index.__getitem__, keys), dtype=np.int32, count=len(keys))
    indptr = np.zeros(len(rows) + 1, dtype=np.int32)
    np.cumsum(np.fromiter(map(len, rows), dtype=np.int64, count=len(rows)), out=indptr[1:])
    return distinct, indptr, local


def _interleave(parts: Sequence[Encoded]) -> Encoded:
    """One document's rows of several feature classes merged: each token's ids, class after
    class (by placing each class's ids where they go: no sort)."""
    if len(parts) == 1:
        return parts[0]
    lengths = [np.diff(indptr) for indptr, _ in parts]
    indptr = np.zeros(len(lengths[0]) + 1, dtype=np.int64)
    np.cumsum(np.sum(lengths, axis=0), out=indptr[1:])
    out = np.empty(int(indptr[-1]), dtype=np.int32)
    start = indptr[:-1].copy()  # where the next class's ids of each token go
    for (class_indptr, ids), length in zip(parts, lengths, strict=True):
        out[np.repeat(start - class_indptr[:-1], length) + np.arange(len(ids))] = ids
        start += length
    return indptr, out


#: The process-wide feature space: every system's features, encoded once.
FEATURE_SPACE = FeatureSpace()


@memo.on_release
def _restart_vocabulary(idle: bool) -> None:
    if idle:
        FEATURE_SPACE.restart_if_empty()


def extract_cached(feature: FeatureClass, document: Document) -> list[TokenFeatures]:
    """``feature.extract(document)``, extracted once per process per document (the dicts
    are rebuilt from :data:`FEATURE_SPACE`'s ids: equal, not the same objects)."""
    return FEATURE_SPACE.rows((feature,), document)


def combine(
    features: Sequence[FeatureClass], documents: Sequence[Document]
) -> list[list[TokenFeatures]]:
    """Merged per-token features of several classes, one list per document."""
    return [FEATURE_SPACE.rows(features, doc) for doc in documents]


def token_names(features: Sequence[FeatureClass], documents: Sequence[Document]) -> list[list[str]]:
    """Per token of every document (in order), the feature names of ``features`` without
    repeats, in :func:`combine`'s order: what a learner that needs only names reads.

    Made from the tokens' ids (:meth:`FeatureSpace.token_ids`, repeats dropped by numpy)
    with one look-up of their names per note, not token by token in Python, because
    ``multi``'s Illinois base reads every note's names in every fit of its two stages."""
    out: list[list[str]] = []
    for doc in documents:
        indptr, ids = FEATURE_SPACE.token_ids(features, doc)
        flat = FEATURE_SPACE._name_array()[ids].tolist()  # after encoding: names it interned
        bounds = indptr.tolist()
        out += map(flat.__getitem__, map(slice, bounds, bounds[1:]))
    return out


__all__ = [
    "FEATURE_SPACE",
    "Encoded",
    "FeatureClass",
    "FeatureSpace",
    "TokenFeatures",
    "combine",
    "extract_cached",
    "token_names",
]
