"""Corpus readers, the JSON-lines writer, and their one-line errors on bad input.

Fixtures under ``tests/corpora/data`` are hand-written; the bad inputs are made from them by
small edits in ``tmp_path`` so each test shows exactly what is wrong with its input.
"""

from __future__ import annotations

import shutil
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest

from corpora.load import READERS, get_reader, load_corpus
from corpora.model import LABELS, CorpusError, Document, Mark, Span, is_phi
from corpora.readers import i2b2_2006, i2b2_2014, jsonl, physionet
from corpora.readers.jsonl import write_jsonl

DATA = Path(__file__).parent / "data"


def texts(doc: Document) -> list[tuple[str, str]]:
    return [(s.category, doc.span_text(s)) for s in doc.spans]


# --------------------------------------------------------------------------- good input


def test_physionet_fixture_reads_and_maps_categories() -> None:
    result = physionet.read(str(DATA / "physionet"))
    assert result.skipped == []
    docs = {d.id: d for d in result.documents}
    assert list(docs) == ["1-1", "1-2", "7-1"]
    assert docs["1-1"].metadata == {"patient": "1", "note": "1"}
    # The note starts right after the header newline and keeps its final newlines.
    assert docs["1-1"].text.startswith("Pt seen by Dr. Lambert")
    assert docs["1-1"].text.endswith("3/14.\n\n")
    assert texts(docs["1-1"]) == [
        ("DOCTOR", "Lambert"),
        ("PATIENT", "Rose Quill"),  # RelativeProxyName -> PATIENT
        ("LOCATION", "Mercy-Oak Hospital"),  # two overlapping Location phrases merged
        ("DATE", "3/14"),  # listed twice, kept once
    ]
    assert texts(docs["1-2"]) == [("PHONE", "617-555-0199"), ("PATIENT", "JQ")]
    assert texts(docs["7-1"]) == [
        ("PATIENT", "Quill"),
        ("AGE", "92"),
        ("DATE", "1913"),
        ("DOCTOR", "LAMBERT"),
        ("OTHER", "99-x"),
    ]


def test_physionet_accepts_the_text_file_path() -> None:
    by_dir = physionet.read(str(DATA / "physionet")).documents
    by_file = physionet.read(str(DATA / "physionet" / "notes.text")).documents
    assert by_dir == by_file


def test_i2b2_2006_text_is_record_text_without_tags() -> None:
    result = i2b2_2006.read(str(DATA / "i2b2_2006.xml"))
    assert [d.id for d in result.documents] == ["101", "102"]
    doc = result.documents[0]
    assert "<PHI" not in doc.text and "pollen & dust" in doc.text  # entity decoded
    assert doc.text.startswith("\nPatient Ann Lee was admitted")
    assert texts(doc) == [
        ("PATIENT", "Ann Lee"),
        ("HOSPITAL", "Oak Valley Medical Center"),
        ("DATE", "03/14/2004"),
        ("DOCTOR", "R. Kim"),
        ("ID", "4455667"),
        ("LOCATION", "Springfield"),
        ("PHONE", "(555) 201-3344"),
        ("AGE", "91"),
    ]
    assert texts(result.documents[1]) == [("DOCTOR", "Kim")]


def test_i2b2_2014_maps_every_tag_type() -> None:
    result = i2b2_2014.read(str(DATA / "i2b2_2014"))
    docs = {d.id: d for d in result.documents}
    assert list(docs) == ["110-01", "110-02"]
    got = Counter(texts(docs["110-01"]))
    assert got[("ID", "ph42")] == 1  # USERNAME -> ID
    assert got[("OTHER", "carpenter")] == 1  # PROFESSION -> OTHER
    assert got[("HOSPITAL", "cardiology clinic")] == 1  # DEPARTMENT -> HOSPITAL
    assert got[("LOCATION", "4B")] == 1  # ROOM -> LOCATION
    assert got[("PHONE", "603-555-0143")] == 1  # FAX -> PHONE
    assert got[("OTHER", "uvance@example.org")] == 1  # EMAIL -> OTHER
    assert {c for c, _ in got} == {"DATE", "PATIENT", "ID", "AGE", "OTHER", "HOSPITAL"} | {
        "LOCATION",
        "PHONE",
        "DOCTOR",
    }
    # A tag across a line break: its text attribute holds a space after XML normalisation.
    assert texts(docs["110-02"]) == [
        ("DATE", "2089-01-15"),
        ("HOSPITAL", "Harbor\nHealth"),
        ("HOSPITAL", "Acme Corp"),  # ORGANIZATION -> HOSPITAL
    ]


