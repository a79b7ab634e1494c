"""The heuristic's surface patterns (Tafvizi 2011 Tables 2.2-2.4) and the anchored fast path."""

from __future__ import annotations

import pytest

from corpora.model import OUTSIDE, Document
from systems.patterns import (
    DATE_EXTRA,
    DATE_TABLE,
    PHONE_TABLE,
    RECORD_IDS,
    SSN_TABLE,
    PatternSet,
    PhraseIndex,
    find_all,
    label_tokens,
    lookup_form,
    token_forms,
    year_tokens,
)

ALL = (*PHONE_TABLE, *SSN_TABLE, *RECORD_IDS, *DATE_TABLE, *DATE_EXTRA)


def texts(text: str, patterns) -> list[str]:
    return [text[m.start : m.end] for m in find_all(text, patterns)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("admitted 10/14/2003 for cath", "10/14/2003"),  # mm/dd/yyyy
        ("seen 14/10/03 in clinic", "14/10/03"),  # dd/mm/yy
        ("echo 2003/10/14 showed", "2003/10/14"),  # yyyy/mm/dd
        ("note of 3-25-17 reviewed", "3-25-17"),
        ("born 28 Oct, 1931 in", "28 Oct, 1931"),  # dd month yy(yy)
        ("since March 21, 1999 at", "March 21, 1999"),  # month dd yyyy
        ("in march of 2022 pt", "march of 2022"),
    ],
)
def test_table_2_2_dates(text: str, expected: str) -> None:
    assert expected in texts(text, DATE_TABLE)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("admitted 8/23 with cp", "8/23"),
        ("s/p avr 8/88 with", "8/88"),  # mm/yy
        ("cabg '84 and redo", "84"),
        ("stopped smoking 62' per wife", "62"),
        ("pt oriented, says it is the 11th today", "11th"),
        ("admitted in sept. to rehab", "sept."),
        ("dtr visits in the 1980s", "1980s"),
    ],
)
def test_extra_dates(text: str, expected: str) -> None:
    assert expected in texts(text, DATE_EXTRA)


@pytest.mark.parametrize(
    "text",
    [
        "bp 120/80 hr 88",  # blood pressure, month 120
        "remains on psv 10/5 with rr 18",  # ventilator setting
        "trialed on 5/5 cpap this am",  # PS/PEEP with a respiratory word nearby
        "give 1/2 tab of lopressor",  # a fraction
        "c/o 8/10 pain in chest",  # a pain score
        "abg 7.35/45/80 on 40%",
    ],
)
def test_slashes_that_are_not_dates(text: str) -> None:
    assert texts(text, DATE_EXTRA) == []
    assert texts(text, DATE_TABLE) == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("call (617) 555-1234 today", "(617) 555-1234"),
        ("cell 617-555-1234 or", "617-555-1234"),
        ("home 617 555 1234 or", "617 555 1234"),
        ("ext 555-1234 on unit", "555-1234"),
        ("ext 555 1234 on unit", "555 1234"),
    ],
)
def test_table_2_3_phones(text: str, expected: str) -> None:
    found = texts(text, PHONE_TABLE)
    assert expected in found
    assert all(f in expected for f in found)  # shorter rows may match inside a longer one


@pytest.mark.parametrize("ssn", ["123-45-6789", "123-456789", "12345-6789", "123456789"])
def test_table_2_4_ssn(ssn: str) -> None:
    assert texts(f"ssn {ssn} on file", SSN_TABLE) == [ssn]


def test_record_number_needs_a_cue() -> None:
    assert texts("MRN: 4431872 noted", RECORD_IDS) == ["4431872"]


def test_pattern_set_agrees_with_a_full_scan() -> None:
    text = (
        "Pt is a 92 yo seen 8/23 and 10/14/2003; call (617) 555-1234 or pager #54321.\n"
        "cabg '84, march 21, 1999, she is 95. ssn 123-45-6789. psv 10/5, bp 120/80.\n"
        "In sept. the 11th MRN 4431872 then 617-555-1234."
    )
    doc = Document("d", text)
    forms = token_forms(doc.tokens)
    starts = [t.start for t in doc.tokens]
    fast = PatternSet(ALL).find(text, forms, starts)
    slow = find_all(text, ALL)
    assert {(m.start, m.end, m.rule) for m in fast} == {(m.start, m.end, m.rule) for m in slow}
    assert len(slow) > 10


def test_label_tokens_marks_every_overlapping_token_and_keeps_first_label() -> None:
    doc = Document("d", "call 617 555 1234 on 8/23 ok")
    labels = [OUTSIDE] * len(doc.tokens)
    rules = [""] * len(doc.tokens)
    matches = find_all(doc.text, (*PHONE_TABLE, *DATE_EXTRA))
    label_tokens(doc.tokens, matches, labels, rules)
    got = {t.text: (lab, r) for t, lab, r in zip(doc.tokens, labels, rules, strict=True)}
    assert got["617"] == got["555"] == got["1234"] == ("PHONE", "phone.10")
    assert got["8/23"] == ("DATE", "date.md")
    assert got["call"] == got["ok"] == (OUTSIDE, "")


def test_years_need_a_medical_event_or_cue() -> None:
    forms = "pmh : cabg 84 , mi in 1992 , hr 80 at 1900".split()
    hits = {forms[i] for i in year_tokens(forms)}
    assert hits == {"84", "1992"}


def test_phrase_index_matches_token_sequences() -> None:
    index = PhraseIndex(["St. Mary's Hospital", "Sacred Heart", "Mercy"])
    doc = Document("d", "sent to st. mary's hospital, then Sacred Heart.")
    forms = token_forms(doc.tokens)
    got = [" ".join(forms[a:b]) for a, b in index.matches(forms)]
    assert got == ["st mary hospital", "sacred heart"]
    assert len(index) == 2  # single words are plain set look-ups


def test_lookup_form() -> None:
    assert lookup_form("Mary's") == "mary"
    assert lookup_form("Dr.") == "dr"
    assert lookup_form("GH") == "gh"
    assert lookup_form(".") == "."
