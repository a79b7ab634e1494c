"""What of a failing system's exception may be reported: its type and where it was raised.

A system's exception goes to report.md, run.json and the console, which are meant to be
shared, and a system (often a plug-in) may put note text into its message at any length:
``KeyError: 'Joe'``, ``ValueError: cannot parse date 5/18``, a message in another script
(``李小龍``).  No filter over the message can tell a three-letter name from an English word,
so the message is not reported at all: the exception type and the innermost code location
say which system failed where, and the full message with its traceback goes only to the
owner-only ``--errors`` file.

Kept as written are only the messages the harness or a system's author composed without
note text, because they are instructions (how to install a tool, which resource is
missing): :class:`systems.base.SystemUnavailable` and :class:`systems.base.HarnessError`
(ids, counts and file names only), and a missing NLTK resource.  ``SystemExit`` keeps its
exit status when that is a number.  Control characters are escaped in all of them
(:func:`corpora.model.printable`).
"""

from __future__ import annotations

import traceback
from pathlib import Path

from corpora.model import printable
from corpora.nlp import MissingResourceError
from systems.base import HarnessError, SystemUnavailable

#: Longest reported message; the rest is cut.
MAX_MESSAGE_CHARS = 300
MASK = "…"


def describe(exc: BaseException) -> str:
    """``Type at file.py:line`` (see the module docstring for the messages kept)."""
    if isinstance(exc, SystemUnavailable):
        return _cut(printable(str(exc)))
    tb = traceback.extract_tb(exc.__traceback__)
    where = f" at {Path(tb[-1].filename).name}:{tb[-1].lineno}" if tb else ""
    name = type(exc).__name__
    if isinstance(exc, HarnessError | MissingResourceError):
        return _cut(printable(f"{name}: {exc}")) + printable(where)
    if isinstance(exc, SystemExit) and isinstance(exc.code, int):
        return f"{name}: {exc.code}{printable(where)}"
    return f"{name}{printable(where)}"


def _cut(message: str) -> str:
    message = " ".join(message.split())
    if len(message) > MAX_MESSAGE_CHARS:
        return message[: MAX_MESSAGE_CHARS - 1] + MASK
    return message
