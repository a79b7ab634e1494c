"""Fixtures for the bench tests: a private cache, toy systems, tiny corpora."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from corpora.model import Corpus
from systems.base import register, unregister
from tests.bench import toy


@pytest.fixture(autouse=True)
def private_cache(tmp_path_factory, monkeypatch) -> Iterator[None]:
    """Every test gets its own cache directory (never the user's)."""
    path = tmp_path_factory.mktemp("cache")
    path.chmod(0o700)  # as the harness creates it: an open one draws a warning on stderr
    monkeypatch.setenv("DEID_BENCH_CACHE", str(path))
    monkeypatch.delenv("DEID_BENCH_NO_CACHE", raising=False)
    monkeypatch.setenv("MPLBACKEND", "Agg")
    yield


@pytest.fixture
def toy_systems() -> Iterator[dict[str, type]]:
    """Register the throw-away systems for one test, then remove them again."""
    for cls in toy.TOY_SYSTEMS:
        register(cls)
    try:
        yield {cls.name: cls for cls in toy.TOY_SYSTEMS}
    finally:
        for cls in toy.TOY_SYSTEMS:
            unregister(cls.name)


@pytest.fixture
def make_corpus() -> Callable[..., Corpus]:
    return toy.make_corpus
