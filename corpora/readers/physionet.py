"""Reader for the PhysioNet deid gold standard (``physionet:DIR`` or ``physionet:DIR/id.text``).

The PhysioNet corpus (Neamatullah et al. 2008) is the nursing-note corpus of the MIMIC
de-identifier that the Stat De-id reimplementation report and Tafvizi (2011, ch. 4) evaluate
on; it is the only real clinical corpus under ``../shared``.  Two files:

``id.text``
    records ``START_OF_RECORD=<patient>||||<note>||||`` newline, the note, then
    ``||||END_OF_RECORD``.  The note text starts right after the newline that ends the
    header line and stops right before ``||||END_OF_RECORD`` (so it keeps its final
    newlines).  With this convention every one of the 1,196 phrases of the development set
    satisfies ``text[start:end] == phrase`` (checked by the tests).
``id-phi.phrase``
    one line per PHI phrase: ``<patient> <note> <start> <end> <type> <phrase>``.

Document ids are ``<patient>-<note>``; ``metadata`` keeps ``patient`` and ``note`` so that
protocols can keep one patient's notes in one fold.

Category mapping (the harness label set has no relative or hospital-vs-location split for
this corpus):

==================  =========  ============================================================
PhysioNet type      label      why
==================  =========  ============================================================
HCPName             DOCTOR     health-care provider names
PTName              PATIENT
PTNameInitial       PATIENT    initials of the patient's name
RelativeProxyName   PATIENT    relatives/proxies: the label set has no relative class, and
                               like patient names they identify the patient
Location            LOCATION   the corpus folds hospitals into Location; we keep LOCATION
                               rather than guess which phrases are hospitals, so HOSPITAL
                               never occurs in this corpus
Date, DateYear      DATE
Phone               PHONE
Age                 AGE        ages over 89
Other               OTHER
==================  =========  ============================================================

Overlaps: identical phrases are kept once; two overlapping phrases of the same category
become their union (the development set has one such pair, record 11-1); overlapping
phrases of different categories are an error.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import NamedTuple

from corpora.load import ReadResult, reader
from corpora.model import CorpusError, Document, Span
from corpora.readers._common import (
    Leniency,
    bom_hint,
    build_document,
    check_span_text,
    decode,
    parse_offset,
    read_bytes,
)

#: PhysioNet phrase type -> harness label (see the module docstring for the reasons).
CATEGORIES: dict[str, str] = {
    "HCPName": "DOCTOR",
    "PTName": "PATIENT",
    "PTNameInitial": "PATIENT",
    "RelativeProxyName": "PATIENT",
    "Location": "LOCATION",
    "Date": "DATE",
    "DateYear": "DATE",
    "Phone": "PHONE",
    "Age": "AGE",
    "Other": "OTHER",
}

_HEADER = re.compile(rb"^START_OF_RECORD=", re.MULTILINE)
_HEADER_LINE = re.compile(rb"START_OF_RECORD=([^|\s]+)\|\|\|\|([^|\s]+)\|\|\|\|\r?")
_END = b"||||END_OF_RECORD"
_PHRASE = re.compile(r"(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+) (.*)")


class _Record(NamedTuple):
    text: str
    offset: int  # byte offset of the note text in the file
    patient: str
    note: str


def _paths(path: str) -> tuple[Path, Path]:
    """(text file, phrase file) for a directory or for the path of the ``.text`` file."""
    p = Path(path)
    if p.is_dir():
        text_path = p / "id.text"
        if not text_path.exists():
            candidates = sorted(p.glob("*.text"))
            if len(candidates) == 1:
                text_path = candidates[0]
    else:
        text_path = p
    phrase_path = text_path.with_name(f"{text_path.stem}-phi.phrase")
    return text_path, phrase_path


def _records(
    data: bytes, file: str, lenient: Leniency
) -> tuple[dict[str, _Record], set[str | None]]:
    """Record id -> record in file order, and the ids of records that failed (lenient)."""
    records: dict[str, _Record] = {}
    failed: set[str | None] = set()
    starts = [m.start() for m in _HEADER.finditer(data)]
    if not starts:
        lenient.fail(CorpusError("no START_OF_RECORD line" + bom_hint(data), file=file, offset=0))
        return records, failed
    if data[: starts[0]].strip():
        raise CorpusError(
            "text before the first START_OF_RECORD line" + bom_hint(data), file=file, offset=0
        )
    for i, start in enumerate(starts):
        stop = starts[i + 1] if i + 1 < len(starts) else len(data)
        try:
            doc_id, record = _record(data, start, stop, file, i)
            if doc_id in records:
                raise CorpusError("duplicate record id", file=file, record=doc_id, offset=start)
            records[doc_id] = record
        except CorpusError as error:
            lenient.fail(error)
            failed.add(error.record)
    return records, failed


def _record(data: bytes, start: int, stop: int, file: str, index: int) -> tuple[str, _Record]:
    newline = data.find(b"\n", start, stop)
    header = _HEADER_LINE.fullmatch(data, start, newline if newline >= 0 else stop)
    if header is None:
        raise CorpusError(
            f"malformed START_OF_RECORD line (record #{index + 1}) at byte offset {start}",
            file=file,
            record=f"#{index + 1}",
            offset=start,
        )
    patient = header.group(1).decode("ascii", "replace")
    note = header.group(2).decode("ascii", "replace")
    doc_id = f"{patient}-{note}"
    if newline < 0:
        raise CorpusError("record has no text", file=file, record=doc_id, offset=start)
    body = newline + 1
    end = data.find(_END, body, stop)
    if end < 0:
        raise CorpusError(
            f"record not terminated by ||||END_OF_RECORD (starts at byte offset {start})",
            file=file,
            record=doc_id,
            offset=start,
        )
    trailer = data[end + len(_END) : stop]
    if trailer.strip():
        raise CorpusError(
            f"text after ||||END_OF_RECORD at byte offset {end + len(_END)}",
            file=file,
            record=doc_id,
            offset=end + len(_END),
        )
    text = decode(data[body:end], file=file, record=doc_id, base=body)
    return doc_id, _Record(text, body, patient, note)


def _phrases(
    data: bytes,
    file: str,
    records: dict[str, _Record],
    failed: set[str | None],
    lenient: Leniency,
) -> tuple[dict[str, list[Span]], dict[str, CorpusError]]:
    """Spans per record, and the first error of every record with a bad phrase line.

    Phrase lines of records that already failed (lenient) are ignored: the record is
    reported once, not once per phrase.
    """
    spans: dict[str, list[Span]] = {doc_id: [] for doc_id in records}
    bad: dict[str, CorpusError] = {}
    byte_offset = 0
    for number, raw in enumerate(data.split(b"\n"), start=1):
        line_start, byte_offset = byte_offset, byte_offset + len(raw) + 1
        raw = raw.rstrip(b"\r")
        if not raw.strip():
            continue
        head = raw.split(maxsplit=2)
        doc_id = (
            f"{head[0].decode('ascii', 'replace')}-{head[1].decode('ascii', 'replace')}"
            if len(head) > 1
            else None
        )
        if doc_id in failed:
            continue
        # a record is named only if the text file has it: the first two columns of a
        # line in another layout are words of the note, not a record id
        known = doc_id if doc_id in records else None
        try:
            line = decode(raw, file=file, record=known, base=line_start)
            hint = bom_hint(raw) if number == 1 else ""
            span = _phrase(line, number, file, known, records, hint)
        except CorpusError as error:
            if doc_id in records:
                bad.setdefault(doc_id, error)  # reported when the record is dropped
                if not lenient.lenient:
                    raise
            else:
                lenient.fail(error)
            continue
        spans[doc_id].append(span)  # type: ignore[index]
    return spans, bad


def _phrase(
    line: str,
    number: int,
    file: str,
    doc_id: str | None,
    records: dict[str, _Record],
    hint: str = "",
) -> Span:
    """The span of phrase line ``number``; ``doc_id`` is its record when the text file has
    it (else ``None``).  No error quotes the line: its fields are note text."""
    match = _PHRASE.fullmatch(line)
    if match is None:
        raise CorpusError(
            f"line {number}: expected '<patient> <note> <start> <end> <type> <phrase>'{hint}",
            file=file,
            record=doc_id,
        )
    _, _, start_s, end_s, kind, phrase = match.groups()
    where = f"line {number}: "
    start = parse_offset(start_s, name="start (column 3)", file=file, record=doc_id, where=where)
    end = parse_offset(end_s, name="end (column 4)", file=file, record=doc_id, where=where)
    if doc_id is None:
        raise CorpusError(
            f"line {number}: phrase for a record that is not in the text file (columns 1 "
            f"and 2 name no patient and note of it){hint}",
            file=file,
            offset=start,
        )
    category = CATEGORIES.get(kind)
    if category is None:
        raise CorpusError(
            f"line {number}: unknown category in column 5; known: {', '.join(CATEGORIES)}",
            file=file,
            record=doc_id,
            offset=start,
        )
    text = records[doc_id].text
    if not 0 <= start < end <= len(text):
        raise CorpusError(
            f"line {number}: span {start}-{end} outside the text (length {len(text)})",
            file=file,
            record=doc_id,
            offset=start,
        )
    check_span_text(text, start, end, phrase, file=file, record=doc_id, where=f" (line {number})")
    return Span(start, end, category)


@reader("physionet", "PhysioNet deid nursing notes (id.text + id-phi.phrase)")
def read(path: str, *, lenient: bool = False) -> ReadResult:
    """Read a PhysioNet deid directory (or its ``id.text``) into documents."""
    text_path, phrase_path = _paths(path)
    collector = Leniency(lenient)
    records, failed = _records(read_bytes(text_path), str(text_path), collector)
    spans, bad = _phrases(read_bytes(phrase_path), str(phrase_path), records, failed, collector)
    documents: list[Document] = []
    for doc_id, (text, offset, patient, note) in records.items():
        if doc_id in bad:
            collector.fail(bad[doc_id])  # lenient: a strict read raised in _phrases
            continue
        if not text.strip():
            collector.fail(
                CorpusError("empty record", file=str(text_path), record=doc_id, offset=offset)
            )
            continue
        try:
            documents.append(
                build_document(
                    doc_id,
                    text,
                    spans[doc_id],
                    file=str(phrase_path),
                    metadata={"patient": patient, "note": note},
                )
            )
        except CorpusError as error:
            collector.fail(error)
    return collector.result(documents)
