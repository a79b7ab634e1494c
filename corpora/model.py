"""The token interface: the one data model every reader, system and metric shares.

Why one module: readers produce :class:`Document` objects, variants transform them, the
tokenizer turns them into :class:`Token` sequences, systems return one label per token and
metrics compare those labels with the gold ones.  Keeping the label set, the span type and
the error type here means a new reader, system or metric touches exactly one other file.

The label set follows the i2b2 2006 challenge used by Sibanda & Uzuner (2006, §3): PATIENT,
DOCTOR, LOCATION, HOSPITAL, DATE, ID, PHONE, AGE, plus OTHER for sources (PhysioNet,
i2b2 2014) that have PHI outside those eight.  Each reader documents how its source's
categories map onto it.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from corpora.tokenize import TOKENIZER_VERSION, segments

#: The harness's PHI categories (Sibanda & Uzuner 2006, §3; i2b2 2006).
LABELS: tuple[str, ...] = (
    "PATIENT",
    "DOCTOR",
    "LOCATION",
    "HOSPITAL",
    "DATE",
    "ID",
    "PHONE",
    "AGE",
    "OTHER",
)
#: Label of a token that is not PHI.
OUTSIDE = "O"
#: Label a binary (PHI vs non-PHI) system may emit when it does not know the category.
PHI = "PHI"
#: Every label a system may predict.
PREDICTABLE_LABELS: frozenset[str] = frozenset((*LABELS, OUTSIDE, PHI))

#: Token flags set by the corpus variants (Sibanda & Uzuner 2006, §6.2-6.3).
FLAG_AMBIGUOUS = "ambiguous"
FLAG_NOT_IN_DICTIONARY = "not_in_dictionary"

#: Subsets of categories used by the paper's comparisons.
PEOPLE_LOCATIONS_ORGANIZATIONS: frozenset[str] = frozenset(
    {"PATIENT", "DOCTOR", "LOCATION", "HOSPITAL"}
)


#: C0 and C1 control characters, DEL, and the Unicode line/paragraph separators and
#: bidirectional overrides: bytes a terminal acts on (clear the screen, retitle the window)
#: or that reorder what a reader sees.
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def printable(text: str, keep: str = "") -> str:
    """``text`` with every control character but those in ``keep`` (``"\\n"`` for a
    multi-line table) written as an escape (``\\x1b``, ``\\n``).

    Everything the harness prints or writes into a report may hold a file name, a record
    id or a system's name taken from a file: a crafted one could otherwise drive the
    terminal (an escape sequence that clears the screen) or break a report line.
    """
    def escape(m: re.Match[str]) -> str:
        ch = m.group()
        return ch if ch in keep else ch.encode("unicode_escape").decode("ascii")

    return _CONTROL.sub(escape, text)


def is_phi(label: str) -> bool:
    """True for any label other than ``O`` -- the binary view of the paper's tables."""
    return label != OUTSIDE


class CorpusError(ValueError):
    """Bad input in a corpus file, located precisely enough for a user to fix it.

    Readers raise only this type so the CLI can print one line (file, record, offset,
    reason) instead of a traceback, and ``--lenient`` can skip the record.
    """

    def __init__(
        self,
        reason: str,
        *,
        file: str | None = None,
        record: str | None = None,
        offset: int | None = None,
    ) -> None:
        self.reason = reason
        self.file = file
        self.record = record
        self.offset = offset
        super().__init__(str(self))

    def __str__(self) -> str:
        where = []
        if self.file is not None:
            where.append(f"file {self.file}")
        if self.record is not None:
            where.append(f"record {self.record}")
        if self.offset is not None:
            where.append(f"offset {self.offset}")
        location = ", ".join(where)
        return printable(f"{location}: {self.reason}" if location else self.reason)


@dataclass(frozen=True, slots=True, order=True)
class Span:
    """A gold PHI phrase: half-open character offsets into :attr:`Document.text`."""

    start: int
    end: int
    category: str


