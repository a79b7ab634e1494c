"""Reader for the i2b2/UTHealth 2014 de-identification format (``i2b2-2014:DIR``).

Not a corpus of the two papers, but the de-identification benchmark most later systems are
compared on, so the harness can run the papers' systems on it.  One note per file::

    <?xml version="1.0" encoding="UTF-8" ?>
    <deIdi2b2>
    <TEXT><![CDATA[ ... the note ... ]]></TEXT>
    <TAGS>
    <NAME id="P0" start="16" end="26" text="..." TYPE="PATIENT" comment="" />
    ...
    </TAGS>
    </deIdi2b2>

``start``/``end`` index the TEXT content exactly as it stands between ``<![CDATA[`` and
``]]>`` (the raw string is used, so carriage returns are not normalised away); the ``text``
attribute must equal ``text[start:end]`` -- compared after mapping line breaks and tabs to
spaces, because XML attribute values cannot keep a literal line break.  Document id = file
stem.  The corpus names files ``<patient>-<record>.xml`` (``110-01.xml`` is the first record of
patient 110), so ``metadata["patient"]`` is the part before the hyphen: cross-validation then
keeps a patient's records on one side of every split (:mod:`corpora.folds`).  A file not
named that way gets no patient key.  ``path`` is a directory (all ``*.xml`` below it,
sorted) or one file.  The data is not redistributable and not under ``../shared``; the
tests use hand-written files.

Category mapping (element/TYPE -> harness label; choices explained where not obvious):

============  ==================================================  =========
element       TYPE                                                label
============  ==================================================  =========
NAME          PATIENT                                             PATIENT
NAME          DOCTOR                                              DOCTOR
NAME          USERNAME                                            ID
PROFESSION    PROFESSION                                          OTHER
LOCATION      HOSPITAL, DEPARTMENT, ORGANIZATION                  HOSPITAL
LOCATION      ROOM, STREET, CITY, STATE, COUNTRY, ZIP,            LOCATION
              LOCATION-OTHER
AGE           AGE                                                 AGE
DATE          DATE                                                DATE
CONTACT       PHONE, FAX                                          PHONE
CONTACT       EMAIL, URL, IPADDR                                  OTHER
ID            SSN, MEDICALRECORD, HEALTHPLAN, ACCOUNT, LICENSE,   ID
              VEHICLE, DEVICE, BIOID, IDNUM
============  ==================================================  =========

* USERNAME -> ID: a clinician's system login is an identifier string, not a personal name,
  and looks like one (letters and digits).
* ORGANIZATION, DEPARTMENT -> HOSPITAL: Sibanda & Uzuner (2006, §5) treat hospitals as the
  *organizations* of clinical text; the 2006 HOSPITAL class covers the institutions where
  care happens and their units.
* ROOM -> LOCATION: the 2006 LOCATION class covers buildings and their numbers.
* EMAIL, URL, IPADDR -> OTHER: PHI outside the 2006 eight classes (no contact class other
  than PHONE).
* PROFESSION -> OTHER: not PHI under HIPAA, but annotated as such in 2014.
* AGE: 2014 annotates every age, not only ages over 89; all are kept as AGE.

The element type is checked too (``<NAME TYPE="CITY">`` is an error), as is any element
or TYPE not in the table.  Duplicate tags are kept once; overlapping tags of one label are
merged; overlapping tags of different labels are an error.
"""

from __future__ import annotations

import re
from pathlib import Path

from corpora.load import ReadResult, reader
from corpora.model import CorpusError, Document, Span
from corpora.readers._common import (
    Leniency,
    annotation_id,
    build_document,
    check_unique,
    decode_xml,
    parse_offset,
    parse_xml,
    read_bytes,
    xml_files,
)

#: element -> TYPE -> harness label (see the module docstring for the reasons).
CATEGORIES: dict[str, dict[str, str]] = {
    "NAME": {"PATIENT": "PATIENT", "DOCTOR": "DOCTOR", "USERNAME": "ID"},
    "PROFESSION": {"PROFESSION": "OTHER"},
    "LOCATION": {
        "HOSPITAL": "HOSPITAL",
        "DEPARTMENT": "HOSPITAL",
        "ORGANIZATION": "HOSPITAL",
        "ROOM": "LOCATION",
        "STREET": "LOCATION",
        "CITY": "LOCATION",
        "STATE": "LOCATION",
        "COUNTRY": "LOCATION",
        "ZIP": "LOCATION",
        "LOCATION-OTHER": "LOCATION",
    },
    "AGE": {"AGE": "AGE"},
    "DATE": {"DATE": "DATE"},
    "CONTACT": {
        "PHONE": "PHONE",
        "FAX": "PHONE",
        "EMAIL": "OTHER",
        "URL": "OTHER",
        "IPADDR": "OTHER",
    },
    "ID": {
        name: "ID"
        for name in (
            "SSN",
            "MEDICALRECORD",
            "HEALTHPLAN",
            "ACCOUNT",
            "LICENSE",
            "VEHICLE",
            "DEVICE",
            "BIOID",
            "IDNUM",
        )
    },
}

