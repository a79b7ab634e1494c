"""Throughput of the local-context SVM, as pytest-benchmark benchmarks.

Targets on a 2-core machine: feature extraction >= 50,000 tokens/s, tagging >= 20,000
tokens/s, training on 300,000 tokens <= 60 s, peak memory <= 2 GB.  Measured on the
embedded default corpus (``surrogate``).  POS tags and lemmas come from the disk cache
(:func:`corpora.nlp.warm_cache`), as in every run after the first: the runner tags a corpus
once, and NLTK's tagger alone runs at ~15k tokens/s.

``extra_info["tokens"]`` is the number of tokens per round; tokens/s is that times the
reported operations per second.  Run with::

    pytest tests/benchmarks/test_svm_speed.py --benchmark-enable -m "slow or not slow"
"""

from __future__ import annotations

import itertools
import resource

import pytest

from corpora import nlp
from corpora.load import LoadOptions, load_corpus
from corpora.model import Document
from systems.mega import MegaSVM
from systems.svm import FEATURE_SPACE, FeatureSpace, LocalContextSVM
from tests.conftest import requires_nltk

_fresh = itertools.count()


def _surrogate(n_documents: int, seed: int = 0) -> list[Document]:
    corpus, _ = load_corpus("surrogate", LoadOptions(seed=seed, n_documents=n_documents))
    docs = list(corpus.documents)
    nlp.warm_cache(docs)
    return docs


def _renamed(docs: list[Document]) -> list[Document]:
    """Copies with new ids (so nothing featurized is cached), tags carried over."""
    run = next(_fresh)
    out = [Document(f"bench{run}-{d.id}", d.text, d.spans) for d in docs]
    for old, new in zip(docs, out, strict=True):
        nlp._POS.put(new.fingerprint, nlp.pos_tags(old))
        nlp._LEMMAS.put(new.fingerprint, nlp.lemmas(old))
    return out


@pytest.fixture(scope="module")
def split() -> tuple[list[Document], list[Document]]:
    docs = _surrogate(80)
    return docs[:40], docs[40:]


@pytest.fixture(scope="module")
def fitted(split) -> LocalContextSVM:
    return LocalContextSVM().fit(split[0])


@requires_nltk
def test_feature_extraction_throughput(benchmark, split, fitted) -> None:
    test = split[1]
    features = fitted._features()

    def setup() -> tuple[tuple[FeatureSpace], dict]:
        return (FeatureSpace(),), {}

    def extract(space: FeatureSpace) -> int:
        return space.matrix(features, test).nnz

    benchmark.extra_info["tokens"] = sum(len(d.tokens) for d in test)
    nnz = benchmark.pedantic(extract, setup=setup, rounds=5, warmup_rounds=1)
    assert nnz > 0


@requires_nltk
def test_tagging_throughput_cached_features(benchmark, split, fitted) -> None:
    test = split[1]
    FEATURE_SPACE.matrix(fitted._features(), test)  # featurized once, as in a run
    benchmark.extra_info["tokens"] = sum(len(d.tokens) for d in test)
    predictions = benchmark(fitted.predict, test)
    assert [len(p) for p in predictions] == [len(d.tokens) for d in test]


@requires_nltk
def test_tagging_throughput_end_to_end(benchmark, split, fitted) -> None:
    """Features (from cached POS tags) plus classification of documents never seen."""
    test = split[1]

    def setup() -> tuple[tuple[list[Document]], dict]:
        return (_renamed(test),), {}

    benchmark.extra_info["tokens"] = sum(len(d.tokens) for d in test)
    predictions = benchmark.pedantic(fitted.predict, setup=setup, rounds=5, warmup_rounds=1)
    assert len(predictions) == len(test)


@requires_nltk
def test_training_throughput_small(benchmark, split) -> None:
    train = split[0]
    FEATURE_SPACE.matrix(LocalContextSVM()._features(), train)
    benchmark.extra_info["tokens"] = sum(len(d.tokens) for d in train)
    model = benchmark(LocalContextSVM().fit, train)
    assert model.model_ is not None


@requires_nltk
@pytest.mark.parametrize("two_stage", [False, True], ids=["mega", "mega-two-stage"])
def test_mega_training_and_tagging_throughput(benchmark, split, two_stage: bool) -> None:
    """The Mega SVM, and its two-stage form (two jackknife fits and a first-stage fit more,
    and a first-stage pass before every tagging): training plus tagging per round."""
    train, test = split
    FEATURE_SPACE.matrix(MegaSVM()._features(), train + test)

    def fit_and_tag() -> list[list[str]]:
        return MegaSVM(two_stage=two_stage).fit(train).predict(test)

    benchmark.extra_info["tokens"] = sum(len(d.tokens) for d in train + test)
    predictions = benchmark.pedantic(fit_and_tag, rounds=3, warmup_rounds=0)
    assert [len(p) for p in predictions] == [len(d.tokens) for d in test]


@requires_nltk
@pytest.mark.slow
def test_training_on_300k_tokens(benchmark) -> None:
    """Binary svm trained on ~300,000 tokens of the default corpus (features cached)."""
    docs: list[Document] = []
    seed = 0
    while sum(len(d.tokens) for d in docs) < 300_000:
        docs += _renamed_seed(_surrogate(440, seed=seed), seed)
        seed += 1
    n = 0
    train = []
    for d in docs:
        if n >= 300_000:
            break
        train.append(d)
        n += len(d.tokens)
    FEATURE_SPACE.matrix(LocalContextSVM()._features(), train)
    benchmark.extra_info["tokens"] = n
    model = benchmark.pedantic(LocalContextSVM().fit, args=(train,), rounds=1)
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    benchmark.extra_info["peak_rss_mb"] = peak_mb
    assert model.model_ is not None
    assert peak_mb < 2048


def _renamed_seed(docs: list[Document], seed: int) -> list[Document]:
    """Documents of corpora generated with different seeds may share ids: make them unique."""
    if seed == 0:
        return docs
    out = [Document(f"s{seed}-{d.id}", d.text, d.spans) for d in docs]
    for old, new in zip(docs, out, strict=True):
        nlp._POS.put(new.fingerprint, nlp.pos_tags(old))
        nlp._LEMMAS.put(new.fingerprint, nlp.lemmas(old))
    return out


@requires_nltk
@pytest.mark.parametrize("spill", [True, False], ids=["from-spill", "from-disk-entries"])
def test_design_of_notes_the_memos_cannot_hold(benchmark, split, spill: bool) -> None:
    """A binary design matrix of notes whose encodings outgrew the memos (a tuned PhysioNet
    run with augmented copies, every fit): read back from the spill files in the
    process's ids, or without them from the cache's disk entries, every name interned
    again (what the tuned run spent 450 worker-seconds on; docs/speed.md).  Same matrix."""
    docs = split[0] + split[1]
    features = MegaSVM()._features()
    space = FeatureSpace()
    whole = space.matrix(features, docs, binary=True)
    budget = max(space._encoded.size // 4, 1)
    for m in (space._encoded, space._binary):
        m.clear()
        m.budget = budget
        if not spill:
            m.spill = None
    space.matrix(features, docs, binary=True)  # evicts as it goes: to spill or disk
    assert space.evictions > 0
    benchmark.extra_info["tokens"] = sum(len(d.tokens) for d in docs)
    x = benchmark.pedantic(lambda: space.matrix(features, docs, binary=True), rounds=3)
    assert (x != whole).nnz == 0 and x.shape == whole.shape
