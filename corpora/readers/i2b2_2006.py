"""Reader for the i2b2 2006 de-identification challenge format (``i2b2-2006:FILE``).

This is the format of the corpora Sibanda & Uzuner (2006, §3) evaluate on (the challenge
data was built from them): one XML file ::

    <ROOT>
    <RECORD ID="123">
    <TEXT>
    ... seen by Dr. <PHI TYPE="DOCTOR">Smith</PHI> on <PHI TYPE="DATE">3/4</PHI> ...
    </TEXT>
    </RECORD>
    </ROOT>

The document text is the whole content of ``TEXT`` with the ``PHI`` tags removed (their
content kept, XML entities decoded, nothing stripped), and spans are offsets into that
text.  The challenge data itself is not redistributable and is not under ``../shared``; the
tests use small hand-written files.  ``path`` may also be a directory of such files.

Category mapping: the eight challenge types PATIENT, DOCTOR, LOCATION, HOSPITAL, DATE, ID,
PHONE and AGE are the harness's labels, mapped one to one; any other type is an error.

A malformed file is first parsed whole; if that fails, each ``RECORD`` element is parsed on
its own so that the error names the bad record and ``--lenient`` can skip just that one.
"""

from __future__ import annotations

import codecs
import re
from pathlib import Path
from xml.etree.ElementTree import Element

from corpora.load import ReadResult, reader
from corpora.model import CorpusError, Document, Span
from corpora.readers._common import (
    Leniency,
    build_document,
    check_unique,
    decode,
    decode_xml,
    parse_xml,
    read_bytes,
    xml_files,
)

#: i2b2 2006 PHI type -> harness label (identity).
CATEGORIES: dict[str, str] = {
    name: name
    for name in ("PATIENT", "DOCTOR", "LOCATION", "HOSPITAL", "DATE", "ID", "PHONE", "AGE")
}

_RECORD_START = re.compile(rb"<RECORD\b")
_RECORD_END = re.compile(rb"</RECORD\s*>")
_RECORD_ID = re.compile(rb"""<RECORD\b[^>]*?\bID\s*=\s*["']([^"']*)["']""")
_ENCODING = re.compile(
    rb"""^(?:\xef\xbb\xbf)?\s*<\?xml[^>]*?encoding\s*=\s*["']([A-Za-z0-9._-]+)["']"""
)


def _record_text(record: Element, doc_id: str, file: str) -> tuple[str, list[Span]]:
    """The TEXT content without PHI tags, and the PHI spans in it."""
    texts = record.findall("TEXT")
    if len(texts) != 1:
        raise CorpusError(
            f"expected one TEXT element, found {len(texts)}", file=file, record=doc_id, offset=0
        )
    element = texts[0]
    parts: list[str] = [element.text or ""]
    length = len(parts[0])
    spans: list[Span] = []
    for child in element:
        if child.tag != "PHI":
            raise CorpusError(
                "unexpected element inside TEXT (only PHI is allowed)",
                file=file,
                record=doc_id,
                offset=length,
            )
        if len(child):
            raise CorpusError(
                "PHI element contains other elements", file=file, record=doc_id, offset=length
            )
        kind = child.get("TYPE")
        category = CATEGORIES.get(kind or "")
        if category is None:
            raise CorpusError(
                f"PHI element with {'an unknown' if kind else 'no'} TYPE; known: "
                f"{', '.join(CATEGORIES)}",
                file=file,
                record=doc_id,
                offset=length,
            )
        phrase = child.text or ""
        if not phrase:
            raise CorpusError("empty PHI element", file=file, record=doc_id, offset=length)
        spans.append(Span(length, length + len(phrase), category))
        tail = child.tail or ""
        parts += (phrase, tail)
        length += len(phrase) + len(tail)
    return "".join(parts), spans


def _document(record: Element, index: int, file: str) -> Document:
    doc_id = record.get("ID")
    if not doc_id:
        raise CorpusError(
            "RECORD element without an ID attribute", file=file, record=f"#{index + 1}"
        )
    text, spans = _record_text(record, doc_id, file)
    return build_document(doc_id, text, spans, file=file, normalise=False)


