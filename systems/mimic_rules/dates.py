"""Dates (Tafvizi 2011, §2.5.2, Table 2.2, and the deid program's further date rules).

Table 2.2 lists the program's full-date patterns -- mm/dd/(yy)yy, dd/mm/(yy)yy,
(yy)yy/mm/dd, dd month (yy)yy, month dd (yy)yy -- and years "only if preceding or
following text includes the name of a medical event".  The program itself (deid 1.1, its
``date``, ``dateWithContextCheck``, ``yearWithContextCheck``, ``seasonYear`` and
``commonHoliday`` filters) also marks

* date ranges (``6/30-7/2``), dots as separators (``3.15.2004``), month/year
  (``12/1999``, ``8/88``) and year/month (``1999-12``);
* a month name with a day, a year or both, in either order, ranges included
  ("Jan. 5", "5 May", "May of 1999", "Apr 2-5");
* **mm/dd and mm-dd without a year** ("admitted 8/23", "seen 3-15") -- the commonest dates
  of ICU notes -- unless the text around says it is a measurement: a ventilator or
  pressure setting before it ("PSV 10/5", "CVP 12-15"), a unit or count after it ("2-3
  tabs", "4/10 pain"), or a change ("increased to 2/5");
* two-digit years after a medical event ("CABG '84", "MI 99") and four-digit years after
  an event, "in", "since" or "from" ("in 1992");
* years after a season ("spring 2004") and holiday names.

A date is valid when its month is 1-12, its day exists in that month and its year lies
in 1900-2030 (two-digit years up to 30 are 20xx, the program's threshold).
"""

from __future__ import annotations

import calendar
import re
from typing import TYPE_CHECKING

from systems.mimic_rules.candidates import Candidates, Paragraph, matches_near
from systems.mimic_rules.tags import Tag

if TYPE_CHECKING:
    from systems.mimic_rules.lexicon import MimicLexicon

_A = re.ASCII
_I = re.IGNORECASE | re.ASCII

FULL = Tag("date.full", "DATE")  # Table 2.2: day, month and year
RANGE = Tag("date.range", "DATE")
MONTH_NAME = Tag("date.month_name", "DATE")
PARTIAL = Tag("date.partial", "DATE")  # mm/dd, mm-dd, mm/yy without context
YEAR = Tag("date.year", "DATE")  # Table 2.2, last row
HOLIDAY = Tag("date.holiday", "DATE")

#: Two-digit years up to this number are 20xx, above it 19xx.
TWO_DIGIT_YEAR_THRESHOLD = 30
#: Four-digit numbers in this range can be years.
YEAR_LOW, YEAR_HIGH = 1900, 2030


def valid_date(month: int, day: int, year: int | None = None) -> bool:
    """A real calendar date (``year`` None: any year, so February has 28 days)."""
    if year is not None:
        if year < 100:
            year += 2000 if year <= TWO_DIGIT_YEAR_THRESHOLD else 1900
        if not YEAR_LOW <= year <= YEAR_HIGH:
            return False
    if not (1 <= month <= 12 and 1 <= day <= 31):
        return False
    if month == 2:
        return day <= (29 if year is not None and calendar.isleap(year) else 28)
    return day <= (30 if month in (4, 6, 9, 11) else 31)


def _context_ok(text: str, start: int, end: int) -> bool:
    """No digit run glued to either side ("120/80/7.5", "5/12/40%")."""
    before = text[max(0, start - 2) : start]
    after = text[end : end + 2]
    if "||" in before or "||" in after:
        return False
    return (
        _DIGIT_SEP.search(before) is None
        and not after.startswith(("%", "/"))
        and (_GLUED_DIGIT.match(after) is None)
    )


_DIGIT_SEP = re.compile(r"\d[/.\-]", _A)
_GLUED_DIGIT = re.compile(r"\S\d", _A)

# --------------------------------------------------------------------------- numeric dates

