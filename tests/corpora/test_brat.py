"""brat stand-off (``brat:DIR``): offsets, type mapping, fragments, and located errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from corpora.folds import document_kfold
from corpora.load import get_reader, load_corpus
from corpora.model import CorpusError, Document, Span
from corpora.readers import brat

#: Two patients' notes; the first has a CRLF line end before its second line, so offsets
#: after it count the carriage return as brat does.
NOTES = {
    "110-01": (
        "Seen by Dr. Smith on June\r\n1999 at Lakeside.\nPlan: home.\n",
        "T1\tDOCTOR 12 17\tSmith\n"
        "T2\tdate 21 25;27 31\tJune 1999\n"
        "#1\tAnnotatorNotes T1\tchecked\n"
        "A1\tCertain T1\n"
        "T3\tCITY 35 43\tLakeside\n"
        "R1\tSame Arg1:T1 Arg2:T3\n",
    ),
    "110-02": ("Called Mr Kane.\n", "T1\tPTName 10 14\tKane\n"),
    "ward/207-01": ("Night uneventful.\n", ""),
}


def write_notes(root: Path, notes: dict[str, tuple[str, str]] = NOTES) -> Path:
    for doc_id, (text, ann) in notes.items():
        base = root / doc_id
        base.parent.mkdir(parents=True, exist_ok=True)
        base.with_suffix(".txt").write_bytes(text.encode())
        base.with_suffix(".ann").write_bytes(ann.encode())
    return root


def test_reads_notes_with_fragments_types_and_patients(tmp_path: Path) -> None:
    docs = {d.id: d for d in brat.read(str(write_notes(tmp_path))).documents}
    assert sorted(docs) == ["110-01", "110-02", "ward/207-01"]
    first = docs["110-01"]
    got = [(first.text[s.start : s.end], s.category) for s in first.spans]
    # a discontinuous date is two spans; an i2b2 2014 type and lower case map too
    assert got == [
        ("Smith", "DOCTOR"),
        ("June", "DATE"),
        ("1999", "DATE"),
        ("Lakeside", "LOCATION"),
    ]
    assert docs["110-02"].spans[0].category == "PATIENT"  # PhysioNet's PTName
    assert docs["ward/207-01"].spans == ()
    assert first.metadata == {"patient": "110", "directory": "."}
    assert docs["ward/207-01"].metadata == {"patient": "207", "directory": "ward"}


def test_one_text_file_is_a_corpus_of_one(tmp_path: Path) -> None:
    write_notes(tmp_path)
    docs = brat.read(str(tmp_path / "110-02.txt")).documents
    assert [d.id for d in docs] == ["110-02"]
    with pytest.raises(CorpusError, match=r"expected a note's \.txt file"):
        brat.read(str(tmp_path / "110-02.ann"))


def test_load_corpus_and_patient_folds(tmp_path: Path) -> None:
    notes = {
        f"{p}-0{n}": (f"Seen by Dr. Ames, note {n}.\n", "T1\tDOCTOR 12 16\tAmes\n")
        for p in (1, 2, 3, 4)
        for n in (1, 2)
    }
    corpus, skipped = load_corpus(f"brat:{write_notes(tmp_path, notes)}")
    assert not skipped and len(corpus.documents) == 8
    for train, test in document_kfold(list(corpus.documents), 4, 0, "patient"):
        patients = [
            {corpus.documents[i].metadata["patient"] for i in part} for part in (train, test)
        ]
        assert not patients[0] & patients[1]


def test_one_folder_per_patient_groups_folds_by_directory(tmp_path: Path) -> None:
    """Notes with arbitrary names in per-patient folders: ``--group-by directory``."""
    notes = {
        f"{p}/note{n}": ("Seen by Dr. Ames.\n", "T1\tDOCTOR 12 16\tAmes\n")
        for p in ("anna", "ben", "carl")
        for n in (1, 2, 3)
    }
    docs = brat.read(str(write_notes(tmp_path, notes))).documents
    assert all("patient" not in d.metadata for d in docs)
    for train, test in document_kfold(docs, 3, 0, "directory"):
        assert {docs[i].metadata["directory"] for i in test} & {
            docs[i].metadata["directory"] for i in train
        } == set()
        assert len(test) == 3  # one whole folder per fold


def _edit(doc_id: str, text: str | None = None, ann: str | None = None):
    def make(root: Path) -> Path:
        notes = dict(NOTES)
        old_text, old_ann = notes[doc_id]
        notes[doc_id] = (old_text if text is None else text, old_ann if ann is None else ann)
        return write_notes(root, notes)

    return make


_ANN_2 = NOTES["110-02"][1]
#: case -> (what writes the corpus, reason, record, offset)
BAD = {
    "unknown-type": (
        _edit("110-02", ann="T1\tNURSE 10 14\tKane\n"),
        "T1: unknown category in the second field",
        "110-02",
        0,
    ),
    "text-mismatch": (
        _edit("110-02", ann="T1\tPTName 9 14\tKane\n"),
        "does not match",
        "110-02",
        9,
    ),
    "outside-text": (
        _edit("110-02", ann="T1\tPTName 10 99\tKane\n"),
        "outside the text",
        "110-02",
        10,
    ),
    "bad-offsets": (
        _edit("110-02", ann="#1\tnote\n" + "T1\tPTName 10-14\tKane\n"),
        "not 'start end' pairs",
        "110-02",
        len("#1\tnote\n"),
    ),
    "two-fields": (
        _edit("110-02", ann="T1\tPTName 10 14\n"),
        "three tab-separated fields",
        "110-02",
        0,
    ),
    "unknown-kind": (
        _edit("110-02", ann=_ANN_2 + "X1\tsomething\n"),
        "annotation line of unknown kind",
        "110-02",
        len(_ANN_2),
    ),
    "overlap": (
        _edit("110-02", ann=_ANN_2 + "T2\tDOCTOR 10 14\tKane\n"),
        "same offsets",
        "110-02",
        10,
    ),
    "empty-note": (_edit("110-02", text=" \n", ann=""), "empty record", "110-02", 0),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_input_raises_located_error(case: str, tmp_path: Path) -> None:
    make, reason, record, offset = BAD[case]
    with pytest.raises(CorpusError) as info:
        brat.read(str(make(tmp_path)))
    error = info.value
    assert reason.lower() in error.reason.lower()
    assert (error.record, error.offset) == (record, offset)
    assert error.file is not None and Path(error.file).is_relative_to(tmp_path)
    assert "Kane" not in str(error)  # the PHI phrase never reaches a message


@pytest.mark.parametrize("case", sorted(BAD))
def test_lenient_read_skips_only_the_bad_note(case: str, tmp_path: Path) -> None:
    make, _, record, _ = BAD[case]
    result = brat.read(str(make(tmp_path)), lenient=True)
    assert [e.record for e in result.skipped] == [record]
    assert sorted(d.id for d in result.documents) == sorted(set(NOTES) - {record})


def test_undecodable_bytes_give_the_byte_offset(tmp_path: Path) -> None:
    write_notes(tmp_path)
    (tmp_path / "110-02.txt").write_bytes(b"Called Mr K\xe9ne.\n")
    with pytest.raises(CorpusError, match="not valid utf-8") as info:
        brat.read(str(tmp_path))
    assert (info.value.record, info.value.offset) == ("110-02", 11)


def test_a_note_without_its_ann_and_an_ann_without_its_note(tmp_path: Path) -> None:
    write_notes(tmp_path)
    (tmp_path / "110-02.ann").unlink()
    (tmp_path / "999-01.ann").write_text("")
    with pytest.raises(CorpusError, match="missing annotation file") as info:
        brat.read(str(tmp_path))
    assert info.value.file == str(tmp_path / "110-02.ann")
    result = brat.read(str(tmp_path), lenient=True)
    assert sorted(e.record for e in result.skipped) == ["110-02", "999-01"]
    assert ".txt" in result.skipped[1].reason


def test_missing_path_and_empty_directory(tmp_path: Path) -> None:
    for lenient in (False, True):
        with pytest.raises(CorpusError, match="missing file"):
            brat.read(str(tmp_path / "nope"), lenient=lenient)
    with pytest.raises(CorpusError, match=r"no \.txt files"):
        brat.read(str(tmp_path))


def test_every_mapped_type_is_a_harness_label_and_the_reader_is_registered() -> None:
    from corpora.model import LABELS

    assert set(brat.CATEGORIES.values()) <= set(LABELS)
    assert brat.CATEGORIES["HCPNAME"] == "DOCTOR" and brat.CATEGORIES["ZIP"] == "LOCATION"
    assert get_reader("brat") is brat.read
    doc = (Path(__file__).parents[2] / "docs" / "formats.md").read_text()
    assert "## `brat`" in doc


# --------------------------------------------------------------------------- writing


def test_write_brat_round_trips_text_spans_and_patients(tmp_path: Path) -> None:
    docs = brat.read(str(write_notes(tmp_path / "in"))).documents
    # a span across a line break: brat's text field holds it on one line
    text = "Seen at Mercy\nGeneral today.\n"
    docs.append(Document("300-01", text, (Span(8, 21, "HOSPITAL"),), metadata={"patient": "300"}))
    assert brat.write_brat(docs, tmp_path / "out") == 4
    back = {d.id: d for d in brat.read(str(tmp_path / "out")).documents}
    for doc in docs:
        assert (back[doc.id].text, back[doc.id].spans) == (doc.text, doc.spans)
        assert back[doc.id].metadata.get("patient") == doc.metadata.get("patient")
    assert "\tHOSPITAL 8 21\tMercy General\n" in (tmp_path / "out" / "300-01.ann").read_text()
    assert (tmp_path / "out").stat().st_mode & 0o077 == 0  # notes with PHI: owner-only


def test_write_brat_never_overwrites_and_leaves_nothing_half_written(tmp_path: Path) -> None:
    good = Document("1-1", "Dr. Ames.\n", (Span(4, 8, "DOCTOR"),))
    (tmp_path / "taken").mkdir()
    with pytest.raises(CorpusError, match="already exists"):
        brat.write_brat([good], tmp_path / "taken")
    for bad_id in ("../escape", "/abs", "a//b"):
        with pytest.raises(CorpusError, match="relative path"):
            brat.write_brat([good, Document(bad_id, "x\n")], tmp_path / "out")
    bad = Document("1-2", "Dr. Ames.\n", (Span(4, 99, "DOCTOR"),))
    with pytest.raises(CorpusError, match="outside the text"):
        brat.write_brat([good, bad], tmp_path / "out")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["taken"]


def test_corpus_convert_command_writes_jsonl_and_brat(tmp_path: Path, capsys) -> None:
    from bench.cli import main

    source = f"brat:{write_notes(tmp_path / 'in')}"
    assert main(["corpus", "convert", source, str(tmp_path / "c.jsonl"), "--to", "jsonl"]) == 0
    assert main(["corpus", "convert", source, str(tmp_path / "b"), "--to", "brat"]) == 0
    assert "wrote 3 documents" in capsys.readouterr().out
    assert (tmp_path / "c.jsonl").stat().st_mode & 0o077 == 0
    original = {d.id: d for d in brat.read(str(tmp_path / "in")).documents}
    for spec in (f"jsonl:{tmp_path / 'c.jsonl'}", f"brat:{tmp_path / 'b'}"):
        corpus, _ = load_corpus(spec)
        for d in corpus.documents:
            assert (d.text, d.spans) == (original[d.id].text, original[d.id].spans)
            assert d.metadata["patient"] == original[d.id].metadata["patient"]
    # never over an existing output
    assert main(["corpus", "convert", source, str(tmp_path / "b"), "--to", "brat"]) == 2
    assert "already exists" in capsys.readouterr().err
