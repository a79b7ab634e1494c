"""Surrogate PHI: realistic fake values in the formats of Sibanda & Uzuner (2006, §3).

The paper re-identified a corpus by replacing every ``[REMOVED]`` with a dictionary
surrogate of the right category, written in one of several formats: names as
"Mr. F. Lastname", "Firstname Lastname", "Lastname", "F. M. Lastname"; dates as
"dd/mm/yy", "dd MonthName, yyyy", "ddth of MonthName, yyyy", ...  This module holds what
both the default-corpus generator (:mod:`corpora.generator`) and the corpus variants
(:mod:`corpora.variants`) need for that:

* :class:`Pools` -- the generation-side word lists (:func:`surrogate_dictionaries`, which
  the systems never see), in a fixed order so a seed always gives the same draws;
* :class:`SurrogateFactory` -- new values per category, and shape-keeping replacements of
  existing PHI text (same name format and capitalization, same date format shifted by a
  per-document offset, same digit/letter pattern for IDs and phones), consistent within a
  document;
* :func:`parse_date` / :func:`render_date` -- the date formats;
* :func:`replace_spans` -- rebuild a document with new span texts and exact new offsets.
"""

from __future__ import annotations

import bisect
import datetime as dt
import random
import re
import string
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from corpora.dictionaries import SAINTS, gazetteer, surrogate_dictionaries
from corpora.model import Document, Mark, Span
from infra.memo import memoize

MONTH_NAMES = (
    "January February March April May June July August September October November December"
).split()
MONTH_ABBR = [m[:3] for m in MONTH_NAMES]
_MONTH_INDEX = {m.lower(): i + 1 for i, m in enumerate(MONTH_NAMES)}
_MONTH_INDEX.update({m.lower(): i + 1 for i, m in enumerate(MONTH_ABBR)})
_MONTH_INDEX["sept"] = 9

#: Generic words of hospital names, kept by the unseen variant (Table 10 counts only the
#: name words of hospitals as "not in dictionary").
HOSPITAL_WORDS = frozenset(
    """hospital hospitals medical center centre clinic clinics health healthcare general
    memorial regional community university rehab rehabilitation institute infirmary
    nursing home house care unit va vamc st st. saint of the and county state
    children's women's cancer heart""".split()
)
HOSPITAL_PATTERNS = (
    "{city} General Hospital",
    "{city} Medical Center",
    "{city} Community Hospital",
    "{city} Regional Medical Center",
    "{last} Memorial Hospital",
    "{last} Clinic",
    "St. {saint}'s Hospital",
    "Saint {saint}'s Medical Center",
    "{city} Rehabilitation Hospital",
    "{last} Health Center",
    "{city} VA Medical Center",
    "{city} Nursing Home",
    "{last} House",
    "{city} General",
    "{city} Hospital",
)


def titlecase(word: str) -> str:
    """``o'brien`` -> ``O'Brien``, ``new york`` -> ``New York``, ``mcdonald`` -> ``Mcdonald``."""
    return re.sub(r"[a-z]+", lambda m: m.group(0).capitalize(), word.lower())


@dataclass(frozen=True)
class Pools:
    """Sorted generation-side lists (title-cased) for reproducible draws."""

    female: tuple[str, ...]
    male: tuple[str, ...]
    last: tuple[str, ...]
    cities: tuple[str, ...]
    states: tuple[str, ...]


@memoize("surrogates.pools", max_entries=1)
def default_pools() -> Pools:
    """Pools from :func:`corpora.dictionaries.surrogate_dictionaries` (frequency-ordered)."""
    from corpora.dictionaries import census_names

    d = surrogate_dictionaries()
    census = census_names()
    geo = gazetteer()
    last = tuple(titlecase(n) for n in census["last_names"] if n in d.get("last_names"))
    cities = tuple(c for c in geo["us_cities"] if c.isascii() and len(c.split()) <= 3)
    return Pools(
        female=tuple(titlecase(n) for n in census["female_first_names"]),
        male=tuple(titlecase(n) for n in census["male_first_names"]),
        last=last[:5000],
        cities=cities[:1500],
        states=geo["us_states"],
    )


# ----------------------------------------------------------------------------- casing


_NOT_ASCII_LETTER = re.compile(r"[^A-Za-z]+")


