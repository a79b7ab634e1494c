"""The one bounded memo every per-process cache uses (infra.memo)."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from infra import memo
from infra.memo import BUDGETS, MEMORY_TARGET, Memo


def test_budget_bounds_the_estimated_size() -> None:
    m: Memo[int, str] = Memo("test", budget=100, weigh=lambda k, v: 10)
    for i in range(25):
        m.put(i, str(i))
    assert len(m) == 10 and m.size == 100
    assert list(m._entries) == list(range(15, 25))  # the oldest went first
    assert m.evictions == 15


def test_least_recently_used_goes_first() -> None:
    m: Memo[str, int] = Memo("test", budget=30, weigh=lambda k, v: 10)
    m.put("a", 1)
    m.put("b", 2)
    m.put("c", 3)
    assert m.get("a") == 1  # now the most recently used
    m.put("d", 4)
    assert "b" not in m and {"a", "c", "d"} <= set(m._entries)
    assert m.get("b", "missing") == "missing"
    assert (m.hits, m.misses) == (1, 1)


def test_an_entry_larger_than_the_budget_is_not_kept() -> None:
    m: Memo[str, bytes] = Memo("test", budget=50, weigh=lambda k, v: len(v))
    m.put("small", b"x" * 20)
    assert m.put("big", b"x" * 60) == b"x" * 60  # returned, not stored
    assert "big" not in m and "small" in m and m.size == 20


def test_a_count_bounded_memo_keeps_a_large_value_alone() -> None:
    """A word list whose size estimate is over the byte budget must still be kept, or it
    is rebuilt on every call (the unseen variant's forbidden words, once per note)."""
    calls = []

    @memo.memoize("test", budget=50, max_entries=2)
    def words(n: int) -> bytes:
        calls.append(n)
        return b"x" * n

    words(10)
    words(60)  # over the byte budget: kept alone, the older entry goes
    words(60)
    assert calls == [10, 60]
    assert list(words.memo._entries) == [(60,)]
    words(20)  # and a later entry pushes it out as usual
    assert list(words.memo._entries) == [(20,)]


def test_replacing_an_entry_updates_the_size() -> None:
    m: Memo[str, bytes] = Memo("test", budget=100, weigh=lambda k, v: len(v))
    m.put("a", b"x" * 40)
    m.put("a", b"x" * 10)
    assert m.size == 10 and len(m) == 1
    m.discard("a")
    assert m.size == 0 and not len(m)


def test_default_weight_counts_array_buffers() -> None:
    m: Memo[str, np.ndarray] = Memo("test", budget=10_000)
    m.put("a", np.zeros(1000, dtype=np.int32))
    assert 4000 <= m.size < 5000
    m.put("b", np.zeros(2000, dtype=np.int32))  # 8000 more: "a" goes
    assert "a" not in m and "b" in m


def test_get_or_compute_and_get_many() -> None:
    m: Memo[str, str] = Memo("test", budget=10_000)
    calls: list[str] = []

    def upper(s: str) -> str:
        calls.append(s)
        return s.upper()

    assert m.get_or_compute("a", lambda: upper("a")) == "A"
    assert m.get_or_compute("a", lambda: upper("a")) == "A"
    assert m.get_many(["a", "b", "b", "c"], upper) == ["A", "B", "B", "C"]
    assert calls == ["a", "b", "c"]


def test_release_keeps_only_the_documents_still_needed() -> None:
    docs: Memo[tuple[str, str], int] = Memo(
        "test", budget=10_000, weigh=lambda k, v: 1, document=lambda k: k[0]
    )
    words: Memo[str, int] = Memo("test", budget=10_000, weigh=lambda k, v: 1)
    for fp in ("d1", "d2", "d3"):
        docs.put((fp, "features"), 1)
        words.put(fp, 1)
    memo.release({"d2"})
    assert list(docs._entries) == [("d2", "features")]
    assert len(words) == 3  # not keyed by document: only its budget bounds it
    memo.release()
    assert not len(docs)


def test_release_hooks_hear_whether_the_process_is_idle() -> None:
    heard: list[bool] = []
    hook = memo.on_release(heard.append)
    try:
        memo.release({"x"}, idle=False)
        memo.release()
    finally:
        memo._HOOKS.remove(hook)
    assert heard == [False, True]


def test_memoize_replaces_lru_cache() -> None:
    calls = []

    @memo.memoize("test", budget=10_000)
    def square(x: int) -> int:
        calls.append(x)
        return x * x

    assert [square(3), square(3), square(4)] == [9, 9, 16]
    assert calls == [3, 4]
    square.cache_clear()
    assert square(3) == 9 and calls == [3, 4, 3]


def test_every_memo_has_a_budget_and_they_fit_the_target() -> None:
    import importlib
    import pkgutil
    from collections import Counter

    for package in ("infra", "corpora", "systems", "bench"):
        for info in pkgutil.walk_packages(importlib.import_module(package).__path__, f"{package}."):
            if not info.name.endswith("__main__"):
                importlib.import_module(info.name)

    names = Counter(m.name for m in memo.memos())
    assert set(BUDGETS) <= set(names)  # no budget left over from a memo that is gone
    shared = [n for n in BUDGETS if names[n] > 1]
    assert not shared, f"memos sharing a budget: {shared}"
    assert sum(BUDGETS.values()) <= MEMORY_TARGET * 2 / 3
    with pytest.raises(KeyError):
        Memo("no such memo")


def test_concurrent_use_keeps_the_books_straight() -> None:
    m: Memo[int, int] = Memo("test", budget=500, weigh=lambda k, v: 10, document=str)

    def work(offset: int) -> None:
        for i in range(2000):
            key = (i * 7 + offset) % 120
            if m.get(key) is None:
                m.put(key, key)
            if i % 50 == 0:
                m.retain({str(k) for k in range(0, 120, 2)})

    threads = [threading.Thread(target=work, args=(t,)) for t in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert m.size == 10 * len(m) <= 500
    assert all(k == v for k, (v, _) in m._entries.items())
