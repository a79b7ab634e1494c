"""``heuristic``: the heuristic + dictionary baseline (Douglass 2005).

Sibanda & Uzuner (2006, §4.1) compare their SVM with a rule-based de-identifier (Douglass
2005) built from three kinds of dictionaries, and summarise its method as: mark words that
are in the PHI lookup tables but not in the common-words list, find approximate matches for
possibly misspelled words, and use patterns and indicators.  Douglass's program is not
available; this re-implementation follows that description and nothing more:

``table.*`` -- **PHI lookup tables**: female and male first names, last names, last-name
prefixes, hospital names, locations and US states (the deid-1.1 files when
``dictionaries`` names that directory, else the packaged defaults).  A token in a table
and not in the common-words list is PHI (``table.name``, ``table.location``,
``table.hospital``); multi-word hospital and location entries are matched as phrases.
Unlike the MIMIC rules (:mod:`systems.mimic`), the heuristic has no notion of an
*ambiguous* entry beyond the common-words list -- that is the weakness §6.2 of the paper
(ambiguous PHI) probes.

``common`` -- **common words are never PHI** (``common_words``, ``commonest_words`` and
the packaged medical vocabulary), except right after a title ("Dr. White").

``context.*`` -- **context clues**: titles ("Mr.", "Mrs.", "Dr.") and name indicators
("proxy", "daughter", "husband" ...) make the next word a name (``context.title``,
``context.name_indicator``); location indicators ("lives in", "comes from") make the next
word a location when it is a table word or not a common word
(``context.location_indicator``); a last-name prefix ("van", "mc") before a last name
joins it (``context.prefix``).  The titles and indicators are the context words of the deid
program, the later version of Douglass's (:data:`systems.patterns.NAME_INDICATORS` and
neighbours, shared with the MIMIC rules): the heuristic looks at the word or two before a
token, so it takes the one-word name indicators and the two-word location phrases.

``approx`` -- **approximate matching**: a capitalized (not all-capitals) token of at least
``min_length`` characters, in no table and not a common word, within one edit (deletion, insertion,
substitution or transposition) of a table entry takes that entry's category ("Jonhson").
Candidates are generated from the token (Norvig-style edit-1 neighbourhood) and looked up
in the table sets -- no index to build, and only a few percent of tokens qualify.

``date.*``, ``phone.*``, ``id.*`` -- **patterns** for dates, phones and IDs
(:mod:`systems.patterns`: the Table 2.2-2.4 families, the extra date rules, and record
numbers after "MRN", "unit no."); the paper lists no age patterns for this system, so it
does not tag AGE.

Douglass's own common-words list is not published; the harness's common-word lists stand
in for it.
"""

from __future__ import annotations

import string
from collections.abc import Sequence
from typing import TYPE_CHECKING

from corpora.dictionaries import Dictionaries, system_dictionaries
from corpora.model import OUTSIDE
from infra.memo import memoize
from systems import patterns
from systems.base import System, register
from systems.patterns import (
    DATE_EXTRA,
    DATE_TABLE,
    PHONE_TABLE,
    RECORD_IDS,
    SSN_TABLE,
    PatternSet,
    PhraseIndex,
    label_tokens,
    token_forms,
    year_tokens,
)

if TYPE_CHECKING:
    from corpora.model import Document, Token

#: Patterns for dates, phones and IDs (§4.1), in priority order.
PATTERNS = PatternSet((*PHONE_TABLE, *SSN_TABLE, *RECORD_IDS, *DATE_TABLE, *DATE_EXTRA))

#: Titles: the next word is a name ("Mr." -> a patient or relative, "Dr." -> a clinician).
DOCTOR_TITLES = frozenset(t for t, label in patterns.TITLES.items() if label == "DOCTOR")
PERSON_TITLES = frozenset(t for t, label in patterns.TITLES.items() if label == "PATIENT")
#: Name indicators (§4.1: "proxy", "daughter"): the one-word ones.
NAME_INDICATORS = frozenset(w for w in patterns.NAME_INDICATORS if " " not in w)
#: Location indicators (§4.1: "lives in"): (word before, word) pairs.
LOCATION_INDICATORS = frozenset(
    tuple(phrase.split()) for phrase in patterns.LOCATION_INDICATORS if phrase.count(" ") == 1
)
_CONTEXT_WORDS = (
    DOCTOR_TITLES | PERSON_TITLES | NAME_INDICATORS | {w for _, w in LOCATION_INDICATORS}
)
_SOFT_PUNCT = frozenset({".", ",", ":", "-"})
_LETTERS = string.ascii_lowercase


def edits1(word: str) -> set[str]:
    """Every string one edit away from ``word`` (Norvig's neighbourhood, lower-case a-z)."""
    splits = [(word[:i], word[i:]) for i in range(len(word) + 1)]
    out = {a + b[1:] for a, b in splits if b}
    out.update(a + b[1] + b[0] + b[2:] for a, b in splits if len(b) > 1)
    out.update(a + c + b[1:] for a, b in splits if b for c in _LETTERS if c != b[0])
    out.update(a + c + b for a, b in splits for c in _LETTERS)
    out.discard(word)
    return out


