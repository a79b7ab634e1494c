"""Training throughput where the default run spends its time, as pytest-benchmark
benchmarks (``python -m bench profile`` on a run says where that is: the CRF fits of
``crf``, ``mist`` and ``multi``'s Illinois base, liblinear for ``mega``; docs/speed.md).

``extra_info["tokens"]`` is the number of training tokens per round; tokens/s is that
times the reported operations per second.  Run with::

    pytest tests/benchmarks/test_fit_speed.py --benchmark-enable -m "slow or not slow"
"""

from __future__ import annotations

import pytest

from bench.training.augment import augmented_copy
from corpora import nlp
from corpora.load import LoadOptions, load_corpus
from corpora.model import Document
from systems.base import get_system
from systems.features.base import FEATURE_SPACE, combine
from systems.multi import DEFAULT_BASES, MultiDeidentifier
from tests.conftest import requires_nltk

pytestmark = pytest.mark.slow  # minutes of fitting: CI runs these with -m slow

#: The CRF-family systems of the default run, by their registered name and parameters.
CRFS = {
    "crf": ("crf", {}),
    "mist": ("mist", {}),
    "illinois": ("crf", dict(next(p for n, _, p in DEFAULT_BASES if n == "illinois"))),
}


@pytest.fixture(scope="module")
def notes() -> list[Document]:
    corpus, _ = load_corpus("authentic", LoadOptions(seed=0, n_documents=120))
    docs = list(corpus.documents)
    nlp.warm_cache(docs)
    return docs


def _tokens(docs: list[Document]) -> int:
    return sum(len(d.tokens) for d in docs)


@requires_nltk
@pytest.mark.parametrize("key", list(CRFS))
def test_crf_training_throughput(benchmark, notes, key: str) -> None:
    """Features cached, as in every fold after a corpus's first: CRFsuite's own work."""
    name, params = CRFS[key]
    system = get_system(name, **params)
    combine(system.feature_classes(), notes)
    benchmark.extra_info["tokens"] = _tokens(notes)
    fitted = benchmark.pedantic(lambda: system.clone().fit(notes), rounds=3)
    assert len(fitted.predict(notes[:2])) == 2


@requires_nltk
@pytest.mark.parametrize("merge_rows", [False, True], ids=["row-by-row", "rows-merged"])
def test_mega_training_throughput_with_augmented_copies(benchmark, notes, merge_rows) -> None:
    """liblinear on a note and its three augmented copies (``--augment unseen:2,surrogate``),
    identical rows fitted one by one or merged (systems.distinct_rows)."""
    train = notes[:60]
    copies = [
        augmented_copy(v, d, 0, c)
        for v, c in (("unseen", 0), ("unseen", 1), ("surrogate", 0))
        for d in train
    ]
    nlp.warm_cache(copies)
    docs = train + copies
    system = get_system("mega", merge_rows=merge_rows)
    FEATURE_SPACE.matrix(system._features(), docs)  # every class's features once
    benchmark.extra_info["tokens"] = _tokens(docs)
    benchmark.pedantic(lambda: system.clone().fit(docs), rounds=3)


@requires_nltk
def test_multi_training_cost_against_its_bases(benchmark, notes) -> None:
    """A multi fit on its own (inner cross-fitting in two folds, no outer folds to share
    with) against the bases it stacks fitted alone: ``extra_info['cost_vs_bases']``."""
    train, test = notes[:90], notes[90:]
    multi = MultiDeidentifier()
    for _, name, params in DEFAULT_BASES:  # every base's features once (not timed)
        base = multi._make_base(name, params)
        if hasattr(base, "_features"):
            FEATURE_SPACE.matrix(base._features(), notes)
        elif hasattr(base, "feature_classes"):
            combine(base.feature_classes(), notes)
    benchmark.extra_info["tokens"] = _tokens(train)

    def fit_and_label() -> MultiDeidentifier:
        fitted = multi.clone().fit(train)
        fitted.predict(test)
        return fitted

    fitted = benchmark.pedantic(fit_and_label, rounds=1)
    benchmark.extra_info["cost_vs_bases"] = fitted.fitted_info().get("cost_vs_bases")
