"""Tagging throughput of the CRF systems (target: >= 20,000 tokens/s).

Two measurements per system, as pytest-benchmark benchmarks (not timed assertions):

* ``cached``: features already computed (the runner featurizes a corpus once and reuses it
  for every fold), so this is the CRF's own tagging plus merging the cached feature rows;
* ``end_to_end``: fresh documents -- tokenization, POS tagging, features and tagging.

``extra_info["tokens"]`` is the number of tokens tagged per round; tokens/s is that
times the reported operations per second.
"""

from __future__ import annotations

import itertools

import pytest

from corpora.model import Document
from systems.base import System, get_system
from systems.features.base import combine
from tests.conftest import requires_nltk
from tests.systems.test_crf import notes

SYSTEMS = {
    "crf": ("crf", {}),
    "mist": ("mist", {}),
    "crf_two_stage": ("crf", {"two_stage": True, "inner_folds": 2}),
}

_fresh = itertools.count()


@pytest.fixture(scope="module")
def fitted() -> dict[str, System]:
    train = notes(60, seed=11)
    return {
        key: get_system(name, max_iterations=30, **params).fit(train)
        for key, (name, params) in SYSTEMS.items()
    }


def _test_documents() -> list[Document]:
    """~5,000 tokens of notes with ids never seen before (so nothing is cached)."""
    run = next(_fresh)
    return [Document(f"bench{run}-{d.id}", d.text, d.spans) for d in notes(120, seed=12)]


@requires_nltk
@pytest.mark.parametrize("key", list(SYSTEMS))
def test_tagging_throughput_cached_features(benchmark, fitted, key: str) -> None:
    system = fitted[key]
    docs = _test_documents()
    combine(system.feature_classes(), docs)  # featurize once, as the runner does
    benchmark.extra_info["tokens"] = sum(len(d.tokens) for d in docs)
    predictions = benchmark(system.predict, docs)
    assert len(predictions) == len(docs)


@requires_nltk
@pytest.mark.parametrize("key", list(SYSTEMS))
def test_tagging_throughput_end_to_end(benchmark, fitted, key: str) -> None:
    system = fitted[key]
    benchmark.extra_info["tokens"] = sum(len(d.tokens) for d in _test_documents())

    def setup() -> tuple[tuple[list[Document]], dict[str, object]]:
        return (_test_documents(),), {}

    predictions = benchmark.pedantic(system.predict, setup=setup, rounds=3)
    assert len(predictions) == 120