@dataclass(frozen=True, slots=True, order=True)
class Mark:
    """A flagged stretch of text (e.g. an ambiguous word), PHI or not.

    Variants use marks so metrics can score "ambiguous tokens only" (Table 9) or "PHI not
    in a dictionary" (Table 13) without systems ever seeing the flags.
    """

    start: int
    end: int
    flag: str


@dataclass(frozen=True, slots=True)
class Token:
    """One token with the context the paper's local-context features need."""

    text: str
    start: int
    end: int
    index: int
    sentence: int
    section: str
    label: str = OUTSIDE
    flags: frozenset[str] = frozenset()

    def __reduce__(self) -> tuple[type[Token], tuple[Any, ...]]:
        """Pickled as its constructor's arguments.  A document sent to a worker carries its
        tokens, and the state functions a slotted dataclass generates call ``fields()`` for
        every token: 70 of 2,023 worker-seconds of a tuned PhysioNet run (docs/speed.md)."""
        return (
            Token,
            (
                self.text,
                self.start,
                self.end,
                self.index,
                self.sentence,
                self.section,
                self.label,
                self.flags,
            ),
        )


@dataclass(frozen=True)
class Document:
    """A note: its text, its gold PHI spans and optional metadata.

    Frozen so a document can be shared by every system and fold; derived views (tokens,
    fingerprint) are computed once and cached on the instance.
    """

    id: str
    text: str
    spans: tuple[Span, ...] = ()
    marks: tuple[Mark, ...] = ()
    metadata: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "spans", tuple(sorted(self.spans)))
        object.__setattr__(self, "marks", tuple(sorted(self.marks)))

    @cached_property
    def tokens(self) -> tuple[Token, ...]:
        """The document's tokens with gold labels (tokenized once, then cached)."""
        return tuple(_labelled_tokens(self))

    @cached_property
    def fingerprint(self) -> str:
        """A content hash: the cache key for everything computed from this document.

        It includes the tokenizer's version, because every cached artefact (POS tags,
        features, per-fold predictions) is aligned with the tokens.
        """
        h = hashlib.blake2b(digest_size=16)
        h.update(f"tokenizer={TOKENIZER_VERSION}\0".encode())
        h.update(self.id.encode())
        h.update(b"\0")
        h.update(self.text.encode("utf-8", "surrogatepass"))
        for s in self.spans:
            h.update(f"\0{s.start}:{s.end}:{s.category}".encode())
        for m in self.marks:
            h.update(f"\1{m.start}:{m.end}:{m.flag}".encode())
        return h.hexdigest()

    @cached_property
    def text_key(self) -> str:
        """A hash of the note's text alone, normalised (case-folded, runs of white space as
        one space): the same note under another id, file or layout has the same key, so
        training and scored notes are compared by what they say (:mod:`bench.run.overlap`)."""
        return _text_hash(self.text)

    @cached_property
    def context_key(self) -> str:
        """:attr:`text_key` of the note with each gold PHI phrase replaced by one marker:
        the same note with other names, dates or places (a surrogate or unseen variant, a
        copy re-identified by hand) has the same key -- a near-duplicate."""
        return _text_hash(self._context)

    @cached_property
    def context_words(self) -> int:
        """How many words the note has outside its PHI phrases (what :attr:`context_key`
        stands for: a short form filled in for many patients has few)."""
        return len(self._context.split()) - len(self.spans)

    @cached_property
    def _context(self) -> str:
        parts: list[str] = []
        last = 0
        for span in self.spans:
            parts.append(self.text[last : span.start])
            parts.append(" \x00 ")
            last = span.end
        parts.append(self.text[last:])
        return "".join(parts)

    def span_text(self, span: Span | Mark) -> str:
        return self.text[span.start : span.end]

    def validate(self, *, file: str | None = None) -> None:
        """Raise :class:`CorpusError` if a span is out of range, overlaps or is unlabelled."""
        if not self.text.strip():
            raise CorpusError("empty record", file=file, record=self.id, offset=0)
        previous: Span | None = None
        for span in self.spans:
            if span.category not in LABELS:
                raise CorpusError(  # the value is not shown: it was read from a file
                    f"unknown category (expected one of {', '.join(LABELS)})",
                    file=file,
                    record=self.id,
                    offset=span.start,
                )
            if not 0 <= span.start < span.end <= len(self.text):
                raise CorpusError(
                    f"span {span.start}-{span.end} outside the text (length {len(self.text)})",
                    file=file,
                    record=self.id,
                    offset=span.start,
                )
            if previous is not None and span.start < previous.end:
                raise CorpusError(
                    f"span {span.start}-{span.end} overlaps span {previous.start}-{previous.end}",
                    file=file,
                    record=self.id,
                    offset=span.start,
                )
            previous = span


