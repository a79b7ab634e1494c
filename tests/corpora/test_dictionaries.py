"""Default (system) and surrogate (generation) dictionaries from PyPI data packages."""

from __future__ import annotations

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
