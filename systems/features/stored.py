"""Feature encodings of a note kept on disk, for runs whose notes do not fit in memory and
for workers that share a corpus.

Why: a tuned run over PhysioNet with augmentation copies trains on ~1,500 notes and four
copies of each, in every inner fold of every outer fold; their encodings take more than a
worker's memo holds, so each note was extracted again in every fit, and extraction was
four fifths of the run (``python -m bench profile``).  An entry holds one note's features
of one feature set in a form that needs no process's vocabulary: each class's distinct
names in the order they first occur, the rows' offsets, and each occurrence's index into
those names.  :meth:`systems.features.base.FeatureSpace.encode_all` interns them in that
order, so the ids, and every matrix built from them, are what extraction gives.

The key holds what the features depend on: the note's fingerprint, each class's key (name,
version, parameters), the source of the modules that define them and everything of this
package they import (:func:`infra.cache.source_fingerprint`: the tokenizer, the dictionary
loaders), and the word lists a class reads -- the data packages' versions for the built-in
lists, and each file's name, size and modification time for a ``--dictionaries`` directory
-- so an edited feature or list is extracted afresh, never read stale.  Entries carry the
cache's checksum; a corrupt one is extracted again.

**Shared between workers.**  When the run hands one corpus's cells to several workers at
once (:func:`infra.cache.shared_work`, set by the runner), each would extract the same
notes at the same time: the first two cells of the headline PhysioNet report each spent
100-130 seconds featurizing nearly every note and its copies.  There each worker first
goes through the notes a fit needs and extracts and stores those no other worker is
extracting (an exclusive ``flock`` per entry, one of :data:`LOCK_STRIPES` lock files),
then waits for the others' and reads them; the ids each worker gives the names are what
extraction would have given, since a stored note is interned as it would have been
extracted.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from infra import cache, memo


class _Feature(Protocol):
    """What a key needs of a feature class (:class:`systems.features.base.FeatureClass`,
    which imports this module)."""

    def key(self) -> str: ...


class _Note(Protocol):
    fingerprint: str


#: One class on one note: distinct names (first-occurrence order), row offsets (tokens + 1),
#: and each occurrence's index into the names.
Local = tuple[list[str], np.ndarray, np.ndarray]

NAMESPACE = "features"


#: Lock files that claims are spread over (two entries on one stripe only wait for each
#: other, never extract twice).
LOCK_STRIPES = 256


def entry_key(features: Sequence[_Feature], document: _Note) -> str:
    """The disk key of ``features`` (in order) on ``document``."""
    return entry_keys(features, [document])[0]


def entry_keys(features: Sequence[_Feature], documents: Sequence[_Note]) -> list[str]:
    """:func:`entry_key` of each of ``documents`` (what the key says of the classes is
    worked out once)."""
    from corpora.dictionaries import ENV_DICTIONARIES

    default = os.environ.get(ENV_DICTIONARIES) or None  # what a class given no directory reads
    classes = [f.key() for f in features]
    modules = sorted({cache.source_fingerprint(type(f).__module__) for f in features})
    lists = sorted({lists_stamp(getattr(f, "dictionaries", None) or default) for f in features})
    return [
        cache.make_key(NAMESPACE, document.fingerprint, classes, modules, lists)
        for document in documents
    ]


def exists(key: str) -> bool:
    """Whether an entry is stored (not whether it is intact: :func:`load` checks that)."""
    return (cache.cache_dir() / NAMESPACE / f"{key}.pkl").exists()


def stripe(key: str) -> int:
    """The lock file (of :data:`LOCK_STRIPES`) that claims of ``key`` take."""
    digest = hashlib.blake2b(key.encode(), digest_size=2).hexdigest()
    return int(digest, 16) % LOCK_STRIPES


def claim(key: str, wait: bool) -> contextlib.AbstractContextManager[bool]:
    """The exclusive claim of ``key``'s extraction (:func:`infra.cache.claimed` on the
    entry's stripe): ``True`` once held, ``False`` if another process holds it and
    ``wait`` is false."""
    return cache.claimed(NAMESPACE, f"claim-{stripe(key)}.lock", wait)


@memo.memoize("features.lists_stamp")
def lists_stamp(directory: Any) -> str:
    """What identifies the word lists a class reads: the data packages' versions for the
    built-in lists (``None``), and each file's relative name, size and modification time
    for a directory of them."""
    from corpora.dictionaries import data_package_versions

    parts: list[Any] = list(data_package_versions())
    if directory is not None:
        root = Path(str(directory))
        files = sorted(p for p in root.rglob("*") if p.is_file()) if root.is_dir() else []
        for path in files:
            info = path.stat()
            parts.append((str(path.relative_to(root)), info.st_size, info.st_mtime_ns))
        if not files:
            parts.append(str(root))
    return cache.make_key(*parts)


def load(key: str) -> list[Local] | None:
    """The stored classes of an entry, or ``None`` (absent, corrupt or caching off)."""
    value = cache.load(NAMESPACE, key)
    return None if value is cache.MISSING else value


def store(key: str, parts: Sequence[Local]) -> None:
    """Write an entry (skipped, with one warning, where the cache cannot be written); a
    class's indices take two bytes each where it has fewer than 65,536 distinct names on
    the note (every class on a clinical note does), half the entry."""
    cache.store(NAMESPACE, key, [(list(n), np.asarray(p), _narrow(n, i)) for n, p, i in parts])


def _narrow(names: Sequence[str], indices: np.ndarray) -> np.ndarray:
    return np.asarray(indices, dtype=np.uint16 if len(names) <= 65536 else np.int32)