_RANGE_MD = re.compile(r"\b(\d\d?)/(\d\d?)-(\d\d?)/(\d\d?)\b", _A)
_RANGE_MDY = re.compile(r"\b(\d\d?)/(\d\d?)/(\d\d|\d{4})-(\d\d?)/(\d\d?)/(\d\d|\d{4})\b", _A)
_MDY = re.compile(r"\b(\d\d?)[\-/](\d\d?)[\-/](\d\d|\d{4})\b", _A)
_MDY_DOTS = re.compile(r"\b(\d\d?)\.(\d\d?)\.(\d\d|\d{4})\b", _A)
_YMD = re.compile(r"\b(\d\d|\d{4})[\-/](\d\d?)[\-/](\d\d?)\b", _A)
_YMD_DOTS = re.compile(r"\b(\d\d|\d{4})\.(\d\d?)\.(\d\d?)\b", _A)
_MONTH_YEAR4 = re.compile(r"\b(\d\d?)[\-/](\d{4})", _A)
_YEAR4_MONTH = re.compile(r"\b(\d{4})[\-/](\d\d?)\b", _A)
_SLASH_OR_DASH = re.compile(r"\d[\-/.]\d", _A)
_TRIPLE = re.compile(r"\d[\-/]\d\d?[\-/]\d", _A)
_TRIPLE_DOTS = re.compile(r"\d\.\d\d?\.\d", _A)
_YEAR_PAIR = re.compile(r"\d[\-/]\d{4}|\d{4}[\-/]\d", _A)


def numeric_dates(para: Paragraph, cands: Candidates, lex: MimicLexicon) -> None:
    """Table 2.2's numeric rows (mm/dd/yy, yy/mm/dd), their ranges, dots as separators,
    month/four-digit year and four-digit year/month."""
    p = para.text
    if not para.has_digit or _SLASH_OR_DASH.search(p) is None:
        return
    add = cands.add
    if "/" in p and "-" in p:
        for m in _RANGE_MD.finditer(p):
            a, b, c, d = (int(x) for x in m.groups())
            if valid_date(a, b) and valid_date(c, d):
                add(m.start(), m.end(), RANGE)
        for m in _RANGE_MDY.finditer(p):
            a, b, y1, c, d, y2 = (int(x) for x in m.groups())
            if valid_date(a, b, y1) and valid_date(c, d, y2):
                add(m.start(), m.end(), RANGE)
    triple = _TRIPLE.search(p) is not None
    dots = _TRIPLE_DOTS.search(p) is not None
    for regex, run in ((_MDY, triple), (_MDY_DOTS, dots)):
        if not run:
            continue
        for m in regex.finditer(p):
            if _context_ok(p, m.start(), m.end()) and valid_date(*(int(x) for x in m.groups())):
                add(m.start(), m.end(), FULL)
    for regex, century_check, run in ((_YMD, True, triple), (_YMD_DOTS, False, dots)):
        if not run:
            continue
        for m in regex.finditer(p):
            y, mo, d = (int(x) for x in m.groups())
            before = p[max(0, m.start() - 2) : m.start()]
            after = p[m.end() : m.end() + 2]
            if (
                _DIGIT_SEP.search(before) is None
                and not after.startswith(("%", "/"))
                and _GLUED_DIGIT.match(after) is None
                and valid_date(mo, d, y)
                and (not century_check or y > 50 or y < 6)
            ):
                add(m.start(), m.end(), FULL)
    if _YEAR_PAIR.search(p) is None:
        return
    for m in _MONTH_YEAR4.finditer(p):
        mo, y = int(m.group(1)), int(m.group(2))
        before = p[max(0, m.start() - 2) : m.start()]
        after = p[m.end() : m.end() + 2]
        if (
            "||" not in before
            and "||" not in after
            and _DIGIT_SEP.search(before) is None
            and not any(c in after for c in "/.%")
            and 1 <= mo <= 12
            and YEAR_LOW <= y <= YEAR_HIGH
        ):
            add(m.start(), m.end(), FULL)
    for m in _YEAR4_MONTH.finditer(p):
        y, mo = int(m.group(1)), int(m.group(2))
        if 1 <= mo <= 12 and YEAR_LOW <= y <= YEAR_HIGH:
            add(m.start(), m.end(), FULL)


# --------------------------------------------------------------------------- month names

_MONTH = (
    r"(?:january|february|march|april|may|june|july|august|september|october|november"
    r"|december|sept|jan|feb|mar|apr|jun|jul|aug|sep|oct|nov|dec)"
)
#: Month names and abbreviations as words (a paragraph without one skips these patterns).
MONTH_WORDS = frozenset(_MONTH[3:-1].split("|"))
_ORD = r"(?:st|nd|rd|th)?"
_TO = r" ?(?:(?:-|to|through)+|->) ?"
_YY = r"'?\d{2,4}"

