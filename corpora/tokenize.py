"""Tokenization that keeps character offsets, sentence index and section heading.

Clinical notes are fragmented ICU shorthand (Sibanda & Uzuner 2006, §1): a general-purpose
tokenizer splits ``7/22``, ``a&ox3`` or ``Dr.`` into pieces that no longer line up with
PHI spans, and the local-context hypothesis needs the *section* a word sits under as a
feature (§5).  This tokenizer therefore keeps, as single tokens:

* dates and date-like numbers: ``7/22``, ``07-22-2006``, ``120/80``, ``3.9``;
* phone numbers: ``(617) 555-1234`` is three tokens ``(``, ``617``, ``)`` only when spaced;
  ``617-555-1234`` is one;
* shorthand words with inner ``&``, ``/``, ``'``, ``-`` or ``.``: ``a&ox3``, ``s/p``,
  ``Swan-Ganz``, ``Parkinson's``, ``q.o.d.``, ``b.i.d.``;
* number+unit blends such as ``57yo`` or ``20mg``;
* titles with their period (``Dr.``, ``Mr.``, ``Mrs.``);
* runs of one punctuation character (``||||``, ``---``) as one token.

This module cuts text only; :class:`corpora.model.Document` makes the cuts tokens, each
with the gold label of the span it overlaps (else ``O``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

#: Bump whenever tokenization changes: it is part of every document's fingerprint, so all
#: caches keyed by it (POS tags, features, predictions) are invalidated.
TOKENIZER_VERSION = 2

#: Abbreviations whose final period belongs to the word (titles and Latin dosing terms).
ABBREVIATIONS = frozenset(
    """dr mr mrs ms mssrs prof st jr sr sen rev fr hon no vs etc approx pt pts
    jan feb mar apr jun jul aug sep sept oct nov dec mon tue wed thu fri sat sun
    a.m p.m e.g i.e q.d q.o.d b.i.d t.i.d q.i.d q.h.s p.r.n p.o q.h q.a.m q.p.m""".split()
)

_TOKEN_RE = re.compile(
    r"""
      (?P<phone>\(?\d{3}\)?[-.\s]\d{3}[-.]\d{4}\b)           # 617-555-1234, (617) 555-1234
    | (?P<number>\d+(?:[/:.\-,]\d+)+(?:[a-zA-Z]+\b)?)        # 7/22, 07-22-2006, 3.9, 120/80
    | (?P<dotted>(?:[A-Za-z]\.){2,})                          # q.o.d. b.i.d. p.r.n.
    | (?P<word>[\w]+(?:[&/'\u2019\-][\w]+)*)                  # a&ox3 s/p Swan-Ganz 57yo
    | (?P<punct>([^\w\s])\6*)                                 # ||||  ---  single marks
    """,
    re.VERBOSE | re.UNICODE,
)

#: A section heading at the start of a line: "HISTORY OF PRESENT ILLNESS:", "A:", "Neuro:".
_HEADING_RE = re.compile(
    r"^[ \t]*(?P<head>(?:[A-Z][A-Za-z/&]*\.?(?:[ \t]+[A-Za-z/&]+){0,5}))[ \t]*:", re.MULTILINE
)

_SENTENCE_END = frozenset({".", "?", "!", ";"})


def _is_heading(head: str) -> bool:
    """A heading is short and either all caps or at most three words (``Neuro:``, ``P:``)."""
    words = head.split()
    if not words or len(head) > 45:
        return False
    return head.isupper() or len(words) <= 3


def section_starts(text: str) -> list[tuple[int, str]]:
    """Offsets where a section heading starts, with the normalized heading (``"A:"``)."""
    starts = []
    for m in _HEADING_RE.finditer(text):
        head = m.group("head")
        if _is_heading(head):
            starts.append((m.start("head"), " ".join(head.upper().split()) + ":"))
    return starts


def _is_initial(text: str, start: int, end: int) -> bool:
    """``J.`` in ``J. Smith``: a single capital followed by a period and a capitalized word.

    Keeping the period on the initial stops it from ending the sentence, which would cut
    the local-context window exactly where a name starts.
    """
    if end - start != 1 or not text[start].isupper():
        return False
    rest = text[end + 1 : end + 3]
    return len(rest) == 2 and rest[0] == " " and rest[1].isupper()


def _raw_tokens(text: str) -> Iterator[tuple[int, int]]:
    pos, n = 0, len(text)
    search = _TOKEN_RE.search
    while True:
        m = search(text, pos)
        if m is None:
            return
        start, end = m.span()
        kind = m.lastgroup
        if kind == "word" and end < n and text[end] == ".":
            if text[start:end].lower() in ABBREVIATIONS or _is_initial(text, start, end):
                end += 1
        elif kind == "phone" and text[start] == "(" and ")" not in text[start:end]:
            # "(617-555-1234" -- leave the bracket as its own token
            yield start, start + 1
            start += 1
        yield start, end
        pos = end


def token_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of every token of ``text``, as :func:`segments` cuts them -- for code that
    must count or mark tokens of text that is not yet a document (a replacement, a
    substituted phrase)."""
    return list(_raw_tokens(text))


def segments(text: str) -> list[tuple[int, int, int, str]]:
    """(start, end, sentence index, section heading) of every token of ``text``.

    A sentence ends after ``.``, ``?``, ``!``, ``;`` or a word ending in ``:``, and at a
    blank line or a line break before a word that is not lower-case; a token's section is
    the last heading (:func:`section_starts`) at or before it.  :attr:`Document.tokens
    <corpora.model.Document.tokens>` adds the text, gold label and flags."""
    sections = section_starts(text)
    sec_i, section = 0, ""
    out: list[tuple[int, int, int, str]] = []
    sentence = 0
    prev_end = 0
    prev_text = ""
    for start, end in _raw_tokens(text):
        while sec_i < len(sections) and sections[sec_i][0] <= start:
            section = sections[sec_i][1]
            sec_i += 1
        if out:
            gap = text[prev_end:start]
            newlines = gap.count("\n")
            if prev_text in _SENTENCE_END or prev_text.endswith(":"):
                sentence += 1
            elif newlines >= 2 or (newlines == 1 and not text[start].islower()):
                sentence += 1
        out.append((start, end, sentence, section))
        prev_end, prev_text = end, text[start:end]
    return out
