"""The tuning subset: patients set apart for hand-tuning rules, never reported on."""

from __future__ import annotations

from pathlib import Path

import pytest

from corpora.folds import TUNING_MODULUS, is_tuning_patient, tuning_split
from corpora.load import load_corpus
from corpora.model import CorpusError, Document


def test_the_rule_depends_on_the_patient_id_alone() -> None:
    assert TUNING_MODULUS == 5
    assert [p for p in range(1, 21) if is_tuning_patient(str(p))] == [5, 10, 15, 20]
    assert is_tuning_patient(" 35 ") and not is_tuning_patient("36")
    # other ids by a stable hash: the same answer every time, about one in five
    names = [f"patient-{i}" for i in range(500)]
    chosen = [n for n in names if is_tuning_patient(n)]
    assert chosen == [n for n in names if is_tuning_patient(n)]
    assert 60 < len(chosen) < 140


def test_split_keeps_every_note_of_a_patient_on_one_side() -> None:
    docs = [
        Document(f"{p}-{n}", "note", metadata={"patient": str(p), "note": str(n)})
        for p in (3, 5, 7, 10, 10, 5, 12)
        for n in (1,)
    ]
    tuning, evaluation = tuning_split(docs)
    assert [docs[i].metadata["patient"] for i in tuning] == ["5", "10", "10", "5"]
    assert [docs[i].metadata["patient"] for i in evaluation] == ["3", "7", "12"]
    assert sorted(tuning + evaluation) == list(range(len(docs)))
    # a document without a patient is its own patient
    alone = [Document("x", "note"), Document("x", "note")]
    t, e = tuning_split(alone)
    assert (t, e) in (([0, 1], []), ([], [0, 1]))


def _physionet(root: Path, patients: list[int]) -> Path:
    records = "".join(
        f"START_OF_RECORD={p}||||1||||\nPt seen today, stable.\n||||END_OF_RECORD\n"
        for p in patients
    )
    (root / "id.text").write_text(records)
    (root / "id-phi.phrase").write_text("")
    return root


def test_corpus_specs_select_the_subsets(tmp_path: Path) -> None:
    root = _physionet(tmp_path, [4, 5, 9, 10, 11])
    tuning, _ = load_corpus(f"tuning:physionet:{root}")
    evaluation, _ = load_corpus(f"evaluation:physionet:{root}")
    assert [d.metadata["patient"] for d in tuning] == ["5", "10"]
    assert [d.metadata["patient"] for d in evaluation] == ["4", "9", "11"]
    assert tuning.name == f"tuning:physionet:{root}"
    assert evaluation.metadata["subset"] == "evaluation"


def test_an_empty_subset_is_a_clear_error(tmp_path: Path) -> None:
    root = _physionet(tmp_path, [1, 2])
    with pytest.raises(CorpusError, match="no tuning patients"):
        load_corpus(f"tuning:physionet:{root}")
