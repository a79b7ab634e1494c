"""Remove document text from a failing system's error message before it is reported.

A system's exception message goes to report.md, run.json and the console, which are meant
to be shared; a system (often a plug-in) may put note text into it -- ``KeyError: 'Smith'``,
``ValueError: cannot parse date 3/14/2004``.  The full message is kept only in the
owner-only ``--errors`` file.  Two rules, chosen to fail safe rather than to read well:

* every quoted string (``'…'``, ``"…"``, ``` `…` ```) is replaced by ``'…'``: Python's own
  messages quote the offending value (``KeyError``, ``int()``, ``float()``, ``repr``), and
  a value a system transformed (lower-cased, joined) no longer matches the notes;
* every run of consecutive words and numbers that each occur in the documents the system
  was given (compared case-insensitively, as whole words) is replaced by ``…`` when the run
  has at least :data:`MIN_SCRUBBED_CHARS` letters and digits: a name, a date such as
  ``3/14/2004`` or an ID goes, a lone short word such as ``of`` stays.

Ordinary English words that also occur in the notes are removed too (``list index out of
range`` may read ``… index …``): the exception type and the code location stay, and the
full message is one ``--errors`` file away.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from corpora.model import Document

#: Runs of note words shorter than this (letters and digits) are kept: ``of``, ``12``.
MIN_SCRUBBED_CHARS = 4
#: Longest reported message (after scrubbing); the rest is cut.
MAX_MESSAGE_CHARS = 300
MASK = "…"

_QUOTED = re.compile(r"""[bruf]?'(?:[^'\\\n]|\\.)*'|[bruf]?"(?:[^"\\\n]|\\.)*"|`[^`\n]*`""")
_PIECE = re.compile(r"[^\W_]+")  # a word or a number (letters/digits, no underscore)


def vocabulary(documents: Iterable[Document]) -> frozenset[str]:
    """Every word and number of the documents, lower-cased."""
    words: set[str] = set()
    for doc in documents:
        words.update(_PIECE.findall(doc.text.lower()))
    return frozenset(words)


def scrub(message: str, vocab: frozenset[str]) -> str:
    """``message`` with quoted strings and runs of note words replaced (see the module)."""
    text = _QUOTED.sub(f"'{MASK}'", message)
    out: list[str] = []
    last = 0  # end of the text already copied to ``out``
    run_start = run_end = -1
    run_chars = 0

    def close_run() -> None:
        nonlocal last
        if run_start >= 0:
            out.append(text[last:run_start])
            out.append(MASK if run_chars >= MIN_SCRUBBED_CHARS else text[run_start:run_end])
            last = run_end

    for m in _PIECE.finditer(text):
        if m.group().lower() in vocab:
            if run_start < 0:
                run_start = m.start()
            run_end, run_chars = m.end(), run_chars + len(m.group())
            continue
        close_run()
        run_start, run_chars = -1, 0
    close_run()
    out.append(text[last:])
    cleaned = " ".join("".join(out).split())
    if len(cleaned) > MAX_MESSAGE_CHARS:
        cleaned = cleaned[: MAX_MESSAGE_CHARS - 1] + MASK
    return cleaned
