"""Locations and hospitals (Tafvizi 2011, §2.5.3-§2.5.4; deid's ``location1``,
``location2`` and ``wardname`` filters).

§2.5.3: unambiguous places are PHI anywhere (the list look-up does that); an ambiguous or
unlisted word is a place in context.  The program's contexts:

* **words around a place** -- a word before "street", "parkway", "town", "ville",
  "harbor", "county", "lake", "university" ... ("Comfort Street", "Smith County"), the
  word before that too; a word after "cape", "fort", "lake", "mount", "santa", "los",
  "east", "west", "north", "south" ("Lake Geneva", "north Glenwood"), the next one too;
  one word ending in "town", "ville", "harbor" or "tower" ("Georgetown") -- each time only
  words that are not common English words;
* **phrases before a place**: "lives in", "lives at", "resident of", "comes from",
  "called from", "arrived from", "returned to" ... -- the next word if it is a listed
  place or not a common word; and likewise a company after "works at", "employed by" ...;
* **street addresses**: one or two words before a street type ("Park", "Road", "Ave" ...,
  capitalized), with a house number before and an apartment or suite after;
* "University of X", P.O. boxes, and a US state (name or abbreviation) followed by a
  zip code.

§2.5.4: "a list of local hospitals and all the wards in the hospital" (the list look-up),
a ward name followed by a ward number ("<ward> 2"), and "if a word is followed by words
such as 'hospital', 'rehab center' ... it will be marked as a hospital name": one or two
words before a hospital word, when they are not common words (a US state may be).
"""

from __future__ import annotations

import re

from systems.mimic_rules.candidates import Candidates, Paragraph, matches_near
from systems.mimic_rules.lexicon import MimicLexicon
from systems.mimic_rules.tags import Tag
from systems.patterns import EMPLOYMENT_INDICATORS, LOCATION_INDICATORS

_A = re.ASCII
_I = re.IGNORECASE | re.ASCII

IN_CONTEXT = Tag("location.context", "LOCATION")
INDICATED = Tag("location.indicator", "LOCATION")
COMPANY = Tag("location.company", "LOCATION")
STREET = Tag("location.street", "LOCATION")
UNIVERSITY = Tag("location.university", "LOCATION")
ZIP = Tag("location.zip", "LOCATION")
PO_BOX = Tag("location.po_box", "LOCATION")
WARD = Tag("hospital.ward", "HOSPITAL")
HOSPITAL_CUE = Tag("hospital.cue", "HOSPITAL")


def _cue(words: str) -> str:
    return r"(?:" + "|".join(w.replace(" ", r"\s+") for w in words.split(",")) + r")"


# --------------------------------------------------------------------------- wards

_WARD = re.compile(r"\b([A-Za-z]+) ?\d\b", _A)


def wards(para: Paragraph, cands: Candidates, lex: MimicLexicon) -> None:
    """A ward from the hospital list followed by its number ("<ward> 2"): the program's
    rule for its own wards, applied to every one-word entry of the hospital list."""
    p = para.text
    names = lex.hospital_words
    if not para.has_digit or not para.mentions(names):
        return
    for m in _WARD.finditer(p):
        if m.group(1).lower() in names:
            cands.add(m.start(), m.end(), WARD)


# --------------------------------------------------------------------------- indicators

_LIVES = re.compile(r"\b" + _cue(",".join(LOCATION_INDICATORS)) + r"\s+([A-Za-z]+)\b", _I)
_WORKS = re.compile(r"\b" + _cue(",".join(EMPLOYMENT_INDICATORS)) + r"\s+([A-Za-z]+)\b", _I)
_LIVES_CUES = tuple(frozenset(phrase.split()) for phrase in LOCATION_INDICATORS)
_WORKS_CUES = tuple(frozenset(phrase.split()) for phrase in EMPLOYMENT_INDICATORS)


def indicated_places(para: Paragraph, cands: Candidates, lex: MimicLexicon) -> None:
    """A place after "lives in", "comes from" ...; a company after "works at" ...: listed
    entries and words that are not common."""
    p = para.text
    for regex, cues, tag, rule in (
        (_LIVES, _LIVES_CUES, INDICATED, None),
        (_WORKS, _WORKS_CUES, COMPANY, "location.company"),
    ):
        if not any(words <= para.words for words in cues):
            continue  # no indicator phrase has all its words here
        for m in regex.finditer(p):
            s, e = m.span(1)
            word = m.group(1)
            listed = cands.has_rule(s, e, rule) if rule else cands.has_label(s, e, "LOCATION")
            if listed or (len(word) > 1 and not lex.is_common(word)):
                cands.add(s, e, tag)