#: Table categories from the most to the least specific, as :meth:`HeuristicLexicon.category`
#: checks them.
_TABLE_PRIORITY = ("HOSPITAL", "LOCATION", "PATIENT")


class HeuristicLexicon:
    """The lookup tables as sets, built once per dictionary set."""

    def __init__(self, dicts: Dictionaries) -> None:
        self.common = frozenset(
            dicts.get("common_words") | dicts.get("commonest_words") | dicts.get("medical_terms")
        )
        names = (
            dicts.get("female_first_names")
            | dicts.get("male_first_names")
            | dicts.get("last_names")
        )
        self.names = frozenset(w for w in names if " " not in w)
        self.last_names = frozenset(dicts.get("last_names"))
        self.prefixes = frozenset(dicts.get("last_name_prefixes"))
        places = dicts.get("locations") | dicts.get("local_places") | dicts.get("us_states")
        self.locations = frozenset(w for w in places if " " not in w)
        self.hospitals = frozenset(w for w in dicts.get("hospitals") if " " not in w)
        self.hospital_phrases = PhraseIndex(w for w in dicts.get("hospitals") if " " in w)
        self.location_phrases = PhraseIndex(w for w in places if " " in w)
        self.phrase_firsts = frozenset(self.hospital_phrases.by_first) | frozenset(
            self.location_phrases.by_first
        )
        tables = self.names | self.locations | self.hospitals | self.prefixes
        # common words no rule can mark (table words may still follow a title)
        self.boring = frozenset(w for w in self.common if w not in tables and len(w) > 1)

    def category(self, form: str) -> str | None:
        """The table category of ``form`` (hospital, location, then name), else ``None``."""
        if form in self.hospitals:
            return "HOSPITAL"
        if form in self.locations:
            return "LOCATION"
        if form in self.names:
            return "PATIENT"
        return None

    def approximate(self, form: str) -> str | None:
        """The category of a table entry one edit away from ``form``, else ``None``.

        When neighbours fall in several tables, the same priority as an exact match decides
        (hospital, then location, then name), never the order the neighbours are generated
        in: ``edits1`` is a set, whose iteration order follows ``PYTHONHASHSEED``, and the
        first hit would make the labels change from one run to the next.
        """
        found = {self.category(candidate) for candidate in edits1(form)}
        return next((c for c in _TABLE_PRIORITY if c in found), None)


@memoize("heuristic.lexicons", identity=(0,))
def lexicon(dicts: Dictionaries) -> HeuristicLexicon:
    """The tables of ``dicts``, built once per dictionaries object."""
    return HeuristicLexicon(dicts)


def _tag(
    lex: HeuristicLexicon, document: Document, approximate: bool, min_length: int
) -> tuple[list[str], list[str]]:
    """Labels and rules of ``document``'s tokens: patterns first, then table phrases, then
    word by word the context clues, single-word tables and approximate matches (each later
    rule labels only tokens the earlier ones left ``O``)."""
    toks = document.tokens
    n = len(toks)
    labels = [OUTSIDE] * n
    rules = [""] * n
    if not n:
        return labels, rules
    text = document.text
    starts = [t.start for t in toks]
    ends = [t.end for t in toks]
    forms = token_forms(toks)
    _tag_patterns(document, forms, starts, ends, labels, rules)
    _tag_phrases(lex, forms, labels, rules)

    boring = lex.boring  # a common word after a context word may still be a name
    todo = [
        i
        for i, f in enumerate(forms)
        if f[:1].isalpha() and (f not in boring or (i and forms[i - 1] in _CONTEXT_WORDS))
    ]
    for i in todo:
        if labels[i] != OUTSIDE:
            continue
        p = _previous(forms, text, starts, ends, i)
        found = _word_rule(lex, toks, forms, labels, i, p)
        if found is not None:
            label, rule, width = found
            for j in range(i, i + width):
                labels[j], rules[j] = label, rule
        elif approximate and forms[i] not in lex.common:
            category = _approximate_match(lex, toks[i].text, forms[i], min_length)
            if category is not None:
                labels[i], rules[i] = category, "approx"
    return labels, rules


def _tag_patterns(
    document: Document,
    forms: Sequence[str],
    starts: list[int],
    ends: list[int],
    labels: list[str],
    rules: list[str],
) -> None:
    """Dates, phones and IDs by pattern, then years near events: first, so the tokens of a
    date or a number are not judged again as words by the later rules."""
    toks = document.tokens
    found = PATTERNS.find(document.text, forms, starts)
    label_tokens(toks, found, labels, rules, starts=starts, ends=ends)
    for i in year_tokens(forms):
        if labels[i] == OUTSIDE:
            labels[i], rules[i] = "DATE", "date.year_event"


