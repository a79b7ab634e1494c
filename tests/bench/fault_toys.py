"""Systems that fail in the ways a real one can: die, exit, or leak note text in a message.

An importable module (not a test file) so joblib workers can unpickle the classes; they
are registered only inside the tests that use them.
"""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Sequence

from corpora.model import OUTSIDE, Document
from systems.base import System

#: The test process's pid: the killer dies only in a worker process, never in the test.
ENV_MAIN_PID = "DEID_BENCH_TEST_MAIN_PID"


class KillerSystem(System):
    """Kills its own process with SIGKILL (as the out-of-memory killer would) in a worker."""

    name = "toy-killer"
    description = "test fixture: its worker process dies"
    requires_training = False
    uses_nlp = False

    def predict(self, documents: Sequence[Document]) -> list[list[str]]:
        if str(os.getpid()) != os.environ.get(ENV_MAIN_PID):
            os.kill(os.getpid(), signal.SIGKILL)
        raise RuntimeError("the killer runs only in worker processes")


class ExitSystem(System):
    """Calls ``sys.exit`` (as a command-line tool wrapped as a library might)."""

    name = "toy-exit"
    description = "test fixture: calls sys.exit"
    requires_training = False
    uses_nlp = False

    def predict(self, documents: Sequence[Document]) -> list[list[str]]:
        sys.exit(3)


class LeakySystem(System):
    """Raises with note text in its message: quoted, and bare."""

    name = "toy-leaky"
    description = "test fixture: raises with note text in the message"
    requires_training = False
    uses_nlp = False

    def predict(self, documents: Sequence[Document]) -> list[list[str]]:
        doc = documents[0]
        names = " ".join(doc.text[s.start : s.end] for s in doc.spans)
        raise ValueError(f"cannot label {doc.text[:30]!r}: unexpected {names} in note")


class FineSystem(System):
    """Labels nothing: a system that always finishes."""

    name = "toy-fine"
    description = "test fixture: never fails"
    requires_training = False
    uses_nlp = False

    def predict(self, documents: Sequence[Document]) -> list[list[str]]:
        return [[OUTSIDE] * len(d.tokens) for d in documents]


#: Short note words of the kinds a word filter keeps: a three-letter name, a name in
#: another script, an age and a date without a year.
SHORT_WORDS = ("Joe", "李小龍", "93", "5/18")


class ShortLeakySystem(System):
    """Raises with short note words in its message (the kind a filter of long runs of
    note words would keep)."""

    name = "toy-short-leaky"
    description = "test fixture: raises with short note words in the message"
    requires_training = False
    uses_nlp = False

    def predict(self, documents: Sequence[Document]) -> list[list[str]]:
        raise KeyError(" ".join(SHORT_WORDS))


FAULT_SYSTEMS = (KillerSystem, ExitSystem, LeakySystem, FineSystem, ShortLeakySystem)


def square_or_die(x: int) -> int:
    """``x * x``, except that ``x < 0`` kills the worker process running it."""
    if x < 0 and str(os.getpid()) != os.environ.get(ENV_MAIN_PID):
        os.kill(os.getpid(), signal.SIGKILL)
    return x * x