def _text_hash(text: str) -> str:
    normalised = " ".join(text.casefold().split())
    return hashlib.blake2b(normalised.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


#: The flags of a token no mark overlaps, one object for all of them: ``frozenset()`` makes
#: a new 216-byte set at each call (CPython 3.11), 300 MB for the 1.4 million tokens of a
#: PhysioNet training set and its augmented copies.
_NO_FLAGS: frozenset[str] = frozenset()


def _labelled_tokens(document: Document) -> list[Token]:
    """The tokens of ``document`` as :func:`corpora.tokenize.segments` cuts them, each with
    the category of the gold span it overlaps (else ``O``) and the flags of the marks it
    overlaps."""
    text, spans, marks = document.text, document.spans, document.marks
    span_i = mark_i = 0
    tokens: list[Token] = []
    for index, (start, end, sentence, section) in enumerate(segments(text)):
        while span_i < len(spans) and spans[span_i].end <= start:
            span_i += 1
        label = OUTSIDE
        if span_i < len(spans) and spans[span_i].start < end:
            label = spans[span_i].category
        flags = _NO_FLAGS
        if marks:
            while mark_i < len(marks) and marks[mark_i].end <= start:
                mark_i += 1
            j, found = mark_i, []
            while j < len(marks) and marks[j].start < end:
                if start < marks[j].end:
                    found.append(marks[j].flag)
                j += 1
            if found:
                flags = frozenset(found)
        tokens.append(Token(text[start:end], start, end, index, sentence, section, label, flags))
    return tokens

@dataclass(frozen=True)
class Corpus:
    """A named, ordered collection of documents (plus how it was made)."""

    name: str
    documents: tuple[Document, ...]
    metadata: Mapping[str, Any] = field(default_factory=dict)

    def __iter__(self) -> Iterator[Document]:
        return iter(self.documents)

    def __len__(self) -> int:
        return len(self.documents)

    def __getitem__(self, index: int) -> Document:
        return self.documents[index]

    @cached_property
    def fingerprint(self) -> str:
        h = hashlib.blake2b(digest_size=16)
        for doc in self.documents:
            h.update(doc.fingerprint.encode())
        return h.hexdigest()

    @property
    def n_tokens(self) -> int:
        return sum(len(d.tokens) for d in self.documents)


def gold_labels(documents: Iterable[Document]) -> list[list[str]]:
    """The gold label of every token, one list per document (the systems' target)."""
    return [[t.label for t in doc.tokens] for doc in documents]


def check_predictions(
    documents: Sequence[Document], predictions: Sequence[Sequence[str]], system: str
) -> None:
    """Fail loudly when a system's output does not line up with the token interface."""
    if len(predictions) != len(documents):
        raise ValueError(
            f"system {system!r} returned {len(predictions)} label lists for "
            f"{len(documents)} documents"
        )
    for doc, labels in zip(documents, predictions, strict=True):
        if len(labels) != len(doc.tokens):
            raise ValueError(
                f"system {system!r} returned {len(labels)} labels for document {doc.id!r} "
                f"which has {len(doc.tokens)} tokens"
            )
        bad = set(labels) - PREDICTABLE_LABELS
        if bad:
            raise ValueError(f"system {system!r} predicted unknown labels {sorted(bad)}")
