"""Feature encodings of a note kept on disk, for runs whose notes do not fit in memory.

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
"""

from __future__ import annotations

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


def entry_key(features: Sequence[_Feature], document: _Note) -> str:
    """The disk key of ``features`` (in order) on ``document``."""
    from corpora.dictionaries import ENV_DICTIONARIES

    default = os.environ.get(ENV_DICTIONARIES) or None  # what a class given no directory reads
    return cache.make_key(
        NAMESPACE,
        document.fingerprint,
        [f.key() for f in features],
        sorted({cache.source_fingerprint(type(f).__module__) for f in features}),
        sorted({lists_stamp(getattr(f, "dictionaries", None) or default) for f in features}),
    )


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
