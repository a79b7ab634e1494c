"""The MIST-style ``mist`` system: Table 2.1 regexes, dictionary features, learned rules."""

from __future__ import annotations

from pathlib import Path

import pytest

from corpora.model import OUTSIDE, Document, gold_labels
from systems.base import available_systems, get_system
from systems.features.base import combine
from systems.features.common import DictionaryWindow, Orthography, WordWindow
from systems.features.mist import TABLE_2_1, MistRegex, mist_features
from tests.systems.test_crf import notes

TEXT = "Call 555-1234 or 617-555-1234 , zip 02114 , temp 38.5 on 7 / 22 , BP high , MRN-123 2007 8"
DOC = Document("m", TEXT)


def _regexes(word: str) -> set[str]:
    rows = MistRegex().extract(DOC)
    row = rows[next(t.index for t in DOC.tokens if t.text == word)]
    return {k[3:] for k in row}


def test_table_2_1_patterns_fire_on_their_examples() -> None:
    assert "phone_7" in _regexes("555-1234")
    assert "phone_10" in _regexes("617-555-1234")
    assert "phone_7" not in _regexes("617-555-1234")
    assert {"five_digits", "alphanumeric"} <= _regexes("02114")
    assert "real_number" in _regexes("38.5")
    assert {"date_separator", "punctuation"} <= _regexes("/")
    assert {"double_digit", "four_digits"} & _regexes("2007") == {"four_digits"}
    assert "single_digit" in _regexes("8")
    assert "dash_alnum" in _regexes("MRN-123")
    assert {"alpha", "no_vowels"} <= _regexes("BP")
    assert "no_vowels" not in _regexes("high")
    assert _regexes(",") == {"punctuation", "no_vowels"}


def test_table_2_1_letters_are_any_unicode_letters() -> None:
    doc = Document("u", "Jäkel , Łódź-12 , ŠEVČÍKOVÁ , Jakel")
    rows = MistRegex().extract(doc)
    got = {t.text: {k[3:] for k in rows[t.index]} for t in doc.tokens}
    assert got["Jäkel"] == got["Jakel"] == got["ŠEVČÍKOVÁ"]
    assert {"alpha", "alphanumeric"} <= got["Jäkel"]
    assert "dash_alnum" in got["Łódź-12"] and "punctuation" not in got["Łódź-12"]


def test_table_rows_already_in_orthography_are_not_written_twice() -> None:
    features = mist_features()
    assert isinstance(features[0], Orthography)
    assert not {"init_cap", "all_caps", "has_digit", "all_digits", "has_hyphen"} & set(TABLE_2_1)
    rows = combine(features, [DOC])[0]
    call = rows[0]
    assert "init_cap" in call and "re=alpha" in call  # Orthography row + Table 2.1 row


def test_dictionary_hit_and_miss(tmp_path: Path) -> None:
    (tmp_path / "last_names.txt").write_text("zyxwort\n")
    (tmp_path / "hospitals.txt").write_text("quillfeather general\n")
    doc = Document("d", "Dr. Zyxwort at Quillfeather General ; Dr. Qwomble")
    features = mist_features(str(tmp_path))
    assert any(
        isinstance(f, DictionaryWindow) and f.dictionaries == str(tmp_path) for f in features
    )
    rows = combine(features, [doc])[0]
    by_word = {t.text: rows[t.index] for t in doc.tokens}
    assert "dict0=last_name" in by_word["Zyxwort"]
    assert "dict+1=last_name" in rows[0]  # "Dr." sees the name after it
    assert "dict0=hospital" in by_word["Quillfeather"] and "dict0=hospital" in by_word["General"]
    miss = by_word["Qwomble"]  # a name no dictionary knows: no membership feature at all
    assert not [k for k in miss if k.startswith("dict0=")]


def test_mist_is_registered_and_lexical_is_optional() -> None:
    assert "mist" in available_systems()
    assert isinstance(get_system("mist").feature_classes()[0], WordWindow)
    literal = get_system("mist", lexical=False).feature_classes()
    assert not any(isinstance(f, WordWindow) for f in literal)


def test_regexes_alone_generalize_to_unseen_numbers() -> None:
    """Tafvizi's literal MIST (regexes + dictionaries, no words) learns from the phone
    pattern that a 7-digit dash number it never saw is a PHONE, and a dd/dd a DATE."""
    system = get_system("mist", lexical=False, max_iterations=40)
    system.fit(notes(30))
    test = Document("t", "Call wife at 831-5520 if sats drop below 90.\nPt seen on 11/25.")
    labels = dict(zip([t.text for t in test.tokens], system.predict([test])[0], strict=True))
    assert labels["831-5520"] == "PHONE"
    assert labels["11/25"] == "DATE"
    assert labels["90"] == OUTSIDE and labels["Call"] == OUTSIDE


@pytest.mark.parametrize("two_stage", [False, True])
def test_mist_system_end_to_end(two_stage: bool) -> None:
    train, test = notes(24, seed=5), notes(4, seed=6)
    system = get_system("mist", max_iterations=30, two_stage=two_stage, inner_folds=2)
    predictions = system.fit_predict(train, test)
    gold = gold_labels(test)
    pairs = [
        (g, p)
        for gd, pd in zip(gold, predictions, strict=True)
        for g, p in zip(gd, pd, strict=True)
    ]
    assert sum(g == p for g, p in pairs) / len(pairs) > 0.95
