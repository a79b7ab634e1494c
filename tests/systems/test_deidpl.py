"""deid.pl through the adapter: records, byte offsets, types, patient context, failures.

The fast tests run a stand-in written for them (``peer_tools/fake_deidpl.py``, behind a
stand-in ``perl``); the real program runs where ``../shared/peers/deid-1.1`` and Perl are.
"""

from __future__ import annotations

import shutil
import stat
import sys
from pathlib import Path

import pytest

from corpora.model import Document
from systems.base import SystemUnavailable
from systems.deidpl import DeidPl, default_home

TOOLS = Path(__file__).parent / "peer_tools"


@pytest.fixture
def fake_home(tmp_path) -> tuple[str, str]:
    """(home, perl): a deid.pl install holding the stand-in, and a 'perl' that runs it."""
    home = tmp_path / "deid"
    (home / "lists").mkdir(parents=True)
    shutil.copy(TOOLS / "fake_deidpl.py", home / "deid.pl")
    (home / "deid-output.config").write_text("Gold standard comparison = 0\n")
    perl = tmp_path / "perl"
    perl.write_text(
        f"#!{sys.executable}\n"
        "import runpy, sys\n"
        "sys.argv = [a for a in sys.argv[1:] if not a.startswith('-I')]\n"
        "runpy.run_path(sys.argv[0], run_name='__main__')\n"
    )
    perl.chmod(perl.stat().st_mode | stat.S_IXUSR)
    return str(home), str(perl)


def _doc(i: int, text: str, patient: str | None = None) -> Document:
    return Document(f"d{i}", text, metadata={"patient": patient} if patient else {})


def _marked(doc: Document, labels: list[str]) -> dict[str, str]:
    return {t.text: lab for t, lab in zip(doc.tokens, labels, strict=True) if lab != "O"}


def test_spans_types_and_byte_offsets(fake_home) -> None:
    home, perl = fake_home
    docs = [
        _doc(0, "Résumé: Mr. Lee seen 3/14, stable.\n"),  # offsets in bytes shift after "é"
        _doc(1, "no phi here"),  # no final newline: one is added before the end marker
    ]
    system = DeidPl(home=home, perl=perl)
    labels = system.predict(docs)
    assert _marked(docs[0], labels[0]) == {"Lee": "PATIENT", "3/14": "DATE"}
    assert set(labels[1]) == {"O"}
    assert "all notes of a call in one run" in system.fitted_info()["runs_as"]


def test_patient_context_follows_the_patient_key(fake_home) -> None:
    home, perl = fake_home
    docs = [
        _doc(0, "Mr. Lee admitted.\n", "p1"),
        _doc(1, "Mr. Kay admitted.\n", "p2"),
        _doc(2, "Lee comfortable overnight.\n", "p1"),  # p1's earlier note named Lee
        _doc(3, "Lee visited Kay.\n", "p2"),  # p2 only knows Kay
    ]
    with_context = DeidPl(home=home, perl=perl).predict(docs)
    assert _marked(docs[2], with_context[2]) == {"Lee": "PATIENT"}
    assert _marked(docs[3], with_context[3]) == {"Kay": "PATIENT"}
    alone = DeidPl(home=home, perl=perl, patient_context=False).predict(docs)
    assert _marked(docs[2], alone[2]) == {} and _marked(docs[3], alone[3]) == {}
    per_note = DeidPl(home=home, perl=perl, batch=False).predict(docs)
    assert per_note == alone


def test_failing_notes_are_found_and_named(fake_home) -> None:
    home, perl = fake_home
    docs = [
        _doc(0, "Mr. Lee seen 3/14.\n"),
        _doc(1, "Mr. Kay CRASH.\n"),
        _doc(2, "SILENT note by Mr. Roe.\n"),
        _doc(3, "a note with its own\n||||END_OF_RECORD\nmarker\n"),
    ]
    system = DeidPl(home=home, perl=perl)
    labels = system.predict(docs)
    assert _marked(docs[0], labels[0]) == {"Lee": "PATIENT", "3/14": "DATE"}
    assert all(set(labels[i]) == {"PHI"} for i in (1, 2, 3))
    errors = {f["document"]: f["error"] for f in system.fitted_info()["note_failures"]}
    assert errors["d1"].startswith("exited with code 2")
    assert errors["d2"] == "deid.pl wrote no PHI list for the note"
    assert "record marker" in errors["d3"]


def test_unavailable_without_an_install_or_perl(tmp_path, fake_home) -> None:
    with pytest.raises(SystemUnavailable, match=r"deidpl\.home=DIR"):
        DeidPl(home=str(tmp_path / "nowhere")).predict([_doc(0, "x")])
    home, _ = fake_home
    with pytest.raises(SystemUnavailable, match="install Perl"):
        DeidPl(home=home, perl="no-such-perl").predict([_doc(0, "x")])
    with pytest.raises(ValueError, match="timeout"):
        DeidPl(timeout=0).check_params()


def test_the_install_is_part_of_the_cache_key(fake_home) -> None:
    home, perl = fake_home
    system = DeidPl(home=home, perl=perl)
    before = system.tool_fingerprint()
    (Path(home) / "lists" / "names.txt").write_text("Lee\n")
    assert system.tool_fingerprint() != before


needs_deidpl = pytest.mark.skipif(
    default_home() is None or shutil.which("perl") is None,
    reason="deid.pl (../shared/peers/deid-1.1 or DEID_BENCH_DEIDPL) or perl not found",
)


@needs_deidpl
def test_the_real_program_on_physionet_notes(physionet_dir) -> None:
    from corpora.load import LoadOptions, load_corpus

    corpus, _ = load_corpus(f"physionet:{physionet_dir}", LoadOptions())
    docs = list(corpus.documents[:6])
    system = DeidPl()
    labels = system.predict(docs)
    gold = sum(t.label != "O" for d in docs for t in d.tokens)
    found = sum(
        t.label != "O" and lab != "O"
        for d, ls in zip(docs, labels, strict=True)
        for t, lab in zip(d.tokens, ls, strict=True)
    )
    assert gold and found / gold > 0.8  # deid.pl finds most PHI of its own corpus
    assert {"DATE", "HOSPITAL"} <= {lab for ls in labels for lab in ls}
    assert "note_failures" not in system.fitted_info()
