"""A kept model's labels reach every process through the cache: a second process (here:
this one with its memory emptied) reads them instead of fitting the model again, and one
process at a time fits a model."""

from __future__ import annotations

import multiprocessing
from collections.abc import Sequence
from pathlib import Path
from typing import ClassVar

import numpy as np
import pytest

from corpora.generator import GeneratorConfig, generate_corpus
from corpora.model import Document
from systems import prediction_cache, shared_labels
from systems.base import System


class CountingMemorizer(System):
    """Labels the notes it was trained on perfectly and every other token ``O``, and
    counts its fits."""

    name = "test-shared-memorizer"
    fits: ClassVar[int] = 0

    def __init__(self) -> None:
        pass

    def fit(self, documents: Sequence[Document]) -> CountingMemorizer:
        CountingMemorizer.fits += 1
        self.seen_ = {d.fingerprint for d in documents}
        return self

    def predict(self, documents: Sequence[Document]) -> list[list[str]]:
        return [
            [t.label if d.fingerprint in self.seen_ else "O" for t in d.tokens] for d in documents
        ]


@pytest.fixture
def private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("DEID_BENCH_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("DEID_BENCH_NO_CACHE", raising=False)
    return tmp_path / "cache"


def _forget_this_process() -> None:
    """What another worker would not have: this process's kept models and labels."""
    prediction_cache._MODELS.clear()
    prediction_cache._LABELS.clear()


def _block_model_run(docs: list[Document]) -> tuple[list[list[str]], list[list[str]]]:
    """A block model fitted on ``docs[4:]`` labels ``docs[:2]`` and, for a later fold,
    ``docs[2:4]``; then a process without it asks for ``docs[2:4]``."""
    train = docs[4:]
    first = prediction_cache.fit_predict_many(
        CountingMemorizer(), train, [(None, docs[:2])], keep_model=True, prefetch=docs[2:4]
    )[0]
    _forget_this_process()
    later = prediction_cache.fit_predict_many(
        CountingMemorizer(), train, [(None, docs[2:4])], keep_model=True
    )[0]
    return first.labels, later.labels


def test_a_block_models_labels_are_read_back_by_another_process(private_cache: Path) -> None:
    docs = list(generate_corpus(3, GeneratorConfig(n_documents=8)).documents)
    CountingMemorizer.fits = 0
    first, later = _block_model_run(docs)
    assert CountingMemorizer.fits == 1  # the later fold read what the first fit labelled
    assert first == [["O"] * len(d.tokens) for d in docs[:2]]
    assert later == [["O"] * len(d.tokens) for d in docs[2:4]]
    assert any((private_cache / shared_labels.NAMESPACE).glob("*.pkl"))


def test_without_a_cache_each_process_fits_what_it_needs(
    private_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DEID_BENCH_NO_CACHE", "1")
    docs = list(generate_corpus(3, GeneratorConfig(n_documents=8)).documents)
    CountingMemorizer.fits = 0
    _block_model_run(docs)
    assert CountingMemorizer.fits == 2
    assert not (private_cache / shared_labels.NAMESPACE).exists()


def test_entries_are_numbered_and_read_for_the_documents_asked(private_cache: Path) -> None:
    codes = np.array([1, 2, 3], np.uint8)
    shared_labels.write("model", {"a": (codes, None)})
    shared_labels.write("model", {"b": (codes[:1], np.zeros(1, np.float32))})
    got = shared_labels.read("model", ["a", "b", "c"])
    assert set(got) == {"a", "b"}
    assert got["a"][0].tolist() == [1, 2, 3] and got["a"][1] is None
    assert got["b"][1].dtype == np.float32
    assert shared_labels.read("other-model", ["a"]) == {}
    assert sorted(p.name for p in (private_cache / shared_labels.NAMESPACE).glob("*.pkl")) == [
        "model-0.pkl",
        "model-1.pkl",
    ]


def _write_many(cache_dir: str, start: int) -> None:
    import os

    os.environ["DEID_BENCH_CACHE"] = cache_dir
    for i in range(start, start + 20):
        shared_labels.write("busy", {str(i): (np.zeros(1, np.uint8), None)})


def test_two_processes_writing_one_model_lose_no_entry(private_cache: Path) -> None:
    context = multiprocessing.get_context("fork")
    writers = [
        context.Process(target=_write_many, args=(str(private_cache), start)) for start in (0, 20)
    ]
    for w in writers:
        w.start()
    for w in writers:
        w.join(60)
    assert [w.exitcode for w in writers] == [0, 0]
    got = shared_labels.read("busy", [str(i) for i in range(40)])
    assert sorted(got, key=int) == [str(i) for i in range(40)]