# --------------------------------------------------------------------------- streets

_STREET_TYPES = "Park Drive Street Road Lane Boulevard Blvd Avenue Highway Ave Rd".split()
_STRICT_STREET = re.compile(
    r"\b((?:[0-9]+ +)?(?:([A-Za-z.']+) +)?([A-Za-z.']+) +\b(?:"
    + "|".join(_STREET_TYPES + [s.upper() for s in _STREET_TYPES])
    + r")\.?\b)\b",
    _A,
)
_NUMBERED_STREET = re.compile(
    r"\b([0-9]+ +(?:([A-Za-z]+) +)?([A-Za-z]+) +"
    r"(?:park|drive|street|road|lane|boulevard|blvd|avenue|highway|circle|ave|place|rd|st))\b",
    _I,
)
_APARTMENT = re.compile(r"\b(?:apt|suite)\.?#? +\w+\b", _I)
_STREET_CUES = frozenset(
    "park drive street road lane boulevard blvd avenue highway circle ave place rd st".split()
)


def streets(para: Paragraph, cands: Candidates, lex: MimicLexicon) -> None:
    """Street addresses: capitalized street types after one or two words, or any street
    type after a house number and one or two words; the words must not be among the
    commonest note words ("the", "pt", "and")."""
    p = para.text
    if not para.mentions(_STREET_CUES):
        return
    note = lex.is_note_word
    for m in _STRICT_STREET.finditer(p):
        end = m.end(1)
        apt = _APARTMENT.search(p, end, min(len(p), end + 30))
        if apt is not None:
            end = apt.end()
        far, near = m.group(2), m.group(3)
        if (far is None and not note(near)) or (far is not None and not (note(far) and note(near))):
            cands.add(m.start(1), end, STREET)
    for m in _NUMBERED_STREET.finditer(p):
        far, near = m.group(2), m.group(3)
        if far is None or not (note(far) or note(near)):
            cands.add(m.start(1), m.end(1), STREET)


# --------------------------------------------------------------------------- words around

_SUFFIXES = (
    "city,town,beach,valley,county,harbor,ville,creek,springs,mountain,island,lake,lakes,"
    "shore,garden,haven,village,grove,hills,hill,shire,cove,coast,alley,street,terrace,"
    "boulevard,parkway,highway,university,college,tower"
)
_BEFORE_SUFFIX = re.compile(
    r"\b(?:([A-Za-z\-]+)? +)?(([A-Za-z\-]+) + *" + _cue(_SUFFIXES) + r" +)\b", _I
)
_SUFFIX_CUES = frozenset(_SUFFIXES.split(","))
_GLUED_ENDING = re.compile(r"[A-Za-z](?:town|ville|harbor|tower)\b", _I)
_GLUED_SUFFIX = re.compile(r"\b(?:[A-Za-z]+ +)?([A-Za-z]+(?:town|ville|harbor|tower)+)\b", _I)
_PREFIXES = "cape,fort,lake,mount,santa,los,east,west,north,south"
_AFTER_PREFIX = re.compile(r"\b((" + _cue(_PREFIXES) + r" + *([A-Za-z\-]+)) *)([A-Za-z\-]+)?\b", _I)
_PREFIX_CUES = frozenset(_PREFIXES.split(","))
_UNIVERSITY_CUES = frozenset({"university", "univ", "u"})
_UNIVERSITY = re.compile(r"\b((?:university|univ\.?|u) +of *([A-Za-z\-]+)) *([A-Za-z\-]+)?\b", _I)


