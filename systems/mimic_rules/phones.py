"""Telephone and pager numbers (Tafvizi 2011, §2.5.5, Table 2.3; deid's ``telephone`` and
``pager`` filters).

Table 2.3's shapes -- (nnn) nnn-nnnn, nnn-nnn-nnnn, nnn nnn nnnn, nnn-nnnn, nnn nnnn --
as the program matches them:

* a seven-digit local number (three digits, optional separators, four digits), unless
  the twenty characters before it name a vital sign or a ventilator volume ("HR", "BP",
  "TV" ...): ICU notes are full of "120/1000"-like pairs;
* a ten-digit number with any of ``) . / - ,`` or spaces between the groups;
* numbers one digit short or long, or broken across a line, when their first three
  digits are a US area code (the deid-1.1 area-code list);
* nnn-nnnn-nnn, as typed by mistake;
* an extension after any of them ("x123", "ext. 45").

Pager numbers: three or more digits after "pager", "pg", "pgr", "page" or "beeper" (with
at most a few letters between), and five-digit numbers within thirty characters after
such a word.
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

PHONE = Tag("phone.number", "PHONE")
PAGER = Tag("phone.pager", "PHONE")

_LOCAL = re.compile(r"\b\(?\d{3}\s*[ \-./=,]*\s*\d{4}\)?\b", _A)
_TEN = re.compile(r"\d{3}\s*[).\/\-, ]*\s*\d{3}\s*[ \-./]*\s*\d{4}", _A)
_TEN_BROKEN = re.compile(
    r"(\d\d\d)\s*[).\/\-, ]*\s*\d\s*\d\s*\d\s*[ \-./]*\s*\d\s*\d\s*\d\s*\d", _A
)
_NINE = re.compile(r"\(?(\d{3})\s*[).\/\-=, ]*\s*\d{3}\s*[ \-./=]*\s*\d{3}\b", _A)
_ELEVEN = re.compile(r"\(?(\d{3})\s*[).\/\-=, ]*\s*\d{3}\s*[ \-./=]*\s*\d{5}\b", _A)
_TYPO = re.compile(r"\(?\d{3}\s?[).\/\-=, ]*\s?\d{4}\s?[ \-./=]*\s?\d{3}\b", _A)
_EXTENSION = re.compile(r"\s*(?:x\.?|ex\.?|,?\s?ext\.?|\s?extension)\s*\(?\d+\)?\b", _A)
#: Vital signs and volumes before a number pair: then it is a reading, not a phone number.
_READING = re.compile(r"\b(?:hr|heart|bp|svr|stv|vt|tidal volumes?|tv|cks)\b", _I)
_THREE_DIGITS = re.compile(r"\d{3}", _A)


def _end_with_extension(p: str, end: int) -> int:
    m = _EXTENSION.match(p, end, min(len(p), end + 20))
    return m.end() if m is not None else end


_DIGIT_RUN = re.compile(r"\d{3,}", _A)


def _has_area_code(p: str, area_codes: frozenset[str]) -> bool:
    """Some three digits in a row are an area code: only then can the patterns that need
    one match."""
    for m in _DIGIT_RUN.finditer(p):
        run = m.group()
        if any(run[i : i + 3] in area_codes for i in range(len(run) - 2)):
            return True
    return False


def phone_numbers(para: Paragraph, cands: Candidates, lex: MimicLexicon) -> None:
    """Table 2.3 as the program applies it (see the module docstring)."""
    p = para.text
    area_codes = lex.area_codes
    if not para.has_digit or _THREE_DIGITS.search(p) is None:
        return
    add = cands.add
    for m in _LOCAL.finditer(p):
        if _READING.search(p, max(0, m.start() - 20), m.start()) is None:
            add(m.start(), _end_with_extension(p, m.end()), PHONE)
    for m in _TEN.finditer(p):
        add(m.start(), _end_with_extension(p, m.end()), PHONE)
    if _has_area_code(p, area_codes):
        for regex in (_TEN_BROKEN, _NINE, _ELEVEN):
            for m in regex.finditer(p):
                if m.group(1) in area_codes:
                    add(m.start(), _end_with_extension(p, m.end()), PHONE)
    for m in _TYPO.finditer(p):
        add(m.start(), _end_with_extension(p, m.end()), PHONE)


_PAGER_CUE = r"\b(?:pager number|pager|pgr|pg|page|beeper number|beeper)[\s#:\-=]*"
_PAGER = re.compile(_PAGER_CUE + r"(?:[a-zA-Z]\s+)*[a-zA-Z]*\s*(\d{3,})\b", _I)
_PAGER_NEAR = re.compile(_PAGER_CUE, _I)
_PAGER_WORD = re.compile(r"\b(?:pg|page|beeper)", _I)
_FIVE = re.compile(r"\D(\d{5})\D", _A)


def pagers(para: Paragraph, cands: Candidates, lex: MimicLexicon) -> None:
    """Pager numbers after a pager word (see the module docstring)."""
    p = para.text
    if _PAGER_WORD.search(p) is None:
        return
    for m in _PAGER.finditer(p):
        cands.add(m.start(1), m.end(1), PAGER)
    for m in _PAGER_NEAR.finditer(p):
        chunk_end = min(len(p), m.end() + 30)
        for five in _FIVE.finditer(p, m.end(), chunk_end):
            cands.add(five.start(1), five.end(1), PAGER)
