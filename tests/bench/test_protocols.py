"""Protocols: folds by document, own split, cross-corpus, nested learning-curve fractions."""

from __future__ import annotations

import pytest

from bench.run.protocols import (
    LEARNING_CURVE_FRACTIONS,
    cross_corpus,
    cross_validation,
    has_own_split,
    learning_curve,
    make_splits,
    own_split,
    training_subset,
)
from corpora.folds import document_folds
from tests.bench.toy import make_corpus


def test_document_folds_partition_and_are_reproducible() -> None:
    folds = document_folds(23, 5, seed=3)
    tests = [i for _, te in folds for i in te]
    assert sorted(tests) == list(range(23))
    for train, test in folds:
        assert not set(train) & set(test)
        assert len(train) + len(test) == 23
    assert folds == document_folds(23, 5, seed=3)
    assert folds != document_folds(23, 5, seed=4)


def test_document_folds_reject_bad_k() -> None:
    with pytest.raises(ValueError):
        document_folds(10, 1, 0)
    with pytest.raises(ValueError):
        document_folds(3, 5, 0)


def test_cross_validation_splits_name_the_corpus_and_scheme() -> None:
    corpus = make_corpus(10)
    splits = cross_validation(corpus, k=5, seed=1)
    assert [s.fold for s in splits] == list(range(5))
    assert {s.protocol for s in splits} == {"cv"}
    assert all(s.train_corpus == s.test_corpus == "toy" for s in splits)
    assert splits[0].scheme == "k=5,seed=1"
    assert sorted(i for s in splits for i in s.test) == list(range(10))


def test_own_split_uses_document_metadata() -> None:
    corpus = make_corpus(12, with_split=True)
    assert has_own_split(corpus)
    (split,) = own_split(corpus)
    assert split.test == (0, 4, 8)
    assert len(split.train) == 9
    assert make_splits("auto", corpus)[0].protocol == "split"
    assert make_splits("auto", make_corpus(12), k=3)[0].protocol == "cv"
    with pytest.raises(ValueError, match="no train/test split"):
        own_split(make_corpus(4))


def test_cross_corpus_uses_train_part_and_test_part() -> None:
    train = make_corpus(8, name="a", with_split=True)
    test = make_corpus(6, name="b")
    (split,) = cross_corpus(train, test)
    assert split.protocol == "cross"
    assert split.train_corpus == "a" and split.test_corpus == "b"
    assert split.train == tuple(i for i in range(8) if i % 4)
    assert split.test == tuple(range(6))
    with pytest.raises(ValueError):
        make_splits("cross", test)


def test_training_subsets_are_nested_and_never_empty() -> None:
    train = tuple(range(0, 64, 2))
    previous: set[int] = set()
    for fraction in LEARNING_CURVE_FRACTIONS:
        subset = set(training_subset(train, fraction, seed=7))
        assert previous <= subset <= set(train)
        assert len(subset) == max(1, round(fraction * len(train)))
        previous = subset
    with pytest.raises(ValueError):
        training_subset(train, 0.0, seed=0)


def test_learning_curve_covers_every_fraction_of_every_fold() -> None:
    corpus = make_corpus(12)
    splits = learning_curve(corpus, fractions=(0.25, 1.0), k=3, seed=0)
    assert len(splits) == 6
    full = [s for s in splits if s.fraction == 1.0]
    assert [s.train for s in full] == [s.train for s in cross_validation(corpus, 3, 0)]
    quarter = [s for s in splits if s.fraction == 0.25]
    assert all(
        len(q.train) == 2 and set(q.train) <= set(f.train)
        for q, f in zip(quarter, full, strict=True)
    )
    assert quarter[0].scheme != full[0].scheme  # distinct cache keys


def test_unknown_protocol() -> None:
    with pytest.raises(ValueError, match="unknown protocol"):
        make_splits("bogus", make_corpus(4))
