"""Stat De-id feature classes (2006 §5), the MeSH substitute and the Link Grammar class."""

from __future__ import annotations

import pytest

from corpora.dictionaries import _system_dictionaries
from corpora.model import Document
from systems.features.base import combine
from systems.features.common import (
    BigramContext,
    DictionaryWindow,
    Orthography,
    PosWindow,
    Section,
    WordWindow,
)
from systems.features.statdeid import (
    ALL_FEATURES,
    STATDEID_FEATURES,
    FeatureUnavailable,
    MedicalVocabulary,
    build,
    feature_template,
    unavailable_reason,
)
from tests.conftest import requires_nltk

DOC = Document(
    "d",
    "HISTORY OF PRESENT ILLNESS:\n"
    "Pt was admitted in July with chest pain to Riverside Hospital by Dr. Smith-Jones on 7/22.",
)


def _row(rows: list[dict[str, float]], word: str) -> dict[str, float]:
    return rows[next(t.index for t in DOC.tokens if t.text == word)]


def test_the_paper_feature_list_is_composed_of_shared_primitives() -> None:
    assert list(STATDEID_FEATURES) == [
        "word",
        "neighbours",
        "lexical_bigrams",
        "pos",
        "orthography",
        "medical_vocabulary",
        "dictionaries",
        "section",
    ]
    kinds = {name: type(f) for name, f in build()}
    assert kinds == {
        "word": WordWindow,
        "neighbours": WordWindow,
        "lexical_bigrams": BigramContext,
        "pos": PosWindow,
        "orthography": Orthography,
        "medical_vocabulary": MedicalVocabulary,
        "dictionaries": DictionaryWindow,
        "section": Section,
    }
    named = dict(build())
    assert named["word"].lemmatized and named["word"].offsets == (0,)
    assert named["neighbours"].lemmatized and named["neighbours"].offsets == (-1, 1)
    assert named["dictionaries"].offsets == (-1, 0, 1)
    assert set(named["dictionaries"].groups) >= {"first_name", "last_name", "location", "month"}
    assert "syntactic_bigrams" in ALL_FEATURES and "syntactic_bigrams" not in STATDEID_FEATURES


def test_build_rejects_unknown_names_and_expands_all(monkeypatch) -> None:
    with pytest.raises(ValueError, match="unknown feature class"):
        build(("word", "nope"))
    from systems.features import linkgrammar

    monkeypatch.setenv("DEID_BENCH_NO_LINKGRAMMAR", "1")
    linkgrammar._module.cache_clear()
    try:
        assert "DEID_BENCH_NO_LINKGRAMMAR" in (unavailable_reason("syntactic_bigrams") or "")
        with pytest.raises(FeatureUnavailable, match="unavailable: "):
            build(("all",))
    finally:
        linkgrammar._module.cache_clear()


def test_surface_features_without_nltk() -> None:
    named = dict(build(("orthography", "section", "dictionaries")))
    rows = combine(list(named.values()), [DOC])[0]
    smith = _row(rows, "Smith-Jones")
    assert {"init_cap", "has_hyphen", "len=11"} <= set(smith)
    assert "has_slash" in _row(rows, "7/22")
    assert "sec=HISTORY OF PRESENT ILLNESS:" in smith
    assert "dict0=month" in _row(rows, "July")
    assert "dict+1=month" in _row(rows, "in") and "dict-1=month" in _row(rows, "with")


@requires_nltk
def test_lemmatized_words_bigrams_and_pos() -> None:
    rows = combine([f for _, f in build()], [DOC])[0]
    admitted = _row(rows, "admitted")
    assert {"lw0=admit", "lw-1=be", "lw+1=in", "bg-=pt_be", "bg+=in_july"} <= set(admitted)
    assert {"pos0=VBN", "pos-1=VBD", "pos+1=IN"} <= set(admitted)
    smith = _row(rows, "Smith-Jones")
    assert {"lw0=smith-jones", "lw-1=dr.", "bg-=by_dr.", "pos0=NNP"} <= set(smith)


@requires_nltk
def test_medical_vocabulary_classes_the_noun_phrase_by_its_head(tmp_path) -> None:
    rows = MedicalVocabulary().extract(DOC)
    # "chest pain" is one noun phrase whose head "pain" is a WordNet state
    assert set(_row(rows, "chest")) == set(_row(rows, "pain")) == {"np_class=noun.state"}
    assert set(_row(rows, "was")) == {"np_class=NONE"}
    assert _row(rows, "Hospital") == _row(rows, "Riverside")
    # a medical term list adds the np_med flag (our MeSH membership substitute)
    (tmp_path / "medical_terms.txt").write_text("pain\nangina\n")
    try:
        rows = MedicalVocabulary(dictionaries=str(tmp_path)).extract(DOC)
        assert set(_row(rows, "chest")) == {"np_class=noun.state", "np_med"}
        assert "np_med" not in _row(rows, "Hospital")
    finally:
        _system_dictionaries.memo.discard((str(tmp_path),))


def test_feature_templates_group_values_of_one_feature() -> None:
    assert feature_template("lw-1=the") == "lw-1"
    assert feature_template("bg+=of_the") == "bg+"
    assert feature_template("init_cap") == "init_cap"
    # dictionary presence features are binary: each is its own template (2006 §6.4 counts
    # them separately)
    assert feature_template("dict-1=last_name") == "dict-1=last_name"


def test_syntactic_bigrams_follow_long_range_links(tmp_path, monkeypatch) -> None:
    from systems.features import linkgrammar

    reason = linkgrammar.unavailable_reason()
    if reason is not None:
        pytest.skip(f"Link Grammar unavailable: {reason}")
    monkeypatch.setenv("DEID_BENCH_CACHE", str(tmp_path))
    doc = Document("lg", "John Smith, who had a hernia, was admitted yesterday.")
    rows = linkgrammar.SyntacticBigrams().extract(doc)
    was = rows[next(t.index for t in doc.tokens if t.text == "was")]
    # "was" links back over the relative clause to the subject's name
    assert any(k.startswith("sb-1=") and "smith" in k for k in was), was
    admitted = rows[next(t.index for t in doc.tokens if t.text == "admitted")]
    assert any(k.startswith("sb-2=") and "smith" in k for k in admitted), admitted
    assert all(k.startswith("sb") for row in rows for k in row)
