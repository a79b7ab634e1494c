"""The tokenizer keeps clinical shorthand whole and labels tokens from gold spans."""

from __future__ import annotations

from corpora.model import FLAG_AMBIGUOUS, Document, Mark, Span
from corpora.tokenize import section_starts


def _doc(text: str, *spans: tuple[str, str], marks: tuple[Mark, ...] = ()) -> Document:
    out = []
    for phrase, cat in spans:
        start = text.index(phrase)
        out.append(Span(start, start + len(phrase), cat))
    return Document("d", text, tuple(out), marks)


def texts(doc: Document) -> list[str]:
    return [t.text for t in doc.tokens]


def test_clinical_quirks_stay_single_tokens() -> None:
    doc = _doc(
        "Seen 7/22 and 07-22-2006, call 617-555-1234. a&ox3 57yo Dr. Swan-Ganz s/p CABG "
        "BP 120/80 K 3.9 q.o.d. ||||END_OF_RECORD"
    )
    toks = texts(doc)
    for whole in (
        "7/22",
        "07-22-2006",
        "617-555-1234",
        "a&ox3",
        "57yo",
        "Dr.",
        "Swan-Ganz",
        "s/p",
        "120/80",
        "3.9",
        "q.o.d.",
        "||||",
    ):
        assert whole in toks, whole
    assert toks.count(".") == 1  # only the sentence-final period after the phone number


def test_offsets_are_exact() -> None:
    text = "PT'S HUSBAND JOHN CALLED.\n\nA: stable   P: f/u w/ Dr. Lee"
    doc = _doc(text)
    for tok in doc.tokens:
        assert text[tok.start : tok.end] == tok.text
        assert tok.text.strip() == tok.text


def test_gold_labels_from_overlapping_spans() -> None:
    doc = _doc("Dr. Swan placed a Swan catheter on 7/22.", ("Swan", "DOCTOR"), ("7/22", "DATE"))
    labels = {t.text + str(t.index): t.label for t in doc.tokens}
    assert labels["Swan1"] == "DOCTOR"
    assert labels["Swan4"] == "O"  # the catheter, not the doctor
    assert labels["7/227"] == "DATE"
    assert labels["Dr.0"] == "O"


def test_partial_overlap_labels_whole_token() -> None:
    text = "Smith's note"
    doc = Document("d", text, (Span(0, 5, "PATIENT"),))
    assert doc.tokens[0].text == "Smith's"
    assert doc.tokens[0].label == "PATIENT"


def test_sections_and_sentences() -> None:
    text = (
        "HISTORY OF PRESENT ILLNESS: 74 yo man s/p fall.\n"
        "SOCIAL HISTORY: lives with wife\n"
        "A: stable\nP: d/c home"
    )
    doc = _doc(text)
    by_text = {t.text: t for t in doc.tokens}
    assert by_text["fall"].section == "HISTORY OF PRESENT ILLNESS:"
    assert by_text["wife"].section == "SOCIAL HISTORY:"
    assert by_text["stable"].section == "A:"
    assert by_text["home"].section == "P:"
    assert by_text["fall"].sentence < by_text["wife"].sentence < by_text["stable"].sentence
    assert [h for _, h in section_starts(text)] == [
        "HISTORY OF PRESENT ILLNESS:",
        "SOCIAL HISTORY:",
        "A:",
        "P:",
    ]


def test_all_caps_note_tokenizes_like_mixed_case() -> None:
    lower = _doc("pt transferred from vamc hospital on 8/23 for cath.")
    upper = _doc("PT TRANSFERRED FROM VAMC HOSPITAL ON 8/23 FOR CATH.")
    assert [t.text.lower() for t in upper.tokens] == texts(lower)


def test_marks_become_token_flags() -> None:
    text = "Dr. Swan placed a Swan catheter"
    marks = (Mark(4, 8, FLAG_AMBIGUOUS), Mark(18, 22, FLAG_AMBIGUOUS))
    doc = Document("d", text, (Span(4, 8, "DOCTOR"),), marks)
    flagged = [t.text for t in doc.tokens if FLAG_AMBIGUOUS in t.flags]
    assert flagged == ["Swan", "Swan"]
    assert not doc.tokens[2].flags


def test_initials_keep_their_period_and_the_sentence() -> None:
    doc = _doc("Seen by J. Smith today. Vitamin K.\nThen rest.")
    toks = texts(doc)
    assert "J." in toks and "K" in toks
    by_text = {t.text: t for t in doc.tokens}
    assert by_text["J."].sentence == by_text["Smith"].sentence
    assert by_text["Then"].sentence > by_text["Vitamin"].sentence