def test_i2b2_2014_patient_from_the_file_name(tmp_path: Path) -> None:
    docs = i2b2_2014.read(str(DATA / "i2b2_2014")).documents
    assert [d.metadata for d in docs] == [{"patient": "110"}, {"patient": "110"}]
    odd = tmp_path / "discharge.xml"
    shutil.copy(DATA / "i2b2_2014" / "110-02.xml", odd)
    assert i2b2_2014.read(str(odd)).documents[0].metadata == {}


def test_jsonl_group_is_the_patient_key_and_round_trips(tmp_path: Path) -> None:
    path = tmp_path / "g.jsonl"
    path.write_text(
        '{"id": "a", "group": "p1", "text": "x", "metadata": {"note": 2}}\n'
        '{"id": "b", "text": "y", "metadata": {"patient": "p2"}}\n'
    )
    docs = jsonl.read(str(path)).documents
    assert [dict(d.metadata) for d in docs] == [{"note": 2, "patient": "p1"}, {"patient": "p2"}]
    out = tmp_path / "out.jsonl"
    write_jsonl(docs, out)
    assert [line.split(", ")[:2] for line in out.read_text().splitlines()] == [
        ['{"id": "a"', '"group": "p1"'],
        ['{"id": "b"', '"group": "p2"'],
    ]
    assert jsonl.read(str(out)).documents == docs


def test_i2b2_2014_single_file_and_raw_cdata_with_carriage_returns(tmp_path: Path) -> None:
    src = (DATA / "i2b2_2014" / "110-02.xml").read_text()
    # Same note with CRLF line ends inside the CDATA, offsets counted on the raw string.
    text = "\r\n\r\nRecord date: 2089-01-15\r\n"
    crlf = src.split("<![CDATA[")[0] + f"<![CDATA[{text}]]></TEXT>\n<TAGS>\n"
    crlf += '<DATE id="P0" start="17" end="27" text="2089-01-15" TYPE="DATE" />\n</TAGS>\n'
    crlf += "</deIdi2b2>\n"
    path = tmp_path / "crlf.xml"
    path.write_bytes(crlf.encode())
    doc = i2b2_2014.read(str(path)).documents[0]
    assert doc.id == "crlf" and doc.text == text
    assert texts(doc) == [("DATE", "2089-01-15")]


def test_jsonl_round_trip_is_exact(tmp_path: Path) -> None:
    docs = [
        Document(
            id="a",
            text="Seen by Dr. Smith on 3/4 — café.\nNext line",
            spans=(Span(12, 17, "DOCTOR"), Span(21, 24, "DATE")),
            marks=(Mark(12, 17, "ambiguous"), Mark(0, 4, "not_in_dictionary")),
            metadata={"source": "demo", "n": 3, "tags": ["x", None], "ok": True},
        ),
        Document(id="b", text="no phi here"),
    ]
    path = tmp_path / "out" / "corpus.jsonl"
    assert write_jsonl(docs, path) == 2
    result = jsonl.read(str(path))
    assert result.skipped == []
    assert result.documents == docs
    assert [d.fingerprint for d in result.documents] == [d.fingerprint for d in docs]
    # A corpus round-trips too, and rewriting gives byte-identical output.
    again = tmp_path / "again.jsonl"
    corpus, _ = load_corpus(f"jsonl:{path}")
    write_jsonl(corpus, again)
    assert again.read_bytes() == path.read_bytes()


def test_writer_refuses_what_the_reader_would_reject(tmp_path: Path) -> None:
    bad = Document(id="x", text="abc", spans=(Span(1, 9, "DATE"),))
    with pytest.raises(CorpusError, match="outside the text"):
        write_jsonl([bad], tmp_path / "x.jsonl")
    assert not (tmp_path / "x.jsonl").exists()
    with pytest.raises(CorpusError, match="JSON"):
        write_jsonl([Document(id="y", text="abc", metadata={"s": {1, 2}})], tmp_path / "y.jsonl")


def test_readers_are_registered() -> None:
    assert get_reader("physionet") is physionet.read
    assert get_reader("i2b2-2006") is i2b2_2006.read
    assert get_reader("i2b2-2014") is i2b2_2014.read
    assert get_reader("jsonl") is jsonl.read


