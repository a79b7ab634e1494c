"""The Multi-deidentifier learns whom to trust, and never trains on decisions a base system
made about documents it had seen."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

import pytest

from bench.protocols import cross_validation
from corpora.model import Corpus, Document, Span
from systems import multi as multi_module
from systems.base import OuterFolds, System, register, unregister
from systems.multi import MultiDeidentifier


class Memorizer(System):
    """Labels perfectly the documents it was trained on, and nothing else."""

    name = "test-memorizer"

    def __init__(self) -> None:
        pass

    def fit(self, documents: Sequence[Document]) -> Memorizer:
        self.seen_ = {d.fingerprint for d in documents}
        return self

    def predict(self, documents: Sequence[Document]) -> list[list[str]]:
        return [
            [t.label if d.fingerprint in self.seen_ else "O" for t in d.tokens] for d in documents
        ]


class CountingMemorizer(Memorizer):
    """A memorizer that records every training set it was fitted on."""

    name = "test-counting-memorizer"
    fitted: ClassVar[list[set[str]]] = []

    def fit(self, documents: Sequence[Document]) -> CountingMemorizer:
        CountingMemorizer.fitted.append({d.fingerprint for d in documents})
        return super().fit(documents)


class CapsArePatients(System):
    """Rule: capitalized words after 'Mr.' are PATIENT; digits with '/' are DATE."""

    name = "test-caps"
    requires_training = False

    def __init__(self) -> None:
        pass

    def predict(self, documents: Sequence[Document]) -> list[list[str]]:
        out = []
        for d in documents:
            labels = []
            for i, t in enumerate(d.tokens):
                if "/" in t.text:
                    labels.append("DATE")
                elif t.text[:1].isupper() and i and d.tokens[i - 1].text == "Mr.":
                    labels.append("PATIENT")
                else:
                    labels.append("O")
            out.append(labels)
        return out


class NoisyDigits(System):
    """Rule that is wrong about dates: calls every number PHONE."""

    name = "test-noisy"
    requires_training = False

    def __init__(self) -> None:
        pass

    def predict(self, documents: Sequence[Document]) -> list[list[str]]:
        return [["PHONE" if "/" in t.text else "O" for t in d.tokens] for d in documents]


@pytest.fixture
def toys():
    classes = (Memorizer, CountingMemorizer, CapsArePatients, NoisyDigits)
    for cls in classes:
        register(cls)
    CountingMemorizer.fitted = []
    multi_module._SHARED_BASES.clear()
    yield
    for cls in classes:
        unregister(cls.name)
    multi_module._SHARED_BASES.clear()


def _docs(n: int) -> list[Document]:
    names = ["Lee", "Park", "Cole", "Hart", "Wynn", "Dunn", "Ross", "Tate"]
    docs = []
    for i in range(n):
        name = names[i % len(names)]
        text = f"Mr. {name} seen on {i % 12 + 1}/{i % 27 + 1} for chest pain, stable."
        s = text.index(name)
        d = text.index("/") - len(str(i % 12 + 1))
        e = text.index(" for")
        docs.append(
            Document(f"d{i}", text, (Span(s, s + len(name), "PATIENT"), Span(d, e, "DATE")))
        )
    return docs


def test_jackknife_never_uses_decisions_on_seen_documents(toys) -> None:
    multi = MultiDeidentifier(
        base_systems=(("memo", "test-memorizer", ()),), strategy="jackknife", inner_folds=3
    )
    per_system = multi._out_of_fold(_docs(9))
    assert all(label == "O" for doc in per_system[0] for label in doc)


def test_blend_meta_training_documents_are_unseen_by_bases(toys) -> None:
    multi = MultiDeidentifier(base_systems=(("memo", "test-memorizer", ()),))
    docs = _docs(10)
    meta_docs, bases = multi._blend(docs)
    assert len(meta_docs) == 5
    assert all(label == "O" for doc in bases[0].predict(meta_docs) for label in doc)


@pytest.mark.parametrize("strategy", ["blend", "jackknife"])
def test_learns_to_trust_the_right_system_per_class(toys, strategy) -> None:
    bases = (("caps", "test-caps", ()), ("noisy", "test-noisy", ()))
    multi = MultiDeidentifier(base_systems=bases, strategy=strategy).fit(_docs(12))
    test = _docs(14)[12:]
    pred = multi.predict(test)
    gold = [[t.label for t in d.tokens] for d in test]
    assert pred == gold  # DATE comes from "caps", never PHONE from "noisy"
    assert multi.get_params()["strategy"] == strategy


def test_unknown_strategy(toys) -> None:
    with pytest.raises(ValueError, match="unknown strategy"):
        MultiDeidentifier(base_systems=(("caps", "test-caps", ()),), strategy="vote").fit(_docs(4))


def test_default_illinois_base_is_the_two_stage_averaged_perceptron() -> None:
    """The Illinois base uses its own features, the second stage and LBJNET's learner."""
    multi = MultiDeidentifier()
    ((system, params),) = [(s, p) for n, s, p in multi.base_systems if n == "illinois"]
    base = multi._make_base(system, params)
    assert base.feature_set == "illinois" and base.two_stage
    assert base._make_learner().algorithm == "ap"
    names = [n for n, _, _ in multi.base_systems]
    assert names == ["statdeid", "stanford", "mist", "illinois", "mimic"]


def test_crossfit_halves_keep_the_test_fold_away_from_the_bases(toys) -> None:
    docs = _docs(20)
    multi = MultiDeidentifier(base_systems=(("memo", "test-memorizer", ()),))
    train_folds = tuple(i // 2 for i in range(20) if i // 2 != 3)
    train = [d for i, d in enumerate(docs) if i // 2 != 3]
    base_docs, meta_docs = multi.crossfit_halves(train, OuterFolds(train_folds, 3))
    assert {d.id for d in base_docs} == {f"d{i}" for i in range(10, 20)}  # folds 5-9
    assert {d.id for d in meta_docs} == {f"d{i}" for i in range(10) if i // 2 != 3}
    # two folds only: one half would be empty, so the caller falls back to blending
    assert multi.crossfit_halves(train[:2], OuterFolds((1, 1), 0)) is None


def test_crossfit_trains_each_base_once_per_half_and_never_on_the_test_fold(toys) -> None:
    corpus = Corpus("toy", tuple(_docs(20)))
    bases = (("memo", "test-counting-memorizer", ()), ("caps", "test-caps", ()))
    predictions = {}
    for split in cross_validation(corpus, k=10, seed=0):
        train = [corpus.documents[i] for i in split.train]
        test = [corpus.documents[i] for i in split.test]
        multi = MultiDeidentifier(base_systems=bases)
        predictions[split.fold] = multi.fit_predict(
            train, test, folds=OuterFolds(split.train_folds, split.fold)
        )
        # the bases that labelled this test fold never saw it
        assert multi.bases_[0].seen_.isdisjoint({d.fingerprint for d in test})
    assert len(CountingMemorizer.fitted) == 2  # one per half of the ten folds
    assert len(predictions) == 10
    # without the folds the same strategy falls back to blending, one fit per call
    MultiDeidentifier(base_systems=bases).fit_predict(_docs(20)[:18], _docs(20)[18:])
    assert len(CountingMemorizer.fitted) == 3