#: (pattern, groups holding day numbers): the program's month-name date shapes.
_MONTH_PATTERNS: tuple[tuple[re.Pattern[str], tuple[int, ...]], ...] = tuple(
    (re.compile(pattern, _I), days)
    for pattern, days in (
        # 5 May 04, 5-May-2004, 5-7 May 04
        (r"\b(\d{1,2})[ \-]?" + _MONTH + r"[ \-,]? ?" + _YY + r"\b", (1,)),
        (r"\b(\d{1,2})" + _TO + r"(\d{1,2})[ \-]?" + _MONTH + r"[ \-,]? ?" + _YY + r"\b", (1, 2)),
        # May 5 04, May 5th, 2004, Apr. 2-5 05
        (r"\b" + _MONTH + r"\b\.?,? ?(\d{1,2})" + _ORD + r" ?[,\s]+ *" + _YY + r"\b", (1,)),
        (r"\b" + _MONTH + r"\b\.? (\d{1,2})" + _TO + r"(\d{1,2})[,\s]+ *" + _YY + r"\b", (1, 2)),
        # May 5, May 5th, May 5-7
        (r"\b" + _MONTH + r"\b\.?,?\s*(\d{1,2})" + _ORD + r"\b", (1,)),
        (r"\b" + _MONTH + r"\b\.?,? ?(\d{1,2})" + _ORD + _TO + r"(\d{1,2})" + _ORD + r"\b", (1, 2)),
        # 5 May, 5th of May, 5-7 May, 5th of May 2004
        (r"\b(\d{1,2})" + _ORD + r"(?: of)?[ \-]\b" + _MONTH + r"\b", (1,)),
        (r"\b(\d{1,2})" + _ORD + r"\s+(?:of\s)?-?\b" + _MONTH + r"\.?,?\s+\d{2,4}\b", (1,)),
        (
            r"\b(\d{1,2})" + _ORD + _TO + r"(\d{1,2})" + _ORD + r"(?: of)?[ \-]\b" + _MONTH + r"\b",
            (1, 2),
        ),
        # May 2004, May of 1999
        (r"\b" + _MONTH + r"\.?,? ?(?:of )?\d{4}\b", ()),
    )
)


def month_name_dates(para: Paragraph, cands: Candidates, lex: MimicLexicon) -> None:
    """Dates with a month name (Table 2.2's "dd month yy" and "month dd yy" rows, and the
    program's shapes without a year or a day, ranges included); days must be 1-31."""
    p = para.text
    if not para.has_digit or not para.mentions(MONTH_WORDS):
        return
    for regex, days in _MONTH_PATTERNS:
        for m in regex.finditer(p):
            if all(1 <= int(m.group(g)) <= 31 for g in days):
                cands.add(m.start(), m.end(), MONTH_NAME)


# --------------------------------------------------------------------------- mm/dd, mm-dd

