"""Throw-away systems and a tiny hand-written corpus for the bench tests.

The systems live in an importable module (not a test file) so joblib and dask workers can
unpickle them by reference.  They are registered only inside tests (see ``conftest.py``)
and must never appear in ``python -m bench list``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import ClassVar

import numpy as np

from corpora.model import OUTSIDE, Corpus, Document, Span
from systems.base import System, SystemUnavailable

_DATE = re.compile(r"^\d{1,2}/\d{1,2}/\d{2,4}$")


class CapitalizedSystem(System):
    """Capitalized words after the first token of a line are PATIENT, dd/mm/yy are DATE."""

    name = "toy-capitals"
    description = "test fixture: capitalized words are PHI"
    requires_training = False

    def __init__(self, label: str = "PATIENT") -> None:
        self.label = label

    def predict(self, documents: Sequence[Document]) -> list[list[str]]:
        out = []
        for doc in documents:
            labels = []
            for tok in doc.tokens:
                if _DATE.match(tok.text):
                    labels.append("DATE")
                elif tok.text[:1].isupper() and tok.text[1:].islower() and tok.index > 0:
                    labels.append(self.label)
                else:
                    labels.append(OUTSIDE)
            out.append(labels)
        return out


class MemorySystem(System):
    """Remembers every word seen as PHI in training (a system that needs training)."""

    name = "toy-memory"
    description = "test fixture: memorized PHI words"
    requires_training = True
    uses_nlp = False  # no POS tags needed: keeps the tests free of NLTK start-up time

    def __init__(self, min_count: int = 1) -> None:
        self.min_count = min_count

    def fit(self, documents: Sequence[Document]) -> MemorySystem:
        counts: dict[str, dict[str, int]] = {}
        for doc in documents:
            for tok in doc.tokens:
                if tok.label != OUTSIDE:
                    by = counts.setdefault(tok.text.lower(), {})
                    by[tok.label] = by.get(tok.label, 0) + 1
        self.memory_ = {
            w: max(by, key=lambda k: by[k])
            for w, by in counts.items()
            if sum(by.values()) >= self.min_count
        }
        return self

    def predict(self, documents: Sequence[Document]) -> list[list[str]]:
        return [[self.memory_.get(t.text.lower(), OUTSIDE) for t in d.tokens] for d in documents]


class VolumeSystem(System):
    """Labels every capitalized word PATIENT once trained on at least ``enough`` documents
    (copies included), and nothing before: a learner that needs data, so that more
    augmentation copies win an inner fold."""

    name = "toy-volume"
    description = "test fixture: needs enough training documents"
    requires_training = True
    uses_nlp = False

    def __init__(self, enough: int = 10) -> None:
        self.enough = enough

    def fit(self, documents: Sequence[Document]) -> VolumeSystem:
        self.trained_on_ = len(documents)
        return self

    def predict(self, documents: Sequence[Document]) -> list[list[str]]:
        ready = self.trained_on_ >= self.enough
        return [
            ["PATIENT" if ready and t.text[:1].isupper() else OUTSIDE for t in d.tokens]
            for d in documents
        ]


class PeopleOnlySystem(CapitalizedSystem):
    """A SNoW-like system scored only on people, locations and organizations."""

    name = "toy-people"
    description = "test fixture: people only"
    evaluated_labels = frozenset({"PATIENT", "DOCTOR", "LOCATION", "HOSPITAL"})


class BrokenSystem(System):
    """Always fails, to check that the others still finish."""

    name = "toy-broken"
    description = "test fixture: raises"
    requires_training = False

    def predict(self, documents: Sequence[Document]) -> list[list[str]]:
        raise RuntimeError("this system is broken on purpose")


class ScoringSystem(MemorySystem):
    """Scores tokens: 2 for a memorized PHI word, 1 for another capitalized word, 0 else;
    PHI above ``threshold``."""

    name = "toy-scoring"
    description = "test fixture: memorized words scored"

    def __init__(self, min_count: int = 1, threshold: float = 1.5) -> None:
        self.min_count = min_count
        self.threshold = threshold

    def score_tokens(self, documents: Sequence[Document]) -> list[np.ndarray]:
        return [
            np.array(
                [
                    2.0 if t.text.lower() in self.memory_ else float(t.text[:1].isupper())
                    for t in d.tokens
                ]
            )
            for d in documents
        ]

    def predict(self, documents: Sequence[Document]) -> list[list[str]]:
        return [
            ["PHI" if s > self.threshold else OUTSIDE for s in scores]
            for scores in self.score_tokens(documents)
        ]


class RecordingSystem(ScoringSystem):
    """A scoring system with a search space that logs the document ids it is given, so a
    test can check which documents reached fitting and labelling."""

    name = "toy-recording"
    description = "test fixture: records what it sees"
    LOG: ClassVar[list[tuple[str, tuple[str, ...]]]] = []

    def search_space(self) -> dict[str, list[object]]:
        return {"min_count": [1, 2]}

    def fit(self, documents: Sequence[Document]) -> RecordingSystem:
        self.LOG.append(("fit", tuple(d.id for d in documents)))
        return super().fit(documents)

    def score_tokens(self, documents: Sequence[Document]) -> list[np.ndarray]:
        self.LOG.append(("label", tuple(d.id for d in documents)))
        return super().score_tokens(documents)


class UnavailableSystem(System):
    """Needs a tool this machine does not have."""

    name = "toy-unavailable"
    description = "test fixture: not installed"
    requires_training = False

    def predict(self, documents: Sequence[Document]) -> list[list[str]]:
        raise SystemUnavailable("toytool is not installed (pip install toytool)")


TOY_SYSTEMS = (
    CapitalizedSystem,
    MemorySystem,
    PeopleOnlySystem,
    BrokenSystem,
    ScoringSystem,
    RecordingSystem,
    UnavailableSystem,
    VolumeSystem,
)

_FIRST = ["John", "Mary", "Peter", "Susan", "Paul", "Linda", "Mark", "Anne", "Karl", "Rita"]
_LAST = ["Smith", "Jones", "Brown", "Clark", "Lewis", "Young", "Hall", "Allen", "King", "Wood"]
_HOSP = ["Mercy", "Grace", "Summit", "Harbor", "Valley"]


def make_document(i: int, *, split: str | None = None, patient: str | None = None) -> Document:
    """One short note with a patient name, a date, a hospital and a doctor."""
    first, last = _FIRST[i % len(_FIRST)], _LAST[(3 * i) % len(_LAST)]
    hosp = _HOSP[i % len(_HOSP)]
    doc_last = _LAST[(i + 5) % len(_LAST)]
    date = f"{1 + i % 12}/{1 + (7 * i) % 28}/0{i % 10}"
    parts: list[tuple[str, str | None]] = [
        ("pt ", None),
        (f"{first} {last}", "PATIENT"),
        (" admitted on ", None),
        (date, "DATE"),
        (" to ", None),
        (hosp, "HOSPITAL"),
        (" hospital.\nseen by dr ", None),
        (doc_last, "DOCTOR"),
        (". bp stable, no distress. plan: continue meds.\n", None),
    ]
    text = ""
    spans = []
    for chunk, cat in parts:
        if cat is not None:
            spans.append(Span(len(text), len(text) + len(chunk), cat))
        text += chunk
    metadata: dict[str, str] = {"split": split} if split else {}
    if patient is not None:
        metadata["patient"] = patient
    return Document(id=f"toy-{i:03d}", text=text, spans=tuple(spans), metadata=metadata)


def make_corpus(
    n: int = 12,
    name: str = "toy",
    *,
    with_split: bool = False,
    notes_per_patient: int | None = None,
    first: int = 0,
) -> Corpus:
    """``n`` toy notes numbered from ``first`` (two corpora of other notes: other
    ``first``); with ``notes_per_patient`` consecutive notes share a patient key."""
    docs = tuple(
        make_document(
            first + i,
            split=("test" if i % 4 == 0 else "train") if with_split else None,
            patient=None if notes_per_patient is None else f"p{i // notes_per_patient}",
        )
        for i in range(n)
    )
    return Corpus(name=name, documents=docs)
