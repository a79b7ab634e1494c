"""A memo's second tier: the numpy arrays it evicts, kept in a process-private file.

Why: a tuned PhysioNet run trains on ~1,500 notes and up to four augmented copies of each,
in every inner and outer fold; their feature encodings take more than a worker's memo
holds, so least-recently-used eviction drops each note's encoding just before the next fit
reads it again.  Reading it back from the cache's disk entry
(:mod:`systems.features.stored`) means unpickling the note's feature names and interning
every one of them in the process's vocabulary again: a profile of the `recommended`
evaluation run put 450 of its 2,023 worker-seconds there (py-spy, docs/speed.md).  An
evicted encoding is already in the process's ids, so it is written here as raw bytes and
read back with one ``pread``: no names, no hashing, the same arrays.

The file is unnamed (deleted when the process ends, whatever way it ends), created in the
cache directory (owner-only; it holds feature ids, not text) or, with caching off, in the
system's temporary directory, and read with ``pread`` rather than mapped, so what it holds
counts against the page cache, not the process's resident memory.  It only grows until the
memo is emptied (:meth:`Spill.clear`); past :data:`MAX_BYTES` nothing more is written and
the memo falls back to recomputing, as it would without a spill.
"""

from __future__ import annotations

import os
import tempfile
import threading
from collections.abc import Callable, Collection, Hashable
from typing import IO, Generic, TypeVar

import numpy as np

from infra import cache

K = TypeVar("K", bound=Hashable)

#: Arrays as the spill stores them: a tuple of one-dimensional numpy arrays.
Arrays = tuple[np.ndarray, ...]

#: The most a process writes to its spill file before it stops spilling: a bound on the
#: disk it may take, not a measured need (past it the memo recomputes, as without a spill).
MAX_BYTES = 4 * 1024**3


class Spill(Generic[K]):
    """Evicted tuples of one-dimensional arrays, by key, in an unnamed temporary file.

    ``document(key)`` gives the document an entry belongs to, for :meth:`retain`.  Values
    read back are read-only arrays equal to those written (dtype, shape and bytes).
    """

    def __init__(self, document: Callable[[K], str] | None = None, max_bytes: int = MAX_BYTES):
        self.document = document
        self.max_bytes = max_bytes
        self._index: dict[K, tuple[int, tuple[tuple[str, int], ...]]] = {}
        self._file: IO[bytes] | None = None
        self._pid = 0
        self._end = 0
        self._lock = threading.Lock()
        self.reads = self.writes = 0

    def __len__(self) -> int:
        return len(self._index)

    def __contains__(self, key: object) -> bool:
        return key in self._index

    @property
    def nbytes(self) -> int:
        """Bytes written to the file since it was last emptied."""
        return self._end

    def put(self, key: K, arrays: Arrays) -> bool:
        """Write ``arrays`` under ``key`` unless it is already there; False when the file is
        full or cannot be written (the caller then simply does without)."""
        parts = [np.ascontiguousarray(a) for a in arrays]
        size = sum(a.nbytes for a in parts)
        with self._lock:
            if key in self._index:
                return True
            if self._end + size > self.max_bytes:
                return False
            try:
                fd = self._fd()
                offset = self._end
                position = offset
                for a in parts:
                    data = memoryview(a).cast("B")
                    while data:
                        written = os.pwrite(fd, data, position)
                        data = data[written:]
                        position += written
            except OSError:
                return False
            self._end = position
            self._index[key] = (offset, tuple((a.dtype.str, len(a)) for a in parts))
            self.writes += 1
        return True

    def get(self, key: K) -> Arrays | None:
        """The arrays written under ``key``, or None."""
        with self._lock:
            where = self._index.get(key)
            if where is None or self._file is None or self._pid != os.getpid():
                return None
            offset, layout = where
            dtypes = [np.dtype(d) for d, _ in layout]
            size = sum(dt.itemsize * n for dt, (_, n) in zip(dtypes, layout, strict=True))
            data = os.pread(self._file.fileno(), size, offset)
            self.reads += 1
        if len(data) != size:  # the file was truncated under us: do without
            return None
        out = []
        start = 0
        for dt, (_, n) in zip(dtypes, layout, strict=True):
            out.append(np.frombuffer(data, dtype=dt, count=n, offset=start))
            start += dt.itemsize * n
        return tuple(out)

    def retain(self, documents: Collection[str]) -> int:
        """Forget the entries of documents not in ``documents`` (their bytes stay in the
        file until :meth:`clear`); returns how many went."""
        if self.document is None:
            return 0
        of = self.document
        with self._lock:
            gone = [k for k in self._index if of(k) not in documents]
            for k in gone:
                del self._index[k]
        return len(gone)

    def clear(self) -> None:
        """Forget every entry and empty the file."""
        with self._lock:
            self._index.clear()
            if self._file is not None and self._pid == os.getpid():
                self._file.truncate(0)
            self._end = 0

    def _fd(self) -> int:
        """The file's descriptor, created on first use and again in a forked child (whose
        inherited descriptor shares the parent's file: its writes would overwrite the
        parent's entries)."""
        if self._file is None or self._pid != os.getpid():
            self._index.clear()
            self._end = 0
            # lives as long as the spill: closed (and so deleted) with the process
            self._file = tempfile.TemporaryFile(prefix="deid-bench-spill-", dir=_directory())  # noqa: SIM115
            self._pid = os.getpid()
        return self._file.fileno()


def _directory() -> str | None:
    """The cache directory where caching is on (private, on disk), else the system's."""
    if not cache.caching_enabled():
        return None
    try:
        return str(cache.cache_dir())
    except cache.CacheError:
        return None
