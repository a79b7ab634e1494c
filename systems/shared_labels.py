"""What a kept model labelled, in the cache, for every process of the run and the next.

A block model of a shared cross-fitting (:mod:`systems.cross_fitting`: ``multi``'s inner
models, a tuned system's candidates, the two-stage jackknife) is fitted for one outer fold
and labels the notes of the other outer folds of its block at the same time
(:mod:`systems.prediction_cache`, ``prefetch``), and the notes of the fold it was fitted
in when that fold labels its test notes (``left_out``).  Those labels lived only in the
memory of the process that fitted the model, so the other worker fitted the same model
again when it reached another fold of the block, and so did the same worker once its
32 MB labels memo had evicted them.  On the headline PhysioNet configuration's 5-fold
command, 38 of 98 liblinear fits repeated one already made; with this module, 19 of 80
(docs/speed.md).

Here each model's labels are also written to the cache directory (namespace
:data:`NAMESPACE`), under the model's key without the process's feature-space generation
(the labels are what the model says, whatever ids its features had), and a process reads
them before it fits.  Two workers that start two folds of one block at the same time
both need the labels of the other's test notes, which a model gives only when that fold
labels its test notes: there the model itself is handed on where it can be (a CRF,
:mod:`systems.shared_models`), and fitted by both where it cannot (an SVM, whose weights
are over the process's feature ids).

Entries of one model are numbered ``0, 1, ...``, each written under an exclusive
``flock`` on the model's lock file, so two writers never pick the same number.  With
caching off (``--no-cache``) nothing is written or read: each process fits what it
needs, as it did before.
"""

from __future__ import annotations

import contextlib
from collections.abc import Collection, Iterator, Mapping
from typing import Any

from infra import cache

NAMESPACE = "prediction-labels"
#: Most entries of one model: one per call that labelled documents no entry held (its
#: fit in each worker that made it, then each fold's test notes, ``left_out``); past it
#: labels are not stored and a later worker fits the model again.
MAX_ENTRIES = 64

#: A document's labels as a kept model gave them: packed labels and scores (or ``None``).
Labelled = tuple[Any, Any]


def _entry_key(model_key: str, n: int) -> str:
    return f"{model_key}-{n}"


def read(model_key: str, wanted: Collection[str]) -> dict[str, Labelled]:
    """The stored labels of the documents ``wanted`` (fingerprints) by the model
    ``model_key``, as far as any process stored them."""
    found: dict[str, Labelled] = {}
    if not wanted or not cache.caching_enabled():
        return found
    want = set(wanted)
    for n in range(MAX_ENTRIES):
        entry = cache.load(NAMESPACE, _entry_key(model_key, n))
        if entry is cache.MISSING or not isinstance(entry, dict):
            break
        for fingerprint in want.intersection(entry):
            found[fingerprint] = entry[fingerprint]
        if len(found) == len(want):
            break
    return found


def write(model_key: str, labelled: Mapping[str, Labelled]) -> None:
    """Store ``labelled`` (fingerprint -> labels) as the next entry of ``model_key``."""
    if not labelled or not cache.caching_enabled():
        return
    with _numbering(model_key) as directory:
        if directory is None:
            return
        for n in range(MAX_ENTRIES):
            if not (directory / f"{_entry_key(model_key, n)}.pkl").exists():
                cache.store(NAMESPACE, _entry_key(model_key, n), dict(labelled))
                return


@contextlib.contextmanager
def _numbering(model_key: str) -> Iterator[Any]:
    """The namespace's directory, with the exclusive lock of ``model_key``'s entries held
    (``None``, and no lock, where the cache cannot be written)."""
    with cache.claimed(NAMESPACE, f"{model_key}.lock") as held:
        yield cache.cache_dir() / NAMESPACE if held else None