#: ``110-01`` -> patient ``110``: the file-naming scheme of the i2b2 2014 release.
_PATIENT_RECORD = re.compile(r"(\d+)-(\d+)")
_CDATA = re.compile(r"<TEXT\s*>\s*<!\[CDATA\[(.*?)\]\]>\s*</TEXT\s*>", re.DOTALL)
_BREAKS = str.maketrans("\r\n\t", "   ")


def _note_text(source: str, element_text: str | None) -> str:
    """The raw CDATA content when the file has exactly one, else the parsed TEXT content."""
    matches = _CDATA.findall(source)
    if len(matches) == 1 and matches[0].replace("\r\n", "\n").replace("\r", "\n") == (
        element_text or ""
    ):
        return matches[0]
    return element_text or ""


def _read_file(path: Path) -> Document:
    file, doc_id = str(path), path.stem
    source = decode_xml(read_bytes(path), file=file, record=doc_id)
    try:
        root = parse_xml(source, file=file)
    except CorpusError as error:
        raise CorpusError(error.reason, file=file, record=doc_id, offset=error.offset) from error
    if root.tag != "deIdi2b2":
        raise CorpusError("the root element is not <deIdi2b2>", file=file, record=doc_id)
    texts = root.findall("TEXT")
    if len(texts) != 1:
        raise CorpusError(
            f"expected one TEXT element, found {len(texts)}", file=file, record=doc_id
        )
    text = _note_text(source, texts[0].text)
    spans: list[Span] = []
    for tags in root.findall("TAGS"):
        for number, tag in enumerate(tags, 1):
            spans.append(_span(tag.tag, tag.attrib, text, file, doc_id, number))
    named = _PATIENT_RECORD.fullmatch(doc_id)
    metadata = {"patient": named.group(1)} if named else {}
    return build_document(doc_id, text, spans, file=file, metadata=metadata)


def _span(
    element: str, attrib: dict[str, str], text: str, file: str, doc_id: str, number: int
) -> Span:
    """The span of the ``number``-th tag under TAGS.  Errors name the tag by its id where
    that has an id's shape, else by its position, and never quote an attribute (the TYPE
    or text of a tag in another layout is the note's text)."""
    known_element = element in CATEGORIES
    tag = f"{element} tag" if known_element else "tag"
    where = f"{tag} {annotation_id(attrib.get('id'), f'#{number}')}: "
    start = parse_offset(attrib.get("start"), name="start", file=file, record=doc_id, where=where)
    end = parse_offset(attrib.get("end"), name="end", file=file, record=doc_id, where=where)
    kind = attrib.get("TYPE", "")
    category = CATEGORIES.get(element, {}).get(kind)
    if category is None:
        known = ", ".join(CATEGORIES.get(element, CATEGORIES))
        what = ("no TYPE" if not kind else "unknown TYPE") if known_element else "unknown element"
        raise CorpusError(
            f"{where}{what}; known {'TYPEs' if known_element else 'elements'}: {known}",
            file=file,
            record=doc_id,
            offset=start,
        )
    if not 0 <= start < end <= len(text):
        raise CorpusError(
            f"{where}span {start}-{end} outside the text (length {len(text)})",
            file=file,
            record=doc_id,
            offset=start,
        )
    expected = attrib.get("text")
    if expected is not None and text[start:end].translate(_BREAKS) != expected.translate(_BREAKS):
        raise CorpusError(
            f"{where}text attribute ({len(expected)} chars) does not match the note text at "
            f"{start}-{end}",
            file=file,
            record=doc_id,
            offset=start,
        )
    return Span(start, end, category)


@reader("i2b2-2014", "i2b2/UTHealth 2014 de-identification XML")
def read(path: str, *, lenient: bool = False) -> ReadResult:
    """Read a directory of i2b2 2014 XML files (or one file) into documents."""
    collector = Leniency(lenient)
    seen: set[str] = set()
    documents: list[Document] = []
    for file in xml_files(path):
        try:
            doc = _read_file(file)
            check_unique(doc, seen, file=str(file))
        except CorpusError as error:
            collector.fail(error)
            continue
        documents.append(doc)
    return collector.result(documents)
