"""Names (Tafvizi 2011, §2.5.1; deid's ``name1``, ``name2``, ``name3`` and ``problem``
filters).

§2.5.1: "the de-identifier checks whether a word is in a list of names from the US Census
... If a word is in the aforementioned list and is preceded by words such as 'Mr.',
'Mrs.', 'Dr.', etc., then the word is marked as a name."  The list look-up has already
proposed every census name (unambiguous ones are PHI as they stand); the program's name
rules then add names from context, run in this order:

``indicated_names``  the word after a name indicator -- a relative ("daughter", "wife",
                     "son-in-law"), another person around the patient ("friend",
                     "neighbor", "priest") or a naming phrase ("name is", "named") -- when
                     it looks like a name, and the first word in the next twenty characters
                     when that does too ("daughter Mae and Lou");
``last_first``       "Zanetti, Mae": a word before a comma and a first name;
``plural_titles``    up to three names after "Drs", "doctors", "professors";
``credentials``      up to two names and an initial before a credential ("Maelis
                     Varnick, RN", "K. Pellham MD", "RRT", "NP", "MSW");
``provider_cues``    names after "PCP", "physician", "provider", "created by";
``name_prefixes``    a surname after a prefix ("de la", "van der", "von");
``person_titles``    the word after "Mr.", "Ms.", "Mister." (the period required);
``strict_titles``    the word after "Dr", "Drs" or "Mrs" -- always, whatever it is -- and the
                     next word too when it looks like a name ("Dr. Art White");
``titles``           after "MD", "doctor", "nurse", "prof", "rev", "miss", "mr", "ms" ...:
                     the next two words when the second is not among the commonest words
                     (taken as first and last name), else the next word when it is a listed
                     name or not a common word;
``name_patterns``    a listed first name followed by a name-like word or an initial and a
                     surname; the word before an unambiguous surname; an initial before
                     any unambiguous name;
``problem_names``    the word before "problem" when it is not a common word.

"Looks like a name" is the program's test (:func:`~.candidates.probably_name`): not a
common word, or a listed name that is unambiguous, capitalized or popular.  Names found
after titles, indicators, credentials, in "Last, First" or in name patterns are also
marked wherever they recur in the note (:func:`~.candidates.repeated_names`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from infra.memo import memoize
from systems.mimic_rules.candidates import Candidates, Paragraph, probably_name
from systems.mimic_rules.lexicon import MimicLexicon
from systems.mimic_rules.tags import (
    AMBIGUOUS,
    CENSUS_FIRST,
    LAST,
    NAME,
    POPULAR,
    UNAMBIGUOUS_ENTRY,
    Tag,
    mask_of,
)
from systems.patterns import NAME_INDICATORS, TITLES

_I = re.IGNORECASE | re.ASCII


def _tag(rule: str, label: str, part: str, strong: bool = True, **kw: bool) -> Tag:
    return Tag(rule, label, part=part, strong=strong, **kw)


INDICATED = _tag("name.indicator", "PATIENT", "name")
LAST_FIRST_LAST = _tag("name.last_first", "PATIENT", "last")
LAST_FIRST_FIRST = _tag("name.last_first", "PATIENT", "first")
PLURAL_TITLE = _tag("name.title", "DOCTOR", "name")
CREDENTIAL = _tag("name.credential", "DOCTOR", "name")
CREDENTIAL_INITIAL = _tag("name.credential", "DOCTOR", "initial")
PROVIDER = _tag("name.provider", "DOCTOR", "name", strong=False)
PROVIDER_INITIAL = _tag("name.provider", "DOCTOR", "initial", strong=False)
NAME_IS = _tag("name.provider", "DOCTOR", "name")
NAME_IS_INITIAL = _tag("name.provider", "DOCTOR", "initial")
PREFIX = _tag("name.prefix", "PATIENT", "name", strong=False)
PREFIXED_LAST = _tag("name.prefix", "PATIENT", "last", strong=False)
PERSON_TITLE = _tag("name.title", "PATIENT", "name")
PATTERN_FIRST = _tag("name.pattern", "PATIENT", "first")
PATTERN_LAST = _tag("name.pattern", "PATIENT", "last")
PATTERN_INITIAL = _tag("name.pattern", "PATIENT", "initial")
PROBLEM = _tag("name.problem", "PATIENT", "last", strong=False)


def _title_tags(label: str) -> tuple[Tag, Tag, Tag, Tag]:
    """(last, first, following name, ambiguous last) tags of a title rule."""
    return (
        _tag("name.title", label, "last"),
        _tag("name.title", label, "first"),
        _tag("name.title", label, "name"),
        _tag("name.title", label, "last", ambiguous=True),
    )


# --------------------------------------------------------------------------- indicators


def _alternation(phrases: Iterable[str]) -> str:
    """Phrases as a regex alternation, longest first (so "son-in-law" wins over "son")."""
    return "|".join(
        re.escape(w).replace(r"\ ", " ") for w in sorted(phrases, key=lambda w: (-len(w), w))
    )


_INDICATOR_WORD = re.compile(r"\b(?:" + _alternation(NAME_INDICATORS) + r")\b", _I)


#: Each name indicator's first word: a paragraph without it cannot hold the indicator.
_FIRST_WORD = {phrase: re.findall("[a-z]+", phrase)[0] for phrase in NAME_INDICATORS}
_INDICATOR_CUES = frozenset(_FIRST_WORD.values())


@memoize("mimic.name_patterns", max_entries=1024)
def _indicated(cues: frozenset[str]) -> re.Pattern[str]:
    """The name-indicator pattern for the indicators whose first word is in ``cues``
    (a paragraph holds few; a short alternation scans much faster than all of them)."""
    phrases = [phrase for phrase, first in _FIRST_WORD.items() if first in cues]
    return re.compile(
        r"\b(?:" + _alternation(phrases) + r")s?(?![A-Za-z]) *[-,.(]? *([A-Za-z]+)\b", _I
    )


_NEXT_WORD = re.compile(r"\b(and )?( *)([A-Za-z]+)\b", _I)
_CAPITALIZED = re.compile(r"[A-Z][a-z]+\Z")


def is_indicator(word: str) -> bool:
    """The word is (or contains, as a word) a name indicator ("son", "son-in-law")."""
    return _INDICATOR_WORD.search(word) is not None


def indicated_names(para: Paragraph, cands: Candidates, lex: MimicLexicon) -> None:
    """Names after a name indicator (see the module docstring)."""
    p = para.text
    present = para.words & _INDICATOR_CUES
    plurals = {w[:-1] for w in para.words if w[-1] == "s"} & _INDICATOR_CUES
    if plurals:
        present |= plurals
    if not present:
        return
    for m in _indicated(present).finditer(p):
        s, e = m.span(1)
        if probably_name(cands, lex, s, e, m.group(1)):
            cands.add(s, e, INDICATED)
        rest_start = e + 1
        nxt = _NEXT_WORD.search(p, rest_start, min(len(p), rest_start + 20))
        if nxt is None:
            continue
        word = nxt.group(3)
        ws, we = nxt.span(3)
        if is_indicator(word):
            continue
        named = cands.is_name(ws, we)
        if (
            not lex.is_common(word)
            or (named and _CAPITALIZED.match(word) is not None)
            or (named and not lex.is_commonest(word))
            or cands.is_popular_name(ws, we)
        ):
            cands.add(ws, we, INDICATED)


# --------------------------------------------------------------------------- Last, First

_LAST_FIRST = re.compile(r"\b([A-Za-z]+)( ?, ?)([A-Za-z]+)\b", _I)


def last_first(para: Paragraph, cands: Candidates, lex: MimicLexicon) -> None:
    """ "Zanetti, Mae": a first name after a comma, and before it a surname or a word that
    is neither common nor among the commonest."""
    p = para.text
    if "," not in p or not any(t.part == "first" for ts in cands.spans.values() for t in ts):
        return
    for m in _LAST_FIRST.finditer(p):
        (s1, e1), (s2, e2) = m.span(1), m.span(3)
        if not cands.has_part(s2, e2, "first"):
            continue
        w1 = m.group(1)
        if (
            cands.has_part(s1, e1, "last") and not lex.is_commonest(w1) and not is_indicator(w1)
        ) or (not lex.is_common(w1) and not lex.is_commonest(w1)):
            cands.add(s1, e1, LAST_FIRST_LAST)
            cands.add(s2, e2, LAST_FIRST_FIRST)


# --------------------------------------------------------------------------- clinicians

_PLURAL_TITLES = re.compile(
    r"\b(?:doctors|drs.|drs|professors) +([A-Za-z]+) *(?:and +)?,? *([A-Za-z]+) *(?:and +)?,? *"
    r"([A-Za-z]+)?\b",
    _I,
)
_PLURAL_CUES = frozenset({"doctors", "drs", "professors"})


def plural_titles(para: Paragraph, cands: Candidates, lex: MimicLexicon) -> None:
    """Up to three names after "Drs", "doctors" or "professors": words that are listed
    names or not among the commonest words."""
    p = para.text
    if not para.mentions(_PLURAL_CUES):
        return
    for m in _PLURAL_TITLES.finditer(p):
        for g in (1, 2, 3):
            if m.group(g):
                s, e = m.span(g)
                if not lex.is_commonest(m.group(g)) or cands.is_name(s, e):
                    cands.add(s, e, PLURAL_TITLE)


#: A credential after a comma or spaces ("Varnick, RN"); the names before it are then
#: matched backwards from there, which finds what one pattern over the whole paragraph
#: would (the same words) at a fraction of the cost.
_CREDENTIAL = re.compile(r"(?:, *|\s+)(?:rrt|md|m\.d\.|crt|np|rn|nnp|msw|r\.n\.)[.,]*\b", _I)
_BEFORE_CREDENTIAL = re.compile(r"\b(?:([A-Za-z']+) +)?([A-Za-z]\. +)?([A-Za-z\-']+)\Z", _I)
_CREDENTIAL_CUES = frozenset("rrt md crt np rn nnp msw".split())
_MD_PLURAL = re.compile(r"m\.?d\.?['s]")


def credentials(para: Paragraph, cands: Candidates, lex: MimicLexicon) -> None:
    """Names before a credential ("Ottoline Zanetti, RN", "E. Quennell MD"): the word before
    it and the one before that when they look like names, and an initial between them.
    Paragraphs that write "MDs" or "MD's" are skipped, as in the program."""
    p = para.text
    if (
        para.words.isdisjoint(_CREDENTIAL_CUES)
        and "m.d." not in p.lower()
        and ("r.n." not in p.lower())
    ):
        return
    if _MD_PLURAL.search(p) is not None:
        return
    pos = 0
    for cred in _CREDENTIAL.finditer(p):
        m = _BEFORE_CREDENTIAL.search(p, max(pos, cred.start() - 120), cred.start())
        if m is None:
            continue
        pos = cred.end()
        first, initial, last = m.group(1), m.group(2), m.group(3)
        if first:
            s, e = m.span(1)
            if len(first) == 1:
                cands.add(s, e, CREDENTIAL_INITIAL)
            elif probably_name(cands, lex, s, e, first):
                cands.add(s, e, CREDENTIAL)
        if initial and last:
            s, e = m.span(2)
            cands.add(s, e, CREDENTIAL_INITIAL)
        if len(last) > 1:
            s, e = m.span(3)
            if probably_name(cands, lex, s, e, last):
                cands.add(s, e, CREDENTIAL)


_PROVIDER_CUES = r"(?:pcp|physician|provider|created by)"
_PROVIDER_WORDS = frozenset({"pcp", "physician", "provider", "created"})
_SEP = r"(?:\s*,*\s*)? *"
_PROVIDER = re.compile(
    r"\b"
    + _PROVIDER_CUES
    + r"(?: +name)?(?: +is)?\s\s*([A-Za-z\-]+)"
    + _SEP
    + r"([A-Za-z\-]+)(?:"
    + _SEP
    + r"([A-Za-z\-]+))?\b",
    _I,
)
_PROVIDER_NAME_IS = re.compile(
    r"\b"
    + _PROVIDER_CUES
    + r"(?: +name)?(?: +is)? ?[#:\-=.,]+ *([A-Za-z\-]+)"
    + _SEP
    + r"([A-Za-z\-]+)"
    + _SEP
    + r"([A-Za-z\-]+)?\b",
    _I,
)


def provider_cues(para: Paragraph, cands: Candidates, lex: MimicLexicon) -> None:
    """Names after "PCP", "physician", "provider", "created by": the next words that look
    like names (single letters as initials); after "PCP:" the first word is taken as a
    name whatever it is, and the next ones while they look like names."""
    p = para.text
    if not para.mentions(_PROVIDER_WORDS):
        return
    for m in _PROVIDER.finditer(p):
        for g in (1, 2, 3):
            word = m.group(g)
            if word:
                s, e = m.span(g)
                if len(word) == 1:
                    cands.add(s, e, PROVIDER_INITIAL)
                elif probably_name(cands, lex, s, e, word):
                    cands.add(s, e, PROVIDER)
    for m in _PROVIDER_NAME_IS.finditer(p):
        for g in (1, 2, 3):
            word = m.group(g)
            if not word:
                break
            s, e = m.span(g)
            if len(word) == 1:
                cands.add(s, e, NAME_IS_INITIAL)
            elif g == 1 or probably_name(cands, lex, s, e, word):
                cands.add(s, e, NAME_IS)
            else:
                break


# --------------------------------------------------------------------------- titles


def name_prefixes(para: Paragraph, cands: Candidates, lex: MimicLexicon) -> None:
    """A surname after a surname prefix ("de la Cruz", "van der Berg") when it is a listed
    name or not among the commonest words; the prefix is marked with it."""
    p = para.text
    regex = lex.prefix_pattern()
    if regex is None or not para.mentions(lex.prefix_cues):
        return
    for m in regex.finditer(p):
        s, e = m.span(2)
        if not lex.is_commonest(m.group(2)) or cands.is_name(s, e):
            cands.add(m.start(1), m.end(1), PREFIX)
            cands.add(s, e, PREFIXED_LAST)


_PERSON_TITLE_CUES = frozenset({"mr", "mister", "ms"})
_PERSON_TITLE = re.compile(r"\b(?:mr|mister|ms)\. *([A-Za-z'\-]+)\b", _I)


def person_titles(para: Paragraph, cands: Candidates, lex: MimicLexicon) -> None:
    """The word after "Mr.", "Ms." or "Mister." when it is a listed name or not common."""
    p = para.text
    if not para.mentions(_PERSON_TITLE_CUES):
        return
    for m in _PERSON_TITLE.finditer(p):
        s, e = m.span(1)
        if cands.is_name(s, e) or not lex.is_common(m.group(1)):
            cands.add(s, e, PERSON_TITLE)


_STRICT_CUES = frozenset({"dr", "drs", "mrs"})
_STRICT = re.compile(r"\b(dr|drs|mrs)\b\.? *([A-Za-z'\-]+)\b", _I)
_AFTER_PREFIX = re.compile(r" ?'? ?([A-Za-z]+)\b", re.ASCII)
_FOLLOWING = re.compile(r"\s+([A-Za-z\-']{2,})\b", re.ASCII)
_STRICT_TAGS = {
    "dr": _title_tags("DOCTOR"),
    "drs": _title_tags("DOCTOR"),
    "mrs": _title_tags("PATIENT"),
}


def strict_titles(para: Paragraph, cands: Candidates, lex: MimicLexicon) -> None:
    """The word after "Dr", "Drs" or "Mrs" is a name, whatever it is (a surname prefix
    takes the word after it along); the word after it too when it looks like a name."""
    p = para.text
    if not para.mentions(_STRICT_CUES):
        return
    for m in _STRICT.finditer(p):
        last, first, following, _ = _STRICT_TAGS[m.group(1).lower()]
        s, e = m.span(2)
        word = m.group(2)
        if word.upper() in lex.last_name_prefixes:
            cands.add(s, e, last)
            nxt = _AFTER_PREFIX.match(p, e)
            if nxt is None:
                continue
            s, e = nxt.span(1)
            word = nxt.group(1)
            if word.upper() in lex.last_name_prefixes:
                cands.add(s, e, last)
                continue
        else:
            if word.startswith("'"):
                word = word[1:]
                s += 1
            if word.endswith("'"):
                word = word[:-1]
                e -= 1
        if cands.has_part(s, e, "first"):
            cands.add(s, e, first)
        cands.add(s, e, last)
        nxt = _FOLLOWING.match(p, e)
        if nxt is not None:
            fs, fe = nxt.span(1)
            if probably_name(cands, lex, fs, fe, nxt.group(1)):
                cands.add(fs, fe, following)


#: The titles of the title rule: all but the three after which any word is a name.
_LIST_TITLES = {t: c for t, c in TITLES.items() if t not in ("dr", "drs", "mrs")}
_TITLE = re.compile(
    r"\b("
    + "|".join(sorted(_LIST_TITLES, key=lambda t: (-len(t), t)))
    + r")\b\.? ?([A-Za-z]+) *([A-Za-z]+)?\b",
    _I,
)
_TITLE_CUES = frozenset(_LIST_TITLES)
_TITLE_TAGS = {label: _title_tags(label) for label in ("DOCTOR", "PATIENT")}


def titles(para: Paragraph, cands: Candidates, lex: MimicLexicon) -> None:
    """Names after a title (see the module docstring); a common word after a title is
    only proposed (an ambiguous candidate)."""
    p = para.text
    if not para.mentions(_TITLE_CUES):
        return
    for m in _TITLE.finditer(p):
        last, first, _, maybe = _TITLE_TAGS[_LIST_TITLES[m.group(1).lower()]]
        s, e = m.span(2)
        word = m.group(2)
        if word.upper() in lex.last_name_prefixes:
            cands.add(s, e, last)
            nxt = _AFTER_PREFIX.match(p, e)
            if nxt is None:
                continue
            ns, ne = nxt.span(1)
            if nxt.group(1).upper() in lex.last_name_prefixes:
                cands.add(ns, ne, last)
            elif len(nxt.group(1)) > 1 and probably_name(cands, lex, ns, ne, nxt.group(1)):
                cands.add(ns, ne, last)
            continue
        after = m.group(3)
        if after and len(after) > 1:
            a_s, a_e = m.span(3)
            if not lex.is_commonest(after) or (
                cands.is_name(a_s, a_e) and _CAPITALIZED.match(after) is not None
            ):
                cands.add(a_s, a_e, last)
                cands.add(s, e, first)
        elif cands.has(s, e):
            if cands.is_name(s, e):
                cands.add(s, e, last)
        elif len(word) > 1 and not lex.is_common(word):
            cands.add(s, e, last)
        else:
            cands.add(s, e, maybe)


# --------------------------------------------------------------------------- patterns

_NEXT_NAME = re.compile(r" +([A-Za-z']{2,})\b", re.ASCII)
_INITIAL_AND_NAME = re.compile(r" +([A-Za-z])(\.? )([A-Za-z\-][A-Za-z\-]+)\b", re.ASCII)
_END = re.compile(r"\s*\Z")
_WORD_BEFORE = re.compile(r"\b([A-Za-z]+) *\Z", re.ASCII)
_TWO_INITIALS_BEFORE = re.compile(r"\b([A-Za-z][. ] ?[A-Za-z]\.?) ?\Z", re.ASCII)
_INITIAL_BEFORE = re.compile(r"\b([A-Za-z]\.?) ?\Z", re.ASCII)


def name_patterns(para: Paragraph, cands: Candidates, lex: MimicLexicon) -> None:
    """First name + surname, first name + initial + surname, first name before an
    unambiguous surname, initials before an unambiguous name (see the module docstring)."""
    p = para.text
    if not cands.spans:
        return
    for (s, e), tags in list(cands.spans.items()):
        mask = mask_of(tags)
        if not (mask & CENSUS_FIRST and mask & (UNAMBIGUOUS_ENTRY | POPULAR)):
            continue
        nxt = _NEXT_NAME.match(p, e)
        if nxt is not None:
            ns, ne = nxt.span(1)
            if (not cands.has(ns, ne) or cands.is_name(ns, ne)) and probably_name(
                cands, lex, ns, ne, nxt.group(1)
            ):
                cands.add(ns, ne, PATTERN_LAST)
                cands.add(s, e, PATTERN_FIRST)
        mid = _INITIAL_AND_NAME.match(p, e)
        if mid is not None:
            ls, le = mid.span(3)
            if (
                cands.has(ls, le)
                or _END.match(p, le) is not None
                or not lex.is_commonest(mid.group(3))
            ):
                cands.add(ls, le, PATTERN_LAST)
                cands.add(mid.start(1), mid.end(1), PATTERN_INITIAL)
                cands.add(s, e, PATTERN_FIRST)
    for (s, _e), tags in list(cands.spans.items()):
        mask = mask_of(tags)
        if not (mask & LAST and mask & UNAMBIGUOUS_ENTRY):
            continue
        before = _WORD_BEFORE.search(p, max(0, s - 40), s)
        if before is None:
            continue
        ps, pe = before.span(1)
        word = before.group(1)
        if cands.has(ps, pe):
            if cands.has_part(ps, pe, "first") and not is_indicator(word):
                cands.add(ps, pe, PATTERN_FIRST)
        elif not lex.is_common(word):
            cands.add(ps, pe, PATTERN_FIRST)
    for (s, e), tags in list(cands.spans.items()):
        mask = mask_of(tags)
        if not mask & NAME or (mask & AMBIGUOUS and not mask & UNAMBIGUOUS_ENTRY):
            continue
        two = _TWO_INITIALS_BEFORE.search(p, max(0, s - 8), s)
        if two is not None:
            cands.add(two.start(1), two.end(1), PATTERN_INITIAL)
            continue
        one = _INITIAL_BEFORE.search(p, max(0, s - 4), s)
        if one is not None:
            cands.add(one.start(1), one.end(1), PATTERN_INITIAL)
            cands.add(s, e, PATTERN_LAST)


_PROBLEM = re.compile(r"\b([A-Za-z\-]+) + *problem\b", _I)


def problem_names(para: Paragraph, cands: Candidates, lex: MimicLexicon) -> None:
    """The word before "problem" when it is not a common word (or is an ambiguous name):
    the program's rule for discharge-summary problem lists."""
    p = para.text
    if "problem" not in para.words:
        return
    for m in _PROBLEM.finditer(p):
        word = m.group(1)
        if not lex.is_common(word) or lex.is_ambiguous_name(word):
            cands.add(m.start(1), m.end(1), PROBLEM)