#: Phrases of change before a number: what follows is a value, not a date.
_CHANGE = re.compile(
    r"\b(?:increased (?:to|from)|decreased from|rose to|fell from|down to|dropped to|dec to"
    r"|changed? to|remains on)\b",
    _I,
)
#: Words directly before a setting, dose or score ("PSV 10/5", "CVP 12-15", "drop 2/5").
_SETTING_BEFORE = (
    r"drop|up|cc|range|ranged|pad|rate|bipap|pap|unload|ventilation|scale|strength|rr|cvp"
    r"|icp|psv|at|with"
)
_BEFORE_GENERAL = re.compile(
    r"\b(?:" + _SETTING_BEFORE + r"|dose|doses|cultures|blood|in|of|svp|pcwp|pcw|bilat"
    r"|srr|vent|peep/ps|flowby|drinks|stage) ?\Z",
    _I,
)
_BEFORE_X5 = re.compile(r"\b(?:" + _SETTING_BEFORE + r"|cpap|ps|in|of) \Z", _I)
_BEFORE_X2 = re.compile(r"\b(?:" + _SETTING_BEFORE + r"|in|of) \Z", _I)
_PSV_BEFORE = re.compile(r"\bpsv? \Z", _I)
#: Units and counts directly after a value ("2-3 tabs", "4/10 pain", "1/2 hour").
_UNITS = (
    r"packs|litres|liters|puffs|mls|pts|patients|range|psv|scale|drinks|beers|per|esophagus"
    r"|tabs|tablets|systolic|sem|strength|times|bottles|drop|drops|up|cc|mg|/hr|/hour|mcg|ug"
    r"|mm|peep|l|hr|hrs|hour|hours|bpm|icp|cpap|years|days|weeks|min|mins|minutes|seconds"
    r"|months|mons|cm|m|sessions|visits|episodes|breaths|wbcs|beat|beats|ns"
)
_AFTER_GENERAL = re.compile(r"\A ?(?:" + _UNITS + r"|units|amp|qd|chest pain|intensity)\b", _I)
_AFTER_SHORT = re.compile(r"\A ?(?:" + _UNITS + r"|dose|doses|cultures|blood)\b", _I)
_AFTER_HOUR = re.compile(r"\A ?(?:hour|hr)\b", _I)
#: Words before "nn/nn" that make it a reading ("cvp 12/15", "40% 5/10", "RR 14/20").
_READING_BEFORE = re.compile(r"\b(?:cvp|noc|rr|pcw)|\w%", _I)
_PARTIAL = re.compile(r"\b([A-Za-z0-9%/]+ +)?(\d\d?)([/\-])(\d\d?)/?/?( +[A-Za-z]+)?\b", _A)
_PARTIAL_CORE = re.compile(r"\d[/\-]\d", _A)
_PRE_WORD_CHAR = re.compile(r"[A-Za-z0-9%/]", _A)
#: Characters of context looked at on each side.
CONTEXT = 12


def probably_date(before: str, after: str) -> bool:
    """No change verb or setting before, no unit or count after: the program's test that
    a number pair is a date (used for mm-dd, mm/dd and mm/yy)."""
    return (
        _CHANGE.search(before) is None
        and _BEFORE_GENERAL.search(before) is None
        and _AFTER_GENERAL.match(after) is None
    )


def partial_dates(para: Paragraph, cands: Candidates, lex: MimicLexicon) -> None:
    """mm/dd, mm-dd and mm/yy without a year, accepted when the context does not make them
    a setting, a score or a dose (see the module docstring).  "x/5" and "x/2" -- the
    commonest ventilator settings and halves -- are checked against their own lists."""
    p = para.text
    if not para.has_digit or _SLASH_OR_DASH.search(p) is None:
        return
    for m in matches_near(_PARTIAL_CORE, _PARTIAL, p, _PRE_WORD_CHAR):
        pre = m.group(1) or ""
        post = m.group(5) or ""
        if _READING_BEFORE.search(pre) or "persantine" in post.lower():
            continue
        start, end = m.start(2), m.end(4)
        begin = p[max(0, start - 2) : start]
        endr = p[end : end + 2]
        if _DIGIT_SEP.search(begin) or endr.startswith("%") or _GLUED_DIGIT.match(endr):
            continue
        first, second = int(m.group(2)), int(m.group(4))
        before = p[max(0, start - CONTEXT) : start]
        after = p[end : end + CONTEXT]
        if valid_date(first, second):
            if second == 5:
                ok = (
                    _CHANGE.search(before) is None
                    and _PSV_BEFORE.search(before) is None
                    and _BEFORE_X5.search(before) is None
                    and _AFTER_SHORT.match(after) is None
                )
            elif second == 2:
                ok = (
                    _CHANGE.search(before) is None
                    and _AFTER_HOUR.match(after) is None
                    and _BEFORE_X2.search(before) is None
                    and _AFTER_SHORT.match(after) is None
                )
            else:
                ok = probably_date(before, after)
            if ok:
                cands.add(start, end, PARTIAL)
        two_digit = len(m.group(4)) == 2
        if 1 <= first <= 12 and two_digit and (second >= 50 or second <= 30):
            if probably_date(before, after):
                cands.add(start, end, PARTIAL)


# --------------------------------------------------------------------------- years