def _record_chunks(data: bytes) -> list[tuple[int, bytes]]:
    """(byte offset, bytes) of each ``<RECORD>`` element, cut at the next ``<RECORD`` start.

    Cutting at starts (not at the first ``</RECORD>``) keeps a record that lacks its end tag
    from swallowing the good record after it: the chunk of the unclosed one simply has no
    end tag, and only that record is reported.
    """
    starts = [m.start() for m in _RECORD_START.finditer(data)]
    chunks = []
    for i, start in enumerate(starts):
        stop = starts[i + 1] if i + 1 < len(starts) else len(data)
        chunk = data[start:stop]
        ends = list(_RECORD_END.finditer(chunk))  # the last one before the next record
        chunks.append((start, chunk[: ends[-1].end()] if ends else chunk))
    return chunks


def _records_one_by_one(data: bytes, file: str, collector: Leniency) -> list[Element]:
    """Decode and parse each RECORD on its own, to name (or skip) just the bad ones."""
    match = _ENCODING.match(data[:200])
    encoding = match.group(1).decode("ascii").lower() if match else "utf-8"
    try:
        codecs.lookup(encoding)
    except LookupError:
        encoding = "utf-8"  # the whole-file read has already reported the bad declaration
    records: list[Element] = []
    chars, previous = 0, 0  # character offset of the current chunk, kept incrementally
    for start, chunk in _record_chunks(data):
        chars += len(data[previous:start].decode(encoding, "replace"))
        previous = start
        id_match = _RECORD_ID.match(chunk)
        record_id = id_match.group(1).decode("ascii", "replace") if id_match else None
        try:
            if not _RECORD_END.search(chunk):
                raise CorpusError(
                    f"<RECORD> element not closed (no </RECORD> before the next record or the "
                    f"end of the file) at character offset {chars}",
                    file=file,
                    record=record_id,
                    offset=chars,
                )
            text = decode(chunk, file=file, record=record_id, base=start, encoding=encoding)
            records.append(parse_xml(text, file=file, record=record_id, base=chars))
        except CorpusError as error:
            collector.fail(error)
    return records


def _read_file(path: Path, collector: Leniency, seen: set[str]) -> list[Document]:
    file = str(path)
    data = read_bytes(path)
    try:
        root = parse_xml(decode_xml(data, file=file), file=file)
        if root.tag != "ROOT":
            raise CorpusError("the root element is not <ROOT>", file=file)
        records = root.findall("RECORD")
    except CorpusError as whole:
        # Malformed XML and undecodable bytes can be pinned to one record; the rest cannot.
        per_record = whole.reason.startswith("malformed XML") or whole.record is not None
        if not collector.lenient or not per_record:
            if whole.record is None and per_record:
                # Name the bad record when one record is to blame (raises if so).
                _records_one_by_one(data, file, collector)
            raise
        before = len(collector.skipped)
        records = _records_one_by_one(data, file, collector)
        if len(collector.skipped) == before:
            raise  # the file is broken outside any record
    if not records:
        raise CorpusError("no RECORD elements", file=file, offset=0)
    documents: list[Document] = []
    for index, record in enumerate(records):
        try:
            doc = _document(record, index, file)
            check_unique(doc, seen, file=file)
        except CorpusError as error:
            collector.fail(error)
            continue
        documents.append(doc)
    return documents


@reader(
    "i2b2-2006",
    "i2b2 2006 de-identification challenge XML (has its own train/test split)",
)
def read(path: str, *, lenient: bool = False) -> ReadResult:
    """Read an i2b2 2006 XML file (or a directory of them) into documents."""
    collector = Leniency(lenient)
    seen: set[str] = set()
    documents: list[Document] = []
    for file in xml_files(path):
        try:
            documents += _read_file(file, collector, seen)
        except CorpusError as error:
            collector.fail(error)  # a whole file lost (lenient): report it, read the others
    return collector.result(documents)
