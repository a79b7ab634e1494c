"""Fold splitting: partitions, seeds, and groups that never straddle a split."""

from __future__ import annotations

import pytest

from corpora.folds import document_kfold, kfold, resolve_group_key
from corpora.model import Document


def _docs(groups: list[str | None]) -> list[Document]:
    return [
        Document(
            id=f"d{i}", text="Seen by Dr. Smith.", metadata={} if g is None else {"patient": g}
        )
        for i, g in enumerate(groups)
    ]


def test_ungrouped_folds_partition_and_follow_the_seed() -> None:
    folds = kfold(23, 5, seed=3)
    assert sorted(i for _, te in folds for i in te) == list(range(23))
    for tr, te in folds:
        assert not set(tr) & set(te)
        assert sorted(tr + te) == list(range(23))
    assert folds == kfold(23, 5, seed=3)
    assert folds != kfold(23, 5, seed=4)


def test_no_group_appears_in_both_train_and_test() -> None:
    # uneven groups: patient "0" has 40 notes, others 1-7
    groups = ["0"] * 40 + [str(1 + i % 17) for i in range(90)]
    for seed in (0, 1, 2):
        folds = kfold(len(groups), 5, seed, groups)
        assert sorted(i for _, te in folds for i in te) == list(range(len(groups)))
        for tr, te in folds:
            assert not {groups[i] for i in tr} & {groups[i] for i in te}
    sizes = sorted(len(te) for _, te in kfold(len(groups), 5, 0, groups))
    assert sizes[-1] == 40 and sizes[0] >= 20  # the big patient alone, the rest balanced


def test_singleton_groups_give_the_document_folds() -> None:
    groups = [f"p{i}" for i in range(30)]
    assert kfold(30, 5, 7, groups) == kfold(30, 5, 7)


def test_too_few_groups_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="3 groups"):
        kfold(30, 5, 0, [str(i % 3) for i in range(30)])


def test_resolve_group_key() -> None:
    grouped = _docs(["a", "a", "b"])
    assert resolve_group_key(grouped, "auto") == "patient"
    assert resolve_group_key(grouped, "document") is None
    partly = _docs(["a", None, "b"])
    assert resolve_group_key(partly, "auto") is None
    with pytest.raises(ValueError, match="1 of 3 documents"):
        resolve_group_key(partly, "patient")
    with pytest.raises(ValueError, match="unknown grouping"):
        resolve_group_key(grouped, "ward")


def test_document_kfold_keeps_patients_together() -> None:
    docs = _docs([str(i // 4) for i in range(40)])
    for tr, te in document_kfold(docs, 5, 0):
        assert not {docs[i].metadata["patient"] for i in tr} & {
            docs[i].metadata["patient"] for i in te
        }
