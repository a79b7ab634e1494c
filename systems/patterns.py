"""Surface patterns of the heuristic baseline, and the context words both rule systems share.

The heuristic+dictionary baseline (Douglass 2005, as described by Sibanda & Uzuner 2006,
§4.1) "uses patterns and indicators to find PHI".  Its patterns live here as named
:class:`Pattern` objects grouped in families, after Tafvizi's (2011, §2.5) summary of the
deid program's tables:

====================  ============================================================
family                source
====================  ============================================================
:data:`DATE_TABLE`    Tafvizi 2011, Table 2.2 (mm/dd/yy, yyyy/mm/dd, dd month yy)
:data:`DATE_EXTRA`    mm/dd without a year, month-name dates without a year,
                      '84-style years
:data:`PHONE_TABLE`   Tafvizi 2011, Table 2.3
:data:`SSN_TABLE`     Tafvizi 2011, Table 2.4
:data:`RECORD_IDS`    medical-record / unit numbers after an explicit cue
====================  ============================================================

The MIMIC re-implementation (:mod:`systems.mimic`) does not use these families: it
follows the deid program's own rules, which its modules in :mod:`systems.mimic_rules`
reproduce paragraph by paragraph.

Patterns match the raw note text, not tokens; :class:`PatternSet` tries each one only where
it can start (a digit run, a bracket, an apostrophe or a cue word) instead of scanning the
whole note once per pattern.  Their character spans are then projected onto the token
interface by :func:`label_tokens`, which labels every token that overlaps a match.
Year-only dates, whose Table 2.2 row applies "only if preceding or following text includes
the name of a medical event", need token context and are handled by :func:`year_tokens`.

The module also holds the token-level helpers of the heuristic (:class:`PhraseIndex`:
multi-word dictionary entries such as "Linden Cross" matched against token sequences;
:func:`lookup_form`: the normalized form of a token used for dictionary look-ups), and the
*context words* both rule systems read (:data:`NAME_INDICATORS`,
:data:`LOCATION_INDICATORS`, :data:`EMPLOYMENT_INDICATORS`, :data:`TITLES`; see the
section comment for why one list serves both).
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from corpora.model import OUTSIDE
from infra import memo

if TYPE_CHECKING:
    from corpora.model import Token

_I = re.IGNORECASE


@dataclass(frozen=True, slots=True)
class RuleMatch:
    """A character span a rule marked as PHI, with the label and the rule that fired."""

    start: int
    end: int
    label: str
    rule: str


@dataclass(frozen=True)
class Pattern:
    """One surface pattern: a compiled regex, the PHI group, and an optional validator.

    ``group`` names the part of the match that is PHI (context words such as "pager #" or
    "age" are matched but not marked); ``check`` rejects matches whose numbers are out of
    range (month 13, day 32), which keeps the patterns short and readable.
    """

    rule: str
    label: str
    regex: re.Pattern[str]
    group: int | str = 0
    check: Callable[[re.Match[str]], bool] | None = None
    #: Where a match can start: ``"digit"``, ``"("``, ``"'"``, or ``"word"`` (then at a token
    #: whose :func:`lookup_form` is in :attr:`anchors`).  :class:`PatternSet` only tries the
    #: pattern there, which is what makes the rule systems fast.
    lead: str = "digit"
    anchors: frozenset[str] = frozenset()

    def _accept(self, m: re.Match[str]) -> RuleMatch | None:
        if self.check is not None and not self.check(m):
            return None
        start, end = m.span(self.group)
        if start < end:
            return RuleMatch(start, end, self.label, self.rule)
        return None

    def finditer(self, text: str) -> Iterable[RuleMatch]:
        """Every match in ``text`` (a full scan; :class:`PatternSet` is the fast path)."""
        for m in self.regex.finditer(text):
            hit = self._accept(m)
            if hit is not None:
                yield hit

    def match_at(self, text: str, pos: int) -> RuleMatch | None:
        """The match starting exactly at ``pos`` (look-behinds still see the text before)."""
        m = self.regex.match(text, pos)
        return None if m is None else self._accept(m)


# --------------------------------------------------------------------------- validators


def _valid_md(month: str, day: str) -> bool:
    return 1 <= int(month) <= 12 and 1 <= int(day) <= 31


def _check_mdy(m: re.Match[str]) -> bool:
    a, b = m.group("a"), m.group("b")
    # mm/dd/(yy)yy or dd/mm/(yy)yy (Table 2.2, rows 1-2); not "psv 12/5/40%"
    if m.string.startswith("%", m.end()):
        return False
    return _valid_md(a, b) or _valid_md(b, a)


def _check_ymd(m: re.Match[str]) -> bool:
    a, b = m.group("a"), m.group("b")
    # (yy)yy/mm/dd or (yy)yy/dd/mm (Table 2.2, rows 3-4)
    return _valid_md(a, b) or _valid_md(b, a)


#: Words shortly before "5/5" or "10/5" that make it a ventilator setting, not a date.
_SETTING_CONTEXT = re.compile(
    r"\b(?:psv?|cpap|bipap|peep|vent|imv|simv|a/?c|settings?|flow-?by|support|wean(?:ed|ing)?"
    r"|ips|ipap|epap|ps/peep|trach\s+mask|np|nc)\b",
    _I,
)
_RESP_CONTEXT = re.compile(
    r"\b(?:resp|vent\w*|cpap|bi-?pap|psv?|peep|ips|simv|imv|trial(?:ed)?|mask|intubated|"
    r"extubated|abg|fio2|tv|settings?|wean\w*|pulm)\b",
    _I,
)
_PAIN_BEFORE = re.compile(r"\b(?:pain|cp|angina|discomfort)\b", _I)
_WEAN_TO = re.compile(r"\bwean(?:ed|ing)?\s+(?:down\s+)?to\s*$", _I)
_PAIN_AFTER = re.compile(r"\s*(?:pain|cp|angina|scale|chest|ha\b|headache)", _I)
_FRACTIONS = frozenset({("1", "2"), ("1", "3"), ("2", "3"), ("1", "4"), ("3", "4")})


def _not_setting(m: re.Match[str]) -> bool:
    """Reject "psv 10/5", "cpap 5/5", "1/2 hour" and "8/10 pain": ICU notes use slashes for
    ventilator settings, fractions and pain scores far more often than for dates."""
    a, b = m.group("a"), m.group("b")
    if (a, b) in _FRACTIONS:
        return False
    start = m.start()
    before = m.string[max(0, start - 25) : start]
    if int(b) <= 20 and (
        _SETTING_CONTEXT.search(before, max(0, len(before) - 12)) or _WEAN_TO.search(before)
    ):
        return False
    # "PS/PEEP" pairs ("trialed on 5/5", "bipap 10/5"): support >= a usual PEEP, with a
    # respiratory word nearby
    if int(b) <= int(a) <= 25 and b in ("5", "6", "8", "10"):
        wider = m.string[max(0, start - 60) : start]
        if _RESP_CONTEXT.search(wider):
            return False
    pain = _PAIN_AFTER.match(m.string, m.end()) or _PAIN_BEFORE.search(before)
    return not (b == "10" and pain)


def _check_md(m: re.Match[str]) -> bool:
    return _valid_md(m.group("a"), m.group("b")) and _not_setting(m)


def _check_my(m: re.Match[str]) -> bool:
    # mm/yy: a month and a two-digit number that cannot be a day ("avr 8/88")
    return 1 <= int(m.group("a")) <= 12 and int(m.group("b")) > 31


def _check_day(m: re.Match[str]) -> bool:
    day = m.group("day")
    return day is None or 1 <= int(day) <= 31


# --------------------------------------------------------------------------- dates

#: Month names and abbreviations (with an optional period).
MONTH = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
)
#: Token forms (see :func:`lookup_form`) a month-led pattern can start at.
MONTH_FORMS = frozenset(
    """jan january feb february mar march apr april may jun june jul july aug august sep sept
    september oct october nov november dec december""".split()
)
_ORD = r"(?:st|nd|rd|th)?"
_YEAR = r"(?:'?\d{4}|'\d{2}|\d{2}(?!\d))"
#: Digits that must not touch a number on the left (so "120/80/7.5" is not a date).
_NOT_AFTER = r"(?<![\w/:\-])(?<![\d/]\.)"
_NOT_BEFORE = r"(?![\w/]|\.\d|-\d|:\d)"

DATE_TABLE: tuple[Pattern, ...] = (
    Pattern(
        "date.mdy",
        "DATE",
        re.compile(
            r"(?<![\d/.:\-])(?P<a>\d{1,2})(?P<s>[/\-.])(?P<b>\d{1,2})(?P=s)(?:\d{4}|\d{2})(?!\d)"
        ),
        check=_check_mdy,
    ),
    Pattern(
        "date.ymd",
        "DATE",
        re.compile(
            _NOT_AFTER + r"(?:\d{4}|\d{2})(?P<s>[/\-])(?P<a>\d{1,2})(?P=s)(?P<b>\d{1,2})(?!\d)"
        ),
        check=_check_ymd,
    ),
    Pattern(
        "date.day_month_year",
        "DATE",
        re.compile(
            r"(?<![\w/])(?P<day>\d{1,2})"
            + _ORD
            + r"(?:\s+of)?[\s\-]+"
            + MONTH
            + r",?[\s\-]+"
            + _YEAR,
            _I,
        ),
        check=_check_day,
    ),
    Pattern(
        "date.month_day_year",
        "DATE",
        re.compile(
            r"\b" + MONTH + r"\s+(?P<day>\d{1,2})" + _ORD + r",?\s+" + _YEAR + r"(?![\d:])",
            _I,
        ),
        check=_check_day,
        lead="word",
        anchors=MONTH_FORMS,
    ),
    Pattern(
        "date.month_year",
        "DATE",
        re.compile(r"\b" + MONTH + r",?\s+(?:of\s+)?(?:19|20)\d\d(?!\d)", _I),
        lead="word",
        anchors=MONTH_FORMS,
    ),
)

DATE_EXTRA: tuple[Pattern, ...] = (
    # mm/dd without a year: the commonest date in ICU notes ("admitted 8/23"); doses such as
    # "1/2 tab" or "1/2NS" and ratios are excluded by the unit look-ahead.
    Pattern(
        "date.md",
        "DATE",
        re.compile(
            _NOT_AFTER
            + r"(?P<a>\d{1,2})/(?P<b>\d{1,2})"
            + _NOT_BEFORE
            + r"(?!\s*(?:%|mg|mcg|meq|cc|ml|l\b|tab|strength|ns\b|units?\b|dose|amp))",
            _I,
        ),
        check=_check_md,
    ),
    # mm/yy: "avr 8/88", "ca (12/93)".
    Pattern(
        "date.my",
        "DATE",
        re.compile(_NOT_AFTER + r"(?P<a>\d{1,2})/(?P<b>\d{2})" + _NOT_BEFORE),
        check=_check_my,
    ),
    # Month names after "in", "since": "admitted in sept.".
    Pattern(
        "date.month",
        "DATE",
        re.compile(r"\b(?:in|since|during|early|late|mid|of|by)\s+(" + MONTH + r")(?!\w)", _I),
        group=1,
        lead="word",
        anchors=frozenset("in since during early late mid of by".split()),
    ),
    # "march 21", "may 16th", "21 oct" -- a month name with a day but no year.
    Pattern(
        "date.month_day",
        "DATE",
        re.compile(
            r"\b" + MONTH + r"\s+(?P<day>\d{1,2})" + _ORD + r"(?![\d:/.]|\s*(?:mg|cc|ml|am|pm)\b)",
            _I,
        ),
        check=_check_day,
        lead="word",
        anchors=MONTH_FORMS,
    ),
    Pattern(
        "date.day_month",
        "DATE",
        re.compile(
            r"(?<![\w/.])(?P<day>\d{1,2})" + _ORD + r"(?:\s+of)?[\s\-]+" + MONTH + r"(?!\w)", _I
        ),
        check=_check_day,
    ),
    # Full month names on their own ("admitted in september"); "may" and "march" are verbs too.
    Pattern(
        "date.month",
        "DATE",
        re.compile(
            r"\b(?:january|february|april|june|july|august|september|october|november"
            r"|december)\b",
            _I,
        ),
        lead="word",
        anchors=MONTH_FORMS,
    ),
    # Two-digit years with an apostrophe: "cabg '84", "stopped smoking 62'".
    Pattern(
        "date.year_apostrophe",
        "DATE",
        re.compile(r"(?<![\w'])'(\d{2})(?![\w'])"),
        group=1,
        lead="'",
    ),
    Pattern(
        "date.year_apostrophe",
        "DATE",
        re.compile(r"(?<![\w.'/])(\d{2})'(?![\w'])"),
        group=1,
    ),
    # Decades: "MI in the 1980s".
    Pattern("date.decade", "DATE", re.compile(r"(?<![\w.])(?:19|20)\d0'?s\b", _I)),
    # Ordinal days in a date phrase: "it's the 11th".
    Pattern(
        "date.ordinal",
        "DATE",
        re.compile(r"\bthe\s+(\d{1,2}(?:st|nd|rd|th))\b", _I),
        group=1,
        lead="word",
        anchors=frozenset({"the"}),
    ),
)

# --------------------------------------------------------------------------- phones and IDs

_NO_DIGIT_L = r"(?<![\d/.:])(?<!\d-)"
_NO_DIGIT_R = r"(?![\d\-/]|\.\d|:\d)"

PHONE_TABLE: tuple[Pattern, ...] = (
    # (nnn) nnn-nnnn, also written "(nnnnnn-nnnn)" or "nnn) nnn-nnnn"
    Pattern(
        "phone.paren",
        "PHONE",
        re.compile(r"\(\d{3}\)?\s*\d{3}[\-.\s]?\d{4}" + _NO_DIGIT_R + r"\)?"),
        lead="(",
    ),
    # nnn-nnn-nnnn and nnn nnn nnnn (and mixtures such as "nnn nnn-nnnn")
    Pattern(
        "phone.10",
        "PHONE",
        re.compile(_NO_DIGIT_L + r"\d{3}[\-.\s]?\d{3}[\-.\s]\d{4}(?:\s*x\d{1,5}\b)?" + _NO_DIGIT_R),
    ),
    # nnn-nnnn and nnn nnnn: a local number; exchanges never start with 0 or 1.
    Pattern(
        "phone.7",
        "PHONE",
        re.compile(_NO_DIGIT_L + r"[2-9]\d{2}[\-\s]\d{4}" + _NO_DIGIT_R + r"(?!\s*(?:mg|cc|ml)\b)"),
    ),
)

SSN_TABLE: tuple[Pattern, ...] = (
    Pattern("id.ssn", "ID", re.compile(_NO_DIGIT_L + r"\d{3}-\d{2}-\d{4}" + _NO_DIGIT_R)),
    Pattern("id.ssn", "ID", re.compile(_NO_DIGIT_L + r"\d{3}-\d{6}" + _NO_DIGIT_R)),
    Pattern("id.ssn", "ID", re.compile(_NO_DIGIT_L + r"\d{5}-\d{4}" + _NO_DIGIT_R)),
    # Table 2.4 prints the unseparated form as eight digits; an SSN has nine: accept both.
    Pattern("id.ssn", "ID", re.compile(_NO_DIGIT_L + r"\d{8,9}" + _NO_DIGIT_R)),
)

RECORD_IDS: tuple[Pattern, ...] = (
    Pattern(
        "id.record",
        "ID",
        re.compile(
            r"\b(?:mrn|mr\s*#|med(?:ical)?\s+rec(?:ord)?(?:\s+(?:no\.?|number|#))?|unit\s+(?:no\.?|#)"
            r"|acct|account|id\s*#|record\s*#)\s*[:#]?\s*([a-z]{0,3}\d[\d\-]{3,})",
            _I,
        ),
        group=1,
        lead="word",
        anchors=frozenset("mrn mr med medical unit acct account id record".split()),
    ),
)

_ANCHOR_RE = re.compile(r"[0-9]+|[(']")


class PatternSet:
    """Patterns tried only where they can start -- the rule systems' fast path.

    A full regex scan costs time at every character of a note, once per pattern; ICU notes
    are long and the pattern tables have some twenty rows.  Every pattern here starts at a
    digit run, a bracket, an apostrophe or a cue word, so :meth:`find` scans once for the
    digit/bracket positions, looks the cue words up among the tokens' forms, and tries each
    pattern with an anchored ``match`` there.  The result equals :func:`find_all` up to
    overlapping duplicates, in pattern (priority) order.
    """

    def __init__(self, patterns: Sequence[Pattern]) -> None:
        self.patterns = tuple(patterns)
        self.by_lead: dict[str, list[tuple[int, Pattern]]] = {"digit": [], "(": [], "'": []}
        self.by_word: dict[str, list[tuple[int, Pattern]]] = {}
        for k, p in enumerate(self.patterns):
            if p.lead == "word":
                for w in p.anchors:
                    self.by_word.setdefault(w, []).append((k, p))
            else:
                self.by_lead[p.lead].append((k, p))

    def find(
        self, text: str, forms: Sequence[str] = (), starts: Sequence[int] = ()
    ) -> list[RuleMatch]:
        """Matches in ``text``; ``forms``/``starts`` (the tokens' look-up forms and offsets)
        locate the cue-word patterns -- without them only the other patterns run."""
        hits: list[tuple[int, RuleMatch]] = []
        append = hits.append
        digit, paren, quote = self.by_lead["digit"], self.by_lead["("], self.by_lead["'"]
        for m in _ANCHOR_RE.finditer(text):
            pos = m.start()
            c = text[pos]
            group = paren if c == "(" else quote if c == "'" else digit
            for k, p in group:
                hit = p.match_at(text, pos)
                if hit is not None:
                    append((k, hit))
        by_word = self.by_word
        if by_word:
            for f, pos in zip(forms, starts, strict=False):
                group = by_word.get(f)
                if group:
                    for k, p in group:
                        hit = p.match_at(text, pos)
                        if hit is not None:
                            append((k, hit))
        hits.sort(key=lambda h: h[0])
        return [h for _, h in hits]


def find_all(text: str, patterns: Sequence[Pattern]) -> list[RuleMatch]:
    """Every match of ``patterns`` in ``text``, in pattern order (earlier = higher priority)."""
    out: list[RuleMatch] = []
    for p in patterns:
        out.extend(p.finditer(text))
    return out


def label_tokens(
    tokens: Sequence[Token],
    matches: Iterable[RuleMatch],
    labels: list[str],
    rules: list[str] | None = None,
    *,
    starts: Sequence[int] | None = None,
    ends: Sequence[int] | None = None,
    overwrite: bool = False,
) -> None:
    """Label every token overlapping a match (in place).

    A token keeps its first label unless ``overwrite``: callers list their highest-priority
    matches first.  ``starts``/``ends`` (the tokens' offsets) may be passed in when the
    caller already has them, saving a pass over the tokens.
    """
    if starts is None:
        starts = [t.start for t in tokens]
    if ends is None:
        ends = [t.end for t in tokens]
    for m in matches:
        # tokens with end > m.start and start < m.end
        i = bisect_right(ends, m.start)
        j = bisect_left(starts, m.end)
        for k in range(i, j):
            if overwrite or labels[k] == OUTSIDE:
                labels[k] = m.label
                if rules is not None:
                    rules[k] = m.rule


# --------------------------------------------------------------------------- token helpers

_POSSESSIVE = ("'s", "\u2019s")


def lookup_form(text: str) -> str:
    """The form of a token used for dictionary look-ups: lower-case, without a final
    period or possessive "'s" ("Mary's" -> "mary", "Dr." -> "dr")."""
    low = text.lower()
    if low.endswith(_POSSESSIVE) and len(low) > 3:
        low = low[:-2]
    if low.endswith(".") and len(low) > 1:
        low = low[:-1]
    return low


def _weigh_form(text: str, form: str) -> int:
    return 150 + 2 * len(text)  # the entry, the token text (shared) and its form


_FORMS: memo.Memo[str, str] = memo.Memo("patterns.forms", weigh=_weigh_form)


def token_forms(tokens: Sequence[Token]) -> list[str]:
    """:func:`lookup_form` of every token (memoized: note vocabularies are small)."""
    return _FORMS.get_many([t.text for t in tokens], lookup_form)


def _entry_tokens(entry: str) -> tuple[str, ...]:
    from corpora.tokenize import _raw_tokens

    return tuple(lookup_form(entry[s:e]) for s, e in _raw_tokens(entry))


class PhraseIndex:
    """Multi-word dictionary entries matched against token sequences.

    Entries are tokenized with the clinical tokenizer, so "St. Mary's" in a list matches the
    tokens ``St.``, ``Mary's`` of a note; look-ups use :func:`lookup_form` on both sides.
    Only entries of two or more tokens are indexed -- single words are plain set look-ups.
    """

    def __init__(self, entries: Iterable[str]) -> None:
        by_first: dict[str, list[tuple[str, ...]]] = {}
        for entry in entries:
            toks = _entry_tokens(entry)
            if len(toks) >= 2:
                by_first.setdefault(toks[0], []).append(toks)
        for phrases in by_first.values():
            phrases.sort(key=len, reverse=True)  # longest match first
        self.by_first = by_first

    def __len__(self) -> int:
        return sum(len(v) for v in self.by_first.values())

    def match_at(self, forms: Sequence[str], i: int) -> int:
        """Length (in tokens) of the longest entry starting at token ``i``, else 0."""
        phrases = self.by_first.get(forms[i])
        if not phrases:
            return 0
        n = len(forms)
        for phrase in phrases:
            k = len(phrase)
            if i + k <= n and tuple(forms[i : i + k]) == phrase:
                return k
        return 0

    def matches(self, forms: Sequence[str]) -> list[tuple[int, int]]:
        """Non-overlapping ``(start, end)`` token ranges of entries in ``forms``."""
        out = []
        by_first = self.by_first
        i, n = 0, len(forms)
        while i < n:
            if forms[i] in by_first:
                k = self.match_at(forms, i)
                if k:
                    out.append((i, i + k))
                    i += k
                    continue
            i += 1
        return out


# --------------------------------------------------------------------------- years in context

#: Words naming a medical event or history item: Table 2.2's last row accepts a bare year
#: ("cabg 84", "mi in 1992") only next to one of these.
MEDICAL_EVENTS = frozenset(
    """mi ami nqwmi imi stemi nstemi cabg cva tia ptca pci stent stents stented cath
    surgery surg repair resection resected appy appendectomy chole cholecystectomy avr mvr
    tvr tah bso hysterectomy lumpectomy mastectomy nephrectomy colectomy transplant
    stroke fx fracture dx diagnosed hx pmh pmhx s/p sp redo ca cancer ppm aicd icd pacer
    pacemaker hernia dvt pe chf cad htn copd removal replacement bypass angioplasty
    admission admitted adm hospitalized hospitalization diagnosis ablation amputation
    laminectomy craniotomy thoracotomy arrest infarct infarction bleed ugib lgib
    pneumonia sepsis intubated intubation chemo radiation xrt""".split()
)
#: Words that make a following four-digit number a year ("in 1992", "since 2004").
YEAR_CUES = frozenset({"in", "since", "of", "year", "yr", "circa", "ca", "until", "during"})

_YEAR4_RE = re.compile(r"(?:19|20)\d\d\Z")
_YEAR2_RE = re.compile(r"\d\d\Z")
_SKIP = frozenset({",", "'", "in", "of", "-", "(", ")", ":", "and"})


def year_tokens(forms: Sequence[str]) -> list[int]:
    """Indices of tokens that are years in context (Tafvizi 2011, Table 2.2, last row).

    A four-digit 19xx/20xx token is a year after a year cue ("in", "since") or next to a
    medical event; a two-digit token only right next to a medical event ("cabg 84",
    "mi 81", "84 cabg") -- times such as "1900" and counts such as "hr 80" are left alone.
    """
    out = []
    n = len(forms)
    events = MEDICAL_EVENTS
    for i, f in enumerate(forms):
        if not f or not f[0].isdigit() or len(f) not in (2, 4):
            continue
        four = _YEAR4_RE.match(f) is not None
        if not four and _YEAR2_RE.match(f) is None:
            continue
        # nearest words on each side, skipping punctuation and "in"/"of"
        j = i - 1
        while j >= 0 and forms[j] in _SKIP and i - j <= 3:
            j -= 1
        prev = forms[j] if j >= 0 else ""
        nxt = forms[i + 1] if i + 1 < n else ""
        if four:
            near = forms[i - 1] if i else ""
            if near in YEAR_CUES or prev in events or nxt in events:
                out.append(i)
        elif prev in events or nxt in events:
            out.append(i)
    return out


# --------------------------------------------------------------------------- context words
#
# Both rule-based baselines descend from one program.  The heuristic system of Sibanda &
# Uzuner (2006, §4.1) is Douglass's (2005); the deid 1.1 program (Neamatullah et al. 2008)
# is its later version by the same group, and its source names Douglass as its original
# author.  The 2006 paper describes the heuristic's context clues only by example --
# "titles, e.g. Mr.; name indicators, e.g. proxy, daughter; location indicators, e.g.
# lives in" -- and every example is in the deid program's lists, the published form of
# those lookup tables.  So both systems read their context words from here, once.  They
# use them differently, each as its description says: the heuristic looks at the word or
# two before a token (one-word name indicators, two-word location phrases); the MIMIC rules
# match every phrase in the text (:mod:`systems.mimic_rules.names`, ``.locations``).

#: Words and phrases after which a person's name follows: relatives, other people around a
#: patient, and naming phrases (plural forms and in-laws as notes write them).
NAME_INDICATORS: tuple[str, ...] = (
    # family
    "daughter", "daughters", "dtr", "son", "sons", "wife", "husband", "spouse", "partner",
    "mother", "mom", "father", "dad", "brother", "brothers", "sister", "sisters", "neice",
    "nephew", "cousin", "aunt", "uncle", "granddaughter", "grandson", "grandmother",
    "grandmom", "grandfather", "granddad", "relative", "family member", "son-in-law",
    "daughter-in-law", "dtr-in-law", "sister-in-law", "brother-in-law", "mother-in-law",
    "father-in-law",
    # other people
    "proxy", "proxys", "friend", "friends", "boyfriend", "girlfriend", "significant other",
    "neighbor", "visitor", "caregiver", "coworker", "co-worker", "lawyer", "priest", "rabbi",
    "rrt", "jr",
    # naming phrases
    "name is", "named", "name will be", "surname will be", "name at discharge is",
    "name at discharge will be", "problem", "problem:",
)  # fmt: skip

#: Phrases after which a place follows ("lives in", "comes from").
LOCATION_INDICATORS: tuple[str, ...] = (
    "lives in", "lived in", "lives at", "resident of", "comes from", "called from",
    "visited from", "arrived from", "returned to",
)  # fmt: skip

#: Phrases after which a workplace (a company) follows.
EMPLOYMENT_INDICATORS: tuple[str, ...] = (
    "employee of", "employed by", "employed at", "ceo of", "manager at", "manager for",
    "manager of", "works at", "business",
)  # fmt: skip

#: Titles before a name, with the category of the person they name: clinicians ("Dr.",
#: "MD", "nurse") and anyone else ("Mr.", "Mrs.", "Rev.").
TITLES: dict[str, str] = {
    **dict.fromkeys(
        "dr drs doctor doctors prof professor md nurse practitioner caregiver".split(), "DOCTOR"
    ),
    **dict.fromkeys(
        "mr mrs ms miss mister rev rabbi deacon deaconess prince princess".split(), "PATIENT"
    ),
}
