"""Helpers every reader shares: reading, decoding, XML parsing, span checks, leniency.

Why a shared module: each format differs only in how it finds records and spans.  The
failure modes -- a missing file, bytes that are not UTF-8, malformed XML, a span that does
not fit its text -- are the same everywhere, and a user fixing a corpus should get the same
kind of message (file, record, offset, reason) whichever reader found the problem.

Offsets in errors: decoding errors give the *byte* offset into the file; XML and JSON syntax
errors give the *character* offset into the file; errors about a span give the character
offset of the span's start in the document text.  The reason string says which.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from xml.etree.ElementTree import Element, ParseError

import defusedxml.ElementTree as SafeET
from defusedxml.common import DefusedXmlException

from corpora.load import ReadResult
from corpora.model import CorpusError, Document, Mark, Span

#: The UTF-8 byte-order mark some editors put at the start of a text file.
BOM = b"\xef\xbb\xbf"


@dataclass
class Leniency:
    """Collects the records a lenient read skips; raises at once otherwise.

    Readers call :meth:`fail` for every bad record; the strict mode (the default, so a
    benchmark never silently runs on part of a corpus) raises, ``--lenient`` records it in
    :attr:`ReadResult.skipped` and carries on with the next record.
    """

    lenient: bool = False
    skipped: list[CorpusError] = field(default_factory=list)

    def fail(self, error: CorpusError) -> None:
        if not self.lenient:
            raise error
        self.skipped.append(error)

    def result(self, documents: list[Document]) -> ReadResult:
        return ReadResult(documents=documents, skipped=self.skipped)


def read_bytes(path: str | os.PathLike[str]) -> bytes:
    """The file's bytes, or a :class:`CorpusError` naming it if it is missing/unreadable."""
    p = Path(path)
    if not p.exists():
        raise CorpusError("missing file", file=str(p))
    if p.is_dir():
        raise CorpusError("expected a file, found a directory", file=str(p))
    if not p.is_file():  # a device or a pipe: reading it might never end
        raise CorpusError("not a regular file", file=str(p))
    try:
        return p.read_bytes()
    except OSError as exc:
        raise CorpusError(f"cannot read file: {exc.strerror}", file=str(p)) from exc


def decode(
    data: bytes,
    *,
    file: str,
    record: str | None = None,
    base: int = 0,
    encoding: str = "utf-8",
) -> str:
    """Decode strictly; on failure report the absolute byte offset (``base`` + position)."""
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as exc:
        raise CorpusError(
            f"bytes not valid {encoding} at byte offset {base + exc.start}",
            file=file,
            record=record,
            offset=base + exc.start,
        ) from exc
    except LookupError as exc:
        raise CorpusError(
            "unknown encoding named in the file's XML declaration", file=file, record=record
        ) from exc


_XML_DECL = re.compile(rb"""^\s*<\?xml[^>]*?encoding\s*=\s*["']([A-Za-z0-9._-]+)["']""")


def decode_xml(data: bytes, *, file: str, record: str | None = None) -> str:
    """Decode an XML file: its declared encoding (default UTF-8), minus a byte-order mark.

    A decoding error names the last ``ID="..."`` record opened before the bad byte (the
    i2b2 2006 layout), else ``record``; its offset counts the bytes of the original file.
    """
    base = 0
    if data.startswith(BOM):
        data, base = data[3:], 3
    match = _XML_DECL.match(data[:200])
    encoding = match.group(1).decode("ascii").lower() if match else "utf-8"
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as exc:
        ids = re.findall(rb"""\bID\s*=\s*["']([^"']*)["']""", data[: exc.start])
        if ids:
            record = ids[-1].decode("ascii", "replace")
        return decode(data, file=file, record=record, base=base, encoding=encoding)
    except LookupError:
        return decode(data, file=file, record=record, encoding=encoding)


def char_offset(text: str, line: int, column: int) -> int:
    """Character offset in ``text`` of expat's (1-based line, 0-based *byte* column)."""
    lines = text.split("\n")
    if line < 1 or line > len(lines):
        return len(text)
    start = sum(len(x) + 1 for x in lines[: line - 1])
    prefix = lines[line - 1].encode("utf-8")[:column].decode("utf-8", "ignore")
    return start + len(prefix)


def parse_xml(text: str, *, file: str, record: str | None = None, base: int = 0) -> Element:
    """Parse with defusedxml; malformed or unsafe XML becomes a located CorpusError."""
    try:
        return SafeET.fromstring(text)
    except ParseError as exc:
        line, column = exc.position
        offset = base + char_offset(text, line, column)
        message = str(exc).split(":")[0]
        raise CorpusError(
            f"malformed XML ({message}) at character offset {offset}",
            file=file,
            record=record,
            offset=offset,
        ) from exc
    except DefusedXmlException as exc:
        raise CorpusError(
            f"forbidden XML construct ({type(exc).__name__}); DTDs and entities are not allowed",
            file=file,
            record=record,
            offset=base,
        ) from exc


