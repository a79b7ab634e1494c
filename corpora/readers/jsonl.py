"""The harness's native corpus format: JSON lines (``jsonl:FILE``), reader and writer.

Why a native format: any corpus the harness can hold -- a converted i2b2 file, a generated
corpus, a variant with its ``ambiguous``/``not_in_dictionary`` marks (Sibanda & Uzuner
2006, §6.2-6.3) -- can be saved and reloaded exactly, and other tools can produce it with a
few lines of code.  One JSON object per line, UTF-8 (a byte-order mark at the start is
ignored)::

    {"id": "n1", "text": "Seen by Dr. Smith.",
     "spans": [{"start": 12, "end": 17, "category": "DOCTOR"}],
     "marks": [{"start": 12, "end": 17, "flag": "ambiguous"}],
     "metadata": {"source": "demo"}}

``id`` and ``text`` are required; ``spans``, ``marks`` and ``metadata`` default to empty.
An optional ``group`` (a string) names the patient -- or any unit whose notes must stay
together -- so that cross-validation keeps the unit on one side of every split; it is held
as ``metadata["patient"]``, the key ``--group-by patient`` (and ``auto``) group by, and
:func:`write_jsonl` writes that key back as ``group``.
Categories are the harness labels themselves (no mapping).  Offsets are Python string
indices (code points) into ``text``.  Blank lines are ignored; unknown keys are an error
(they are usually a misspelt key, which would otherwise silently drop annotations), and so
is a key given twice in one object (JSON parsers keep only the last value, so a second
``"spans"`` would silently drop the first list).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from corpora.load import ReadResult, reader
from corpora.model import Corpus, CorpusError, Document, Mark, Span
from corpora.readers._common import (
    BOM,
    Leniency,
    build_document,
    check_unique,
    decode,
    read_bytes,
)
from infra.cache import atomic_write_text

_KEYS = frozenset({"id", "text", "spans", "marks", "metadata", "group"})
#: The metadata key a top-level ``group`` is held under (what :mod:`corpora.folds` groups by).
GROUP_KEY = "patient"


def document_to_json(doc: Document) -> dict[str, Any]:
    """The JSON object of one document (the inverse of the reader).

    A string ``metadata["patient"]`` is written as the top-level ``group``.
    """
    metadata = dict(doc.metadata)
    group = metadata.get(GROUP_KEY)
    obj: dict[str, Any] = {"id": doc.id}
    if isinstance(group, str):
        obj["group"] = metadata.pop(GROUP_KEY)
    obj.update(
        text=doc.text,
        spans=[{"start": s.start, "end": s.end, "category": s.category} for s in doc.spans],
        marks=[{"start": m.start, "end": m.end, "flag": m.flag} for m in doc.marks],
        metadata=metadata,
    )
    return obj


def write_jsonl(
    corpus_or_documents: Corpus | Iterable[Document],
    path: str | os.PathLike[str],
    mode: int | None = None,
) -> int:
    """Write documents as JSON lines, atomically; return the number written.

    Every document is validated first, so the writer never produces a file the reader
    would reject.  Metadata must be JSON-serialisable (and, for an exact round trip,
    made of JSON types: dicts, lists, strings, numbers, booleans, None).  ``mode``: the
    file's permissions from the moment it appears (``0o600`` for notes with PHI).
    """
    documents = list(corpus_or_documents)
    lines: list[str] = []
    seen: set[str] = set()
    target = str(path)
    for doc in documents:
        doc.validate(file=target)
        check_unique(doc, seen, file=target)
        try:
            lines.append(json.dumps(document_to_json(doc), ensure_ascii=False))
        except (TypeError, ValueError) as exc:
            raise CorpusError(  # the message would quote the value
                f"metadata is not JSON-serialisable ({type(exc).__name__})",
                file=target,
                record=doc.id,
            ) from exc
    atomic_write_text(path, "".join(line + "\n" for line in lines), mode=mode)
    return len(lines)


_TYPE_NAMES = {int: "an integer", str: "a string", list: "a list", dict: "an object"}


def _require(value: Any, kind: type, what: str, where: dict[str, Any]) -> Any:
    """``value`` if it has JSON type ``kind`` (booleans are not integers), else an error."""
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise CorpusError(f"{what} must be {_TYPE_NAMES[kind]}", **where)
    return value


def _items(
    obj: dict[str, Any], key: str, fields: tuple[str, str, str], where: dict[str, Any]
) -> Iterator[tuple[int, int, str]]:
    """(start, end, label) for every entry of ``obj[key]``, type-checked."""
    entries = _require(obj.get(key, []), list, f"{key!r}", where)
    for i, entry in enumerate(entries):
        what = f"{key}[{i}]"
        _require(entry, dict, what, where)
        unknown = set(entry) - set(fields)
        if unknown:
            raise CorpusError(
                f"{what} has {len(unknown)} unknown key(s); allowed: {', '.join(fields)}", **where
            )
        start = _require(entry.get(fields[0]), int, f"{what}.{fields[0]}", where)
        end = _require(entry.get(fields[1]), int, f"{what}.{fields[1]}", where)
        label = _require(entry.get(fields[2]), str, f"{what}.{fields[2]}", where)
        yield start, end, label


def _document(obj: Any, file: str, number: int) -> Document:
    where: dict[str, Any] = {"file": file, "record": f"line {number}"}
    _require(obj, dict, f"line {number}", where)
    doc_id = _require(obj.get("id"), str, "'id'", where)
    if not doc_id:
        raise CorpusError("'id' must not be empty", **where)
    where["record"] = doc_id
    unknown = set(obj) - _KEYS
    if unknown:
        raise CorpusError(
            f"{len(unknown)} unknown key(s); allowed: {', '.join(sorted(_KEYS))}", **where
        )
    text = _require(obj.get("text"), str, "'text'", where)
    metadata = _require(obj.get("metadata", {}), dict, "'metadata'", where)
    if "group" in obj:
        group = _require(obj["group"], str, "'group'", where)
        if not group:
            raise CorpusError("'group' must not be empty", **where)
        if metadata.get(GROUP_KEY, group) != group:
            raise CorpusError(f"'group' and metadata.{GROUP_KEY} differ", **where)
        metadata = {**metadata, GROUP_KEY: group}
    spans = [Span(s, e, c) for s, e, c in _items(obj, "spans", ("start", "end", "category"), where)]
    marks = [Mark(s, e, f) for s, e, f in _items(obj, "marks", ("start", "end", "flag"), where)]
    if len(set(spans)) != len(spans):
        duplicate = next(s for s in spans if spans.count(s) > 1)
        raise CorpusError(
            f"span {duplicate.start}-{duplicate.end} listed twice",
            file=file,
            record=doc_id,
            offset=duplicate.start,
        )
    return build_document(
        doc_id, text, spans, file=file, metadata=metadata, marks=marks, normalise=False
    )


class _DuplicateKey(ValueError):
    """A JSON object with one key twice (``json`` silently keeps the last value)."""


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj: dict[str, Any] = {}
    for key, value in pairs:
        if key in obj:
            raise _DuplicateKey(key)
        obj[key] = value
    return obj


@reader("jsonl", "JSON lines, one document per line (text, spans)")
def read(path: str, *, lenient: bool = False) -> ReadResult:
    """Read a JSON-lines corpus written by :func:`write_jsonl` (or by hand)."""
    file = str(Path(path))
    data = read_bytes(path)
    collector = Leniency(lenient)
    documents: list[Document] = []
    seen: set[str] = set()
    line_start = 0
    for number, raw in enumerate(data.split(b"\n"), start=1):
        offset, line_start = line_start, line_start + len(raw) + 1
        if number == 1 and raw.startswith(BOM):  # some editors write one; not part of JSON
            raw, offset = raw[len(BOM) :], len(BOM)
        if not raw.strip():
            continue
        try:
            line = decode(raw, file=file, record=f"line {number}", base=offset)
            try:
                obj = json.loads(line, object_pairs_hook=_unique_keys)
            except _DuplicateKey:
                raise CorpusError(
                    f"line {number}: a key appears twice in one object (JSON would keep only "
                    "the last)",
                    file=file,
                    record=f"line {number}",
                    offset=len(data[:offset].decode("utf-8", "replace")),
                ) from None
            except json.JSONDecodeError as exc:
                position = len(data[:offset].decode("utf-8", "replace")) + exc.pos
                raise CorpusError(
                    f"line {number}: invalid JSON ({exc.msg}) at character offset {position}",
                    file=file,
                    record=f"line {number}",
                    offset=position,
                ) from exc
            doc = _document(obj, file, number)
            check_unique(doc, seen, file=file)
        except CorpusError as error:
            collector.fail(error)
            continue
        documents.append(doc)
    return collector.result(documents)