def case_style(text: str) -> str:
    """``upper``, ``lower`` or ``mixed`` -- the capitalization a replacement must copy."""
    if text.isascii():  # the common case, without a per-character loop
        ascii_letters = _NOT_ASCII_LETTER.sub("", text)
        if len(ascii_letters) > 1 and ascii_letters.isupper():
            return "upper"
        return "lower" if ascii_letters and ascii_letters.islower() else "mixed"
    letters = [c for c in text if c.isalpha()]
    if letters and all(c.isupper() for c in letters) and len(letters) > 1:
        return "upper"
    if letters and all(c.islower() for c in letters):
        return "lower"
    return "mixed"


def apply_case(text: str, style: str) -> str:
    if style == "upper":
        return text.upper()
    if style == "lower":
        return text.lower()
    return text


# ----------------------------------------------------------------------------- dates

#: Date formats: name -> (regex, renderer).  Renderers take a date and return text.
_DAY = r"(?P<d>[0-3]?\d)"
_MON = r"(?P<m>[01]?\d)"
_YEAR4 = r"(?P<y>(?:19|20)\d\d)"
_YEAR2 = r"(?P<yy>\d\d)"
_MNAME = r"(?P<mn>[A-Za-z]{3,9}\.?)"
_ORD = r"(?:st|nd|rd|th)"


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


DATE_FORMATS: dict[str, tuple[str, Callable[[dt.date], str]]] = {
    "m/d/yyyy": (rf"{_MON}/{_DAY}/{_YEAR4}", lambda d: f"{d.month}/{d.day}/{d.year}"),
    "mm/dd/yyyy": (rf"{_MON}/{_DAY}/{_YEAR4}", lambda d: f"{d:%m/%d/%Y}"),
    "m/d/yy": (rf"{_MON}/{_DAY}/{_YEAR2}", lambda d: f"{d.month}/{d.day}/{d:%y}"),
    "mm/dd/yy": (rf"{_MON}/{_DAY}/{_YEAR2}", lambda d: f"{d:%m/%d/%y}"),
    "dd/mm/yy": (rf"{_DAY}/{_MON}/{_YEAR2}", lambda d: f"{d:%d/%m/%y}"),
    "m/d": (rf"{_MON}/{_DAY}", lambda d: f"{d.month}/{d.day}"),
    "mm-dd-yyyy": (rf"{_MON}-{_DAY}-{_YEAR4}", lambda d: f"{d:%m-%d-%Y}"),
    "yyyy-mm-dd": (rf"{_YEAR4}-{_MON}-{_DAY}", lambda d: f"{d:%Y-%m-%d}"),
    "Month d, yyyy": (
        rf"{_MNAME} {_DAY},? {_YEAR4}",
        lambda d: f"{MONTH_NAMES[d.month - 1]} {d.day}, {d.year}",
    ),
    "dd Month, yyyy": (
        rf"{_DAY} {_MNAME},? {_YEAR4}",
        lambda d: f"{d.day:02d} {MONTH_NAMES[d.month - 1]}, {d.year}",
    ),
    "ddth of Month, yyyy": (
        rf"{_DAY}{_ORD} of {_MNAME},? {_YEAR4}",
        lambda d: f"{_ordinal(d.day)} of {MONTH_NAMES[d.month - 1]}, {d.year}",
    ),
    "Month dth": (
        rf"{_MNAME} {_DAY}{_ORD}",
        lambda d: f"{MONTH_NAMES[d.month - 1]} {_ordinal(d.day)}",
    ),
    "Mon d": (rf"{_MNAME} {_DAY}", lambda d: f"{MONTH_ABBR[d.month - 1]} {d.day}"),
    "Month yyyy": (rf"{_MNAME} {_YEAR4}", lambda d: f"{MONTH_NAMES[d.month - 1]} {d.year}"),
    "Month": (_MNAME, lambda d: MONTH_NAMES[d.month - 1]),
    "yyyy": (_YEAR4, lambda d: str(d.year)),
}
_DATE_RES = {k: re.compile(rf"^{rx}$", re.IGNORECASE) for k, (rx, _) in DATE_FORMATS.items()}
#: Formats the generator writes, with weights (numeric short forms dominate real notes).
GENERATED_DATE_FORMATS: dict[str, float] = {
    "m/d": 6,
    "m/d/yy": 3,
    "mm/dd/yyyy": 3,
    "m/d/yyyy": 2,
    "dd/mm/yy": 0.5,
    "mm-dd-yyyy": 1,
    "yyyy-mm-dd": 0.5,
    "Month d, yyyy": 2,
    "dd Month, yyyy": 1,
    "ddth of Month, yyyy": 0.7,
    "Month dth": 0.7,
    "Mon d": 1,
    "Month yyyy": 0.6,
    "yyyy": 0.8,
}