def words_around_places(para: Paragraph, cands: Candidates, lex: MimicLexicon) -> None:
    """§2.5.3's context words (see the module docstring), and "University of X"."""
    p = para.text
    common = lex.is_common
    add = cands.add
    if para.mentions(_SUFFIX_CUES):
        for m in _BEFORE_SUFFIX.finditer(p):
            if not common(m.group(3)):
                add(m.start(2), m.end(2), IN_CONTEXT)
                if m.group(1) and not common(m.group(1)):
                    add(m.start(1), m.end(1), IN_CONTEXT)
    if _GLUED_ENDING.search(p) is not None:
        for m in _GLUED_SUFFIX.finditer(p):
            if not common(m.group(1)):
                add(m.start(1), m.end(1), IN_CONTEXT)
    if para.mentions(_PREFIX_CUES):
        for m in _AFTER_PREFIX.finditer(p):
            if not common(m.group(3)):
                add(m.start(2), m.end(2), IN_CONTEXT)
                if m.group(4) and not common(m.group(4)):
                    add(m.start(4), m.end(4), IN_CONTEXT)
    if not para.mentions(_UNIVERSITY_CUES):
        return
    for m in _UNIVERSITY.finditer(p):
        w = m.group(2)
        if lex.is_state_abbreviation(w) or lex.is_state(w) or not common(w):
            add(m.start(1), m.end(1), IN_CONTEXT)
            if m.group(3) and not common(m.group(3)):
                add(m.start(3), m.end(3), UNIVERSITY)


# --------------------------------------------------------------------------- boxes, zips

_PO_BOX = re.compile(r"\bP\.?O\.? *Box *#? *[0-9]+\b", _I)
_FIVE_DIGITS = re.compile(r"\d{5}", _A)


def postal(para: Paragraph, cands: Candidates, lex: MimicLexicon) -> None:
    """P.O. boxes, and zip codes after a US state name or abbreviation."""
    p = para.text
    if not para.has_digit:
        return
    if "box" in para.words:
        for m in _PO_BOX.finditer(p):
            cands.add(m.start(), m.end(), PO_BOX)
    zips = lex.zip_pattern()
    if zips is not None and _FIVE_DIGITS.search(p) is not None:
        for m in zips.finditer(p):
            cands.add(m.start(), m.end(), ZIP)


# --------------------------------------------------------------------------- hospitals

_HOSPITAL_CUES = (
    "hospital,general hospital,gen hospital,gen hosp,hosp,medical center,med center,med ctr,"
    "rehab,clinic,rehabilitation,campus,health center,cancer center,development center,"
    "community health center,health and rehabilitation,medical,transferred to,"
    "transferred from,transfered to,transfered from"
)
_HOSPITAL_CUE_WORDS = frozenset(
    "hospital hosp medical med rehab clinic rehabilitation campus center transferred "
    "transfered".split()
)
_W = r"([A-Za-z\-']+)"
#: Per hospital word: a quick test that it occurs, and the pattern with the words around.
_HOSPITAL_PATTERNS = tuple(
    (
        re.compile(cue.replace(" ", r"\s+") + r"\b", _I),
        re.compile(
            r"(?:"
            + _W
            + r"( + *))?(?:"
            + _W
            + r"( + *))?"
            + cue.replace(" ", r"\s+")
            + r"\b(?: + *[A-Za-z\-']+)?(?: + *[A-Za-z\-']+)?\b",
            _I,
        ),
    )
    for cue in _HOSPITAL_CUES.split(",")
)


_NAME_CHAR = re.compile(r"[A-Za-z\-']")


def hospital_cues(para: Paragraph, cands: Candidates, lex: MimicLexicon) -> None:
    """One or two words before a hospital word ("Thornbury Hospital", "Corvale Medical
    Center"): not common words (a state may be), or already listed hospitals."""
    p = para.text
    if not para.mentions(_HOSPITAL_CUE_WORDS):
        return
    common = lex.is_common
    note = lex.is_note_word

    def hospital_name(word: str, s: int, e: int, states: bool) -> bool:
        if len(word) <= 1 or note(word):
            return False
        if not common(word) or cands.has_label(s, e, "HOSPITAL"):
            return True
        return states and (lex.is_state(word) or lex.is_state_abbreviation(word))

    for quick, regex in _HOSPITAL_PATTERNS:
        for m in matches_near(quick, regex, p, _NAME_CHAR):
            far, near = m.group(1), m.group(3)
            if far is None:
                continue
            if near is None:
                if hospital_name(far, m.start(1), m.end(1), False):
                    cands.add(m.start(1), m.end(1), HOSPITAL_CUE)
            elif hospital_name(near, m.start(3), m.end(3), True):
                cands.add(m.start(3), m.end(3), HOSPITAL_CUE)
                if hospital_name(far, m.start(1), m.end(1), True):
                    cands.add(m.start(1), m.end(1), HOSPITAL_CUE)
