"""infra.memory: a process's peak and handing the C heap's free pages back."""

from __future__ import annotations

import sys

import pytest

from infra import memory


def _rss_mb() -> float:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmRSS"):
                return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc, glibc's heap")
def test_trim_heap_returns_what_dropped_item_sequences_held() -> None:
    """Item sequences are millions of small C++ allocations: dropped beneath one still held,
    the allocator keeps their pages until the heap is trimmed."""
    import pycrfsuite

    if memory._malloc_trim() is None:
        pytest.skip("not glibc: no malloc_trim")
    rows = [[f"w={i}:{j}" for j in range(20)] for i in range(200)]
    big = [pycrfsuite.ItemSequence(rows) for _ in range(400)]
    pinned = pycrfsuite.ItemSequence([["kept"]])  # allocated after: the heap's top stays in use
    held = _rss_mb()
    del big
    dropped = _rss_mb()
    assert memory.trim_heap()
    trimmed = _rss_mb()
    assert held - trimmed > 40  # ~60 MB of attributes back to the system
    assert dropped - trimmed > 20  # and it took the trim, not the drop, to give most back
    assert pinned.items()


def test_peak_is_at_least_what_the_process_holds_now() -> None:
    assert memory.peak_rss_mb() >= 0.9 * _rss_mb()