def _tag_phrases(
    lex: HeuristicLexicon, forms: Sequence[str], labels: list[str], rules: list[str]
) -> None:
    """Multi-word hospital and location entries, before single words, so a phrase
    ("Mount Sinai") is one entry rather than words judged one by one."""
    for i in [i for i, f in enumerate(forms) if f in lex.phrase_firsts]:
        if labels[i] != OUTSIDE:
            continue
        k = lex.hospital_phrases.match_at(forms, i)
        label, rule = "HOSPITAL", "table.hospital"
        if not k:
            k = lex.location_phrases.match_at(forms, i)
            label, rule = "LOCATION", "table.location"
        for j in range(i, i + k):
            if labels[j] == OUTSIDE:
                labels[j], rules[j] = label, rule


def _previous(forms: Sequence[str], text: str, starts: list[int], ends: list[int], i: int) -> int:
    """The token a context clue for token ``i`` would be: the one before it, skipping soft
    punctuation ("Dr. Smith", "daughter, Ann"); ``-1`` at the start or across a line
    break, where the words before belong to another line of the note."""
    j = i - 1
    while j >= 0 and forms[j] in _SOFT_PUNCT:
        j -= 1
    if j < 0 or "\n" in text[ends[j] : starts[i]]:
        return -1
    return j


def _word_rule(
    lex: HeuristicLexicon,
    toks: Sequence[Token],
    forms: Sequence[str],
    labels: list[str],
    i: int,
    p: int,
) -> tuple[str, str, int] | None:
    """The label, rule and number of tokens (2 for a last-name prefix and its last name)
    the context clues or the single-word tables give token ``i``, whose context clue is
    token ``p``; ``None`` when neither does.  Clues come first: a title makes even a
    common word a name."""
    common = lex.common
    f = forms[i]
    pf = forms[p] if p >= 0 else ""
    category = lex.category(f)
    word = f.isalpha() or "'" in f or "-" in f

    # context clues
    if pf in DOCTOR_TITLES or pf in PERSON_TITLES:
        if word and (f not in common or category == "PATIENT") and len(f) > 1:
            return ("DOCTOR" if pf in DOCTOR_TITLES else "PATIENT"), "context.title", 1
    if pf in NAME_INDICATORS and word and f not in common:
        return "PATIENT", "context.name_indicator", 1
    if f in lex.prefixes and f not in common and i + 1 < len(forms):
        if forms[i + 1] in lex.last_names:
            return "PATIENT", "context.prefix", 2

    # lookup tables, common words excluded
    if category is not None and f not in common and (len(f) > 2 or category != "PATIENT"):
        if category == "PATIENT" and p >= 0 and p == i - 1 and labels[p] == "DOCTOR":
            category = "DOCTOR"
        return category, "table." + category.lower().replace("patient", "name"), 1
    pp = forms[p - 1] if p >= 1 else ""
    if ((pp, pf) in LOCATION_INDICATORS or ("", pf) in LOCATION_INDICATORS) and word:
        if category == "LOCATION" or (f not in common and toks[i].text[:1].isupper()):
            return "LOCATION", "context.location_indicator", 1
    return None


def _approximate_match(lex: HeuristicLexicon, text: str, form: str, min_length: int) -> str | None:
    """The category of a table entry one edit from a capitalized word no rule labelled
    ("Jonhson"), else ``None``: only capitalized words of ``min_length`` letters or more
    are tried, as short or lower-case words lie one edit from some table entry too often."""
    if len(form) >= min_length and form.isalpha() and text[:1].isupper() and not text.isupper():
        return lex.approximate(form)
    return None


def annotate(
    document: Document, dicts: Dictionaries, approximate: bool = True, min_length: int = 5
) -> tuple[list[str], list[str]]:
    """Labels and fired rules for ``document`` with the word lists ``dicts``."""
    return _tag(lexicon(dicts), document, approximate, min_length)


@register
class HeuristicDeidentifier(System):
    """Heuristic + dictionary baseline (see the module docstring)."""

    relative_cost = 0.2  # measured, for scheduling only
    name = "heuristic"
    description = "Heuristic + dictionary baseline (Douglass 2005; Sibanda & Uzuner 2006 §4.1)"
    citation = "Douglass 2005, as described in Sibanda & Uzuner 2006 §4.1"
    departures = (
        "Douglass's program unavailable: rules re-written from §4.1 with the context "
        "words of its successor, deid 1.1, on the harness dictionaries; no age patterns (§4.1 "
        "lists none)"
    )
    requires_training = False
    predicts_categories = True

    def __init__(
        self, dictionaries: str | None = None, approximate: bool = True, min_length: int = 5
    ) -> None:
        self.dictionaries = dictionaries
        self.approximate = approximate
        self.min_length = min_length

    def _lexicon(self) -> HeuristicLexicon:
        return lexicon(system_dictionaries(self.dictionaries))

    def annotate(self, document: Document) -> tuple[list[str], list[str]]:
        """Per token: the label and the name of the rule that assigned it ("" for ``O``)."""
        return _tag(self._lexicon(), document, self.approximate, self.min_length)

    def predict(self, documents: Sequence[Document]) -> list[list[str]]:
        lex = self._lexicon()
        return [_tag(lex, doc, self.approximate, self.min_length)[0] for doc in documents]
