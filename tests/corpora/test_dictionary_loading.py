"""Dictionary directories load in the deid-1.1 layout and the flat layout."""

from __future__ import annotations

import pytest

from corpora.dictionaries import load_directory
from corpora.model import CorpusError


def test_flat_layout(tmp_path) -> None:
    (tmp_path / "hospitals.txt").write_text("# comment\nGeneral  Hospital\n\nst. mary\n")
    (tmp_path / "last_names.ambig.txt").write_text("Brown\n")
    d = load_directory(tmp_path)
    assert d.get("hospitals") == {"general hospital", "st. mary"}
    assert d.ambiguous("last_names") == {"brown"}
    assert d.contains("months", "Sept")


def test_missing_directory_is_a_clear_error(tmp_path) -> None:
    with pytest.raises(CorpusError, match="not found"):
        load_directory(tmp_path / "nope")


def test_deid_layout(deid_dictionaries_dir) -> None:
    d = load_directory(deid_dictionaries_dir)
    assert len(d.get("last_names")) > 80_000
    assert d.ambiguous("female_first_names")
    assert d.get("common_words")
    assert {"us_states", "hospitals", "area_codes", "name_titles"} <= set(d.names())
