"""The adapter contract: sklearn-like parameters, registry, output checks."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from corpora.model import Document, Span
from systems.base import System, available_systems, get_system, register, unregister


class CapitalizedIsPhi(System):
    """Test fixture only: every capitalized token is PHI."""

    name = "test-capitalized"
    description = "fixture"
    requires_training = False
    predicts_categories = False

    def __init__(self, min_length: int = 1) -> None:
        self.min_length = min_length

    def predict(self, documents: Sequence[Document]) -> list[list[str]]:
        return [
            [
                "PHI" if t.text[:1].isupper() and len(t.text) >= self.min_length else "O"
                for t in d.tokens
            ]
            for d in documents
        ]


@pytest.fixture
def registered():
    register(CapitalizedIsPhi)
    yield CapitalizedIsPhi
    unregister(CapitalizedIsPhi.name)


def test_registry_finds_registered_system(registered) -> None:
    system = get_system("test-capitalized", min_length=3)
    assert isinstance(system, CapitalizedIsPhi)
    assert system.get_params() == {"min_length": 3}
    assert system.clone().get_params() == {"min_length": 3}
    assert "test-capitalized" in available_systems()


def test_fixture_not_listed_without_registration() -> None:
    assert "test-capitalized" not in available_systems()


def test_unknown_system_names_known_ones() -> None:
    with pytest.raises(KeyError, match="unknown system 'nope'"):
        get_system("nope")


def test_set_params_rejects_unknown() -> None:
    with pytest.raises(ValueError, match="no parameter"):
        CapitalizedIsPhi().set_params(colour="red")


def test_fit_predict_checks_alignment(registered) -> None:
    doc = Document("d", "Seen by Dr. Lee today", (Span(12, 15, "DOCTOR"),))
    labels = get_system("test-capitalized", min_length=3).fit_predict([], [doc])
    assert labels == [["PHI", "O", "PHI", "PHI", "O"]]


def test_register_requires_name() -> None:
    class Nameless(CapitalizedIsPhi):
        name = ""

    with pytest.raises(ValueError, match="must set"):
        register(Nameless)