def normalise_spans(spans: Iterable[Span], *, file: str, record: str) -> list[Span]:
    """Deduplicate and reconcile a record's spans before :meth:`Document.validate`.

    * identical spans (same offsets, same category) are kept once -- annotation files list
      some phrases twice;
    * two spans of the *same* category that overlap are merged into their union -- the
      PhysioNet development set annotates one hospital name twice with different,
      overlapping extents (record 11-1), and both extents are correct PHI;
    * same offsets with different categories, or overlapping spans of different categories,
      are genuine conflicts and raise :class:`CorpusError`.
    """
    merged: list[Span] = []
    for span in sorted(set(spans)):
        if merged and span.start < merged[-1].end:
            last = merged[-1]
            if span.category != last.category:
                what = "has the same offsets as" if span.start == last.start else "overlaps"
                raise CorpusError(
                    f"span {span.start}-{span.end} ({span.category}) {what} span "
                    f"{last.start}-{last.end} ({last.category})",
                    file=file,
                    record=record,
                    offset=span.start,
                )
            merged[-1] = Span(last.start, max(last.end, span.end), last.category)
        else:
            merged.append(span)
    return merged


def build_document(
    doc_id: str,
    text: str,
    spans: Iterable[Span],
    *,
    file: str,
    metadata: dict[str, Any] | None = None,
    marks: Iterable[Mark] = (),
    normalise: bool = True,
) -> Document:
    """Make and validate a document (empty text, span range, overlaps, categories)."""
    span_list = list(spans)
    mark_list = list(marks)
    for span in (*span_list, *mark_list):
        if not 0 <= span.start < span.end <= len(text):
            raise CorpusError(
                f"{'mark' if isinstance(span, Mark) else 'span'} {span.start}-{span.end} "
                f"outside the text (length {len(text)})",
                file=file,
                record=doc_id,
                offset=span.start,
            )
    if normalise:
        span_list = normalise_spans(span_list, file=file, record=doc_id)
    doc = Document(
        id=doc_id,
        text=text,
        spans=tuple(span_list),
        marks=tuple(mark_list),
        metadata=metadata or {},
    )
    doc.validate(file=file)
    return doc


def check_span_text(
    text: str, start: int, end: int, expected: str, *, file: str, record: str, where: str = ""
) -> None:
    """Fail unless ``text[start:end]`` is the phrase the annotation says it is.

    The phrase itself is never put in the message: it is PHI (or a realistic surrogate).
    """
    if text[start:end] != expected:
        raise CorpusError(
            f"span {start}-{end}{where}: annotated text ({len(expected)} chars) does not match "
            f"the note text at those offsets",
            file=file,
            record=record,
            offset=start,
        )


def check_unique(doc: Document, seen: set[str], *, file: str) -> None:
    if doc.id in seen:
        raise CorpusError("duplicate record id", file=file, record=doc.id, offset=0)
    seen.add(doc.id)


def xml_files(path: str) -> list[Path]:
    """``path`` itself if it is a file, else every ``*.xml`` below it (sorted)."""
    p = Path(path)
    if not p.exists():
        raise CorpusError("missing file", file=str(p))
    if p.is_file():
        return [p]
    if not p.is_dir():
        raise CorpusError("not a regular file", file=str(p))
    files = sorted(x for x in p.rglob("*.xml") if x.is_file())
    if not files:
        raise CorpusError("no .xml files in directory", file=str(p))
    return files


_ASCII_DIGITS = re.compile(r"[0-9]+")


def parse_offset(value: str | None, *, name: str, file: str, record: str, where: str = "") -> int:
    """A character offset written in ASCII digits only.

    ``int()`` also accepts other scripts' digits (``"١٢"``), underscores (``"1_2"``), signs
    and surrounding spaces, so a corrupted or hand-edited annotation could silently become
    a different offset; offsets in every format are plain non-negative decimal numbers.
    """
    if value is None:
        raise CorpusError(f"{where}missing {name}", file=file, record=record)
    if not _ASCII_DIGITS.fullmatch(value):
        # the value read is not shown: in a file with its columns in another order it is
        # a word of the note (a name, a place)
        raise CorpusError(
            f"{where}{name} is not a non-negative whole number in ASCII digits (the "
            f"{len(value)} character(s) read are not shown)",
            file=file,
            record=record,
        )
    return int(value)


_ANNOTATION_ID = re.compile(r"[A-Za-z#*]{1,3}[0-9]{1,9}")


def annotation_id(value: str | None, fallback: str) -> str:
    """An annotation's id as an error may show it: ids of the format's own shape (brat's
    ``T12``, i2b2's ``P3``) as they are, anything else as ``fallback`` -- in a file of
    another layout the "id" field holds a word of the note."""
    if value is not None and _ANNOTATION_ID.fullmatch(value):
        return value
    return fallback


def bom_hint(data: bytes) -> str:
    """A sentence to add to an error about the start of a file that begins with a
    byte-order mark: the mark is invisible in an editor, so an error that does not name it
    sends the user looking for a problem they cannot see."""
    if data.startswith(BOM):
        return " (the file starts with a UTF-8 byte-order mark: save it without one)"
    return ""
