"""Fitted CRF block models handed between workers that share a corpus: a worker loads a
model another stored instead of fitting it, leaves a model another is fitting for last,
and labels exactly as the fit would; without sharing nothing is stored."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path

import pytest

from corpora.model import Document
from infra import cache
from systems import prediction_cache, shared_models
from systems.base import get_system
from systems.crf import CrfLearner


@pytest.fixture
def docs() -> list[Document]:
    from corpora.load import load_corpus

    corpus, _ = load_corpus("authentic")
    return list(corpus.documents)[:24]


@pytest.fixture
def shared(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("DEID_BENCH_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("DEID_BENCH_NO_CACHE", raising=False)
    monkeypatch.setenv(cache.ENV_SHARED_WORK, "1")
    _forget()
    yield tmp_path / "cache"
    _forget()


def _forget() -> None:
    """What another worker would not have: this process's kept models and labels."""
    prediction_cache._MODELS.clear()
    prediction_cache._LABELS.clear()


def _crf():
    return get_system("crf", max_iterations=2)


def crf_fits(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The number of training documents of every CRFsuite fit from now on."""
    fits: list[int] = []
    real = CrfLearner.fit

    def counted(self, documents, rows, labels):  # type: ignore[no-untyped-def]
        fits.append(len(documents))
        return real(self, documents, rows, labels)

    monkeypatch.setattr(CrfLearner, "fit", counted)
    return fits


def another_worker_holding(
    claim: AbstractContextManager[bool], then: Callable[[], None]
) -> threading.Thread:
    """Another worker: a thread that takes ``claim``, runs ``then`` half a second later
    and releases it; returned once the claim is held."""
    holding = threading.Event()

    def work() -> None:
        with claim as mine:
            assert mine
            holding.set()
            time.sleep(0.5)
            then()

    thread = threading.Thread(target=work)
    thread.start()
    assert holding.wait(10)
    return thread


def _stored(path: Path) -> list[Path]:
    return sorted((path / shared_models.NAMESPACE).glob("*.pkl"))


def test_a_worker_loads_the_model_another_stored_and_labels_as_the_fit_does(
    shared, docs, monkeypatch
) -> None:
    train, first, later = docs[:16], docs[16:20], docs[20:]
    fresh = _crf().fit(train).predict_scored(later)
    prediction_cache.fit_predict_many(_crf(), train, [(None, first)], keep_model=True)
    assert len(_stored(shared)) == 1
    _forget()  # another worker: no model, no labels of ``later`` anywhere
    fits = crf_fits(monkeypatch)
    got = prediction_cache.fit_predict_many(_crf(), train, [(None, later)], keep_model=True)[0]
    assert fits == []
    assert got.labels == fresh[0]
    assert [s.tolist() for s in got.scores] == [s.astype("float32").tolist() for s in fresh[1]]


def test_without_sharing_no_model_is_stored(shared, docs, monkeypatch) -> None:
    monkeypatch.delenv(cache.ENV_SHARED_WORK)
    prediction_cache.fit_predict_many(_crf(), docs[:16], [(None, docs[16:])], keep_model=True)
    assert _stored(shared) == []


def test_a_model_another_worker_is_fitting_comes_last_and_is_loaded(
    shared, docs, monkeypatch
) -> None:
    """Two kept block models: the first is being fitted by another worker, so this one
    fits the second first, then waits for the first and loads it."""
    folds = [(tuple(range(8, 24)), tuple(range(8))), (tuple(range(12)), tuple(range(12, 24)))]
    theirs = _crf().fit([docs[i] for i in folds[0][0]])
    key = prediction_cache.prediction_key(_crf(), [docs[i] for i in folds[0][0]], [])
    thread = another_worker_holding(
        shared_models._claim(key, wait=True),
        lambda: cache.store(shared_models.NAMESPACE, key, theirs),
    )
    assert shared_models.busy(key)
    fits = crf_fits(monkeypatch)
    got = prediction_cache.out_of_fold(_crf(), docs, folds, keep_models=[True, True])
    thread.join()
    assert fits == [12]  # the second fold's model only; the first was loaded
    assert got.labels[:8] == theirs.predict(docs[:8])
