"""The ``foreign`` test variant: real names and places of other countries, offsets exact,
everything but names and places untouched, deterministic, registered for --test-variant."""

from __future__ import annotations

import re
import unicodedata

import pytest

from corpora.foreign import (
    LOCALES,
    REPLACED,
    abbreviation,
    foreign,
    foreign_document,
    locale_pools,
)
from corpora.generator import GeneratorConfig, generate_corpus
from corpora.load import VARIANTS, LoadOptions, load_corpus
from corpora.model import FLAG_NOT_IN_DICTIONARY, Corpus, Document, Span


@pytest.fixture(autouse=True)
def _private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("DEID_BENCH_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("DEID_BENCH_NO_CACHE", raising=False)


@pytest.fixture(scope="module")
def base() -> Corpus:
    return generate_corpus(3, GeneratorConfig(n_documents=40))


def _note(parts: list[tuple[str, str | None]]) -> Document:
    text, spans = "", []
    for chunk, category in parts:
        if category:
            spans.append(Span(len(text), len(text) + len(chunk), category))
        text += chunk
    return Document("n1", text, tuple(spans))


def test_only_names_and_places_change_and_offsets_stay_exact(base) -> None:
    out = foreign(base, seed=0)
    assert len(out.documents) == len(base.documents)
    changed = 0
    for old, new in zip(base.documents, out.documents, strict=True):
        assert [s.category for s in old.spans] == [s.category for s in new.spans]
        # the text between spans is the same: same note with other PHI
        assert old.context_key == new.context_key
        for a, b in zip(old.spans, new.spans, strict=True):
            before, after = old.span_text(a), new.span_text(b)
            if a.category not in REPLACED:
                assert before == after  # dates, IDs, phones, ages kept
            elif any(c.isalpha() for c in before):
                changed += before != after
        for m in new.marks:
            assert 0 <= m.start < m.end <= len(new.text)
    assert changed > 50


def test_names_come_from_the_notes_locale_and_keep_their_case() -> None:
    note = _note(
        [
            ("Seen ", None),
            ("JOHN SMITH", "PATIENT"),
            (" with ", None),
            ("smith", "PATIENT"),
            ("'s wife; Dr. ", None),
            ("Baker", "DOCTOR"),
            (" on ", None),
            ("3/4/2005", "DATE"),
            (", lives in ", None),
            ("Boston", "LOCATION"),
            (", ", None),
            ("Massachusetts", "LOCATION"),
            (" (", None),
            ("MA", "LOCATION"),
            ("), phone ", None),
            ("617-555-1234", "PHONE"),
            (".", None),
        ]
    )
    new = foreign_document(note, seed=0)
    pools = locale_pools(new.metadata["foreign_locale"])
    texts = {s.category + str(i): new.span_text(s) for i, s in enumerate(new.spans)}
    first, last = texts["PATIENT0"].split(" ", 1)
    assert first.isupper() and last.isupper()
    assert first.title() in {*(n.upper().title() for n in pools.pools.female + pools.pools.male)}
    assert last in {n.upper() for n in pools.pools.last}
    # the same surname is the same replacement throughout the note, in its own case
    assert texts["PATIENT1"] == last.lower()
    assert texts["DOCTOR2"] in pools.pools.last
    assert texts["DATE3"] == "3/4/2005" and texts["PHONE7"] == "617-555-1234"
    assert texts["LOCATION4"] in pools.pools.cities
    assert texts["LOCATION5"] in pools.pools.states  # a US state -> a region there
    assert re.fullmatch(r"[^\W\d_]{2}", texts["LOCATION6"]) and texts["LOCATION6"].isupper()


def test_deterministic_per_seed_and_locales_spread(base) -> None:
    a = foreign(base, seed=0)
    b = foreign(base, seed=0)
    c = foreign(base, seed=1)
    assert [d.text for d in a] == [d.text for d in b]
    assert [d.text for d in a] != [d.text for d in c]
    used = {d.metadata["foreign_locale"] for d in a}
    assert len(used) >= 8 and used <= set(LOCALES)
    assert a.metadata["faker"] and a.metadata["variant"] == "foreign"


def test_every_list_is_latin_script_words() -> None:
    for locale in LOCALES:
        p = locale_pools(locale)
        for values in (p.pools.female, p.pools.male, p.pools.last, p.pools.cities, p.streets):
            assert len(values) >= 10, locale
            for v in values:
                assert re.fullmatch(r"[^\W\d_]+(?:[ '\-]+[^\W\d_]+)*", v), (locale, v)
                assert all(not ch.isalpha() or "LATIN" in unicodedata.name(ch) for ch in v), (
                    locale,
                    v,
                )


def test_not_in_dictionary_marks_are_recomputed_inside_names(base) -> None:
    out = foreign(base, seed=0)
    marks = [(d, m) for d in out for m in d.marks if m.flag == FLAG_NOT_IN_DICTIONARY]
    assert marks
    for doc, m in marks:
        assert any(
            s.start <= m.start and m.end <= s.end for s in doc.spans if s.category in REPLACED
        )


def test_registered_as_a_variant_and_loadable_by_spec() -> None:
    assert list(VARIANTS)[-1] == "foreign"
    corpus, _ = load_corpus("foreign", LoadOptions(n_documents=12, seed=2))
    authentic, _ = load_corpus("authentic", LoadOptions(n_documents=12, seed=2))
    assert corpus.name == "foreign" and len(corpus) == 12
    assert [d.context_key for d in corpus] == [d.context_key for d in authentic]
    assert [d.text for d in corpus] != [d.text for d in authentic]


def test_abbreviation_of_a_region() -> None:
    assert abbreviation("Nordrhein-Westfalen", 2) == "NW"
    assert abbreviation("Sachsen", 2) == "SA"
    assert abbreviation("Hallands län", 3) == "HLA"
