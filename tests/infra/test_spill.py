"""A memo's second tier on disk (infra.spill): evicted arrays read back byte for byte,
without recomputing them, and a memo that consults it before its caller recomputes."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from infra.memo import Memo
from infra.spill import Spill


@pytest.fixture(autouse=True)
def private_cache(tmp_path: Path, monkeypatch) -> Path:
    path = tmp_path / "cache"
    monkeypatch.setenv("DEID_BENCH_CACHE", str(path))
    monkeypatch.delenv("DEID_BENCH_NO_CACHE", raising=False)
    return path


def _arrays(seed: int) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(seed)
    return (
        rng.integers(0, 1000, 11).astype(np.int32),
        rng.integers(0, 60000, 37).astype(np.uint16),
        rng.random(5),
        np.zeros(0, dtype=np.int32),
    )


def test_arrays_come_back_equal_and_read_only() -> None:
    spill: Spill[tuple[str, str]] = Spill(document=lambda key: key[0])
    for seed in range(3):
        assert spill.put((f"doc{seed}", "class"), _arrays(seed))
    for seed in range(3):
        got = spill.get((f"doc{seed}", "class"))
        assert got is not None
        for a, b in zip(got, _arrays(seed), strict=True):
            assert a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b)
            assert not a.flags.writeable  # shared by every reader, like the memo's own
    assert spill.get(("other", "class")) is None


def test_an_entry_is_written_once(private_cache: Path) -> None:
    spill: Spill[str] = Spill()
    spill.put("k", _arrays(0))
    size = spill.nbytes
    assert spill.put("k", _arrays(1)) and spill.nbytes == size  # already there: kept
    assert np.array_equal(spill.get("k")[0], _arrays(0)[0])
    assert spill.writes == 1


def test_the_file_is_unnamed_and_private(private_cache: Path) -> None:
    spill: Spill[str] = Spill()
    spill.put("k", _arrays(0))
    assert spill._file is not None
    assert os.fstat(spill._file.fileno()).st_nlink == 0  # no name: gone with the process
    assert os.fstat(spill._file.fileno()).st_mode & 0o777 == 0o600
    assert not any(private_cache.iterdir())


def test_retain_forgets_released_documents_and_clear_empties_the_file() -> None:
    spill: Spill[tuple[str, str]] = Spill(document=lambda key: key[0])
    spill.put(("a", "x"), _arrays(0))
    spill.put(("b", "x"), _arrays(1))
    assert spill.retain({"b"}) == 1 and len(spill) == 1
    assert spill.get(("a", "x")) is None and spill.get(("b", "x")) is not None
    spill.clear()
    assert len(spill) == 0 and spill.nbytes == 0
    assert os.fstat(spill._file.fileno()).st_size == 0


def test_a_full_spill_refuses_what_it_cannot_hold() -> None:
    arrays = _arrays(0)
    size = sum(a.nbytes for a in arrays)
    spill: Spill[str] = Spill(max_bytes=size * 2)
    assert spill.put("a", arrays) and spill.put("b", arrays)
    assert not spill.put("c", arrays) and spill.get("c") is None and len(spill) == 2


def test_a_memo_spills_what_it_evicts_and_reads_it_back() -> None:
    computed: list[int] = []

    def compute(i: int) -> tuple[np.ndarray, ...]:
        computed.append(i)
        return _arrays(i)

    spill: Spill[int] = Spill()
    m: Memo[int, tuple[np.ndarray, ...]] = Memo(
        "test", budget=30, weigh=lambda k, v: 10, spill=spill
    )
    for i in range(5):
        m.get_or_compute(i, lambda i=i: compute(i))
    assert len(m) == 3 and m.evictions == 2 and m.spilled == 2  # 0 and 1 went to disk
    for i in range(5):  # every value again: none recomputed
        got = m.get_or_compute(i, lambda i=i: compute(i))
        assert all(np.array_equal(a, b) for a, b in zip(got, _arrays(i), strict=True))
    assert computed == list(range(5))
    m.evict_all()
    assert len(m) == 0 and m.size == 0 and m.spilled == 5
    assert m.get(4) is not None and len(m) == 1
    m.clear()
    assert len(m) == 0 and m.spilled == 0 and m.get(4) is None


def test_a_memo_releases_its_spilled_documents() -> None:
    spill: Spill[tuple[str, int]] = Spill(document=lambda key: key[0])
    m: Memo[tuple[str, int], tuple[np.ndarray, ...]] = Memo(
        "test", budget=10, weigh=lambda k, v: 10, document=lambda key: key[0], spill=spill
    )
    m.put(("a", 0), _arrays(0))
    m.put(("b", 0), _arrays(1))  # pushes ("a", 0) out, to the spill
    assert m.spilled == 1
    m.retain({"b"})
    assert m.spilled == 0 and m.get(("a", 0)) is None
