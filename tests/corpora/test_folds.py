"""Fold splitting: partitions, seeds, and groups that never straddle a split."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from corpora.folds import document_kfold, groups_of, kfold, resolve_group_key
from corpora.load import load_corpus
from corpora.model import Document, Span


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


def test_training_copies_stay_on_the_side_of_their_note() -> None:
    from corpora.variants import document_variant

    notes = [
        Document(f"n{i}", f"Seen by Dr. Smith on day {i}.", (Span(11, 16, "DOCTOR"),))
        for i in range(12)
    ]
    copies = [document_variant("surrogate", d, 0, c) for c in (0, 1) for d in notes]
    assert all(c.metadata["copy_of"] == c.id.split("+")[0] for c in copies)
    again = document_variant("surrogate", copies[0], 0)  # a copy of a copy: the same note
    assert again.metadata["copy_of"] == "n0"
    docs = notes + copies
    for group_by in ("auto", "document"):
        for seed in (0, 1, 2):
            for tr, te in document_kfold(docs, 4, seed, group_by):
                source = {docs[i].metadata.get("copy_of", docs[i].id) for i in te}
                assert not source & {docs[i].metadata.get("copy_of", docs[i].id) for i in tr}
    # with patient keys the copies carry their note's patient, and group by it
    grouped = [replace(d, metadata={"patient": str(i % 3)}) for i, d in enumerate(notes)]
    with_copies = grouped + [document_variant("unseen", d, 0) for d in grouped]
    assert groups_of(with_copies, "patient") == [str(i % 3) for i in range(12)] * 2
    assert groups_of(notes, None) is None  # no copies: ungrouped as before


# ----------------------------------------------------------------- grouping keys of readers
# Six patients with 1-4 notes each, written in every format whose reader knows the patient.
_NOTES = [(p, n) for p in range(6) for n in range(1 + p % 4)]


def _physionet(path: Path) -> str:
    records, phrases = [], []
    for p, n in _NOTES:
        records.append(f"START_OF_RECORD={p}||||{n}||||\nSeen by Dr. Smith.\n||||END_OF_RECORD\n")
        phrases.append(f"{p} {n} 12 17 HCPName Smith\n")
    (path / "id.text").write_text("".join(records))
    (path / "id-phi.phrase").write_text("".join(phrases))
    return f"physionet:{path}"


def _i2b2_2014(path: Path) -> str:
    for p, n in _NOTES:
        (path / f"{100 + p}-{n + 1:02d}.xml").write_text(
            '<?xml version="1.0" encoding="UTF-8" ?>\n<deIdi2b2>\n'
            "<TEXT><![CDATA[Seen by Dr. Smith.]]></TEXT>\n<TAGS>\n"
            '<NAME id="P0" start="12" end="17" text="Smith" TYPE="DOCTOR" comment="" />\n'
            "</TAGS>\n</deIdi2b2>\n"
        )
    return f"i2b2-2014:{path}"


def _jsonl(path: Path) -> str:
    lines = [
        json.dumps({"id": f"{p}-{n}", "group": f"p{p}", "text": "Seen by Dr. Smith."})
        for p, n in _NOTES
    ]
    (path / "c.jsonl").write_text("\n".join(lines) + "\n")
    return f"jsonl:{path / 'c.jsonl'}"


@pytest.mark.parametrize("write", [_physionet, _i2b2_2014, _jsonl])
@pytest.mark.parametrize("group_by", ["patient", "auto"])
def test_reader_groups_never_straddle_a_fold(write, group_by, tmp_path: Path) -> None:
    corpus, _ = load_corpus(write(tmp_path))
    docs = list(corpus)
    assert len(docs) == len(_NOTES)
    assert resolve_group_key(docs, group_by) == "patient"
    patients = [d.metadata["patient"] for d in docs]
    assert len(set(patients)) == 6
    for seed in (0, 1):
        folds = document_kfold(docs, 3, seed, group_by=group_by)
        assert sorted(i for _, te in folds for i in te) == list(range(len(docs)))
        for tr, te in folds:
            assert not {patients[i] for i in tr} & {patients[i] for i in te}
    # without grouping, some patient does straddle a fold: the test above can fail
    ungrouped = document_kfold(docs, 3, 0, group_by="document")
    assert any({patients[i] for i in tr} & {patients[i] for i in te} for tr, te in ungrouped)


def test_i2b2_2006_has_no_patient_key_and_is_not_grouped() -> None:
    corpus, _ = load_corpus(f"i2b2-2006:{Path(__file__).parent / 'data' / 'i2b2_2006.xml'}")
    assert resolve_group_key(list(corpus), "auto") is None
