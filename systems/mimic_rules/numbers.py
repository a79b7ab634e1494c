"""Identifiers and ages (Tafvizi 2011, §2.5.6-§2.5.7, Tables 2.4-2.6; deid's ``ssn``,
``mrn``, ``unit``, ``providerNumber``, ``email``, ``url`` and ``age`` filters).

Identifiers:

* social security numbers: three, two and four digits, with one separator ("-", "/" or
  a space) used twice or none (``123-45-6789``, ``123456789``).  Tafvizi's Table 2.4 also
  prints nnn-nnnnnn, nnnnn-nnnn and nnnnnnnn; the program itself matches only the form
  above, and this re-implementation follows the program;
* a number after "MRN", "medical record (number|no|num)", "unit (number|no|num)" or
  "provider number" -- the cue words are part of the span, as the program removes the
  whole field;
* e-mail addresses and URLs.

Ages over 89 (Tables 2.5-2.6): a number from 90 to 125, or "ninety"/"hundred" spelled out
with the word beside it, before "years old", "y.o.", "yo", "y", "year-old", "years of
age" ... or after "age", "he is", "she is", "patient is".
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from systems.mimic_rules.candidates import Candidates, Paragraph
from systems.mimic_rules.tags import Tag

if TYPE_CHECKING:
    from systems.mimic_rules.lexicon import MimicLexicon

_A = re.ASCII
_I = re.IGNORECASE | re.ASCII

SSN = Tag("id.ssn", "ID")
RECORD = Tag("id.record", "ID")
ADDRESS = Tag("id.address", "OTHER")  # e-mail addresses and URLs
AGE = Tag("age.over_89", "AGE")

_SSN = re.compile(r"\b\d\d\d([- /]?)\d\d\1\d\d\d\d\b", _A)
_NUMBER_FIELD = r"(?: *)[#:\-=\s.]?(?: *)\t*(?: *)\d+(?:[/\-:]\d+)?\b"
_RECORD = re.compile(
    r"\b(?:mrn|medical record *(?:number|no|num)?|unit ?(?:number|no|num)?"
    r"|provider(?: +number)? ?)" + _NUMBER_FIELD,
    _I,
)
_RECORD_CUES = frozenset({"mrn", "record", "unit", "provider"})
_EMAIL = re.compile(r"\b[\w.]+\w ?@ ?\w+[.\w+]\.\w{2,3}\b", _A)
_URL = re.compile(
    r"\b(?:(?:https?|ftp)://[\w.]+\w{2,4}(?:/\S+)?|(?:www|web)\.[\w.]+\w{2,4}(?:/\S+)?)\b", _I
)


def identifiers(para: Paragraph, cands: Candidates, lex: MimicLexicon) -> None:
    """Table 2.4 (as the program applies it), e-mail addresses and URLs."""
    p = para.text
    add = cands.add
    if para.has_digit:
        for m in _SSN.finditer(p):
            add(m.start(), m.end(), SSN)
    if "@" in p:
        for m in _EMAIL.finditer(p):
            add(m.start(), m.end(), ADDRESS)
    if "ww" in p or "://" in p or "web." in p:
        for m in _URL.finditer(p):
            add(m.start(), m.end(), ADDRESS)


def record_numbers(para: Paragraph, cands: Candidates, lex: MimicLexicon) -> None:
    """Numbers after "MRN", "medical record", "unit" or "provider number", with the cue
    words (the program runs this after its name rules)."""
    p = para.text
    if para.has_digit and para.mentions(_RECORD_CUES):
        for m in _RECORD.finditer(p):
            cands.add(m.start(), m.end(), RECORD)


# --------------------------------------------------------------------------- ages

#: Table 2.6: phrases after an age ("y" alone covers "92y", "95 yrs").
_AGE_AFTER = (
    r"(?:year old|y\. o\.|y\.o\.|yo|y|years old|year-old|-year-old|years-old|-years-old"
    r"|years of age|yrs of age)"
)
#: Table 2.5: phrases before an age.
_AGE_BEFORE = r"(?:age|he is|she is|patient is)"
_SPELLED = frozenset({"ninety", "hundred"})
_NUMBER_AFTER = re.compile(r"\b(\d+) *(?:y|-year)", _I)
_NUMBER_BEFORE = re.compile(r"\b" + _AGE_BEFORE + r" +(\d+)\b", _I)
_WORDS_AFTER = re.compile(r"\b([A-Za-z]+)[\s\-]([A-Za-z]+) ? *" + _AGE_AFTER + r"\b", _I)
_WORD_AFTER = re.compile(r"\b(ninety|hundred)[\s\-]+ *" + _AGE_AFTER + r"\b", _I)
_WORDS_BEFORE = re.compile(r"\b" + _AGE_BEFORE + r" +([A-Za-z]+)[\s\-]([A-Za-z]+)\b", _I)
_PERSON_WORDS = frozenset({"he", "she", "patient"})
_AGE_NUMBER = re.compile(r"\d *-?y", _I)


def _old(number: str) -> bool:
    return 90 <= int(number) <= 125


def ages(para: Paragraph, cands: Candidates, lex: MimicLexicon) -> None:
    """Ages of 90 to 125 next to a Table 2.5 or 2.6 phrase (spelled-out "ninety" and
    "hundred" included)."""
    p = para.text
    words = para.words
    add = cands.add
    if para.has_digit:
        if _AGE_NUMBER.search(p) is not None:
            for m in _NUMBER_AFTER.finditer(p):
                if _old(m.group(1)):
                    add(m.start(1), m.end(1), AGE)
        if "age" in words or ("is" in words and not words.isdisjoint(_PERSON_WORDS)):
            for m in _NUMBER_BEFORE.finditer(p):
                if _old(m.group(1)):
                    add(m.start(1), m.end(1), AGE)
    if words.isdisjoint(_SPELLED):
        return
    for m in _WORD_AFTER.finditer(p):
        add(m.start(1), m.end(1), AGE)
    for regex in (_WORDS_AFTER, _WORDS_BEFORE):
        for m in regex.finditer(p):
            first, second = m.group(1).lower(), m.group(2).lower()
            if first in _SPELLED:
                add(m.start(1), m.end(2), AGE)
            elif second in _SPELLED:
                add(m.start(2), m.end(2), AGE)
