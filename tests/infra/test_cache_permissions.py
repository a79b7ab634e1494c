"""The disk cache holds note text: owner-only whatever the umask, and a shared one is
reported once."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from infra import cache


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture
def fresh(tmp_path, monkeypatch) -> Path:
    root = tmp_path / "parent" / "cache"
    monkeypatch.setenv(cache.ENV_CACHE, str(root))
    monkeypatch.delenv("DEID_BENCH_NO_CACHE", raising=False)
    monkeypatch.delenv("DEID_BENCH_CACHE_CHECKED", raising=False)
    return root


@pytest.mark.parametrize("umask", [0o000, 0o022])
def test_cache_directories_and_entries_are_owner_only(fresh: Path, umask: int, capsys) -> None:
    old = os.umask(umask)
    try:
        cache.store("nlp", "k", {"lemmas": ["seen", "by", "dr", "smith"]})
        cache.write_entry("timings.json", b"{}")
    finally:
        os.umask(old)
    for d in (fresh.parent, fresh, fresh / "nlp"):
        assert _mode(d) == 0o700, d
    for f in (fresh / "nlp" / "k.pkl", fresh / "timings.json"):
        assert _mode(f) == 0o600, f
    assert cache.load("nlp", "k") == {"lemmas": ["seen", "by", "dr", "smith"]}
    assert capsys.readouterr().err == ""


def test_an_open_cache_directory_is_reported_once(fresh: Path, capsys) -> None:
    fresh.mkdir(parents=True)
    fresh.chmod(0o755)
    cache.store("nlp", "a", 1)
    cache.store("nlp", "b", 2)
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "open to other users" in err and "chmod 700" in err
    assert _mode(fresh) == 0o755  # reported, not changed behind the user's back


def test_a_file_in_the_way_is_a_cache_error(tmp_path, monkeypatch) -> None:
    (tmp_path / "f").write_text("")
    monkeypatch.setenv(cache.ENV_CACHE, str(tmp_path / "f" / "cache"))
    with pytest.raises(cache.CacheError, match="is not a directory"):
        cache.cache_dir()