#: Medical events after which a two-digit number is a year ("CABG '84", "MI 99").
_EVENTS = r"embolus|mi|mvr|redo|pacer|ablation|cabg|x2|x3|cholecystectomy|cva|ca|ptca"
#: Words after which a two-digit number is a year: "CABG 84", "MI '99" ...
_EVENTS2 = frozenset((_EVENTS + "|avr|ptc|stent|surgery|since|year").split("|"))
#: ... and after which it is one with the apostrophe glued to the word ("CABG'84").
_EVENTS2_GLUED = frozenset((_EVENTS + "|avr|since|surgery|year").split("|"))
#: Words after which a four-digit number is a year ("MI in 1992", "since 2001").
_EVENTS4 = frozenset((_EVENTS + "|in|since|from|year").split("|"))
#: Numbers that can be years: two digits after a space or an apostrophe, four after a
#: space.  The word before each is then read off backwards -- the same years as trying
#: the event words at every character, found far faster.
_YEAR2 = re.compile(r"(?<=[ '])(\d\d)\b", _A)
_YEAR4 = re.compile(r"(?<= )(\d{4})(?:(,? )(\d{4}))?\b", _A)


def _word_before(p: str, end: int) -> str:
    """The run of letters and digits ending at ``end`` (lower-cased; "" if none)."""
    start = end
    while start > 0 and p[start - 1].isalnum():
        start -= 1
    return p[start:end].lower() if start == 0 or p[start - 1] != "_" else ""


def _spaces_before(p: str, end: int) -> int:
    """Where the run of spaces ending at ``end`` starts."""
    while end > 0 and p[end - 1] == " ":
        end -= 1
    return end


#: Words that can precede a two-digit year (the patterns' words, as paragraph words).
EVENT_WORDS = frozenset(
    (_EVENTS + "|avr|ptc|stent|surgery|since|year").replace("x2", "x").replace("x3", "x").split("|")
)
SEASON_WORDS = frozenset({"winter", "spring", "summer", "autumn", "fall"})
_FOUR_DIGITS = re.compile(r"\d{4}", _A)
_SEASON = re.compile(
    r"\b(?:winter|spring|summer|autumn|fall)(?: +of +)? ?,? ?'?(\d{2}|\d{4})\b", _I
)
_DECIMAL = re.compile(r"[.:]\d")
_DOT_DIGIT = re.compile(r"\.\d")


def years(para: Paragraph, cands: Candidates, lex: MimicLexicon) -> None:
    """Years only in context (Table 2.2, last row): after a medical event, "since", "in",
    "from" (four digits, 1900-2030) or a season ("spring 2004")."""
    p = para.text
    if not para.has_digit:
        return
    add = cands.add
    if para.mentions(EVENT_WORDS):
        for m in _YEAR2.finditer(p):
            s, e = m.span(1)
            quote = s - 1 if p[s - 1] == "'" else s  # "cabg '84"
            spaced = _spaces_before(p, quote)
            if spaced < quote and _word_before(p, spaced) in _EVENTS2:
                if _DOT_DIGIT.match(p, e) is None:
                    add(s, e, YEAR)
                continue
            glued = s
            while glued > 0 and p[glued - 1] == "'":
                glued -= 1
            if glued < s and _word_before(p, glued) in _EVENTS2_GLUED:  # "cabg'84"
                if _DECIMAL.match(p, e) is None:
                    add(s, e, YEAR)
    if _FOUR_DIGITS.search(p) is not None:
        for m in _YEAR4.finditer(p):
            s = m.start(1)
            if YEAR_LOW <= int(m.group(1)) <= YEAR_HIGH and (
                _word_before(p, _spaces_before(p, s)) in _EVENTS4
            ):
                add(s, m.end(1), YEAR)
                if m.group(3):
                    add(m.start(3), m.end(3), YEAR)
    if not para.mentions(SEASON_WORDS):
        return
    for m in _SEASON.finditer(p):
        y = m.group(1)
        if len(y) == 2 or YEAR_LOW < int(y) <= YEAR_HIGH:
            add(m.start(1), m.end(1), YEAR)


HOLIDAY_WORDS = frozenset("christmas thanksgiving easter hannukah hanukkah rosh ramadan".split())
_HOLIDAYS = re.compile(
    r"\b(?:christmas|thanksgiving|easter|hannukah|hanukkah|rosh hashanah|ramadan)\b", _I
)


def holidays(para: Paragraph, cands: Candidates, lex: MimicLexicon) -> None:
    """Holiday names, which date a note as surely as a date does."""
    p = para.text
    if not para.mentions(HOLIDAY_WORDS):
        return
    for m in _HOLIDAYS.finditer(p):
        cands.add(m.start(), m.end(), HOLIDAY)
