"""Shared primitive feature classes produce the features the papers name."""

from __future__ import annotations

from corpora.dictionaries import Dictionaries, lookup_form, system_dictionaries
from corpora.model import Document
from systems.features import common
from systems.features.base import FEATURE_SPACE, combine, extract_cached, token_names
from tests.conftest import requires_nltk

DOC = Document("d", "Seen by Dr. Smith in Boston.\nHR 80-90, on 7/22.")


def _row(features: list[dict[str, float]], doc: Document, word: str) -> dict[str, float]:
    idx = next(t.index for t in doc.tokens if t.text == word)
    return features[idx]


def test_word_window_respects_sentence_boundaries() -> None:
    feats = common.WordWindow(offsets=(-1, 0, 1)).extract(DOC)
    smith = _row(feats, DOC, "Smith")
    assert smith == {"w-1=dr.": 1.0, "w0=smith": 1.0, "w+1=in": 1.0}
    hr = _row(feats, DOC, "HR")
    assert "w-1=<s>" in hr  # "HR" starts a new sentence after the period


def test_orthography_and_shape() -> None:
    feats = common.Orthography().extract(DOC)
    assert {"init_cap", "len=5"} <= set(_row(feats, DOC, "Smith"))
    assert "has_slash" in _row(feats, DOC, "7/22")
    assert "has_hyphen" in _row(feats, DOC, "80-90")
    assert "all_caps" in _row(feats, DOC, "HR")
    assert common.word_shape("Smith") == "Xx"
    assert common.word_shape("07/22/2006") == "d/d/d"
    assert common.word_shape("McDonald", collapse=False) == "XxXxxxxx"


def test_shapes_class_letters_by_their_unicode_case() -> None:
    # a name from another country has the shape of a name, not one no training note had
    assert common.word_shape("Östman") == common.word_shape("Ostman") == "Xx"
    assert common.word_shape("ŠEVČÍKOVÁ") == "X"
    assert common.word_shape("Łódź-2", collapse=False) == "Xxxx-d"
    assert common.word_shape("Ærø/ß") == "Xx/x"


def test_char_ngrams_mark_boundaries() -> None:
    row = _row(common.CharNgrams(2, 3).extract(DOC), DOC, "Smith")
    assert {"ng=<s", "ng=th>", "ng=smi"} <= set(row)


def _window(monkeypatch, tmp_path, last_names: str, locations: str) -> common.DictionaryWindow:
    """A last-name and location window over lists of these entries (one per line)."""
    (tmp_path / "last_names.txt").write_text(last_names, encoding="utf-8")
    (tmp_path / "locations.txt").write_text(locations, encoding="utf-8")
    monkeypatch.setenv("DEID_BENCH_DICTIONARIES", str(tmp_path))
    system_dictionaries.__globals__["_system_dictionaries"].cache_clear()
    return common.DictionaryWindow(groups=("last_name", "location"), dictionaries=str(tmp_path))


def test_dictionary_window_uses_system_dictionaries(monkeypatch, tmp_path) -> None:
    fc = _window(monkeypatch, tmp_path, "Smith\n", "boston\nnew york\n")
    feats = fc.extract(DOC)
    assert "dict0=last_name" in _row(feats, DOC, "Smith")
    assert "dict+1=last_name" in _row(feats, DOC, "Dr.")
    assert "dict0=location" in _row(feats, DOC, "Boston")
    doc2 = Document("e", "moved to New York last year")
    hits = fc.membership(doc2)
    # "new york" matches as a phrase; "york" may also be a (packaged) census surname
    assert all("location" in h for h in hits[2:4]) and "location" not in hits[1]



def test_lookup_form_spells_a_word_as_an_ascii_list_holds_it() -> None:
    assert lookup_form("Jäkel") == "jakel"
    assert lookup_form("ŠEVČÍKOVÁ") == "sevcikova"
    assert lookup_form("Łukasz") == lookup_form("Lukasz") == "lukasz"
    assert lookup_form("Søren") == "soren" and lookup_form("Großmann") == "grossmann"
    assert lookup_form("O'Brien") == "o'brien"  # ASCII: as normalize gives it