def parse_date(text: str, *, reference_year: int = 2005) -> tuple[dt.date, str] | None:
    """The date and its format name, or None if ``text`` is in no known format.

    ``m/d`` is tried before ``dd/mm/yy`` style readings; a partial date takes the
    reference year (and day 1 / month 7 where missing).
    """
    text = text.strip()
    for name, rx in _DATE_RES.items():
        m = rx.match(text)
        if not m:
            continue
        g = m.groupdict()
        try:
            month = int(g["m"]) if g.get("m") else None
            if g.get("mn"):
                month = _MONTH_INDEX.get(g["mn"].rstrip(".").lower())
                if month is None:
                    continue
            year = int(g["y"]) if g.get("y") else None
            if g.get("yy"):
                yy = int(g["yy"])
                year = 2000 + yy if yy < 40 else 1900 + yy
            day = int(g["d"]) if g.get("d") else 1
            if month is None:
                month = 7
            return dt.date(year or reference_year, month, day), name
        except ValueError:
            continue
    return None


def render_date(date: dt.date, fmt: str) -> str:
    return DATE_FORMATS[fmt][1](date)


# ----------------------------------------------------------------------------- shapes


def reshape(text: str, rng: random.Random) -> str:
    """Random digits and letters in the shape of ``text`` (punctuation kept)."""
    out = []
    for c in text:
        if c.isdigit():
            out.append(rng.choice(string.digits))
        elif c.isupper():
            out.append(rng.choice(string.ascii_uppercase))
        elif c.islower():
            out.append(rng.choice(string.ascii_lowercase))
        else:
            out.append(c)
    return "".join(out)


#: Per-document date shifts in days (never a near no-op).
_SHIFTS = tuple(d for d in range(-400, 401) if abs(d) > 20)
_NAME_TOKEN = re.compile(r"[A-Za-z][A-Za-z'\-]*\.?|[^A-Za-z\s]+")


