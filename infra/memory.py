"""A process's peak resident memory, and what its memos held when the peak rose.

A run's peak is the largest worker's, and which cell raised it and what that worker kept
(:mod:`infra.memo`) is what says where memory can be saved.  Each computed cell records
:func:`cell_memory` (``run.json``, ``cells[].memory``), and ``python -m bench profile``
prints the cell that set each process's peak with the memos it held then.  Reading the
peak costs one system call per cell, so it is always on.
"""

from __future__ import annotations

import ctypes
import gc
import os
import resource
import sys
from collections.abc import Callable
from typing import Any

from infra import memo

#: Memos smaller than this are left out of a snapshot (there are dozens of tiny ones).
SNAPSHOT_MIN_BYTES = memo.MB


def peak_rss_mb() -> float:
    """The most resident memory this process has held, in MB (``ru_maxrss``: kilobytes
    on Linux, bytes on macOS)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / memo.MB if sys.platform == "darwin" else peak / 1024


class _Seen:
    """The peak at the last snapshot (module state is each process's own)."""

    mb = 0.0


def cell_memory() -> dict[str, Any]:
    """The process id and its peak so far; where the peak rose since the last call in this
    process, also the estimated MB of each memo held now (largest first)."""
    pid = os.getpid()
    peak = peak_rss_mb()
    out: dict[str, Any] = {"pid": pid, "peak_mb": round(peak)}
    if peak > _Seen.mb:
        _Seen.mb = peak
        held: dict[str, int] = {}
        for m in memo.memos():
            held[m.name] = held.get(m.name, 0) + m.size
        largest = sorted(held.items(), key=lambda item: (-item[1], item[0]))
        out["memos_mb"] = {
            name: round(size / memo.MB, 1) for name, size in largest if size >= SNAPSHOT_MIN_BYTES
        }
    return out


@memo.memoize("memory.malloc_trim", max_entries=1)
def _malloc_trim() -> Callable[[int], int] | None:
    try:
        return ctypes.CDLL("libc.so.6").malloc_trim  # type: ignore[no-any-return]
    except (OSError, AttributeError):  # not glibc (macOS, musl): nothing to call
        return None


#: The cyclic garbage collector's thresholds in a process that computes cells (Python's
#: defaults are 700, 10, 10).
GC_THRESHOLDS = (100_000, 50, 100)


def collect_less() -> None:
    """Run Python's cyclic garbage collector less often in a process that computes cells.

    Why: a fit builds millions of short-lived lists and dicts (each token's feature names,
    the CRFs' item sequences), and with the default thresholds the collector scanned them
    after every 700: 5 % of ``multi``'s samples under py-spy went to it.  With a first
    threshold of 100,000 most of them are freed by reference counting before any
    collection sees them.  ``multi`` on the default corpus on one worker: 6 min 45 s ->
    6 min 24 s, CPU 401.7 -> 380.7 s, peak RSS 1.33 -> 1.35 GB, every result file
    byte-identical (the collector frees only unreachable cycles, which nothing reads)."""
    gc.set_threshold(*GC_THRESHOLDS)


def trim_heap() -> bool:
    """Hand the C heap's free pages back to the operating system (glibc's ``malloc_trim``).

    Why: what a memo drops -- CRFsuite item sequences above all, millions of small C++
    strings -- goes back to the C allocator, which keeps the pages; the next fit's large
    arrays are mapped afresh beside them, so a worker that had dropped 400 MB of item
    sequences still peaked as if it held them.  Returns whether the call was made."""
    trim = _malloc_trim()
    if trim is None:
        return False
    trim(0)
    return True
