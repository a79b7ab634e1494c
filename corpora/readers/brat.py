"""Reader for brat stand-off annotation (``brat:DIR``): ``note.txt`` beside ``note.ann``.

brat (Stenetorp et al. 2012) is the annotation tool most clinical annotation projects use,
so a hospital that annotates its own notes for a de-identification study usually holds
them in its stand-off format: the note as plain text, and one ``.ann`` file per note with
a line per text-bound annotation::

    T1<TAB>DOCTOR 12 17<TAB>Smith
    T2<TAB>DATE 21 25;26 30<TAB>June 1999
    #1<TAB>AnnotatorNotes T1<TAB>...

``T`` lines are the PHI: an id, the type and its character offsets (several ``start end``
fragments separated by ``;`` for a discontinuous annotation, each fragment becoming one
span of that category), and the annotated text, which must equal the fragments' text
joined by single spaces (compared with line breaks and tabs read as spaces, as brat
writes them).  Offsets index the ``.txt`` file's characters exactly as stored: brat reads
the file without translating line ends, so carriage returns count.  Relations,
events, attributes, normalisations and notes (``R``, ``E``, ``A``, ``M``, ``N``, ``#``,
``*`` lines) say nothing about where PHI is and are skipped; a line of any other kind is
an error, since it means the file is not what this reader takes it for.

brat types are whatever a project's ``annotation.conf`` declares, so the reader maps the
names de-identification projects use, case-insensitively (:data:`CATEGORIES`): the
harness labels themselves, the i2b2/UTHealth 2014 types (``CITY``, ``USERNAME``,
``MEDICALRECORD`` ... mapped as the ``i2b2-2014`` reader maps them) and the PhysioNet
types (``HCPName`` ...).  Any other type is an error naming it, never a silent drop: a
project with other names renames them (or converts to ``jsonl``).

Document id = the ``.txt`` path relative to ``DIR`` without its suffix (``p7/0001``);
``PATH`` may also be one ``.txt`` file.  Files named ``<patient>-<record>.txt`` (the
i2b2 2014 convention, ``110-01.txt``) give ``metadata["patient"]``, so cross-validation
keeps a patient's notes on one side of every split; other names give no patient key.
Every note also gets ``metadata["directory"]``, the folder it sits in relative to ``DIR``
(``p7``; ``.`` at the top): projects that keep one folder per patient group their folds
with ``--group-by directory``.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from collections.abc import Iterable
from pathlib import Path, PurePosixPath

from corpora.load import ReadResult, reader
from corpora.model import LABELS, Corpus, CorpusError, Document, Span
from corpora.readers import i2b2_2014, physionet
from corpora.readers._common import (
    Leniency,
    annotation_id,
    build_document,
    check_unique,
    decode,
    parse_offset,
    read_bytes,
)


def _categories() -> dict[str, str]:
    """Upper-cased brat type -> harness label: the labels, then the two public schemes."""
    out = {label.upper(): label for label in LABELS}
    for types in i2b2_2014.CATEGORIES.values():
        for name, label in types.items():
            out.setdefault(name.upper(), label)
    for name, label in physionet.CATEGORIES.items():
        out.setdefault(name.upper(), label)
    return out


#: brat type (upper-cased) -> harness label.
CATEGORIES: dict[str, str] = _categories()

#: Annotation kinds that carry no PHI extent (relations, events, attributes, modifiers,
#: normalisations, notes, equivalences): skipped.
SKIPPED_KINDS = frozenset("REAMN#*")

_PATIENT_RECORD = re.compile(r"(\d+)-(\d+)")
_FRAGMENT = re.compile(r"(\S+) (\S+)")
_BREAKS = str.maketrans("\r\n\t", "   ")


def _text_files(path: str) -> tuple[Path, list[Path]]:
    """(root, the ``.txt`` files to read): ``path`` itself, or every ``.txt`` below it."""
    p = Path(path)
    if not p.exists():
        raise CorpusError("missing file", file=str(p))
    if p.is_file():
        if p.suffix != ".txt":
            raise CorpusError("expected a note's .txt file or a directory", file=str(p))
        return p.parent, [p]
    if not p.is_dir():
        raise CorpusError("not a regular file", file=str(p))
    files = sorted(x for x in p.rglob("*.txt") if x.is_file())
    if not files:
        raise CorpusError("no .txt files in directory", file=str(p))
    return p, files


def _read_note(root: Path, text_path: Path) -> Document:
    doc_id = text_path.relative_to(root).with_suffix("").as_posix()
    ann_path = text_path.with_suffix(".ann")
    text = decode(read_bytes(text_path), file=str(text_path), record=doc_id)
    if not ann_path.exists():
        raise CorpusError(
            "missing annotation file (a note without PHI has an empty .ann)",
            file=str(ann_path),
            record=doc_id,
        )
    ann = decode(read_bytes(ann_path), file=str(ann_path), record=doc_id)
    spans = _spans(ann, text, file=str(ann_path), record=doc_id)
    named = _PATIENT_RECORD.fullmatch(text_path.stem)
    metadata = {"patient": named.group(1)} if named else {}
    metadata["directory"] = text_path.parent.relative_to(root).as_posix()
    return build_document(doc_id, text, spans, file=str(ann_path), metadata=metadata)


def _spans(ann: str, text: str, *, file: str, record: str) -> list[Span]:
    """The spans of every ``T`` line; a malformed line fails at its offset in the file."""
    spans: list[Span] = []
    position = 0
    if ann.startswith("\ufeff"):  # a byte-order mark is not an annotation line
        ann, position = ann[1:], 1
    for line in ann.split("\n"):  # brat splits on line feeds only
        at, position = position, position + len(line) + 1
        body = line.rstrip("\r")
        if not body.strip():
            continue
        if body[0] in SKIPPED_KINDS:
            continue
        if body[0] != "T":
            raise CorpusError(
                f"annotation line of unknown kind at character offset {at} (its first "
                "character should be T, R, E, A, M, N, # or *)",
                file=file,
                record=record,
                offset=at,
            )
        spans.extend(_text_bound(body, text, at, file=file, record=record))
    return spans


def _text_bound(body: str, text: str, at: int, *, file: str, record: str) -> list[Span]:
    """The spans of one ``T`` line starting at character ``at`` of the ``.ann`` file."""

    def bad_line(reason: str) -> CorpusError:
        return CorpusError(
            f"{reason} (line at character offset {at})", file=file, record=record, offset=at
        )

    fields = body.split("\t", 2)
    if len(fields) != 3:
        raise bad_line(
            "text-bound annotation needs three tab-separated fields (id, type and offsets, text)"
        )
    ident, extent, expected = fields
    ident = annotation_id(ident, "text-bound annotation")
    kind, _, offsets = extent.partition(" ")
    category = CATEGORIES.get(kind.upper())
    if category is None:
        raise bad_line(
            f"{ident}: unknown category in the second field; known types: the harness "
            "labels, the i2b2 2014 and the PhysioNet types (docs/formats.md)"
        )
    fragments: list[tuple[int, int]] = []
    for part in offsets.split(";"):
        match = _FRAGMENT.fullmatch(part.strip())
        if match is None:
            raise bad_line(f"{ident}: offsets are not 'start end' pairs separated by ';'")
        try:
            start, end = (
                parse_offset(value, name=name, file=file, record=record, where=f"{ident}: ")
                for value, name in ((match.group(1), "start"), (match.group(2), "end"))
            )
        except CorpusError as error:
            raise bad_line(error.reason) from error
        if not 0 <= start < end <= len(text):
            raise CorpusError(
                f"{ident}: span {start}-{end} outside the text (length {len(text)})",
                file=file,
                record=record,
                offset=start,
            )
        fragments.append((start, end))
    annotated = " ".join(text[s:e] for s, e in fragments)
    if annotated.translate(_BREAKS) != expected.translate(_BREAKS):
        first = fragments[0][0]
        raise CorpusError(
            f"{ident}: annotated text ({len(expected)} chars) does not match the note text "
            f"at {';'.join(f'{s}-{e}' for s, e in fragments)}",
            file=file,
            record=record,
            offset=first,
        )
    return [Span(s, e, category) for s, e in fragments]


def _orphans(root: Path, texts: list[Path]) -> list[Path]:
    """``.ann`` files below ``root`` without their ``.txt`` (a note lost in a copy)."""
    have = {t.with_suffix(".ann") for t in texts}
    return sorted(a for a in root.rglob("*.ann") if a.is_file() and a not in have)


@reader("brat", "brat stand-off annotation: note.txt beside note.ann")
def read(path: str, *, lenient: bool = False) -> ReadResult:
    """Read a directory of brat ``.txt``/``.ann`` pairs (or one ``.txt``) into documents."""
    collector = Leniency(lenient)
    root, texts = _text_files(path)
    seen: set[str] = set()
    documents: list[Document] = []
    for text_path in texts:
        try:
            doc = _read_note(root, text_path)
            check_unique(doc, seen, file=str(text_path))
        except CorpusError as error:
            collector.fail(error)
            continue
        documents.append(doc)
    if Path(path).is_dir():
        for orphan in _orphans(root, texts):
            collector.fail(
                CorpusError(
                    "annotation file without its .txt note",
                    file=str(orphan),
                    record=orphan.relative_to(root).with_suffix("").as_posix(),
                )
            )
    return collector.result(documents)


def write_brat(
    corpus_or_documents: Corpus | Iterable[Document], directory: str | os.PathLike[str]
) -> int:
    """Write documents as brat ``.txt``/``.ann`` pairs under a new ``directory``; return the
    number written.  The inverse of :func:`read` for text and spans (brat has no place for
    the variants' marks or for other metadata; a patient key survives through a
    ``<patient>-<record>`` id, as the reader takes it).

    Every document is validated first, and the files are written into a temporary
    directory that is renamed into place at the end, so a failure never leaves part of a
    corpus behind; an existing ``directory`` is refused rather than mixed with.
    """
    target = Path(directory)
    if target.exists():
        raise CorpusError("already exists: brat output goes to a new directory", file=str(target))
    documents = list(corpus_or_documents)
    seen: set[str] = set()
    for doc in documents:
        doc.validate(file=str(target))
        check_unique(doc, seen, file=str(target))
        if any(part in ("", ".", "..") for part in doc.id.split("/")) or "\\" in doc.id:
            raise CorpusError(
                "a document id must be a relative path to be a brat file name",
                file=str(target),
                record=doc.id,
            )
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    try:
        for doc in documents:
            base = staging / PurePosixPath(doc.id)
            base.parent.mkdir(parents=True, exist_ok=True)
            Path(f"{base}.txt").write_bytes(doc.text.encode("utf-8"))
            lines = [
                f"T{i}\t{span.category} {span.start} {span.end}\t"
                f"{doc.text[span.start : span.end].translate(_BREAKS)}\n"
                for i, span in enumerate(doc.spans, start=1)
            ]
            Path(f"{base}.ann").write_bytes("".join(lines).encode("utf-8"))
        staging.rename(target)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return len(documents)
