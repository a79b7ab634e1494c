"""Candidate PHI, paragraphs, the final check and repeated names: the deid program's frame.

The deid 1.1 program (Neamatullah et al. 2008) works on a note one *paragraph* at a time.
Every rule adds *candidates* -- a character span with one or more *tags* saying which list
or rule proposed it -- and only at the end does a final check decide which candidates are
PHI: a candidate is PHI when at least one of its tags is unambiguous; candidates that only
ambiguous list entries proposed ("Grace" from the ambiguous first names) are PHI only as a
first name directly followed by a last name.  Overlapping candidates are merged first.
After the whole note, words that context rules found to be names (after a title, a name
indicator, before a credential ...) are marked wherever else they occur in the note.

This module holds that frame; the rule families that fill the store live in the sibling
modules.  Spans are character offsets into the note, so the result is projected onto any
tokenization (:func:`label_tokens`).
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING

from corpora.model import OUTSIDE
from systems.mimic_rules.tags import NAME, POPULAR, Tag, mask_of

if TYPE_CHECKING:
    from systems.mimic_rules.lexicon import MimicLexicon


Key = tuple[int, int]


class Candidates:
    """The PHI candidates of one paragraph: span -> tags, in the order they were added."""

    __slots__ = ("spans",)

    def __init__(self) -> None:
        self.spans: dict[Key, list[Tag]] = {}

    def add(self, start: int, end: int, tag: Tag) -> None:
        if start < end:
            tags = self.spans.get((start, end))
            if tags is None:
                self.spans[(start, end)] = [tag]
            elif tag not in tags:
                tags.append(tag)

    def tags(self, start: int, end: int) -> Sequence[Tag]:
        return self.spans.get((start, end), ())

    def has(self, start: int, end: int) -> bool:
        return (start, end) in self.spans

    def is_name(self, start: int, end: int) -> bool:
        return any(t.is_name for t in self.tags(start, end))

    def is_popular_name(self, start: int, end: int) -> bool:
        return any(t.source == "popular" for t in self.tags(start, end))

    def has_part(self, start: int, end: int, part: str) -> bool:
        return any(t.part == part for t in self.tags(start, end))

    def has_label(self, start: int, end: int, label: str) -> bool:
        return any(t.label == label and not t.is_name for t in self.tags(start, end))

    def has_rule(self, start: int, end: int, rule: str) -> bool:
        return any(t.rule == rule for t in self.tags(start, end))


# --------------------------------------------------------------------------- word tests

_CAPITALIZED = re.compile(r"[A-Z][a-z]+\Z")


def probably_name(cands: Candidates, lex: MimicLexicon, start: int, end: int, word: str) -> bool:
    """The program's test for "this word, in a name context, is a name": it is not a common
    word, or it is a listed name that is capitalized ("Grace") or popular."""
    if not lex.is_common(word):
        return True
    mask = mask_of(cands.tags(start, end))
    return bool(mask & POPULAR or (mask & NAME and _CAPITALIZED.match(word) is not None))


# --------------------------------------------------------------------------- paragraphs

_HAS_ALNUM = re.compile(r"[A-Za-z0-9]")
_LOWER_WORD = re.compile(r"[a-z]+")
_DIGIT = re.compile(r"\d")


class Paragraph:
    """One paragraph as the rules see it: its text (line breaks as spaces), the set of its
    lower-cased words and whether it holds a digit.  Each rule family first checks that
    its cue words occur (a set test) before running its patterns -- most paragraphs hold
    no hospital word, no title, no month -- which is what keeps the rules fast."""

    __slots__ = ("has_digit", "text", "words")

    def __init__(self, text: str) -> None:
        self.text = text
        self.words = frozenset(_LOWER_WORD.findall(text.lower()))
        self.has_digit = _DIGIT.search(text) is not None

    def mentions(self, cues: frozenset[str]) -> bool:
        """Some word of ``cues`` occurs in the paragraph."""
        return not self.words.isdisjoint(cues)


def paragraphs(text: str) -> list[tuple[int, int]]:
    """(start, end) of each paragraph of ``text``, the unit the program's rules see.

    A line that is empty or holds no letter or digit starts a new paragraph (it belongs to
    the paragraph it opens); inside a paragraph, line breaks count as spaces (the caller
    replaces them), so a name split across two lines is still found.
    """
    out: list[tuple[int, int]] = []
    start = 0
    pos = 0
    n = len(text)
    while pos <= n:
        nl = text.find("\n", pos)
        end = n if nl < 0 else nl
        if pos > start and _HAS_ALNUM.search(text, pos, end) is None:
            out.append((start, pos))
            start = pos
        if nl < 0:
            break
        pos = nl + 1
    if start < n:
        out.append((start, n))
    return out


def matches_near(
    quick: re.Pattern[str], regex: re.Pattern[str], text: str, word_char: re.Pattern[str]
) -> Iterator[re.Match[str]]:
    """``regex.finditer(text)`` for a pattern that starts with optional words before a
    core that ``quick`` finds: each search starts a little before the next core (at the
    start of a word, ``word_char`` telling word characters) instead of at every character.
    The matches are the same -- the words before a core are far shorter than the
    hundred characters looked back -- and are found in a fraction of the time."""
    pos = 0
    while True:
        core = quick.search(text, pos)
        if core is None:
            return
        start = max(pos, core.start() - 100)
        while start > pos and word_char.match(text, start - 1):
            start -= 1
        m = regex.search(text, start)
        if m is None:
            return
        yield m
        pos = max(m.end(), pos + 1)


# --------------------------------------------------------------------------- final check


def _prune(cands: Candidates) -> list[tuple[int, int, list[Tag]]]:
    """Overlapping (or touching) candidates merged, in text order: of two spans starting
    together the longer wins; a span starting inside another extends it (keeping the first
    one's tags); a span inside another disappears."""
    out: list[tuple[int, int, list[Tag]]] = []
    for (start, end), tags in sorted(cands.spans.items()):
        if out:
            ls, le, ltags = out[-1]
            if start <= le:  # overlapping or touching
                if start > ls:
                    if end > le:
                        out[-1] = (ls, end, ltags)
                elif end >= le:
                    out[-1] = (start, end, tags)
                continue
        out.append((start, end, tags))
    return out


def _pairs_up(
    prev: tuple[int, int, list[Tag]],
    cur: tuple[int, int, list[Tag]],
    prev_adjacent: bool,
    cur_ambiguous: bool,
) -> bool:
    """An ambiguous candidate kept because it forms a first + last name pair with its
    neighbour ("Mae Zanetti", "Zanetti, Mae")."""
    prev_first = any(t.census_first for t in prev[2])
    prev_last = any(t.part == "last" for t in prev[2])
    cur_first = any(t.part == "first" for t in cur[2])
    cur_last = any(t.part == "last" for t in cur[2])
    if prev_adjacent:
        return (prev_first and cur_last) or (not cur_ambiguous and prev_last and cur_first)
    return cur_ambiguous and ((prev_first and cur_last) or (prev_last and cur_first))


def approve(cands: Candidates, text: str, lex: MimicLexicon) -> list[tuple[int, int, list[Tag]]]:
    """The final check of a paragraph: the candidates that are PHI, with the tags that made
    them so (ambiguous tags dropped unless the candidate paired up as a name)."""
    approved: dict[Key, list[Tag]] = {}
    prev: tuple[int, int, list[Tag]] | None = None  # the last ambiguous candidate
    prev_adjacent = False  # ... and it was the candidate just before this one
    for cur in _prune(cands):
        start, end, tags = cur
        ambiguous = not any(not t.ambiguous and not t.blocks for t in tags)
        paired = False
        if prev is not None and start - prev[1] < 3:
            ptext = text[prev[0] : prev[1]]
            if (
                "." not in ptext
                and not lex.is_common(ptext)
                and not lex.is_common(text[start:end])
                and _pairs_up(prev, cur, prev_adjacent, ambiguous)
            ):
                paired = True
                approved[(prev[0], prev[1])] = list(prev[2])
                approved[(start, end)] = list(tags)
        if not paired and not ambiguous:
            approved[(start, end)] = [t for t in tags if not t.ambiguous]
        if ambiguous:
            prev = cur
            prev_adjacent = True
        else:
            prev_adjacent = False
    return [(s, e, tags) for (s, e), tags in sorted(approved.items())]


# --------------------------------------------------------------------------- repeated names

_LETTERS = re.compile(r"[a-z]+")


def _continues_word(c: str) -> bool:
    """A character that continues a word (the regex ``\\w`` in ASCII)."""
    return c.isalnum() or c == "_"


#: Tag of a word marked because a context rule found it to be a name elsewhere in the note.
REPEATED = Tag("name.repeated", "PATIENT", part="name")


def repeated_names(
    text: str, spans: list[tuple[int, int, list[Tag]]], lex: MimicLexicon
) -> list[tuple[int, int, list[Tag]]]:
    """Every other occurrence in the note of a name that a context rule found.

    Words of more than three letters (letters only), not common words, approved with a
    ``strong`` tag ("Dr. Quennell", "daughter Ottavia") are marked wherever they recur as
    whole words; spans already found are kept as they are.
    """
    names: dict[str, str] = {}
    for s, e, tags in spans:
        word = text[s:e].lower()
        if (
            len(word) > 3
            and _LETTERS.fullmatch(word) is not None
            and any(t.strong for t in tags)
            and not lex.is_common(word)
        ):
            label = next((t.label for t in tags if t.strong), "PATIENT")
            names.setdefault(word, label)
    if not names:
        return spans
    starts = {s for s, _, _ in spans}
    extra = []
    lower = text.lower() if text.isascii() else text.encode("ascii", "replace").decode().lower()
    n = len(lower)
    for name, label in names.items():
        tag = REPEATED if label == REPEATED.label else Tag("name.repeated", label, part="name")
        pos = lower.find(name)
        while pos >= 0:
            end = pos + len(name)
            whole = (pos == 0 or not _continues_word(lower[pos - 1])) and (
                end == n or not _continues_word(lower[end])
            )
            if whole and pos not in starts:
                extra.append((pos, end, [tag]))
            pos = lower.find(name, end)
    return sorted(spans + extra, key=lambda x: (x[0], x[1]))


# --------------------------------------------------------------------------- onto tokens


def span_label(tags: Iterable[Tag]) -> Tag:
    """The tag a PHI span is reported with: a clinician's name wins over other name tags
    (a name after "Dr." that is also a census surname is a clinician's), otherwise the
    first tag that proposed the span."""
    tags = list(tags)
    for t in tags:
        if t.label == "DOCTOR":
            return t
    return tags[0]


def label_tokens(
    starts: Sequence[int],
    ends: Sequence[int],
    spans: Iterable[tuple[int, int, list[Tag]]],
    labels: list[str],
    rules: list[str],
) -> None:
    """Label every token overlapping a PHI span (in place; the first span wins)."""
    for s, e, tags in spans:
        i = bisect_right(ends, s)
        j = bisect_left(starts, e)
        if i >= j:
            continue
        tag = span_label(tags)
        for k in range(i, j):
            if labels[k] == OUTSIDE:
                labels[k] = tag.label
                rules[k] = tag.rule
