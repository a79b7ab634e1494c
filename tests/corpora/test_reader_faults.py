"""Readers on damaged files: an unclosed record loses only itself, a key given twice is an
error, offsets are plain ASCII digits, special files are refused."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from corpora.model import CorpusError
from corpora.readers import brat, i2b2_2006, i2b2_2014, jsonl, physionet

DATA = Path(__file__).parent / "data"
X06 = (DATA / "i2b2_2006.xml").read_text()


def test_i2b2_2006_unclosed_record_loses_only_itself(tmp_path: Path) -> None:
    """Record 101 lacks </RECORD>: a lenient read skips it, and reads 102 after it."""
    bad = X06.replace('</TEXT>\n</RECORD>\n<RECORD ID="102">', '</TEXT>\n<RECORD ID="102">')
    assert bad != X06
    path = tmp_path / "unclosed.xml"
    path.write_text(bad)
    with pytest.raises(CorpusError, match="not closed") as info:
        i2b2_2006.read(str(path))
    assert info.value.record == "101"
    assert info.value.offset == bad.index('<RECORD ID="101"')
    result = i2b2_2006.read(str(path), lenient=True)
    assert [d.id for d in result.documents] == ["102"]
    assert [e.record for e in result.skipped] == ["101"]


def test_i2b2_2006_last_record_unclosed(tmp_path: Path) -> None:
    path = tmp_path / "truncated.xml"
    path.write_text(X06[: X06.index("</RECORD>\n</ROOT>")])
    result = i2b2_2006.read(str(path), lenient=True)
    assert [d.id for d in result.documents] == ["101"]
    assert [e.record for e in result.skipped] == ["102"]


GOOD = (
    '{"id": "a", "text": "Dr. Roe saw him.", "spans": [{"start": 4, "end": 7, '
    '"category": "DOCTOR"}]}\n'
)


@pytest.mark.parametrize(
    ("line", "key"),
    [
        (GOOD.replace('"spans"', '"spans": [], "spans"'), "spans"),
        (GOOD.replace('"start": 4,', '"start": 4, "start": 5,'), "start"),
        (GOOD.replace('"text"', '"id": "b", "text"'), "id"),
    ],
)
def test_jsonl_key_given_twice_is_an_error(line: str, key: str, tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    path.write_text(GOOD.replace('"a"', '"z"') + line)
    with pytest.raises(CorpusError, match="a key appears twice") as info:
        jsonl.read(str(path))
    assert f"'{key}'" not in str(info.value)  # a value read from the file is never shown
    assert info.value.record == "line 2"
    assert info.value.offset == len(GOOD)
    result = jsonl.read(str(path), lenient=True)
    assert [d.id for d in result.documents] == ["z"] and len(result.skipped) == 1


def test_jsonl_ignores_a_byte_order_mark(tmp_path: Path) -> None:
    path = tmp_path / "bom.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + GOOD.encode())
    (doc,) = jsonl.read(str(path)).documents
    assert doc.text.startswith("Dr. Roe") and doc.span_text(doc.spans[0]) == "Roe"


def _physionet_with(tmp_path: Path, start: str) -> Path:
    target = tmp_path / "physionet"
    shutil.copytree(DATA / "physionet", target)
    phrase = target / "notes-phi.phrase"
    text = phrase.read_text(encoding="utf-8")
    assert "1 1 15 22 HCPName Lambert" in text
    phrase.write_text(text.replace("1 1 15 22 HCPName", f"1 1 {start} 22 HCPName"), "utf-8")
    return target


def _i2b2_2014_with(tmp_path: Path, start: str) -> Path:
    target = tmp_path / "i2b2_2014"
    shutil.copytree(DATA / "i2b2_2014", target)
    xml = target / "110-01.xml"
    text = xml.read_text(encoding="utf-8")
    assert 'start="15" end="25"' in text
    xml.write_text(text.replace('start="15" end="25"', f'start="{start}" end="25"'), "utf-8")
    return target


def _brat_with(tmp_path: Path, start: str) -> Path:
    target = tmp_path / "brat"
    target.mkdir()
    (target / "1-1.txt").write_text("Seen by Dr. Lambert today.\n", "utf-8")
    (target / "1-1.ann").write_text(f"T1\tDOCTOR {start} 19\tLambert\n", "utf-8")
    return target


@pytest.mark.parametrize("start", ["١٥", "1_5", "+15", "0x0f", "15.0", "-15"])
@pytest.mark.parametrize(
    ("reader", "make"),
    [
        (physionet.read, _physionet_with),
        (i2b2_2014.read, _i2b2_2014_with),
        (brat.read, _brat_with),
    ],
    ids=["physionet", "i2b2-2014", "brat"],
)
def test_offsets_are_ascii_digits_only(start: str, reader, make, tmp_path: Path) -> None:
    """``int()`` reads all of these as 15 (or -15); an offset is a plain decimal number."""
    path = make(tmp_path, start)
    with pytest.raises(CorpusError, match="not a non-negative whole number in ASCII digits"):
        reader(str(path))


def test_the_same_offsets_in_ascii_digits_read(tmp_path: Path) -> None:
    assert physionet.read(str(_physionet_with(tmp_path / "p", "15"))).documents
    assert i2b2_2014.read(str(_i2b2_2014_with(tmp_path / "i", "15"))).documents
    assert brat.read(str(_brat_with(tmp_path, "12"))).documents


@pytest.mark.parametrize("kind", [jsonl.read, i2b2_2006.read, brat.read])
def test_a_device_is_not_read(kind) -> None:
    with pytest.raises(CorpusError, match="not a regular file"):
        kind("/dev/zero")
