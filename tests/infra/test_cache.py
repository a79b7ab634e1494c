"""The on-disk cache: round trips, atomic writes, corrupt entries recomputed, never trusted."""

from __future__ import annotations

import os
import stat

import pytest

from infra import cache


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch) -> None:
    """Each test its own cache directory (never the user's)."""
    monkeypatch.setenv("DEID_BENCH_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("DEID_BENCH_NO_CACHE", raising=False)


def test_store_and_load_round_trip() -> None:
    key = cache.make_key("x", 1, {"a": 2})
    assert cache.load("ns", key) is cache.MISSING
    cache.store("ns", key, {"labels": [["O", "PHI"]]})
    assert cache.load("ns", key) == {"labels": [["O", "PHI"]]}


def test_make_key_depends_on_every_part() -> None:
    assert cache.make_key("a", 1) == cache.make_key("a", 1)
    assert cache.make_key("a", 1) != cache.make_key("a", 2)
    assert cache.make_key("a", 1) != cache.make_key("a1")


def test_cached_computes_once() -> None:
    calls = []

    def compute() -> int:
        calls.append(1)
        return 42

    assert cache.cached("ns", "k", compute) == 42
    assert cache.cached("ns", "k", compute) == 42
    assert len(calls) == 1


def test_corrupt_entry_is_detected_removed_and_recomputed() -> None:
    cache.store("ns", "bad", [1, 2, 3])
    path = cache.cache_dir() / "ns" / "bad.pkl"
    raw = bytearray(path.read_bytes())
    raw[-1] ^= 0xFF  # flip bits in the payload: the checksum no longer matches
    path.write_bytes(bytes(raw))
    assert cache.load("ns", "bad") is cache.MISSING
    assert not path.exists()
    assert cache.cached("ns", "bad", lambda: [4]) == [4]


def test_truncated_entry_is_not_trusted() -> None:
    cache.store("ns", "cut", list(range(100)))
    path = cache.cache_dir() / "ns" / "cut.pkl"
    path.write_bytes(path.read_bytes()[:20])
    assert cache.load("ns", "cut") is cache.MISSING


def test_no_cache_switch(monkeypatch) -> None:
    monkeypatch.setenv("DEID_BENCH_NO_CACHE", "1")
    cache.store("ns", "off", 1)
    assert cache.load("ns", "off") is cache.MISSING


def test_atomic_write_leaves_no_temporary_files_and_sets_mode(tmp_path) -> None:
    target = tmp_path / "sub" / "secret.txt"
    cache.atomic_write_text(target, "hello", mode=0o600)
    assert target.read_text() == "hello"
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o600
    cache.atomic_write_text(target, "again", mode=0o600)
    assert target.read_text() == "again"
    assert [p.name for p in target.parent.iterdir()] == ["secret.txt"]


def test_atomic_write_uses_normal_permissions_unless_asked(tmp_path) -> None:
    import os
    import stat

    from infra.cache import atomic_write_text

    old = os.umask(0o022)
    try:
        atomic_write_text(tmp_path / "results.csv", "a,b\n")
        atomic_write_text(tmp_path / "errors.txt", "phi\n", mode=0o600)
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "results.csv").stat().st_mode) == 0o644
    assert stat.S_IMODE((tmp_path / "errors.txt").stat().st_mode) == 0o600