def test_a_name_with_diacritics_meets_its_ascii_entry(monkeypatch, tmp_path) -> None:
    fc = _window(monkeypatch, tmp_path, "muller\nlodz\n", "sao paulo\njönköping\n")
    doc = Document("f", "Dr. Müller saw Muller from São Paulo and Jönköping, not Łódź or Mxller.")
    hits = dict(zip((t.text for t in doc.tokens), fc.membership(doc), strict=False))
    assert "last_name" in hits["Müller"] and hits["Müller"] == hits["Muller"]
    assert "location" in hits["São"] and "location" in hits["Paulo"]  # a phrase, folded
    assert "location" in hits["Jönköping"]  # an entry with diacritics matches as written
    assert "last_name" in hits["Łódź"]  # Ł carries no mark: spelled L
    assert not hits["Mxller"] and not hits["saw"]
    rows = fc.extract(doc)
    assert "dict+1=last_name" in rows[[t.text for t in doc.tokens].index("Dr.")]


def test_combine_merges_and_caches() -> None:
    classes = [common.Orthography(), common.Section()]
    merged = combine(classes, [DOC])[0]
    assert len(merged) == len(DOC.tokens)
    assert "sec=NONE" in merged[0] and "init_cap" in merged[0]
    calls = []
    orthography = classes[0]
    extract = orthography.extract
    orthography.extract = lambda doc: calls.append(doc) or extract(doc)  # type: ignore[method-assign]
    assert extract_cached(orthography, DOC) == extract(DOC)
    assert not calls  # extracted once per process: combine above did it
    # one copy of each name: the dicts' keys are the feature vocabulary's strings
    names = {id(k) for row in combine(classes, [DOC])[0] for k in row}
    assert names <= {id(k) for k in FEATURE_SPACE.names}


@requires_nltk
def test_pos_and_lemmatized_bigrams() -> None:
    doc = Document("d", "The nurses called the patients' families.")
    pos = common.PosWindow(offsets=(0,)).extract(doc)
    assert pos[1] == {"pos0=NNS": 1.0}
    bigrams = common.BigramContext(lemmatized=True).extract(doc)
    assert "bg-=the_nurse" in bigrams[2]


def test_dictionaries_merge_and_ambiguity() -> None:
    a = Dictionaries()
    a.add("last_names", ["Swan"], ambiguous=True)
    b = Dictionaries()
    b.add("last_names", ["Lee"])
    m = a.merged(b)
    assert m.contains("last_names", "SWAN") and m.contains("last_names", "lee")
    assert m.ambiguous("last_names") == {"swan"}


def test_combine_orders_names_as_successive_updates_would() -> None:
    classes = [common.WordWindow(offsets=(-1, 0)), common.Section(), common.WordWindow()]
    docs = [DOC, Document("e", "Nothing here.\n\nSeen by Dr. Who"), Document("f", "")]
    for doc, merged in zip(docs, combine(classes, docs), strict=True):
        expected = []
        for i in range(len(doc.tokens)):
            row: dict[str, float] = {}
            for c in classes:
                row.update(c.extract(doc)[i])
            expected.append(row)
        assert [list(r.items()) for r in merged] == [list(r.items()) for r in expected]
    x = FEATURE_SPACE.matrix(classes, docs)
    assert x.shape[0] == sum(len(d.tokens) for d in docs) and x.has_canonical_format
    assert x.max() == 2.0  # w0=... and w-1=... emitted by both word windows: summed once each


def test_token_names_are_combines_names_each_once() -> None:
    """``token_names`` (from the tokens' ids) lists each token's names as ``combine``
    orders them, a name two classes emit once at its first class; an empty note has none."""
    classes = [common.WordWindow(offsets=(-1, 0)), common.Section(), common.WordWindow()]
    docs = [DOC, Document("e", "Nothing here.\n\nSeen by Dr. Who"), Document("f", "")]
    expected = [list(row) for rows in combine(classes, docs) for row in rows]
    assert token_names(classes, docs) == expected
    assert any(len(row) < sum(len(c.extract(DOC)[0]) for c in classes) for row in expected[:1])
