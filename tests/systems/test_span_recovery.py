"""Recovering spans from what a tool wrote, and reading its type names as our labels."""

from __future__ import annotations

import pytest

from corpora.model import Document
from systems.external import FoundSpan, NoteError, label_for, spans_to_labels
from systems.span_recovery import align_redacted, parse_spans, recover_spans, tag_type

TEXT = "Mr. Smith was seen on 5/13 at VAMC hospital.\nCall 555-1234 or his son Tom.\n"


def _found(text: str, spans: list[FoundSpan]) -> list[tuple[str, str | None]]:
    return [(text[s.start : s.end], s.kind) for s in spans]


@pytest.mark.parametrize(
    ("redacted", "expected"),
    [
        (  # same-length masks, several mask characters
            "Mr. ***** was seen on XXXX at ████ hospital.\nCall ######## or his son ***.\n",
            [("Smith", None), ("5/13", None), ("VAMC", None), ("555-1234", None), ("Tom", None)],
        ),
        (  # deid.pl-style tags, other lengths; shifted dates read as dates
            "Mr. [**Known patient lastname 12**] was seen on [**02-07**] at "
            "[**Hospital 1**] hospital.\nCall [**Telephone/Fax (2) 3**] or his son "
            "[**First Name 4**].\n",
            [
                ("Smith", "Known patient lastname"),
                ("5/13", "date"),
                ("VAMC", "Hospital"),
                ("555-1234", "Telephone/Fax (2)"),
                ("Tom", "First Name"),
            ],
        ),
        (  # placeholders and a surrogate, lines joined
            "Mr. <PERSON> was seen on [DATE] at Grace hospital. Call <PHONE_NUMBER> or his "
            "son {NAME}.",
            [
                ("Smith", "PERSON"),
                ("5/13", "DATE"),
                ("VAMC", None),
                ("555-1234", "PHONE_NUMBER"),
                ("Tom", "NAME"),
            ],
        ),
    ],
)
def test_redacted_text_is_aligned_with_the_note(redacted: str, expected) -> None:
    assert _found(TEXT, align_redacted(TEXT, redacted)) == expected
    assert _found(TEXT, recover_spans(TEXT, redacted)) == expected  # auto: redacted text


def test_deleted_text_is_phi_and_unchanged_text_is_not() -> None:
    assert _found(TEXT, align_redacted(TEXT, TEXT)) == []
    gone = TEXT.replace(" Smith", "").replace(" Tom", "")
    assert [w for w, _ in _found(TEXT, align_redacted(TEXT, gone))] == ["Smith", "Tom"]


def test_output_that_is_not_the_note_is_an_error() -> None:
    note = "the patient was seen today and is stable. " * 5
    with pytest.raises(NoteError, match="not the note redacted"):
        align_redacted(note, "completely different words " * 10)
    assert align_redacted("Smith", "*****") == [FoundSpan(0, 5, None)]  # short notes: no check


def test_span_lists_in_every_accepted_shape() -> None:
    note = "pt Lee, 5/13, seen."
    lines = "3 6 NAME\n\n# comment\n8\t12\n"
    assert _found(note, parse_spans(lines, note)) == [("Lee", "NAME"), ("5/13", None)]
    jsonl = '{"start": 3, "end": 6, "entity_type": "PERSON"}\n{"begin": 8, "end": 12}\n'
    assert _found(note, recover_spans(note, jsonl)) == [("Lee", "PERSON"), ("5/13", None)]
    array = '[{"start": 3, "end": 6, "label": "PATIENT"}]'
    assert _found(note, recover_spans(note, array)) == [("Lee", "PATIENT")]
    assert recover_spans(note, "") == []  # empty output: no PHI found
    with pytest.raises(NoteError, match="outside the note"):
        parse_spans("3 99\n", note)
    with pytest.raises(NoteError, match="line 2 is neither"):
        parse_spans("3 6\nLee was here\n", note, offsets="chars")
    with pytest.raises(NoteError, match="no integer 'start'"):
        parse_spans('{"start": "3", "end": 6}\n', note)
    multibyte = "é Lee"
    assert _found(multibyte, parse_spans("3 6", multibyte, offsets="bytes")) == [("Lee", None)]


def test_tag_types() -> None:
    assert tag_type("[**Hospital 1**]") == "Hospital"
    assert tag_type("[**2012-03-04**]") == "date"
    assert tag_type("<DATE_TIME>") == "DATE_TIME"
    assert tag_type("*****") is None


@pytest.mark.parametrize(
    ("kind", "label"),
    [
        ("Doctor Last Name", "DOCTOR"),
        ("Last Name (ambig)", "PATIENT"),
        ("Telephone/Fax (2)", "PHONE"),
        ("Pager number", "PHONE"),
        ("Month/Day (4)", "DATE"),
        ("DATE_TIME", "DATE"),
        ("Hospital1", "HOSPITAL"),
        ("Street Address", "LOCATION"),
        ("EMAIL_ADDRESS", "OTHER"),
        ("US_SSN", "ID"),
        ("Age over 90", "AGE"),
        ("widget", "PHI"),
        (None, "PHI"),
    ],
)
def test_type_names_read_as_labels(kind: str | None, label: str) -> None:
    assert label_for(kind) == label


def test_spans_label_the_tokens_they_overlap() -> None:
    doc = Document("d", "Smith's visit on 5/13 went well")
    spans = [FoundSpan(0, 5, "NAME"), FoundSpan(17, 21, "DATE")]
    labels = spans_to_labels(doc, spans, label_for)
    got = {t.text: lab for t, lab in zip(doc.tokens, labels, strict=True) if lab != "O"}
    assert got == {"Smith's": "PATIENT", "5/13": "DATE"}  # a span inside a token marks it
