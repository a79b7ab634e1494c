"""Look-up of every word in the lists (Tafvizi 2011, §2.5.1, §2.5.3, §2.5.4).

The program's first pass over a paragraph: every word -- a run of letters, digits, "_"
and "'" -- that holds a letter is looked up in all loaded lists at once.  A multi-word
entry ("Linden Cross", "Upper Brook", "de la Cruz") matches when its words follow in the text
separated by punctuation or spaces; the longest entry starting at a word wins and the
words inside it are not looked up again.  A word not found is tried again without a
possessive "'s" ("Zanetti's").  Every entry found becomes a candidate with its file's tag:
unambiguous entries are PHI from here on; ambiguous ones wait for a rule to confirm them;
medical phrases ("Bell's palsy") hide the names inside them.
"""

from __future__ import annotations

import re
from itertools import accumulate

from systems.mimic_rules.candidates import Candidates, Paragraph
from systems.mimic_rules.lexicon import MimicLexicon

_SPLIT = re.compile(r"([^A-Za-z0-9_']+)")
_HAS_LETTER = re.compile(r"[A-Za-z']")
#: Items the phrase matcher steps over: separators and numbers ("-" stops it).
_SKIPPABLE = re.compile(r"[A-Za-z'\-]")


def list_entries(para: Paragraph, cands: Candidates, lex: MimicLexicon) -> None:
    """Candidates for every list entry in the paragraph."""
    text = para.text
    items = _SPLIT.split(text)  # words at even indexes, separators between
    known = lex.known
    if text.isascii():  # lower-casing keeps every offset
        lowered = _SPLIT.split(text.lower())[0::2]
    else:
        lowered = [w.lower() for w in items[0::2]]
    hits = [
        k
        for k, w in enumerate(lowered)
        if w in known or ("'" in w and w[-2:] == "'s" and w[:-2] in known)
    ]
    if not hits:
        return
    offsets = [0, *accumulate(map(len, items))]
    words = lex.words
    phrases = lex.phrases
    resume = 0  # items inside a matched phrase are not looked up again
    for k in hits:
        i = 2 * k
        if i < resume or _HAS_LETTER.search(items[i]) is None:
            continue
        low = lowered[k]
        start, end = offsets[i], offsets[i + 1]
        tags = words.get(low)
        head = low
        if tags is None and low not in phrases and low.endswith("'s"):
            head = low[:-2]
            tags = words.get(head)
        options = phrases.get(head)
        if options:
            hit = _phrase(items, i + 1, end, options)
            if hit is not None:
                phrase_end, consumed, ptags = hit
                for tag in ptags:
                    cands.add(start, phrase_end, tag)
                resume = i + 1 + consumed
                continue
        if tags:
            for tag in tags:
                cands.add(start, end, tag)


def _phrase(
    items: list[str], i: int, pos: int, options: list[tuple[tuple[str, ...], tuple]]
) -> tuple[int, int, tuple] | None:
    """The longest multi-word entry whose remaining words follow item ``i - 1``: (end
    offset, items consumed, tags), or ``None``."""
    n = len(items)
    for rest, tags in options:
        j = i
        end = pos
        ok = True
        for word in rest:
            # next item with a letter, "'" or "-" (separators and numbers are skipped)
            while j < n and _SKIPPABLE.search(items[j]) is None:
                end += len(items[j])
                j += 1
            if j >= n or items[j].lower() != word:
                ok = False
                break
            end += len(items[j])
            j += 1
        if ok:
            return end, j - i, tags
    return None