def test_mapping_tables_only_use_harness_labels() -> None:
    labels = set(LABELS)
    assert set(physionet.CATEGORIES.values()) <= labels
    assert set(i2b2_2006.CATEGORIES.values()) <= labels
    assert {c for t in i2b2_2014.CATEGORIES.values() for c in t.values()} <= labels


def test_docs_list_every_mapping() -> None:
    """docs/formats.md names every source category the code maps."""
    doc = (Path(__file__).parents[2] / "docs" / "formats.md").read_text()
    for name in physionet.CATEGORIES:
        assert f"`{name}`" in doc
    for types in i2b2_2014.CATEGORIES.values():
        for name in types:
            assert f"`{name}`" in doc


# --------------------------------------------------------------------------- bad input
#
# Each case: a reader, a function writing the bad input into tmp_path (returns the path to
# read), what the error must say, the record it must name and the offset it must give.


def _physionet(text_edit=None, phrase_edit=None) -> Callable[[Path], Path]:
    def make(tmp: Path) -> Path:
        target = tmp / "physionet"
        shutil.copytree(DATA / "physionet", target)
        for name, edit in (("notes.text", text_edit), ("notes-phi.phrase", phrase_edit)):
            if edit is not None:
                path = target / name
                path.write_bytes(edit(path.read_bytes()))
        return target

    return make


def _file(source: Path, edit: Callable[[bytes], bytes], name: str | None = None):
    def make(tmp: Path) -> Path:
        target = tmp / (name or source.name)
        target.write_bytes(edit(source.read_bytes()))
        return target

    return make


def _rep(old: str | bytes, new: str | bytes, count: int = 1) -> Callable[[bytes], bytes]:
    o = old.encode() if isinstance(old, str) else old
    n = new.encode() if isinstance(new, str) else new

    def edit(data: bytes) -> bytes:
        assert o in data, old
        return data.replace(o, n, count)

    return edit


def _dir14(edit: Callable[[bytes], bytes], name: str = "110-01.xml"):
    """The i2b2 2014 fixture directory with one file edited."""

    def make(tmp: Path) -> Path:
        target = tmp / "i2b2_2014"
        shutil.copytree(DATA / "i2b2_2014", target)
        (target / name).write_bytes(edit((target / name).read_bytes()))
        return target

    return make


_X06 = DATA / "i2b2_2006.xml"
_X14 = DATA / "i2b2_2014" / "110-01.xml"  # its CITY tag starts at 170
_GOOD_JSONL = (
    '{"id": "j1", "text": "Dr. Roe saw him.", "spans": [{"start": 4, "end": 7, '
    '"category": "DOCTOR"}]}\n'
    '{"id": "j2", "text": "Call 555-0100.", "spans": [{"start": 5, "end": 13, '
    '"category": "PHONE"}]}\n'
)


def _jsonl(edit: Callable[[bytes], bytes]) -> Callable[[Path], Path]:
    def make(tmp: Path) -> Path:
        path = tmp / "c.jsonl"
        path.write_bytes(edit(_GOOD_JSONL.encode()))
        return path

    return make


# Byte offset of the bad byte in id.text: the "é" replaced below sits in record 1-2.
_P_TEXT = (DATA / "physionet" / "notes.text").read_bytes()
_P_BAD_BYTE = _P_TEXT.index(b"no events")