class SurrogateFactory:
    """Draws surrogate PHI and replaces PHI text, consistently within one document.

    One factory per document: it remembers every name part, place and number it has
    replaced, so "Smith" and "John Smith" become "Jones" and "Mark Jones" throughout the
    note, and it shifts all dates of the note by the same number of days (§3).
    """

    def __init__(self, rng: random.Random, pools: Pools | None = None) -> None:
        self.rng = rng
        self.pools = pools or default_pools()
        self.shift = dt.timedelta(days=rng.choice(_SHIFTS))
        self.memory: dict[tuple[str, str], str] = {}

    # -- new values -------------------------------------------------------------------
    def first_name(self, sex: str | None = None) -> str:
        sex = sex or self.rng.choice("FM")
        pool = self.pools.female if sex == "F" else self.pools.male
        return pool[int(len(pool) * self.rng.random() ** 2.5)]

    def last_name(self) -> str:
        pool = self.pools.last
        return pool[int(len(pool) * self.rng.random() ** 2)]

    def city(self) -> str:
        pool = self.pools.cities
        return pool[int(len(pool) * self.rng.random() ** 2)]

    def state(self) -> str:
        return self.rng.choice(self.pools.states)

    def hospital(self) -> str:
        pattern = self.rng.choice(HOSPITAL_PATTERNS)
        return pattern.format(
            city=self.city(), last=self.last_name(), saint=self.rng.choice(SAINTS)
        )

    def date(self, fmt: str | None = None, year_range: tuple[int, int] = (1998, 2012)) -> str:
        if fmt is None:
            names, weights = zip(*GENERATED_DATE_FORMATS.items(), strict=True)
            fmt = self.rng.choices(names, weights)[0]
        day = dt.date(self.rng.randint(*year_range), 1, 1) + dt.timedelta(
            days=self.rng.randrange(365)
        )
        return render_date(day, fmt)

    def digits(self, n: int) -> str:
        return "".join(self.rng.choice(string.digits) for _ in range(n))

    def phone(self) -> str:
        area = self.rng.choice(["617", "508", "781", "978", "413", "401", "603", "212", "860"])
        form = self.rng.choice(["{a}-{b}-{c}", "({a}) {b}-{c}", "{a}.{b}.{c}", "{b}-{c}"])
        return form.format(a=area, b=f"{self.rng.randint(200, 999)}", c=self.digits(4))

    # -- replacements -----------------------------------------------------------------
    def _remember(self, kind: str, original: str, make: Callable[[], str]) -> str:
        key = (kind, original.lower())
        if key not in self.memory:
            self.memory[key] = make()
        return self.memory[key]

    def replace_name(
        self,
        text: str,
        first: Callable[[], str] | None = None,
        last: Callable[[], str] | None = None,
    ) -> str:
        """A person name in the same format ("F. M. Last", "Last, First", ...) and case."""
        first = first or self.first_name
        last = last or self.last_name
        parts = _NAME_TOKEN.findall(text)
        words = [p for p in parts if p[0].isalpha()]
        out = []
        n_words = len(words)
        seen = 0
        comma_form = "," in text
        for p in parts:
            if not p[0].isalpha():
                out.append(p)
                continue
            seen += 1
            core = p.rstrip(".")
            if len(core) == 1:  # an initial: keep it an initial
                new = self._remember("initial", core, lambda: self.rng.choice("ABCDEFGHJKLMPRST"))
            else:
                # Last word is the surname, unless "Last, First" (then the first word is).
                is_last = (seen == 1) if comma_form else (seen == n_words)
                if n_words == 1:
                    is_last = True
                kind = "last" if is_last else "first"
                make = last if is_last else first
                new = self._remember(kind, core, make)
            out.append(apply_case(new, case_style(core)) + p[len(core) :])
        return _join_like(text, parts, out)

    def replace_location(self, text: str, make: Callable[[], str] | None = None) -> str:
        if make is None:
            make = self.state if text.lower() in _lower_set(self.pools.states) else self.city
        return apply_case(self._remember("location", text, make), case_style(text))

    def replace_hospital(self, text: str, make: Callable[[], str] | None = None) -> str:
        style = case_style(text)
        if " " not in text.strip() and style == "upper" and len(text) <= 6:
            new = self._remember("hospital", text, lambda: reshape(text, self.rng))
            return new
        return apply_case(self._remember("hospital", text, make or self.hospital), style)

    def replace_date(self, text: str) -> str:
        parsed = parse_date(text)
        if parsed is None:
            return self._remember("date", text, lambda: reshape(text, self.rng))
        date, fmt = parsed
        new = render_date(date + self.shift, fmt)
        if new.lower() == text.lower():  # a year or month alone: move it visibly
            step = dt.timedelta(days=366 if fmt == "yyyy" else 31)
            new = render_date(date + self.shift + (step if self.shift.days > 0 else -step), fmt)
        return apply_case(new, case_style(text)) if not text[:1].isdigit() else new

    def replace_number(self, text: str, kind: str) -> str:
        return self._remember(kind, text, lambda: reshape(text, self.rng))

    def replace_age(self, text: str) -> str:
        digits = re.sub(r"\D", "", text)
        if not digits:
            return text
        new = str(self.rng.randint(90, 104))
        return text.replace(digits, new, 1)

    def replace(self, category: str, text: str) -> str:
        """Dispatch on the category (the surrogate variant's replacement)."""
        if category in ("PATIENT", "DOCTOR"):
            return self.replace_name(text)
        if category == "LOCATION":
            return self.replace_location(text)
        if category == "HOSPITAL":
            return self.replace_hospital(text)
        if category == "DATE":
            return self.replace_date(text)
        if category in ("ID", "PHONE"):
            return self.replace_number(text, category)
        if category == "AGE":
            return self.replace_age(text)
        return self.replace_number(text, "OTHER")


@memoize("surrogates.lower_sets", max_entries=8)
def _lower_set(words: tuple[str, ...]) -> frozenset[str]:
    return frozenset(w.lower() for w in words)


def _join_like(text: str, parts: Sequence[str], new_parts: Sequence[str]) -> str:
    """Put ``new_parts`` back into the white space and punctuation layout of ``text``."""
    out, pos = [], 0
    for old, new in zip(parts, new_parts, strict=True):
        i = text.index(old, pos)
        out.append(text[pos:i])
        out.append(new)
        pos = i + len(old)
    out.append(text[pos:])
    return "".join(out)


