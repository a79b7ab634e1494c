"""A site's own word lists: read file by file, and their share of clinician names."""

from __future__ import annotations

from pathlib import Path

import pytest

from corpora.dictionaries import ENV_DICTIONARIES, SITE_LISTS, Dictionaries, deid_files
from corpora.model import Corpus, CorpusError, Document, Span
from corpora.stats import site_list_coverage, stats_markdown


def test_deid_files_keeps_each_file_apart(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "lists").mkdir()
    (tmp_path / "lists" / "female_names_unambig.txt").write_text("Ottoline\nMae\n")
    (tmp_path / "lists" / "female_names_ambig.txt").write_text("Mae\nHope\n")
    files = deid_files(tmp_path)
    # "mae" is in both files: the canonical list merges them, the files keep both roles
    assert files["lists/female_names_unambig.txt"] == {"ottoline", "mae"}
    assert files["lists/female_names_ambig.txt"] == {"mae", "hope"}
    monkeypatch.delenv(ENV_DICTIONARIES, raising=False)
    assert deid_files(None) == {}
    monkeypatch.setenv(ENV_DICTIONARIES, str(tmp_path))
    assert deid_files(None) == files  # the --dictionaries directory
    with pytest.raises(CorpusError, match="not found"):
        deid_files(tmp_path / "missing")


def _corpus() -> Corpus:
    text = "Seen by Dr. Brannigan and Dr. Yarrow Fenn; Ottilie Q. RN aware."
    #       0         1         2         3         4         5         6
    #       0123456789012345678901234567890123456789012345678901234567890123
    spans = (Span(12, 21, "DOCTOR"), Span(30, 41, "DOCTOR"), Span(43, 53, "DOCTOR"))
    return Corpus("c", (Document("d", text, spans), Document("e", "no names")))


def test_clinician_names_covered_by_the_site_lists() -> None:
    d = Dictionaries()
    d.add("doctor_last_names", ["brannigan"])
    d.add("doctor_first_names", ["ottilie"])
    d.add("last_names", ["fenn"])  # a census list is not a site list
    assert "doctor_last_names" in SITE_LISTS
    assert site_list_coverage(_corpus(), d) == (2, 3)
    text = stats_markdown(_corpus(), dicts=d)
    assert "2 of 3 clinician-name occurrences (67%)" in text
    assert "Brannigan" not in text  # counts only, never PHI text
    # without site lists the section is left out
    assert "Clinician names" not in stats_markdown(_corpus(), dicts=Dictionaries())
