"""The one registry shape: names, objects and one-line descriptions, read like a mapping."""

from __future__ import annotations

import pytest

from corpora.load import READERS, VARIANTS
from corpora.registry import Registry
from systems.features.statdeid import ALL_FEATURES
from systems.mega import MEGA_SOURCES


def test_names_are_sorted_unless_the_registration_order_matters() -> None:
    plain: Registry[int] = Registry("number")
    ordered: Registry[int] = Registry("number", ordered=True)
    for registry in (plain, ordered):
        registry.add("two", 2, "the second")
        registry.add("one", 1, "the first")
    assert plain.names() == ["one", "two"]
    assert ordered.names() == ["two", "one"]
    assert [(e.name, e.description) for e in ordered.entries()] == [
        ("two", "the second"),
        ("one", "the first"),
    ]


def test_a_registry_reads_like_a_mapping() -> None:
    registry: Registry[int] = Registry("number", ordered=True)

    @registry.register("three", "the third")
    def three() -> int:
        return 3

    registry.add("four", 4)
    assert list(registry) == ["three", "four"] and len(registry) == 2
    assert "four" in registry and "five" not in registry
    assert registry["three"] is three and {**registry} == {"three": three, "four": 4}
    with pytest.raises(KeyError, match="unknown number 'five'; known: three, four"):
        registry["five"]
    with pytest.raises(ValueError, match="already registered"):
        registry.add("four", 5)


def test_every_reader_variant_feature_class_and_mega_source_is_described() -> None:
    assert set(READERS) == {"physionet", "i2b2-2006", "i2b2-2014", "brat", "jsonl"}
    assert list(VARIANTS) == ["authentic", "surrogate", "ambiguous", "unseen"]
    for registry in (READERS, VARIANTS, ALL_FEATURES, MEGA_SOURCES):
        assert len(registry) > 0
        assert all(e.description and "\n" not in e.description for e in registry.entries())