def replace_spans(
    document: Document,
    replacements: Mapping[Span, str],
    *,
    extra_marks: Sequence[Mark] = (),
    drop_flags: frozenset[str] = frozenset(),
    append: str = "",
    metadata: Mapping[str, object] | None = None,
) -> Document:
    """A copy of ``document`` with the given spans' text replaced and offsets recomputed.

    Text outside the replaced spans is untouched; a mark inside a replaced span is
    stretched over the replacement, other marks move with their text.  ``extra_marks``
    are in the *new* offsets; marks whose flag is in ``drop_flags`` are removed (they are
    recomputed by the caller).  ``append`` is added at the end of the text.
    """
    text = document.text
    pieces: list[str] = []
    pos = 0
    new_spans: list[Span] = []
    # (old_start, old_end, delta_before, new_start, new_end) per replaced span
    moves: list[tuple[int, int, int, int, int]] = []
    delta = 0
    for span in document.spans:
        new = replacements.get(span)
        pieces.append(text[pos : span.start])
        start = span.start + delta
        if new is None:
            new = text[span.start : span.end]
        pieces.append(new)
        end = start + len(new)
        moves.append((span.start, span.end, delta, start, end))
        new_spans.append(Span(start, end, span.category))
        delta += len(new) - (span.end - span.start)
        pos = span.end
    pieces.append(text[pos:])
    new_text = "".join(pieces) + append

    def shift(offset: int, is_end: bool) -> int:
        d = 0
        for old_s, old_e, d_before, new_s, new_e in moves:
            if offset < old_s or (is_end and offset == old_s):
                return offset + d
            if offset < old_e or (is_end and offset == old_e):
                return new_s if not is_end else new_e
            d = d_before + (new_e - new_s) - (old_e - old_s)
        return offset + d

    marks = [
        Mark(shift(m.start, False), shift(m.end, True), m.flag)
        for m in document.marks
        if m.flag not in drop_flags
    ]
    marks = [m for m in marks if m.end > m.start]
    return Document(
        id=document.id,
        text=new_text,
        spans=tuple(new_spans),
        marks=tuple(sorted(set(marks) | set(extra_marks))),
        metadata=dict(document.metadata if metadata is None else metadata),
    )


def edit_text(
    document: Document, edits: Sequence[tuple[int, int, str]], *, metadata_key: str = ""
) -> Document:
    """A copy of ``document`` with each ``(start, end, text)`` edit applied: the old text
    between ``start`` and ``end`` replaced by ``text`` (``start == end`` inserts).  Edits
    never overlap each other or a span; spans and marks move with their text, and a mark an
    edit overlaps is dropped (what it marked is gone).

    At one offset an insertion goes after a span that ends there and before one that starts
    there.  With ``metadata_key``, the edited stretches (new offsets, ``[start, end]``
    pairs) are recorded under that metadata key, so what was changed stays visible.
    """
    ordered = sorted(edits, key=lambda e: (e[0], e[1]))
    _check_edits(document, ordered)
    text = document.text
    pieces: list[str] = []
    changed: list[list[int]] = []
    pos = delta = 0
    for start, end, new in ordered:
        pieces += [text[pos:start], new]
        changed.append([start + delta, start + delta + len(new)])
        delta += len(new) - (end - start)
        pos = end
    pieces.append(text[pos:])
    starts = [e[0] for e in ordered]
    ends = [e[1] for e in ordered]
    cumulative = [0]
    for start, end, new in ordered:
        cumulative.append(cumulative[-1] + len(new) - (end - start))

    def shift(offset: int, is_end: bool) -> int:
        # edits wholly before ``offset``; an insertion at an end stays after it
        k = bisect.bisect_right(ends, offset)
        if is_end:
            k = min(k, bisect.bisect_left(starts, offset))
        return offset + cumulative[k]

    metadata = dict(document.metadata)
    if metadata_key:
        metadata[metadata_key] = [*metadata.get(metadata_key, ()), *changed]
    kept = [m for m in document.marks if not any(s < m.end and m.start < e for s, e, _ in ordered)]
    return Document(
        id=document.id,
        text="".join(pieces),
        spans=tuple(
            Span(shift(s.start, False), shift(s.end, True), s.category) for s in document.spans
        ),
        marks=tuple(Mark(shift(m.start, False), shift(m.end, True), m.flag) for m in kept),
        metadata=metadata,
    )


def _check_edits(document: Document, ordered: Sequence[tuple[int, int, str]]) -> None:
    """Raise ValueError for an edit outside the text, overlapping another, or in a span."""
    previous_end = 0
    for start, end, _ in ordered:
        if not 0 <= start <= end <= len(document.text):
            raise ValueError(f"edit {start}-{end} outside the text")
        if start < previous_end:
            raise ValueError(f"edit at {start}-{end} overlaps the edit before it")
        previous_end = end
        for span in document.spans:
            if (span.start < end and start < span.end) or span.start < start < span.end:
                raise ValueError(f"edit at {start}-{end} inside span {span.start}-{span.end}")