BAD = {
    # -- malformed markup
    "2006-malformed-xml": (
        "i2b2-2006",
        _file(_X06, _rep("</PHI> in two weeks", "</PHX> in two weeks")),
        "malformed XML",
        "102",
        _X06.read_text().index("</PHI> in two weeks") + 2,
    ),
    "2014-malformed-xml": (
        "i2b2-2014",
        _dir14(_rep('TYPE="AGE"', 'TYPE="AGE')),
        "malformed XML",
        "110-01",
        _X14.read_text().index('TYPE="AGE"') + len('TYPE="AGE comment="'),
    ),
    "jsonl-malformed-json": (
        "jsonl",
        _jsonl(_rep('"j2",', '"j2"')),
        "invalid JSON",
        "line 2",
        _GOOD_JSONL.index('"j2",') + 5,
    ),
    "physionet-unterminated-record": (
        "physionet",
        _physionet(text_edit=_rep("\n||||END_OF_RECORD\nSTART_OF_RECORD=7", "\nSTART_OF_RECORD=7")),
        "not terminated",
        "1-2",
        _P_TEXT.index(b"START_OF_RECORD=1||||2"),
    ),
    # -- a span outside the text
    "physionet-outside": (
        "physionet",
        _physionet(phrase_edit=_rep("7 1 64 68 Other", "7 1 64 680 Other")),
        "outside the text",
        "7-1",
        64,
    ),
    "2014-outside": (
        "i2b2-2014",
        _dir14(_rep('start="15" end="25"', 'start="15" end="2500"')),
        "outside the text",
        "110-01",
        15,
    ),
    "jsonl-outside": (
        "jsonl",
        _jsonl(_rep('"start": 5, "end": 13', '"start": 5, "end": 99')),
        "outside the text",
        "j2",
        5,
    ),
    # -- annotated text differs from the note text
    "physionet-mismatch": (
        "physionet",
        _physionet(phrase_edit=_rep("15 22 HCPName Lambert", "15 22 HCPName Lambart")),
        "does not match",
        "1-1",
        15,
    ),
    "2014-mismatch": (
        "i2b2-2014",
        _dir14(_rep('text="Uriel Vance"', 'text="Uriel Vence"')),
        "does not match",
        "110-01",
        33,
    ),
    # -- overlapping spans of different categories
    "physionet-overlap": (
        "physionet",
        _physionet(
            phrase_edit=_rep(
                "1 2 59 61 PTNameInitial JQ", "1 2 59 61 PTNameInitial JQ\n1 2 56 61 Location pt JQ"
            )
        ),
        "overlaps",
        "1-2",
        59,
    ),
    "2014-overlap": (
        "i2b2-2014",
        _dir14(_rep('TYPE="AGE"', 'TYPE="AGE" /><DATE start="75" end="80" TYPE="DATE"')),
        "overlaps",
        "110-01",
        75,
    ),
    "jsonl-overlap": (
        "jsonl",
        _jsonl(
            _rep(
                '"category": "DOCTOR"}',
                '"category": "DOCTOR"}, {"start": 0, "end": 5, "category": "PATIENT"}',
            )
        ),
        "overlaps",
        "j1",
        4,
    ),
    # -- unknown category
    "physionet-category": (
        "physionet",
        _physionet(phrase_edit=_rep("Date 3/14", "Dat 3/14")),
        "unknown category in column 5",
        "1-1",
        99,
    ),
    "2006-category": (
        "i2b2-2006",
        _file(_X06, _rep('TYPE="DOCTOR">Kim', 'TYPE="NURSE">Kim')),
        "PHI element with an unknown TYPE",
        "102",
        16,
    ),
    "2014-category": (
        "i2b2-2014",
        _dir14(_rep('TYPE="CITY"', 'TYPE="TOWN"')),
        "LOCATION tag P10: unknown TYPE",
        "110-01",
        170,
    ),
    "2014-element-type-mismatch": (
        "i2b2-2014",
        _dir14(_rep('<LOCATION id="P10"', '<NAME id="P10"')),
        "NAME tag P10: unknown TYPE",
        "110-01",
        170,
    ),
    "jsonl-category": (
        "jsonl",
        _jsonl(_rep('"PHONE"', '"FAX"')),
        "unknown category (expected one of PATIENT",
        "j2",
        5,
    ),
    # -- bytes that are not UTF-8 (offset = byte offset in the file)
    "physionet-bytes": (
        "physionet",
        _physionet(text_edit=_rep(b"no events", b"no \xe9vents")),
        "not valid utf-8",
        "1-2",
        _P_BAD_BYTE + 3,
    ),
    "2006-bytes": (
        "i2b2-2006",
        _file(_X06, _rep(b"two weeks", b"two w\xffeeks")),
        "not valid utf-8",
        "102",
        _X06.read_bytes().index(b"two weeks") + 5,
    ),
    "2014-bytes": (
        "i2b2-2014",
        _dir14(_rep(b"carpenter", b"carp\xc3nter")),
        "not valid utf-8",
        "110-01",
        _X14.read_bytes().index(b"carpenter") + 4,
    ),
    "jsonl-bytes": (
        "jsonl",
        _jsonl(_rep(b"Call", b"C\x80ll")),
        "not valid utf-8",
        "line 2",
        _GOOD_JSONL.encode().index(b"Call") + 1,
    ),
    # -- an empty record
    "physionet-empty": (
        "physionet",
        _physionet(text_edit=lambda d: d + b"START_OF_RECORD=9||||1||||\n  \n||||END_OF_RECORD\n"),
        "empty record",
        "9-1",
        len(_P_TEXT) + len(b"START_OF_RECORD=9||||1||||\n"),
    ),
    "2006-empty": (
        "i2b2-2006",
        _file(_X06, _rep("</ROOT>", '<RECORD ID="103"><TEXT>\n</TEXT></RECORD>\n</ROOT>')),
        "empty record",
        "103",
        0,
    ),
    "2014-empty": (
        "i2b2-2014",
        _dir14(
            lambda d: (
                b'<?xml version="1.0" encoding="UTF-8" ?>\n<deIdi2b2><TEXT><![CDATA[\n\n]]></TEXT>'
                b"<TAGS/></deIdi2b2>\n"
            ),
            name="110-02.xml",
        ),
        "empty record",
        "110-02",
        0,
    ),
    "jsonl-empty": (
        "jsonl",
        _jsonl(lambda d: d + b'{"id": "j3", "text": "   "}\n'),
        "empty record",
        "j3",
        0,
    ),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_input_raises_located_error(case: str, tmp_path: Path) -> None:
    kind, make, reason, record, offset = BAD[case]
    path = make(tmp_path)
    read = get_reader(kind)
    with pytest.raises(CorpusError) as info:
        read(str(path))
    error = info.value
    assert reason.lower() in error.reason.lower()
    assert error.record == record
    assert error.file is not None and Path(error.file).is_relative_to(tmp_path)
    assert error.offset == offset


@pytest.mark.parametrize("case", sorted(BAD))
def test_lenient_read_skips_only_the_bad_record(case: str, tmp_path: Path) -> None:
    kind, make, _, record, _ = BAD[case]
    path = make(tmp_path)
    result = get_reader(kind)(str(path), lenient=True)
    assert len(result.skipped) == 1
    assert result.skipped[0].record == record
    assert record not in {d.id for d in result.documents}
    assert result.documents, "the good records are still read"


@pytest.mark.parametrize("kind", READERS.names())
def test_missing_file_raises_even_when_lenient(kind: str, tmp_path: Path) -> None:
    """The reader contract (:mod:`corpora.readers`): a missing file is a CorpusError naming
    it, never skipped -- for every registered reader, dropped-in ones included."""
    from corpora.load import LoadOptions

    missing = tmp_path / "nope"
    for lenient in (False, True):
        with pytest.raises(CorpusError, match="missing file") as info:
            load_corpus(f"{kind}:{missing}", LoadOptions(lenient=lenient))
        assert info.value.file is not None and info.value.file.startswith(str(missing))


@pytest.mark.parametrize("reader", [physionet.read, i2b2_2006.read, i2b2_2014.read, jsonl.read])
def test_the_built_in_readers_refuse_a_missing_file_themselves(reader, tmp_path: Path) -> None:
    missing = tmp_path / "nope"
    for lenient in (False, True):
        with pytest.raises(CorpusError, match="missing file") as info:
            reader(str(missing), lenient=lenient)
        assert info.value.file is not None and info.value.file.startswith(str(missing))


def test_physionet_missing_phrase_file(tmp_path: Path) -> None:
    shutil.copy(DATA / "physionet" / "notes.text", tmp_path / "id.text")
    with pytest.raises(CorpusError, match="missing file") as info:
        physionet.read(str(tmp_path))
    assert info.value.file == str(tmp_path / "id-phi.phrase")


def test_xml_entities_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "bomb.xml"
    path.write_text(
        '<!DOCTYPE r [<!ENTITY a "aaaa">]><ROOT><RECORD ID="1"><TEXT>&a;</TEXT></RECORD></ROOT>'
    )
    with pytest.raises(CorpusError, match="forbidden XML"):
        i2b2_2006.read(str(path))


def test_load_corpus_reports_lenient_skips(tmp_path: Path) -> None:
    from corpora.load import LoadOptions

    path = _jsonl(_rep('"j2",', '"j2"'))(tmp_path)
    corpus, skipped = load_corpus(f"jsonl:{path}", LoadOptions(lenient=True))
    assert [d.id for d in corpus] == ["j1"] and len(skipped) == 1


def test_error_messages_never_contain_the_phrase(tmp_path: Path) -> None:
    path = BAD["physionet-mismatch"][1](tmp_path)
    with pytest.raises(CorpusError) as info:
        physionet.read(str(path))
    assert "Lamb" not in str(info.value)


# --------------------------------------------------------------------------- real corpus


def test_physionet_real_corpus_counts(physionet_dir: Path) -> None:
    """All 1,560 notes read and all 1,196 phrases verify against the text (none skipped)."""
    phrase_lines = (physionet_dir / "id-phi.phrase").read_text().splitlines()
    assert len(phrase_lines) == 1196
    result = physionet.read(str(physionet_dir))
    assert len(result.documents) == 1560
    assert result.skipped == []
    # The reader raises on any mismatch; check independently that every phrase is covered.
    docs = {d.id: d for d in result.documents}
    for line in phrase_lines:
        patient, note, start, end, kind, phrase = line.split(" ", 5)
        doc = docs[f"{patient}-{note}"]
        s, e = int(start), int(end)
        assert doc.text[s:e] == phrase
        assert any(
            sp.start <= s and e <= sp.end and sp.category == physionet.CATEGORIES[kind]
            for sp in doc.spans
        )
    # One pair of overlapping Location phrases (record 11-1) is merged into one span.
    assert sum(len(d.spans) for d in result.documents) == 1195


def test_physionet_real_corpus_reads_fast(physionet_dir: Path, benchmark) -> None:
    result = benchmark(physionet.read, str(physionet_dir))
    assert len(result.documents) == 1560


def test_physionet_through_load_corpus_token_counts(physionet_dir: Path) -> None:
    """Table-1-like counts (tokens per class) are sane; only counts are ever printed."""
    corpus, skipped = load_corpus(f"physionet:{physionet_dir}")
    assert skipped == [] and len(corpus) == 1560
    counts = Counter(t.label for d in corpus for t in d.tokens)
    phi_tokens = sum(n for label, n in counts.items() if is_phi(label))
    # PhysioNet phrases are nearly all one token long (names are annotated word by word),
    # so the PHI token count is close to the 1,195 spans.
    assert phi_tokens >= sum(len(d.spans) for d in corpus) and phi_tokens > 1200
    assert counts["O"] > 50 * phi_tokens  # PHI is rare in nursing notes
    assert counts["DOCTOR"] > counts["PATIENT"] > 0
    assert counts["DATE"] > 0 and counts["LOCATION"] > 0 and counts["PHONE"] > 0
    assert counts["HOSPITAL"] == 0  # folded into Location by the corpus
    print({label: n for label, n in sorted(counts.items())})  # counts only, no PHI


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        (
            '{"id": "k", "text": "abc", "spans": [{"start": "0", "end": 1, "category": "ID"}]}',
            "spans[0].start must be an integer",
        ),
        (
            '{"id": "k", "text": "abc", "spans": [{"start": true, "end": 1, "category": "ID"}]}',
            "spans[0].start must be an integer",
        ),
        ('{"id": "k", "text": "abc", "span": []}', "1 unknown key(s); allowed: group, id, marks"),
        (
            '{"id": "k", "text": "abc", "marks": [{"start": 0, "end": 9, "flag": "x"}]}',
            "mark 0-9 outside the text",
        ),
        ('{"id": "k", "text": 5}', "'text' must be a string"),
        ('{"id": "k", "text": "abc", "group": 110}', "'group' must be a string"),
        ('{"id": "k", "text": "abc", "group": ""}', "'group' must not be empty"),
        (
            '{"id": "k", "text": "abc", "group": "p1", "metadata": {"patient": "p2"}}',
            "'group' and metadata.patient differ",
        ),
        ('["k", "abc"]', "line 1 must be an object"),
    ],
)
def test_jsonl_field_errors(line: str, reason: str, tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    path.write_text(line + "\n")
    with pytest.raises(CorpusError) as info:
        jsonl.read(str(path))
    assert reason in info.value.reason


def test_duplicate_ids_are_errors(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    path.write_text(_GOOD_JSONL + _GOOD_JSONL.splitlines()[0] + "\n")
    with pytest.raises(CorpusError, match="duplicate record id") as info:
        jsonl.read(str(path))
    assert info.value.record == "j1"


def test_physionet_malformed_phrase_line(tmp_path: Path) -> None:
    path = _physionet(phrase_edit=_rep("7 1 20 22 Age 92", "7 1 twenty 22 Age 92"))(tmp_path)
    with pytest.raises(CorpusError, match=r"line 10: start \(column 3\) is not") as info:
        physionet.read(str(path))
    assert info.value.record == "7-1"
    result = physionet.read(str(path), lenient=True)
    assert [d.id for d in result.documents] == ["1-1", "1-2"] and len(result.skipped) == 1
