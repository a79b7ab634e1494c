"""The conformance suite: every registered system keeps the adapter contract, and the
suite itself catches each kind of broken promise."""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from typing import ClassVar

import numpy as np
import pytest

from corpora.model import OUTSIDE, PHI, Document
from systems import conformance
from systems.base import SYSTEMS, System
from systems.conformance import ConformanceError, NotCheckable, check_system, run_checks
from tests.conftest import requires_nltk


def _registered() -> list[object]:
    """Every registered system -- dropped-in files and entry points included -- with the
    NLTK skip on those whose tags say they need POS tags and lemmas."""
    params = []
    for name in SYSTEMS.names():
        try:
            uses_nlp = conformance.Subject(SYSTEMS[name], [], []).make().tags().uses_nlp
        except Exception:  # cannot even be built: the test says why
            uses_nlp = False
        params.append(pytest.param(name, marks=[requires_nltk] if uses_nlp else []))
    return params


@pytest.fixture(scope="module")
def notes(tmp_path_factory) -> Iterator[tuple[list[Document], list[Document]]]:
    """The sample notes, and a cache of this module's own (never the user's)."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("DEID_BENCH_CACHE", str(tmp_path_factory.mktemp("conformance-cache")))
        yield conformance.sample_notes()


@pytest.mark.parametrize("name", _registered())
def test_every_registered_system_keeps_the_adapter_contract(name: str, notes) -> None:
    try:
        check_system(name, notes)
    except NotCheckable as exc:
        pytest.skip(str(exc))


# --------------------------------------------------------------------------- the checker


class Honest(System):
    """A rule system that keeps every promise: capitalized words after the first are PHI."""

    name = "test-honest"
    description = "test fixture: capitalized words are PHI"
    requires_training = False
    uses_nlp = False
    predicts_categories = False

    def __init__(self, label: str = PHI) -> None:
        self.label = label

    def predict(self, documents: Sequence[Document]) -> list[list[str]]:
        return [
            [self.label if t.index and t.text[:1].isupper() else OUTSIDE for t in d.tokens]
            for d in documents
        ]


class Categorizing(Honest):
    """Declares PHI/O only, predicts a category."""

    def __init__(self, label: str = "PATIENT") -> None:
        self.label = label


class Coerced(Honest):
    """Changes a parameter in its constructor (scikit-learn forbids it: clone breaks)."""

    conformance_params: ClassVar = {"label": "phi"}

    def __init__(self, label: str = PHI) -> None:
        self.label = label.upper()


class Random(Honest):
    """Unseeded: two calls disagree."""

    def predict(self, documents: Sequence[Document]) -> list[list[str]]:
        return [[random.choice((PHI, OUTSIDE)) for _ in d.tokens] for d in documents]


class Learns(Honest):
    """Says it needs no training, but fitting changes what it labels."""

    def fit(self, documents: Sequence[Document]) -> Learns:
        self.seen_ = {t.text for d in documents for t in d.tokens}
        return self

    def predict(self, documents: Sequence[Document]) -> list[list[str]]:
        seen = getattr(self, "seen_", set())
        return [[PHI if t.text in seen else OUTSIDE for t in d.tokens] for d in documents]


class Unpicklable(Honest):
    """Holds a lambda: worker processes could not receive it."""

    def __init__(self, label: str = PHI) -> None:
        self.label = label
        self.rule = lambda token: token.text[:1].isupper()


class Uncited(Honest):
    """Cites a source without saying what differs from it."""

    citation = "Somebody et al. 2001"


class Miscored(Honest):
    """Its scores do not give its labels at its own threshold."""

    def __init__(self, label: str = PHI, threshold: float = 0.5) -> None:
        self.label = label
        self.threshold = threshold

    def score_tokens(self, documents: Sequence[Document]) -> list[np.ndarray]:
        return [np.zeros(len(d.tokens)) for d in documents]


class Short(Honest):
    """One label too few per note."""

    def predict(self, documents: Sequence[Document]) -> list[list[str]]:
        return [labels[:-1] for labels in super().predict(documents)]


class Demanding(Honest):
    """Cannot be built without an argument, and names no conformance parameters."""

    def __init__(self, label: str) -> None:
        self.label = label


def _broken(cls: type[System], notes) -> dict[str, str]:
    return {r.check: r.message for r in run_checks(cls, notes) if not r.passed}


def test_an_honest_system_passes_every_check(notes) -> None:
    results = run_checks(Honest, notes)
    assert [r.check for r in results] == [
        c.__name__.removeprefix("check_") for c in conformance.CHECKS
    ]
    assert all(r.passed for r in results), results


@pytest.mark.parametrize(
    ("cls", "check", "says"),
    [
        (Categorizing, "predict", "tags say no categories"),
        (Coerced, "params", "stores parameter 'label' as given"),
        (Random, "determinism", "same"),
        (Learns, "training_tag", "requires_training=False"),
        (Unpicklable, "pickle", "cannot be pickled"),
        (Uncited, "facts", "departures"),
        (Miscored, "scores_tag", "exceeds `threshold`"),
        (Short, "predict", "labels for document"),
        (Demanding, "params", "raised TypeError"),
    ],
)
def test_each_broken_promise_is_caught_and_named(cls, check: str, says: str, notes) -> None:
    broken = _broken(cls, notes)
    assert check in broken and says in broken[check], broken
    with pytest.raises(ConformanceError, match=check):
        check_system(cls, notes)


def test_a_system_that_cannot_run_here_is_not_checked(notes) -> None:
    # the command adapter without a command: its tool cannot start
    class_entry = SYSTEMS["command"]
    with pytest.raises(NotCheckable, match=r"cannot run here: .*no command given"):
        run_checks(conformance.SystemEntry("no-cmd", class_entry.cls, {"cmd": ""}), notes)


def test_a_class_is_named_by_module_and_attribute() -> None:
    entry = conformance.resolve("tests.systems.test_conformance:Honest")
    assert entry.cls is Honest and entry.name == "test-honest" and not entry.params
    assert conformance.resolve("heuristic") is SYSTEMS["heuristic"]


def test_one_command_checks_a_users_adapter(capsys, notes) -> None:
    from bench.cli import main

    assert main(["check", "tests.systems.test_conformance:Honest"]) == 0
    out = capsys.readouterr().out
    assert "test-honest: passes (10/10)" in out and "ok   determinism" in out
    assert main(["check", "tests.systems.test_conformance:Random"]) == 1
    assert "FAIL determinism" in capsys.readouterr().out
    assert main(["check", "no-such-system"]) == 2
    assert "unknown system 'no-such-system'" in capsys.readouterr().err
